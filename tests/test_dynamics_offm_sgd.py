"""Off-M stationary points, SGD, fast step kernels.

Expected values come from independent routes: the generated closed-form kernels (not the
monomial form), mpmath, finite differences of a batch loss, Monte Carlo bounds (4.5 SE).
"""
import os

import numpy as np
import pytest
from paper import P4B as P

from slr_verify.dynamics import family_search, pgd, reduced_pgd
from slr_verify.dynamics.sgd import batch_gradient, sgd, sphere_step
from slr_verify.kernels import generated as G
from slr_verify.kernels import steps as PK
from slr_verify.model.overlaps import Overlaps
from slr_verify.model.sampling import draw_problem, sample_slr
from slr_verify.model.settings import FIGURES


def test_monomial_gradient_matches_closed_form_kernel():
    rng = np.random.default_rng(0)
    k, v, ks, vs = draw_problem(rng, 20, 400, False)
    ov = np.array(Overlaps.from_vectors(k, v, ks, vs))
    ov[0] = np.linspace(-1, 1, 20) * 0.9
    gk = PK.gradient_poly_kernel()
    for lam in (0.1, 0.9, 2.0):
        C_, ac = gk.coefficients(lam, P["gamma"], 400, 10)
        got = gk(ov, C_, ac)
        ref = np.array(G.risk_and_gradient_kernel()(*ov, lam, P["gamma"], 0.0, 400, 10)[1:])
        assert np.max(np.abs(got - ref)) <= 1e-12 * max(1.0, np.max(np.abs(ref)))


def test_reduced_runner_small_and_large_batch_paths_agree():
    rng = np.random.default_rng(1)
    k0, n0 = rng.uniform(-1, 1, (2, 1200))
    p = dict(P, alpha=4e-3, steps=500, every=100)
    big = reduced_pgd(k0, n0, **p)  # hoisted closed-form kernel
    small = reduced_pgd(k0[:50], n0[:50], **p)  # monomial kernel
    assert np.max(np.abs(big.kappa[:, :50] - small.kappa)) < 1e-11
    assert np.max(np.abs(big.nu[:, :50] - small.nu)) < 1e-11


def test_off_M_point_is_stationary_and_a_local_minimum():
    end = np.array([[0.0, 0.0, 0.63, 1.0, 0.0], [0.0, 0.0, -0.63, -1.0, 0.0]])
    pts = family_search.find_stationary_points_off_M(end, **P)
    assert len(pts) == 2
    for q in pts:
        rf = q["refined"]
        assert max(abs(rf["partials"][i]) for i in (0, 1, 2, 4)) < 1e-40
        assert abs(float(rf["theta"]) - q["overlaps"][2]) < 1e-9
        # independent: R_theta = 0 from the float64 closed-form kernel, bracketed by sign change
        R = G.risk_and_gradient_kernel()
        th = float(rf["theta"])
        e = float(rf["eta"])
        lo, hi = (R(0, 0, th - 1e-9, e, 0, P["lam"], P["gamma"], 0, 400, 10)[3],
                  R(0, 0, th + 1e-9, e, 0, P["lam"], P["gamma"], 0, 400, 10)[3])
        assert lo * hi < 0
    c = family_search.finite_difference_spectrum(float(pts[0]["refined"]["theta"]), 1.0, alpha=4e-3, **P)
    assert c["kind"] == "minimum" and c["n_flat"] == 3 and c["unstable_directions"] == 0
    assert np.max(np.abs(c["jacobian_eigenvalues"] - c["predicted_jacobian"])) < 1e-5


def test_sphere_step_is_definition_1():
    """One projected step: unit norm, and for a small alpha the displacement is -alpha times the
    tangent component of g (first order; checked against the explicit projector I - x x^T)."""
    rng = np.random.default_rng(5)
    x = rng.standard_normal((4, 7))
    x /= np.linalg.norm(x, axis=-1, keepdims=True)
    g = rng.standard_normal((4, 7))
    y = sphere_step(x, g, 1e-6)
    assert np.max(np.abs(np.linalg.norm(y, axis=-1) - 1)) < 1e-15
    for i in range(4):
        tangent = (np.eye(7) - np.outer(x[i], x[i])) @ g[i]
        assert np.max(np.abs((y[i] - x[i]) / 1e-6 + tangent)) < 1e-5


@pytest.mark.slow  # 1.9 s of Monte Carlo; the expected tangent gradient's test stays
def test_sgd_step_is_pgd_step_in_expectation():
    """An SGD step from one point, averaged over 4000 independent batch streams, moves the
    overlaps as one exact PGD step does (Theorem 1's gradient, the full runner), within 4.5 standard
    errors per overlap: the sampled batch gradient is unbiased and the step projects it as
    Definition 1 says."""
    rng = np.random.default_rng(6)
    d, L, runs, alpha = 10, 3, 4000, 1e-2
    k, v, ks, vs = (x[0] for x in draw_problem(rng, 1, d, False))
    rep = lambda x: np.repeat(x[None], runs, 0)
    p = dict(lam=0.7, gamma=0.8, L=L, alpha=alpha, steps=1)
    tr = sgd(rep(k), rep(v), rep(ks), rep(vs), eps=0.1, batch=5, seed=3, **p)
    ref = pgd(k, v, ks, vs, **p)
    for f in ("kappa", "nu", "theta", "eta", "rho"):
        delta = tr[f][1] - tr[f][0]
        z = (delta.mean() - (ref[f][1] - ref[f][0])) / (delta.std(ddof=1) / np.sqrt(runs))
        assert abs(z) < 4.5, (f, z)


