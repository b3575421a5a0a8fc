"""Kernels of the stationary family off M, k = +-v* (``docs/MATH.md`` section 12), generated from its
derivation (:mod:`slr_verify.symbolic.family_algebra`):
theta* in float64, mpmath and arb, and the Riemannian Hessian at the point on arb balls."""
from __future__ import annotations

from functools import lru_cache

import sympy as sp

from ..symbolic import family_algebra as sfam
from ..symbolic.risk import S
from .codegen import KernelForms, generate, generate_mp

_THETA_ARGS = (S.eta, S.lam, S.gamma, S.d)


@lru_cache(maxsize=None)
def theta_star_kernels():
    """theta*(eta, lam, gamma, d), the root of R_theta(0, 0, theta, eta, 0) = 0 in closed form:
    ``f64`` (NumPy), ``mp`` (mpmath at the working precision); ``proofs`` the SymPy proofs that the
    family is stationary exactly there."""
    theta_star, proofs = sfam.off_M_family()
    return KernelForms(f64=generate(_THETA_ARGS, theta_star), mp=generate_mp(_THETA_ARGS, theta_star), proofs=proofs)


@lru_cache(maxsize=None)
def theta_star_arb():
    """theta*(eta, lam, gamma, d) of the stationary family off M on arb balls, and the SymPy proofs."""
    from ..checker.premises import kernels

    return kernels("off-M-family").theta_star, sfam.off_M_family()[1]


@lru_cache(maxsize=None)
def family_hessian_proofs() -> dict:
    """The SymPy proofs that the orbit coordinate's row of the Riemannian Hessian at k = v*
    (:func:`slr_verify.symbolic.family_algebra.family_hessian`) is (0, ..., 0, -mu_v) and R_rho = 0 there."""
    from ..symbolic.risk import theorem1_gradient

    M, _, (mu_k, mu_v) = sfam.family_hessian()
    point = {S.kappa: 0, S.nu: 0, S.eta: 1, S.rho: 0}
    return {
        "orbit row vanishes off the diagonal": all(sp.simplify(M[5, j]) == 0 for j in range(5)),
        "orbit diagonal = -mu_v = -theta R_theta (0 at theta*)": sp.simplify(M[5, 5] + mu_v) == 0,
        "R_rho = 0 at kappa = nu = rho = 0": sp.simplify(theorem1_gradient()[4].subs(point)) == 0,
    }


def family_hessian_arb():
    """The Riemannian Hessian at the point k = v* on arb balls (the checker's committed kernel, premise
    ``off-M-family``): (theta, lam, gamma, d, L) -> [the 25 entries of the block without the orbit coordinate
    (row-major), -mu_k]; and :func:`family_hessian_proofs`."""
    from ..checker.premises import kernels

    return kernels("off-M-family").family_hessian, family_hessian_proofs()
