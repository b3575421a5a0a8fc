"""zeta (`docs/MATH.md` §4): the float64 kernel against 60-digit mpmath, the `docs/MATH.md` §4 facts, the SymPy rules.

References, by test:
* ``zeta_mp`` at 60 digits: the Owen-T closed form evaluated by mpmath (itself checked here
  against direct integration over Z at 40 digits, a route that uses no identity);
* direct mpmath integration of the definition E[erf(t + gZ)^2] (and of its derivatives under
  the integral sign) for the `docs/MATH.md` §4 facts and the SymPy derivative rules.
"""
import math

import mpmath
import numpy as np
import pytest
import sympy as sp
from flint import acb, arb, ctx
from hypothesis import given
from hypothesis import strategies as st

import slr_verify
from slr_verify.kernels import special
from slr_verify.symbolic.zeta import dzeta_dt, zeta, zeta_at_zero, zetac

# Dense grid in the style of scipy.special's mpmath tests: both signs, 0, extremes included.
T_GRID = np.concatenate([[0.0], np.geomspace(1e-8, 1e3, 23), -np.geomspace(1e-3, 1e3, 6)])
G_GRID = np.concatenate([np.geomspace(1e-12, 1e3, 16), [0.3, 0.5, 0.7071067811865476]])
RTOL = 4e-15  # ~18 ulps; measured worst 2.4e-15 on a 400-point random sample


def zeta_by_integration(t, g, dps=60):
    """E[erf(t + gZ)^2] straight from the definition (mpmath quadrature over Z), at ``dps`` digits."""
    with mpmath.workdps(dps):
        t, g = mpmath.mpf(t), mpmath.mpf(g)
        f = lambda z: mpmath.erf(t + g * z) ** 2 * mpmath.npdf(z)
        # breakpoints: the normal bulk (|z| <= 8) and the kink of erf near z = -t/g
        bulk = [mpmath.mpf(x) for x in (-8, -2, 0, 2, 8)]
        pts = sorted({-mpmath.inf, *bulk, -t / g - 3 / g, -t / g, -t / g + 3 / g, mpmath.inf}) if g else None
        return mpmath.quad(f, pts) if g else mpmath.erf(t) ** 2


def _d_erf_squared(x):
    """(erf^2)'(x) = 2 erf(x) erf'(x), the integrand of zeta's derivatives taken under the sign."""
    return 4 / mpmath.sqrt(mpmath.pi) * mpmath.erf(x) * mpmath.exp(-x * x)


@pytest.mark.slow
def test_zeta_against_mpmath_random_dense():
    rng = np.random.default_rng(20251121)
    t = np.sign(rng.uniform(-1, 1, 3000)) * 10 ** rng.uniform(-10, 3, 3000)
    g = 10 ** rng.uniform(-12, 3, 3000)
    ref = np.array([float(special.zeta_mp(a, b, dps=60)) for a, b in zip(t, g)])
    np.testing.assert_allclose(slr_verify.zeta(t, g), ref, rtol=RTOL, atol=0)


@pytest.mark.parametrize(
    "t,g", [(0.0, 1e-12), (0.0, 0.3), (0.7, 0.05), (2.5, 1.0), (-4.0, 0.2), (1e3, 1e-12), (30.0, 10.0), (0.01, 1e3)]
)
def test_closed_form_matches_direct_integration(t, g):
    ref = zeta_by_integration(t, g)
    assert abs(special.zeta_mp(t, g, dps=40) - ref) <= mpmath.mpf(10) ** -30 * abs(ref)


def test_done_when_points():
    """Within 1e-13 relative of 60-digit mpmath at g = 1e-12, t = 0 and |t| = 1e3."""
    for t, g in [(0.0, 1e-12), (1e3, 1e-12), (-1e3, 1e-12), (1e3, 1e3), (0.0, 1e3), (0.0, 1.0)]:
        ref = special.zeta_mp(t, g, dps=60)
        assert abs(slr_verify.zeta(t, g) - ref) <= 1e-13 * abs(ref)


