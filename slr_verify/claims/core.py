"""Claims of the paper on the risk (SPEC 2-7), each checked by independent routes.

Every check returns ``{"statement", "routes", "worst_error", "worst_z", "verdict", "details"}``:
``worst_error`` is the largest relative error between an exact route and the float64 kernels
(or 0.0 for a SymPy identity), ``worst_z`` the largest |z| of a Monte Carlo comparison.

Tolerances (justified in the docstrings of the checks):

* ``EXACT_RTOL = 1e-12``: kernels vs mpmath quadrature at 20+ digits. The kernels are float64
  evaluations of closed forms whose terms are O(1); measured errors are ~1e-15, so 1e-12
  leaves room for conditioning but catches any wrong constant, sign or factor (1 + 1e-6).
* ``Z_MAX = 4.5``: Monte Carlo estimate vs closed form in standard errors (two-sided
  false-alarm probability 7e-6 per comparison).
"""
from __future__ import annotations

import math

import mpmath
import numpy as np
import sympy as sp

from .. import routes
from ..kernels import api, special
from ..routes import montecarlo as mc
from ..symbolic import linear as slin
from ..symbolic import risk as srisk
from ..symbolic.zeta import zeta_at_zero

EXACT_RTOL = 1e-12
Z_MAX = 4.5

__all__ = [
    "EXACT_RTOL",
    "Z_MAX",
    "random_overlaps",
    "check_zeta",
    "check_theorem1",
    "check_oracle_risk",
    "check_law_of_J0",
    "check_lemma6",
    "check_corollary2",
    "check_proposition3",
]


def _result(statement, routes_, worst_error, worst_z, ok, details):
    return {
        "statement": statement,
        "routes": routes_,
        "worst_error": float(worst_error),
        "worst_z": None if worst_z is None else float(worst_z),
        "verdict": "pass" if ok else "fail",
        "details": details,
    }


def _rel(a, b):
    b = float(b)
    return abs(float(a) - b) / abs(b) if b else abs(float(a))


def random_overlaps(rng, n):
    """n realisable overlap tuples from random unit k, v in R^4 (k* = e1, v* = e2)."""
    k = rng.standard_normal((n, 4))
    v = rng.standard_normal((n, 4))
    k /= np.linalg.norm(k, axis=1, keepdims=True)
    v /= np.linalg.norm(v, axis=1, keepdims=True)
    return [(k[i, 0], v[i, 1], v[i, 0], k[i, 1], float(k[i] @ v[i])) for i in range(n)]


def random_params(rng):
    return dict(
        lam=float(rng.uniform(0.05, 2.0)),
        gamma=float(rng.uniform(0.2, 1.5)),
        eps=float(rng.uniform(0.0, 0.5)),
        d=int(rng.integers(4, 2000)),
        L=int(rng.integers(1, 30)),
    )


