"""Kernels of the profile's trust-region subproblem (`docs/MATH.md` §17), generated from
:mod:`slr_verify.symbolic.profile_trs`: the entries [c, a0, H11, H12, H13, H22, H23, H33, g1, g2, g3]
of (kappa, eta, r, lam, gamma, eps, d, L), and their partials in (kappa, eta, r, lam), in float64
(NumPy, broadcast), mpmath and arb balls."""
from __future__ import annotations

from functools import cache
from typing import Callable, NamedTuple

import sympy as sp

from ..symbolic import profile_dual as pdual
from ..symbolic import profile_oracle as poracle
from ..symbolic import profile_trs as ptrs
from ..symbolic import profile_valley as pvalley
from .arb import generate_arb
from .codegen import KernelForms, generate, generate_mp

#: the number of entries [c, a0, H (6), g (3)]
NENTRIES = 11


class DualKernels(NamedTuple):
    """The dual bound's and the valley certificate's kernels (:func:`dual_kernels`): arb or arb_series, and NumPy."""

    coef: Callable
    dual: Callable
    valley: Callable
    dual_line: Callable
    circle: Callable
    circle_f64: Callable
    det_m: Callable
    coef_f64: Callable
    dual_f64: Callable
    valley_f64: Callable
    dual_line_f64: Callable
    det_m_f64: Callable


@cache
def trs_kernels():
    """``f64``, ``mp``: (kappa, eta, r, lam, gamma, eps, d, L) -> the 11 entries; ``arb`` (generated on first
    use: the ball form is the slow one to generate)."""
    ent = ptrs.trs_entries()
    args = ptrs.TRS_ARGS
    return KernelForms(f64=generate(args, ent), mp=generate_mp(args, ent, cse=True), arb=_committed("quadratic-in-v").trs_entries)


def _committed(premise):
    """The checker's committed ball kernels of ``premise`` (:mod:`slr_verify.checker.generated`): the searches evaluate
    the very code the checker does, so a box a search passes replays."""
    from ..checker.premises import kernels

    return kernels(premise)


@cache
def dual_kernels():
    """The closed-form weak-duality bound and the valley certificate (`docs/MATH.md` §17), in two stages
    so that each coefficient is one ball: ``coef`` (kappa, lam, gamma, eps, d, L) -> [a0, a_tt, a_tr, a_rr,
    p_theta/eta, p_nu, p_rho/eta, c] (:func:`slr_verify.symbolic.profile_trs.reduced_coefficients`);
    ``dual`` (coefficients, kappa, eta, mu) -> [LB, beta, Delta, T]; ``valley`` (coefficients, kappa) ->
    [Q, beta, Delta, T] (:func:`slr_verify.symbolic.profile_valley.valley_algebra`); ``dual_line`` (coefficients,
    det M, kappa, beta) -> [L0, L1, Delta, T], mu = a0 - beta, LB = (1 - t) L0 + t L1, t = eta^2/(1 - kappa^2)
    (:func:`slr_verify.symbolic.profile_dual.dual_line_algebra`); ``circle`` (the same arguments) -> [dL1/dbeta, L0 - L1]
    (:func:`slr_verify.symbolic.profile_valley.circle_algebra`); ``det_m`` (coefficients) -> [det M].
    Each takes arb balls or ``arb_series`` (Taylor arithmetic); ``coef_f64``, ``dual_f64``, ``valley_f64``,
    ``dual_line_f64``, ``circle_f64``, ``det_m_f64``: NumPy."""
    from ..symbolic.risk import S

    cargs = (S.kappa, S.lam, S.gamma, S.eps, S.d, S.L)
    dargs = (*ptrs.COEF_SYMS, S.kappa, S.eta, pdual.MU)
    vargs = (*ptrs.COEF_SYMS, S.kappa)
    rc, da, va = ptrs.reduced_coefficients(), pdual.dual_algebra(), pvalley.valley_algebra()
    ea, eargs = pdual.dual_line_algebra(), (*ptrs.COEF_SYMS, pdual.DET_M, S.kappa, pdual.BETA)
    return DualKernels(coef=_committed("quadratic-in-v").coefficients,
                       dual=generate_arb(dargs, da, series=True), valley=_committed("valley").valley,
                       dual_line=_committed("dual-bound").dual_line, circle=_committed("circle").circle,
                       circle_f64=generate(eargs, pvalley.circle_algebra()), det_m=_committed("dual-bound").det_m,
                       coef_f64=generate(cargs, rc), dual_f64=generate(dargs, da), valley_f64=generate(vargs, va),
                       dual_line_f64=generate(eargs, ea), det_m_f64=generate(ptrs.COEF_SYMS, [pdual.det_m()]))


