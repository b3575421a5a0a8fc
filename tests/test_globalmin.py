"""The pieces of the certified global minimisation (`docs/MATH.md` §§14 and 17).

Independent routes: SymPy identities (the frame adapted to k, Woodbury's closed form of the dual bound,
its exact quadratic dependence on eta); the float64 TRS of :mod:`slr_verify.landscape.trs` (the dual bound
at the TRS multiplier is the profile; a certified lower bound must not exceed the profile); the mpmath
profile at 50 digits (the valley curvature by a second difference in eta of the exact quadratic).
"""
import math

import numpy as np
import pytest

G2 = float(np.sqrt(0.5))
KW = {"gamma": G2, "eps": 0.0, "d": 400, "L": 10}


@pytest.mark.slow
def test_frame_identities():
    """SymPy: the frame Q = [k, dk/da / cos b, dk/db] is orthonormal, H' = Q^T H Q, g' = Q^T g, and the
    reflection a -> -a acts as S = diag(1, -1, 1) (for arbitrary coefficient values)."""
    from slr_verify.symbolic.profile_trs import frame_proofs

    proofs = frame_proofs()
    assert all(proofs.values()), proofs


@pytest.mark.parametrize("kappa, eta, lam", [(0.6, 0.3, 0.5), (0.2, 0.9, 0.9), (0.95, 0.05, 0.1), (0.3, 0.1, 0.05)])
def test_dual_bound_at_the_trs_multiplier_is_the_profile(kappa, eta, lam):
    """Strong duality: at the float64 TRS multiplier the closed-form bound equals the float64 profile (the
    eigendecomposition route of :mod:`slr_verify.landscape.trs`), to 1e-12 relative."""
    from slr_verify.kernels.profile import dual_kernels
    from slr_verify.landscape import profile

    K = dual_kernels()
    p = profile(kappa, eta, lam=lam, **KW)
    co = K.coef_f64(kappa, lam, G2, 0.0, 400, 10)
    LB, beta, Delta, T = (float(x) for x in K.dual_f64(*co, kappa, eta, float(p.mu)))
    assert beta > 0 and Delta > 0 and T > 0
    assert abs(LB - float(p.risk)) <= 1e-12 * abs(float(p.risk))


@pytest.mark.parametrize("kappa, lam", [(0.9, 0.3), (0.5, 0.85), (0.3, 0.1)])
def test_valley_curvature_against_mpmath(kappa, lam):
    """Q(kappa) = (1/2) d^2/deta^2 of the dual bound at mu = mu_v(kappa): the arb ball against the
    mpmath TRS data at 50 digits (the bound c + mu - g^T (H - mu)^{-1} g by an mpmath linear solve, at
    eta = 0 and eta = h; the bound is exactly quadratic in eta, so 2 (LB(h) - LB(0)) / (2 h^2) is exact up to
    rounding)."""
    import mpmath
    from flint import arb, ctx

    from slr_verify.kernels.profile import dual_kernels, trs_kernels

    K = dual_kernels()
    with ctx.workprec(128):
        P = (arb(G2), arb(0), arb(400), arb(10))
        Q = K.valley(*K.coef(arb(kappa), arb(lam), *P), arb(kappa))[0]
    with mpmath.workdps(50):
        def LB(eta, mu=None):
            r = mpmath.sqrt(1 - kappa**2 - eta**2)
            c, a0, h11, h12, h13, h22, h23, h33, g1, g2, g3 = trs_kernels().mp(
                mpmath.mpf(kappa), eta, r, mpmath.mpf(lam), mpmath.mpf(G2), mpmath.mpf(0), mpmath.mpf(400), mpmath.mpf(10))
            if mu is None:
                mu = a0 - g2  # the valley multiplier: v* solves the TRS at eta = 0
            H = mpmath.matrix([[h11, h12, h13], [h12, h22, h23], [h13, h23, h33]])
            g = mpmath.matrix([g1, g2, g3])
            y = mpmath.lu_solve(H - mu * mpmath.eye(3), g)
            return c + mu - sum(g[i] * y[i] for i in range(3)), mu

        L0, mu = LB(mpmath.mpf(0))
        h = mpmath.mpf("1e-6")
        ref = (LB(h, mu)[0] - L0) / h**2
    assert abs(float(Q.mid()) - float(ref)) < 1e-9 and float(Q.rad()) < 1e-20


