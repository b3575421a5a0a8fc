r"""The two mechanisms that bound the oracle's window (reference section 13), derived.

**The oracle's Hessian** (:func:`oracle_hessian`). At (k, v) = (k*, v*), in the chart k = P(k* + a2 v*
+ a3 e3 + a4 e4), v = P(v* + b1 k* + b3 e3 + b4 e4), the chain rule through the overlaps gives the
Riemannian Hessian exactly. It is block diagonal (:func:`oracle_structure`, proved by SymPy): -R_kappa
twice (a3, a4), -R_nu twice (b3, b4), the orthogonal directions of R^d repeat these two, and the
(a2, b1) block B (k towards v*, v towards k*; eta, theta and rho = sin(a + b) move to first order).
The eigenvalues -R_kappa, -R_nu are positive at the oracle (Proposition 10), so the oracle stops
being a local minimum exactly where an eigenvalue of B crosses 0: where det B changes sign
(:func:`oracle_det`, a closed-form function of (lam, gamma, d, L)) while trace B > 0.

**The family k = +-v*** (:func:`family_gap`). At kappa = nu = rho = 0, eta = 1 the point is
stationary iff theta = theta*(lam) (closed form, :func:`~.fixed_points.off_M_family`); the risk
gap R(0, 0, theta*, 1, 0) - R(1, 1, 0, 0, 0) is a closed-form function of (lam, gamma, d, L) (eps
cancels) whose sign change is where this minimum's risk crosses the oracle's.
"""
from __future__ import annotations

from functools import lru_cache

import sympy as sp

from .fixed_points import off_M_family
from .risk import S, oracle_point, theorem1_gradient, theorem1_hessian, theorem1_risk

__all__ = ["oracle_hessian", "oracle_offM_block", "oracle_structure", "oracle_det", "family_gap", "LAM_PARAMS"]

#: the parameters of the mechanism functions (eps cancels in both)
LAM_PARAMS = (S.lam, S.gamma, S.d, S.L)


def _at_oracle(e):
    return e.subs(oracle_point())


@lru_cache(maxsize=None)
def oracle_hessian():
    """The Riemannian Hessian of R at the oracle in the chart k = P(k* + a2 v* + a3 e3 + a4 e4),
    v = P(v* + b1 k* + b3 e3 + b4 e4) (P the normalisation; a retraction, so at a stationary point
    the Hessian of the pulled-back risk is the Riemannian Hessian), by the chain rule through the
    overlaps: sum_ij R_ij do_i do_j + sum_i R_i d^2 o_i, with Theorem 1's partials at the oracle.
    Returns (6 x 6 SymPy matrix in (a2, a3, a4, b1, b3, b4), the chart symbols)."""
    a2, a3, a4, b1, b3, b4 = X = sp.symbols("a2 a3 a4 b1 b3 b4", real=True)
    k = sp.Matrix([1, a2, a3, a4]) / sp.sqrt(1 + a2**2 + a3**2 + a4**2)
    v = sp.Matrix([b1, 1, b3, b4]) / sp.sqrt(1 + b1**2 + b3**2 + b4**2)
    e1, e2 = sp.Matrix([1, 0, 0, 0]), sp.Matrix([0, 1, 0, 0])
    o = [k.dot(e1), v.dot(e2), v.dot(e1), k.dot(e2), k.dot(v)]  # kappa, nu, theta, eta, rho
    zero = {x: 0 for x in X}
    do = [[sp.diff(oi, x).subs(zero) for x in X] for oi in o]
    d2o = [[[sp.diff(oi, x, y).subs(zero) for y in X] for x in X] for oi in o]
    g = [_at_oracle(x) for x in theorem1_gradient()]
    H = theorem1_hessian()
    h = [[_at_oracle(H[5 * i + j]) for j in range(5)] for i in range(5)]
    M = sp.zeros(6, 6)
    for p in range(6):
        for q in range(6):
            M[p, q] = sum(h[i][j] * do[i][p] * do[j][q] for i in range(5) for j in range(5)) + sum(
                g[i] * d2o[i][p][q] for i in range(5))
    return M, X


@lru_cache(maxsize=None)
def oracle_offM_block():
    """The (a2, b1) block of :func:`oracle_hessian` (k towards v*, v towards k*: eta, theta and rho
    move to first order); the other entries decouple (:func:`oracle_structure`)."""
    M, _ = oracle_hessian()
    return M.extract([0, 3], [0, 3])


def oracle_structure() -> dict:
    """The block structure of the oracle's Hessian, each a bool: it is diag(B, -R_kappa, -R_kappa,
    -R_nu, -R_nu) up to the order of the coordinates, and R_theta = R_eta = R_rho = 0 there."""
    M, _ = oracle_hessian()
    g = [_at_oracle(x) for x in theorem1_gradient()]
    rest = [1, 2, 4, 5]
    off = [M[i, j] for i in range(6) for j in range(6) if i != j and not {i, j} <= {0, 3}]
    return {
        "off-block entries vanish": all(sp.simplify(x) == 0 for x in off),
        "a3, a4 entries = -R_kappa": all(sp.simplify(M[i, i] + g[0]) == 0 for i in (1, 2)),
        "b3, b4 entries = -R_nu": all(sp.simplify(M[i, i] + g[1]) == 0 for i in (4, 5)),
        "R_theta = R_eta = R_rho = 0 at the oracle": all(sp.simplify(x) == 0 for x in g[2:]),
        "rest is diagonal": all(sp.simplify(M[i, j]) == 0 for i in rest for j in rest if i != j),
    }


@lru_cache(maxsize=None)
def oracle_det():
    """det B at the oracle: the oracle is a local minimum while det B > 0 (and trace B > 0)."""
    B = oracle_offM_block()
    return B[0, 0] * B[1, 1] - B[0, 1] * B[1, 0]


@lru_cache(maxsize=None)
def family_gap():
    """R(0, 0, theta*, 1, 0) - R(1, 1, 0, 0, 0) with theta* of the k = v* family, in (lam, gamma, d, L)."""
    theta_star, _ = off_M_family()
    R = theorem1_risk()
    fam = R.subs({S.kappa: 0, S.nu: 0, S.rho: 0, S.eta: 1}).subs(S.theta, theta_star.subs(S.eta, 1))
    return sp.expand(fam - _at_oracle(R))