@cache
def oracle_arb():
    """arb: (lam, gamma, eps, d, L) -> [R(k*, v*), dR(k*, v*)/dlam]."""
    return _committed("oracle-risk").oracle


@cache
def oracle_curvature_kernels():
    """The profile's second derivatives at k* (:func:`slr_verify.symbolic.profile_oracle.oracle_curvature`):
    (lam, gamma, eps, d, L) -> [m'' along v*, m'' along e, H11 - mu0, H33 - mu0] (the last two > 0: v* is
    the TRS's nondegenerate minimiser at k*); ``f64`` (NumPy, broadcast), ``mp`` (mpmath), ``arb`` (balls) and
    ``series`` (balls or ``arb_series``: Taylor arithmetic in any argument)."""
    from ..symbolic.risk import PARAMS

    o = poracle.oracle_curvature()
    ex = [*o.curv, *o.gaps]
    f = _committed("oracle-curvature").oracle_curvature
    return KernelForms(f64=generate(PARAMS, ex), mp=generate_mp(PARAMS, ex, cse=True), arb=f, series=f)


@cache
def oracle_f64():
    """NumPy: (lam, gamma, eps, d, L) -> [R(k*, v*), dR(k*, v*)/dlam] (broadcast)."""
    from ..symbolic.risk import PARAMS

    return generate(PARAMS, poracle.oracle_risk_and_slope())


def valley_edge_exprs():
    """((kappa, lam, gamma, d), [P(kappa) erfc(c2 kappa)]): the expression of :func:`valley_edge_kernels` (and of the
    premise ``valley-edge``)."""
    from ..symbolic import fixed_points as sfix
    from ..symbolic.risk import S

    st = sfix.structure()
    return (S.kappa, S.lam, S.gamma, S.d), [st.P * sp.erfc(st.c2 * S.kappa)]


@cache
def valley_edge_kernels():
    """-dR(kappa, 1, 0, 0, 0)/dkappa = P(kappa) erfc(c2 kappa) > 0 (:func:`valley_edge_proofs`) on arb balls
    (``arb``: (kappa, lam, gamma, d) -> [value]; erfc keeps its relative accuracy however small) and NumPy
    (``f64``). Its minimum over [kappa, 1] times (1 - kappa) bounds R(kappa, 1, 0, 0, 0) - R(k*, v*) from below: the
    valley-edge test of `docs/MATH.md` §17."""
    args, ex = valley_edge_exprs()
    return KernelForms(arb=_committed("valley-edge").valley_edge, f64=generate(args, ex))


@cache
def valley_edge_proofs() -> dict:
    """SymPy: on the edge nu = 1 of M, dR/dkappa = -P(kappa) erfc(c2 kappa), with P > 0, c2 > 0 (the factorisation
    of :func:`slr_verify.symbolic.fixed_points.structure`, whose proofs are included)."""
    from ..symbolic import fixed_points as sfix
    from ..symbolic.risk import S

    st = sfix.structure()
    (_, ex) = valley_edge_exprs()
    out = {"dR(kappa, 1, 0, 0, 0)/dkappa = -P erfc(c2 kappa)":
           sp.simplify((st.gk.subs(S.nu, 1) + ex[0]).rewrite(sp.erf)) == 0}
    out.update(st.proofs)
    return out


@cache
def valley_proofs() -> dict:
    """The SymPy facts the strip of :mod:`slr_verify.certify.globalmin` rests on (each a bool): on eta = 0
    the linear coefficients p_theta, p_rho vanish (so v* solves the TRS when H - (a0 - g2) I is positive
    definite), and the factorisation of the manifold gradient (dR/dkappa = P (erf(c2 kappa) - nu), P > 0:
    R(kappa, 1, 0, 0, 0) decreases strictly in kappa on [0, 1])."""
    from ..symbolic import fixed_points as sfix
    from ..symbolic.risk import S

    co = ptrs.coefficients()
    out = {"p_theta = 0 at eta = 0": co.p_theta.subs(S.eta, 0) == 0, "p_rho = 0 at eta = 0": co.p_rho.subs(S.eta, 0) == 0}
    out.update(sfix.structure().proofs)
    return out