def test_valley_certificate_on_a_kappa_box():
    """The valley certificate passes on kappa in [0.9, 1], lam = 0.3 (Q ~ 0.45 there) and fails where Q < 0
    (kappa = 0.05, lam = 0.3: Q ~ -0.1 by the float64 kernel)."""
    from flint import ctx

    from slr_verify.certify.dual_box import Box, Evaluator, strip_test

    with ctx.workprec(128):
        ev = Evaluator(G2, 0.0, 400, 10)
        assert strip_test(ev, Box((0.9, 1.0), (0.0, 0.0), (0.3, 0.3)))[0]
        assert not strip_test(ev, Box((0.05, 0.05), (0.0, 0.0), (0.3, 0.3)))[0]


def test_line_form_against_a_linear_solve():
    """The generated line form (1 - t) L0 + t L1 against c + mu - g^T (H - mu I)^{-1} g by a NumPy linear solve on
    the 3 x 3 TRS matrices of :func:`slr_verify.landscape.trs.trs_matrices` (another kernel, another algebra), at
    random (kappa, eta, lam) and mu below H's smallest eigenvalue, to 1e-11 relative (seed 18)."""
    from slr_verify.kernels.profile import dual_kernels
    from slr_verify.landscape.trs import trs_matrices

    K = dual_kernels()
    rng = np.random.default_rng(18)
    for _ in range(40):
        kappa, lam = rng.uniform(0, 0.95), 10 ** rng.uniform(-1.5, 0.3)
        eta = rng.uniform(0, 1) * math.sqrt(1 - kappa**2)
        r = math.sqrt(max(0.0, 1 - kappa**2 - eta**2))
        c, H, g = trs_matrices(kappa, eta, r, lam, G2, 0.0, 400, 10)
        mu = float(np.linalg.eigvalsh(H)[0]) - 10 ** rng.uniform(-3, 0)
        ref = float(c) + mu - g[:3] @ np.linalg.solve(H[:3, :3] - mu * np.eye(3), g[:3])
        co = K.coef_f64(kappa, lam, G2, 0.0, 400, 10)
        beta = float(co[0]) - mu
        L0, L1, Delta, T = (float(x) for x in K.dual_line_f64(*co, K.det_m_f64(*co)[0], kappa, beta))
        t = eta**2 / (1 - kappa**2)
        assert beta > 0 and Delta > 0 and T > 0
        assert abs((1 - t) * L0 + t * L1 - ref) <= 1e-11 * max(1.0, abs(ref)), (kappa, eta, lam, mu)


@pytest.mark.parametrize("box", [((0.0, 1e-3), (0.75, 1.0)), ((0.1, 0.101), (0.0, 0.5)), ((0.2, 0.202), (0.5, 1.0))])
def test_value_test_bounds_the_profile_from_below(box):
    """lam = 0.3 (inside W): the value test passes on the box, and its certified lower bounds of LB_mu - R(k*, v*) at
    the two ends t0, t1 lie below the float64 profile (TRS by eigendecomposition) minus the oracle's risk at the
    box's points on those ends (weak duality: m >= LB_mu; a violation would be a wrong enclosure)."""
    from flint import ctx

    from slr_verify.certify.dual_box import Box, Evaluator, oracle_U, value_test
    from slr_verify.landscape import profile

    with ctx.workprec(128):
        ev = Evaluator(G2, 0.0, 400, 10)
        o = value_test(ev, Box(box[0], box[1], (0.3, 0.3)), oracle_U(ev))
        ok, Fs = o.passed, o.F
    assert ok
    orc = float(profile(1.0, 0.0, lam=0.3, **KW).risk)
    kappa = np.linspace(*box[0], 7)
    for t, F in zip(box[1], Fs):
        m = profile(kappa, np.sqrt(t * (1 - kappa**2)), lam=0.3, **KW).risk
        assert float(F.lower()) > 0 and float(F.lower()) <= float(np.min(m)) - orc


