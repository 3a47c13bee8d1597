"""hetlu.linalg beyond SciPy's own suite (test_scipy_suite.py): stacks, promotion, in-place
semantics, factors exchanged with SciPy both ways, hostile input."""
import warnings

import numpy as np
import pytest

from hetlu import linalg

scipy_linalg = pytest.importorskip("scipy.linalg")


def random(*shape, seed=0):
    return np.random.default_rng(seed).standard_normal(shape)


def test_factors_are_interchangeable_with_scipys_both_ways():
    A, b = random(40, 40), random(40, 3, seed=1)
    for trans in (0, 1, 2):
        expected = scipy_linalg.lu_solve(scipy_linalg.lu_factor(A), b, trans=trans)
        np.testing.assert_allclose(scipy_linalg.lu_solve(linalg.lu_factor(A), b, trans=trans), expected, rtol=1e-10)
        np.testing.assert_allclose(linalg.lu_solve(scipy_linalg.lu_factor(A), b, trans=trans), expected, rtol=1e-10)
    # trans=None, as SciPy takes it: 0.
    np.testing.assert_allclose(linalg.lu_solve(linalg.lu_factor(A), b, trans=None),
                               scipy_linalg.lu_solve(scipy_linalg.lu_factor(A), b, trans=None), rtol=1e-10)
    lu, piv = linalg.lu_factor(A)
    assert piv.dtype == np.int32 and lu.flags.f_contiguous
    # Pivots as a list, as SciPy takes them.
    np.testing.assert_allclose(linalg.lu_solve((lu, piv.tolist()), b), scipy_linalg.lu_solve((lu, piv), b), rtol=1e-12)


def test_large_systems_go_through_hetlus_solvers():
    A, b = random(700, 700), random(700)  # above the small-matrix crossover's default (512)
    x = linalg.solve(A, b)
    assert np.linalg.norm(A @ x - b) / (np.linalg.norm(A) * np.linalg.norm(x)) < 1e-14
    np.testing.assert_allclose(linalg.inv(A) @ A, np.eye(700), atol=1e-9)
    np.testing.assert_allclose(linalg.det(A[:600, :600]), scipy_linalg.det(A[:600, :600]), rtol=1e-9)


@pytest.mark.parametrize("a_type, b_type, expected", [
    (np.float32, np.float32, np.float32), (np.float32, np.float64, np.float64), (np.int64, np.int64, np.float64),
    (np.float16, np.float32, np.float32), (np.int8, np.float32, np.float32), (np.int32, np.float32, np.float64),
    (np.float32, np.complex64, np.complex64),
    (np.float64, np.complex64, np.complex128)])
def test_dtype_promotion_is_scipys(a_type, b_type, expected):
    A = (np.eye(4) * 3 + 1).astype(a_type)
    b = np.arange(4).astype(b_type)
    x = linalg.solve(A, b)
    assert x.dtype == expected == scipy_linalg.solve(A, b).dtype


def test_overwrite_a_factors_in_place_only_when_allowed():
    A = np.asfortranarray(random(6, 6))
    original = A.copy()
    lu, _ = linalg.lu_factor(A)
    np.testing.assert_array_equal(A, original)
    lu, _ = linalg.lu_factor(A, overwrite_a=True)
    assert lu is A
    C = np.ascontiguousarray(original)  # C order: copied, never touched
    linalg.solve(C, np.ones(6), overwrite_a=True)
    np.testing.assert_array_equal(C, original)


def test_stacks_broadcast_as_numpy():
    A, b = random(5, 4, 9, 9), random(4, 9, seed=2)
    np.testing.assert_allclose(linalg.solve(A, b[None]), np.linalg.solve(A, b[None]), rtol=1e-10)
    B = random(1, 4, 9, 3, seed=3)
    np.testing.assert_allclose(linalg.solve(A, B), np.linalg.solve(A, B), rtol=1e-10)
    np.testing.assert_allclose(linalg.solve(A, B, transposed=True),
                               np.linalg.solve(np.swapaxes(A, -1, -2), B), rtol=1e-10)
    assert linalg.solve(A.astype(np.float32), B.astype(np.float32)).dtype == np.float32
    assert linalg.solve(random(0, 3, 3), random(0, 3)).shape == (0, 3)
    with pytest.raises(ValueError, match="one dimension fewer than a"):  # not "rows must match"
        linalg.solve(A, random(9))