# --------------------------------------------------------------------------- zeta (SPEC 4)
def check_zeta(thorough=False):
    """zeta: float64 kernel vs the 60-digit Owen-T closed form on a grid (t in [-1e3, 1e3],
    g in [1e-12, 1e3]); the closed form vs direct quadrature over Z; zeta_g(0) = arcsin form."""
    nt, ng = (40, 30) if thorough else (12, 10)
    t = np.concatenate([[0.0], np.geomspace(1e-6, 1e3, nt), -np.geomspace(1e-2, 1e3, 3)])
    g = np.geomspace(1e-12, 1e3, ng)
    worst_kernel = 0.0
    for gi in g:
        ref = np.array([float(special.zeta_mp(ti, gi, dps=60)) for ti in t])
        worst_kernel = max(worst_kernel, float(np.max(np.abs(api.zeta(t, gi) - ref) / ref)))
    worst_route = 0.0
    for ti, gi in [(0.0, 1e-12), (0.7, 0.05), (2.5, 1.0), (-4.0, 0.2), (30.0, 10.0), (0.01, 1e3)]:
        worst_route = max(worst_route, _rel(special.zeta_mp(ti, gi, dps=40), routes.quad_zeta(ti, gi, dps=30)))
    with mpmath.workdps(40):
        worst_zero = max(
            _rel(api.zeta(0.0, gi), 2 / mpmath.pi * mpmath.asin(2 * mpmath.mpf(gi) ** 2 / (1 + 2 * mpmath.mpf(gi) ** 2))) for gi in g
        )
    ok = worst_kernel < 1e-13 and worst_route < 1e-20 and worst_zero < 1e-14
    return _result(
        "zeta_g(t) = E erf(t+gZ)^2: closed form via Owen's T, float64 kernel to full relative accuracy",
        ["float64 kernel vs 60-digit mpmath closed form", "closed form vs mpmath quadrature over Z", "zeta_g(0) arcsin identity"],
        max(worst_kernel, worst_zero),
        None,
        ok,
        {"grid": f"{t.size} t x {g.size} g", "kernel_vs_mpmath": worst_kernel, "closed_form_vs_quadrature": worst_route,
         "zero_identity": worst_zero},
    )


