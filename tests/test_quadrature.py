"""Tests of the mpmath quadrature route (slr_verify.routes.quadrature): its digits, and its agreement with the closed form.

Every expected value comes from a route independent of the code under test, named in the test:
exact identities typed in here (`docs/MATH.md` §4 zeta(0), `docs/MATH.md` §5 oracle, `docs/MATH.md` §9 Lemma 6), brute-force
Gauss-Hermite tensor quadrature over explicit token coordinates (float64, NumPy/SciPy), densely
subdivided mpmath integrals, and the float64 kernels generated from the symbolic route.
"""
import time

import mpmath
import numpy as np
import pytest
from scipy.special import erf as np_erf

from slr_verify.routes import quadrature as Q
from slr_verify.routes.quadrature import (
    claimed_digits,
    quad_bayes_gap,
    quad_manifold_risk,
    quad_oracle_risk,
    quad_risk,
    quad_risk_gradient,
    quad_zeta,
)

POINT = (0.3, 0.4, 0.2, -0.1, 0.25)
MODEL = dict(lam=0.5, gamma=0.7, eps=0.1, d=10, L=3)


def rel(a, b):
    a, b = mpmath.mpf(a), mpmath.mpf(b)
    return abs(a - b) / abs(b)


# ------------------------------------------------------------------------------------------
# zeta (`docs/MATH.md` §4)
# ------------------------------------------------------------------------------------------

@pytest.mark.parametrize("g", ["1e-12", "1e-6", "1e-3", "0.1", "0.5", "1", "3", "30", "1e3"])
def test_zeta_at_zero_matches_arcsin_identity(g):
    # Reference: zeta_g(0) = (2/pi) arcsin(2 g^2 / (1 + 2 g^2)) (`docs/MATH.md` §4), at 60 digits.
    with mpmath.workdps(60):
        gg = mpmath.mpf(g)
        ref = 2 / mpmath.pi * mpmath.asin(2 * gg**2 / (1 + 2 * gg**2))
    assert rel(quad_zeta(0, gg, dps=30), ref) < 1e-28


def test_zeta_tiny_regime_relative_accuracy():
    # zeta_g(0) ~ (4/pi) g^2 (1 - 2 g^2 + ...) as g -> 0: the route must not lose relative accuracy.
    with mpmath.workdps(40):
        g = mpmath.mpf("1e-12")
        assert rel(quad_zeta(0, g), 4 / mpmath.pi * g**2) < 1e-20
        g = mpmath.mpf("1e-100")
        assert rel(quad_zeta(0, g), 4 / mpmath.pi * g**2) < 1e-28


@pytest.mark.parametrize("t", [0, 0.3, -2.5, 40])
def test_zeta_at_g_zero_is_erf_squared(t):
    with mpmath.workdps(40):
        ref = mpmath.erf(mpmath.mpf(t)) ** 2
    z = quad_zeta(t, 0)
    assert z == 0 if t == 0 else rel(z, ref) < 1e-35


@pytest.mark.parametrize("t,g", [(0.7, 0.2), pytest.param(3.0, 1.5, marks=pytest.mark.slow), (1e3, 1e3),
                                 pytest.param(12.0, 1e-3, marks=pytest.mark.slow)])
def test_zeta_is_even(t, g):
    assert rel(quad_zeta(-t, g, dps=20), quad_zeta(t, g, dps=20)) < 1e-19


@pytest.mark.parametrize("t,g", [(1e3, 1e-12), (1e3, 1.0), (1e3, 1e3)])
def test_zeta_tends_to_one_and_stays_below(t, g):
    z = quad_zeta(t, g)
    assert z <= 1 and 1 - z < 1e-3
    # at t = 1e3 and g = 1e3 the erf transition sits at z = -1 with width 1e-3: compare with a
    # dense-subdivision integral of 1 - erf(t + g z)^2 = erfc(x) (2 - erfc(x)) around it
    if g == 1e3:
        with mpmath.workdps(40):
            f = lambda z: mpmath.erfc(t + g * z) * (2 - mpmath.erfc(t + g * z)) * mpmath.npdf(z)
            pts = [-1 + k * mpmath.mpf("1e-3") for k in range(-12, 13)]
            ref = mpmath.quad(f, [-mpmath.inf] + pts + [mpmath.inf])
        assert rel(1 - z, ref) < 1e-20


