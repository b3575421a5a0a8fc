"""The step that matters off M (`docs/MATH.md` §10, §13): :func:`slr_verify.certify.alpha_stable` encloses lambda_max, the
largest eigenvalue of the Riemannian Hessian of R_lam at the oracle on S^{d-1} x S^{d-1}, and 2/lambda_max, the step
size below which the oracle is a linearly stable fixed point of PGD on the spheres (Definition 1). It is not
Proposition 10's alpha_max (reduced PGD on M), and at gamma^2 = 1.2, d = 600, L = 12, lam = 0.2 it is ten times smaller.

The reference is independent of the code under test: vectors in R^m (k* = e1, v* = e2), the sphere's exponential map,
Theorem 1's risk *value* in mpmath at 50 digits (:func:`slr_verify.kernels.generated.risk_kernel_mp`; the formula is
shared, and tested against Monte Carlo elsewhere), second derivatives along geodesics by ``mpmath.diff`` (finite
differences at raised precision), the Hessian by polarisation on an orthonormal basis of the whole tangent space, and
``mpmath.eigsy``. None of the chain rule, the chart, the committed ``grad_hess`` kernel, the block structure, the
2 x 2 closed form or the multiplicity argument enters it. For m = d (d = 4, 5, 6) that is the complete spectrum; for
large d the reference is realised in R^4 (e3, e4 standing for the d - 2 orthogonal directions, the rotation symmetry
fixing k* and v*), so it checks the largest eigenvalue but not the multiplicities.

A second reference is the dynamics: full-dimensional PGD in R^600 (float64 vectors,
:func:`slr_verify.dynamics.runners.pgd`) from a small perturbation of the oracle moves away from M at alpha = 1.05 x
2/lambda_max and towards it at 0.95 x 2/lambda_max.
"""
from __future__ import annotations

import math

import mpmath
import numpy as np
import pytest

from slr_verify.certify import alpha_stable
from slr_verify.kernels.generated import risk_kernel_mp

DPS = 50


def _reference_spectrum(lam, gamma2, d, L, m, dps=DPS):
    """The eigenvalues (mpmath, ascending) of the Riemannian Hessian of R_lam at (k*, v*) restricted to the tangent
    directions inside R^m (all of them when m = d), from finite differences of Theorem 1's risk along geodesics at
    ``dps`` digits."""
    R = risk_kernel_mp()
    with mpmath.workdps(dps):
        lam, gamma = mpmath.mpf(lam), mpmath.sqrt(mpmath.mpf(gamma2))
        e = lambda i: mpmath.matrix([int(j == i) for j in range(m)])  # noqa: E731
        ks, vs = e(0), e(1)
        # the product's tangent space: k along e_j (j != 0), v along e_j (j != 1)
        basis = [(e(j), 0 * e(0)) for j in range(m) if j != 0] + [(0 * e(0), e(j)) for j in range(m) if j != 1]

        def exp(x, w):
            n = mpmath.norm(w)
            return x if n == 0 else mpmath.cos(n) * x + mpmath.sin(n) * w / n

        def risk_along(uk, uv):
            def f(t):
                k, v = exp(ks, t * uk), exp(vs, t * uv)
                o = (k[0], v[1], v[0], k[1], sum(k[i] * v[i] for i in range(m)))
                return R(*o, lam, gamma, 0, d, L)
            return mpmath.diff(f, 0, 2)  # the second derivative along a geodesic of the product: Hess[u, u]

        n = len(basis)
        Q = [risk_along(*basis[i]) for i in range(n)]
        H = mpmath.matrix(n, n)
        for i in range(n):
            H[i, i] = Q[i]
            for j in range(i + 1, n):
                q = risk_along(basis[i][0] + basis[j][0], basis[i][1] + basis[j][1])
                H[i, j] = H[j, i] = (q - Q[i] - Q[j]) / 2
        return sorted(mpmath.eigsy(H, eigvals_only=True))


def _inside(x, enc):
    lo, hi = enc
    return lo <= x <= hi


@pytest.mark.parametrize("lam, gamma2, d, L", [(0.01, 0.5, 4, 10), pytest.param(0.5, 1.2, 6, 3, marks=pytest.mark.slow),
                                               pytest.param(2.0, 0.5, 5, 2, marks=pytest.mark.slow)])
