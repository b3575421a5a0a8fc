"""Theorem 5 in a tube around M near the oracle (`docs/MATH.md` §13, "A tube around M"; certify.oracle_tube).

Independent routes: the float64 five-overlap map and its Jacobian (landscape.overlap_map: NumPy, not arb) for the
contraction test's soundness and for runs started inside the tube; the full-dimensional PGD on unit vectors in R^d
(dynamics.runners.pgd) for runs from the tube's entry set."""
from __future__ import annotations

import numpy as np
import pytest
from flint import arb, arb_mat, ctx

from slr_verify.certify.oracle_tube import largest_oracle_tube, oracle_tube
from slr_verify.checker.balls import param_balls
from slr_verify.checker.contraction import oracle_box_bounds as box_bounds
from slr_verify.kernels.balls import widened
from slr_verify.landscape.overlap_map import pgd_map, real_eigenbasis

MODEL = dict(gamma=0.5**0.5, d=400, L=10)
ALPHA = 4e-3


def _float_norm(x, lam, T):
    """||T^{-1} D_y Y T||_2 at the point x of M in float64 (NumPy's Jacobian of the five-overlap map)."""
    _, J = pgd_map(np.array([x[0], x[1], 0.0, 0.0, 0.0]), (1,) * 5, alpha=ALPHA, lam=lam, **MODEL)
    return np.linalg.norm(np.linalg.inv(T) @ J[2:, 2:] @ T, 2)


def test_the_contraction_test_is_sound_where_the_float_norm_exceeds_q():
    """At lam = 0.1 the float norm of the transverse block in the oracle's eigenbasis passes 1 at (0.8, 1) (NumPy): a
    box around it must not pass the test at q = 0.9999; a box at the oracle, where the float norm is below, passes."""
    lam = 0.1
    _, J = pgd_map(np.array([1.0, 1.0, 0, 0, 0]), (1,) * 5, alpha=ALPHA, lam=lam, **MODEL)
    T = real_eigenbasis(J[2:, 2:])[0]
    assert _float_norm((0.8, 1.0), lam, T) > 1.0 > 0.9999 > _float_norm((1.0, 1.0), lam, T)
    par = dict(lam=widened(lam), **param_balls(MODEL["gamma"], 0.0, MODEL["d"], MODEL["L"]).kw())
    with ctx.workprec(128):
        Tm, q = arb_mat([[arb(x) for x in row] for row in T]), arb(0.9999)
        bad = box_bounds(((0.8, 0.8001), (0.9999, 1.0)), Tm, 1e-6, par, arb(ALPHA), q)
        good = box_bounds(((0.9999, 1.0), (0.9999, 1.0)), Tm, 1e-6, par, arb(ALPHA), q)
    assert not bad[0] and good[0] and good[2]


def test_the_tube_at_lam_0_01_holds_and_runs_from_it_converge_in_r400():
    """The tube at lam = 0.01 (D = [0.9, 1]^2, a smaller search than the claim's): proved; full-dimensional PGD in R^400
    from 4 starts inside the entry set (k, v unit vectors built from their overlaps) contracts across M at the
    certified rate and ends nearer the oracle, and a start far outside (theta = 0.3) is refused by ``contains``."""
    from slr_verify.dynamics.runners import pgd
    from slr_verify.landscape.hessian import realise

    t = oracle_tube(lam=0.01, alpha=ALPHA, D=((0.9, 1.0), (0.9, 1.0)), **MODEL)
    assert t.proved, t.reason
    assert 0 < t.q < 1 and t.C > 0 and 0 < t.entry <= t.radius
    # the Euclidean radius is inside the entry set: |T^{-1} y| <= ||T^{-1}||_2 |y| (NumPy's norm, an independent route)
    assert t.euclidean_entry() * np.linalg.norm(np.linalg.inv(t.T), 2) <= t.entry
    rng = np.random.default_rng(3)
    r = t.euclidean_entry()
    starts = []
    for kap, nu in ((0.95, 0.93), (0.99, 0.91), (0.92, 0.99), (0.97, 0.97)):
        y = rng.standard_normal(3)
        y *= 0.9 * r / np.linalg.norm(y)
        ov = np.array([kap, nu, y[0], y[1], kap * y[0] + nu * y[1] + y[2] * 0.05])
        if t.contains(ov)[0]:
            starts.append(ov)
    assert len(starts) >= 3
    steps = 3000
    Tinv = np.linalg.inv(t.T)
    Q = np.linalg.qr(rng.standard_normal((MODEL["d"], 4)))[0]  # R^4 into R^400, a random orthonormal frame
    model = {k: MODEL[k] for k in ("gamma", "L")}
    for ov in starts:
        ks, vs, k, v = (Q @ np.array([float(x) for x in row]) for row in realise(ov).tolist())
        tr = pgd(k, v, ks, vs, lam=0.01, alpha=ALPHA, steps=steps, every=steps, **model)
        y0 = np.linalg.norm(Tinv @ np.array([tr.theta[0], tr.eta[0], tr.rho[0]]))
        y1 = np.linalg.norm(Tinv @ np.array([tr.theta[-1], tr.eta[-1], tr.rho[-1]]))
        assert y1 <= t.q**steps * y0 * (1 + 1e-6) + 1e-13
        assert np.hypot(1 - tr.kappa[-1], 1 - tr.nu[-1]) < np.hypot(1 - tr.kappa[0], 1 - tr.nu[0])
    assert not t.contains(np.array([0.95, 0.95, 0.3, 0.0, 0.285]))[0]