@pytest.mark.parametrize("t,g", [(0.4, 0.3), pytest.param(1.7, 1.2, marks=pytest.mark.slow),
                                 pytest.param(-0.9, 2.0, marks=pytest.mark.slow), (2.0, 0.05)])
def test_zeta_derivative_identity(t, g):
    # `docs/MATH.md` §4: d/dt zeta_g(t) = 2/sqrt(1+2g^2) erf(t / sqrt((1+2g^2)(1+4g^2))) erf'(t / sqrt(1+2g^2)),
    # checked against a central difference of the quadrature (mpmath.diff with an explicit step).
    with mpmath.workdps(40):
        t, g = mpmath.mpf(t), mpmath.mpf(g)
        a = 1 + 2 * g**2
        ref = 2 / mpmath.sqrt(a) * mpmath.erf(t / mpmath.sqrt(a * (1 + 4 * g**2))) * (
            2 / mpmath.sqrt(mpmath.pi) * mpmath.exp(-t**2 / a))
        num = mpmath.diff(lambda x: quad_zeta(x, g, dps=45), t, h=mpmath.mpf("1e-12"))
    assert rel(num, ref) < 1e-18


# ------------------------------------------------------------------------------------------
# The oracle (`docs/MATH.md` §5), Lemma 6 (`docs/MATH.md` §9), symmetries, L dependence
# ------------------------------------------------------------------------------------------

def spec5_oracle(lam, gamma, eps, d, L):
    """`docs/MATH.md` §5, typed in: eps^2 + gamma^2 [1 - 2 erf(a / sqrt(1 + 2 lam^2 gamma^2)) + zeta_{lam gamma}(a)]
    + (L - 1) zeta_lam(0), a = lam sqrt(d / 2); zeta_lam(0) by the arcsin identity, zeta_{lam gamma}(a)
    by quad_zeta (which the risk code does not call)."""
    lam, gamma, eps = (mpmath.mpf(x) for x in (lam, gamma, eps))
    a = lam * mpmath.sqrt(mpmath.mpf(d) / 2)
    z0 = 2 / mpmath.pi * mpmath.asin(2 * lam**2 / (1 + 2 * lam**2))
    return (eps**2 + gamma**2 * (1 - 2 * mpmath.erf(a / mpmath.sqrt(1 + 2 * lam**2 * gamma**2))
                                 + quad_zeta(a, lam * gamma, dps=40)) + (L - 1) * z0)


@pytest.mark.parametrize("model", [
    dict(lam=0.5, gamma=0.7, eps=0.1, d=10, L=3),
    dict(lam=0.1, gamma=0.5**0.5, eps=0.0, d=400, L=10),
    pytest.param(dict(lam=2.0, gamma=0.3, eps=0.2, d=5, L=1), marks=pytest.mark.slow),
    dict(lam=0.05, gamma=2.0, eps=1.0, d=2, L=40),
])
def test_oracle_matches_spec5(model):
    with mpmath.workdps(40):
        ref = spec5_oracle(**model)
    assert rel(quad_oracle_risk(**model, dps=30), ref) < 1e-27


def lemma6(kappa, nu, lam, gamma, eps, d, L):
    """Lemma 6 (`docs/MATH.md` §9), typed in: eps^2 + gamma^2 + (L-1) zeta_lam(0)
    + gamma^2 [zeta_{lam gamma}(lam sqrt(d/2) kappa) - 2 nu erf(lam sqrt(d/2) kappa / sqrt(1 + 2 lam^2 gamma^2))]."""
    kappa, nu, lam, gamma, eps = (mpmath.mpf(x) for x in (kappa, nu, lam, gamma, eps))
    a = lam * mpmath.sqrt(mpmath.mpf(d) / 2) * kappa
    z0 = 2 / mpmath.pi * mpmath.asin(2 * lam**2 / (1 + 2 * lam**2))
    return (eps**2 + gamma**2 + (L - 1) * z0 + gamma**2 * (
        quad_zeta(a, lam * gamma, dps=40) - 2 * nu * mpmath.erf(a / mpmath.sqrt(1 + 2 * lam**2 * gamma**2))))


