r"""Enclosures of zeta and its complement on arb balls (`docs/MATH.md` §§4 and 6).

With :math:`\alpha = \sqrt{1+2g^2}`, :math:`s = t/\alpha \ge 0`, :math:`c = s^2`, :math:`a = 1/\sqrt{1+4g^2}`,

.. math::

    \bar\zeta_g(t) = \operatorname{erfc}(s)^2 + D, \qquad
    D = \frac4\pi\int_a^1 \frac{e^{-c(1+x^2)}}{1+x^2}\,dx ,

the Owen-T closed form of :mod:`slr_verify.kernels.special`. D is enclosed by arb's rigorous
integration (``acb.integral``): for c <= 1 on the x-form; for c > 1 on the substitution
:math:`u = c(x^2 - a^2)`, :math:`D = \frac4\pi e^{-c(1+a^2)}\int_0^{c(1-a^2)} \frac{e^{-u}\,du}{2\sqrt{c(a^2c+u)}\,(1+a^2+u/c)}`,
integrated on [0, min(c(1 - a^2), 80)] with the rest bounded by
:math:`e^{-80}/(2ca(1+a^2))` (the integrand is below :math:`e^{-u}/(2ca(1+a^2))`). arb's exponent range
is unbounded, so the enclosure survives where the value underflows float64 (Corollary 2 at d = 1e12).
"""
from __future__ import annotations

from flint import acb, arb, ctx

_U_MAX = 80


def erf_variance_arb(t: arb, g: arb) -> arb:
    """D = Var erf(t + gZ) (t >= 0), an enclosure."""
    g2 = g * g
    s = t / (1 + 2 * g2).sqrt()
    c = s * s
    a = 1 / (1 + 4 * g2).sqrt()
    pi = arb.pi()
    if c.upper() <= 1:
        I = acb.integral(lambda x, _: (-c * (1 + x * x)).exp() / (1 + x * x), a, 1).real
        return 4 / pi * I
    top = c * (1 - a * a)
    U = top if top.upper() <= _U_MAX else arb(_U_MAX)
    I = acb.integral(lambda u, analytic: (-u).exp() / (2 * (c * (a * a * c + u)).sqrt(analytic=analytic) * (1 + a * a + u / c)),
                     0, U).real
    if top.upper() > _U_MAX:
        I = I + arb(0).union((-arb(_U_MAX)).exp() / (2 * c * a * (1 + a * a)))  # the tail, in [0, bound]
    return 4 / pi * (-c * (1 + a * a)).exp() * I


#: enclosures of D by the exact balls (t, g) and the precision: a branch and bound and its checker evaluate the same
#: balls many times (zeta(0, lam) for every box of a lam piece; the constant term of each Taylor series twice)
_MEMO: dict = {}
_MEMO_SIZE = 1 << 14


def _memo_variance(t: arb, g: arb) -> arb:
    key = (ctx.prec, t.mid().man_exp(), t.rad().man_exp(), g.mid().man_exp(), g.rad().man_exp())
    out = _MEMO.get(key)
    if out is None:
        if len(_MEMO) >= _MEMO_SIZE:
            _MEMO.clear()
        out = _MEMO[key] = erf_variance_arb(t, g)
    return out


def zetac_arb(t: arb, g: arb) -> arb:
    """E erfc(t + gZ)^2 for t >= 0, an enclosure."""
    s = t / (1 + 2 * g * g).sqrt()
    e = s.erfc()
    return e * e + _memo_variance(t, g)


def zeta_arb(t: arb, g: arb) -> arb:
    """E erf(t + gZ)^2 (zeta is even in t), an enclosure."""
    t = abs(t)
    s = t / (1 + 2 * g * g).sqrt()
    e = s.erf()
    return e * e + _memo_variance(t, g)
