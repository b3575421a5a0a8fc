r"""Proposition 3: the best linear predictor, from the normal equations.

A linear predictor is :math:`\sum_l w_l^\top X_l = w^\top \mathbf x` with :math:`\mathbf x` the
stacked tokens. Its risk is minimised by the normal equations
:math:`\mathbb E[\mathbf x\mathbf x^\top]\, w = \mathbb E[\mathbf x Y]`, with minimum
:math:`\mathbb E Y^2 - w^\top \mathbb E[\mathbf x Y]`.

Block structure (law p of J0, :math:`\mu = \sqrt{d/2}\,k^*`): given :math:`J_0 = j`, tokens are
independent and only token j has a non-zero mean, so

* :math:`\mathbb E[X_l X_m^\top] = 0` for :math:`l \ne m` (one of the two factors is centred);
* :math:`\mathbb E[X_l X_l^\top] = p_l(\mu\mu^\top + \gamma^2 I) + (1 - p_l) I`;
* :math:`\mathbb E[X_l Y] = p_l(\mu\mu^\top + \gamma^2 I)v^* = p_l\gamma^2 v^*` (:math:`\mu \perp v^*`).

All three are computed below by SymPy in the orthonormal basis (k*, v*, u) of a 3-dimensional
representative of R^d (the blocks act as (1 - p_l + p_l gamma^2) I on the rest of R^d, where
the right-hand side vanishes). For explicit L, :func:`normal_equations` builds the full system from the
model's law (all cross-token moments, by the Gaussian engine) without the block step, and
:func:`solve_full_system` solves it: an independent route to the block formula.
"""
from __future__ import annotations

from functools import lru_cache

import sympy as sp

from ..model.params import keywords_checked
from .gaussian import GaussianVector
from .risk import S

p = sp.IndexedBase("p", real=True)
l = sp.Idx("l")
_pl = sp.Symbol("p_l", nonnegative=True)


def token_blocks(pl):
    """(E[X_l X_l^T], E[X_l Y]) in the basis (k*, v*, u), with P(J0 = l) = pl: the diagonal block of the
    normal equations and the l-th block of the right-hand side (the block step of the module's docstring)."""
    gamma, d = S.gamma, S.d
    mu = sp.Matrix([sp.sqrt(d / 2), 0, 0])
    vstar = sp.Matrix([0, 1, 0])
    I3 = sp.eye(3)
    relevant_second = mu * mu.T + gamma**2 * I3  # E[X X^T] for the relevant token
    diag = pl * relevant_second + (1 - pl) * I3
    xy = pl * relevant_second * vstar  # E[X_l Y] = P(J0 = l) E[X X^T] v*
    return diag, xy


@lru_cache(maxsize=None)
def token_weight(pl=_pl):
    """w_l solving the l-th block of the normal equations (the system is block diagonal)."""
    diag, xy = token_blocks(pl)
    return sp.simplify(diag.LUsolve(xy))


def token_term(pl=_pl):
    """p_l gamma^2 v*^T w_l: the l-th token's reduction of the risk below E Y^2."""
    _, xy = token_blocks(pl)
    return sp.simplify((xy.T * token_weight(pl))[0, 0])


@lru_cache(maxsize=None)
def linear_risk_expr() -> sp.Expr:
    r""":math:`R_{lin} = \varepsilon^2 + \gamma^2 - \sum_{l=1}^L p_l^2\gamma^4/(1 - p_l + p_l\gamma^2)` (Prop. 3)."""
    return _EY2() - sp.Sum(token_term(p[l]), (l, 0, S.L - 1))


def _EY2():
    return S.gamma**2 + S.eps**2  # E[(X_{J0}^T v*)^2] + E xi^2, since mu is orthogonal to v*


@lru_cache(maxsize=None)
def linear_risk_nonneg_expr() -> sp.Expr:
    r"""The same risk with every term >= 0 (for evaluation without cancellation):
    :math:`\varepsilon^2 + \sum_l \gamma^2 p_l(1 - p_l)/(1 - p_l + p_l\gamma^2)`.

    Equal to :func:`linear_risk_expr` because :math:`\sum_l p_l = 1`: term by term,
    :math:`\gamma^2 p_l - p_l^2\gamma^4/(1 - p_l + p_l\gamma^2) = \gamma^2 p_l(1-p_l)/(1 - p_l + p_l\gamma^2)`
    (checked by :func:`nonneg_form_identity`)."""
    return S.eps**2 + sp.Sum(sp.factor(S.gamma**2 * p[l] - token_term(p[l])), (l, 0, S.L - 1))