def test_a_stack_and_a_matrix_on_a_device():
    # target='hybrid' (#14 item 5): a stack on one device (here the host backend's team; on a GPU
    # cuBLAS's batched LU), a matrix by the hybrid LU; the same answers as numpy's.
    A, B = random(7, 3, 6, 6), random(7, 3, 6, 2, seed=6)
    for dtype, rtol in ((np.float64, 1e-10), (np.float32, 1e-3), (np.complex128, 1e-10)):
        a, b = A.astype(dtype), B.astype(dtype)
        x = linalg.solve(a, b, target="hybrid", backend="host:1")
        assert x.dtype == dtype and x.shape == b.shape
        np.testing.assert_allclose(x, np.linalg.solve(a, b), rtol=rtol)
    np.testing.assert_allclose(linalg.solve(A, B[..., 0], target="hybrid", backend="host:1", transposed=True),
                               np.linalg.solve(np.swapaxes(A, -1, -2), B[..., 0]), rtol=1e-10)
    M, v = random(80, 80), random(80, seed=7)
    np.testing.assert_allclose(linalg.solve(M, v, target="hybrid", backend="host:1"), np.linalg.solve(M, v),
                               rtol=1e-9)
    singular = A.copy()
    singular[2, 1, :, 3] = 0
    with pytest.raises(np.linalg.LinAlgError, match="Singular matrix"):
        linalg.solve(singular, B, target="hybrid", backend="host:1")
    with pytest.raises(ValueError, match="hybrid target only"):
        linalg.solve(A, B, backend="host:1")
    with pytest.raises(ValueError, match="one device"):
        linalg.solve(A, B, target="hybrid", backend="host:1,host:1")


def test_a_stack_larger_than_one_part_on_a_device():
    # The device path copies 64 MB of the stack at a time: 4500 systems of order 64 are three parts,
    # and a singular system in the last one is still found.
    A, b = random(4500, 64, 64), random(4500, 64, seed=8)
    np.testing.assert_allclose(linalg.solve(A, b, target="hybrid", backend="host:2"), np.linalg.solve(A, b),
                               rtol=1e-8)
    A[4400, :, 5] = 0
    with pytest.raises(np.linalg.LinAlgError, match="Singular matrix"):
        linalg.solve(A, b, target="hybrid", backend="host:2")


def test_each_matrix_of_a_stack_is_read_as_assume_a_and_lower_say():
    A, b = random(3, 6, 6) + 4 * np.eye(6), random(3, 6, seed=4)
    C = A + 1j * random(3, 6, 6, seed=5)
    for a, assume_a in ((A, "sym"), (A, "pos"), (C, "her"), (C, "sym")):
        for lower in (False, True):
            expected = np.stack([scipy_linalg.solve(a[i], b[i], assume_a=assume_a, lower=lower) for i in range(3)])
            np.testing.assert_allclose(linalg.solve(a, b, assume_a=assume_a, lower=lower), expected, rtol=1e-9,
                                       atol=1e-12)
    with pytest.raises(ValueError, match="not a recognized matrix structure"):
        linalg.solve(A, b, assume_a="bogus")


def test_a_singular_member_of_a_stack_is_an_error():
    A = random(6, 5, 5)
    A[4, :, 2] = 0
    with pytest.raises(np.linalg.LinAlgError, match="Singular matrix"):
        linalg.solve(A, random(6, 5))


