r"""A small Gaussian-expectation engine (the tool behind Theorem 1).

It computes :math:`\mathbb E[P(G)\, f(G_c)]` in closed form, where :math:`G \sim N(\mu, \Sigma)`
has named coordinates, :math:`P` is a polynomial in them and :math:`f` is a smooth function of
one coordinate :math:`G_c` whose Gaussian mean is known. Two facts do all the work:

1. **Stein's lemma** (`docs/MATH.md` §4), applied to one factor :math:`G_i` of a monomial at a time:

   .. math::

       \mathbb E[G_i\,Q(G)\,f^{(n)}(G_c)] = \mu_i\,\mathbb E[Q f^{(n)}]
         + \sum_j \Sigma_{ij}\,\mathbb E[\partial_j Q\; f^{(n)}]
         + \Sigma_{ic}\,\mathbb E[Q\, f^{(n+1)}],

   which lowers the degree of the polynomial until only :math:`\mathbb E[f^{(n)}(G_c)]` is left.
2. **Derivatives move to the mean**: if :math:`F(m, s^2) = \mathbb E f(m + sZ)` then
   :math:`\mathbb E f^{(n)}(G_c) = \partial_m^n F(\mu_c, \Sigma_{cc})`.

The families of f used by the paper, with their Gaussian means F (`docs/MATH.md` §4):

* ``ERF(lam)``:    :math:`f(x) = \operatorname{erf}(\lambda x)`,
  :math:`F = \operatorname{erf}(\lambda m/\sqrt{1+2\lambda^2 s^2})`;
* ``ERF2(lam)``:   :math:`f(x) = \operatorname{erf}(\lambda x)^2`, :math:`F = \zeta_{\lambda s}(\lambda m)`;
* ``ONE``:         :math:`f = 1`, :math:`F = 1` (plain Gaussian moments).

Two heads on one token need a product :math:`f(G_{c_1})\,f(G_{c_2})` of two coordinates
(`docs/MATH.md` §15): ``expect_pair`` runs the same recursion with one more Stein term per
factor, and the base case is a derivative of the pair's Gaussian mean
:math:`F_2(m_1, m_2, s_{11}, s_{22}, s_{12})`:

* ``ERF_PAIR(lam)``: :math:`f = \operatorname{erf}(\lambda\,\cdot)` on both,
  :math:`F_2 = \zeta_2(\lambda m_1, \lambda m_2; \lambda^2 s_{11}, \lambda^2 s_{22}, \lambda^2 s_{12})`.
"""
from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from typing import Callable, Sequence

import sympy as sp

from .zeta import erf_mean, zeta
from .zeta2 import zeta2


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


@dataclass(frozen=True)
class SmoothPair:
    """A product f(x) f(y) of one function at two correlated Gaussian coordinates, known through
    its Gaussian mean F2(m1, m2, s11, s22, s12)."""

    name: str
    gaussian_mean: Callable[..., sp.Expr]

    def mean_of_derivative(self, n1: int, n2: int, m1, m2, s11, s22, s12) -> sp.Expr:
        r""":math:`\mathbb E[f^{(n_1)}(G_1) f^{(n_2)}(G_2)] = \partial_{m_1}^{n_1}\partial_{m_2}^{n_2} F_2`."""
        x, y = sp.Dummy("m1"), sp.Dummy("m2")
        F = self.gaussian_mean(x, y, s11, s22, s12)
        return sp.diff(F, x, n1, y, n2).subs({x: m1, y: m2}, simultaneous=True)


def ERF_PAIR(lam) -> SmoothPair:
    r""":math:`(x, y) \mapsto \operatorname{erf}(\lambda x)\operatorname{erf}(\lambda y)`."""
    return SmoothPair(f"erf({lam}*x)*erf({lam}*y)",
                      lambda m1, m2, s11, s22, s12: zeta2(lam * m1, lam * m2, lam**2 * s11, lam**2 * s22, lam**2 * s12))


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

    def expect_pair(self, poly, f: SmoothPair, c1: sp.Symbol, c2: sp.Symbol) -> sp.Expr:
        """E[poly(G) * f(G_c1) f(G_c2)] (two heads on one token, `docs/MATH.md` §15)."""
        p = sp.Poly(sp.expand(poly), *self.coords)
        return sum((coeff * self._pair_monomial(exps, f, c1, c2, 0, 0) for exps, coeff in p.terms()), sp.Integer(0))

    @lru_cache(maxsize=None)
    def _pair_monomial(self, exps: tuple, f: SmoothPair, c1, c2, n1: int, n2: int) -> sp.Expr:
        """E[prod G_i^{exps_i} f^{(n1)}(G_c1) f^{(n2)}(G_c2)], by Stein's lemma on one factor at a time."""
        if not any(exps):
            cov = self.cov
            return f.mean_of_derivative(n1, n2, self.mean[c1], self.mean[c2], cov[(c1, c1)], cov[(c2, c2)], cov[(c1, c2)])
        i = next(k for k, e in enumerate(exps) if e)
        xi = self.coords[i]
        q = list(exps)
        q[i] -= 1
        q = tuple(q)
        out = self.mean[xi] * self._pair_monomial(q, f, c1, c2, n1, n2)
        for j, xj in enumerate(self.coords):
            if q[j] and self.cov[(xi, xj)] != 0:
                dq = list(q)
                dq[j] -= 1
                out += self.cov[(xi, xj)] * q[j] * self._pair_monomial(tuple(dq), f, c1, c2, n1, n2)
        if self.cov[(xi, c1)] != 0:
            out += self.cov[(xi, c1)] * self._pair_monomial(q, f, c1, c2, n1 + 1, n2)
        if self.cov[(xi, c2)] != 0:
            out += self.cov[(xi, c2)] * self._pair_monomial(q, f, c1, c2, n1, n2 + 1)
        return out

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