# ----------------------------------------------------------------- `docs/MATH.md` §4 facts
@given(t=st.floats(-50, 50), g=st.floats(0, 20))
def test_even_in_t(t, g):
    assert slr_verify.zeta(t, g) == slr_verify.zeta(-t, g)


@pytest.mark.parametrize("g", [1e-6, 0.5, 3.0, 100.0])
def test_tends_to_one(g):
    t = 40 * math.sqrt(1 + 2 * g * g)
    assert 1 - slr_verify.zeta(t, g) < 1e-15 and slr_verify.zeta(t, g) <= 1.0


@pytest.mark.parametrize("g", G_GRID)
def test_value_at_zero(g):
    """zeta_g(0) = (2/pi) arcsin(2g^2/(1 + 2g^2)), evaluated at 40 digits as the reference."""
    with mpmath.workdps(40):
        ref = 2 / mpmath.pi * mpmath.asin(2 * mpmath.mpf(g) ** 2 / (1 + 2 * mpmath.mpf(g) ** 2))
    assert abs(slr_verify.zeta(0.0, g) - ref) <= 4e-16 * ref


@pytest.mark.parametrize("t,g", [(0.3, 0.2), (1.5, 0.7), (-2.0, 1.3), (4.0, 0.05), (0.01, 3.0)])
def test_derivative_in_t(t, g):
    """`docs/MATH.md` §4's d/dt zeta against 2 E[erf(t+gZ) erf'(t+gZ)], integrated directly."""
    with mpmath.workdps(30):
        ref = mpmath.quad(lambda z: _d_erf_squared(t + g * z) * mpmath.npdf(z), [-mpmath.inf, -t / g, 0, mpmath.inf])
        T, G = sp.symbols("t g")
        got = sp.lambdify((T, G), zeta(T, G).diff(T), "mpmath")(mpmath.mpf(t), mpmath.mpf(g))
        assert abs(got - ref) <= mpmath.mpf(10) ** -25 * (1 + abs(ref))
        assert got == sp.lambdify((T, G), dzeta_dt(T, G), "mpmath")(mpmath.mpf(t), mpmath.mpf(g))


@pytest.mark.parametrize("t,g", [(0.3, 0.2), (1.5, 0.7), (0.0, 1.3), (4.0, 0.05)])
def test_derivative_in_g(t, g):
    """SymPy's d/dg zeta (heat equation) against the direct integral differentiated under the sign,
    E[2 erf(t + gZ) erf'(t + gZ) Z], 30 digits (one quadrature; no heat equation on this route; measured worst
    4e-32)."""
    T, G = sp.symbols("t g")
    with mpmath.workdps(30):
        got = sp.lambdify((T, G), zeta(T, G).diff(G), "mpmath")(mpmath.mpf(t), mpmath.mpf(g))
        tt, gg = mpmath.mpf(t), mpmath.mpf(g)
        ref = mpmath.quad(lambda z: _d_erf_squared(tt + gg * z) * z * mpmath.npdf(z),
                          sorted({-mpmath.inf, -8, -tt / gg, 0, 8, mpmath.inf}))
        assert abs(got - ref) <= mpmath.mpf(10) ** -25 * (1 + abs(ref))


def test_sympy_rules():
    T, G = sp.symbols("t g", positive=True)
    assert zeta(-T, G) == zeta(T, G) and zeta(T, -G) == zeta(T, G)
    assert zeta(T, 0) == sp.erf(T) ** 2
    assert zeta(0, G).rewrite(sp.asin) == zeta_at_zero(G)
    assert sp.simplify(zetac(T, G).rewrite(zeta) - (1 - 2 * sp.erf(T / sp.sqrt(1 + 2 * G**2)) + zeta(T, G))) == 0
    assert sp.simplify(zetac(T, G).diff(T) - zetac(T, G).rewrite(zeta).diff(T)) == 0
    assert r"\zeta_{g}" in sp.latex(zeta(T, G))


