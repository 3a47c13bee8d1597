"""The Python module, as a NumPy user calls it."""
import warnings

import numpy as np
import pytest

import hetlu


@pytest.fixture
def db(tmp_path):
    return str(tmp_path / "t.db")


def random_system(n, dtype=np.float64, order="C", seed=0):
    rng = np.random.default_rng(seed)
    A = np.asarray(rng.standard_normal((n, n)), dtype=dtype, order=order)
    b = np.asarray(rng.standard_normal(n), dtype=dtype)
    return A, b


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
@pytest.mark.parametrize("order", ["C", "F"])
def test_solve_any_order_and_precision(dtype, order, db):
    A, b = random_system(60, dtype, order)
    A0, b0 = A.copy(), b.copy()
    r = hetlu.solve(A, b, db=db)
    assert r.x.dtype == dtype and r.x.shape == (60,)
    tol = 1e-10 if dtype == np.float64 else 1e-3
    np.testing.assert_allclose(A0.astype(np.float64) @ r.x, b0, atol=tol * 60)
    eps = np.finfo(dtype).eps / 2
    assert r.backward_error < 61 * 64 * eps
    assert r.plan["solver"] == "gepp"
    assert r.plan["source"] in ("model", "tuned")
    # Every field, as the CLI's JSON names it (one serializer).
    assert r.plan["precision"] == ("double" if dtype == np.float64 else "single")
    assert r.plan["target"] == "cpu" and r.plan["panel_location"] == "cpu"
    assert r.plan["backend"] in ("host", "cuda") and r.plan["refinement"] == "none"
    np.testing.assert_array_equal(A, A0)  # overwrite_a=False leaves A alone
    np.testing.assert_array_equal(b, b0)


def test_several_right_hand_sides(db):
    A, _ = random_system(30)
    B = np.arange(90.0).reshape(30, 3)
    r = hetlu.solve(A, B, db=db)
    assert r.x.shape == (30, 3)
    np.testing.assert_allclose(A @ r.x, B, atol=1e-9)


@pytest.mark.parametrize("order", ["C", "F"])
def test_overwrite_a_factors_in_place(order, db):
    A, b = random_system(40, order=order)
    A0 = A.copy()
    r = hetlu.solve(A, b, overwrite_a=True, db=db)
    np.testing.assert_allclose(A0 @ r.x, b, atol=1e-10)
    assert not np.array_equal(A, A0)  # no copy was made: the factors are in A
    assert r.backward_error is None  # the original A is gone


def test_integers_are_converted(db):
    r = hetlu.solve(np.array([[2, 0], [0, 4]]), np.array([2, 4]), db=db)
    np.testing.assert_allclose(r.x, [1.0, 1.0])
    assert r.backward_error == 0


def test_strided_views_are_read_correctly(db):
    big, _ = random_system(80)
    A = big[::2, ::2]  # neither C- nor F-contiguous
    b = np.ones(40)
    r = hetlu.solve(A, b, db=db)
    np.testing.assert_allclose(A @ r.x, b, atol=1e-9)
    assert r.backward_error < 1e-13


def test_nb_override_is_reported(db):
    A, b = random_system(50)
    r = hetlu.solve(A, b, nb=8, db=db)
    assert r.plan["nb"] == 8 and r.plan["source"] == "override" and r.plan["overridden"] == ["nb"]
    assert hetlu.solve(A, b, nb=np.int64(8), db=db).plan["nb"] == 8  # NumPy's ints too
    with pytest.raises(ValueError, match=r"nb = 1000000000000 is out of range"):
        hetlu.solve(A, b, nb=10**12, db=db)
    with pytest.raises(ValueError, match=r"d = 1267650600228229401496703205376 is out of range"):
        hetlu.lu_factor(A, db=db, target="hybrid", backend="host", d=2**100)
    with pytest.raises(TypeError, match="nb must be an int, not float"):
        hetlu.solve(A, b, nb=1.5, db=db)


def test_lu_factor_matches_scipy_convention(db):
    A, b = random_system(25, order="F")
    f = hetlu.lu_factor(A, db=db)
    L = np.tril(f.lu, -1) + np.eye(25)
    U = np.triu(f.lu)
    PA = A.copy()
    for i, p in enumerate(f.piv):  # 0-based interchanges, applied in order
        PA[[i, p]] = PA[[p, i]]
    np.testing.assert_allclose(L @ U, PA, atol=1e-12)
    np.testing.assert_allclose(A @ hetlu.lu_solve(f, b), b, atol=1e-10)
    np.testing.assert_allclose(A.T @ hetlu.lu_solve(f, b, trans=True), b, atol=1e-10)


def test_lu_solve_says_where_x_cannot_be_trusted(db):
    """lu_solve returned x of Inf and NaN with no word where solve warns, and solved with factors
    holding an exactly zero pivot; an object b was blamed on A."""
    f = hetlu.lu_factor(np.diag([1e-200, 1e-200, 1e-200]), db=db)
    with pytest.warns(hetlu.linalg.LinAlgWarning, match="x is not finite"):
        hetlu.lu_solve(f, np.full(3, 1e200))
    f.lu[2, 2] = 0
    with pytest.raises(np.linalg.LinAlgError, match=r"U\(3,3\) is exactly zero"):
        hetlu.lu_solve(f, np.ones(3))
    with pytest.raises(ValueError, match="^b has dtype object"):
        hetlu.lu_solve(hetlu.lu_factor(np.eye(3), db=db), np.array([1, "x", 2], dtype=object))


