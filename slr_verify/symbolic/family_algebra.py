r"""The stationary family off the manifold M, k = +-v* (`docs/MATH.md` §12), derived.

At kappa = nu = rho = 0 Theorem 1's partials R_kappa, R_nu, R_rho vanish identically and R_theta is
affine in theta: with k = eta v* (eta = +-1) and v = theta k* + sqrt(1 - theta^2) w the point is
stationary exactly at one theta* (:func:`off_M_family`, closed form with its proofs). The Riemannian
Hessian there, in a retraction chart (:func:`family_hessian`), decides local minimality. The float64,
mpmath and ball kernels are generated in :mod:`slr_verify.kernels.family_kernels`; the numeric checks are in
:mod:`slr_verify.dynamics.family_search`, the certificates in :mod:`slr_verify.certify.family_proof`.
"""
from __future__ import annotations

from functools import lru_cache

import sympy as sp

from . import landscape as sland
from .risk import S, oracle_point, theorem1_gradient, theorem1_risk
from .stored import stored
from .zeta import zeta


@lru_cache(maxsize=None)
def off_M_family():
    """The stationary family off M (`docs/MATH.md` §12): at kappa = nu = rho = 0 Theorem 1's partials
    R_kappa, R_nu, R_rho vanish identically and R_theta is affine in theta with slope d zeta_{gamma lam}(0) > 0.
    With k = eta v* the tangent gradients are 0 (for k: grad_k R = R_eta v* is radial) and R_theta k*
    (for v), so (k, v) is stationary iff theta = theta* (unique). Returns (theta* as an expression
    of eta, lam, gamma, d; proofs {name: bool})."""
    g = theorem1_gradient()
    sub = {S.kappa: 0, S.nu: 0, S.rho: 0}
    Rk, Rn, Rt, Re, Rr = (sp.simplify(x.subs(sub)) for x in g)
    slope = sp.diff(Rt, S.theta)
    theta_star = sp.simplify(-Rt.subs(S.theta, 0) / slope).replace(zeta, lambda t, gg: zeta(t, gg).rewrite(sp.asin))
    slope_asin = slope.replace(zeta, lambda t, gg: zeta(t, gg).rewrite(sp.asin))
    r = 2 * S.gamma**2 * S.lam**2 / (1 + 2 * S.gamma**2 * S.lam**2)
    proofs = {
        "R_kappa = 0 at kappa = nu = rho = 0": Rk == 0,
        "R_nu = 0 there": Rn == 0,
        "R_rho = 0 there": Rr == 0,
        "R_theta affine in theta": sp.diff(Rt, S.theta, 2) == 0,
        "slope = d (2/pi) asin(r)": sp.simplify(slope_asin - S.d * 2 / sp.pi * sp.asin(r)) == 0,
        "0 < r < 1, so asin(r) > 0 and the slope > 0": bool(r.is_positive) and bool(sp.simplify(1 - r).is_positive),
    }
    return theta_star, proofs


@stored
def family_hessian():
    """:func:`~.landscape.chart_hessian` at the point k = v*, v = theta k* + sqrt(1 - theta^2) e3 (kappa = nu =
    rho = 0, eta = 1; theta free, to be set to theta*), coordinates: k along (k*, e3, e4), v along
    (sqrt(1-theta^2) k* - theta e3, v*, e4). The last coordinate (v's orthogonal part turning to e4)
    is the orbit of the rotations fixing k*, v*; the orthogonal directions of R^d add the block
    diag(-mu_k, -mu_v) with mu_k = R_eta, mu_v = theta R_theta (R_rho = 0 there).
    Returns (matrix, symbols, (mu_k, mu_v))."""
    th = S.theta
    s = sp.sqrt(1 - th**2)
    v0 = sp.Matrix([th, 0, s, 0])
    t1 = sp.Matrix([s, 0, -th, 0])
    point = {S.kappa: 0, S.nu: 0, S.eta: 1, S.rho: 0}
    e = sland.basis
    M, X = sland.chart_hessian(e(1), v0, (e(0), e(2), e(3)), (t1, e(1), e(3)), point)
    g = [x.subs(point) for x in theorem1_gradient()]
    return M, X, (g[3], th * g[2])


@lru_cache(maxsize=None)
def family_gap():
    """R(0, 0, theta*, 1, 0) - R(1, 1, 0, 0, 0) with theta* of the k = v* family, in (lam, gamma, d, L)."""
    theta_star, _ = off_M_family()
    R = theorem1_risk()
    fam = R.subs({S.kappa: 0, S.nu: 0, S.rho: 0, S.eta: 1}).subs(S.theta, theta_star.subs(S.eta, 1))
    return sp.expand(fam - R.subs(oracle_point()))