@pytest.mark.parametrize("kappa,nu", [(0.0, 0.0), pytest.param(0.5, -0.3, marks=pytest.mark.slow), (-0.9, 0.99),
                                      pytest.param(1.0, -1.0, marks=pytest.mark.slow)])
def test_manifold_risk_matches_lemma6_and_quad_risk(kappa, nu):
    with mpmath.workdps(40):
        ref = lemma6(kappa, nu, **MODEL)
    m = quad_manifold_risk(kappa, nu, **MODEL, dps=20)
    assert rel(m, ref) < 1e-19
    assert m == quad_risk(kappa, nu, 0, 0, 0, **MODEL, dps=20)


@pytest.mark.parametrize("point", [POINT, pytest.param((-0.6, 0.5, 0.1, 0.3, -0.5), marks=pytest.mark.slow)])
def test_sign_symmetry(point):
    # (k, v) -> (-k, -v) leaves T, hence R, unchanged: R(kappa,nu,theta,eta,rho) = R(-kappa,-nu,-theta,-eta,rho).
    kappa, nu, theta, eta, rho = point
    a = quad_risk(*point, **MODEL, dps=20)
    b = quad_risk(-kappa, -nu, -theta, -eta, rho, **MODEL, dps=20)
    assert rel(a, b) < 1e-19


def test_null_tokens_add_zeta_when_rho_is_zero():
    # With rho = 0 the null tokens are centred (m0 = 0) and each adds E[erf(lam Z)^2] = zeta_lam(0),
    # so R(L) - R(1) = (L - 1) (2/pi) arcsin(2 lam^2 / (1 + 2 lam^2)); L = 1 is the relevant token alone.
    point = (0.4, -0.2, 0.5, 0.3, 0.0)
    base = dict(MODEL, L=1)
    r1 = quad_risk(*point, **base)
    with mpmath.workdps(40):
        lam = mpmath.mpf(MODEL["lam"])
        z0 = 2 / mpmath.pi * mpmath.asin(2 * lam**2 / (1 + 2 * lam**2))
    for L in (2, 7):
        assert rel(quad_risk(*point, **dict(base, L=L)) - r1, (L - 1) * z0) < 1e-27


def test_risk_is_quadratic_in_L():
    # R = A + (L - 1) B + (L - 1)(L - 2) C: the second difference in L is 2 C = 2 m0^2 >= 0, and the
    # third vanishes; m0 = rho E[Z erf(lam Z)] = rho (2 lam / sqrt(pi)) / sqrt(1 + 2 lam^2) (Stein,
    # used here as the independent reference).
    r = [quad_risk(*POINT, **dict(MODEL, L=L), dps=20) for L in (1, 2, 3, 4)]
    with mpmath.workdps(40):
        lam, rho = mpmath.mpf(MODEL["lam"]), mpmath.mpf(POINT[4])
        m0 = rho * 2 * lam / mpmath.sqrt(mpmath.pi) / mpmath.sqrt(1 + 2 * lam**2)
        assert rel(r[2] - 2 * r[1] + r[0], 2 * m0**2) < 1e-17
        assert abs(r[3] - 3 * r[2] + 3 * r[1] - r[0]) < 1e-20


# ------------------------------------------------------------------------------------------
# Brute force: Gauss-Hermite tensor quadrature over explicit token coordinates (float64)
# ------------------------------------------------------------------------------------------

def explicit_vectors(kappa, nu, theta, eta, rho):
    """Unit k, v in R^4 with k* = e1, v* = e2 realising the overlaps (Gram-Schmidt by hand)."""
    k3 = np.sqrt(1 - kappa**2 - eta**2)
    v3 = (rho - kappa * theta - eta * nu) / k3
    v4 = np.sqrt(max(0.0, 1 - theta**2 - nu**2 - v3**2))
    return np.array([kappa, eta, k3, 0.0]), np.array([theta, nu, v3, v4])