def test_where_m_repels_no_tube_and_bad_input_is_named():
    """At lam = 1 the transverse block at the oracle has spectral radius above 1 at alpha = 4e-3 (the transverse map's
    finding): no tube, and the reason says so; at lam = 0.15 no corner closes; bad D and margin are ValueErrors."""
    t = oracle_tube(lam=1.0, alpha=ALPHA, **MODEL)
    assert not t.proved and "repels" in t.reason
    assert not largest_oracle_tube(lam=0.15, alpha=ALPHA, budget=500, **MODEL).proved
    with pytest.raises(ValueError, match="D must be"):
        oracle_tube(lam=0.01, alpha=ALPHA, D=((0.8, 0.99), (0.8, 1.0)), **MODEL)
    with pytest.raises(ValueError, match="margin"):
        oracle_tube(lam=0.01, alpha=ALPHA, D=((0.005, 1.0), (0.8, 1.0)), **MODEL)
    with pytest.raises(ValueError, match="alpha"):
        oracle_tube(lam=0.01, alpha=0.0, **MODEL)


def test_the_command_line_proves_a_tube_over_a_lam_interval_at_another_setting(capsys):
    """``certify oracle-tube`` at gamma^2 = 1.7, eps = 0.05, d = 150, L = 4 over lam in [0.02, 0.0202]: proved, with its
    JSON; the transverse block at the oracle, float64 at both ends (NumPy), has spectral radius below the tube's q; at
    lam = 0.3 nothing is proved (the exit code 1)."""
    import json

    from slr_verify.cli import main

    args = ["certify", "oracle-tube", "--gamma2", "1.7", "--eps", "0.05", "--d", "150", "--L", "4", "--lam", "0.02:0.0202",
            "--alpha", "4e-3", "--json"]
    assert main(args) == 0
    got = json.loads(capsys.readouterr().out)
    assert got["proved"] and got["lam"] == [0.02, 0.0202] and 0 < got["euclidean_entry"] <= got["entry"] <= got["radius"]
    for lam in got["lam"]:
        _, J = pgd_map(np.array([1.0, 1.0, 0, 0, 0]), (1,) * 5, alpha=4e-3, lam=lam, gamma=1.7**0.5, d=150, L=4)
        assert np.max(np.abs(np.linalg.eigvals(J[2:, 2:]))) < got["q"] < 1
    assert main(args[:-5] + ["--lam", "0.3", "--alpha", "4e-3"]) == 1  # g_kappa > 0 near the corner there: no progress
    assert capsys.readouterr().out.startswith("NOT PROVED: ")
    for bad, name in ((["--lam", "x"], "--lam"), (["--lam", "0.1:0.2:0.3"], "--lam"), (["--lam", "0.02", "--corners", "a"],
                                                                                           "--corners")):
        assert main(args[:-5] + bad + ["--alpha", "4e-3"]) == 2
        assert name in capsys.readouterr().err