def test_hostile_input():
    with pytest.raises(ValueError):
        linalg.solve(np.array([[1.0, np.nan], [0, 1]]), np.ones(2))
    with pytest.raises(ValueError, match="square"):
        linalg.solve(np.ones((3, 2)), np.ones(3))
    with pytest.raises(ValueError, match="same number of rows"):
        linalg.solve(np.eye(3), np.ones(4))
    with pytest.raises(ValueError, match="recognized"):
        linalg.solve(np.eye(3), np.ones(3), assume_a="nonsense")
    with pytest.raises(ValueError, match="row index"):
        linalg.lu_solve((np.eye(3), np.array([0, 7, 2])), np.ones(3))
    with pytest.raises(ValueError, match="incompatible"):
        linalg.lu_solve((np.eye(3), np.arange(3)), np.ones(4))
    with pytest.raises(np.linalg.LinAlgError):
        linalg.inv(np.zeros((3, 3)))
    with pytest.raises(ValueError, match="object"):
        linalg.solve(np.array([[1, "x"]], dtype=object), [1])
    assert linalg.det(np.zeros((0, 0))) == 1.0
    # check_finite=False lets NaN through without an exception, as LAPACK would.
    x = linalg.solve(np.array([[1.0, np.nan], [0, 1]]), np.ones(2), check_finite=False)
    assert x.shape == (2,)


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.complex64, np.complex128])
def test_check_finite_refuses_as_scipy_and_writes_nothing(dtype):
    # The check is made in the module on the arrays computed on (#14.1's per-call cost); it must
    # refuse everything SciPy's refuses, name it as SciPy does, and leave even overwritten inputs be.
    bad = np.array([[2, 1], [1, 3]], dtype=dtype, order="F")
    bad[1, 0] = np.inf if dtype in (np.float32, np.float64) else complex(0, np.nan)
    kept = bad.copy()
    with pytest.raises(ValueError, match="infs or NaNs"):
        linalg.lu_factor(bad, overwrite_a=True)
    with pytest.raises(ValueError, match="infs or NaNs"):
        linalg.solve(bad, np.ones(2, dtype=dtype), overwrite_a=True)
    with pytest.raises(ValueError, match="infs or NaNs"):
        linalg.solve(np.eye(2, dtype=dtype), np.array([1, np.nan], dtype=dtype))
    with pytest.raises(ValueError, match="infs or NaNs"):
        linalg.lu_solve((bad, np.arange(2)), np.ones(2, dtype=dtype))
    b = np.array([[1.0], [np.inf]], dtype=dtype, order="F")
    with pytest.raises(ValueError, match="infs or NaNs"):
        linalg.lu_solve(linalg.lu_factor(np.eye(2, dtype=dtype)), b, overwrite_b=True)
    with pytest.raises(ValueError, match="infs or NaNs"):
        linalg.solve(bad, np.ones((2, 0), dtype=dtype))  # an empty b does not skip a's check
    with pytest.raises(ValueError, match="infs or NaNs"):
        linalg.solve(bad, np.ones(2, dtype=dtype), assume_a="sym", lower=True)  # checked whole, as SciPy
    with pytest.raises(ValueError, match="infs or NaNs"), pytest.warns(DeprecationWarning):
        linalg.solve(np.eye(2, dtype=dtype), np.array([1, np.nan], dtype=dtype), sym_pos=True)
    np.testing.assert_array_equal(bad, kept)
    assert np.isinf(b[1, 0])
    lu, piv = linalg.lu_factor(bad, check_finite=False)  # no check asked: LAPACK's propagation
    assert lu.shape == (2, 2) and piv.shape == (2,)


@pytest.mark.parametrize("where", [(5, 2), (2, 5), (4, 4), (9, 0), (0, 9)])
@pytest.mark.parametrize("bad", [np.nan, np.inf, -np.inf])
def test_lu_solve_finds_a_non_finite_factor_after_solving(where, bad):
    # lu is scanned only where X comes out not finite (a scan first cost as much as the solve), its
    # diagonal always: each Inf or NaN is still refused, in L, U and on the diagonal.
    lu, piv = linalg.lu_factor(np.random.default_rng(3).standard_normal((10, 10)) + 10 * np.eye(10))
    lu[where] = bad
    with pytest.raises(ValueError, match="infs or NaNs"):
        linalg.lu_solve((lu, piv), np.ones(10))
    x = linalg.lu_solve((lu, piv), np.ones(10), check_finite=False)  # no check asked: LAPACK's answer
    if where[0] != where[1] or np.isnan(bad):
        assert not np.isfinite(x).all()  # why X's finiteness can stand for lu's off the diagonal
    else:
        assert x[where[0]] == 0  # an Inf pivot's x is 0: why the diagonal is checked first


def test_lu_solve_overflowing_from_finite_factors_is_no_error():
    # Finite factors whose X overflows: SciPy's answer (Inf), not a complaint about lu.
    lu = np.diag([1e-300, 1.0])
    x = linalg.lu_solve((lu, np.arange(2)), np.array([1e300, 1.0]))
    assert np.isinf(x[0]) and x[1] == 1.0


def test_check_finite_takes_a_long_double_as_scipy_does():
    # A finite long double beyond float64's range is no NaN or Inf to SciPy's check: refused as
    # non-finite only when it is one, before rounding to the working type.
    if np.finfo(np.longdouble).max <= np.finfo(np.float64).max:
        pytest.skip("long double is double here")
    a = np.eye(2, dtype=np.longdouble)
    a[0, 1] = np.longdouble(1e308) * 100
    lu, piv = linalg.lu_factor(a)  # no ValueError: SciPy's check passes it too
    assert lu.dtype == np.float64
    a[0, 1] = np.nan
    with pytest.raises(ValueError, match="infs or NaNs"):
        linalg.lu_factor(a)


