r"""The valley and the circle of the profile (`docs/MATH.md` §17): the certificates' algebra on top of the dual bound
(:mod:`.profile_dual`).

On the valley eta = 0 the TRS multiplier is mu_v(kappa) = a0 + p_nu/2 (:func:`valley_mu`); the dual bound has no
term linear in eta (:func:`eta_linear_proofs`), so where its eta^2 coefficient is > 0 the valley is the minimum of
the whole line at kappa (:func:`valley_curvature`, :func:`valley_algebra`). On the circle r = 0 the dual function's
beta-derivative brackets the optimal multiplier (:func:`circle_algebra`).
"""
from __future__ import annotations

from functools import cache

import sympy as sp

from .profile_dual import BETA, MU, dual_algebra, dual_bound, dual_bound_generic, dual_line_algebra
from .profile_trs import ball_form, coefficients, opaque_coefficients
from .risk import S, theorem1_risk
from .stored import stored


def valley_mu() -> sp.Expr:
    """mu(kappa) = a0 + p_nu/2: the TRS multiplier on the valley eta = 0, where v* solves the TRS
    (g = -p_nu v*/2 there and H v* = a0 v*)."""
    co = coefficients()
    return co.a0 + co.p_nu / 2


def valley_curvature(ball=False) -> list:
    r"""The local certificate of `docs/MATH.md` §17 in closed form. At fixed kappa and mu the dual bound is
    *exactly* quadratic in eta, LB = A_0(kappa, mu) - A_2(kappa, mu) eta^2 (beta, Delta, M depend on kappa
    and mu only, u and the eta-part of |g|^2 carry the factors eta, eta^2: :func:`~.profile_dual.dual_proofs`,
    :func:`eta_linear_proofs`). With mu = mu_v(kappa) (:func:`valley_mu`), LB(kappa, 0) = R(kappa, 1, 0, 0, 0)
    (:func:`eta_linear_proofs`), so where
    Q(kappa) = -A_2(kappa, mu_v(kappa)) > 0 and beta, Delta, T > 0,
    m(kappa, eta) >= LB >= m(kappa, 0) for **every** eta: the valley is the minimum of the whole line.
    [Q, beta, Delta, T] at mu = mu_v(kappa), in (kappa; lam, gamma, eps, d, L)."""
    LB, beta, Delta, T = dual_bound(ball)
    mu_v = ball_form(valley_mu()) if ball else valley_mu()
    Q = sp.diff(LB, S.eta, 2).subs(S.eta, 0) / 2
    return [e.subs(MU, mu_v) for e in (Q, beta, Delta, T)]


@stored
def valley_algebra() -> list:
    """[Q, beta, Delta, T] of :func:`valley_curvature` in (COEF_SYMS, kappa)."""
    co = opaque_coefficients()
    LB, beta, Delta, T = dual_bound_generic(co, S.kappa, S.eta, MU)
    mu_v = co["a0"] + co["p_nu"] / 2
    Q = sp.diff(LB, S.eta, 2).subs(S.eta, 0) / 2
    return [sp.simplify(e.subs(MU, mu_v)) for e in (Q, beta, Delta, T)]


def _linear_eta_term(LB) -> sp.Expr:
    """d LB / d eta at eta = 0, as one cancelled fraction (0 iff LB has no term linear in eta)."""
    return sp.cancel(sp.together(sp.diff(LB, S.eta).subs(S.eta, 0)))


