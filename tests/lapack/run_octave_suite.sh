#!/usr/bin/env bash
# Octave with the drop-in preloaded, every call through hetlu's solvers (HETLU_SMALL_MATRIX_CROSSOVER=0):
# usage run_octave_suite.sh LIBRARY. Octave's own tests of its dense linear algebra (lu, det, inv,
# rcond, mldivide's in data.cc, the linear-algebra scripts) must pass exactly as they pass without the
# drop-in (Debian's Octave 7.3 fails two inv tests of NaN input and six known bugs either way), and
# octave_checks.m (A\b, A'\b, lu, det, inv in four precisions; singular and NaN input) must pass, with
# hetlu serving the real and complex getrf and getrs of both precisions.
set -u
library=$(realpath "$1") || exit 1
checks=$(dirname "$(realpath "$0")")/octave_checks.m
command -v octave-cli >/dev/null || { echo "octave-cli is not installed (scripts/setup.sh installs Debian's octave)"; exit 1; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work"
tests=$(octave-cli -q --eval 'disp(__octave_config_info__("octtestsdir"))' 2>/dev/null) &&
  [ -d "$tests/libinterp/corefcn" ] || { echo "Octave's own test files are not installed (octtestsdir: '$tests')"; exit 1; }
cat >suite.m <<EOF
t = "$tests/";
files = {[t "libinterp/corefcn/lu.cc-tst"], [t "libinterp/corefcn/det.cc-tst"], [t "libinterp/corefcn/inv.cc-tst"], ...
         [t "libinterp/corefcn/rcond.cc-tst"], [t "libinterp/corefcn/matrix_type.cc-tst"], ...
         [t "libinterp/corefcn/sqrtm.cc-tst"], [t "libinterp/corefcn/pinv.cc-tst"], [t "libinterp/corefcn/data.cc-tst"], ...
         [t "liboctave/array/dMatrix.cc-tst"], [t "liboctave/array/CMatrix.cc-tst"], [t "liboctave/array/fMatrix.cc-tst"], ...
         [t "liboctave/array/fCMatrix.cc-tst"], [t "fixed/leftdiv.tst"], [t "fixed/diag-perm.tst"], ...
         "linsolve", "cond", "expm", "logm", "null", "orth", "condest", "normest1", "lscov", "rank", "lsqnonneg", ...
         "bicg", "gmres", "pcg"};
for i = 1:numel(files)
  % The same random numbers in both runs (condest, normest1 and the iterative solvers draw some).
  rand("seed", 1); randn("seed", 1); rand("state", 1); randn("state", 1);
  [passed, all] = test(files{i}, "quiet", stdout);
  printf("RESULT %s %d of %d\n", files{i}, passed, all);
end
EOF
# Octave's own result, then the drop-in's: the same tests pass and the same fail, and Octave ends alike.
timeout 240 octave-cli -q suite.m >plain.out 2>&1
plain_status=$?
timeout 240 env HETLU_SMALL_MATRIX_CROSSOVER=0 HETLU_LAPACK_VERBOSE=1 LD_PRELOAD="$library" \
  octave-cli -q suite.m >hetlu.out 2>&1
hetlu_status=$?
fail=0
grep '^RESULT' hetlu.out | sed "s|$tests/||"
[ $hetlu_status -eq $plain_status ] || { echo "FAILED: Octave exited $hetlu_status preloaded, $plain_status without"; fail=1; }
# Every file ran tests (a file Octave cannot find is "0 of 0" in both runs, which would compare equal).
[ "$(grep -c '^RESULT .* [1-9][0-9]* of [1-9][0-9]*$' plain.out)" -eq 28 ] ||
  { echo "FAILED: Octave's own suite did not run tests from every file"; grep '^RESULT' plain.out | grep ' 0 of'; fail=1; }
if ! diff <(grep -E '^(RESULT|!!!!!|\*\*\*\*\*)' plain.out) <(grep -E '^(RESULT|!!!!!|\*\*\*\*\*)' hetlu.out); then
  echo "FAILED: Octave's tests differ with the drop-in preloaded (above: < without, > with)"
  fail=1
fi
# The checks with every call through hetlu's solvers, then as a user preloads it (small orders
# through hetlu's own loops and the library's own getrf).
for crossover in 0 default; do
  setting=(HETLU_SMALL_MATRIX_CROSSOVER=0)
  [ $crossover = default ] && setting=(-u HETLU_SMALL_MATRIX_CROSSOVER)
  timeout 240 env "${setting[@]}" HETLU_LAPACK_VERBOSE=1 LD_PRELOAD="$library" octave-cli -q "$checks" >checks.out 2>&1
  status=$?
  cat checks.out >>all_checks.out
  grep -E '^(ok|FAILED)' checks.out | tail -2 | sed "s/^/crossover $crossover: /"
  grep -q "octave checks passed" checks.out && [ $status -eq 0 ] ||
    { echo "FAILED: octave_checks.m, crossover $crossover (exit $status)"; fail=1; }
done
for routine in DGETRF DGETRS ZGETRF ZGETRS SGETRF SGETRS CGETRF CGETRS; do
  grep -q "LAPACK $routine served by libhetlu_lapack" hetlu.out all_checks.out || { echo "MISSING: $routine"; fail=1; }
done
[ $fail -eq 0 ] && echo "Octave's linear algebra tests and octave_checks.m preloaded: passed"
exit $fail