def test_sgd_expected_tangent_gradient_matches_exact():
    """Mean of per-sample loss gradients (batch 1) vs Theorem 1's gradient (chain rule), tangent
    components (the Euclidean gradient of the sampled loss also has a radial part that Theorem 1,
    defined on the spheres, does not see), within 4.5 SE per component."""
    rng = np.random.default_rng(0)
    d, L, g, eps, lam = 80, 10, float(np.sqrt(0.5)), 0.1, 1.5
    k, v, ks, vs = (x[0] for x in draw_problem(rng, 1, d, False))
    k = 0.6 * ks + 0.8 * (k - (k @ ks) * ks) / np.linalg.norm(k - (k @ ks) * ks)
    v = (0.5 * vs + v) / np.linalg.norm(0.5 * vs + v)
    n = 20000
    X, _, Y = sample_slr(ks, vs, gamma=g, eps=eps, L=L, n=n, seed=1)
    gk, gv = batch_gradient(k, v, X[:, None], Y[:, None], lam)
    R = G.risk_and_gradient_kernel()(k @ ks, v @ vs, v @ ks, k @ vs, k @ v, lam, g, eps, d, L)
    Rk, Rn, Rt, Re, Rr = R[1:]
    for got, exact, x in ((gk, Rk * ks + Re * vs + Rr * v, k), (gv, Rn * vs + Rt * ks + Rr * k, v)):
        Pm = np.eye(d) - np.outer(x, x)
        t = got @ Pm
        z = (t.mean(0) - Pm @ exact) / (t.std(0, ddof=1) / np.sqrt(n))
        assert np.max(np.abs(z)) < 4.5


def test_batch_gradient_finite_differences():
    rng = np.random.default_rng(2)
    d, L = 12, 4
    k, v, ks, vs = (x[0] for x in draw_problem(rng, 1, d, False))
    X, _, Y = sample_slr(ks, vs, gamma=0.7, eps=0.1, L=L, n=5, seed=3)
    from scipy.special import erf

    loss = lambda kk, vv: np.mean((Y - np.sum(erf(0.8 * (X @ kk)) * (X @ vv), -1)) ** 2)
    gk, gv = batch_gradient(k, v, X, Y, 0.8)
    h = 1e-6
    for i in range(d):
        e = np.eye(d)[i] * h
        assert abs((loss(k + e, v) - loss(k - e, v)) / (2 * h) - gk[i]) < 1e-6 * (1 + abs(gk[i]))
        assert abs((loss(k, v + e) - loss(k, v - e)) / (2 * h) - gv[i]) < 1e-6 * (1 + abs(gv[i]))


def test_sgd_short_run_reduces_risk_and_validates():
    rng = np.random.default_rng(4)
    k, v, ks, vs = draw_problem(rng, 3, 80, False)
    # start partly aligned (kappa = 0.6, v tilted towards v*): the risk there is ~40 (Theorem 1)
    w = v - np.sum(v * ks, -1, keepdims=True) * ks
    k = 0.6 * ks + 0.8 * w / np.linalg.norm(w, axis=-1, keepdims=True)
    v = 0.5 * vs + v
    v /= np.linalg.norm(v, axis=-1, keepdims=True)
    tr = sgd(k, v, ks, vs, lam=FIGURES["5"].lam, gamma=float(np.sqrt(0.5)), eps=0.1, L=10, alpha=1e-3,
             steps=1000, batch=5, seed=0, every=500, block=500)
    assert tr.risk.shape == (3, 3)
    assert np.all(tr.risk[-1] < 0.5 * tr.risk[0])
    with pytest.raises(ValueError, match="batch"):
        sgd(k[0], v[0], ks[0], vs[0], lam=1.0, gamma=0.7, eps=0.1, L=10, alpha=1e-3, steps=2, batch=0, seed=0)
    with pytest.raises(ValueError, match="seed"):
        sgd(k[0], v[0], ks[0], vs[0], lam=1.0, gamma=0.7, eps=0.1, L=10, alpha=1e-3, steps=2, batch=1, seed=1.5)
    with pytest.raises(ValueError, match="alpha"):
        sgd(k[0], v[0], ks[0], vs[0], lam=1.0, gamma=0.7, eps=0.1, L=10, alpha=-1, steps=2, batch=1, seed=0)


def test_cli_figure5_writes_npz(tmp_path):
    from slr_verify.cli import main

    out = tmp_path / "f5.npz"
    assert main(["pgd", "--figure", "5", "--repeats", "2", "--steps", "200", "--out", str(out), "--quiet"]) == 0
    data = np.load(out)
    assert data["kappa"].shape[1] == 2
    umask = os.umask(0)
    os.umask(umask)
    assert (out.stat().st_mode & 0o777) == (0o666 & ~umask)


def test_cli_pgd_checks_out_before_computing(tmp_path, capsys):
    import time

    from slr_verify.cli import main

    t0 = time.perf_counter()
    assert main(["pgd", "--figure", "4b", "--out", str(tmp_path / "missing" / "x.npz")]) == 2
    assert main(["pgd", "--figure", "4b", "--out", str(tmp_path)]) == 2
    assert time.perf_counter() - t0 < 5
    err = capsys.readouterr().err
    assert "does not exist" in err and "is a directory" in err


@pytest.mark.parametrize("argv", [["pgd", "--figure", "4b", "--repeats", "0"], ["pgd", "--figure", "9"],
                                  ["pgd", "--figure", "4b", "--steps", "x"], ["check", "--only"], ["nonsense"]])
def test_cli_bad_values_exit_2_one_line(argv, capsys):
    from slr_verify.cli import main

    with pytest.raises(SystemExit) as e:
        main(argv)
    assert e.value.code == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert err[-1].startswith("slr-verify") and "Traceback" not in "".join(err)