@cache
def eta_linear_proofs() -> dict:
    r"""The dual bound has **no term linear in eta** (`docs/MATH.md` §17): at fixed kappa and mu,
    LB = A_0 + Q eta^2 exactly, for LB of :func:`~.profile_dual.dual_algebra` (p_theta = eta P_t, p_rho = eta P_r; every
    other coefficient free of eta, :func:`~.profile_trs.frame_proofs`).

    SymPy proofs (each a bool), for arbitrary coefficient values (:data:`~.profile_trs.COEF_SYMS`; kappa, eta, mu free), each a
    rational identity reduced by ``cancel(together(.))`` to 0:

    * :math:`\partial_\eta LB|_{\eta = 0} = 0`, and the same at the valley multiplier
      :math:`\mu_v = a_0 + p_\nu/2` (:func:`valley_mu`);
    * :math:`LB = A_0 + Q\eta^2` with :math:`A_0 = LB|_{\eta = 0}`, :math:`Q = \tfrac12\partial_\eta^2 LB|_{\eta = 0}`
      (exactly quadratic and even in eta; this contains the third-derivative check of :func:`~.profile_dual.dual_proofs`);
    * the valley facts at mu_v: :math:`A_0 = c + a_0 + p_\nu` (the quadratic in v at v = v* on eta = 0, i.e.
      Theorem 1 at (kappa, 1, 0, 0, 0): checked on the derived coefficients), and the Q of
      :func:`valley_algebra` is this Q at mu_v.

    So with mu = mu_v, beta, Delta, T > 0 (:func:`~.profile_dual.pd_criterion_proofs`) and Q > 0, weak duality gives
    m(kappa, eta) >= A_0 = R(kappa, 1, 0, 0, 0) on the whole line at kappa. The linear term is checked through
    :func:`_linear_eta_term`, which a bound without the factor eta fails."""
    LB = dual_algebra()[0]
    co = opaque_coefficients()
    mu_v = co["a0"] + co["p_nu"] / 2
    A0 = LB.subs(S.eta, 0)
    Q = sp.diff(LB, S.eta, 2).subs(S.eta, 0) / 2
    zero = lambda e: sp.cancel(sp.together(e)) == 0
    cf = coefficients()
    edge = {S.nu: 1, S.theta: 0, S.eta: 0, S.rho: 0}
    valley_value = sp.expand((cf.c + cf.a0 + cf.p_nu).subs(S.eta, 0) - theorem1_risk().subs(edge))
    return {
        "d LB/d eta = 0 at eta = 0 (any mu)": _linear_eta_term(LB) == 0,
        "d LB/d eta = 0 at eta = 0, mu = mu_v = a0 + p_nu/2": _linear_eta_term(LB.subs(MU, mu_v)) == 0,
        "LB = A0 + Q eta^2 (A0 = LB at eta = 0, Q = LB''(0)/2)": zero(LB - A0 - Q * S.eta**2),
        "at mu = mu_v: A0 = c + a0 + p_nu": zero(A0.subs(MU, mu_v) - (co["c"] + co["a0"] + co["p_nu"])),
        "c + a0 + p_nu at eta = 0 is Theorem 1 at (kappa, 1, 0, 0, 0)": sp.simplify(valley_value) == 0,
        "Q of valley_algebra = Q at mu = mu_v": zero(valley_algebra()[0] - Q.subs(MU, mu_v)),
    }


def circle_algebra() -> list:
    r"""[dL1/dbeta, L0 - L1] in (COEF_SYMS, DET_M, kappa, beta) (:func:`~.profile_dual.dual_line_algebra`): the circle test of
    `docs/MATH.md` §17. On the circle (t = 1) the dual function is psi(beta) = L1(beta), concave in mu = a0 - beta
    (its mu-derivative is 1 - |(H - mu I)^{-1} g|^2, decreasing: cited); if dL1/dbeta > 0 at beta_s and < 0 at
    beta_b > beta_s, with H - mu I positive definite at beta_s, the optimal multiplier mu* of the circle point lies
    between, strong duality gives m(kappa, 1) = L1(mu*), and weak duality at mu* gives, for every t in [0, 1),
    m(kappa, t) >= L1(mu*) + (1 - t)(L0 - L1)(mu*) > m(kappa, 1) where L0 - L1 > 0 on the bracket."""
    L0, L1, _, _ = dual_line_algebra()
    return [sp.diff(L1, BETA), L0 - L1]


def circle_proofs() -> dict:
    """SymPy proofs (each a bool) of :func:`circle_algebra`'s two expressions: the first is the beta-derivative of
    L1, the second L0 - L1 (both of :func:`~.profile_dual.dual_line_algebra`, whose proofs
    :func:`~.profile_dual.dual_line_proofs` are the premise ``dual-bound``)."""
    L0, L1, _, _ = dual_line_algebra()
    d1, diff = circle_algebra()
    return {"dL1/dbeta": sp.simplify(d1 - sp.diff(L1, BETA)) == 0, "L0 - L1": sp.expand(diff - (L0 - L1)) == 0}
