r"""Ball-arithmetic kernels: SymPy expressions -> functions on python-flint ``arb`` balls.

Every operation of the generated code is an ``arb`` operation, so the result is an enclosure: a
ball certain to contain the exact value for every point of the argument balls. Integers stay exact
Python integers (integer powers are products, so balls around 0 stay defined), rationals become exact ball
quotients, pi is ``arb.pi()``, erf, erfc, exp, sqrt, asin, log call arb's rigorous functions, and
zeta, zetac the enclosures of :mod:`.special_arb` (rigorous integration of the Owen-T form). The working
precision is ``flint.ctx.prec`` (bits) at the time of the call.

`docs/MATH.md` §14 (evidence tiers): these kernels are the route of the ``proved (ball
arithmetic)`` tier.
"""
from __future__ import annotations

import sympy as sp
from flint import arb, arb_series
from sympy.printing.pycode import PythonCodePrinter

from .special_arb import zeta_arb, zetac_arb
from .taylor import TaylorModel

__all__ = ["ArbPrinter", "ARB_NAMESPACE", "ARB_SERIES_NAMESPACE", "generate_arb"]


def _ball(x):
    return x if isinstance(x, arb) else arb(x)


class ArbPrinter(PythonCodePrinter):
    """Python code on arb balls (see the module docstring)."""

    def _print_Rational(self, e):
        return "(arb(%d)/%d)" % (e.p, e.q)

    def _print_Half(self, e):
        return "(arb(1)/2)"

    def _print_Float(self, e):
        raise ValueError(f"a float constant {e} has no exact ball: derive the expression with exact numbers")

    def _print_Pi(self, e):
        return "arb.pi()"

    def _print_Pow(self, e, rational=False):
        b, x = e.args
        if x == sp.S.Half:
            return "_sqrt(%s)" % self._print(b)
        if x == -sp.S.Half:
            return "(1/_sqrt(%s))" % self._print(b)
        if x.is_Integer:
            return "_ipow(%s, %d)" % (self._print(b), int(x))
        return "_pow(%s, %s)" % (self._print(b), self._print(x))

    def _print_erf(self, e):
        return "_erf(%s)" % self._print(e.args[0])

    def _print_erfc(self, e):
        return "_erfc(%s)" % self._print(e.args[0])

    def _print_exp(self, e):
        return "_exp(%s)" % self._print(e.args[0])

    def _print_zeta(self, e):
        return "_zeta(%s, %s)" % (self._print(e.args[0]), self._print(e.args[1]))

    def _print_zetac(self, e):
        return "_zetac(%s, %s)" % (self._print(e.args[0]), self._print(e.args[1]))

    def _print_asin(self, e):
        return "_asin(%s)" % self._print(e.args[0])

    def _print_log(self, e):
        return "_log(%s)" % self._print(e.args[0])

    def _print_cos(self, e):
        return "_cos(%s)" % self._print(e.args[0])

    def _print_sin(self, e):
        return "_sin(%s)" % self._print(e.args[0])


def _ipow(b, n):
    """b**n for an integer n by products (arb's ``**`` goes through log and gives nan for a ball
    containing 0); an even power of a ball around 0 keeps its sign by taking the absolute value."""
    b = _ball(b)
    if n < 0:
        return 1 / _ipow(b, -n)
    base = abs(b) if n % 2 == 0 else b
    out = arb(1)
    for _ in range(n):
        out = out * base
    return out


def _monotone(f):
    """f on a ball as the hull of f at its two end points: exact for a monotone f (erf, erfc, exp,
    sqrt), and much tighter than arb's midpoint-radius bound on wide balls."""

    def g(x):
        x = _ball(x)
        if x.rad() == 0 or not x.is_finite():
            return f(x)
        return f(x.lower()).union(f(x.upper()))

    return g