def test_value_test_does_not_exclude_a_better_competitor():
    """lam = 0.0897, below W's lower end 0.0907: the float64 profile puts k = v* (kappa = 0, t = 1) 3e-4 below the
    oracle's risk, so no sound lower bound can exceed the oracle there; the box around it must fail."""
    from flint import ctx

    from slr_verify.certify.dual_box import Box, Evaluator, oracle_U, value_test
    from slr_verify.landscape import profile

    gap = float(profile(0.0, 1.0, lam=0.0897, **KW).risk - profile(1.0, 0.0, lam=0.0897, **KW).risk)
    assert gap < -1e-4
    with ctx.workprec(128):
        ev = Evaluator(G2, 0.0, 400, 10)
        o = value_test(ev, Box((0.0, 1e-4), (0.99, 1.0), (0.0897, 0.0897)), oracle_U(ev))
        ok, Fs = o.passed, o.F
    assert not ok and float(Fs[1].lower()) <= gap


def test_global_minimiser_proves_a_point_inside_the_window():
    """lam = 0.3 (inside W = (0.0907, 0.8924)): the oracle is certified the unique global minimiser (a few
    hundred boxes); the reported risk encloses the float64 profile at k*."""
    from slr_verify.certify import global_minimiser
    from slr_verify.landscape import profile

    c = global_minimiser(lam=(0.3, 0.3), **KW, time_limit=60)
    assert c.proved and c.oracle, c.reason
    orc = float(profile(1.0, 0.0, lam=0.3, **KW).risk)
    assert c.risk[0] - 1e-12 <= orc <= c.risk[1] + 1e-12


@pytest.mark.parametrize("bad", [{"lam": (0.3, 0.2)}, {"kappa0": 1.5}, {"prec": 20}])
def test_global_minimiser_rejects_bad_input(bad):
    from slr_verify.certify import global_minimiser

    kw = dict(KW, lam=(0.3, 0.3))
    kw.update(bad)
    with pytest.raises(ValueError, match=list(bad)[0]):
        global_minimiser(**kw)


W_LO, W_HI = 0.0907218276088526, 0.8924379482417101  # W at this setting (the profile route; the slow tests below
# do not rest on them: a wrong end makes the proof fail inside or succeed outside)


@pytest.mark.slow
@pytest.mark.parametrize("lam", [(0.3, 0.31), (0.0907219, 0.1), (0.1, 0.85), (0.85, 0.8924379)])
def test_global_minimiser_proves_intervals_inside_the_window(lam):
    """Four intervals inside W (gamma^2 = 1/2, d = 400, L = 10): the oracle is the unique global minimiser for every lam of
    (0.3, 0.31), of [W.lo + 1.7e-7, 0.1], of (0.1, 0.85) and of [0.85, W.hi - 4.8e-8] (seconds to minutes)."""
    from slr_verify.certify import global_minimiser

    c = global_minimiser(lam=lam, **KW, time_limit=900)
    assert c.proved and c.oracle, c.reason


@pytest.mark.slow
@pytest.mark.parametrize("lam", [(W_LO - 2e-7, W_LO - 1e-7), (W_HI + 1e-6, W_HI + 2e-6)])
def test_the_oracle_certificate_fails_just_outside_the_window(lam):
    """Soundness at both ends: 1e-7 below W's lower end (k = v* is 3e-8 below the oracle) and 1e-6 above its upper end
    (the oracle is a saddle) the oracle's certificate must not be proved (the value test fails near k = v*, the valley
    certificate near k*)."""
    import time

    from flint import ctx

    from slr_verify.certify.bisection import Progress
    from slr_verify.certify.dual_box import Evaluator
    from slr_verify.certify.oracle_proof import prove_oracle

    with ctx.workprec(128):
        t0 = time.time()
        c = prove_oracle(Evaluator(G2, 0.0, 400, 10), *lam, None, 10**6, 1e-9, t0 + 30, t0, Progress(None, ""))
    assert not c.proved


