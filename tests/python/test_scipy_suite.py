"""SciPy's own tests of solve, inv, det, lu_factor and lu_solve, run against hetlu.linalg (#14.4).

The test classes are SciPy's (scipy/linalg/tests/test_basic.py and test_decomp.py), unchanged;
the names they call are pointed at hetlu.linalg's before they run. Their complex cases are factored
by hetlu too (#15).
"""
import importlib

import pytest

from hetlu import linalg

basic = pytest.importorskip("scipy.linalg.tests.test_basic")
decomp = importlib.import_module("scipy.linalg.tests.test_decomp")

for module in (basic, decomp):
    for name in ("solve", "inv", "det", "lu_factor", "lu_solve"):
        if hasattr(module, name):
            setattr(module, name, getattr(linalg, name))


class TestSolve(basic.TestSolve):
    pass


class TestInv(basic.TestInv):
    pass


class TestDet(basic.TestDet):
    pass


class TestLU(decomp.TestLU):
    pass


class TestLUSingle(decomp.TestLUSingle):
    pass


class TestLUSolve(decomp.TestLUSolve):
    pass


def test_the_suites_call_hetlu():
    assert basic.solve is linalg.solve and decomp.lu_factor is linalg.lu_factor
    assert decomp.lu_solve is linalg.lu_solve and basic.inv is linalg.inv and basic.det is linalg.det