def test_lu_factor_warns_of_pivot_growth(db):
    """Wilkinson's matrix (growth 2^(n-1)): lu_solve's x from the factors was off by 0.45 in silence
    (a hostile helper's finding); a random matrix's growth (about n^(2/3)) says nothing."""
    n = 64
    W = np.tril(-np.ones((n, n)), -1) + np.eye(n)
    W[:, -1] = 1
    with pytest.warns(hetlu.linalg.LinAlgWarning, match=r"pivot growth 9\.2e\+18 .* hetlu.solve checks"):
        f = hetlu.lu_factor(W, db=db)
    assert any("pivot growth" in w for w in f.plan["warnings"])
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        hetlu.lu_factor(random_system(200)[0], db=db)
        hetlu.lu_factor(np.random.default_rng(2).standard_normal((300, 40)), db=db)  # tall: U is 40 x 40
        hetlu.lu_factor(np.random.default_rng(2).standard_normal((40, 300)), db=db)  # wide: U is 40 x 300
    wide = np.hstack([W, np.ones((n, 5))])  # W's growth in U's first n columns
    with pytest.warns(hetlu.linalg.LinAlgWarning, match="pivot growth"):
        hetlu.lu_factor(wide, db=db)


def test_an_answer_solved_again_says_so_in_its_note(db):
    """Mixed precision on Wilkinson's matrix falls back to double GEPP (omega 0.75) and is solved
    again as the hetlu command solves: the note was blank."""
    n = 64
    W = np.tril(-np.ones((n, n)), -1) + np.eye(n)
    W[:, -1] = 1
    r = hetlu.solve(W, np.random.default_rng(0).standard_normal(n), precision="mixed", db=db)
    assert r.backward_error < 30 * (n + 1) * np.finfo(float).eps / 2
    assert r.note.startswith("solved again as the hetlu command solves"), r.note


@pytest.mark.parametrize("order", ["F", "C"])
def test_prbt_with_overwrite_a_still_checks_and_repairs_against_a(db, order):
    """PRBT leaves A as it is, so overwrite_a=True need not give up the check: rows scaled by 1e30
    in float32 came back with omega 0.68, backward_error None."""
    rng = np.random.default_rng(1)
    A = rng.standard_normal((200, 200)).astype(np.float32)
    A[::2] *= 1e30
    A = np.asfortranarray(A) if order == "F" else np.ascontiguousarray(A)
    b = rng.standard_normal(200).astype(np.float32) * 1e15
    before = A.copy()
    r = hetlu.solve(A, b, solver="prbt", overwrite_a=True, db=db)
    assert np.array_equal(A, before)
    assert r.backward_error is not None and r.backward_error < 30 * 201 * np.finfo(np.float32).eps


@pytest.mark.parametrize("bad", [-1, 25, 2**31 - 1])
def test_out_of_range_pivots_are_refused(db, bad):
    A = np.random.default_rng(5).standard_normal((25, 25))
    f = hetlu.lu_factor(A, db=db)
    f.piv[3] = bad
    with pytest.raises(ValueError, match=r"piv\[3\] = %d is not a row index in \[0, 25\)" % bad):
        hetlu.lu_solve(f, np.ones(25))


def test_rectangular_lu_factor(db):
    A = np.random.default_rng(3).standard_normal((40, 7))
    f = hetlu.lu_factor(A, db=db)
    assert f.lu.shape == (40, 7) and f.piv.shape == (7,)


def test_singular_matrix_raises_linalgerror(db):
    A = np.array([[1.0, 2.0], [2.0, 4.0]])
    with pytest.raises(np.linalg.LinAlgError, match=r"singular: U\(2,2\) is exactly zero"):
        hetlu.solve(A, np.ones(2), db=db)


@pytest.mark.parametrize(
    "A, b, message",
    [
        (np.ones((2, 3)), np.ones(2), "A is 2 x 3; it must be square"),
        (np.eye(3), np.ones(2), "b has 2 rows but A is 3 x 3"),
        (np.array([[1.0, np.nan], [0.0, 1.0]]), np.ones(2), r"A\(1,2\) is NaN"),
        (np.eye(2), np.array([1.0, np.inf]), r"B\(2,1\) is Inf"),
        (np.eye(2, dtype=complex), np.array([1, complex(0, np.nan)]), r"B\(2,1\) is NaN"),
        (np.eye(2, dtype="datetime64[s]"), np.ones(2), "real and complex systems"),
        (np.eye(2), np.array(["a", "b"]), "b has dtype"),
        (np.ones(3), np.ones(3), "2-dimensional"),
        (np.eye(2), -np.array([1.0, np.inf]), r"B\(2,1\) is -Inf"),
        (np.eye(3), np.ones((3, 2, 2)), "b must be 1- or 2-dimensional"),
    ],
)
def test_bad_input_raises_valueerror_with_the_clis_message(A, b, message, db):
    with pytest.raises(ValueError, match=message):
        hetlu.solve(A, b, db=db)


