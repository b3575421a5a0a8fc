"""The profile risk m(kappa, eta) = min over unit v of R (`docs/MATH.md` §17).

Independent routes: SymPy identities (the quadratic in v is Theorem 1 on the sphere); a brute-force
minimisation over unit v in R^4 of Theorem 1's generated risk (no TRS, no duality); the mpmath
profile (the same TRS at 30 digits); mpmath quadrature of the risk's definition at the global
minimiser; the closed-form family risk R(0, 0, 1, 1, 0) (Theorem 1 at the boundary point k = v*,
v = k*) for the window's lower end at a setting off the paper's; the stationary-point search's
reference overlaps quoted in `docs/MATH.md` §17 (lam = 0.9); for the certificate's proof steps (positive
definiteness, no linear term in eta, the oracle risk's form), the SymPy proofs and, for each, a false statement the
check rejects, shown false by another route (NumPy eigenvalues, exact rational arithmetic, the mpmath kernels).
"""
import numpy as np
import pytest
from scipy.optimize import brentq, minimize

from slr_verify.kernels.generated import oracle_kernel, risk_kernel
from slr_verify.landscape import float_minimiser as LF
from slr_verify.landscape import mechanisms as LM
from slr_verify.landscape import trs as LP
from slr_verify.landscape import window as LW
from slr_verify.routes import quad_risk

G2 = float(np.sqrt(0.5))
FIG4B = {"gamma": G2, "eps": 0.0, "d": 400, "L": 10}


def _brute_force(kappa, eta, kw, starts=4, seed=0):
    """min over unit v in R^4 (basis k*, v*, e, e') of Theorem 1's risk at the overlaps of (k, v): BFGS on z in R^4
    (v = z / |z|) from ``starts`` seeded normal starts, the gradient by central differences of the risk (its nine
    values in one call of the generated kernel; no TRS, no duality, no derivative of the risk)."""
    R = risk_kernel()
    r = np.sqrt(max(0.0, 1 - kappa**2 - eta**2))
    steps = np.eye(4)

    def risks(Z):  # rows of Z: points z of R^4
        X = Z / np.linalg.norm(Z, axis=1, keepdims=True)
        rho = kappa * X[:, 0] + eta * X[:, 1] + r * X[:, 2]
        return np.asarray(R(kappa, X[:, 1], X[:, 0], eta, rho, kw["lam"], kw["gamma"], kw["eps"], kw["d"], kw["L"]), float)

    def f(z):
        h = 1e-6 * max(1.0, float(np.max(np.abs(z))))
        v = risks(np.vstack([z, z + h * steps, z - h * steps]))
        return v[0], (v[1:5] - v[5:]) / (2 * h)

    rng = np.random.default_rng(seed)
    best = min((minimize(f, rng.normal(size=4), jac=True, method="BFGS", options={"gtol": 1e-12}) for _ in range(starts)),
               key=lambda res: res.fun)
    return best.fun


@pytest.mark.parametrize("lam", [0.03] + [pytest.param(x, marks=pytest.mark.slow) for x in (0.3, 0.9, 3.0)])
def test_profile_against_brute_force_over_v(lam):
    kw = dict(FIG4B, lam=lam)
    pts = [(1.0, 0.0), (0.0, 1.0), (0.3, 0.5), (0.2, 0.97)]
    p = LP.profile(np.array([k for k, _ in pts]), np.array([e for _, e in pts]), **kw)
    for i, (k, e) in enumerate(pts):
        ref = _brute_force(k, e, kw)
        assert p.risk[i] <= ref * (1 + 1e-12)  # the TRS is a minimum over v
        assert abs(p.risk[i] - ref) <= 1e-10 * ref, (k, e, p.risk[i], ref)


def test_profile_minimiser_overlaps_give_its_risk():
    """The minimising v's overlaps, put into Theorem 1, give m (the TRS solution is a unit vector)."""
    kw = dict(FIG4B, lam=0.9)
    K, E = np.meshgrid(np.linspace(0, 1, 7), np.linspace(0, 1, 7))
    ok = K**2 + E**2 <= 1
    p = LP.profile(K[ok], E[ok], **kw)
    R = risk_kernel()(*p.overlaps.T, 0.9, G2, 0.0, 400, 10)
    assert np.max(np.abs(R - p.risk) / p.risk) < 1e-13
    assert np.allclose(np.linalg.norm(p.x, axis=-1), 1.0, atol=1e-14)


