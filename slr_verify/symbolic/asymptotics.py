r"""Corollary 2's leading orders, derived (`docs/MATH.md` §6).

Along lam = d^-a, L = d^b: :math:`\zeta_\lambda(0) \sim (4/\pi)\lambda^2`, so the null-token part
:math:`(L-1)\zeta_\lambda(0) \sim (4/\pi)\,d^{b-2a}` vanishes iff b < 2a; the relevant-token part
:math:`\gamma^2\bar\zeta_{\lambda\gamma}(\lambda\sqrt{d/2})` vanishes as lam sqrt(d) -> infinity with lam -> 0.
The claims and ``slr-verify derive`` both take these expressions from here.
"""
from __future__ import annotations

from functools import lru_cache

import sympy as sp

from ..model.params import keywords_checked
from .risk import S
from .zeta import zeta, zeta_at_zero, zetac

#: the exponents and the variables of the asymptotic statements
SYM = dict(lam=sp.Symbol("lambda", positive=True), a=sp.Symbol("a", positive=True), b=sp.Symbol("b", positive=True),
           d=sp.Symbol("d", positive=True), A=sp.Symbol("A", positive=True))


def null_part_exponent():
    """e in (L - 1) zeta_lam(0) ~ (4/pi) d^e along lam = d^-a, L = d^b."""
    a, b, d = SYM["a"], SYM["b"], SYM["d"]
    return sp.simplify(sp.log(d**b * (d ** (-a)) ** 2) / sp.log(d))


def relevant_part():
    """gamma^2 E erfc(lam sqrt(d/2) + lam gamma Z)^2."""
    return S.gamma**2 * zetac(S.lam * sp.sqrt(S.d / 2), S.lam * S.gamma)


@lru_cache(maxsize=None)
def leading_orders() -> dict:
    """The limits Corollary 2's proof needs, each a SymPy number or expression."""
    lam, A = SYM["lam"], SYM["A"]
    return {
        "zeta0_over_lam2": sp.limit(zeta_at_zero(lam) / lam**2, lam, 0),   # 4/pi
        "erfc2_limit": sp.limit(sp.erfc(A) ** 2, A, sp.oo),                # 0
        "zeta0_limit": sp.limit(zeta_at_zero(lam), lam, 0),                 # 0
        "null_exponent": null_part_exponent(),                              # b - 2a
        "zeta0_series": sp.series(zeta_at_zero(lam), lam, 0, 6).removeO(),
        "relevant_part_expanded": relevant_part().rewrite(zeta),
    }


@keywords_checked
def identities() -> dict:
    """Corollary 2's leading orders (`docs/MATH.md` §6) as {statement: bool}, each True exactly when SymPy finds it:
    zeta_lam(0)/lam^2 -> 4/pi and zeta_lam(0) -> 0 as lam -> 0, erfc(A)^2 -> 0 as A -> oo, and the null-token part's
    exponent along lam = d^-a, L = d^b equal to b - 2a (for the claims' ``Identities`` evidence)."""
    sym = leading_orders()
    a, b = SYM["a"], SYM["b"]
    return {
        "zeta_lam(0) / lam^2 -> 4/pi": sym["zeta0_over_lam2"] == 4 / sp.pi,
        "erfc(A)^2 -> 0 as A -> oo": sym["erfc2_limit"] == 0,
        "zeta_lam(0) -> 0 as lam -> 0": sym["zeta0_limit"] == 0,
        "null part ~ d^(b - 2a)": sp.simplify(sym["null_exponent"] - (b - 2 * a)) == 0,
    }