ARB_NAMESPACE = {
    "_ipow": _ipow,
    "arb": arb,
    "_sqrt": lambda x: _ball(x).sqrt(),
    "_exp": _monotone(lambda x: x.exp()),
    "_erf": _monotone(lambda x: x.erf()),
    "_erfc": _monotone(lambda x: x.erfc()),
    "_asin": _monotone(lambda x: x.asin()),
    "_log": _monotone(lambda x: x.log()),
    "_zeta": lambda t, g: zeta_arb(_ball(t), _ball(g)),
    "_zetac": lambda t, g: zetac_arb(_ball(t), _ball(g)),
    "_pow": lambda b, x: _ball(b) ** _ball(x),
    "_cos": lambda x: _ball(x).cos(),
    "_sin": lambda x: _ball(x).sin(),
}


def _is_series(x):
    return isinstance(x, (arb_series, TaylorModel))


def _series(x, n):
    """x as a series of length n (a number or ball: a constant)."""
    return x if _is_series(x) else arb_series([_ball(x)], prec=n)


def _sipow(b, n):
    """b**n for an integer n: products (series) or :func:`_ipow` (balls)."""
    if not _is_series(b):
        return _ipow(b, n)
    if n < 0:
        return 1 / _sipow(b, -n)
    out = b
    for _ in range(n - 1):
        out = out * b
    return out if n else b * 0 + 1


def _dispatch(name):
    ball = ARB_NAMESPACE[name]
    return lambda x: getattr(x, name[1:])() if _is_series(x) else ball(x)


def _zeta_series(t, g):
    """zeta(t, g) on series (Taylor arithmetic): the constant term is :func:`zeta_arb` at the constant
    terms (an enclosure over the balls), the rest the integral of d zeta = zeta_t dt + zeta_g dg,
    both closed forms (`docs/MATH.md` §4: zeta_t in erf and exp, zeta_g = g zeta_tt)."""
    if not (_is_series(t) or _is_series(g)):
        return ARB_NAMESPACE["_zeta"](t, g)
    n = (t if _is_series(t) else g).prec
    t, g = _series(t, n), _series(g, n)
    c0 = lambda s: (s.coeffs() or [arb(0)])[0]  # a zero series has no coefficients
    z0 = ARB_NAMESPACE["_zeta"](c0(t), c0(g))
    zt, zg = _zeta_partials()(t, g)
    dz = zt * t.derivative() + zg * g.derivative()
    out = [z0] + list((dz.integral()).coeffs()[1:n])
    return arb_series(out + [arb(0)] * (n - len(out)), prec=n)


_ZETA_PARTIALS = []


def _zeta_partials():
    """(t, g) -> [d zeta/dt, d zeta/dg] on series, generated from :mod:`slr_verify.symbolic.zeta`."""
    if not _ZETA_PARTIALS:
        from ..symbolic.zeta import zeta

        t, g = sp.symbols("t g", positive=True)
        _ZETA_PARTIALS.append(generate_arb((t, g), [sp.diff(zeta(t, g), t), sp.diff(zeta(t, g), g)], series=True))
    return _ZETA_PARTIALS[0]


#: the namespace of :func:`generate_arb` with ``series=True``: every function also takes python-flint's
#: ``arb_series`` (truncated Taylor series with ball coefficients), and rational operations take
#: :class:`.taylor.TaylorModel`
ARB_SERIES_NAMESPACE = dict(ARB_NAMESPACE, _ipow=_sipow, _zeta=_zeta_series,
                            _pow=lambda b, x: (b.log() * x).exp() if _is_series(b) else ARB_NAMESPACE["_pow"](b, x),
                            **{k: _dispatch(k) for k in ("_sqrt", "_exp", "_erf", "_erfc", "_cos", "_sin")})


def generate_arb(args, exprs, series=False):
    """A function of arb balls ``args`` returning enclosures of ``exprs`` (a list). ``series``: the
    arguments may also be ``arb_series`` (Taylor arithmetic: with a ball as the constant term, the k-th
    coefficient encloses the k-th Taylor coefficient over the whole ball)."""
    settings = {"fully_qualified_modules": False, "inline": True, "allow_unknown_functions": False, "user_functions": {}}
    ns = ARB_SERIES_NAMESPACE if series else ARB_NAMESPACE
    f = sp.lambdify(args, exprs, modules=[ns], printer=ArbPrinter(settings), cse=True)
    if series:
        return f

    def balls(*xs):
        return [_ball(v) for v in f(*xs)]  # constant entries (an exact 0) come back as balls too

    return balls
