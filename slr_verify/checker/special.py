r"""Enclosures of zeta and its complement on arb balls through D = Var erf(t + gZ) (`docs/MATH.md` §4, "D in the
checker"; `docs/certificates.md`, "The checker, module by module").
"""
from __future__ import annotations

import math

from flint import acb, arb, arb_poly, arb_series, ctx

from .balls import outward

_U_MAX = 80
_RHO, _N_MAX = 0.8, 64  # the Taylor route's disk radius and its most terms


def series_integral(c: arb, a: arb, n: int) -> tuple:
    """(I, rest): int_a^1 f = int_{-w}^{w} f(m + u) du (m, w = (1 +- a)/2, w < 0.8) is in I + [-rest, rest], I the first n
    terms of f's series at m, integrated, and rest = 2 w M (w/0.8)^n / (1 - w/0.8) by Cauchy (|f| <= M = e^(-c l) / l on
    |z - m| <= 0.8, where Re(1 + z^2) >= l = 1 - 0.8^2 + max(0, m - 0.8)^2 > 0)."""
    m, w = (1 + a) / 2, (1 - a) / 2
    x = m.lower() - _RHO  # the disk's least real part, or 0 where it reaches the imaginary axis
    r, ell = w / _RHO, 1 - arb(_RHO) ** 2 + (x * x if x > 0 else 0)
    cap, ctx.cap = ctx.cap, n  # python-flint truncates every series at ctx.cap terms
    try:
        u = arb_series([m, 1], prec=n)
        co = ((-c * (1 + u * u)).exp() / (1 + u * u)).coeffs()
    finally:
        ctx.cap = cap
    P = arb_poly(co).integral()  # coeffs() drops exact zeros at the end: the rest counts from there
    return P(w) - P(-w), 2 * (-arb(c.lower()) * ell).exp() / ell * w * r ** len(co) / (1 - r)


def _taylor_integral(c: arb, a: arb):
    """:func:`series_integral` with n terms for a rest below 2^-p of the value, or None where w >= 0.4 or more than 64
    terms would be needed (the rest is below 2 w r^n / ((1 - 0.8^2)(1 - r)) for c >= 0, the value above w e^(-2c))."""
    R, c_hi = outward((1 - a) / (2 * _RHO))[1], outward(c)[1]
    if not (0 < R < 0.5 and c_hi < 200):
        return None
    n = math.ceil((ctx.prec + 3 - math.log2((1 - _RHO ** 2) * (1 - R)) + 2 * c_hi / math.log(2)) / -math.log2(R))
    if n > _N_MAX:
        return None
    I, rest = series_integral(c, a, n)
    return I + arb(0, rest.upper()) if rest.upper() <= max(abs(I).upper() * 2.0 ** -ctx.prec, I.rad()) else None
def erf_variance_arb(t: arb, g: arb) -> arb:
    """D = Var erf(t + gZ) (t >= 0), an enclosure."""
    g2 = g * g
    s = t / (1 + 2 * g2).sqrt()
    c = s * s
    a = 1 / (1 + 4 * g2).sqrt()
    pi = arb.pi()
    if t == 0 and t.is_exact():
        return 1 - 4 / pi * a.atan()
    I = _taylor_integral(c, a)
    if I is not None:
        return 4 / pi * I
    if c.upper() <= 1:
        return 4 / pi * acb.integral(lambda x, _: (-c * (1 + x * x)).exp() / (1 + x * x), a, 1).real
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
    e, c, a = s.erf(), s * s, 1 / (1 + 4 * g * g).sqrt()
    small = 4 / arb.pi() * (1 - a) * (-c * (1 + a * a)).exp() / (1 + a * a) if s.lower() > 4 else arb(1)
    return e * e + (arb(0).union(small) if small.upper() < 2.0 ** (-ctx.prec - 2) else _memo_variance(t, g))
