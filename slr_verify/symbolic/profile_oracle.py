r"""The oracle (k*, v*) in the profile (`docs/MATH.md` §§5-6, 17): its risk U(lam) and slope dU/dlam in the complement
form the certificates use (:func:`oracle_risk_and_slope`, proved equal to Theorem 1's by
:func:`oracle_risk_form_proofs`), and the profile's curvature at k* by the implicit-function theorem on the TRS's KKT
system (:func:`oracle_curvature`).
"""
from __future__ import annotations

from functools import cache
from types import SimpleNamespace

import sympy as sp

from .profile_trs import R_SYM, trs
from .risk import S, theorem1_risk
from .stored import stored


def oracle_risk_and_slope() -> list:
    """[R(k*, v*), dR(k*, v*)/dlam] in (lam, gamma, eps, d, L), from the complement form of the oracle
    risk (:func:`slr_verify.symbolic.risk.bayes_gap_expr`, every term >= 0): Theorem 1 at (1, 1, 0, 0, 0) and its
    lam-derivative (:func:`oracle_risk_form_proofs`)."""
    from .risk import bayes_gap_expr

    R = _arcsine_once(S.eps**2 + bayes_gap_expr())
    return [R, _radicands_factored(sp.diff(R, S.lam))]


def _arcsine_once(expr) -> sp.Expr:
    r"""asin(2 lam^2/(1 + 2 lam^2)) -> asin(1 - 1/(1 + 2 lam^2)): lam once in the argument. On a ball of lam the
    quotient's two occurrences of lam widen it past 1 near lam ~ 5 (the arcsine's ball is then NaN); the form with one
    occurrence is monotone in lam and stays below 1 (`docs/MATH.md` §17)."""
    return expr.replace(sp.asin, lambda a: sp.asin(1 - 1 / sp.cancel(1 / (1 - a))))


def _radicands_factored(expr) -> sp.Expr:
    """Every square root's radicand put over one denominator and factored: the arcsine's derivative
    u'/sqrt(1 - u^2) becomes 4 lam/((1 + 2 lam^2) sqrt(1 + 4 lam^2)) (no 1 - u^2 to cancel on a ball)."""
    return expr.replace(lambda x: x.is_Pow and x.exp.is_Rational and x.exp.q == 2,
                        lambda x: sp.factor(sp.together(x.base)) ** x.exp)


def _oracle_rewrite(expr) -> sp.Expr:
    r"""zetac(t, g) -> 1 - 2 erf(t/sqrt(1 + 2g^2)) + zeta(t, g) and zeta(0, g) -> (2/pi) arcsin(2g^2/(1 + 2g^2))
    (`docs/MATH.md` §4; :mod:`slr_verify.symbolic.zeta`), then each arcsine's argument and each radicand over one
    denominator and factored (sqrt((1 + 2 lam^2)^2) -> 1 + 2 lam^2 for lam > 0), expanded."""
    from .zeta import zeta, zetac

    e = expr.replace(zetac, lambda t, g: zetac(t, g).rewrite(zeta))
    e = e.replace(zeta, lambda t, g: zeta(t, g).rewrite(sp.asin))
    e = e.replace(sp.asin, lambda a: sp.asin(sp.factor(sp.together(a))))
    return sp.expand(_radicands_factored(e))


def _oracle_forms_agree(a, b) -> bool:
    """a - b is 0 after :func:`_oracle_rewrite` (an exact rational identity in the remaining atoms)."""
    return sp.cancel(sp.together(_oracle_rewrite(a) - _oracle_rewrite(b))) == 0


@cache
def oracle_risk_form_proofs() -> dict:
    r"""The oracle risk of the certificates is Theorem 1's (`docs/MATH.md` §§5-6, 17):
    :math:`U(\lambda) = \varepsilon^2 + \gamma^2\bar\zeta_{\lambda\gamma}(\lambda\sqrt{d/2})
    + (L-1)\frac2\pi\arcsin\frac{2\lambda^2}{1+2\lambda^2}`
    (:func:`oracle_risk_and_slope`, the complement form of :func:`slr_verify.symbolic.risk.bayes_gap_expr`) equals
    :func:`slr_verify.symbolic.risk.theorem1_risk` at (kappa, nu, theta, eta, rho) = (1, 1, 0, 0, 0), and dU/dlam
    its lam-derivative, for all (lam, gamma, eps, d, L).

    In U and in Theorem 1 at the oracle, zeta and zetac are opaque SymPy functions (zeta_lam(0) stays unevaluated in
    Theorem 1), erf appears only in Theorem 1's term
    :math:`-2\gamma^2\operatorname{erf}(\lambda\sqrt{d/2}/\sqrt{1 + 2\lambda^2\gamma^2})`, and erfc only inside zetac.
    The proofs rewrite with the facts of §4: zetac = E erfc^2 = 1 - 2 E erf + E erf^2 (SymPy: the integrand
    identity erfc(x)^2 = 1 - 2 erf(x) + erf(x)^2, with the cited E erf(t + gZ) = erf(t/sqrt(1 + 2g^2))) and the
    cited zeta_g(0) = (2/pi) arcsin(2g^2/(1 + 2g^2)) (checked against quadrature in ``tests/test_quadrature.py``).
    Then the difference is an exact identity: the risks cancel term by term after ``expand``; the slopes after the
    radicands are factored (the heat-equation derivative of zeta_lam(0) in Theorem 1 against the arcsine's
    derivative in U). Checked through :func:`_oracle_forms_agree` (erf in place of erfc fails)."""
    from .risk import oracle_point
    from .zeta import erf_mean, zeta, zetac

    U, dU = oracle_risk_and_slope()
    R0 = theorem1_risk().subs(oracle_point())
    x, t, g = sp.Symbol("x", real=True), sp.Symbol("t", real=True), sp.Symbol("g", positive=True)
    return {
        "erfc(x)^2 = 1 - 2 erf(x) + erf(x)^2": sp.expand(
            sp.erfc(x).rewrite(sp.erf) ** 2 - (1 - 2 * sp.erf(x) + sp.erf(x) ** 2)) == 0,
        "zetac(t, g) is rewritten as 1 - 2 erf(t/sqrt(1 + 2g^2)) + zeta(t, g)": sp.expand(
            zetac(t, g).rewrite(zeta) - (1 - 2 * erf_mean(t, g) + zeta(t, g))) == 0,
        "U = eps^2 + bayes_gap_expr() is Theorem 1 at (1, 1, 0, 0, 0)": _oracle_forms_agree(U, R0),
        "dU/dlam is d/dlam of Theorem 1 at (1, 1, 0, 0, 0)": _oracle_forms_agree(dU, sp.diff(R0, S.lam)),
    }


