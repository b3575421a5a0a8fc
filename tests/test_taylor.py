"""First-order Taylor models (:mod:`slr_verify.kernels.taylor`; `docs/MATH.md` §17).

Containment, stated once (:func:`_contains`): at every sampled point c + h of the box, the exact value of the
function (Python fractions, or arb at the point) lies in v + g . h + R. Independent routes: exact rational
arithmetic for rational functions; the generated kernels on point balls for the branch and bound's coefficients.
"""
from fractions import Fraction

import numpy as np
import pytest
from flint import arb, ctx

from slr_verify.kernels.taylor import TaylorModel


def _contains(tm, h, exact):
    """The exact value at c + h lies in the Taylor model's form at h (exact: a Fraction or an arb ball)."""
    form = tm.v + sum((gi * arb(hi) for gi, hi in zip(tm.g, h)), arb(0)) + tm.R
    x = exact if isinstance(exact, arb) else arb(exact.numerator) / exact.denominator
    return form.contains(x)


RATIONAL = {
    "product": lambda x, y: x * y * y - 3 * x + 1,
    "quotient": lambda x, y: (x * y - 1) / (x * x + y + 2),
    "cancelling": lambda x, y: (x + y) ** 3 - x**3 - 3 * x * x * y - 3 * x * y * y,  # = y^3: the linear parts cancel
    "nested": lambda x, y: 1 / (1 + 1 / (x * x + 1)) - y**-2,
}


@pytest.mark.parametrize("name", list(RATIONAL))
@pytest.mark.parametrize("c, r", [((0.3, 1.7), (1e-3, 2e-3)), ((-0.5, 1.2), (0.1, 0.05)), ((2.0, 3.0), (0.5, 1e-8))])
def test_rational_functions_are_contained(name, c, r):
    """Exact rationals at 40 points of the box (corners included) lie in the model's form."""
    f = RATIONAL[name]
    x, y = TaylorModel.variable(arb(c[0]), 0, r), TaylorModel.variable(arb(c[1]), 1, r)
    tm = f(x, y)
    rng = np.random.default_rng(0)
    hs = [(sx * r[0], sy * r[1]) for sx in (-1, 1) for sy in (-1, 1)] + [tuple(rng.uniform(-1, 1, 2) * r) for _ in range(36)]
    for h in hs:
        exact = f(Fraction(c[0]) + Fraction(h[0]), Fraction(c[1]) + Fraction(h[1]))
        assert _contains(tm, h, exact), (name, h)
        assert tm.range().contains(arb(exact.numerator) / exact.denominator)


def test_cancellation_is_second_order():
    """(x + y)^3 - x^3 - 3x^2 y - 3 x y^2 = y^3: with the linear parts exact, the model's range is the true range of y^3
    over y in [0.499, 0.501] (exact half-width 0.501^3 - 0.5^3 ~ 7.5e-4) up to O(r^2), where plain balls give the
    O(r) width of the expanded terms (~100 times wider)."""
    r = (1e-3, 1e-3)
    x, y = TaylorModel.variable(arb(2.0), 0, r), TaylorModel.variable(arb(0.5), 1, r)
    tm = RATIONAL["cancelling"](x, y)
    true_half = float((Fraction("0.501") ** 3 - Fraction("0.499") ** 3) / 2)
    plain = RATIONAL["cancelling"](arb(2.0, 1e-3), arb(0.5, 1e-3))
    assert true_half <= float(tm.range().rad()) <= true_half * (1 + 0.1)
    assert float(plain.rad()) > 50 * true_half


def test_reciprocal_of_a_model_through_zero_raises():
    x = TaylorModel.variable(arb(0.01), 0, (0.1,))
    with pytest.raises(ZeroDivisionError):
        1 / x


@pytest.mark.parametrize("box", [((0.3, 0.31), (0.3, 0.31)), ((0.05, 0.06), (0.5, 0.52)), ((0.9, 0.95), (0.85, 0.86)),
                                 ((0.005, 0.015), (0.1, 0.1))])