def test_ill_conditioned_warns_with_the_estimate():
    H = 1.0 / (np.arange(1, 13)[:, None] + np.arange(12))
    with pytest.warns(linalg.LinAlgWarning, match=r"rcond=\d"):
        linalg.solve(H, np.ones(12))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        linalg.solve(np.eye(12) + H, np.ones(12))


def test_a_solution_that_overflows_warns():
    # rcond of [[5e-324]] is 1, its x is Inf: SciPy warns (its dgecon says rcond=0), so does hetlu.
    with pytest.warns(linalg.LinAlgWarning, match="not finite"):
        x = linalg.solve(np.array([[5e-324]]), np.array([1.0]))
    assert np.isinf(x[0])


def test_symmetric_solves_read_one_triangle():
    S = random(7, 7)
    S = S @ S.T + 7 * np.eye(7)
    upper_only = np.triu(S) + np.tril(np.full((7, 7), 1e6), -1)
    np.testing.assert_allclose(linalg.solve(upper_only, np.ones(7), assume_a="sym"),
                               np.linalg.solve(S, np.ones(7)), rtol=1e-10)
    lower_only = np.tril(S) + np.triu(np.full((7, 7), -3.0), 1)
    np.testing.assert_allclose(linalg.solve(lower_only, np.ones(7), assume_a="pos", lower=True),
                               np.linalg.solve(S, np.ones(7)), rtol=1e-10)


def random_complex(*shape, seed=0):
    rng = np.random.default_rng(seed)
    return rng.standard_normal(shape) + 1j * rng.standard_normal(shape)


@pytest.mark.parametrize("dtype, n", [(np.complex128, 40), (np.complex64, 40), (np.complex128, 600),
                                      (np.complex64, 600)])
def test_complex_systems_are_factored_by_hetlu(dtype, n):
    """Below and above the small-matrix crossover (512): factors SciPy can use, A^T and A^H solves."""
    A, b = random_complex(n, n).astype(dtype), random_complex(n, 2, seed=3).astype(dtype)
    lu, piv = linalg.lu_factor(A)
    assert lu.dtype == dtype
    eps = np.finfo(dtype).eps
    for trans, op in ((0, A), (1, A.T), (2, A.conj().T)):
        x = linalg.lu_solve((lu, piv), b, trans=trans)
        assert x.dtype == dtype
        residual = np.linalg.norm(op @ x - b, 1) / (np.linalg.norm(op, 1) * np.linalg.norm(x, 1))
        assert residual < 30 * n * eps, (trans, residual)
        np.testing.assert_allclose(scipy_linalg.lu_solve((lu, piv), b, trans=trans), x, rtol=0, atol=1e3 * n * eps)
    x = linalg.solve(A, b)
    assert np.linalg.norm(A @ x - b, 1) / (np.linalg.norm(A, 1) * np.linalg.norm(x, 1)) < 30 * n * eps
    np.testing.assert_allclose(linalg.det(A[:30, :30]), scipy_linalg.det(A[:30, :30]), rtol=1e3 * eps)
    np.testing.assert_allclose(linalg.inv(A) @ A, np.eye(n), atol=1e4 * n * eps)


def test_complex_hermitian_and_stacks():
    H = random_complex(30, 30)
    H = H + H.conj().T
    b = random_complex(30)
    x = linalg.solve(np.triu(H), b, assume_a="her")  # only the upper triangle is read
    np.testing.assert_allclose(x, scipy_linalg.solve(H, b), rtol=1e-9)
    S, B = random_complex(6, 5, 5), random_complex(6, 5, seed=4)
    np.testing.assert_allclose(linalg.solve(S, B), np.linalg.solve(S, B[..., None])[..., 0], rtol=1e-10)
    with pytest.raises(NotImplementedError):  # as SciPy
        linalg.solve(S[0], B[0], transposed=True)


def test_complex_singular_and_nan():
    A = np.zeros((3, 3), dtype=np.complex128)
    with pytest.raises(linalg.LinAlgError):
        linalg.solve(A, np.ones(3))
    A = np.eye(3, dtype=np.complex128)
    A[1, 1] = complex(1, np.nan)
    with pytest.raises(ValueError):
        linalg.solve(A, np.ones(3))