# ----------------------------------------------------------------- complement (`docs/MATH.md` §6)
@pytest.mark.parametrize(
    "t,g",
    [(0.5, 0.1), (3.0, 1e-6), (5.0, 0.3), (10.0, 0.7), (30.0, 0.5), (100.0, 2.0), (7071.0, 0.007), (1e3, 1e3), (-3.0, 0.4)],
)
def test_zetac_full_relative_accuracy(t, g):
    """log zetac against mpmath: the value may be 1e-100 or far below the float64 range."""
    ref = special.zetac_mp(t, g, dps=40)
    with mpmath.workdps(40):
        ref_log = float(mpmath.log(ref))
    assert abs(special.log_zetac(t, g) - ref_log) <= 1e-14 * max(1.0, abs(ref_log))


def zetac_by_integration(t, g, prec=200):
    """E[erfc(t + gZ)^2] straight from the definition, an enclosure by arb's rigorous quadrature over Z (t > 0): the
    integrand peaks at z* = -4gt/(1 + 4g^2) with width w = 1/sqrt(1 + 4g^2) (`docs/MATH.md` §6); integrated on
    z* +- 40 w, the two tails (below 1e-300 of the value in the cases here, measured) left out of the ball. mpmath's
    tanh-sinh on the same integral stalls at ~3e-14 relative (measured at 50 and 80 digits), arb's does not."""
    old, ctx.prec = ctx.prec, prec
    try:
        t, g = arb(t), arb(g)
        zs, w = -4 * g * t / (1 + 4 * g * g), 1 / (1 + 4 * g * g).sqrt()
        f = lambda z, _: (t + g * z).erfc() ** 2 * (-(z * z) / 2).exp() / (2 * arb.pi()).sqrt()
        return acb.integral(f, zs - 40 * w, zs + 40 * w, abs_tol=arb(2) ** -4000).real
    finally:
        ctx.prec = old


@pytest.mark.parametrize("t,g", [(3.0, 1e-3), (20.0, 0.5), (60.0, 1.0)])
def test_complement_closed_form_matches_direct_integration(t, g):
    """zetac_mp's D (arb quadrature of the closed form's u-integral, truncated at u = 2 prec with its tail enclosed
    where c(1 - a^2) is larger: the last case) against the definition, where zetac is 5e-10, 4e-177 and 4e-629."""
    ref = zetac_by_integration(t, g)
    with mpmath.workdps(40):
        got = special.zetac_mp(t, g, dps=40)
        mid, rad = (mpmath.mpf(tuple(int(v) for v in x.man_exp())) for x in (ref.mid(), ref.rad()))
        assert rad <= mpmath.mpf(10) ** -35 * mid and abs(got - mid) <= mpmath.mpf(10) ** -30 * mid


def test_zetac_is_complement_where_no_cancellation():
    """zetac = 1 - 2 erf(t/alpha) + zeta, checked where the right side loses nothing (t <= 0)."""
    t = -np.geomspace(1e-3, 10, 20)
    g = 0.6
    rhs = 1 - 2 * special.sc.erf(t / math.sqrt(1 + 2 * g * g)) + special.zeta(t, g)
    np.testing.assert_allclose(special.zetac(t, g), rhs, rtol=2e-15)


@pytest.mark.parametrize("bad", [{"t": np.nan, "g": 1.0}, {"t": 1.0, "g": -1.0}, {"t": np.inf, "g": 1.0},
                                 {"t": 1.0, "g": np.nan}])
def test_invalid_input(bad):
    with pytest.raises(ValueError, match="t|g"):
        slr_verify.zeta(**bad)


def test_mp_D_raises_when_its_enclosure_is_too_wide(monkeypatch):
    """A quadrature enclosure wider than the working precision (here forced: every piece's ball widened to 1e-20
    relative) is refused with ArithmeticError, never returned as a number."""
    real = special.acb.integral

    class Wide:
        @staticmethod
        def integral(*args, **kw):
            ball = real(*args, **kw)
            return ball + arb(0, abs(ball.real.mid()) * arb("1e-20"))

    monkeypatch.setattr(special, "acb", Wide)
    with pytest.raises(ArithmeticError, match="wide"):
        special.zeta_mp(0.7, 0.5, dps=30)
    monkeypatch.undo()
    assert abs(special.zeta_mp(0.7, 0.5, dps=30) - zeta_by_integration(0.7, 0.5)) <= mpmath.mpf(10) ** -28