# --------------------------------------------------------------------------- Theorem 1
def check_theorem1(thorough=False, seed=1):
    """Theorem 1: generated risk and gradient vs mpmath quadrature of the definition (no
    erf/zeta identities) at random realisable points; Monte Carlo of the real model (d-free
    sampler at those points, full-dimensional sampler at d = 20)."""
    rng = np.random.default_rng(seed)
    npts = 100 if thorough else 10
    ngrad = 100 if thorough else 4
    nmc = 12 if thorough else 4
    n_samples = 2_000_000 if thorough else 200_000
    pts = random_overlaps(rng, npts)
    prs = [random_params(rng) for _ in range(npts)]
    worst_r = worst_g = worst_z = 0.0
    for i, (ov, pr) in enumerate(zip(pts, prs)):
        worst_r = max(worst_r, _rel(api.risk(*ov, **pr), routes.quad_risk(*ov, **pr, dps=20)))
        if i < ngrad:
            q = routes.quad_risk_gradient(*ov, **pr, dps=20)
            g = api.risk_gradient(*ov, **pr)
            scale = max(abs(float(x)) for x in q.values())
            worst_g = max(worst_g, max(abs(g[n] - float(q[n])) / scale for n in g))
        if i < nmc:
            est, se = mc.mc_risk_overlaps(*ov, **pr, n=n_samples, seed=seed + i)
            worst_z = max(worst_z, abs(est - api.risk(*ov, **pr)) / se)
    # full-dimensional simulation of the model at d = 20
    d = 20
    ks, vs = mc.random_instance(d, seed)
    k, v = mc.random_unit(d, seed + 1), mc.random_unit(d, seed + 2)
    pr = dict(lam=0.6, gamma=0.7071067811865476, eps=0.1, L=5)
    est, se = mc.mc_risk(k, v, ks, vs, **pr, n=n_samples // 4, seed=seed)
    ov = (k @ ks, v @ vs, v @ ks, k @ vs, k @ v)
    z_full = abs(est - api.risk(*ov, **pr, d=d)) / se
    worst_z = max(worst_z, z_full)
    ok = worst_r < EXACT_RTOL and worst_g < EXACT_RTOL and worst_z < Z_MAX
    return _result(
        "R_lam(k, v) = Rt(kappa, nu, theta, eta, rho; lam, gamma, eps, d, L), derived by SymPy",
        ["SymPy (Gaussian-expectation engine) -> float64 kernels", "mpmath quadrature of the definition",
         "Monte Carlo (d-free and full-dimensional)"],
        max(worst_r, worst_g),
        worst_z,
        ok,
        {"points": npts, "risk_rel_err": worst_r, "gradient_rel_err": worst_g, "gradient_points": ngrad,
         "mc_points": nmc + 1, "mc_samples": n_samples, "z_full_dimension": z_full},
    )


def check_oracle_risk(thorough=False, seed=2):
    """SPEC 5: SymPy shows Theorem 1 at (k*, v*) equals the printed oracle formula; the
    kernel (complement form) vs mpmath quadrature; Monte Carlo with the oracle predictor."""
    exact = sp.simplify(srisk.theorem1_risk().subs(srisk.oracle_point()) - srisk.oracle_risk_spec()) == 0
    rng = np.random.default_rng(seed)
    worst = worst_z = 0.0
    n = 1_000_000 if thorough else 200_000
    for i in range(8 if thorough else 3):
        pr = random_params(rng)
        worst = max(worst, _rel(api.oracle_risk(**pr), routes.quad_oracle_risk(**pr, dps=20)))
        est, se = mc.mc_risk_overlaps(1, 1, 0, 0, 0, **pr, n=n, seed=seed + i, predictor="oracle")
        worst_z = max(worst_z, abs(est - api.oracle_risk(**pr)) / se)
    ok = exact and worst < EXACT_RTOL and worst_z < Z_MAX
    return _result(
        "R_lam(k*, v*) = eps^2 + gamma^2[1 - 2 erf(.) + zeta_{lam gamma}(lam sqrt(d/2))] + (L-1) zeta_lam(0)",
        ["SymPy identity (Theorem 1 at the oracle)", "mpmath quadrature", "Monte Carlo (oracle predictor)"],
        worst, worst_z, ok, {"sympy_identity": exact, "mc_samples": n},
    )


def check_law_of_J0(thorough=False, seed=3):
    """SPEC 2: the risk does not depend on the law of J0 — SymPy (conditional risks equal for
    every location, L <= 4) and Monte Carlo under skewed and point-mass laws."""
    exact = all(
        sp.simplify(srisk.risk_given_location(j, L) - srisk.theorem1_risk().subs(srisk.S.L, L)) == 0
        for L in (1, 2, 3) for j in range(L)
    )
    rng = np.random.default_rng(seed)
    (ov,) = random_overlaps(rng, 1)
    pr = dict(lam=0.8, gamma=0.7071067811865476, eps=0.2, d=50, L=4)
    ref = api.risk(*ov, **pr)
    n = 1_000_000 if thorough else 200_000
    worst_z = 0.0
    for i, p in enumerate(([0.7, 0.1, 0.1, 0.1], [0, 0, 1.0, 0], [0.25] * 4)):
        est, se = mc.mc_risk_overlaps(*ov, **pr, n=n, seed=seed + i, p=p)
        worst_z = max(worst_z, abs(est - ref) / se)
    return _result(
        "R_lam(k, v) does not depend on the law p of J0",
        ["SymPy (conditional risk per location, L <= 3)", "Monte Carlo (skewed, point-mass, uniform p)"],
        0.0, worst_z, exact and worst_z < Z_MAX, {"sympy_identity": exact, "mc_samples": n},
    )


def check_lemma6(thorough=False, seed=4):
    """Lemma 6: on M the risk is SPEC 9's function of (kappa, nu) — SymPy identity, kernel vs
    quadrature, Monte Carlo."""
    exact = sp.simplify(srisk.theorem1_risk().subs(srisk.manifold_point()) - srisk.lemma6_spec()) == 0
    rng = np.random.default_rng(seed)
    worst = worst_z = 0.0
    n = 1_000_000 if thorough else 200_000
    for i in range(10 if thorough else 3):
        kappa, nu = rng.uniform(-1, 1, 2)
        pr = random_params(rng)
        worst = max(worst, _rel(api.manifold_risk(kappa, nu, **pr), routes.quad_manifold_risk(kappa, nu, **pr, dps=20)))
        est, se = mc.mc_risk_overlaps(kappa, nu, 0, 0, 0, **pr, n=n, seed=seed + i)
        worst_z = max(worst_z, abs(est - api.manifold_risk(kappa, nu, **pr)) / se)
    return _result(
        "On M = {theta = eta = rho = 0}, R depends on (kappa, nu) only (SPEC 9 formula)",
        ["SymPy identity (Theorem 1 on M)", "mpmath quadrature", "Monte Carlo"],
        worst, worst_z, exact and worst < EXACT_RTOL and worst_z < Z_MAX, {"sympy_identity": exact, "mc_samples": n},
    )


# --------------------------------------------------------------------------- Corollary 2
def corollary2_symbolic():
    """Leading orders along lam = d^-a, L = d^b, by SymPy: zeta_lam(0) ~ (4/pi) lam^2, so the
    null-token part (L - 1) zeta_lam(0) ~ (4/pi) d^(b - 2a) -> 0 iff b < 2a; the relevant part
    gamma^2 E erfc(A + lam gamma Z)^2 <= gamma^2 erfc(A/sqrt(1+2 lam^2 gamma^2))^2 + Var erf
    tends to 0 as A = lam sqrt(d/2) -> infinity (lam -> 0 so Var erf -> 0)."""
    lam, a, b, d = sp.symbols("lambda a b d", positive=True)
    null_lead = sp.limit(zeta_at_zero(lam) / lam**2, lam, 0)
    A = sp.Symbol("A", positive=True)
    relevant_limit = sp.limit(sp.erfc(A) ** 2, A, sp.oo)
    var_limit = sp.limit(zeta_at_zero(lam), lam, 0)
    exponent = sp.simplify(sp.log(d**b * d ** (-2 * a)) / sp.log(d))
    return {"zeta0_over_lam2": null_lead, "erfc2_limit": relevant_limit, "zeta0_limit": var_limit, "null_exponent": exponent}


def check_corollary2(thorough=False):
    """Corollary 2: along lam = d^-a, L = d^b (0 < a < 1/2, 0 <= b < 2a) the Bayes gap -> 0; the
    kernel keeps full relative accuracy up to d = 1e12 (vs mpmath quadrature, log domain);
    counter-cases where a condition fails keep a gap bounded away from 0."""
    sym = corollary2_symbolic()
    sym_ok = sym["zeta0_over_lam2"] == 4 / sp.pi and sym["erfc2_limit"] == 0 and sym["zeta0_limit"] == 0
    gamma = 0.7071067811865476
    ds = np.logspace(2, 12, 11 if thorough else 6)
    worst = 0.0
    sequences = {}
    for a, b in [(0.25, 0.0), (0.4, 0.5), (0.1, 0.1), (0.45, 0.0)]:
        logs = []
        for d in ds:
            lam, L = d ** (-a), max(1, int(round(d**b)))
            lg = api.log_bayes_gap(lam=lam, gamma=gamma, eps=0.0, d=d, L=L)
            with mpmath.workdps(30):
                ref = routes.quad_bayes_gap(lam=lam, gamma=gamma, eps=0.0, d=d, L=L, dps=20)
                worst = max(worst, abs(lg - float(mpmath.log(ref))) / max(1.0, abs(float(mpmath.log(ref)))))
            logs.append(lg)
        sequences[f"a={a},b={b}"] = logs
    # Vanishing: decreasing over the last three d, with a log-log slope at least half the
    # predicted null-token exponent 2a - b (the relevant-token part decays faster than any power).
    slopes = {k: (v[-1] - v[-3]) / math.log(ds[-1] / ds[-3]) for k, v in sequences.items()}
    vanish = all(
        np.all(np.diff(v[-3:]) < 0) and slopes[k] < -0.5 * (2 * a - b)
        for (k, v), (a, b) in zip(sequences.items(), [(0.25, 0.0), (0.4, 0.5), (0.1, 0.1), (0.45, 0.0)])
    )
    # counter-cases at d = 1e12: lam sqrt(d) bounded (lam = 2/sqrt(d)); lam sqrt(L) = 1 (L = d^(2a))
    d = 1e12
    c1 = api.bayes_gap(lam=2 / math.sqrt(d), gamma=gamma, eps=0.0, d=d, L=1)
    lam = d**-0.25
    c2 = api.bayes_gap(lam=lam, gamma=gamma, eps=0.0, d=d, L=int(d**0.5))
    counter = c1 > 1e-3 and c2 > 1.0
    ok = sym_ok and vanish and counter and worst < 1e-12
    return _result(
        "lam -> 0, lam sqrt(d) -> inf, lam sqrt(L) -> 0 imply R_lam(k*, v*) -> eps^2",
        ["SymPy leading orders", "float64 log-domain kernel vs mpmath quadrature up to d = 1e12", "counter-cases"],
        worst, None, ok,
        {"symbolic": {k: str(v) for k, v in sym.items()}, "log_gap_at_d": {k: [float(x) for x in v] for k, v in sequences.items()},
         "d": [float(x) for x in ds], "log_log_slopes": slopes, "counter_lam_sqrt_d_bounded": c1, "counter_lam_sqrt_L_one": c2},
    )


# --------------------------------------------------------------------------- Proposition 3
def check_proposition3(thorough=False, seed=5):
    """Proposition 3: SymPy (full normal equations for L = 3, uniform form, L -> infinity);
    Monte Carlo: least squares fitted on samples with a non-uniform p, and the Proposition 3
    predictor's empirical risk, vs the closed form."""
    S = srisk.S
    q1, q2 = sp.symbols("q1 q2", positive=True)
    probs = [q1, q2, 1 - q1 - q2]
    _, full = slin.solve_full_system(probs)
    block = slin.linear_risk_expr().subs(S.L, 3).doit().subs({slin.p[i]: probs[i] for i in range(3)})
    uni = slin.linear_risk_uniform()
    exact = (
        sp.simplify(full - block) == 0
        and sp.simplify(uni - (S.eps**2 + S.gamma**2 * (S.L - 1) / (S.L - 1 + S.gamma**2))) == 0
        and sp.simplify(sp.limit(uni, S.L, sp.oo) - S.eps**2 - S.gamma**2) == 0
    )
    p = [0.6, 0.3, 0.1]
    gamma, eps, L, d = 0.7071067811865476, 0.1, 3, 6
    ref = api.linear_risk(gamma=gamma, eps=eps, L=L, p=p)
    ks, vs = mc.random_instance(d, seed)
    n = 400_000 if thorough else 100_000
    est, se = mc.mc_risk(None, None, ks, vs, lam=1.0, gamma=gamma, eps=eps, L=L, n=n, seed=seed, p=p, predictor="linear")
    z_pred = abs(est - ref) / se
    fit = mc.fit_linear_risk(ks, vs, gamma=gamma, eps=eps, L=L, n_train=20_000, n_test=n, seed=seed, p=p)
    # the fitted predictor cannot beat the optimum: its paired excess over Prop. 3's predictor is >= 0
    z_excess_negative = max(0.0, -fit.excess / fit.excess_se)
    worst_z = max(z_pred, z_excess_negative)
    return _result(
        "Best linear predictor: w_l = p_l gamma^2/(1 - p_l + p_l gamma^2) v*, R_lin = eps^2 + gamma^2 - sum ...",
        ["SymPy normal equations", "Monte Carlo (Prop. 3 predictor; least squares on samples, non-uniform p)"],
        0.0, worst_z, exact and worst_z < Z_MAX,
        {"sympy_identities": exact, "R_lin": ref, "mc_prop3_predictor": [est, se], "lstsq_heldout": [fit.estimate, fit.standard_error],
         "lstsq_excess": [fit.excess, fit.excess_se]},
    )