def test_enclosure_holds_the_whole_spectrum_in_full_dimension(lam, gamma2, d, L):
    """At d = 4, 5, 6 the reference is the whole 2(d - 1)-dimensional Hessian: every eigenvalue, with multiplicity
    (B's two, |g_kappa| and |g_nu| d - 2 times each), lies in its enclosure; lambda_max and 2/lambda_max too."""
    r = alpha_stable(lam=lam, gamma2=gamma2, d=d, L=L)
    ref = _reference_spectrum(lam, gamma2, d, L, m=d)
    assert len(ref) == 2 * (d - 1) == sum(v["multiplicity"] for v in r["eigenvalues"].values())
    encs = sorted((v["enclosure"] for v in r["eigenvalues"].values() for _ in range(v["multiplicity"])), key=sum)
    assert all(_inside(x, enc) for x, enc in zip(ref, encs)), (ref, encs)
    assert _inside(ref[-1], r["lambda_max"]) and _inside(ref[0], r["lambda_min"])
    assert _inside(2 / ref[-1], r["alpha_stable"])
    assert r["minimum"] is (ref[0] > 0)


@pytest.mark.parametrize("lam, gamma2, d, L", [(0.2, 1.2, 600, 12), (0.1, 0.5, 400, 10), (0.01, 0.5, 10**6, 10),
                                               *(pytest.param(*p, marks=pytest.mark.slow) for p in
                                                 [(0.2, 0.5, 400, 10), (2.0, 0.5, 10**6, 10), (0.5, 2.0, 1000, 50)])])
def test_lambda_max_against_mpmath_at_large_d(lam, gamma2, d, L):
    """lam from 0.01 to 2, d up to 1e6: the reference's largest eigenvalue (realised in R^4) in the enclosure, and its
    2/lambda_max in the enclosure of alpha_stable; the enclosures are narrow (relative width < 1e-12)."""
    r = alpha_stable(lam=lam, gamma2=gamma2, d=d, L=L)
    top = _reference_spectrum(lam, gamma2, d, L, m=4)[-1]
    assert _inside(top, r["lambda_max"]) and _inside(2 / top, r["alpha_stable"])
    lo, hi = r["alpha_stable"]
    assert 0 < lo <= hi and (hi - lo) / lo < 1e-12


def test_the_two_step_sizes_differ_tenfold():
    """gamma^2 = 1.2, d = 600, L = 12, lam = 0.2: 2/lambda_max = 0.0025259 (lambda_max = 791.78), while Proposition 10's
    alpha_max (reduced PGD on M: det J of the reduced map > 0 on a 201^2 grid of [-1, 1]^2 at alpha = 0.0268, < 0
    somewhere at 0.0272; certified in [0.026870, 0.027142] by the slow CLI test) is ten times larger. Each is labelled
    with the dynamics it is for."""
    from slr_verify.dynamics import fixed_points as F

    r = alpha_stable(lam=0.2, gamma2=1.2, d=600, L=12)
    assert 0.0025259 < r["alpha_stable"][0] <= r["alpha_stable"][1] < 0.0025260
    assert 791.78 < r["lambda_max"][0] <= r["lambda_max"][1] < 791.79
    assert r["minimum"] is True
    k, v = np.meshgrid(np.linspace(-1, 1, 201), np.linspace(-1, 1, 201))
    det = lambda a: F.det_jacobian(k, v, lam=0.2, gamma=math.sqrt(1.2), d=600, L=12, alpha=a)  # noqa: E731
    assert det(0.0268).min() > 0 > det(0.0272).min()  # alpha_max in (0.0268, 0.0272) on the grid
    assert 0.0268 > 10 * r["alpha_stable"][1]
    assert r["dynamics"]["alpha_max"].startswith("reduced PGD on M")
    assert r["dynamics"]["alpha_stable"].startswith("PGD on the spheres (Definition 1)")