def test_factors_and_orders_that_cannot_be_are_named(db):
    factors = hetlu.lu_factor(np.eye(3) * 2, db=db)
    with pytest.raises(ValueError, match="b is complex but the factors are real"):
        hetlu.lu_solve(factors, np.ones(3) + 1j)
    with pytest.raises(ValueError, match="b must be 1- or 2-dimensional"):
        hetlu.lu_solve(factors, np.ones((3, 2, 2)))
    with pytest.raises(ValueError, match=r"m = 1099511627776 is not an order"):
        hetlu.recommend(1 << 40, 10, db=db)
    from hetlu import linalg
    with pytest.raises(ValueError, match=r"piv\[1\] = nan is not a row index"):
        linalg.lu_solve((np.eye(3), np.array([0.0, np.nan, 2.0])), np.ones(3))
    np.testing.assert_array_equal(linalg.lu_solve((np.eye(3) * 2, np.array([0.0, 1.0, 2.0])), np.ones(3)), 0.5)


def test_unknown_solver(db):
    with pytest.raises(ValueError, match="unknown solver 'fast'"):
        hetlu.solve(np.eye(2), np.ones(2), solver="fast", db=db)


def test_an_error_quoting_a_newline_is_one_line(db):
    with pytest.raises(ValueError) as raised:
        hetlu.solve(np.eye(2), np.ones(2), solver="ca\nlu", db=db)
    assert "\n" not in str(raised.value) and "ca\\nlu" in str(raised.value)


def test_calibrate_then_recommend_is_tuned(db):
    rows = hetlu.calibrate(level="quick", sizes=[48], db=db)
    assert len(rows) == 1 and rows[0]["n"] == 48 and rows[0]["gflops"] > 0
    plan = hetlu.recommend(48, 48, db=db)
    assert plan["source"] == "tuned" and plan["nb"] == rows[0]["plan"]["nb"]
    # Tuned for the threads this process's solves run on, and said so.
    assert plan["cpu_threads"] >= 1 and f"on {plan['cpu_threads']} CPU thread" in plan["source_detail"]
    r = hetlu.solve(*random_system(48), db=db)
    assert r.plan["source"] == "tuned"


def test_recommend_without_database_uses_the_model(db):
    plan = hetlu.recommend(1000, 1000, db=db)
    assert plan["source"] == "model" and plan["predicted_seconds"] > 0


@pytest.mark.parametrize("solver", ["gepp", "calu", "prbt", "auto"])
@pytest.mark.parametrize("order", ["C", "F"])
def test_every_solver(solver, order, db):
    A, b = random_system(70, order=order)
    A0 = A.copy()
    r = hetlu.solve(A, b, solver=solver, db=db)
    np.testing.assert_allclose(A0 @ r.x, b, atol=1e-10)
    assert r.plan["solver"] in ("gepp", "calu", "prbt")
    if r.plan["solver"] == "prbt":
        assert r.backward_error <= 71 * np.finfo(float).eps / 2
    # Where the time went, in order: the factorization always comes before the solve.
    phases = [name for name, seconds in r.phase_seconds if seconds >= 0]
    assert "factorization" in phases and phases.index("factorization") < len(phases) - 1


def test_prbt_in_place_c_order(db):
    A, b = random_system(33, order="C")
    A0 = A.copy()
    r = hetlu.solve(A, b, solver="prbt", overwrite_a=True, db=db)
    np.testing.assert_allclose(A0 @ r.x, b, atol=1e-10)


@pytest.mark.parametrize("sizes,message", [([0], "not a positive matrix order"), ([-5], "not a positive"),
                                           ([48, 0], "not a positive"), ([10**9], "at most 100000"),
                                           ([], "sizes is empty")])
def test_calibrate_refuses_sizes_that_are_not_orders(sizes, message, db):
    with pytest.raises(ValueError, match=message):
        hetlu.calibrate(level="quick", sizes=sizes, db=db)


def test_calibrate_refuses_a_backend_without_the_hybrid_target(db):
    with pytest.raises(ValueError, match="hybrid target only"):
        hetlu.calibrate(level="quick", sizes=[64], backend="host", db=db)


def test_calibrate_estimate_times_nothing_and_refuses_sizes(db):
    with pytest.raises(ValueError, match="times nothing"):
        hetlu.calibrate(level="estimate", sizes=[10000], db=db)