def gh_grid(n, dim):
    x, w = np.polynomial.hermite_e.hermegauss(n)
    w = w / np.sqrt(2 * np.pi)
    xs = np.stack(np.meshgrid(*[x] * dim, indexing="ij"), -1).reshape(-1, dim)
    ws = np.prod(np.stack(np.meshgrid(*[w] * dim, indexing="ij"), -1).reshape(-1, dim), axis=1)
    return xs, ws


def test_L1_matches_gauss_hermite_in_token_coordinates():
    point, lam, gamma, eps, d = (0.6, 0.5, 0.2, -0.3, 0.1), 0.5, 0.8, 0.1, 6
    k, v = explicit_vectors(*point)
    ks, vs = np.eye(4)[0], np.eye(4)[1]
    assert np.allclose([k @ ks, v @ vs, v @ ks, k @ vs, k @ v], point)
    G, W = gh_grid(16, 4)
    X = np.sqrt(d / 2) * ks + gamma * G  # relevant token X ~ N(sqrt(d/2) k*, gamma^2 I)
    ref = eps**2 + W @ ((X @ vs - np_erf(lam * (X @ k)) * (X @ v)) ** 2)
    assert abs(float(quad_risk(*point, lam=lam, gamma=gamma, eps=eps, d=d, L=1)) - ref) / ref < 1e-13


@pytest.mark.slow  # 18^5 nodes; the L = 1 comparison above is the default run's
def test_L2_matches_gauss_hermite_with_a_null_token():
    # k, v in span(e1, e2, e3) so the relevant token needs 3 coordinates; the null token enters via
    # (a', b') = (u1, rho u1 + sqrt(1 - rho^2) u2): a 5-D tensor grid of E[(e - f b - f' b')^2].
    # lam is small enough for Gauss-Hermite to converge fast on erf(lam u) (18 nodes: ~4e-14).
    k3 = np.sqrt(1 - 0.6**2 - 0.3**2)
    v3 = np.sqrt(1 - 0.2**2 - 0.5**2)
    k, v = np.array([0.6, -0.3, k3]), np.array([0.2, 0.5, v3])
    rho = float(k @ v)
    point = (0.6, 0.5, 0.2, -0.3, rho)
    lam, gamma, eps, d = 0.3, 0.6, 0.3, 8
    G, W = gh_grid(18, 5)
    X = np.sqrt(d / 2) * np.eye(3)[0] + gamma * G[:, :3]
    a, b, e = X @ k, X @ v, X[:, 1]
    a2, b2 = G[:, 3], rho * G[:, 3] + np.sqrt(1 - rho**2) * G[:, 4]
    ref = eps**2 + W @ ((e - np_erf(lam * a) * b - np_erf(lam * a2) * b2) ** 2)
    assert abs(float(quad_risk(*point, lam=lam, gamma=gamma, eps=eps, d=d, L=2)) - ref) / ref < 1e-12


# ------------------------------------------------------------------------------------------
# Bayes gap (`docs/MATH.md` §6, Corollary 2)
# ------------------------------------------------------------------------------------------

def dense_gap_reference(lam, gamma, d, L):
    """gamma^2 E[erfc(c + sZ)^2] + (L - 1) zeta_lam(0) by a quadrature centred at the Laplace peak of
    the first integrand and rescaled by its peak value (computed here, not by the route), 45 digits."""
    with mpmath.workdps(45):
        lam, gamma = mpmath.mpf(lam), mpmath.mpf(gamma)
        c, s = lam * mpmath.sqrt(mpmath.mpf(d) / 2), lam * gamma
        zs, w = -4 * s * c / (1 + 4 * s * s), 1 / mpmath.sqrt(1 + 4 * s * s)
        E = 2 * (c + s * zs) ** 2 + zs**2 / 2
        f = lambda z: mpmath.erfc(c + s * z) ** 2 * mpmath.npdf(z) * mpmath.exp(E)
        rel_part = mpmath.quad(f, [mpmath.ninf] + [zs + k * w for k in range(-15, 16)] + [mpmath.inf])
        z0 = 2 / mpmath.pi * mpmath.asin(2 * lam**2 / (1 + 2 * lam**2))
        return gamma**2 * rel_part * mpmath.exp(-E) + (L - 1) * z0


