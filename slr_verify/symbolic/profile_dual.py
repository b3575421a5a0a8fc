r"""The weak-duality bound of the profile and its algebra (`docs/MATH.md` §17).

For a multiplier mu with H - mu I positive definite, the TRS of :mod:`.profile_trs` is bounded below by
:math:`c + \mu - g^\top (H - \mu I)^{-1} g` (weak duality). Here: that bound in closed form by Woodbury's identity
(:func:`dual_bound`, :func:`dual_algebra`), its form along the line at fixed kappa (:func:`dual_line_algebra`:
LB = (1 - t) L0 + t L1, t = eta^2/(1 - kappa^2)), and the positive-definiteness criterion beta, Delta, T > 0
(:func:`pd_criterion_proofs`), each with the SymPy proofs it rests on.
"""
from __future__ import annotations

from functools import cache

import sympy as sp

from .profile_trs import COEF_NAMES, R_SYM, ball_form, coefficients, opaque_coefficients, trs
from .risk import S
from .stored import stored

#: the multiplier of the dual bound
MU = sp.Symbol("mu", real=True)
#: the arguments of the dual-bound kernels
DUAL_ARGS = (S.kappa, S.eta, MU, S.lam, S.gamma, S.eps, S.d, S.L)


def dual_bound_generic(co, kappa, eta, mu):
    """(LB, beta, Delta, T) of :func:`dual_bound` with the coefficients given by ``co`` (a dict of
    :data:`~.profile_trs.COEF_NAMES` and ``"c"`` -> expression) at (kappa, eta, mu)."""
    beta = co["a0"] - mu
    M = sp.Matrix([[co["a_tt"], co["a_tr"]], [co["a_tr"], co["a_rr"]]])
    Gp = sp.Matrix([[1, kappa], [kappa, 1]])
    pt, pn, pr = co["p_theta"], co["p_nu"], co["p_rho"]
    u = sp.Matrix([-(pt + pr * kappa) / 2, -(pt * kappa + pn * eta + pr) / 2])
    g2 = (pt**2 + pn**2 + pr**2 + 2 * pt * pr * kappa + 2 * pn * pr * eta) / 4
    MG = M * Gp
    Delta = beta**2 + beta * MG.trace() + M.det() * Gp.det()
    T = 2 * beta + MG.trace()
    adjG = sp.Matrix([[1, -kappa], [-kappa, 1]])
    num = Delta * g2 - beta * (u.T * M * u)[0] - M.det() * (u.T * adjG * u)[0]
    return co["c"] + mu - num / (beta * Delta), beta, Delta, T


def dual_bound(ball=False) -> list:
    r"""The weak-duality bound of the profile in closed form (`docs/MATH.md` §17): with
    :math:`P = [k^*, k]`, :math:`M = [[a_{\theta\theta}, a_{\theta\rho}], [a_{\theta\rho}, a_{\rho\rho}]]`,
    :math:`H - \mu I = \beta I + P M P^\top` (:math:`\beta = a_0 - \mu`) and Woodbury's identity,

    .. math::

        c + \mu - g^\top (H - \mu I)^{-1} g
        = c + \mu - \frac{\Delta |g|^2 - \beta\, u^\top M u - \det M\, u^\top \operatorname{adj}(G_P) u}{\beta \Delta},

    :math:`G_P = P^\top P = [[1, \kappa], [\kappa, 1]]`, :math:`u = P^\top g`,
    :math:`\Delta = \det(\beta I + M G_P)` (:func:`dual_proofs`). H - mu I (and a0 - mu on e') is positive definite
    iff :math:`\beta > 0`, :math:`\Delta > 0` and :math:`T = 2\beta + \operatorname{tr}(M G_P) > 0`
    (:func:`pd_criterion_proofs`: its characteristic polynomial is :math:`(\beta - s)(s^2 - Ts + \Delta)`).
    A function of (kappa, eta) only (|k| = 1 is used), free of the large cancelling entries of H.
    [LB, beta, Delta, T] in (kappa, eta, mu; lam, gamma, eps, d, L)."""
    co = coefficients()
    c_ = {k: (ball_form(getattr(co, k)) if ball else getattr(co, k)) for k in COEF_NAMES}
    c_["c"] = co.c
    return list(dual_bound_generic(c_, S.kappa, S.eta, MU))