def test_ctrl_c_stops_a_calibration_promptly_and_keeps_the_database(db):
    import signal
    import sqlite3
    import subprocess
    import sys
    import time

    script = (
        "import sys, hetlu\n"
        "print('started', flush=True)\n"
        "try:\n"
        f"    hetlu.calibrate(level='quick', sizes=[2000, 3000, 4000], db={db!r})\n"
        "except KeyboardInterrupt:\n"
        "    print('interrupted', flush=True); sys.exit(0)\n"
        "print('finished', flush=True); sys.exit(1)\n")
    child = subprocess.Popen([sys.executable, "-c", script], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    assert child.stdout.readline().strip() == "started"
    time.sleep(4)  # in the probes or the first trials
    sent = time.monotonic()
    child.send_signal(signal.SIGINT)
    out, err = child.communicate(timeout=60)
    waited = time.monotonic() - sent
    assert "interrupted" in out, out + err
    assert waited < 10, f"took {waited:.1f} s to stop"
    with sqlite3.connect(db) as con:
        assert con.execute("PRAGMA integrity_check").fetchone()[0] == "ok"


@pytest.mark.parametrize("solver", ["gepp", "calu", "prbt"])
def test_the_hybrid_target_from_python(solver, db):
    # target=, backend=, d= and panel= as the CLI's --target, --backend, --d and --panel; the host
    # backend runs everywhere (a team of CPU threads standing in for a device).
    A, b = random_system(150, seed=3)
    r = hetlu.solve(A, b, solver=solver, db=db, nb=32, target="hybrid", backend="host", d=2)
    np.testing.assert_allclose(A @ r.x, b, atol=1e-9)
    assert r.plan["target"] == "hybrid" and r.plan["backend"] == "host"
    assert r.plan["cpu_block_columns"] == 2 and r.plan["panel_location"] == "cpu"
    f = hetlu.lu_factor(A, solver="gepp" if solver == "prbt" else solver, db=db, nb=32, target="hybrid",
                        backend="host", d=0)
    assert f.plan["panel_location"] == "device"
    np.testing.assert_allclose(A @ hetlu.lu_solve(f, b), b, atol=1e-9)
    plan = hetlu.recommend(1000, 1000, db=db, target="hybrid", backend="host", panel="device")
    assert plan["cpu_block_columns"] == 0 and plan["target"] == "hybrid"


def test_mixed_precision(db):
    # A single-precision factorization refined in double: double accuracy, ITER >= 0, A and b kept.
    A, b = random_system(300)
    A0, b0 = A.copy(), b.copy()
    for solver in ("gepp", "calu", "prbt"):
        r = hetlu.solve(A, b, db=db, solver=solver, precision="mixed")
        np.testing.assert_allclose(A @ r.x, b, atol=1e-9)
        assert r.iter >= 0 and r.plan["precision"] == "mixed" and r.backward_error < 1e-14
    np.testing.assert_array_equal(A, A0)
    np.testing.assert_array_equal(b, b0)
    z = (A + 1j * np.eye(300)).astype(np.complex128)
    r = hetlu.solve(z, b.astype(np.complex128), db=db, precision="mixed")
    np.testing.assert_allclose(z @ r.x, b, atol=1e-9)
    # Out of single's range: the double solver answers, and says why.
    # kappa_1 = 1e300, as scipy.linalg.solve warns; x is exact, and dgerfs' forward error bound says
    # so (as the hetlu command, which exits 0): no warning.
    big = np.diag([1e300, 1.0])
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        r = hetlu.solve(big, np.array([1e300, 1.0]), db=db, precision="mixed")
    assert r.iter == -2 and np.allclose(r.x, [1, 1])
    assert r.rcond < 1e-299 and "forward error bound" in r.note, r.note
    with pytest.raises(np.linalg.LinAlgError, match="singular"):
        hetlu.solve(np.ones((3, 3)), np.ones(3), db=db, precision="mixed")
    with pytest.raises(ValueError, match="float64"):
        hetlu.solve(A.astype(np.float32), b.astype(np.float32), db=db, precision="mixed")
    with pytest.raises(ValueError, match="mixed"):
        hetlu.solve(A, b, db=db, precision="half")
    # 'double' as the command's --precision double: float32 arrays solved in float64.
    r = hetlu.solve(A.astype(np.float32), b.astype(np.float32), db=db, precision="double")
    assert r.plan["precision"] == "double" and r.x.dtype == np.float64
    r = hetlu.solve(A.astype(np.complex64), b.astype(np.complex64), db=db, precision="double")
    assert r.plan["precision"] == "double" and r.x.dtype == np.complex128
    # The hybrid target: the device refines, PRBT's randomized GENP too.
    for solver in ("gepp", "prbt"):
        r = hetlu.solve(A, b, db=db, precision="mixed", solver=solver, target="hybrid", backend="host")
        assert r.iter >= 0 and "on the device" in r.note, r.note
        assert np.max(np.abs(b - A @ r.x)) <= 1e-12 * np.max(np.abs(A)) * np.max(np.abs(r.x)) * len(b)
    assert hetlu.solve(A, b, db=db).iter is None


def test_mixed_precision_reports_how_singular_a_is(db):
    # rcond estimated on the mixed path, and "singular to working precision" where a column depends
    # on two others and b lies in A's range (refinement converges there to one of many solutions).
    A, b = random_system(120)
    r = hetlu.solve(A, b, db=db, precision="mixed")
    kappa = np.linalg.cond(A, 1)
    assert r.rcond is not None and 1 / (3 * 120 * kappa) < r.rcond < 120 / kappa
    assert not any("singular to working precision" in w for w in r.warnings)
    assert hetlu.solve(A, b, db=db, solver="gepp").rcond > 0  # dgecon's estimate, as scipy.linalg.solve
    A[:, -1] = A[:, 0] + A[:, 1]
    for solver in ("gepp", "calu", "prbt"):
        with pytest.warns(hetlu.linalg.LinAlgWarning, match="singular to working precision"):
            r = hetlu.solve(A, A @ np.ones(120), db=db, solver=solver, precision="mixed")
        assert r.iter == -1 and r.rcond is not None and r.rcond < np.finfo(np.float64).eps
        assert any("singular to working precision" in w for w in r.warnings), r.warnings


def test_a_nearly_dependent_column_warns_whichever_side_of_eps_rcond_lands(db):
    # A column within 1e-13 of a complex multiple of another (a hostile tester's): true rcond about
    # 1e-19, estimated either side of eps; above it, x came back wrong in every digit without a word.
    n = 600
    for seed in range(4):  # seeds 2 and 3 land above eps (dev machine)
        rng = np.random.default_rng(seed)
        A = rng.standard_normal((n, n)) + 1j * rng.standard_normal((n, n))
        A[:, n // 2] = A[:, n // 2 - 1] * (1 + 1e-11j)
        with pytest.warns(hetlu.linalg.LinAlgWarning, match="singular to working precision"):
            r = hetlu.solve(A, np.ones(n, complex), db=db, solver="gepp")
        assert any("singular to working precision" in w for w in r.warnings), (seed, r.rcond, r.warnings)


def test_an_answer_that_cannot_be_trusted_warns(db):
    # LAPACK's gesv returns these as a success; hetlu.solve's report says so, and warns.
    A, b = random_system(60)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        r = hetlu.solve(A, b, db=db)  # a good answer: nothing said
    assert not r.warnings
    # Rows scaled 10^U(-300, 300): GEPP without equilibration left omega 0.28, X wrong by 4.6. Such an
    # answer is solved again as the hetlu command solves (equilibrated, checked), and says so.
    x = np.linalg.solve(A, b)
    scale = 10.0 ** np.random.default_rng(0).uniform(-300, 300, 60)
    for precision in (None, "mixed", "auto"):
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            r = hetlu.solve(A * scale[:, None], b * scale, db=db, solver="gepp", precision=precision)
        assert any(w.startswith("solved again") for w in r.warnings), r.warnings
        assert r.backward_error <= 30 * 61 * np.finfo(float).eps
        np.testing.assert_allclose(r.x, x, rtol=1e-10)
    cols = A.copy()
    cols[:, :30] *= 1e-200
    cols[:, 30:] *= 1e200
    # x's first 30 entries are near 1e400: beyond the range, which no driver mends.
    with pytest.warns(hetlu.linalg.LinAlgWarning, match="not finite"):
        r = hetlu.solve(cols, b * 1e200, db=db, solver="gepp")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with pytest.raises(hetlu.linalg.LinAlgWarning):
            hetlu.solve(cols, b * 1e200, db=db, solver="gepp")
    # float32 rows scaled 1e+-30: GEPP's triangular solves overflowed (x Inf and NaN, as LAPACK's).
    rows = (A * (10.0 ** np.linspace(-30, 30, 60))[:, None]).astype(np.float32)
    r = hetlu.solve(rows, np.ones(60, np.float32), db=db, solver="gepp")
    assert np.all(np.isfinite(r.x)) and r.backward_error <= 30 * 61 * np.finfo(np.float32).eps


def test_several_devices(db):
    # Two host backends beside the CPUs: the plan names both and how the block columns were dealt.
    A, b = random_system(200)
    r = hetlu.solve(A, b, db=db, target="hybrid", backend="host:1,host:1", d=1)
    np.testing.assert_allclose(A @ r.x, b, atol=1e-9)
    assert r.plan["devices"] == "host:1,host:1" and r.plan["backend"] == "host"
    assert len(r.plan["device_shares"]) == 2
    # d = 0 on several devices: each factors the panels of its own block columns.
    r = hetlu.solve(A, b, db=db, target="hybrid", backend="host:1,host:1", d=0)
    np.testing.assert_allclose(A @ r.x, b, atol=1e-9)
    assert r.plan["cpu_block_columns"] == 0


def test_bad_placements_are_named(db):
    A, b = random_system(10)
    with pytest.raises(ValueError, match="target"):
        hetlu.solve(A, b, db=db, target="gpu")
    with pytest.raises(ValueError, match="backend"):
        hetlu.solve(A, b, db=db, target="hybrid", backend="tpu")
    with pytest.raises(ValueError, match="d = -1"):
        hetlu.solve(A, b, db=db, target="hybrid", backend="host", d=-1)
    with pytest.raises(ValueError, match="hybrid target only"):
        hetlu.solve(A, b, db=db, backend="host")
    with pytest.raises(ValueError, match="contradict"):
        hetlu.recommend(100, 100, db=db, target="hybrid", backend="host", d=2, panel="device")


def test_auto_precision(db):
    # precision='auto': mixed where it is predicted faster and converges, else double; A and b kept.
    A, b = random_system(1000)
    A0, b0 = A.copy(), b.copy()
    r = hetlu.solve(A, b, db=db, solver="gepp", precision="auto")
    np.testing.assert_allclose(A @ r.x, b, atol=1e-9)
    assert r.iter is None and r.plan["precision"] in ("mixed", "double")
    assert "predicted" in r.note and r.backward_error < 1e-14
    np.testing.assert_array_equal(A, A0)
    np.testing.assert_array_equal(b, b0)
    # kappa_2 = 1e14: the double solver answers, and the note says why.
    u, _ = np.linalg.qr(np.random.default_rng(3).standard_normal((400, 400)))
    ill = (u * np.logspace(0, -14, 400)) @ u.T
    r = hetlu.solve(ill, b[:400], db=db, precision="auto")
    assert r.plan["precision"] == "double"
    assert r.backward_error < 1e-14
    with pytest.raises(ValueError, match="float64"):
        hetlu.solve(A.astype(np.float32), b.astype(np.float32), db=db, precision="auto")
    with pytest.raises(np.linalg.LinAlgError, match="singular"):
        hetlu.solve(np.ones((3, 3)), np.ones(3), db=db, precision="auto")


def test_in_place_answers_say_what_the_factors_tell(db):
    # overwrite_a=True leaves no A to check x against: Wilkinson's matrix (pivot growth 2^59, omega
    # 0.1) came back in silence; the factors' pivot growth says it now.
    n = 60
    A = np.eye(n) - np.tril(np.ones((n, n)), -1)
    A[:, -1] = 1
    b = np.random.default_rng(4).standard_normal(n)
    with pytest.warns(hetlu.linalg.LinAlgWarning, match="pivot growth"):
        r = hetlu.solve(np.asfortranarray(A), b, db=db, solver="gepp", overwrite_a=True)
    assert r.backward_error is None
    # A random matrix factored in place: nothing to say.
    R, rb = random_system(60, order="F")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        r = hetlu.solve(R, rb, db=db, solver="gepp", overwrite_a=True)
    assert not r.warnings


def test_badly_scaled_rows_are_not_called_singular(db):
    # rcond of A itself (5.8e-42 for rows 1e+-20) said "singular to working precision" of an x right
    # to 1e-15; dgerfs' forward error bound decides, as in the hetlu command.
    A, b = random_system(40, seed=3)
    x = np.linalg.solve(A, b)
    scale = 10.0 ** np.linspace(-20, 20, 40)
    for precision in ("mixed", "auto", None):
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            r = hetlu.solve(A * scale[:, None], b * scale, db=db, precision=precision)
        np.testing.assert_allclose(r.x, x, rtol=1e-10)


def test_singular_to_working_precision_warns_on_every_path(db):
    # Hilbert 14 (rcond 2e-18): x wrong by 0.18. GEPP and auto's double answer came back in silence;
    # every path now says it, as scipy.linalg.solve and the hetlu command do.
    import scipy.linalg

    H, b = scipy.linalg.hilbert(14), np.ones(14)
    for precision in (None, "auto", "mixed"):
        with pytest.warns(hetlu.linalg.LinAlgWarning, match="singular to working precision"):
            r = hetlu.solve(H, b, db=db, precision=precision)
        assert r.rcond < 1e-16
    # In place, the factors' pivot growth warns from Wilkinson n = 20 (omega 9e-12 > 7e-14).
    n = 20
    W = np.eye(n) - np.tril(np.ones((n, n)), -1)
    W[:, -1] = 1
    with pytest.warns(hetlu.linalg.LinAlgWarning, match="pivot growth"):
        hetlu.solve(np.asfortranarray(W), np.ones(n), db=db, solver="gepp", overwrite_a=True)


def test_a_wider_b_is_not_rounded_to_as_type(db):
    # A float32 with b float64: solved in float64, as SciPy promotes (b was rounded to float32: 1e-50
    # became 0, and 1e300 became Inf and was refused as not finite).
    A = np.array([[2.0, 1.0], [1.0, 3.0]], np.float32)
    for b, exact in (([1e-50, 0.0], [6e-51, -2e-51]), ([1e300, 1.0], [6e299 - 0.2, -2e299 + 0.4])):
        r = hetlu.solve(A, np.array(b), db=db)
        assert r.x.dtype == np.float64
        np.testing.assert_allclose(r.x, exact, rtol=1e-12)
        f = hetlu.lu_factor(A, db=db)
        np.testing.assert_allclose(hetlu.lu_solve(f, np.array(b)), exact, rtol=1e-6)


def test_prbt_says_when_a_column_nearly_repeats(db):
    # A column repeated up to noise of 1e-15: PRBT refined to an x wrong in every digit, with no warning.
    rng = np.random.default_rng(4)
    n = 200
    A = rng.standard_normal((n, n))
    A[:, -1] = A[:, 0] + 1e-15 * rng.standard_normal(n)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        r = hetlu.solve(A, A @ np.ones(n), solver="prbt", db=db)
    assert r.rcond < np.finfo(np.float64).eps
    assert any("singular to working precision" in str(w.message) for w in caught)


def test_a_fifo_as_the_database_does_not_hang(tmp_path):
    import os

    fifo = str(tmp_path / "pipe.db")
    os.mkfifo(fifo)
    with pytest.warns(hetlu.HetluWarning, match="not a regular file"):
        r = hetlu.solve(np.eye(3), np.ones(3), db=fifo)  # used to wait for a writer forever
    np.testing.assert_allclose(r.x, np.ones(3))
    assert any("not a regular file" in w for w in r.warnings)


def test_orders_beyond_int_are_refused_not_wrapped(db):
    # An empty array may claim any length: 0 x (2^32 + 2) was solved as 0 x 2.
    for columns in (2**31 + 1, 2**32 + 2):
        with pytest.raises(ValueError, match="at most 2147483647"):
            hetlu.solve(np.zeros((0, 0)), np.zeros((0, columns)), db=db)
    with pytest.raises(ValueError, match="at most 2147483647"):
        hetlu.lu_factor(np.zeros((0, 2**31 + 1)), db=db)


def test_the_database_may_be_a_path(tmp_path):
    import pathlib

    r = hetlu.solve(np.eye(3), np.ones(3), db=pathlib.Path(tmp_path) / "t.db")
    np.testing.assert_allclose(r.x, np.ones(3))
    with pytest.raises(TypeError):  # cut at the NUL before
        hetlu.solve(np.eye(3), np.ones(3), db=str(tmp_path / "a") + "\x00b")


def test_errors_are_the_modules_own_and_the_standard_ones(tmp_path, db):
    # As in C++, hetlu.InvalidArgument and hetlu.DatabaseError are hetlu.Errors (a RuntimeError),
    # and also a ValueError and an OSError: a caller may catch either name.
    assert issubclass(hetlu.InvalidArgument, ValueError) and issubclass(hetlu.InvalidArgument, hetlu.Error)
    assert issubclass(hetlu.DatabaseError, OSError) and issubclass(hetlu.DatabaseError, hetlu.Error)
    assert issubclass(hetlu.Error, RuntimeError)
    with pytest.raises(hetlu.InvalidArgument, match="b has 4 rows but A is 3 x 3"):
        hetlu.solve(np.eye(3), np.ones(4), db=db)
    with pytest.raises(hetlu.DatabaseError, match="is a folder, not a file"):
        hetlu.calibrate(db=str(tmp_path), level="estimate")
    try:  # where no GPU is usable, the cuda backend is an Error naming why
        hetlu.solve(np.eye(3), np.ones(3), target="hybrid", backend="cuda", db=db)
    except hetlu.Error as e:
        assert "backend 'cuda' is not available" in str(e)


def test_lu_solve_trans_as_scipy_and_lapack():
    # trans was a bool: 2 (SciPy's A^H) became True and solved A^T x = b for a complex A, with no
    # word (a hostile test's finding).
    rng = np.random.default_rng(7)
    A = rng.standard_normal((20, 20)) + 1j * rng.standard_normal((20, 20))
    b = rng.standard_normal(20) + 1j * rng.standard_normal(20)
    f = hetlu.lu_factor(A)
    ops = {0: A, 1: A.T, 2: A.conj().T}
    for trans, op in [(0, 0), (1, 1), (2, 2), (False, 0), (True, 1), ("N", 0), ("t", 1), ("C", 2),
                      (np.int64(2), 2)]:
        x = hetlu.lu_solve(f, b, trans=trans)
        assert np.linalg.norm(ops[op] @ x - b) < 1e-10 * np.linalg.norm(b), trans
    for bad in (3, -1, "X", 1.5, None):
        with pytest.raises(ValueError, match="trans"):
            hetlu.lu_solve(f, b, trans=bad)


def test_a_database_that_cannot_be_read_warns(tmp_path):
    # The model answers, as before, and the call now says why (the result's warnings held it alone).
    folder = tmp_path / "a_folder"
    folder.mkdir()
    A, b = random_system(40)
    with pytest.warns(hetlu.HetluWarning, match="is a folder, not a file"):
        r = hetlu.solve(A, b, db=str(folder))
    assert r.plan["source"] == "model" and any("folder" in w for w in r.warnings)
    not_sqlite = tmp_path / "text.db"
    not_sqlite.write_text("not a database\n" * 100)
    with pytest.warns(hetlu.HetluWarning, match="not a database"):
        f = hetlu.lu_factor(A, db=str(not_sqlite))
    assert any("not a database" in w for w in f.plan["warnings"])
    with warnings.catch_warnings():
        warnings.simplefilter("error", hetlu.HetluWarning)
        with pytest.raises(hetlu.HetluWarning):
            hetlu.solve(A, b, db=str(folder))
    # A database that is simply not there yet is no warning.
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        hetlu.solve(A, b, db=str(tmp_path / "none_yet.db"))


def test_array_likes_are_read_as_numpy_reads_them_and_masked_arrays_refused(db):
    r = hetlu.solve([[1 + 1j, 2], [3, 4j]], [1, 1j], db=db)
    np.testing.assert_allclose(np.array([[1 + 1j, 2], [3, 4j]]) @ r.x, [1, 1j], atol=1e-14)
    f = hetlu.lu_factor([[1.0, 2.0], [3.0, 4.0]], db=db)
    np.testing.assert_allclose(hetlu.lu_solve(f, [1.0, 2.0]), [0.0, 0.5], atol=1e-15)
    with pytest.raises(ValueError, match="masked array"):
        hetlu.solve(np.ma.array(np.eye(3), mask=np.eye(3)), np.ones(3), db=db)
    with pytest.raises(ValueError, match="cannot be read as an array"):
        hetlu.solve([[1, 2], [3]], [1, 2], db=db)


def test_solver_names_and_lu_factor_of_prbt(db):
    A, b = random_system(10)
    with pytest.raises(ValueError, match=r"expected one of: auto, gepp, calu, prbt"):
        hetlu.solve(A, b, solver="xx", db=db)
    with pytest.raises(ValueError, match="use hetlu.solve"):
        hetlu.lu_factor(A, solver="prbt", db=db)


def test_a_long_double_beyond_doubles_range_is_said_as_such():
    # Solved in double: a finite 1e400 is refused as out of double's range, not as "A(2,3) is Inf"
    # (a hostile test), and with no NumPy cast warning on the way.
    if np.finfo(np.longdouble).max <= np.finfo(np.float64).max:
        pytest.skip("long double is double here")
    a = np.eye(4, dtype=np.longdouble)
    a[1, 2] = np.longdouble("1e400")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        for call in (lambda: hetlu.solve(a, np.ones(4)), lambda: hetlu.lu_factor(a)):
            with pytest.raises(hetlu.InvalidArgument, match=r"A\(2,3\) is a finite long double beyond double"):
                call()
    a[1, 2] = np.inf
    with pytest.raises(hetlu.InvalidArgument, match=r"A\(2,3\) is Inf"):
        hetlu.solve(a, np.ones(4))


def test_results_and_factors_survive_pickling():
    # multiprocessing and joblib pickle what a worker returns: "cannot pickle 'SolveResult' object".
    import pickle
    rng = np.random.default_rng(3)
    a = rng.standard_normal((40, 40)) + 40 * np.eye(40)
    b = rng.standard_normal(40)
    r = pickle.loads(pickle.dumps(hetlu.solve(a, b, solver="prbt")))
    assert np.allclose(r.x, np.linalg.solve(a, b), rtol=1e-12)
    assert r.plan["solver"] == "prbt" and r.rcond is not None and r.phase_seconds
    f = pickle.loads(pickle.dumps(hetlu.lu_factor(a)))
    assert np.allclose(hetlu.lu_solve(f, b), np.linalg.solve(a, b), rtol=1e-12)
    # A damaged or foreign state is an error that says so, never factors taken on trust.
    blank = hetlu.LUFactorization.__new__(hetlu.LUFactorization)
    for state, message in [((), "not a pickled LUFactorization"), ((2, a, b, {}, 0.0, 0.0), "version 1"),
                           ((1, [1.0], b, {}, 0.0, 0.0), "lu that is not an array"),
                           ((1, a, f.piv, {}, "soon", 0.0), "seconds of the wrong type"),
                           ([1, a, b, {}, 0.0, 0.0], "not a pickled"), ((True, a, b, {}, 0.0, 0.0), "version 1"),
                           ((2**70, a, b, {}, 0.0, 0.0), "version 1"), (None, "not a pickled"),
                           ((1, np.ma.masked_array(a), f.piv, {}, 0.0, 0.0), "lu that is not an array"),
                           ((1, a, f.piv.astype(str), {}, 0.0, 0.0), "piv of dtype kind 'U'"),
                           ((1, a, f.piv.astype(complex), {}, 0.0, 0.0), "piv of dtype kind 'c'"),
                           ((1, a.astype(object), f.piv, {}, 0.0, 0.0), "lu of dtype kind 'O'")]:
        with pytest.raises(ValueError, match=message):
            blank.__setstate__(state)
    result = hetlu.SolveResult.__new__(hetlu.SolveResult)
    good = r.__getstate__()
    for field, bad in [(1, "x"), (3, "small"), (6, 2**40), (8, "not a list"), (9, [("upload", "soon")]), (12, "0.5")]:
        state = list(good)
        state[field] = bad
        with pytest.raises(ValueError, match="a pickled"):
            result.__setstate__(tuple(state))
    result.__setstate__(good)
    assert np.array_equal(result.x, r.x) and result.note == r.note


def test_an_object_made_by_new_alone_is_a_type_error_not_a_crash():
    # pybind11 read uninitialized memory for an object made by __new__ without __setstate__: .lu,
    # .plan, repr() and pickling it crashed the interpreter (a hostile helper's finding).
    import pickle
    for kind, names in [(hetlu.LUFactorization, ["lu", "piv", "plan", "seconds", "gflops"]),
                        (hetlu.SolveResult, ["x", "plan", "backward_error", "seconds", "gflops", "warnings",
                                             "refinement_steps", "iter", "note", "rcond", "fell_back_to_gepp",
                                             "phase_seconds"])]:
        blank = kind.__new__(kind)
        for name in names:
            with pytest.raises(TypeError, match="made by __new__ alone"):
                getattr(blank, name)
        with pytest.raises(TypeError, match="made by __new__ alone"):
            pickle.dumps(blank)
    with pytest.raises(TypeError, match="made by __new__ alone"):
        repr(hetlu.SolveResult.__new__(hetlu.SolveResult))
    with pytest.raises(TypeError, match="made by __new__ alone"):
        hetlu.lu_solve(hetlu.LUFactorization.__new__(hetlu.LUFactorization), np.ones(3))
    with pytest.raises(TypeError, match="hetlu.lu_factor's LUFactorization, not a tuple"):
        hetlu.lu_solve((np.eye(3), np.arange(3)), np.ones(3))
    with pytest.raises(TypeError, match="expected a hetlu.SolveResult, not a int"):
        hetlu.SolveResult.x.fget(5)


def _solve_in_a_forked_child(seed):
    rng = np.random.default_rng(seed)
    a = rng.standard_normal((300, 300))
    b = rng.standard_normal(300)
    x = hetlu.solve(a, b, solver="calu").x
    y = np.linalg.solve(a, b)
    return float(np.abs(a @ x - b).max()), float(np.abs(a @ y - b).max())


def test_a_pool_forked_after_the_parent_solved_does_not_hang():
    # GNU OpenMP's children of fork() waited forever in their first parallel region for the parent's
    # idle threads: a Pool's workers hung once the parent had solved (or called NumPy's OpenBLAS).
    import multiprocessing
    rng = np.random.default_rng(5)
    a = rng.standard_normal((400, 400))
    hetlu.solve(a, np.ones(400), solver="calu")
    np.linalg.solve(a, np.ones(400))
    with multiprocessing.get_context("fork").Pool(2) as pool:
        residuals = pool.map_async(_solve_in_a_forked_child, range(3)).get(timeout=120)
    assert all(r < 1e-9 for pair in residuals for r in pair)
