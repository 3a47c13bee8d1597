"""hetlu.linalg: scipy.linalg's LU routines, solved by hetlu.

    >>> from hetlu import linalg
    >>> x = linalg.solve(A, b)                  # as scipy.linalg.solve
    >>> lu, piv = linalg.lu_factor(A)           # interchangeable with scipy.linalg's, both ways
    >>> x = linalg.lu_solve((lu, piv), b, trans=1)
    >>> linalg.det(A), linalg.inv(A)
    >>> X = linalg.solve(stack_of_A, stack_of_b)  # (..., n, n) as numpy.linalg.solve, in parallel

Same signatures, dtype promotion, errors and warnings as SciPy: float32 when no input is wider than
float32 or int16, float64 otherwise (complex alike; det, as SciPy's, and stacks, as numpy.linalg's,
compute integers in float64); ValueError for bad shapes; LinAlgError for a singular matrix in solve
and inv; LinAlgWarning when the estimated reciprocal condition number is below the unit roundoff
(lamch('E'), solve of one matrix), a pivot is exactly zero (lu_factor), or the factors' pivot growth
is above 100 (n + 1) (solve and lu_factor: Wilkinson's matrix). Real and complex
systems (float32, float64, complex64, complex128) are factored by hetlu (its auto-tuned GEPP; below
the small-matrix crossover, the BLAS library's own getrf, which costs least there) and its condition
estimate. assume_a 'sym', 'her' and 'pos' are solved by LU of the triangle `lower` names, mirrored
(conjugated for 'her' and 'pos'; 'pos' checked positive definite by a Cholesky factorization, NumPy's,
and LinAlgError where it is not, as SciPy's posv).

Stacks: a of shape (..., n, n) with b of shape (..., n) or (..., n, k), broadcast as
numpy.linalg.solve does, are solved in one call, in parallel across the stack; as there, a singular
member raises LinAlgError and no member's condition is estimated (no LinAlgWarning: the estimate
would cost about as much as a small system's LU; solve an ill-conditioned suspect alone).

hetlu.solve, with its report (plan, backward error, timings), stays beside these.
"""
import functools
import warnings

import numpy as np

from . import _hetlu

try:
    from scipy.linalg import LinAlgWarning
except ImportError:  # without SciPy: a warning of the same name and base
    class LinAlgWarning(RuntimeWarning):
        """The warning SciPy issues for an ill-conditioned or singular matrix."""


LinAlgError = np.linalg.LinAlgError

__all__ = ["solve", "lu_factor", "lu_solve", "det", "inv", "LinAlgError", "LinAlgWarning"]


def _validated(a, check_finite):
    """As SciPy's _asarray_validated: no object arrays, no masked arrays, finite when asked.

    The hot calls (lu_factor, lu_solve, solve) pass check_finite=False here and let the module check
    the arrays it computes on: NumPy's own check costs more than a small matrix's LU (#14.1)."""
    if isinstance(a, np.ma.MaskedArray):
        raise ValueError("masked arrays are not supported")
    a = np.asarray_chkfinite(a) if check_finite else np.asarray(a)
    if a.dtype == object:
        raise ValueError("object arrays are not supported")
    return a


# SciPy's scores of dtype characters (scipy.linalg.blas.find_best_blas_type): the largest wins,
# a float64-class and a complex64 make complex128, anything unlisted is float64.
_SCORES = {**{c: 1 for c in "?bBhHef"}, **{c: 2 for c in "iIlLqQdg"}, "F": 3, "D": 4, "G": 4}
_TYPES = {1: np.float32, 2: np.float64, 3: np.complex64, 4: np.complex128}


def _long_double(*arrays):
    """Whether an input is a long double, real or complex: rounded to the working type, a finite
    value may become Inf, which the module's check would refuse where SciPy's does not."""
    return any(a.dtype.char in "gG" for a in arrays)


def _working_type(*arrays):
    """The type SciPy's LAPACK wrappers would compute in, from the inputs' dtypes."""
    return _working_type_of(tuple([a.dtype.char for a in arrays]))


@functools.lru_cache(maxsize=256)
def _working_type_of(chars):
    scores = [_SCORES.get(c, 5) for c in chars]
    best = max(scores)
    if best == 3 and 2 in scores:
        best = 4
    return np.dtype(_TYPES.get(best, np.float64))


