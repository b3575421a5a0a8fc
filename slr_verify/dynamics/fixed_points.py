r"""Propositions 9-10 and Theorem 5, numerically (`docs/MATH.md` §10).

The algebra (the structure of the manifold gradient, the sign argument, the Hessians in angle
coordinates, the Jacobian of the reduced map) is derived in :mod:`slr_verify.symbolic.fixed_points`
and generated into :func:`slr_verify.kernels.steps.reduced_map_kernels`; this module evaluates it
and adds what is numeric: the step-size bounds and the rates.
"""
from __future__ import annotations

import numpy as np

from ..kernels.steps import POINTS, alpha_max_grid, reduced_map_kernels

__all__ = ["POINTS", "CORNERS", "jacobian_at", "hessian_at", "classify_point", "alpha_fixed_bound", "alpha_attract",
           "mirror_fixed_point", "map_numeric", "det_jacobian", "alpha_max_diffeo", "predicted_rates"]

#: the four corners of the square (the stationary points of Proposition 9 other than (0, 0))
CORNERS = [p for p in POINTS if p != (0, 0)]


def map_numeric(kappa, nu, *, lam, gamma, d, L, alpha):
    """The reduced PGD map on M at (kappa, nu)."""
    return np.array(reduced_map_kernels().F(kappa, nu, lam, gamma, d, L, alpha), dtype=float)


def jacobian_at(point, *, lam, gamma, d, L, alpha):
    """The 2x2 Jacobian of the reduced map at ``point`` and its eigenvalues."""
    J = np.array(reduced_map_kernels().J(point[0], point[1], lam, gamma, d, L, alpha), dtype=float).reshape(2, 2)
    return J, np.linalg.eigvals(J)


def det_jacobian(kappa, nu, *, lam, gamma, d, L, alpha):
    J = reduced_map_kernels().J(kappa, nu, lam, gamma, d, L, alpha)
    return J[0] * J[3] - J[1] * J[2]


def hessian_at(point, *, lam, gamma, d, L):
    """The Hessian of the manifold risk at a stationary point (angle coordinates at the corners;
    derived by :func:`slr_verify.symbolic.fixed_points.manifold_hessian`) and its eigenvalues."""
    H = np.array(reduced_map_kernels().H[tuple(point)](lam, gamma, d, L), dtype=float).reshape(2, 2)
    return H, np.linalg.eigvalsh(0.5 * (H + H.T))


def classify_point(point, **p) -> str:
    """'min', 'max', 'saddle' or 'degenerate' from the Hessian's eigenvalue signs."""
    _, ev = hessian_at(point, **p)
    return "min" if np.all(ev > 0) else "max" if np.all(ev < 0) else "saddle" if ev.min() < 0 < ev.max() else "degenerate"


def alpha_fixed_bound(*, lam, gamma, d, L):
    """alpha below which the map's fixed points are exactly the five stationary points:
    2 / max(sup|g_kappa|, sup|g_nu|) with the closed-form upper bounds (a sufficient bound)."""
    return 2.0 / max(float(x) for x in reduced_map_kernels().bounds(lam, gamma, d, L))


def alpha_attract(*, lam, gamma, d, L):
    """At the minima (+-1, +-1) the Jacobian is diag((1 - alpha|g_kappa|)^2, (1 - alpha|g_nu|)^2);
    they attract iff alpha |g| < 2 for both: returns (2 / max|g|, |g|)."""
    g = np.abs(np.array(reduced_map_kernels().g(1.0, 1.0, lam, gamma, d, L), dtype=float))
    return 2.0 / g.max(), g


def predicted_rates(*, lam, gamma, d, L, alpha):
    """Linear rates of 1 - kappa_t and 1 - nu_t at (1, 1): the Jacobian's diagonal there."""
    J, _ = jacobian_at((1.0, 1.0), lam=lam, gamma=gamma, d=d, L=L, alpha=alpha)
    return float(J[0, 0]), float(J[1, 1])


def mirror_fixed_point(kappa, *, lam, gamma, d, L):
    """For nu = 1 and 1/sqrt2 < kappa < 1, the alpha at which (kappa, 1) is a fixed point of the
    map though not a stationary point: alpha g_kappa (2 kappa^2 - 1) = -2 kappa."""
    gk, _ = reduced_map_kernels().g(kappa, 1.0, lam, gamma, d, L)
    return float(-2 * kappa / (float(gk) * (2 * kappa**2 - 1)))


def alpha_max_diffeo(*, lam, gamma, d, L, n=121, alphas=None):
    """Numeric (not certified) alpha_max: the smallest alpha on a log grid (refined by bisection)
    at which det J vanishes somewhere on an n x n grid of the square [-1, 1]^2
    (:func:`slr_verify.kernels.steps.alpha_max_grid`)."""
    return alpha_max_grid(lam=lam, gamma=gamma, d=d, L=L, n=n, alphas=alphas)
