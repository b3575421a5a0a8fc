r"""A small Gaussian-expectation engine (the tool behind Theorem 1).

It computes :math:`\mathbb E[P(G)\, f(G_c)]` in closed form, where :math:`G \sim N(\mu, \Sigma)`
has named coordinates, :math:`P` is a polynomial in them and :math:`f` is a smooth function of
one coordinate :math:`G_c` whose Gaussian mean is known. Two facts do all the work:

1. **Stein's lemma** (reference section 4), applied to one factor :math:`G_i` of a monomial at a time:

   .. math::

       \mathbb E[G_i\,Q(G)\,f^{(n)}(G_c)] = \mu_i\,\mathbb E[Q f^{(n)}]
         + \sum_j \Sigma_{ij}\,\mathbb E[\partial_j Q\; f^{(n)}]
         + \Sigma_{ic}\,\mathbb E[Q\, f^{(n+1)}],

   which lowers the degree of the polynomial until only :math:`\mathbb E[f^{(n)}(G_c)]` is left.
2. **Derivatives move to the mean**: if :math:`F(m, s^2) = \mathbb E f(m + sZ)` then
   :math:`\mathbb E f^{(n)}(G_c) = \partial_m^n F(\mu_c, \Sigma_{cc})`.

The families of f used by the paper, with their Gaussian means F (reference section 4):

* ``ERF(lam)``:    :math:`f(x) = \operatorname{erf}(\lambda x)`,
  :math:`F = \operatorname{erf}(\lambda m/\sqrt{1+2\lambda^2 s^2})`;
* ``ERF2(lam)``:   :math:`f(x) = \operatorname{erf}(\lambda x)^2`, :math:`F = \zeta_{\lambda s}(\lambda m)`;
* ``ONE``:         :math:`f = 1`, :math:`F = 1` (plain Gaussian moments).
"""
from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from typing import Callable, Sequence

import sympy as sp

from .zeta import erf_mean, zeta

__all__ = ["Smooth", "ERF", "ERF2", "ONE", "GaussianVector"]


@dataclass(frozen=True)
class Smooth:
    """A function of one Gaussian coordinate, known through its Gaussian mean F(m, s2)."""

    name: str
    gaussian_mean: Callable[[sp.Expr, sp.Expr], sp.Expr]

    def mean_of_derivative(self, n: int, m: sp.Expr, s2: sp.Expr) -> sp.Expr:
        r""":math:`\mathbb E f^{(n)}(m + sZ) = \partial_m^n F(m, s^2)`."""
        mm = sp.Dummy("m")
        return sp.diff(self.gaussian_mean(mm, s2), mm, n).subs(mm, m)


def ERF(lam) -> Smooth:
    r""":math:`x \mapsto \operatorname{erf}(\lambda x)`."""
    return Smooth(f"erf({lam}*x)", lambda m, s2: erf_mean(lam * m, lam * sp.sqrt(s2)))


def ERF2(lam) -> Smooth:
    r""":math:`x \mapsto \operatorname{erf}(\lambda x)^2`."""
    return Smooth(f"erf({lam}*x)**2", lambda m, s2: zeta(lam * m, lam * sp.sqrt(s2)))


ONE = Smooth("1", lambda m, s2: sp.Integer(1))


class GaussianVector:
    r"""A Gaussian vector :math:`G \sim N(\mu, \Sigma)` with coordinates named by SymPy symbols.

    ``expect(P, f, c)`` returns :math:`\mathbb E[P(G)\,f(G_c)]`, by Stein's lemma and the
    derivative-to-mean rule above; results are cached per monomial.
    """

    def __init__(self, coords: Sequence[sp.Symbol], mean: Sequence, cov):
        self.coords = tuple(coords)
        self.mean = dict(zip(self.coords, (sp.sympify(m) for m in mean)))
        cov = sp.Matrix(cov)
        if cov.shape != (len(self.coords),) * 2 or cov != cov.T:
            raise ValueError("cov must be a symmetric matrix matching coords")
        self.cov = {(x, y): cov[i, j] for i, x in enumerate(self.coords) for j, y in enumerate(self.coords)}

    def expect(self, poly, f: Smooth = ONE, c: sp.Symbol | None = None) -> sp.Expr:
        """E[poly(G) * f(G_c)] (``c`` may be omitted when f is ONE)."""
        if c is None:
            if f is not ONE:
                raise ValueError("a function f needs the coordinate c it is applied to")
            c = self.coords[0]
        p = sp.Poly(sp.expand(poly), *self.coords)
        total = sp.Integer(0)
        for exps, coeff in p.terms():
            total += coeff * self._monomial(exps, f, c, 0)
        return total

    @lru_cache(maxsize=None)
    def _monomial(self, exps: tuple, f: Smooth, c: sp.Symbol, n: int) -> sp.Expr:
        """E[prod G_i^{exps_i} * f^{(n)}(G_c)]."""
        if not any(exps):
            return f.mean_of_derivative(n, self.mean[c], self.cov[(c, c)])
        i = next(k for k, e in enumerate(exps) if e)  # peel one factor G_i off the monomial
        xi = self.coords[i]
        q = list(exps)
        q[i] -= 1
        q = tuple(q)
        out = self.mean[xi] * self._monomial(q, f, c, n)
        for j, xj in enumerate(self.coords):  # Sigma_ij E[d_j Q f^(n)]
            if q[j] and self.cov[(xi, xj)] != 0:
                dq = list(q)
                dq[j] -= 1
                out += self.cov[(xi, xj)] * q[j] * self._monomial(tuple(dq), f, c, n)
        if f is not ONE and self.cov[(xi, c)] != 0:  # Sigma_ic E[Q f^(n+1)]
            out += self.cov[(xi, c)] * self._monomial(q, f, c, n + 1)
        return out