def _owned(a, dtype, overwrite):
    """a as a writable, aligned Fortran-ordered array of dtype: a itself when allowed and already so
    (NumPy allows a buffer at an odd offset, unaligned, which the module's kernels must not read)."""
    if (overwrite and a.dtype == dtype and a.flags.f_contiguous and a.flags.writeable and a.flags.aligned
            and a.ndim == 2):
        return a
    return np.array(a, dtype=dtype, order="F", copy=True)


def _stack_working_type(*arrays):
    """The type numpy.linalg.solve computes a stack in: single (float32, complex64) only where every
    input is; integers and bools in double (SciPy's scores gave an int16 stack float32, and x off by
    0.6 where NumPy's is exact)."""
    chars = [a.dtype.char for a in arrays]
    single = all(c in "fF" for c in chars)
    if any(c in "FDG" for c in chars):
        return np.dtype(np.complex64 if single else np.complex128)
    return np.dtype(np.float32 if single else np.float64)


def _det_type(a):
    """The type scipy.linalg.det computes in (its flinalg's prefixes s, d, c, z): float32 and complex64
    as given, any other real in float64 (int16 in float32 had lost 9 digits), complex in complex128."""
    return np.dtype({"f": np.float32, "F": np.complex64, "D": np.complex128, "G": np.complex128}.get(
        a.dtype.char, np.float64))


def _lamch_e(a):
    """The unit roundoff SciPy's solve compares rcond with: LAPACK's lamch('E'), half of NumPy's eps,
    of single where a itself is float32 or complex64, else of double."""
    return np.finfo(np.float32 if a.dtype.char in "fF" else np.float64).eps / 2


def _mirrored(a, lower, conjugate):
    """The symmetric (conjugate: Hermitian) matrix given by one triangle of a (SciPy's sym, her and
    pos read only that one; her and pos take the diagonal's real part)."""
    triangle = np.tril(a) if lower else np.triu(a)  # of the last two axes: a stack too
    strict = np.swapaxes(np.tril(a, -1) if lower else np.triu(a, 1), -1, -2)
    full = triangle + (strict.conj() if conjugate else strict)
    if conjugate and np.iscomplexobj(full):
        diagonal = np.arange(full.shape[-1])
        full[..., diagonal, diagonal] = full[..., diagonal, diagonal].real
    return full