def _unaligned(a):
    """a's values in a buffer one byte off its type's alignment, Fortran order (NumPy allows it)."""
    buffer = bytearray(a.nbytes + 1)
    out = np.frombuffer(buffer, a.dtype, offset=1, count=a.size).reshape(a.shape, order="F")
    out[...] = a
    assert not out.flags.aligned
    return out


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.complex128])
def test_unaligned_arrays_are_copied_not_read_in_place(dtype):
    # hl.solve(..., overwrite_a=True) of an unaligned float32 matrix crashed the process (n >= 40).
    a = (random(300, 300, seed=3) + 300 * np.eye(300)).astype(dtype)
    b = random(300, seed=4).astype(dtype)
    expected = scipy_linalg.solve(a, b)
    tolerance = 1e-3 if dtype == np.float32 else 1e-10
    for overwrite in (False, True):
        x = linalg.solve(_unaligned(a), _unaligned(b), overwrite_a=overwrite, overwrite_b=overwrite)
        np.testing.assert_allclose(x, expected, rtol=tolerance, atol=tolerance)
        lu, piv = linalg.lu_factor(_unaligned(a), overwrite_a=overwrite)
        np.testing.assert_allclose(linalg.lu_solve((_unaligned(lu), piv), b), expected, rtol=tolerance, atol=tolerance)
        small = a[:60, :60] / 300
        assert linalg.det(_unaligned(small), overwrite_a=overwrite) == linalg.det(small)
        np.testing.assert_allclose(linalg.inv(_unaligned(a), overwrite_a=overwrite) @ a, np.eye(300), atol=tolerance)


def test_b_a_view_of_a_is_not_clobbered_by_the_factors():
    a = np.asfortranarray(random(300, 300, seed=5))
    expected = np.zeros(300)
    expected[0] = 1
    x = linalg.solve(a, a[:, 0], overwrite_a=True, overwrite_b=True)  # SciPy 1.10 returns garbage
    np.testing.assert_allclose(x, expected, atol=1e-10)


def test_det_of_a_singular_matrix_is_zero_not_nan():
    assert linalg.det(np.diag([1e200, 1e200, 0.0])) == 0.0  # Inf * 0 made NaN
    a = random(400, 400, seed=6)
    a[7] = 0
    assert linalg.det(a) == 0.0


def test_trans_may_be_a_float_as_in_scipy():
    a = random(5, 5, seed=8)
    lu = linalg.lu_factor(a)
    b = random(5, seed=9)
    for trans in (1.0, np.float64(2), np.int64(1)):
        np.testing.assert_allclose(linalg.lu_solve(lu, b, trans=trans), scipy_linalg.lu_solve(lu, b, trans=int(trans)))


def test_a_one_by_one_a_with_a_taller_two_dimensional_b_says_so():
    with pytest.raises(ValueError, match="same number of rows"):
        linalg.solve(np.array([[2.0]]), np.ones((5, 2)))
    np.testing.assert_allclose(linalg.solve(np.array([[2.0]]), np.ones(5)), np.full(5, 0.5))


def test_lu_solve_with_b_a_view_of_lu_is_not_clobbered():
    a = random(50, 50, seed=10) + 50 * np.eye(50)
    lu, piv = linalg.lu_factor(a)
    lu = np.asfortranarray(lu)
    expected = scipy_linalg.lu_solve((lu.copy(), piv), lu[:, :1].copy())
    x = linalg.lu_solve((lu, piv), lu[:, :1], overwrite_b=True)
    np.testing.assert_allclose(x, expected, rtol=1e-12, atol=1e-12)


def test_transposed_warns_with_the_transposes_condition_as_scipy():
    # The system is a^T: its 1-norm condition (SciPy's gecon with norm 'I'). A's own missed SciPy's
    # warning (a hostile test): rcond 1e-16 where SciPy says 6e-22, or no warning at all.
    n = 400
    A = np.eye(n)
    A[0, 1:] = 1e7
    b = np.ones(n)
    with warnings.catch_warnings(record=True) as ours:
        warnings.simplefilter("always")
        x = linalg.solve(A, b, transposed=True)
    with warnings.catch_warnings(record=True) as scipys:
        warnings.simplefilter("always")
        scipy_linalg.solve(A, b, transposed=True)
    assert [str(w.message) for w in ours] == [str(w.message) for w in scipys]
    assert len(ours) == 1
    np.testing.assert_allclose(A.T @ x, b, rtol=1e-9)