def nonneg_form_identity() -> sp.Expr:
    """gamma^2 p_l - token_term(p_l) - gamma^2 p_l (1 - p_l)/(1 - p_l + p_l gamma^2); simplifies to 0."""
    return sp.simplify(S.gamma**2 * _pl - token_term(_pl) - S.gamma**2 * _pl * (1 - _pl) / (1 - _pl + _pl * S.gamma**2))


@lru_cache(maxsize=None)
def linear_risk_uniform() -> sp.Expr:
    """Uniform p = 1/L: eps^2 + gamma^2 (L - 1)/(L - 1 + gamma^2)."""
    return S.eps**2 + sp.factor(sp.simplify(_EY2() - S.eps**2 - sp.Sum(token_term(1 / S.L), (l, 0, S.L - 1)).doit()))


def normal_equations(probs) -> tuple:
    """The full (3L x 3L) normal equations E[x x^T] w = E[x Y] and E Y^2 for explicit probabilities
    ``probs`` of J0, built from the model's law without the block step: given J0 = j the tokens are
    independent Gaussians (X_j ~ N(mu, gamma^2 I), X_l ~ N(0, I) otherwise; three coordinates each in
    the basis (k*, v*, u)), Y = X_j^T v* + xi, and every second moment (cross-token ones included) is
    the mixture over j of the Gaussian expectations (:class:`~.gaussian.GaussianVector`).
    Returns (A, b, E Y^2)."""
    L = len(probs)
    x = sp.symbols(f"x0:{3 * L}", real=True)  # token l: x[3l], x[3l + 1], x[3l + 2] along k*, v*, u
    mu = sp.sqrt(S.d / 2)
    A, b, EY2 = sp.zeros(3 * L, 3 * L), sp.zeros(3 * L, 1), S.eps**2
    for j, pj in enumerate(probs):
        mean = [mu if i == 3 * j else 0 for i in range(3 * L)]
        cov = sp.diag(*[S.gamma**2 if i // 3 == j else 1 for i in range(3 * L)])
        G = GaussianVector(x, mean, cov)
        y = x[3 * j + 1]  # X_j^T v* (the noise xi is centred and independent of the tokens)
        for r in range(3 * L):
            b[r] += pj * G.expect(x[r] * y)
            for c in range(3 * L):
                A[r, c] += pj * G.expect(x[r] * x[c])
        EY2 += pj * G.expect(y**2)
    return A, b, EY2


def solve_full_system(probs) -> tuple:
    """Solve the full normal equations (:func:`normal_equations`) for explicit probabilities; return
    (w, R_lin). An independent route to the block formula: nothing here assumes the off-diagonal
    blocks vanish."""
    A, b, EY2 = normal_equations(probs)
    w = sp.simplify(A.LUsolve(b))
    risk = sp.simplify(EY2 - (w.T * b)[0, 0])
    return w, risk


@keywords_checked
def identities() -> dict:
    """Proposition 3 (`docs/MATH.md` §7) as {statement: bool}, each True exactly when SymPy proves it: the full
    normal equations (:func:`solve_full_system`, L = 3, any law p = (q1, q2, 1 - q1 - q2)) give the stated R_lin
    (:func:`linear_risk_expr`); uniform p gives eps^2 + gamma^2 (L - 1)/(L - 1 + gamma^2); its limit as L -> oo is
    eps^2 + gamma^2 (for the claims' ``Identities`` evidence)."""
    q1, q2 = sp.symbols("q1 q2", positive=True)
    probs = [q1, q2, 1 - q1 - q2]
    _, full = solve_full_system(probs)
    block = linear_risk_expr().subs(S.L, 3).doit().subs({p[i]: probs[i] for i in range(3)})
    uni = linear_risk_uniform()
    return {
        "normal equations (L = 3, any p) = stated R_lin": sp.simplify(full - block) == 0,
        "uniform p: eps^2 + gamma^2 (L-1)/(L-1+gamma^2)": sp.simplify(
            uni - (S.eps**2 + S.gamma**2 * (S.L - 1) / (S.L - 1 + S.gamma**2))
        )
        == 0,
        "L -> oo: eps^2 + gamma^2": sp.simplify(sp.limit(uni, S.L, sp.oo) - S.eps**2 - S.gamma**2) == 0,
    }
