r"""The paper's auxiliary lemmas of Appendix D, as SymPy statements (`docs/MATH.md` §20).

* Lemma 16: for u >= 0, :math:`|1/\sqrt{1+u} - 1| \le u/2`. The argument :math:`1/\sqrt{1+u} - 1` is <= 0, and
  :math:`f(u) = 1 - u/2 - 1/\sqrt{1+u}` has f(0) = 0 and f'(u) = (-1 + (1+u)^{-3/2})/2 <= 0 (no u >= 0 with
  f'(u) > 0, decided by SymPy's univariate inequality solver), so f <= 0 on [0, oo).
"""
from __future__ import annotations

from functools import cache

import sympy as sp

__all__ = ["U", "lemma16_proofs"]

#: Lemma 16's variable, u >= 0
U = sp.Symbol("u", nonnegative=True)


@cache
def _lemma16() -> tuple:
    u = U
    inv = 1 / sp.sqrt(1 + u)
    f = 1 - u / 2 - inv
    no_positive = sp.solve_univariate_inequality(sp.diff(f, u) > 0, u, relational=False, domain=sp.Interval(0, sp.oo))
    not_above = sp.solve_univariate_inequality(inv - 1 > 0, u, relational=False, domain=sp.Interval(0, sp.oo))
    return (("Lemma 16: 1/sqrt(1 + u) - 1 <= 0 for u >= 0 (no u >= 0 with 1/sqrt(1 + u) > 1)", not_above == sp.S.EmptySet),
            ("Lemma 16: f(u) = 1 - u/2 - 1/sqrt(1 + u) has f(0) = 0", sp.simplify(f.subs(u, 0)) == 0),
            ("Lemma 16: f'(u) <= 0 for u >= 0 (no u >= 0 with f'(u) > 0), so |1/sqrt(1 + u) - 1| <= u/2",
             no_positive == sp.S.EmptySet))


def lemma16_proofs() -> dict:
    """{statement: bool}: Lemma 16, |1/sqrt(1 + u) - 1| <= u/2 for u >= 0, step by step (the module's argument)."""
    return {k: bool(v) for k, v in _lemma16()}