def solve(a, b, lower=False, overwrite_a=False, overwrite_b=False, check_finite=True, assume_a="gen",
          transposed=False, *, sym_pos=False, target="cpu", backend=None):
    """scipy.linalg.solve: x with a @ x = b (a.T @ x = b when transposed); a stack as numpy.linalg.solve.

    b may have more than two dimensions (n, ...): every column of its trailing dimensions is solved,
    as SciPy does. sym_pos is SciPy 1.10's deprecated spelling of assume_a='pos'. target='hybrid'
    (hetlu's own, default 'cpu'): a matrix is factored by the hybrid LU, a stack solved on one device
    (backend 'cuda', cuBLAS's batched LU, or 'host:K'; None: a GPU where there is one, else host)."""
    a1 = np.atleast_2d(_validated(a, False))
    b1 = np.atleast_1d(_validated(b, False))
    a_given = a1
    if sym_pos:
        warnings.warn("The 'sym_pos' keyword is deprecated and should be replaced by using 'assume_a = \"pos\"'. "
                      "'sym_pos' will be removed in SciPy 1.11.0.", DeprecationWarning, stacklevel=2)
        assume_a = "pos"
    # The general square case is checked whole by _gesv, on the arrays it solves; the rest here, as
    # SciPy does (and long doubles, whose finite values may round to Inf in the working type).
    checked_in_module = assume_a == "gen" and a1.ndim == 2 and b1.size != 0 and not _long_double(a1, b1)
    if check_finite and not checked_in_module:
        a1, b1 = np.asarray_chkfinite(a1), np.asarray_chkfinite(b1)
    if assume_a not in ("gen", "sym", "her", "pos"):
        raise ValueError("{} is not a recognized matrix structure".format(assume_a))
    # As SciPy: a complex a only (a real a with a complex b is solved as a^T x = b), for a stack too.
    if transposed and a1.dtype.kind == "c":
        raise NotImplementedError("scipy.linalg.solve can currently not solve a^T x = b or a^H x = b "
                                  "for complex matrices.")
    if target is None:
        target = "cpu"
    if a1.ndim > 2:  # each matrix of the stack read as assume_a and lower say, as a lone one is
        if assume_a != "gen" and a1.shape[-1] == a1.shape[-2]:
            a1 = _mirrored(a1, lower, conjugate=assume_a != "sym")
            if assume_a == "pos":
                _require_positive_definite(a1)
        return _solve_stack(a1, b1, transposed, target, backend)
    n = a1.shape[0]
    if a1.shape[0] != a1.shape[1]:
        raise ValueError("Input a needs to be a square matrix.")
    # A 1 x 1 a takes a 1-D b of any length (each entry a system), as SciPy; a 2-D b needs its rows.
    if n != b1.shape[0] and not (n == 1 and b1.size != 0 and b1.ndim == 1):
        raise ValueError("Input b has to have same number of rows as input a")
    dtype = _working_type(a1, b1)
    if b1.size == 0:
        return np.asfortranarray(b1.copy())
    b_is_1d = b1.ndim == 1
    shape = b1.shape
    if b_is_1d:
        b1 = b1[None, :] if n == 1 else b1[:, None]
    elif b1.ndim > 2:
        b1 = b1.reshape(n, -1)
    if assume_a in ("sym", "her", "pos"):
        a1 = _mirrored(a1, lower, conjugate=assume_a != "sym")
        overwrite_a = True  # a fresh array
        if assume_a == "pos":
            _require_positive_definite(a1)
    lu = _owned(a1, dtype, overwrite_a)
    x = _owned(b1, dtype, overwrite_b)
    if np.may_share_memory(lu, x):  # b a view of a, both to be overwritten: the factors would clobber b
        x = np.array(x, order="F", copy=True)
    info, rcond, growth = _hetlu._gesv(lu, x, 1 if transposed else 0, check_finite and checked_in_module, target,
                                       backend)
    if info > 0:
        raise LinAlgError("Matrix is singular.")
    # Growth first: GEPP's backward error is about growth * eps (Wilkinson's), and an rcond estimated
    # from factors that grew so tells nothing (Wilkinson's at n = 150 in float32 was "ill-conditioned,
    # rcond=0", where it is 1 / 150: a hostile helper's finding).
    if growth > _hetlu._pivot_growth_limit(n):
        warnings.warn("Pivot growth {:.1e} (1 / rpvgrw) is above 100 (n + 1): result may not be accurate; "
                      "hetlu.solve checks the answer and repairs it.".format(growth), LinAlgWarning, stacklevel=2)
    elif rcond < _lamch_e(a_given):
        warnings.warn("Ill-conditioned matrix (rcond={:.6g}): result may not be accurate.".format(rcond),
                      LinAlgWarning, stacklevel=2)
    elif check_finite and not np.isfinite(x).all():  # a well-conditioned a whose x overflows: [[5e-324]] x = [1]
        warnings.warn("The solution is not finite (it overflowed the working precision): result may not be "
                      "accurate.", LinAlgWarning, stacklevel=2)
    return x.ravel() if b_is_1d else x.reshape(shape)


def _require_positive_definite(a):
    """SciPy solves assume_a='pos' by posv, which refuses a matrix that is not positive definite;
    hetlu's LU solves any nonsingular one ([[1, 2], [2, 1]] came back solved where SciPy raises). One
    Cholesky factorization (NumPy's, of a stack too) tells, at about half the LU's cost."""
    if a.dtype.char not in "fdFD":
        a = a.astype(np.complex128 if a.dtype.kind == "c" else np.float64)
    try:
        np.linalg.cholesky(a)
    except LinAlgError:
        raise LinAlgError("Matrix is not positive definite (assume_a='pos')") from None