def _distance_to_M_after(alpha, steps, seed=0):
    """Full-dimensional PGD in R^600 (gamma^2 = 1.2, L = 12, lam = 0.2) from (k*, v*) moved by 1e-7 in a random tangent direction
    (seeded): sqrt(theta^2 + eta^2 + rho^2) at the start and after ``steps``."""
    from slr_verify.dynamics.runners import pgd

    d = 600
    rng = np.random.default_rng(seed)
    ks, vs = np.eye(d)[0], np.eye(d)[1]
    k0, v0 = ks + 1e-7 * rng.standard_normal(d), vs + 1e-7 * rng.standard_normal(d)
    k0, v0 = k0 / np.linalg.norm(k0), v0 / np.linalg.norm(v0)
    tr = pgd(k0, v0, ks, vs, lam=0.2, gamma=math.sqrt(1.2), L=12, alpha=alpha, steps=steps)
    dist = np.sqrt(np.asarray(tr["theta"]) ** 2 + np.asarray(tr["eta"]) ** 2 + np.asarray(tr["rho"]) ** 2)
    return float(dist[0]), float(dist[-1])


def test_the_threshold_is_the_one_pgd_on_the_spheres_sees():
    """At 1.05 x 2/lambda_max PGD on the vectors leaves the oracle (the distance to M grows by a factor > 1e3 in 150
    steps, the eigenvalue 1 - alpha lambda_max = -1.1 of the step's derivative); at 0.95 x it returns (factor < 0.5),
    though both are far below Proposition 10's alpha_max = 0.027."""
    a = alpha_stable(lam=0.2, gamma2=1.2, d=600, L=12)["alpha_stable"][0]
    start, above = _distance_to_M_after(1.05 * a, 150)
    _, below = _distance_to_M_after(0.95 * a, 150)
    assert above > 1e3 * start and below < 0.5 * start, (start, above, below)


@pytest.mark.slow
def test_tiny_lam_raises_the_precision():
    """lam = 1e-30: B's entries cancel down to ~lam^2 d, below 128 bits' reach; the precision is doubled until
    2/lambda_max is enclosed to 1e-9, and the enclosure holds the reference computed at 100 digits."""
    r = alpha_stable(lam=1e-30, gamma2=0.5, d=400, L=10)
    assert r["prec"] > 128
    top = _reference_spectrum(1e-30, 0.5, 400, 10, m=4, dps=100)[-1]
    assert _inside(top, r["lambda_max"]) and _inside(2 / top, r["alpha_stable"])


@pytest.mark.parametrize("kw, name", [(dict(lam=float("nan")), "lam"), (dict(lam=-0.1), "lam"), (dict(d=1), "d"),
                                      (dict(d=2.5), "d"), (dict(L=0), "L"), (dict(gamma2=-1.0), "gamma"),
                                      (dict(prec=10), "prec"), (dict(alpha=0.1), "alpha")])
def test_bad_input_names_the_parameter(kw, name):
    p = dict(lam=0.2, gamma2=1.2, d=600, L=12)
    p.update(kw)
    with pytest.raises(ValueError, match=name):
        alpha_stable(**p)


@pytest.mark.slow
def test_cli_step_size_prints_both_with_their_dynamics(tmp_path, capsys):
    """`slr-verify certify step-size` at gamma^2 = 1.2, d = 600, L = 12, lam = 0.2: Proposition 10's certified bracket
    of alpha_max (in [0.02687, 0.02715]) labelled 'reduced PGD on M', and 2/lambda_max (the enclosure of
    :func:`alpha_stable`) labelled 'PGD on the spheres (Definition 1)'."""
    from slr_verify.cli import main

    argv = ["certify", "step-size", "--gamma2", "1.2", "--eps", "0", "--d", "600", "--L", "12", "--lam", "0.2",
            "--out", str(tmp_path / "s.json.gz"), "--quiet"]
    assert main(argv) == 0
    out = capsys.readouterr().out
    line_max = next(x for x in out.splitlines() if x.startswith("alpha_max (Proposition 10) in ["))
    line_st = next(x for x in out.splitlines() if x.startswith("2/lambda_max in ["))
    assert "reduced PGD on M" in line_max and "PGD on the spheres (Definition 1)" in line_st
    lo, hi = (float(x) for x in line_max.split("[")[1].split("]")[0].split(","))
    assert 0.02687 < lo < hi < 0.02715
    a = alpha_stable(lam=0.2, gamma2=1.2, d=600, L=12)["alpha_stable"]
    assert f"[{a[0]!r}, {a[1]!r}]" in line_st
