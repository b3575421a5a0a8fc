"""The public, validated numeric API (re-exported by :mod:`slr_verify`).

Every function checks its input (`docs/MATH.md` §3 realisability, lam > 0, gamma > 0, eps >= 0, integer
d >= 2 and L >= 1, finite numbers) and raises ``ValueError`` naming the parameter and the
constraint; then it calls a kernel generated from the SymPy expressions. Arguments broadcast;
scalar input gives a float.
"""
from __future__ import annotations

import numpy as np

from ..model import validation as V
from ..model.params import accepts_gamma2, check_params, checked, keywords_checked, params_ok_scalar
from . import generated as G
from . import special

OVERLAP_NAMES = ("kappa", "nu", "theta", "eta", "rho")


def _out(x):
    x = np.asarray(x, dtype=float)
    return float(x) if x.ndim == 0 else x


_params = check_params


def _shapes(ov, lam, gamma, eps, d, L):
    """The broadcast shape of validated overlaps and parameters (``ValueError`` naming them)."""
    return V.broadcast(**dict(zip(OVERLAP_NAMES, ov)), lam=lam, gamma=gamma, eps=eps, d=d, L=L)


def _fast(*values) -> bool:
    """One set of plain Python numbers that passes validation: the scalar path (no arrays)."""
    return V.scalars_ok(*values) and params_ok_scalar(*values[-5:])


@keywords_checked
def zeta(t, g):
    r""":math:`\zeta_g(t) = \mathbb E[\operatorname{erf}(t + gZ)^2]`, Z ~ N(0, 1), g >= 0 (`docs/MATH.md` §4)."""
    t, g = V.as_finite("t", t), V.nonnegative("g", g)
    V.broadcast(t=t, g=g)
    return _out(special.zeta(t, g))


@accepts_gamma2
def risk(kappa, nu, theta, eta, rho, *, lam, gamma, eps=0.0, d, L):
    r"""Theorem 1: the risk :math:`R_\lambda(k, v)` as a function of the overlaps
    kappa = k.k*, nu = v.v*, theta = v.k*, eta = k.v*, rho = k.v."""
    if _fast(kappa, nu, theta, eta, rho, lam, gamma, eps, d, L) and V.overlaps_ok_scalar(kappa, nu, theta, eta, rho, d):
        return G.scalar_kernels().risk(kappa, nu, theta, eta, rho, lam, gamma, eps, d, L)
    lam, gamma, eps, d, L = _params(lam, gamma, eps, d, L)
    ov = V.overlaps(kappa, nu, theta, eta, rho, d=d)
    _shapes(ov, lam, gamma, eps, d, L)
    return _out(G.risk_kernel()(*ov, lam, gamma, eps, d, L))


@accepts_gamma2
def risk_gradient(kappa, nu, theta, eta, rho, *, lam, gamma, eps=0.0, d, L):
    """The five partial derivatives of Theorem 1's risk in the overlaps (independent coordinates),
    keyed 'kappa', 'nu', 'theta', 'eta', 'rho'."""
    if _fast(kappa, nu, theta, eta, rho, lam, gamma, eps, d, L) and V.overlaps_ok_scalar(kappa, nu, theta, eta, rho, d):
        vals = G.scalar_kernels().risk_and_gradient(kappa, nu, theta, eta, rho, lam, gamma, eps, d, L)
        return dict(zip(OVERLAP_NAMES, vals[1:]))
    lam, gamma, eps, d, L = _params(lam, gamma, eps, d, L)
    ov = V.overlaps(kappa, nu, theta, eta, rho, d=d)
    shape = _shapes(ov, lam, gamma, eps, d, L)
    vals = G.risk_and_gradient_kernel()(*ov, lam, gamma, eps, d, L)[1:]
    return {n: _out(np.broadcast_to(v, shape)) for n, v in zip(OVERLAP_NAMES, vals)}


@accepts_gamma2
def oracle_risk(*, lam, gamma, eps=0.0, d, L):
    """R_lam(k*, v*) (`docs/MATH.md` §5)."""
    if _fast(lam, gamma, eps, d, L):
        return G.scalar_kernels().oracle(lam, gamma, eps, d, L)
    lam, gamma, eps, d, L = _params(lam, gamma, eps, d, L)
    V.broadcast(lam=lam, gamma=gamma, eps=eps, d=d, L=L)
    return _out(G.oracle_kernel()(lam, gamma, eps, d, L))


@accepts_gamma2
def manifold_risk(kappa, nu, *, lam, gamma, eps=0.0, d, L):
    """Lemma 6: the risk on M = {theta = eta = rho = 0} as a function of (kappa, nu)."""
    if _fast(kappa, nu, lam, gamma, eps, d, L) and V.overlaps_ok_scalar(kappa, nu, 0.0, 0.0, 0.0, d):
        return G.scalar_kernels().manifold(kappa, nu, lam, gamma, eps, d, L)
    lam, gamma, eps, d, L = _params(lam, gamma, eps, d, L)
    kappa, nu, *_ = V.overlaps(kappa, nu, 0.0, 0.0, 0.0, d=d)
    V.broadcast(kappa=kappa, nu=nu, lam=lam, gamma=gamma, eps=eps, d=d, L=L)
    return _out(G.manifold_kernel()(kappa, nu, lam, gamma, eps, d, L))


@accepts_gamma2
def log_bayes_gap(*, lam, gamma, eps=0.0, d, L):
    """log(R_lam(k*, v*) - eps^2), finite even where the gap underflows float64 (Corollary 2)."""
    lam, gamma, eps, d, L = _params(lam, gamma, eps, d, L)
    V.broadcast(lam=lam, gamma=gamma, eps=eps, d=d, L=L)
    return _out(G.log_bayes_gap_kernel()(lam, gamma, eps, d, L))


@accepts_gamma2
def bayes_gap(*, lam, gamma, eps=0.0, d, L):
    """R_lam(k*, v*) - eps^2 with full relative accuracy however small it is (`docs/MATH.md` §6).

    The gap is always > 0; where it is below the smallest float64 (about 5e-324) this raises
    ``ValueError`` pointing to :func:`log_bayes_gap` instead of returning 0.0."""
    lg = np.asarray(log_bayes_gap(lam=lam, gamma=gamma, eps=eps, d=d, L=L))
    gap = np.exp(lg)
    if np.any(gap == 0):
        raise ValueError(f"the Bayes gap underflows float64 here (log gap = {float(np.min(lg)):.6g}); "
                         "use log_bayes_gap(), which stays finite")
    return _out(gap)


#: Proposition 3's closed form divides by a sum of gamma^2 terms: below this gamma^2 underflows.
LINEAR_GAMMA_MIN = 1e-150


@accepts_gamma2
def linear_risk(*, gamma, eps=0.0, L, p=None):
    """Proposition 3: the risk of the best linear predictor, for the law p of J0 (uniform if None)."""
    gamma, eps, L_arr = checked(gamma=gamma, eps=eps, L=L)
    if np.any(gamma < LINEAR_GAMMA_MIN):
        raise ValueError(f"gamma = {float(np.min(gamma)):.3g} is outside linear_risk's supported range gamma >= "
                         f"{LINEAR_GAMMA_MIN:g} (gamma^2 underflows float64 below it)")
    V.broadcast(gamma=gamma, eps=eps, L=L_arr)
    if p is None:
        return _out(G.linear_uniform_kernel()(gamma, eps, L_arr))
    if L_arr.ndim:
        raise ValueError("L must be a single integer when p is given")
    p = V.probability_vector("p", p, int(L_arr))
    return _out(G.linear_kernel()(p, gamma, eps, int(L_arr)))