def test_profile_against_mpmath_and_hard_case():
    """float64 TRS vs the mpmath TRS at 30 digits, across lam over two orders of magnitude, including
    k = v* (g orthogonal to the bottom eigenvector: the hard case) and the disk's centre."""
    rng = np.random.default_rng(1)
    for lam in (0.02, 0.1, 0.9, 2.0):
        kw = dict(FIG4B, lam=lam)
        K = np.concatenate([[1.0, 0.0, 0.0], rng.uniform(0, 1, 2)])
        E = np.concatenate([[0.0, 1.0, 0.0], rng.uniform(0, 1, 2) * np.sqrt(1 - K[3:] ** 2)])
        p = LP.profile(K, E, **kw)
        for i in range(len(K)):
            m = float(LP.profile_mp(K[i], E[i], dps=30, **kw)[0])
            assert abs(p.risk[i] - m) <= 1e-14 * m
    assert LP.profile(0.0, 1.0, **dict(FIG4B, lam=0.9)).hard


def test_profile_symmetries():
    kw = dict(FIG4B, lam=0.5)
    a = LP.profile(0.4, 0.3, **kw).risk
    assert abs(LP.profile(0.4, -0.3, **kw).risk - a) < 1e-15 * a
    assert abs(LP.profile(-0.4, -0.3, **kw).risk - a) < 1e-15 * a


def test_profile_bad_input():
    with pytest.raises(ValueError, match="kappa"):
        LP.profile(0.9, 0.9, **dict(FIG4B, lam=0.5))
    with pytest.raises(ValueError, match="lam"):
        LP.profile(0.5, 0.5, **dict(FIG4B, lam=-1.0))
    with pytest.raises(ValueError, match="finite"):
        LP.profile(np.nan, 0.5, **dict(FIG4B, lam=0.5))


@pytest.mark.slow
def test_global_minimum_at_fig7a():
    """lam = 0.9: `docs/MATH.md` §17's minimiser kappa = 0.30167, eta = 0.95341 (5 digits, grid then
    Nelder-Mead on the exact TRS), risk by mpmath quadrature of the definition at its overlaps."""
    r, ov = LF.float_global_minimum(lam=0.9, **FIG4B)
    assert abs(ov[0] - 0.30167) < 1e-5 and abs(ov[3] - 0.95341) < 1e-5
    q = float(quad_risk(*ov, lam=0.9, gamma=G2, eps=0.0, d=400, L=10, dps=20))
    assert abs(r - q) < 1e-10 * q


def test_global_minimum_below_and_inside_the_window():
    """lam = 0.05: k = v*, v = k* (theta = eta = 1); lam = 0.3: the oracle; risks by the closed forms
    (Theorem 1 at (0, 0, 1, 1, 0) and the oracle's complement form)."""
    r, ov = LF.float_global_minimum(lam=0.05, **FIG4B)
    assert np.allclose(np.abs(ov), (0, 0, 1, 1, 0), atol=1e-6)
    ref = float(risk_kernel()(0.0, 0.0, 1.0, 1.0, 0.0, 0.05, G2, 0.0, 400, 10))
    assert abs(r - ref) < 1e-12 * ref
    r, ov = LF.float_global_minimum(lam=0.3, **FIG4B)
    assert ov == (1.0, 1.0, 0.0, 0.0, 0.0)
    assert abs(r - float(oracle_kernel()(0.3, G2, 0.0, 400, 10))) < 1e-13 * r


@pytest.mark.slow
def test_window_lower_end_off_the_paper_setting():
    """gamma^2 = 3/2, d = 50, L = 20: the lower end is where the boundary point k = v*, v = k*
    (theta = 1, outside the k = +-v* family's stationary theta* = 1.011) crosses the oracle: the root
    of Theorem 1 at (0, 0, 1, 1, 0) minus the oracle risk (closed forms, brentq), not the family gap's."""
    kw = {"gamma": float(np.sqrt(1.5)), "eps": 0.0, "d": 50, "L": 20}
    w = LW.float_window(lam_range=(1e-2, 1.0), grid=9, **kw)
    R, O = risk_kernel(), oracle_kernel()
    gap = lambda lam: R(0, 0, 1, 1, 0, lam, kw["gamma"], 0.0, 50, 20) - O(lam, kw["gamma"], 0.0, 50, 20)
    ref = brentq(gap, 0.1, 0.3, xtol=1e-15)
    assert w.mechanism_lo == "crossing" and abs(w.lo - ref) < 1e-10 * ref
    gap_root = LM._mechanism_window(gamma=kw["gamma"], d=50, L=20, lam_range=(1e-4, 1e2), grid=4000).lo
    assert abs(gap_root - ref) > 5e-5  # the family-gap mechanism misses it (`docs/MATH.md` §17)


