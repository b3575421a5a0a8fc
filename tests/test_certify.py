"""Ball-arithmetic proofs (python-flint arb): the generated ball kernels enclose the float64 and
mpmath values; Proposition 9 is certified for a whole interval of lam; a proof that cannot close
says so."""
import mpmath
import numpy as np
import pytest
import sympy as sp
from flint import arb, ctx
from paper import G4B

from slr_verify.certify import stationary_points_on_M
from slr_verify.certify.manifold import ball
from slr_verify.kernels.arb import generate_arb
from slr_verify.kernels.certified import manifold_gradient_arb, manifold_sign_system_arb
from slr_verify.kernels.steps import reduced_map_kernels


def test_ball_kernels_enclose_the_float64_gradient():
    """The enclosure of (g_kappa, g_nu) at exact float points contains the float64 kernel's value
    up to its round-off, and the ball is tight (radius < 1e-40 at 192 bits)."""
    G, _ = manifold_gradient_arb()
    g = reduced_map_kernels().g
    rng = np.random.default_rng(0)
    with ctx.workprec(192):
        for _ in range(20):
            k, n, lam = rng.uniform(-1, 1), rng.uniform(-1, 1), rng.uniform(0.01, 1.5)
            enc = G(arb(k), arb(n), arb(lam), arb(G4B["gamma"]), arb(400), arb(10))
            ref = g(k, n, lam, G4B["gamma"], 400, 10)
            for e, r in zip(enc, ref):
                assert e.rad() < 1e-40
                assert abs(float(e.mid()) - float(r)) <= 1e-13 * max(1.0, abs(float(r)))


def test_ball_printer_keeps_rationals_exact_and_powers_of_balls_around_zero():
    x = sp.Symbol("x", real=True)
    f = generate_arb((x,), [sp.Rational(1, 3) * x**2 - x**3 + sp.sqrt(x**2 + 1)])
    v = f(ball(-1e-3, 1e-3))[0]
    assert v.is_finite() and v.contains(1) and v.rad() < 1e-5
    (w,) = f(arb(3))
    with mpmath.workdps(50):
        assert w.contains(arb(str(mpmath.mpf(1) / 3 * 9 - 27 + mpmath.sqrt(10))))
    with pytest.raises(ValueError, match="float"):
        generate_arb((x,), [sp.Float(0.1) * x])


def test_certificate_agrees_with_a_float_scan():
    """Independent: on a fine float grid the projected gradient is small only near the five points
    (at lam <= 0.1: for larger lam the factor P of g_kappa falls to 1e-20 near |kappa| = 1 and a
    float threshold means nothing there; the ball-arithmetic proof has no such limit)."""
    k, n = np.meshgrid(np.linspace(-1, 1, 301), np.linspace(-1, 1, 301))
    for lam in (0.01, 0.05, 0.1):
        gk, gn = reduced_map_kernels().g(k, n, lam, G4B["gamma"], 400, 10)
        small = np.hypot((1 - k**2) * gk, (1 - n**2) * gn) < 1e-6 * np.max(np.abs(gn))
        pts = np.array([(0, 0), (1, 1), (-1, -1), (1, -1), (-1, 1)], float)
        dist = np.min(np.hypot(k[small][:, None] - pts[:, 0], n[small][:, None] - pts[:, 1]), axis=1)
        assert dist.max() < 0.05


def test_a_proof_that_cannot_close_says_so():
    c = stationary_points_on_M((0.01, 1.0), eps=0.0, budget=5, **G4B)
    assert not c.proved and c.failure and c.boxes == []


def test_sign_system_proofs_hold():
    _, _, proofs = manifold_sign_system_arb()
    assert all(proofs.values())


def test_invalid_interval():
    with pytest.raises(ValueError, match="lam"):
        stationary_points_on_M((1.0, 0.5), **G4B)
    with pytest.raises(ValueError, match="d must be"):
        stationary_points_on_M((0.1, 0.5), gamma=0.7, d=1, L=10)