def _solve_stack(a, b, transposed, target="cpu", backend=None):
    """numpy.linalg.solve's broadcasting: b is (..., n) when it has one dimension less than a."""
    n = a.shape[-1]
    if a.shape[-2] != n:
        raise LinAlgError("Last 2 dimensions of the array must be square")
    vector = b.ndim == a.ndim - 1
    bb = b[..., None] if vector else b
    if bb.ndim < 2:
        raise ValueError("b has shape {}: with a of shape {}, b must be (..., {}) with one dimension fewer than a, "
                         "or (..., {}, k), as numpy.linalg.solve takes it".format(b.shape, a.shape, n, n))
    if bb.shape[-2] != n:
        raise ValueError("b has shape {}; its rows must match a's {}".format(b.shape, n))
    dtype = _stack_working_type(a, b)
    stack = np.broadcast_shapes(a.shape[:-2], bb.shape[:-2])
    k = bb.shape[-1]
    # C order as NumPy holds it (no copy when it already is): hetlu transposes each system in cache;
    # a^T x = b is the C-ordered a read as column-major, swapped here instead.
    a_stack = np.broadcast_to(a, stack + (n, n))
    aligned_c = ("C_CONTIGUOUS", "ALIGNED")
    rhs = np.require(np.broadcast_to(bb, stack + (n, k)), dtype, aligned_c)
    count = int(np.prod(stack, dtype=np.int64))
    if not (count and n and k):
        x = np.zeros(stack + (n, k), dtype=dtype)
        return x[..., 0] if vector else x
    if transposed:
        a_stack = np.swapaxes(a_stack, -1, -2)
    if a.shape[:-2] == stack:
        x, info, eta, tolerance = _hetlu._gesv_stack(np.require(a_stack, dtype, aligned_c).reshape(count, n, n),
                                                     rhs.reshape(count, n, k), target, backend)
    else:
        x, info, eta, tolerance = _solve_broadcast_stack(a_stack, rhs.reshape(count, n, k), stack, dtype, target,
                                                         backend)
    if (info > 0).any():
        raise LinAlgError("Singular matrix")
    # The normwise backward error, which GEPP keeps small unless its pivots grow: a componentwise one
    # warned of right answers (a sparse A with B = A: omega 1.0, x right to 1e-16; a review finding).
    inaccurate = np.flatnonzero(~(eta <= tolerance))
    if inaccurate.size:
        first = int(inaccurate[0])
        what = ("x is not finite" if not np.isfinite(x[first]).all() else
                "normwise backward error {:.2e} above {:.2e} (30 (n + 1) eps)".format(eta[first], tolerance))
        where = tuple(int(i) for i in np.unravel_index(first, stack))
        warnings.warn("{} of the {} systems may be inaccurate; the first, system {}: {}.".format(
            inaccurate.size, count, where, what), LinAlgWarning, stacklevel=3)
    x = x.reshape(stack + (n, k))
    return x[..., 0] if vector else x