def test_lu_solve_refuses_a_non_finite_lu_before_overwriting_b():
    lu, piv = scipy_linalg.lu_factor(random(5, 5) + 5 * np.eye(5))
    lu[4, 0] = np.nan
    b = np.asfortranarray(np.ones((5, 2)))
    with pytest.raises(ValueError, match="infs or NaNs"):
        linalg.lu_solve((lu, piv), b, overwrite_b=True)
    assert (b == 1).all()


def test_det_is_float64_or_complex128_as_scipys():
    for dtype, expected in [(np.float32, np.float64), (np.complex64, np.complex128), (np.int8, np.float64)]:
        assert type(linalg.det(np.eye(3, dtype=dtype))) is expected
        assert type(linalg.det(np.zeros((3, 3), dtype=dtype))) is expected
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert np.isinf(linalg.det(np.diag([1e200, 1e200])))


def test_a_complex_stack_is_not_solved_transposed():
    a = np.ones((2, 3, 3)) + 1j * np.eye(3)
    with pytest.raises(NotImplementedError):
        linalg.solve(a, np.ones((2, 3)), transposed=True)


def test_a_real_a_with_a_complex_b_is_solved_transposed_as_scipy():
    # SciPy refuses a complex a only; hetlu refused a complex b too (a hostile helper's finding).
    rng = np.random.default_rng(7)
    a = rng.standard_normal((6, 6)) + 6 * np.eye(6)
    b = rng.standard_normal((6, 2)) + 1j * rng.standard_normal((6, 2))
    np.testing.assert_allclose(linalg.solve(a, b, transposed=True), scipy_linalg.solve(a, b, transposed=True),
                               rtol=1e-12)
    np.testing.assert_allclose(linalg.solve(a, b[:, 0], transposed=True), np.linalg.solve(a.T, b[:, 0]), rtol=1e-12)
    stack = np.stack([a, a + np.eye(6)])
    x = linalg.solve(stack, np.stack([b, b]), transposed=True)
    np.testing.assert_allclose(x[1], np.linalg.solve(stack[1].T, b), rtol=1e-12)


def wilkinson(n, dtype):
    """GEPP's worst case: growth 2^(n-1), well conditioned (cond_1 about n)."""
    a = np.tril(-np.ones((n, n)), -1) + np.eye(n)
    a[:, -1] = 1
    return a.astype(dtype)


def test_a_stack_says_which_systems_answers_are_inaccurate():
    # No batched solve checked its answers: a float32 stack of 1e-30 I gave NaN and Inf in silence,
    # and Wilkinson's matrix a wrong x, where each system alone warned.
    tiny = np.broadcast_to(np.float32(1e-30) * np.eye(4, dtype=np.float32), (2, 4, 4))
    with pytest.warns(linalg.LinAlgWarning, match=r"2 of the 2 systems .* system \(0,\): x is not finite"):
        linalg.solve(tiny, np.full((2, 4), 1e10, dtype=np.float32))
    sparse = np.array([[2, 0, 0, 0], [0, 1.8, -0.5, 0.3], [0, -0.6, 1.6, 0], [0, -1.3, 0, 2.3]])
    with warnings.catch_warnings():  # omega 1.0 componentwise, x right to 1e-16: no warning
        warnings.simplefilter("error")
        linalg.solve(sparse[None], sparse[None])
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        linalg.solve(random(3, 2, 50, 50) + 50 * np.eye(50), random(3, 2, 50))
    # Wilkinson's matrix beside the identity: x wrong in every digit (pivot growth 2^59), normwise
    # backward error about 0.02, where a stack said nothing but of an x not finite.
    for dtype in (np.float32, np.float64):
        pair = np.stack([np.eye(60, dtype=dtype), wilkinson(60, dtype)])
        b = np.stack([np.ones(60), np.random.default_rng(0).standard_normal(60)]).astype(dtype)
        with pytest.warns(linalg.LinAlgWarning, match=r"1 of the 2 .* system \(1,\): normwise backward error"):
            linalg.solve(pair, b)