@cache
def dual_proofs() -> dict:
    """SymPy proofs (each a bool), for arbitrary coefficient values (free symbols): the closed form
    of :func:`dual_bound` is c + mu - g^T (H - mu I)^{-1} g for H, g of :func:`~.profile_trs.trs` (on |k| = 1); and
    the determinant lemma det(H - mu I) = beta Delta."""
    free = {k: sp.Symbol(k, real=True) for k in COEF_NAMES}
    free["c"] = sp.Symbol("c", real=True)
    kap, eta, r = S.kappa, S.eta, R_SYM
    LB, beta, Delta, _T = dual_bound_generic(free, kap, eta, MU)
    e1, e2 = sp.Matrix([1, 0, 0]), sp.Matrix([0, 1, 0])
    w = sp.Matrix([kap, eta, r])
    H = free["a0"] * sp.eye(3) + free["a_tt"] * e1 * e1.T + free["a_tr"] * (e1 * w.T + w * e1.T) + free["a_rr"] * w * w.T
    g = -(free["p_theta"] * e1 + free["p_nu"] * e2 + free["p_rho"] * w) / 2
    D = H - MU * sp.eye(3)
    on_sphere = {r: sp.sqrt(1 - kap**2 - eta**2)}
    detD = sp.expand(D.det().subs(on_sphere))
    direct = free["c"] + MU - (g.T * D.adjugate() * g)[0].subs(on_sphere) / detD
    # the eta-structure: the coefficients of p_theta, p_rho carry a factor eta (coefficients())
    et = {free["p_theta"]: eta * sp.Symbol("P_t"), free["p_rho"]: eta * sp.Symbol("P_r")}
    LBe = sp.together(LB.subs(et, simultaneous=True))
    return {
        "LB is a quadratic in eta at fixed kappa, mu": sp.cancel(sp.diff(LBe, eta, 3)) == 0,
        "det(H - mu I) = beta Delta": sp.expand(detD - beta * Delta) == 0,
        "Woodbury: c + mu - g^T (H - mu I)^{-1} g": sp.cancel(sp.together(LB - direct)) == 0,
    }


def dual_algebra() -> list:
    """[LB, beta, Delta, T] of :func:`dual_bound` in (COEF_SYMS, kappa, eta, mu): the algebra on top of
    the coefficients, kept apart so that ball arithmetic sees each coefficient as one ball (expanding
    a_tt a_rr - a_tr^2 into its terms cancels ~1e3-fold at lam ~ 0.85, d = 400)."""
    return list(dual_bound_generic(opaque_coefficients(), S.kappa, S.eta, MU))


#: beta = a0 - mu: the line form takes the multiplier through beta (a box then fixes beta, and mu = a0 - beta
#: follows a0 over the box: beta carries no enclosure width, and weak duality holds pointwise for any mu)
BETA = sp.Symbol("beta", real=True)
#: det M = a_tt a_rr - a_tr^2 as an input of its own: it cancels ~10-fold over a box (a_tt a_rr ~ a_tr^2), so the
#: line form takes it as one ball with its own centred enclosure
DET_M = sp.Symbol("det_M", real=True)


def det_m() -> sp.Expr:
    """det M = a_tt a_rr - a_tr^2 in COEF_SYMS (the input DET_M of :func:`dual_line_algebra`)."""
    co = opaque_coefficients()
    return sp.Matrix([[co["a_tt"], co["a_tr"]], [co["a_tr"], co["a_rr"]]]).det()