def _solve_broadcast_stack(a_stack, rhs, stack, dtype, target, backend, chunk_bytes=16 << 20):
    """A stack whose a is broadcast (one matrix for many b): copied a chunk of systems at a time, as
    numpy.linalg.solve iterates over the view. One copy per system of a (1, 2000, 2000) against b of
    (500, 2000) asked for 16 GB where NumPy needs tens of MB."""
    count, n, k = rhs.shape
    per_chunk = max(1, chunk_bytes // max(1, n * n * np.dtype(dtype).itemsize))
    results = []
    for first in range(0, count, per_chunk):
        which = np.unravel_index(np.arange(first, min(count, first + per_chunk)), stack)
        a_chunk = np.require(a_stack[which], dtype, ("C_CONTIGUOUS", "ALIGNED"))
        results.append(_hetlu._gesv_stack(a_chunk, rhs[first:first + per_chunk], target, backend))
        del a_chunk  # before the next chunk's copy
    x = np.concatenate([r[0] for r in results])
    info = np.concatenate([r[1] for r in results])
    eta = np.concatenate([r[2] for r in results])
    return x, info, eta, results[0][3]


def lu_factor(a, overwrite_a=False, check_finite=True):
    """scipy.linalg.lu_factor: (lu, piv), piv 0-based int32; a zero pivot warns, as SciPy."""
    a1 = _validated(a, False)
    if check_finite and _long_double(a1):
        a1 = np.asarray_chkfinite(a1)
    if a1.ndim != 2:
        raise ValueError("expected matrix")
    dtype = _working_type(a1)
    lu = _owned(a1, dtype, overwrite_a)
    piv, info, growth = _hetlu._getrf(lu, check_finite and not _long_double(a1), True)
    if info > 0:
        warnings.warn("Diagonal number %d is exactly zero. Singular matrix." % info, LinAlgWarning, stacklevel=2)
    # lu_solve cannot check its x against a; the factors' growth tells a wrong one ahead (Wilkinson's
    # matrix at n = 64: growth 9e18, x wrong by 1.7 in silence, as SciPy's; hetlu.lu_factor warned).
    elif growth > _hetlu._pivot_growth_limit(min(lu.shape)):
        warnings.warn("Pivot growth {:.1e} (1 / rpvgrw) is above 100 (n + 1): lu_solve's x from these factors may "
                      "not be accurate.".format(growth), LinAlgWarning, stacklevel=2)
    return lu, piv


def lu_solve(lu_and_piv, b, trans=0, overwrite_b=False, check_finite=True):
    """scipy.linalg.lu_solve: x from lu_factor's (lu, piv) (hetlu's or SciPy's); trans 0, 1 or 2."""
    (lu, piv) = lu_and_piv
    piv = np.asarray(piv)  # a list too, as SciPy takes it
    lu = _validated(lu, False)
    b1 = _validated(b, False)
    if check_finite and _long_double(lu, b1):
        lu, b1 = np.asarray_chkfinite(lu), np.asarray_chkfinite(b1)
        check_finite = False
    if lu.ndim != 2 or lu.shape[0] != lu.shape[1] or lu.shape[0] != b1.shape[0]:
        raise ValueError("Shapes of lu {} and b {} are incompatible".format(lu.shape, b1.shape))
    if trans is None:  # SciPy's lu_solve takes it as 0
        trans = 0
    if trans not in (0, 1, 2):
        raise ValueError("trans = {} must be 0, 1 or 2".format(trans))
    trans = int(trans)  # 1.0 and numpy's integers too, as SciPy takes them
    dtype = _working_type(lu, b1)
    if b1.size == 0:
        if check_finite:
            np.asarray_chkfinite(lu)
        return np.array(b1, dtype=dtype)
    factors = np.require(lu, dtype, ("F_CONTIGUOUS", "ALIGNED"))
    vector = b1.ndim == 1
    x = _owned(b1[:, None] if vector else b1.reshape(b1.shape[0], -1), dtype, overwrite_b and not vector)
    if np.may_share_memory(factors, x):  # b a view of lu, to be overwritten: the solve would read what it wrote
        x = np.array(x, order="F", copy=True)
    if check_finite and np.may_share_memory(x, b1):  # b is the output: lu refused before b is overwritten
        np.asarray_chkfinite(factors)
    _hetlu._getrs(factors, piv, x, trans, check_finite)  # b before solving; lu where X is not finite
    return x.ravel() if vector else x.reshape(b1.shape)


def _square(a, check_finite):
    """a validated as a square matrix, and the type it is computed in."""
    a1 = _validated(a, check_finite)
    if a1.ndim != 2 or a1.shape[0] != a1.shape[1]:
        raise ValueError("expected square matrix")
    return a1, _working_type(a1)


def det(a, overwrite_a=False, check_finite=True):
    """scipy.linalg.det: the product of U's diagonal, signed by the interchanges."""
    a1, _ = _square(a, check_finite)
    dtype = _det_type(a1)
    if a1.shape[0] == 0:
        return 1.0
    lu = _owned(a1, dtype, overwrite_a)
    piv, info, _ = _hetlu._getrf(lu)
    if info > 0:  # an exactly zero pivot: 0, not U's product (Inf times 0 made NaN), as SciPy and NumPy
        return np.result_type(dtype, np.float64).type(0)
    swaps = np.count_nonzero(piv != np.arange(piv.size))
    with np.errstate(over="ignore"):  # an overflowing product is Inf, without a word, as SciPy's
        value = np.prod(np.diagonal(lu))
    value = value.astype(np.result_type(value, np.float64))  # SciPy returns float64 or complex128
    return -value if swaps % 2 else value


def inv(a, overwrite_a=False, check_finite=True):
    """scipy.linalg.inv: A^-1 from hetlu's factors (the identity solved through them)."""
    a1, dtype = _square(a, check_finite)
    n = a1.shape[0]
    lu = _owned(a1, dtype, overwrite_a)
    piv, info, _ = _hetlu._getrf(lu)
    if info > 0:
        raise LinAlgError("singular matrix")
    x = np.eye(n, dtype=dtype, order="F")
    _hetlu._getrs(lu, piv, x, 0)
    return x