def test_pivot_growth_is_said_where_the_answer_cannot_be_trusted():
    # Wilkinson's matrix at n = 60 in float32 (cond_1 about 27): x wrong by 1.0 in silence, as in SciPy.
    b = (np.arange(60) % 3 + 1).astype(np.float32)
    for overwrite_a in (False, True):
        with pytest.warns(linalg.LinAlgWarning, match="Pivot growth 5.8e\\+17"):
            linalg.solve(wilkinson(60, np.float32), b, overwrite_a=overwrite_a)
    # At n = 150 the factors' rcond estimate (0 in float32) had taken the warning: "ill-conditioned".
    for dtype in (np.float32, np.float64):
        with pytest.warns(linalg.LinAlgWarning, match="Pivot growth 7.1e\\+44") as caught:
            linalg.solve(wilkinson(150, dtype), np.arange(150) % 3 + 1.0)
        assert not any("Ill-conditioned" in str(w.message) for w in caught), dtype
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        linalg.solve(random(300, 300), random(300))  # growth about n^(2/3)
        linalg.solve(random(300, 300), random(300), transposed=True)


def test_rcond_of_a_matrix_whose_norm_overflows():
    # ||A||_1 = Inf from finite entries made rcond 0 and "singular"; its rcond is 0.26.
    a = np.array([[1.7e308, 1e308], [1e308, 1.7e308]])
    for transposed in (False, True):
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            x = linalg.solve(a, np.ones(2), transposed=transposed)
        assert np.allclose(x * 1e300, 1 / 2.7e8, rtol=1e-12)
    import hetlu
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        r = hetlu.solve(a, np.ones(2), solver="gepp")
    assert 0.2 < r.rcond < 0.3
    # PRBT too: its rcond was 0, and it warned "singular to working precision" (GENP's factors
    # overflow here: it falls back to GEPP, whose factors give the estimate).
    big = np.random.default_rng(1).standard_normal((300, 300)) * 1e306
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        r = hetlu.solve(big, np.ones(300), solver="prbt")
    assert 1e-7 < r.rcond < 1e-2
    # And the mixed and auto precisions' double solver (A does not fit single): rcond 0 and "singular".
    for precision in ("mixed", "auto"):
        for solver in ("gepp", "prbt"):
            with warnings.catch_warnings():
                warnings.simplefilter("error")
                r = hetlu.solve(big, np.ones(300), solver=solver, precision=precision)
            assert 1e-7 < r.rcond < 1e-2, (precision, solver, r.rcond)


@pytest.mark.parametrize("dtype", [np.float64, np.float32, np.complex128, np.complex64])
def test_a_system_of_subnormal_entries_is_solved_right(dtype):
    # An LU in subnormal arithmetic lost digits in silence (SciPy's too): x = [1.14, 0.75] for
    # [1.24, 0.66], with omega reported 0 by hetlu.solve, whose residual underflowed to 0.
    tiny = np.finfo(dtype).smallest_subnormal
    a = np.array([[7, 2], [3, 5]], dtype=dtype) * tiny
    b = np.array([10, 7], dtype=dtype) * tiny
    right = np.array([36 / 29, 19 / 29])
    tolerance = 10 * np.finfo(dtype).eps
    assert np.allclose(linalg.solve(a, b), right, rtol=tolerance, atol=0)
    if not np.iscomplexobj(a):  # transposed: real only, as in SciPy
        assert np.allclose(linalg.solve(a, b, transposed=True),
                           np.linalg.solve(np.array([[7, 3], [2, 5.0]]), [10, 7]), rtol=tolerance, atol=0)
    import hetlu
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        r = hetlu.solve(a, b)
    assert np.allclose(r.x, right, rtol=tolerance, atol=0)
    assert r.backward_error < tolerance


def test_a_broadcast_matrix_is_not_copied_for_every_system(monkeypatch):
    # a of shape (1, n, n) against b of (k, n) was copied k times (435 MB for k = 5000, n = 100; NumPy
    # needs 53): now a chunk of systems at a time. Chunks of 4 systems here, so that several are run.
    monkeypatch.setattr(linalg._solve_broadcast_stack, "__defaults__", (4 * 30 * 30 * 8,))
    solve_stack, sizes = linalg._hetlu._gesv_stack, []

    def recorded(a, *args):
        sizes.append(a.shape[0])
        return solve_stack(a, *args)

    monkeypatch.setattr(linalg._hetlu, "_gesv_stack", recorded)
    rng = np.random.default_rng(11)
    a = rng.standard_normal((1, 30, 30)) + 30 * np.eye(30)
    b = rng.standard_normal((10, 30))
    assert np.allclose(linalg.solve(a, b), np.linalg.solve(a, b[..., None])[..., 0], rtol=1e-12)
    a2 = rng.standard_normal((3, 1, 30, 30)) + 30 * np.eye(30)
    b2 = rng.standard_normal((1, 5, 30))
    expected = np.linalg.solve(np.swapaxes(a2, -1, -2), b2[..., None])[..., 0]
    assert np.allclose(linalg.solve(a2, b2, transposed=True), expected, rtol=1e-12)
    assert sizes == [4, 4, 2, 4, 4, 4, 3], sizes  # 10 systems, then 15: never more than 4 copies of a
    singular = np.stack([np.eye(30), np.zeros((30, 30))])[:, None]
    with pytest.raises(np.linalg.LinAlgError):
        linalg.solve(singular, np.ones((1, 7, 30)))


