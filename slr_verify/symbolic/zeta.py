r"""The special function zeta of `docs/MATH.md` §4, as SymPy functions.

.. math::

    \zeta_g(t) = \mathbb E[\operatorname{erf}(t + gZ)^2], \qquad
    \bar\zeta_g(t) = \mathbb E[\operatorname{erfc}(t + gZ)^2], \qquad Z \sim N(0, 1),\ g \ge 0.

Both are *data*: SymPy keeps them unevaluated, knows their derivatives in closed form, and the
kernel generator prints them as calls to the float64 implementations in
:mod:`slr_verify.kernels.special`.

Derivative rules (each is checked numerically against mpmath in the test suite):

* in t (differentiate under E and use the Gaussian-product identity; `docs/MATH.md` §4):
  :math:`\partial_t\zeta_g(t) = \frac{2}{\sqrt{1+2g^2}}\,
  \operatorname{erf}\big(t/\sqrt{(1+2g^2)(1+4g^2)}\big)\,\operatorname{erf}'\big(t/\sqrt{1+2g^2}\big)`;
* in g (Stein's lemma: :math:`\partial_g \mathbb E f(t+gZ) = g\,\mathbb E f''(t+gZ)`, the heat
  equation): :math:`\partial_g\zeta_g(t) = g\,\partial_t^2\zeta_g(t)`;
* :math:`\bar\zeta_g(t) = 1 - 2\operatorname{erf}(t/\sqrt{1+2g^2}) + \zeta_g(t)` because
  :math:`\mathbb E\operatorname{erf}(t+gZ) = \operatorname{erf}(t/\sqrt{1+2g^2})`; its derivatives follow.
"""
from __future__ import annotations

from functools import lru_cache

import mpmath
import sympy as sp

from ..model.params import keywords_checked


def erf_mean(t, g):
    r""":math:`\mathbb E[\operatorname{erf}(t + gZ)] = \operatorname{erf}(t/\sqrt{1+2g^2})` (`docs/MATH.md` §4)."""
    return sp.erf(t / sp.sqrt(1 + 2 * g**2))


def dzeta_dt(t, g):
    r"""Closed form of :math:`\partial_t \zeta_g(t)` (`docs/MATH.md` §4), in erf and erf' = (2/sqrt(pi)) exp(-x^2)."""
    alpha2 = 1 + 2 * g**2
    beta2 = alpha2 * (1 + 4 * g**2)
    return 2 / sp.sqrt(alpha2) * sp.erf(t / sp.sqrt(beta2)) * 2 / sp.sqrt(sp.pi) * sp.exp(-t**2 / alpha2)


def zeta_at_zero(g):
    r""":math:`\zeta_g(0) = \frac{2}{\pi}\arcsin\frac{2g^2}{1+2g^2}` (`docs/MATH.md` §4)."""
    return 2 / sp.pi * sp.asin(2 * g**2 / (1 + 2 * g**2))


@lru_cache(maxsize=None)
def _zeta_at_zero_mp():
    g = sp.Symbol("g", positive=True)
    return sp.lambdify(g, zeta_at_zero(g), "mpmath")


@keywords_checked
def zeta_at_zero_value(g, *, dps=40) -> float:
    """zeta_g(0) at one g > 0: :func:`zeta_at_zero`'s closed form (`docs/MATH.md` §4) evaluated by mpmath at ``dps``
    digits, rounded to the nearest float (an independent reference for the float64 kernel at t = 0)."""
    with mpmath.workdps(dps):
        return float(_zeta_at_zero_mp()(mpmath.mpf(g)))


class _Zeta(sp.Function):
    """Base of zeta and zetac: unevaluated special functions with a LaTeX form (their float64 and
    mpmath code is printed by :mod:`slr_verify.kernels.codegen`)."""

    _latex_symbol: str = ""

    def _latex(self, printer, exp=None):
        t, g = self.args
        s = r"%s_{%s}\left(%s\right)" % (self._latex_symbol, printer._print(g), printer._print(t))
        return s if exp is None else r"%s^{%s}" % (s, exp)


class zeta(_Zeta):
    r""":math:`\zeta_g(t) = \mathbb E[\operatorname{erf}(t+gZ)^2]`, called as ``zeta(t, g)``.

    Even in t and in g; unevaluated except at g = 0, where it is erf(t)^2.
    """

    nargs = 2
    _latex_symbol = r"\zeta"

    @classmethod
    def eval(cls, t, g):
        if g.is_zero:
            return sp.erf(t) ** 2
        if t.could_extract_minus_sign():
            return cls(-t, g)
        if g.could_extract_minus_sign():
            return cls(t, -g)
        return None

    def fdiff(self, argindex=1):
        t, g = self.args
        if argindex == 1:
            return dzeta_dt(t, g)
        if argindex == 2:  # heat equation: d/dg = g d^2/dt^2 (t may be a number, e.g. zeta_lam(0))
            tt = sp.Dummy("t")
            return g * sp.diff(dzeta_dt(tt, g), tt).subs(tt, t)
        raise sp.ArgumentIndexError(self, argindex)

    def _eval_rewrite_as_asin(self, t, g, **kwargs):
        if t.is_zero:
            return zeta_at_zero(g)
        return None


class zetac(_Zeta):
    r""":math:`\bar\zeta_g(t) = \mathbb E[\operatorname{erfc}(t+gZ)^2] = 1 - 2\operatorname{erf}(t/\sqrt{1+2g^2}) + \zeta_g(t)`.

    The complement form in which the Bayes gap of Corollary 2 is evaluated: it is tiny for
    large t and its float64 kernel keeps full relative accuracy there (`docs/MATH.md` §6).
    """

    nargs = 2
    _latex_symbol = r"\bar\zeta"

    @classmethod
    def eval(cls, t, g):
        if g.is_zero:
            return sp.erfc(t) ** 2
        if g.could_extract_minus_sign():
            return cls(t, -g)
        return None

    def fdiff(self, argindex=1):
        t, g = self.args
        if argindex not in (1, 2):
            raise sp.ArgumentIndexError(self, argindex)
        tt, gg = sp.Dummy("t"), sp.Dummy("g")  # the arguments may be expressions, not symbols
        return sp.diff(zetac(tt, gg).rewrite(zeta), (tt, gg)[argindex - 1]).subs({tt: t, gg: g}, simultaneous=True)

    def _eval_rewrite_as_zeta(self, t, g, **kwargs):
        return 1 - 2 * erf_mean(t, g) + zeta(t, g)