@pytest.mark.parametrize("lam,gamma,d,L", [
    pytest.param(0.5, 0.7, 10, 3, marks=pytest.mark.slow),
    (0.1, 0.5**0.5, 10**4, 1),   # ~8.5e-46: an absolute stopping rule in mpmath.quad got this wrong by 2.6%
    (1.0, 0.5**0.5, 10**4, 1),   # ~3.6e-1452
    (1e-3, 0.5**0.5, 10**12, 1),  # ~7.8e-434301, Corollary 2 regime lam = d^(-1/4)
    pytest.param(1e-3, 0.5**0.5, 10**12, 3981, marks=pytest.mark.slow),
])
def test_bayes_gap_matches_dense_reference(lam, gamma, d, L):
    gap = quad_bayes_gap(lam=lam, gamma=gamma, eps=0.3, d=d, L=L)
    assert gap > 0
    assert rel(gap, dense_gap_reference(lam, gamma, d, L)) < 1e-27


def test_bayes_gap_consistent_with_oracle_risk():
    m = dict(lam=0.4, gamma=0.9, eps=0.25, d=50, L=4)
    assert rel(quad_oracle_risk(**m) - mpmath.mpf(0.25) ** 2, quad_bayes_gap(**m)) < 1e-28
    # eps = 0, L = 1: the oracle risk is the gap itself, tiny, and both keep full relative accuracy
    m = dict(lam=1.0, gamma=0.7, eps=0.0, d=2000, L=1)
    g = quad_bayes_gap(**m)
    assert g < mpmath.mpf("1e-200")
    assert rel(quad_oracle_risk(**m), g) < 1e-28


# ------------------------------------------------------------------------------------------
# Gradient
# ------------------------------------------------------------------------------------------

def _central_difference_check(names):
    # Independent of the differentiation under the integral sign: central differences of the risk
    # at 40 digits with h = 1e-12 (truncation ~ h^2 ~ 1e-24, quadrature noise ~ 1e-40 / h).
    point, model = (-0.6, 0.5, 0.1, 0.3, -0.5), dict(lam=1.3, gamma=0.4, eps=0.2, d=20, L=4)
    grad = quad_risk_gradient(*point, **model, dps=30)
    h = mpmath.mpf("1e-12")
    scale = max(abs(x) for x in grad.values())
    order = ("kappa", "nu", "theta", "eta", "rho")
    with mpmath.workdps(40):
        for name in names:
            i = order.index(name)

            def f(x):
                args = [mpmath.mpf(p) for p in point]
                args[i] = x
                return Q._risk(*args, *(mpmath.mpf(model[k]) for k in ("lam", "gamma", "eps", "d", "L")))
            x0 = mpmath.mpf(point[i])
            fd = (f(x0 + h) - f(x0 - h)) / (2 * h)
            assert abs(grad[name] - fd) / scale < 1e-20, name


def test_gradient_matches_central_differences():
    _central_difference_check(("kappa", "rho"))


@pytest.mark.slow
def test_gradient_matches_central_differences_all():
    _central_difference_check(("kappa", "nu", "theta", "eta", "rho"))


@pytest.mark.slow
def test_gradient_integral_vs_mpmath_diff():
    for point, model in [(POINT, MODEL), ((1, 1, 0, 0, 0), dict(lam=1.0, gamma=0.7, eps=0.0, d=30, L=4))]:
        a = quad_risk_gradient(*point, **model, dps=20)
        b = quad_risk_gradient(*point, **model, dps=20, method="diff")
        scale = max(abs(x) for x in a.values())
        assert all(abs(a[k] - b[k]) / scale < 1e-18 for k in a)