#: the chart parameter along a curve through k*
T_CHART = sp.Symbol("t", real=True)


def _oracle_paths() -> tuple:
    """The two curves through k* of the chart k = (sqrt(1 - x^2 - y^2), x, y) on (k*, v*, e): along x
    (towards v*) and along y (towards e), as substitutions {kappa, eta, r} in the chart parameter t."""
    t = T_CHART
    k = sp.sqrt(1 - t**2)
    return ({S.kappa: k, S.eta: t, R_SYM: sp.Integer(0)}, {S.kappa: k, S.eta: sp.Integer(0), R_SYM: t})


@stored
def oracle_curvature() -> SimpleNamespace:
    r"""The profile's second derivatives at k* (`docs/MATH.md` §17) by the implicit-function theorem on
    the TRS's KKT system, in (lam, gamma, eps, d, L).

    At k* the TRS solution is x0 = v* = e_2 with multiplier mu0 = H_22 - g_2 (``kkt`` lists the other
    two components of (H - mu0) x0 - g, which must vanish at k*). Along a curve t -> k(t) of the chart,
    with u = H' x0 - g' (t-derivatives at 0) and the Lagrangian's
    :math:`\mathcal L'' = c'' + x_0^\top H'' x_0 - 2 g''^\top x_0`, differentiating the KKT system
    :math:`(H - \mu) x = g,\ |x| = 1` gives :math:`x' = -(H - \mu_0)_P^{-1} u_P` on P = x0's orthogonal
    complement (e_1, e_3) and

    .. math::  m''(0) = \mathcal L'' - 2\, u_P^\top (H - \mu_0)_P^{-1} u_P

    (e' decouples: H = a0 there and g, H' have no e' part). Valid where (H - mu0)_P is positive
    definite (``gaps``: its diagonal, which is all of it at k*: ``offdiag``), i.e. v* is the TRS's
    unique minimiser at k* and the minimiser is smooth nearby. m is even in x and in y, so the two
    curvatures are the eigenvalues of the chart Hessian of m at k*. Returns ``curv`` [along v*,
    along e], ``gaps`` [H11 - mu0, H33 - mu0], ``offdiag`` (its off-diagonal entry), ``kkt`` (two residuals)."""
    tr = trs()
    H, g, c = tr.H, tr.g, tr.c
    t = T_CHART
    at_k = {S.kappa: 1, S.eta: 0, R_SYM: 0}
    H0, g0 = H.subs(at_k), g.subs(at_k)
    x0 = sp.Matrix([0, 1, 0])
    mu0 = (H0 * x0 - g0)[1]
    res = H0 * x0 - g0 - mu0 * x0
    P = [0, 2]
    M = (H0 - mu0 * sp.eye(3)).extract(P, P)
    curv = []
    K = sp.Function("K")(t)  # kappa(t) kept opaque while differentiating (fast), then its path substituted
    for path in _oracle_paths():
        kt = path[S.kappa]
        back = {sp.Derivative(K, (t, n)): sp.diff(kt, t, n).subs(t, 0) for n in (2, 1)}
        back[K] = kt.subs(t, 0)

        def D(e, n, path=path, back=back):
            return sp.diff(e.subs({S.kappa: K, S.eta: path[S.eta], R_SYM: path[R_SYM]}), t, n).subs(back).subs(t, 0)

        # only what x0 = e_2 picks out: the column H[:, 1], g, and the (1, 1) entries twice differentiated
        u = sp.Matrix([D(H[i, 1], 1) - D(g[i], 1) for i in P])
        Ltt = D(c, 2) + D(H[1, 1], 2) - 2 * D(g[1], 2)
        curv.append(Ltt - 2 * (u.T * M.adjugate() * u)[0] / M.det(method="bareiss"))
    return SimpleNamespace(curv=curv, gaps=[M[0, 0], M[1, 1]], offdiag=M[0, 1], kkt=[res[0], res[2]], mu0=mu0)


def oracle_curvature_proofs() -> dict:
    """The facts :func:`oracle_curvature` rests on (each a bool): v* is a KKT point of the TRS at k*
    (the two other components of (H - mu0) v* - g vanish) and (H - mu0) restricted to v*'s complement
    is diagonal there."""
    o = oracle_curvature()
    return {"v* is a KKT point of the TRS at k*": all(sp.simplify(e) == 0 for e in o.kkt),
            "(H - mu0)_P is diagonal at k*": sp.simplify(o.offdiag) == 0}
