#!/usr/bin/env bash
# NumPy's and SciPy's own linalg tests with the drop-in preloaded and every call through hetlu's
# solvers (HETLU_SMALL_MATRIX_CROSSOVER=0): usage run_numpy_suite.sh LIBRARY. Passes when both suites
# pass (NumPy's xerbla_ override test included, which skips itself where it is not reached) and hetlu
# served the real and complex getrf and gesv calls. NumPy's test files are copied
# out of the package, whose conftest needs hypothesis (not a Debian dependency of python3-numpy).
set -u
library=$(realpath "$1") || exit 1
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
numpy_tests=$(/usr/bin/python3 -c 'import numpy.linalg, os; print(os.path.dirname(numpy.linalg.__file__) + "/tests")') || exit 1
scipy_tests=$(/usr/bin/python3 -c 'import scipy.linalg, os; print(os.path.dirname(scipy.linalg.__file__) + "/tests")') || exit 1
cp "$numpy_tests"/test_linalg.py "$numpy_tests"/test_regression.py "$work"/
cd "$work"
fail=0
for suite in "$work" "$scipy_tests"; do
  HETLU_SMALL_MATRIX_CROSSOVER=0 HETLU_LAPACK_VERBOSE=1 LD_PRELOAD="$library" \
    /usr/bin/python3 -m pytest -q -s -rs -p no:cacheprovider "$suite" >"$work/out" 2>&1
  status=$?
  tail -1 "$work/out"
  [ $status -eq 0 ] || { echo "FAILED: $suite"; grep -E "^FAILED|Error" "$work/out" | head -20; fail=1; }
  # NumPy's xerbla_ (a module loaded locally) answers an illegal argument, as without the drop-in.
  if grep -q "Numpy xerbla not linked in" "$work/out"; then echo "SKIPPED: NumPy's test_xerbla_override"; fail=1; fi
  for routine in DGETRF DGESV ZGETRF ZGESV; do
    grep -q "LAPACK $routine served by libhetlu_lapack" "$work/out" || { echo "MISSING: $routine in $suite"; fail=1; }
  done
done
[ $fail -eq 0 ] && echo "NumPy and SciPy linalg suites preloaded: passed"
exit $fail
