r"""The stationary point off M, k = +-v*, by SymPy and ball arithmetic (reference section 12).

SymPy proves (:func:`slr_verify.symbolic.fixed_points.off_M_family`), for all parameters, that at
kappa = nu = rho = 0 the partials R_kappa, R_nu, R_rho vanish and R_theta is affine in theta with a
positive slope; with k = eta v* (eta = +-1) the tangent gradients are then 0 and R_theta k*, so the
point is stationary exactly at one theta* per eta. Ball arithmetic encloses theta* and shows
|theta*| < 1 (v = theta* k* + sqrt(1 - theta*^2) w is realisable).

Not covered here: local uniqueness in all five overlaps and local minimality (the Riemannian
Hessian); the suite checks those numerically (finite differences, claim ``off-M-stationary``).
"""
from __future__ import annotations

from flint import arb, ctx

from ..kernels.certified import theta_star_arb
from ..model.params import check_params
from .manifold import _fuzzy

__all__ = ["off_M_family_point"]


def off_M_family_point(*, lam, gamma, eps=0.0, d, L, eta=1, prec=128):
    """{"proved", "theta_star": (lo, hi), "proofs"} for the family point with k = eta v*."""
    check_params(lam, gamma, eps, d, L)
    if eta not in (1, -1):
        raise ValueError(f"eta must be +1 or -1 (k = eta v*), got {eta!r}")
    f, proofs = theta_star_arb()
    old = ctx.prec
    ctx.prec = int(prec)
    try:
        (th,) = f(arb(eta), _fuzzy(lam), _fuzzy(gamma), arb(int(d)))
        proved = all(proofs.values()) and abs(th).upper() < 1
        return {"proved": bool(proved), "theta_star": (float(th.lower()), float(th.upper())), "proofs": proofs}
    finally:
        ctx.prec = old