def test_alpha_certificate_refuses_a_wrong_guess():
    """Seeded with twice the numeric alpha_max, the first candidate (0.9 x 0.612, above the true
    alpha_max) cannot be certified, so nothing is; the upper bound stays valid."""
    from slr_verify.certify import alpha_diffeo

    res = alpha_diffeo(lam=0.1, alpha_numeric=0.612, budget=20_000, **G4B)
    assert res["alpha_certified"] == 0.0 and res["alpha_upper"] > 0.306


def test_bayes_gap_enclosures_contain_the_quadrature_route():
    """Independent route: mpmath quadrature of the definition (routes.quad_bayes_gap, 30 digits)
    lies inside the ball enclosures, including where the gap underflows float64 (d = 1e12)."""
    from slr_verify import routes
    from slr_verify.certify.corollary2 import log_bayes_gap_enclosure

    for lam, d, L in [(0.3, 100.0, 1), (1e-3, 1e12, 1), (0.05, 1e6, 30), (2.0, 50.0, 3)]:
        lo, hi = log_bayes_gap_enclosure(lam=lam, gamma=0.5**0.5, d=d, L=L)
        with mpmath.workdps(40):
            ref = float(mpmath.log(routes.quad_bayes_gap(lam=lam, gamma=0.5**0.5, eps=0.0, d=d, L=L, dps=30)))
        tol = 4e-16 * max(1.0, abs(ref))  # the float rounding of ref itself
        assert lo - tol <= ref <= hi + tol, (lam, d, L, lo, ref, hi)
        assert hi - lo < 1e-14 * max(1.0, abs(ref))


def test_zetac_enclosure_beyond_float64():
    from slr_verify.kernels import special
    from slr_verify.kernels.special_arb import zetac_arb

    with ctx.workprec(128):
        z = zetac_arb(arb(1000), arb("0.01"))
        assert z.lower() > 0 and float(special.zetac(1000.0, 0.01)) == 0.0  # below float64's range
        lz = z.log()
        assert abs(float(lz.mid()) - float(special.log_zetac(1000.0, 0.01))) < 1e-15 * abs(float(lz.mid())) + lz.rad()


@pytest.mark.slow
@pytest.mark.parametrize("gamma,d,L,lam",
                         [(0.3, 80, 10, (0.05, 2.0)), (1.5, 1000, 3, (0.01, 0.5)), (0.5**0.5, 400, 10, (0.001, 1.5))])
def test_proposition9_certified_other_settings(gamma, d, L, lam):
    from slr_verify.certify import hessian_signs

    c = stationary_points_on_M(lam, gamma=gamma, d=d, L=L)
    assert c.proved and len(c.boxes) == 5, c.failure
    assert hessian_signs(lam, gamma=gamma, d=d, L=L)["proved"]


def test_off_M_family_point_enclosure():
    """theta* enclosed; the 50-digit mpmath root of R_theta (an independent solve)
    lies inside; eta = -1 gives -theta*."""
    from slr_verify.certify import off_M_family_point
    from slr_verify.kernels.steps import mp_gradient_kernel

    p = dict(lam=0.1, **G4B)
    res = off_M_family_point(**p)
    assert res["proved"] and all(res["proofs"].values())
    lo, hi = res["theta_star"]
    with mpmath.workdps(50):
        ref = float(mpmath.findroot(lambda x: mp_gradient_kernel()(0, 0, x, 1, 0, 0.1, mpmath.sqrt(0.5), 400, 10)[2], 0.5))
    assert lo - 1e-16 <= ref <= hi + 1e-16 and hi - lo < 1e-14
    lo2, hi2 = off_M_family_point(eta=-1, **p)["theta_star"]
    assert abs(lo2 + hi) < 1e-15 and abs(hi2 + lo) < 1e-15
    with pytest.raises(ValueError, match="eta"):
        off_M_family_point(eta=0, **p)