@pytest.mark.slow
def test_window_at_fig4b_against_the_mechanism_functions():
    """Figure 4b's setting: the profile's window vs the 30-digit roots of the closed-form mechanism
    functions (det B, the family gap), which hold there (an independent derivation)."""
    w = LW.float_window(**{k: v for k, v in FIG4B.items()})
    m = LM._mechanism_window(gamma=G2, d=400, L=10, lam_range=(1e-4, 1e2), grid=4000)
    assert (w.mechanism_lo, w.mechanism_hi) == ("crossing", "pitchfork")
    assert abs(w.lo - m.lo) < 1e-12 * m.lo and abs(w.hi - m.hi) < 1e-9 * m.hi


@pytest.mark.slow
@pytest.mark.parametrize("lam", [0.05, 1.2])
def test_global_minimum_against_the_stationary_point_search(lam):
    """The profile route against the earlier, independent route (deflated Newton on the five-overlap
    stationarity equations from random starts, refined at 40 digits): same risk to 1e-12, same
    overlaps up to the symmetries (canonical representatives) to 1e-6."""
    from slr_verify.landscape import canonical, stationary_points

    pts = stationary_points(lam=lam, starts=150, **FIG4B)
    best = min((q for q in pts if q.kind in ("minimum", "degenerate")), key=lambda q: q.risk)
    r, ov = LF.float_global_minimum(lam=lam, **FIG4B)
    assert abs(r - best.risk) < 1e-12 * r
    a = np.array(canonical(np.array(ov, dtype=float)), dtype=float)
    b = np.array(canonical(np.array(best.overlaps, dtype=float)), dtype=float)
    assert np.max(np.abs(a - b)) < 1e-6, (a, b)


# ----------------------------------------------------------------- the certificate's proof steps (`docs/MATH.md` §17)
def _line_numeric():
    """(H - mu I, beta, T, Delta) as NumPy callables of (a0, a_tt, a_tr, a_rr, kappa, eta, mu): H typed from the
    module docstring, T and Delta lambdified from dual_line_algebra."""
    import sympy as sp

    from slr_verify.symbolic import profile_dual as pdual
    from slr_verify.symbolic import profile_trs as ptrs
    from slr_verify.symbolic.risk import S

    a0, att, atr, arr = ptrs.COEF_SYMS[:4]
    Delta, T = pdual.dual_line_algebra()[2:]
    at = {pdual.BETA: a0 - pdual.MU, pdual.DET_M: att * arr - atr**2}
    args = (a0, att, atr, arr, S.kappa, S.eta, pdual.MU)
    fT, fD = (sp.lambdify(args, e.subs(at), "numpy") for e in (T, Delta))

    def D(a0, att, atr, arr, kappa, eta, mu):
        e1, w = np.array([1.0, 0, 0]), np.array([kappa, eta, np.sqrt(1 - kappa**2 - eta**2)])
        H = a0 * np.eye(3) + att * np.outer(e1, e1) + atr * (np.outer(e1, w) + np.outer(w, e1)) + arr * np.outer(w, w)
        return H - mu * np.eye(3)

    return D, fT, fD


def test_pd_criterion_catches_a_wrong_T():
    """The identity check fails for T perturbed by beta and for Delta perturbed by beta. Independent route: NumPy's
    eigvalsh of H - mu I (H typed from the module docstring) at random coefficients (seed 21): its spectrum is beta
    and the roots of s^2 - T s + Delta (not of the perturbed quadratic), and the sign test beta, Delta, T > 0 agrees
    with positive definiteness on every sample."""
    from slr_verify.symbolic import profile_dual as pdual

    beta, Delta, T = pdual.dual_algebra()[1:]
    assert pdual._char_poly_holds(beta, T, Delta)
    assert not pdual._char_poly_holds(beta, T + beta, Delta)
    assert not pdual._char_poly_holds(beta, T, Delta + beta)
    D, fT, fD = _line_numeric()
    rng = np.random.default_rng(21)
    agree = 0
    for _ in range(400):
        kappa, eta = rng.uniform(-1, 1, 2) / np.sqrt(2)
        co = rng.normal(size=4) * (1, 2, 2, 3)
        mu = rng.normal() * 3
        b, t, dl = co[0] - mu, fT(*co, kappa, eta, mu), fD(*co, kappa, eta, mu)
        ev = np.linalg.eigvalsh(D(*co, kappa, eta, mu))
        ref = np.sort(np.r_[b, np.roots([1, -t, dl]).real])
        assert np.allclose(ev, ref, atol=1e-9 * (1 + np.abs(ev).max()))
        wrong = np.sort(np.r_[b, np.roots([1, -(t + b), dl]).real])
        assert not np.allclose(ev, wrong, atol=1e-6) or abs(b) < 1e-6
        agree += (b > 0 and dl > 0 and t > 0) == (ev[0] > 0)
    assert agree == 400


