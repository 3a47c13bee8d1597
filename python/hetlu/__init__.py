"""hetlu: auto-tuned dense LU solvers.

hetlu.linalg has scipy.linalg's shape (solve, lu_factor, lu_solve, det, inv, and stacks); the
functions below return hetlu's report beside the answer.

    >>> import numpy as np, hetlu
    >>> A = np.random.rand(500, 500); b = np.ones(500)
    >>> result = hetlu.solve(A, b)
    >>> result.x, result.plan["nb"], result.plan["source"], result.backward_error

Matrices may be float32, float64, complex64 or complex128 in either memory order, or anything NumPy
reads as an array (lists too; masked arrays are refused); other real types are converted to float64.
Errors raise ValueError (bad input, with the same message as the hetlu command: it is
hetlu.InvalidArgument), numpy.linalg.LinAlgError (a singular matrix), hetlu.DatabaseError (an
OSError: a database that calibrate cannot use) and hetlu.Error (a RuntimeError: anything else, e.g.
backend="cuda" where no GPU is usable). A database that solve, lu_factor or recommend cannot read is
no error: the model answers, and solve and lu_factor warn with hetlu.HetluWarning (a UserWarning), as
for stale or damaged tuned entries; the result's warnings (lu_factor: plan["warnings"]) hold the same
lines. lu_factor warns with hetlu.linalg.LinAlgWarning where its factors' pivot growth is above
100 (n + 1) (lu_solve's x from them may be inaccurate). solve warns with hetlu.linalg.LinAlgWarning (SciPy's)
where x cannot be trusted: not finite, a backward error above 30 (n + 1) eps (LAPACK's gesv returns
such an x as a success; the hetlu command equilibrates and escalates instead), or A singular to
working precision where the solve estimated rcond (PRBT, precision="mixed" or "auto"); the result's
warnings list says the same. A is copied once, because it is factored in place;
with overwrite_a=True an A of the right type and layout is factored where it lies, and the result's
backward_error is then None, since the original A is gone.

solve, lu_factor and recommend run on the CPUs unless target="hybrid": then backend="cuda" or
"host" (None: cuda when a GPU is usable, else host), d (the CPUs' block columns) and panel ("cpu"
or "device") as the hetlu command's --backend, --d and --panel; None resolves them.
"""
from . import linalg  # noqa: F401  scipy.linalg's LU routines, solved by hetlu
from ._hetlu import (  # noqa: F401
    DatabaseError,
    Error,
    HetluWarning,
    InvalidArgument,
    LUFactorization,
    SolveResult,
    calibrate,
    lu_factor,
    lu_solve,
    recommend,
    solve,
)

__all__ = [
    "linalg",
    "solve",
    "lu_factor",
    "lu_solve",
    "recommend",
    "calibrate",
    "SolveResult",
    "LUFactorization",
    "Error",
    "DatabaseError",
    "InvalidArgument",
    "HetluWarning",
]