def test_a_tiny_matrix_beside_a_large_b_keeps_x_finite():
    # Scaling A up to entries near 1 took b past the largest double: x came out NaN where NumPy's is
    # 6e307. b is scaled as far as it can be, x by the rest.
    tiny = 0.99 * 2.0 ** -1000
    a = tiny * np.array([[1, 1, 1, 1], [1, -1, 0, 0], [0, 1, -1, 0], [0, 0, 1, -1]], dtype=float)
    b = np.array([(2.4 * tiny) * 1e308, 0, 0, 0])
    assert np.allclose(linalg.solve(a, b), np.linalg.solve(a, b), rtol=1e-14)


def test_integers_are_computed_in_double_by_det_and_stacks():
    # A hostile helper's: int16 [[300, 299], [299, 298]] (det -1, x = [-298, 299] for b = e_1) in
    # float32 gave det -0.998 and x off by 0.6, where SciPy's det and NumPy's stacked solve use double.
    a = np.array([[300, 299], [299, 298]], dtype=np.int16)
    for dtype in (np.int8, np.int16, np.uint8, np.bool_, np.float16):
        small = np.array([[3, 2], [2, 1]]).astype(dtype) if dtype is not np.bool_ else np.eye(2, dtype=dtype)
        assert linalg.det(small) == pytest.approx(scipy_linalg.det(small), rel=1e-14), dtype
    assert linalg.det(a) == pytest.approx(-1, rel=1e-12)
    x = linalg.solve(a[None], np.array([[1.0, 0.0]], dtype=np.int16))
    assert x.dtype == np.float64
    np.testing.assert_allclose(x[0], [-298, 299], rtol=1e-12)
    assert linalg.solve(np.eye(2, dtype=np.float32)[None], np.ones((1, 2), np.float32)).dtype == np.float32


def test_ill_conditioned_warns_below_lamch_e_as_scipy():
    # SciPy compares rcond with lamch('E'), half of NumPy's eps: 1.5e-16 in double warned in hetlu only.
    for dtype, tiny in ((np.float64, 1.5e-16), (np.complex128, 1.5e-16), (np.float32, 7e-8), (np.complex64, 7e-8)):
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            linalg.solve(np.diag([1, tiny]).astype(dtype), np.ones(2, dtype))
    with pytest.warns(linalg.LinAlgWarning, match="Ill-conditioned"):
        linalg.solve(np.diag([1, 1e-17]), np.ones(2))


def test_pos_refuses_a_matrix_that_is_not_positive_definite():
    # SciPy's posv raises; hetlu's LU had solved [[1, 2], [2, 1]] and -I without a word.
    for a in (np.array([[1.0, 2], [2, 1]]), -np.eye(2), np.array([[2.0, 1j], [-1j, -1]])):
        with pytest.raises(linalg.LinAlgError, match="not positive definite"):
            linalg.solve(a, np.ones(2), assume_a="pos")
        with pytest.raises(linalg.LinAlgError, match="not positive definite"):
            linalg.solve(np.stack([np.eye(2), a]), np.ones((2, 2)), assume_a="pos")
    spd = np.array([[4.0, 1], [1, 3]])
    np.testing.assert_allclose(linalg.solve(spd, np.ones(2), assume_a="pos"), scipy_linalg.solve(spd, np.ones(2)))


def test_lu_factor_warns_of_pivot_growth():
    # lu_solve cannot check x: Wilkinson's matrix at n = 64 gave x wrong by 1.7 in silence.
    with pytest.warns(linalg.LinAlgWarning, match="Pivot growth 9.2e\\+18"):
        lu_piv = linalg.lu_factor(wilkinson(64, np.float64))
    assert lu_piv[0].shape == (64, 64)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        linalg.lu_factor(random(300, 300))
        linalg.lu_factor(random(300, 40))
        linalg.lu_factor(random(40, 300))