def test_eta_linear_catches_a_bound_without_the_factor_eta():
    """Dropping the factor eta of p_theta and p_rho leaves a linear term, which the check reports. Independent
    route: exact rational arithmetic at a rational point (no symbolic cancellation): the true bound is even in eta
    and LB(eta) = LB(0) + Q eta^2 there, the mutated one is not even."""
    import sympy as sp

    from slr_verify.symbolic import profile_dual as pdual
    from slr_verify.symbolic import profile_trs as ptrs
    from slr_verify.symbolic import profile_valley as pvalley
    from slr_verify.symbolic.risk import S

    co = ptrs.opaque_coefficients()
    bad = dict(co, p_theta=co["p_theta"] / S.eta, p_rho=co["p_rho"] / S.eta)
    LB = pdual.dual_algebra()[0]
    LBb = pdual.dual_bound_generic(bad, S.kappa, S.eta, pdual.MU)[0]
    assert pvalley._linear_eta_term(LB) == 0
    assert pvalley._linear_eta_term(LBb) != 0
    point = dict(zip(ptrs.COEF_SYMS, [sp.Rational(n, 7) for n in (5, 3, -2, 11, 4, -6, 9, 2)]))
    point.update({S.kappa: sp.Rational(2, 5), pdual.MU: sp.Rational(-3, 4)})
    at = lambda e, x: e.subs(point).subs(S.eta, x)
    h = sp.Rational(1, 3)
    Q = sp.diff(LB, S.eta, 2).subs(S.eta, 0) / 2
    assert at(LB, h) == at(LB, -h) and at(LB, h) == at(LB, 0) + at(Q, 0) * h**2
    assert at(LBb, h) != at(LBb, -h)


def test_oracle_risk_form_catches_erf_for_erfc():
    """zeta (E erf^2) where zetac (E erfc^2) belongs, in the risk and in its slope, makes the check fail.
    Independent route: the mpmath kernels (zeta and zetac by their own quadrature-backed implementations, 30
    digits) at one setting: U and Theorem 1 agree to 1e-25, the mutated U misses by more than 1e-3 (both the
    value and the slope)."""
    import mpmath
    import sympy as sp

    from slr_verify.kernels.codegen import generate_mp
    from slr_verify.symbolic import profile_oracle as poracle
    from slr_verify.symbolic.risk import PARAMS, S, oracle_point, theorem1_risk
    from slr_verify.symbolic.zeta import zeta, zetac

    U, dU = poracle.oracle_risk_and_slope()
    R0 = theorem1_risk().subs(oracle_point())
    bad = U.replace(zetac, zeta)
    assert poracle._oracle_forms_agree(U, R0) and poracle._oracle_forms_agree(dU, sp.diff(R0, S.lam))
    assert not poracle._oracle_forms_agree(bad, R0)
    assert not poracle._oracle_forms_agree(sp.diff(bad, S.lam), sp.diff(R0, S.lam))
    # the arcsine's argument rewritten once in lam (1 - 1/(1 + 2 lam^2)): a wrong argument is caught too
    assert not poracle._oracle_forms_agree(U.replace(sp.asin, lambda a: sp.asin(1 - 2 * (1 - a))), R0)
    exprs = [U, R0, bad, dU, sp.diff(R0, S.lam), sp.diff(bad, S.lam)]
    with mpmath.workdps(30):
        u, r, b, du, dr, db = generate_mp(PARAMS, exprs)(mpmath.mpf("0.4"), mpmath.mpf("0.7"), mpmath.mpf("0.1"), 6, 3)
        assert abs(u - r) < 1e-25 and abs(du - dr) < 1e-25
        assert abs(b - r) > 1e-3 and abs(db - dr) > 1e-3


def test_a_batch_of_lam_is_each_lam_alone():
    """minimise_profiles, circle_minima and profile with an array of lam: the same numbers, bit for bit, as each lam
    alone (each point's arithmetic does not depend on its batch), across the window's two ends at d = 80."""
    lams = [0.03, 0.17, 0.18, 1.0, 1.02]
    kw = dict(FIG4B, d=80)
    batch = LF.minimise_profiles(lams, **kw)
    circles = LF.circle_minima(lams, **kw)
    for lam, g, c in zip(lams, batch, circles):
        alone = LF.minimise_profiles([lam], **kw)[0]
        assert (g.risk, g.overlaps, g.chart, g.is_oracle, g.candidates) == (
            alone.risk, alone.overlaps, alone.chart, alone.is_oracle, alone.candidates)
        assert c == LF.circle_minima([lam], **kw)[0]
    k, e = np.array([0.2, 0.9]), np.array([0.5, 0.1])
    both = LP.profile(k, e, lam=np.array([[0.1], [0.7]]), **FIG4B).risk
    assert np.array_equal(both, [LP.profile(k, e, lam=x, **FIG4B).risk for x in (0.1, 0.7)])
