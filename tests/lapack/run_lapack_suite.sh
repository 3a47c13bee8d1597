#!/usr/bin/env bash
# Runs one of LAPACK's linear-equation testers (liblapack-test) with libhetlu_lapack.so preloaded,
# on a GE-only input: usage run_lapack_suite.sh TESTER INPUT LIBRARY PREFIX (D, S, Z or C; DS: xlintstds, DSGESV; ZC: xlintstzc, ZCGESV).
# Passes when the tester ran hetlu's getrf, getrs and gesv, every test passed the threshold and
# the error exits were all detected.
set -u
tester=$1 input=$2 library=$3 prefix=$4
out=$(mktemp) err=$(mktemp)
trap 'rm -f "$out" "$err"' EXIT
cd "$(dirname "$out")"
HETLU_LAPACK_VERBOSE=1 LD_PRELOAD="$library" "$tester" <"$input" >"$out" 2>"$err"
status=$?
cat "$out" "$err"
fail=0
expect() { grep -q -- "$1" "$2" || { echo "MISSING: $1"; fail=1; }; }
[ $status -eq 0 ] || { echo "tester exited with $status"; fail=1; }
if [ "$prefix" = DS ] || [ "$prefix" = ZC ]; then  # xlintstds, xlintstzc: the mixed-precision driver alone
  expect "LAPACK ${prefix}GESV served by libhetlu_lapack" "$err"
  expect "${prefix}GESV drivers passed the tests of the error exits" "$out"
  expect "All tests for ${prefix}GESV routines passed the threshold" "$out"
else
  for routine in GETRF GETRS GESV; do expect "LAPACK ${prefix}${routine} served by libhetlu_lapack" "$err"; done
  expect "${prefix}GE routines passed the tests of the error exits" "$out"
  expect "${prefix}GE drivers passed the tests of the error exits" "$out"
  expect "All tests for ${prefix}GE routines passed the threshold" "$out"
  expect "All tests for ${prefix}GE drivers  passed the threshold" "$out"
fi
if grep -qiE "fail|illegal" "$out"; then echo "a failure was reported"; fail=1; fi
[ $fail -eq 0 ] && echo "LAPACK ${prefix}GE suite: passed" || echo "LAPACK ${prefix}GE suite: FAILED"
exit $fail