def test_gradient_at_nonrealisable_neighbour_is_fine_but_point_is_checked():
    # |rho| = 1 (k = v) is realisable; the derivative in rho takes the tuple outside [-1, 1] for a moment.
    point = (0.6, 0.0, 0.6, 0.0, 1.0)
    g = quad_risk_gradient(*point, **MODEL, dps=20)
    assert all(mpmath.isfinite(x) for x in g.values())
    with pytest.raises(ValueError, match="not realisable"):
        quad_risk_gradient(1, 1, 1, 0, 0, **MODEL)


# ------------------------------------------------------------------------------------------
# Digit count claimed by the route
# ------------------------------------------------------------------------------------------

@pytest.mark.slow  # 3 s of quadrature at two precisions; test_claimed_digits_detects_disagreement stays
def test_claimed_digits_at_two_precisions():
    t0 = time.perf_counter()
    digits = claimed_digits(quad_risk, *POINT, **MODEL, dps=20, extra=15)
    assert digits >= 19
    assert claimed_digits(quad_bayes_gap, lam=0.1, gamma=0.5**0.5, eps=0, d=10**4, L=1, dps=20) >= 19
    assert claimed_digits(quad_zeta, 0.0, 1e-12, dps=30) >= 29
    assert claimed_digits(quad_risk_gradient, *POINT, **MODEL, dps=15, extra=15) >= 14
    assert time.perf_counter() - t0 < 30


def test_claimed_digits_detects_disagreement():
    # a routine whose result depends on the precision in the 10th digit claims about 10 digits
    def fake(x, *, dps):
        return mpmath.mpf(x) * (1 + (mpmath.mpf(10) ** -10 if dps > 20 else 0))
    assert 9 < claimed_digits(fake, 2.0, dps=20) < 11


# ------------------------------------------------------------------------------------------
# Agreement with the closed form (symbolic route's float64 kernels)
# ------------------------------------------------------------------------------------------

AGREE_POINTS = [
    ((0.3, 0.4, 0.2, -0.1, 0.25), dict(lam=0.5, gamma=0.7, eps=0.1, d=10, L=3)),
    ((-0.76, -0.116, -0.786, -0.44, 0.922), dict(lam=3.06, gamma=0.145, eps=0.09, d=9119, L=41)),
    ((0.9, 0.1, 0.05, 0.2, 0.0), dict(lam=0.02, gamma=1.9, eps=0.0, d=400, L=10)),
    ((0.0, 0.0, 0.0, 0.0, 0.0), dict(lam=1.0, gamma=0.5**0.5, eps=0.5, d=80, L=1)),
    ((0.1, -0.5, 0.5, -0.1, -0.3), dict(lam=0.1, gamma=0.5**0.5, eps=0.0, d=400, L=10)),
]


def _kernels():
    return pytest.importorskip("slr_verify.kernels.api")


def agree(quad_value, kernel_value, tol=1e-12):
    return abs(float(quad_value) - kernel_value) <= tol * abs(float(quad_value))


@pytest.mark.parametrize("point,model", AGREE_POINTS)
def test_closed_form_risk_agrees_with_quadrature(point, model):
    K = _kernels()
    assert agree(quad_risk(*point, **model, dps=20), K.risk(*point, **model))


def test_closed_form_gradient_agrees_with_quadrature():
    K = _kernels()
    point, model = AGREE_POINTS[1]
    q, k = quad_risk_gradient(*point, **model, dps=20), K.risk_gradient(*point, **model)
    scale = max(abs(float(x)) for x in q.values())
    for name in q:
        assert abs(float(q[name]) - k[name]) <= 1e-12 * scale, name


def test_closed_form_bayes_gap_agrees_with_quadrature():
    K = _kernels()
    for m in (dict(lam=0.1, gamma=0.5**0.5, eps=0.0, d=10**4, L=1), dict(lam=1e-3, gamma=0.5**0.5, eps=0.0, d=10**12, L=1)):
        q = quad_bayes_gap(**m, dps=20)
        assert abs(float(mpmath.log(q)) - K.log_bayes_gap(**m)) <= 1e-12 * abs(float(mpmath.log(q)))
    m = dict(lam=0.1, gamma=0.5**0.5, eps=0.0, d=10**4, L=1)
    assert agree(quad_bayes_gap(**m, dps=20), K.bayes_gap(**m))