ENCLOSURES = {"fig4b lam=0.05 (below W)": (0.05, 400), "fig4b lam=0.9 (above W)": (0.9, 400),
              "fig4b lam=1.5": (1.5, 400), "fig5 lam=2": (2.0, 80), "fig5 lam=0.03": (0.03, 80)}


def _check_enclosure(lam, d):
    """Outside W: the certified enclosure of the global minimum (arb, the dual bound's branch and bound against the float
    minimiser's certified risk) has width <= 1e-12 and contains the float64 profile route's global minimum
    (`landscape.float_global_minimum`: grid, pattern search and mpmath tie-breaks), whose (kappa, eta) lies in the kept boxes,
    themselves within 1e-5 in kappa and eta."""
    from slr_verify.certify import global_minimiser
    from slr_verify.claims import window_claims
    from slr_verify.landscape import float_global_minimum

    kw = dict(KW, d=d)
    c = global_minimiser(lam=(lam, lam), **kw, time_limit=300)
    assert c.proved and not c.oracle, c.reason
    lo, hi = c.risk
    risk, ov = float_global_minimum(lam=lam, **kw)
    assert hi - lo <= 1e-12
    tol = window_claims.FLOAT_PROFILE_RTOL * abs(risk)  # the float route's accuracy (measured against mpmath), both sides
    assert lo - tol <= risk <= hi + tol
    o = c.overlaps[0]["overlaps"]
    assert o["kappa"][0] <= abs(ov[0]) <= o["kappa"][1] and o["eta"][0] - 1e-12 <= abs(ov[3]) <= o["eta"][1] + 1e-12
    assert o["kappa"][1] - o["kappa"][0] <= 1e-5 and o["eta"][1] - o["eta"][0] <= 1e-5


def test_enclosure_of_the_global_minimum_below_the_window():
    """Figure 5's model (d = 80) at lam = 0.03, below W (k = +-v*): a fraction of a second."""
    _check_enclosure(0.03, 80)


@pytest.mark.slow
@pytest.mark.parametrize("case", list(ENCLOSURES))
def test_enclosures_of_the_global_minimum(case):
    _check_enclosure(*ENCLOSURES[case])


@pytest.mark.slow
def test_certified_risk_of_a_pair_encloses_the_quadrature():
    from flint import arb

    from slr_verify.checker.profile import SettingBalls, pair_risk
    from slr_verify.landscape import profile
    from slr_verify.routes import quad_risk

    kappa, eta, lam = 0.3, 0.5, 0.9
    p = profile(kappa, eta, lam=lam, **KW)
    a, b = math.atan2(eta, kappa), math.asin(math.sqrt(1 - kappa**2 - eta**2))
    R = pair_risk(SettingBalls(G2, 0.0, 400, 10), arb(lam), a, b, [float(x) for x in p.x[()]])
    q = float(quad_risk(*p.overlaps[()], lam=lam, gamma=G2, eps=0.0, d=400, L=10, dps=25))
    assert float(R.rad()) < 1e-12 and abs(float(R.mid()) - q) < 1e-9


@pytest.mark.slow  # a search run to its failure
def test_a_failing_valley_returns_not_proved():
    """A kappa0 far below the valley's edge (0.01: the valley test fails near kappa = 0.05 at lam = 0.3) makes the
    search fail: it must say so (not proved), not raise while splitting a box one ulp wide (found by the mutation
    run of benchmarks/mutation_certificates.py on the unmutated search)."""
    from slr_verify.certify import global_minimiser

    c = global_minimiser(lam=(0.3, 0.3), **KW, kappa0=0.01, time_limit=10, max_boxes=3000)
    assert not c.proved and "valley certificate not proved" in c.reason and c.certificate is None