@stored
def dual_line_algebra() -> list:
    r"""[L0, L1, Delta, T] in (COEF_SYMS, DET_M, kappa, beta), beta = a0 - mu: the dual bound of :func:`dual_algebra` along
    the line at kappa, LB = (1 - t) L0 + t L1 with t = eta^2/(1 - kappa^2) (:func:`dual_line_proofs`). Split g
    into its part in span P = span(k*, k) and the rest: the rest is -(p_nu/2) times v*'s component off
    span P, of squared length 1 - t, and (H - mu I)^{-1} acts on it as 1/beta; on span P, with
    u = P^T g = eta u', the bound's term is u^T N^{-1} u, N = beta G_P + G_P M G_P, det N = (1 - kappa^2) Delta. So

    .. math::

        L_0 = c + a_0 - \beta - \frac{p_\nu^2}{4\beta},\qquad
        L_1 = c + a_0 - \beta - \frac{u'^\top \operatorname{adj}(N)\, u'}{\Delta},

    both sign-structured (adj N is positive definite when H - mu I is): no cancellation of O(1) terms into
    O(beta), which the single fraction over beta Delta of :func:`dual_algebra` has near the hard case
    (mu -> a0 near kappa = 0, where the line's bound needs beta ~ 1e-4). L0 is the bound on eta = 0, L1 on
    the circle r = 0; H - mu I is positive definite iff beta, Delta, T > 0 (:func:`pd_criterion_proofs`)."""
    co = opaque_coefficients()
    kap = S.kappa
    M = sp.Matrix([[co["a_tt"], co["a_tr"]], [co["a_tr"], co["a_rr"]]])
    Gp = sp.Matrix([[1, kap], [kap, 1]])
    Pt, pn, Pr = co["p_theta"] / S.eta, co["p_nu"], co["p_rho"] / S.eta
    u1 = sp.Matrix([-(Pt + Pr * kap) / 2, -(Pt * kap + pn + Pr) / 2])
    N = BETA * Gp + Gp * M * Gp
    T = 2 * BETA + (M * Gp).trace()
    Delta = BETA**2 + BETA * (M * Gp).trace() + DET_M * (1 - kap**2)
    L0 = co["c"] + co["a0"] - BETA - pn**2 / (4 * BETA)
    L1 = co["c"] + co["a0"] - BETA - (u1.T * N.adjugate() * u1)[0] / Delta
    return [L0, L1, Delta, T]


@cache
def dual_line_proofs() -> dict:
    """SymPy proofs (each a bool), for arbitrary coefficient values: the terms of :func:`dual_line_algebra`
    carry no eta, det N = (1 - kappa^2) Delta, and at beta = a0 - mu, LB = (1 - t) L0 + t L1 with
    t = eta^2 / (1 - kappa^2) and Delta, T those of :func:`dual_algebra` (so LB is affine in t, exactly quadratic
    in eta)."""
    LB, _, Delta_mu, T_mu = dual_algebra()
    L0, L1, Delta, T = dual_line_algebra()
    co = opaque_coefficients()
    at_mu = {BETA: co["a0"] - MU, DET_M: det_m()}
    M = sp.Matrix([[co["a_tt"], co["a_tr"]], [co["a_tr"], co["a_rr"]]])
    Gp = sp.Matrix([[1, S.kappa], [S.kappa, 1]])
    N = BETA * Gp + Gp * M * Gp
    t = S.eta**2 / (1 - S.kappa**2)
    return {
        "L0, L1 are free of eta": S.eta not in (L0.free_symbols | L1.free_symbols),
        "det N = (1 - kappa^2) Delta": sp.expand(N.det() - (1 - S.kappa**2) * Delta.subs(DET_M, det_m())) == 0,
        "Delta, T at beta = a0 - mu": sp.expand(Delta.subs(at_mu) - Delta_mu) == 0 and sp.expand(T.subs(at_mu) - T_mu) == 0,
        "LB = (1 - t) L0 + t L1": sp.cancel(sp.together(LB - ((1 - t) * L0 + t * L1).subs(at_mu))) == 0,
    }


#: the spectral parameter of the characteristic polynomial (:func:`pd_criterion_proofs`)
_S_EIG = sp.Symbol("s", real=True)