@pytest.mark.parametrize("t,g", [(0, 1e-12), (0.5, 0.3), (1e3, 1e3), (5.0, 2.0)])
def test_closed_form_zeta_agrees_with_quadrature(t, g):
    K = _kernels()
    assert agree(quad_zeta(t, g, dps=20), K.zeta(t, g))


def test_mutations_are_detected():
    # The agreement check bites: a factor 1 + 1e-6 on either side, or a sign flipped inside the
    # quadrature route, breaks it.
    K = _kernels()
    point, model = AGREE_POINTS[0]
    q = quad_risk(*point, **model, dps=20)
    k = K.risk(*point, **model)
    assert agree(q, k)
    assert not agree(q, k * (1 + 1e-6))
    assert not agree(q * (1 + mpmath.mpf("1e-6")), k)
    from slr_verify.routes import token_laws

    orig = token_laws.one_minus_signed
    try:
        token_laws.one_minus_signed = lambda alpha, x: -orig(alpha, x) + 2 * alpha  # alpha - erf -> alpha + erf
        assert not agree(quad_risk(*point, **model, dps=20), k)
    finally:
        token_laws.one_minus_signed = orig


@pytest.mark.slow
def test_closed_form_agrees_with_quadrature_fuzzed():
    from hypothesis import given
    from strategies import params, realisable_overlaps
    K = _kernels()

    @given(realisable_overlaps(), params)
    def check(point, model):
        try:
            K.risk(*point, **model)
        except ValueError:
            return
        assert agree(quad_risk(*point, **model, dps=20), K.risk(*point, **model))

    check()


# ------------------------------------------------------------------------------------------
# Input validation
# ------------------------------------------------------------------------------------------

@pytest.mark.parametrize("change,name", [
    (dict(lam=0.0), "lam"), (dict(lam=-1.0), "lam"), (dict(gamma=0.0), "gamma"),
    (dict(eps=-0.1), "eps"), (dict(d=0), "d"), (dict(d=2.5), "d"), (dict(L=0), "L"),
    (dict(L=1.5), "L"), (dict(lam=float("nan")), "lam"), (dict(gamma=float("inf")), "gamma"),
    (dict(dps=2), "dps"), (dict(d=[10, 20]), "d"), (dict(eps=True), "eps"),
])
def test_invalid_model_parameters_raise(change, name):
    kw = dict(MODEL, **change)
    for fn, args in ((quad_risk, POINT), (quad_risk_gradient, POINT), (quad_manifold_risk, POINT[:2]),
                     (quad_oracle_risk, ()), (quad_bayes_gap, ())):
        with pytest.raises(ValueError, match=name):
            fn(*args, **kw)


@pytest.mark.parametrize("point,name", [
    ((1, 1, 1, 0, 0), "not realisable"),
    ((0.5, 0.5, 0.5, 0.5, -1.0), "not realisable"),
    ((1.5, 0, 0, 0, 0), "kappa"),
    ((0, float("nan"), 0, 0, 0), "nu"),
    ((0, 0, 0, 0, [0.1, 0.2]), "rho"),
])
def test_invalid_overlaps_raise(point, name):
    with pytest.raises(ValueError, match=name):
        quad_risk(*point, **MODEL)


def test_rank_larger_than_d_is_rejected():
    with pytest.raises(ValueError, match="dimension"):
        quad_risk(*POINT, **dict(MODEL, d=2))


@pytest.mark.parametrize("t,g,name", [(0, -1.0, "g"), (float("nan"), 1.0, "t"), (0, float("inf"), "g")])
def test_invalid_zeta_inputs_raise(t, g, name):
    with pytest.raises(ValueError, match=name):
        quad_zeta(t, g)