def test_coefficient_and_algebra_models_contain_point_values(box):
    """The branch and bound's second stage: the valley algebra and the dual bound on line t (at a fixed beta) on the
    coefficients' Taylor models over a (kappa, lam) box contain, at 12 points of the box, the same kernels evaluated on
    point balls (arb at the point, an enclosure of the exact value): the coefficients' remainder over the box
    (`profile.SettingBalls.coefficient_models`: the closed-form second partials over the box) is sound."""
    import math

    from slr_verify.checker.balls import centre_radius
    from slr_verify.checker.profile import SettingBalls
    from slr_verify.kernels.profile import dual_kernels

    old = ctx.prec
    ctx.prec = 128
    try:
        ev = SettingBalls(math.sqrt(0.5), 0.0, 400, 10)
        DK = dual_kernels()
        (k0, k1), (l0, l1) = box
        (kc, rk), (lc, rl) = centre_radius(k0, k1), centre_radius(l0, l1)
        co = ev.coefficient_models((k0, k1), (l0, l1))
        K = TaylorModel.variable(arb(kc), 0, (rk, rl))
        beta = arb(0.05)
        models = list(DK.valley(*co[:-1], K)) + list(DK.dual_line(*co, K, beta)) + [co[-1]]
        rng = np.random.default_rng(1)
        for sk, sl in [(0, 0), (1, 1), (0, 1), (1, 0)] + [tuple(rng.uniform(0, 1, 2)) for _ in range(8)]:
            x, y = (k1 if sk == 1 else k0 + sk * (k1 - k0)), (l1 if sl == 1 else l0 + sl * (l1 - l0))  # corners included
            h = (x - kc, y - lc)  # exact (Sterbenz: x, kc within a factor 2, or x = 0)
            kp, lp = arb(x), arb(y)
            cp = DK.coef(kp, lp, *ev.P)
            dm = DK.det_m(*cp)[0]
            exact = list(DK.valley(*cp, kp)) + list(DK.dual_line(*cp, dm, kp, beta)) + [dm]
            for tm, e in zip(models, exact):
                assert _contains(tm, h, e), (box, h)
    finally:
        ctx.prec = old


#: pairs of models with remainders away from 0 (as the coefficients' series remainders are): (v, g, R as (mid, rad));
#: the second pair has no linear part, so that the product's remainder v1 R2 + v2 R1 + R1 R2 has no slack to hide a term
_OFFSET = [[(0.7, (0.3, -0.2), (0.01, 0.002)), (-1.3, (0.5, 0.1), (-0.02, 0.001))],
           [(0.7, (0.0, 0.0), (0.1, 1e-4)), (-1.3, (0.0, 0.0), (-0.2, 1e-4))]]


def _members(pair, r):
    """Members f = v + g . h + rho of the two models of ``pair`` at the corners and centre of the box and at the ends
    of their remainders, as exact rationals: (h, [f of the first model, f of the second]) for each choice."""
    F = Fraction
    for h in [(sx * r[0], sy * r[1]) for sx in (-1, 0, 1) for sy in (-1, 0, 1)]:
        for rho1 in (-1, 1):
            for rho2 in (-1, 1):
                vals = []
                for (v, g, (m, rad)), rho in zip(pair, (rho1, rho2)):
                    vals.append(F(v) + F(g[0]) * F(h[0]) + F(g[1]) * F(h[1]) + F(m) + rho * F(rad))
                yield h, vals


@pytest.mark.parametrize("pair", [0, 1])
@pytest.mark.parametrize("op", ["product", "quotient", "reciprocal", "difference", "negated product"])
def test_operations_on_models_with_offset_remainders_are_contained(op, pair):
    """Models whose remainder balls do not hold 0 (the algebra's inputs in the branch and bound; a variable's is 0, so
    the rational tests above never see the remainder's sign): every exact product, quotient... of members (exact
    rationals) lies in the result's form. Pins the signs and presence of the product's remainder terms v1 R2, v2 R1,
    R1 R2 and the reciprocal's -R / v^2 (the signs of L1 L2, L1 R2, L2 R1 are immaterial: L1, L2 are centred at 0)."""
    r = (0.1, 0.05)
    x, y = (TaylorModel(arb(v), [arb(t) for t in g], arb(*R), r) for v, g, R in _OFFSET[pair])
    f = {"product": lambda a, b: a * b, "quotient": lambda a, b: a / b, "reciprocal": lambda a, b: 1 / a,
         "difference": lambda a, b: a - b, "negated product": lambda a, b: -(a * b) + b}[op]
    tm = f(x, y)
    for h, (a, b) in _members(_OFFSET[pair], r):
        assert _contains(tm, h, f(a, b)), (op, h, a, b)