def test_zetac_float64_within_its_condition_number_of_the_enclosures():
    """The float64 zetac against arb enclosures (rigorous integration) across the tail regime:
    relative error at most 4 |log zetac| ulps (zetac's condition number in t, ~|log zetac|)."""
    from slr_verify.kernels import special
    from slr_verify.kernels.special_arb import zetac_arb

    with ctx.workprec(128):
        for t in np.linspace(0.6, 30, 25):
            for g in (0.01, 0.25, 1.0, 3.0):
                z = float(special.zetac(t, g))
                if z == 0.0:
                    continue
                ref = zetac_arb(arb(float(t)), arb(g))
                m = float(ref.mid())
                assert abs(z - m) <= 4 * 2.2e-16 * max(1.0, abs(np.log(m))) * m


@pytest.mark.slow
def test_oracle_window_enclosures_fig4b():
    """The window proved end to end: each end enclosed to <= 1e-12, the certificate accepted, and the enclosures
    contain the 30-digit roots of the closed-form mechanism functions (det B of the oracle's Hessian block and the
    k = +-v* family's gap: an independent derivation from Theorem 1 in the five overlaps, which holds at this
    setting)."""
    from slr_verify.certify import oracle_window
    from slr_verify.landscape.mechanisms import _mechanism_window

    enc = oracle_window(gamma=0.5**0.5, d=400, L=10)
    m = _mechanism_window(gamma=0.5**0.5, d=400, L=10, lam_range=(1e-4, 1e2), grid=4000)
    assert enc.proved and enc.replay.accepted
    assert enc.mechanisms[0].startswith("crossing") and enc.mechanisms[1].startswith("pitchfork")
    for (a, b), x in ((enc.lo, m.lo_mp), (enc.hi, m.hi_mp)):
        assert b - a <= 1e-12 and a < x < b
    assert enc.unique == (enc.lo[1], enc.hi[0])


@pytest.mark.slow
def test_oracle_window_off_the_paper_setting():
    """gamma^2 = 3/2, d = 50, L = 20: the competitor at the lower end is the boundary point k = v*, v = k*
    (theta = 1); the lower enclosure (<= 1e-12) contains the 30-digit root of Theorem 1 at (0, 0, 1, 1, 0) minus
    Theorem 1 at the oracle (mpmath, an independent route); with the scan stopped at lam = 2 there is no upper end, and
    the statement says hi >= 2 only."""
    import mpmath

    from slr_verify.certify import oracle_window
    from slr_verify.kernels.generated import risk_kernel_mp

    g = 1.5**0.5
    enc = oracle_window(gamma=g, d=50, L=20, lam_range=(1e-4, 2.0))
    assert enc.proved and enc.hi is None and enc.mechanisms[1].startswith("none")
    R = risk_kernel_mp()
    with mpmath.workdps(30):
        root = mpmath.findroot(lambda lam: R(0, 0, 1, 1, 0, lam, g, 0, 50, 20) - R(1, 1, 0, 0, 0, lam, g, 0, 50, 20),
                               mpmath.mpf("0.1836782"))
    a, b = enc.lo
    assert b - a <= 1e-12 and a < root < b
    assert "W has no upper end below" in enc.statement


def test_off_M_family_is_a_certified_strict_local_minimum():
    """Off-M local minimality by a Hessian enclosure. Independent reference for the
    smallest non-flat eigenvalue: finite differences of Theorem 1's risk on vectors of R^6
    (family_search.finite_difference_spectrum); the Sylvester minors' product of eigenvalues must match it to FD accuracy."""
    import numpy as np

    from slr_verify.certify import off_M_family_minimality
    from slr_verify.dynamics import family_search

    m = off_M_family_minimality(lam=0.1, gamma=0.5**0.5, d=400, L=10)
    assert m["proved"] and all(lo > 0 for lo, _ in m["minors"])
    fd = family_search.finite_difference_spectrum(0.62977226986893, 1.0, lam=0.1, gamma=0.5**0.5, d=400, L=10)
    ev = np.sort(fd["hessian_eigenvalues"])[3:]  # three flat directions in R^6
    mk = sum(m["minus_mu_k"]) / 2
    det5 = np.prod(ev) / mk**2  # R^6 adds two orthogonal directions, each -mu_k
    lo, hi = m["minors"][-1]
    assert abs(det5 - (lo + hi) / 2) < 1e-3 * det5
