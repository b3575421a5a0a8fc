"""Kernels of the landscape search (`docs/MATH.md` §13), generated from SymPy: Theorem 1 with
its gradient and Hessian in the overlaps, and the five-overlap PGD map with its Jacobian in
(overlaps, partials), in float64 (the batched Newton search) and in mpmath (refinement and
classification at high precision)."""
from __future__ import annotations

from functools import lru_cache
from typing import Callable, NamedTuple

from ..symbolic import dynamics as sdyn
from ..symbolic import risk as srisk
from .codegen import KernelForms, generate, generate_mp

_ARGS = tuple(srisk.OVERLAPS) + tuple(srisk.PARAMS)
_MAP_ARGS = tuple(srisk.OVERLAPS) + tuple(sdyn.PARTIALS) + (sdyn.A,)


class FixedPointKernels(NamedTuple):
    """The risk with its gradient and Hessian, and the PGD map, in float64 and mpmath (:func:`fixed_point_kernels`)."""

    risk_f64: Callable
    map_f64: Callable
    risk_mp: Callable
    map_mp: Callable


class CaptureKernels(NamedTuple):
    """The checker's committed PGD-map kernels on arb balls (:func:`capture_kernels`)."""

    grad_hess: Callable
    map: Callable


@lru_cache(maxsize=None)
def fixed_point_kernels():
    """``risk_f64``/``risk_mp``: (overlaps, lam, gamma, eps, d, L) -> [R, 5 partials, 25 second
    partials]; ``map_f64``/``map_mp``: (overlaps, partials, alpha) -> [F (5), dF (5 x 10, row-major)]."""
    r = [srisk.theorem1_risk(), *srisk.theorem1_gradient(), *srisk.theorem1_hessian()]
    m = list(sdyn.overlap_map()) + list(sdyn.overlap_map_jacobian())
    return FixedPointKernels(risk_f64=generate(_ARGS, r), map_f64=generate(_MAP_ARGS, m),
                             risk_mp=generate_mp(_ARGS, r, cse=True), map_mp=generate_mp(_MAP_ARGS, m, cse=True))


@lru_cache(maxsize=None)
def capture_kernels():
    """The PGD map's pieces on arb balls (the capture certificates of :mod:`slr_verify.certify.capture`):
    ``grad_hess``: (overlaps, lam, gamma, eps, d, L) -> [5 partials, 25 second partials] of Theorem 1's
    risk; ``map``: (overlaps, partials, alpha) -> [F (5), dF (5 x 10, row-major)], the five-overlap map
    and its Jacobian in (overlaps, partials). Enclosures for every point of the argument balls."""
    from ..checker.premises import kernels

    K = kernels("pgd-map")
    return CaptureKernels(grad_hess=K.grad_hess, map=K.pgd_map)


@lru_cache(maxsize=None)
def capture_exprs() -> tuple:
    """The SymPy sources of :func:`capture_kernels` as (args, expressions) pairs: Theorem 1's gradient and Hessian
    in the overlaps, and the five-overlap map with its Jacobian (the certificates' premise ``pgd-map``)."""
    gh = [*srisk.theorem1_gradient(), *srisk.theorem1_hessian()]
    m = list(sdyn.overlap_map()) + list(sdyn.overlap_map_jacobian())
    return (_ARGS, gh), (_MAP_ARGS, m)


@lru_cache(maxsize=None)
def valley_tube_proofs() -> dict:
    """The SymPy facts the valley tube of :mod:`slr_verify.certify.valley` rests on ({name: bool}): Lemma 4
    (M is invariant: theta' = eta' = rho' = 0 and R_theta = R_eta = R_rho = 0 on M), the reduced map is the
    formula of `docs/MATH.md` §9 and sends nu = 1 to nu' = 1 (so the edge nu = 1 of M is invariant), and the
    factorisation g_kappa = P (erf(c2 kappa) - nu) with P > 0 (so g_kappa < 0 on the edge)."""
    import sympy as sp

    from ..symbolic import fixed_points as sfix

    out = dict(sdyn.lemma4_identities())
    out.update(sdyn.pgd_identities())
    nu1 = sdyn.reduced_map()[1].subs(srisk.S.nu, 1)
    out["nu' = 1 at nu = 1 (reduced map)"] = bool(sp.simplify(nu1 - 1) == 0)
    out.update(sfix.structure().proofs)
    return out


def sigma_equivariance_proofs(sigma=None) -> dict:
    """The SymPy proof that a sign pattern sigma commutes with the five-overlap PGD map, Phi(sigma o) = sigma Phi(o)
    for all parameters ({statement: bool}; :func:`slr_verify.symbolic.dynamics.sigma_equivariance_proofs`, cached
    there): the premise of the 2-cycle argument of the contraction balls of :mod:`slr_verify.certify.capture`
    (`docs/MATH.md` §13). ``sigma``: five signs +-1; None: the three non-identity symmetries."""
    return sdyn.sigma_equivariance_proofs(sigma)


@lru_cache(maxsize=None)
def window_kernels():
    """The closed-form mechanism functions of the oracle's window (:mod:`slr_verify.symbolic.landscape`)
    as functions of (lam, gamma, d, L) -> [det B, trace B, family gap]: ``f64`` (NumPy), ``mp``
    (mpmath) and ``arb`` (ball arithmetic)."""
    import sympy as sp

    from ..symbolic import landscape as sland
    from ..symbolic.family_algebra import family_gap
    from .arb import generate_arb

    exprs = [sland.oracle_det(), sp.trace(sland.oracle_offM_block()), family_gap()]
    return KernelForms(f64=generate(sland.LAM_PARAMS, exprs), mp=generate_mp(sland.LAM_PARAMS, exprs, cse=True),
                       arb=generate_arb(sland.LAM_PARAMS, exprs))


@lru_cache(maxsize=None)
def riemannian_kernels():
    """The Riemannian gradient (8) and Hessian (64) of :func:`slr_verify.symbolic.landscape.generic_riemannian`
    of (k0 (5), v0 (5), Tk (4 x 5), Tv (4 x 5), partials (5), second partials (25)): ``mp`` (mpmath)."""
    from ..symbolic import landscape as sland

    G = sland.GENERIC
    args = [*G.k0, *G.v0, *[x for t in G.Tk for x in t], *[x for t in G.Tv for x in t], *G.g, *G.h]
    grad, hess = sland.generic_riemannian()
    return KernelForms(mp=generate_mp(args, grad + hess, cse=True))