def _h4(co):
    """H - mu I on (k*, v*, e, e') with the coefficients ``co`` (module docstring: w = (kappa, eta, r, 0)), and the
    substitution putting k on the unit sphere."""
    e1 = sp.Matrix([1, 0, 0, 0])
    w = sp.Matrix([S.kappa, S.eta, R_SYM, 0])
    H = co["a0"] * sp.eye(4) + co["a_tt"] * e1 * e1.T + co["a_tr"] * (e1 * w.T + w * e1.T) + co["a_rr"] * w * w.T
    return H - MU * sp.eye(4), {R_SYM: sp.sqrt(1 - S.kappa**2 - S.eta**2)}


def _char_poly_holds(beta, T, Delta) -> bool:
    """det(H - mu I - s I) on (k*, v*, e) = (beta - s)(s^2 - T s + Delta) on |k| = 1, as a polynomial identity in
    (COEF_SYMS, kappa, eta, mu, s) (H of :func:`_h4` with the coefficients of :func:`~.profile_trs.opaque_coefficients`)."""
    D, on_sphere = _h4(opaque_coefficients())
    s = _S_EIG
    cp = (D[:3, :3] - s * sp.eye(3)).det(method="berkowitz").subs(on_sphere)
    return sp.expand(cp - (beta - s) * (s**2 - T * s + Delta)) == 0


@cache
def pd_criterion_proofs() -> dict:
    r"""The positive-definiteness criterion of the dual bound (`docs/MATH.md` §17): for |k| = 1,
    **beta > 0, Delta > 0, T > 0 imply H - mu I positive definite** (and conversely), with beta = a0 - mu and
    T, Delta those of :func:`dual_algebra` and of :func:`dual_line_algebra` (DET_M = det M).

    SymPy proofs (each a bool), for arbitrary coefficient values (:data:`~.profile_trs.COEF_SYMS`; kappa, eta, mu, s free,
    r = sqrt(1 - kappa^2 - eta^2)):

    * the characteristic polynomial on (k*, v*, e):
      :math:`\det(H - \mu I - sI) = (\beta - s)(s^2 - T s + \Delta)`, with T, Delta of either form;
    * e' is an eigenvector of the 4 x 4 H - mu I with eigenvalue beta (H acts as a0 there);
    * that H, at the derived coefficients, is the H (and a0) of :func:`~.profile_trs.trs`.

    So the eigenvalues of H - mu I are beta (twice, with e') and the two roots of :math:`s^2 - Ts + \Delta`.
    The rest is cited, not proved here: a real symmetric matrix has real eigenvalues and is positive definite iff
    they are all > 0; the two roots of :math:`s^2 - Ts + \Delta` (real, being eigenvalues) have sum T and product
    Delta (Vieta), so both are > 0 iff T > 0 and Delta > 0. The identity is checked through
    :func:`_char_poly_holds`, which fails for any other (T, Delta)."""
    LB, beta, Delta, T = dual_algebra()
    _L0, _L1, Dl, Tl = dual_line_algebra()
    co = opaque_coefficients()
    at_mu = {BETA: co["a0"] - MU, DET_M: det_m()}
    D, on_sphere = _h4(co)
    ep = sp.Matrix([0, 0, 0, 1])
    tr, cf = trs(), coefficients()
    Dd = _h4({k: getattr(cf, k) for k in ("a0", "a_tt", "a_tr", "a_rr")})[0] + MU * sp.eye(4)
    return {
        "H of trs() and a0 on e' are this H at the derived coefficients": all(
            sp.expand(x) == 0 for x in Dd[:3, :3] - tr.H) and sp.expand(Dd[3, 3] - tr.a0) == 0,
        "beta = a0 - mu": sp.expand(beta - (co["a0"] - MU)) == 0,
        "det(H - mu I - s I) = (beta - s)(s^2 - T s + Delta), T and Delta of dual_algebra": _char_poly_holds(beta, T, Delta),
        "the same with T, Delta of dual_line_algebra (beta = a0 - mu, det_M = det M)": _char_poly_holds(
            beta, Tl.subs(at_mu), Dl.subs(at_mu)),
        "(H - mu I) e' = beta e' on (k*, v*, e, e')": all(sp.expand(x) == 0 for x in (D * ep - beta * ep).subs(on_sphere)),
    }
