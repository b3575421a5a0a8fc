r"""The risk as a quadratic in v, and the trust-region form of the profile (`docs/MATH.md` §17).

The predictor :math:`T = v^\top Z(k)`, :math:`Z(k) = \sum_l \operatorname{erf}(\lambda X_l^\top k) X_l`,
is linear in v, so for every :math:`v \in \mathbb R^d`

.. math::

    R_\lambda(k, v) = c - 2\, v^\top b(k) + v^\top A(k)\, v,\qquad
    c = \mathbb E Y^2,\ b = \mathbb E[Y Z],\ A = \mathbb E[Z Z^\top] \succeq 0 .

:func:`slr_verify.symbolic.risk.risk_parts` derives the three pieces with the Gaussian-expectation
engine for :math:`|v|^2 = \tau` (Theorem 1's building blocks before :math:`|v| = 1` is used).
:func:`coefficients` reads them off: the quadratic part is
:math:`a_0 \tau + a_{\theta\theta}\theta^2 + 2a_{\theta\rho}\theta\rho + a_{\rho\rho}\rho^2` and the linear
part :math:`p_\theta\theta + p_\nu\nu + p_\rho\rho`, with coefficients in :math:`(\kappa, \eta; \lambda, \gamma, d, L)`
(:func:`proofs` checks that nothing is left over, and that the pieces give Theorem 1 on the sphere).

**Coordinates** (:func:`trs`). Write :math:`k = \kappa k^* + \eta v^* + r e` with
:math:`r = \sqrt{1 - \kappa^2 - \eta^2}` and e a unit vector orthogonal to k*, v*, and
:math:`v = x_1 k^* + x_2 v^* + x_3 e + x_4 e'` (e' a unit direction orthogonal to the other three: every
such direction is equivalent). Then :math:`\theta = x_1`, :math:`\nu = x_2`, :math:`\rho = w^\top x` with
:math:`w = (\kappa, \eta, r, 0)`, :math:`\tau = |x|^2`, and

.. math::

    R = c + x^\top H x - 2 g^\top x,\quad H = a_0 I + a_{\theta\theta} e_1 e_1^\top
      + a_{\theta\rho}(e_1 w^\top + w e_1^\top) + a_{\rho\rho} w w^\top,\quad
      g = -\tfrac12 (p_\theta e_1 + p_\nu e_2 + p_\rho w) .

H acts as :math:`a_0` on :math:`e'` and g has no :math:`e'` component, so the trust-region subproblem
(TRS) :math:`\min_{|x| = 1}` lives on the first three coordinates plus the eigenvalue :math:`a_0`.
"""
from __future__ import annotations

from functools import cache
from types import SimpleNamespace

import sympy as sp

from .risk import TAU, S, risk_parts, theorem1_risk
from .stored import stored

__all__ = [
    "R_SYM",
    "TRS_ARGS",
    "X",
    "ball_form",
    "coefficients",
    "oracle_risk_and_slope",
    "proofs",
    "trs",
    "trs_entries",
    "trs_entry_partials",
    "trs_entry_second_partials",
    "T_CHART",
    "oracle_curvature",
    "oracle_curvature_proofs",
    "ANGLES",
    "FRAME_ARGS",
    "chart",
    "frame",
    "frame_entries",
    "frame_proofs",
    "MU",
    "DUAL_ARGS",
    "dual_bound",
    "dual_proofs",
    "valley_mu",
    "valley_curvature",
    "COEF_SYMS",
    "reduced_coefficients",
    "dual_algebra",
    "valley_algebra",
    "BETA",
    "DET_M",
    "det_m",
    "dual_line_algebra",
    "circle_algebra",
    "circle_proofs",
    "dual_line_proofs",
    "pd_criterion_proofs",
    "eta_linear_proofs",
    "oracle_risk_form_proofs",
]

#: r = |k - kappa k* - eta v*| = sqrt(1 - kappa^2 - eta^2), an argument of its own in the kernels
R_SYM = sp.Symbol("r", nonnegative=True)
#: v's coordinates on (k*, v*, e, e')
X = sp.symbols("x1:5", real=True)
#: the arguments of the TRS kernels
TRS_ARGS = (S.kappa, S.eta, R_SYM, S.lam, S.gamma, S.eps, S.d, S.L)


@cache
def coefficients() -> SimpleNamespace:
    """c, a0, a_tt, a_tr, a_rr, p_theta, p_nu, p_rho (see the module's docstring) and the remainders
    of the two extractions (``rest_quad``, ``rest_lin``: both must be 0)."""
    c, lin, quad = risk_parts(TAU)
    th, nu, rho = S.theta, S.nu, S.rho
    Q = sp.expand(quad)
    a0 = Q.coeff(TAU, 1)
    a_tt = Q.coeff(th, 2)
    a_tr = Q.coeff(th, 1).coeff(rho, 1) / 2
    a_rr = Q.coeff(rho, 2)
    Lx = sp.expand(lin)
    p_th, p_nu, p_rho = Lx.coeff(th, 1), Lx.coeff(nu, 1), Lx.coeff(rho, 1)
    rest_quad = sp.expand(Q - (a0 * TAU + a_tt * th**2 + 2 * a_tr * th * rho + a_rr * rho**2))
    rest_lin = sp.expand(Lx - (p_th * th + p_nu * nu + p_rho * rho))
    return SimpleNamespace(c=c, a0=a0, a_tt=a_tt, a_tr=a_tr, a_rr=a_rr, p_theta=p_th, p_nu=p_nu, p_rho=p_rho,
                           rest_quad=rest_quad, rest_lin=rest_lin)


@cache
def trs() -> SimpleNamespace:
    """H (3 x 3 on (k*, v*, e)), g (3), a0 (H on e') and c in (kappa, eta, r; lam, gamma, eps, d, L)."""
    co = coefficients()
    e1 = sp.Matrix([1, 0, 0])
    e2 = sp.Matrix([0, 1, 0])
    w = sp.Matrix([S.kappa, S.eta, R_SYM])
    H = co.a0 * sp.eye(3) + co.a_tt * e1 * e1.T + co.a_tr * (e1 * w.T + w * e1.T) + co.a_rr * w * w.T
    g = -(co.p_theta * e1 + co.p_nu * e2 + co.p_rho * w) / 2
    return SimpleNamespace(H=H, g=g, a0=co.a0, c=co.c, w=w)


def ball_form(expr):
    """The same expression written for ball arithmetic: each term of its expansion as one fraction with
    the exponentials combined (1/(c e^A e^B) -> e^(-A-B)/c). Midpoint-radius balls of e^A and e^B over a
    box have relative widths near 1, and a sum of their products can straddle 0 (a NaN after division);
    e^(-A-B) keeps its ball tight. Equal to ``expr`` (rewriting only)."""
    out = sp.Integer(0)
    for t in sp.Add.make_args(sp.expand(expr)):
        n, den = sp.fraction(sp.factor_terms(t))
        out += sp.powsimp(n / sp.factor(den), combine="exp")
    return out


def trs_entries() -> list:
    """[c, a0, H11, H12, H13, H22, H23, H33, g1, g2, g3]: what the TRS kernels compute."""
    t = trs()
    H = t.H
    return [t.c, t.a0, H[0, 0], H[0, 1], H[0, 2], H[1, 1], H[1, 2], H[2, 2], *t.g]


def trs_entry_partials() -> list:
    """The partial derivatives of :func:`trs_entries` in (kappa, eta, r, lam) (kappa, eta, r taken as
    independent: the chain rule through r = sqrt(1 - kappa^2 - eta^2) or through a chart is applied by
    the caller), flattened as [d/dkappa (11), d/deta (11), d/dr (11), d/dlam (11)]."""
    ent = trs_entries()
    return [sp.diff(e, s) for s in (S.kappa, S.eta, R_SYM, S.lam) for e in ent]


def trs_entry_second_partials() -> list:
    """The second partials of :func:`trs_entries` in (kappa, eta), flattened as [d2/dkappa2 (11),
    d2/dkappa deta (11), d2/deta2 (11)] (the curvature along eta of the certificate's strip)."""
    ent = trs_entries()
    return [sp.diff(e, *pair) for pair in ((S.kappa, S.kappa), (S.kappa, S.eta), (S.eta, S.eta)) for e in ent]


def oracle_risk_and_slope() -> list:
    """[R(k*, v*), dR(k*, v*)/dlam] in (lam, gamma, eps, d, L), from the complement form of the oracle
    risk (:func:`slr_verify.symbolic.risk.bayes_gap_expr`, every term >= 0): Theorem 1 at (1, 1, 0, 0, 0) and its
    lam-derivative (:func:`oracle_risk_form_proofs`)."""
    from .risk import bayes_gap_expr

    R = S.eps**2 + bayes_gap_expr()
    return [R, sp.diff(R, S.lam)]


@cache
def proofs() -> dict:
    """SymPy proofs (each a bool) that the quadratic in v is Theorem 1 before |v| = 1 is used."""
    co = coefficients()
    t = trs()
    x = sp.Matrix(X[:3])
    quad_form = (x.T * t.H * x)[0] + t.a0 * X[3] ** 2
    model = t.c + quad_form - 2 * (t.g.T * x)[0]
    # the same polynomial written through the overlaps of v = x: theta, nu, rho, tau
    overlaps = {S.theta: X[0], S.nu: X[1], S.rho: S.kappa * X[0] + S.eta * X[1] + R_SYM * X[2],
                TAU: sum(xi**2 for xi in X)}
    c, lin, quad = risk_parts(TAU)
    via_overlaps = sp.expand((c + lin + quad).subs(overlaps, simultaneous=True))
    on_sphere = (co.c + co.p_theta * S.theta + co.p_nu * S.nu + co.p_rho * S.rho
                 + co.a0 + co.a_tt * S.theta**2 + 2 * co.a_tr * S.theta * S.rho + co.a_rr * S.rho**2)
    return {
        "quadratic part = a0 tau + a_tt theta^2 + 2 a_tr theta rho + a_rr rho^2": co.rest_quad == 0,
        "linear part = p_theta theta + p_nu nu + p_rho rho": co.rest_lin == 0,
        "c = gamma^2 + eps^2": sp.simplify(co.c - S.gamma**2 - S.eps**2) == 0,
        "coefficients depend on k only through (kappa, eta)": all(
            not (e.free_symbols & {S.nu, S.theta, S.rho, TAU})
            for e in (co.a0, co.a_tt, co.a_tr, co.a_rr, co.p_theta, co.p_nu, co.p_rho)),
        "on |v| = 1 the quadratic is Theorem 1's closed form": sp.simplify(sp.expand(on_sphere - theorem1_risk())) == 0,
        "c + x^T H x - 2 g^T x is the quadratic at the overlaps of v = x": sp.expand(sp.expand(model) - via_overlaps) == 0,
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


#: the angle chart kappa = cos b cos a, eta = cos b sin a, r = sin b (`docs/MATH.md` §17)
ANGLES = sp.symbols("a b", real=True)
#: the arguments of the frame kernels
FRAME_ARGS = (*ANGLES, S.lam, S.gamma, S.eps, S.d, S.L)


def chart() -> dict:
    """{kappa, eta, r} as functions of the angles (a, b)."""
    a, b = ANGLES
    return {S.kappa: sp.cos(b) * sp.cos(a), S.eta: sp.cos(b) * sp.sin(a), R_SYM: sp.sin(b)}


#: generic names of the coefficients, for identities that hold whatever their values
_COEF = ("a0", "a_tt", "a_tr", "a_rr", "p_theta", "p_nu", "p_rho")


def _frame_generic(co):
    """(Q, H', g') with the coefficients given by ``co`` (a dict of _COEF -> expression)."""
    a, b = ANGLES
    ca, sa, cb, sb = sp.cos(a), sp.sin(a), sp.cos(b), sp.sin(b)
    Q = sp.Matrix([[cb * ca, -sa, -sb * ca], [cb * sa, ca, -sb * sa], [sb, 0, cb]])
    e1 = sp.Matrix([1, 0, 0])
    q = Q.T * sp.Matrix([1, 0, 0])
    qv = Q.T * sp.Matrix([0, 1, 0])
    H = co["a0"] * sp.eye(3) + co["a_tt"] * q * q.T + co["a_tr"] * (q * e1.T + e1 * q.T) + co["a_rr"] * e1 * e1.T
    g = -(co["p_theta"] * q + co["p_nu"] * qv + co["p_rho"] * e1) / 2
    return Q, H, g


@cache
def frame(ball=False) -> SimpleNamespace:
    r"""The TRS in the frame adapted to k (`docs/MATH.md` §17): Q = [k, (dk/da)/cos b, dk/db] on (k*, v*, e),
    orthonormal, and H' = Q^T H Q, g' = Q^T g written directly from the coefficients:
    :math:`H' = a_0 I + a_{\theta\theta} q q^\top + a_{\theta\rho}(q e_1^\top + e_1 q^\top) + a_{\rho\rho} e_1 e_1^\top`,
    :math:`g' = -(p_\theta q + p_\nu q_v + p_\rho e_1)/2` with q = Q^T k*, q_v = Q^T v* (k = Q e_1, so w = e_1).
    The large a_rr sits on one fixed diagonal entry, so the entries move slowly with k (every
    coefficient depends on k through kappa only, and p_theta, p_rho through a factor eta).
    ``H``, ``g``, ``c``, ``a0`` in (a, b; lam, gamma, eps, d, L); ``Q``. ``ball``: the coefficients in
    their :func:`ball_form` (the same values)."""
    co = coefficients()
    sub = chart()
    c_ = {k: (ball_form(getattr(co, k)) if ball else getattr(co, k)).subs(sub, simultaneous=True) for k in _COEF}
    Q, H, g = _frame_generic(c_)
    return SimpleNamespace(H=H, g=g, c=co.c, a0=c_["a0"], Q=Q)


def frame_entries(ball=False) -> list:
    """[c, a0, H'11, H'12, H'13, H'22, H'23, H'33, g'1, g'2, g'3] in (a, b; lam, gamma, eps, d, L)."""
    f = frame(ball)
    H = f.H
    return [f.c, f.a0, H[0, 0], H[0, 1], H[0, 2], H[1, 1], H[1, 2], H[2, 2], *f.g]


@cache
def frame_proofs() -> dict:
    """SymPy proofs (each a bool), for arbitrary values of the coefficients (a0 ... p_rho as free
    symbols; p_theta, p_rho as eta times a free symbol, and every coefficient a function of kappa only,
    as :func:`proofs` checks): the frame is orthonormal and carries k; H' = Q^T H Q and g' = Q^T g on
    the chart (so the TRS value is the same); and the reflection a -> -a (eta -> -eta):
    H'(-a) = S H'(a) S, g'(-a) = -S g'(a) with S = diag(1, -1, 1), so every dual bound
    c + mu - g'^T (H' - mu I)^{-1} g' with mu independent of a is even in a."""
    a, b = ANGLES
    sub = chart()
    free = {k: sp.Symbol(k, real=True) for k in _COEF}
    co = dict(free, p_theta=free["p_theta"] * sub[S.eta], p_rho=free["p_rho"] * sub[S.eta])
    Q, H, g = _frame_generic(co)
    e1, e2 = sp.Matrix([1, 0, 0]), sp.Matrix([0, 1, 0])
    w = sp.Matrix([sub[S.kappa], sub[S.eta], sub[R_SYM]])
    H0 = co["a0"] * sp.eye(3) + co["a_tt"] * e1 * e1.T + co["a_tr"] * (e1 * w.T + w * e1.T) + co["a_rr"] * w * w.T
    g0 = -(co["p_theta"] * e1 + co["p_nu"] * e2 + co["p_rho"] * w) / 2
    Sm = sp.diag(1, -1, 1)
    zero = lambda M: all(sp.simplify(x) == 0 for x in M)
    on_kappa = all(not (getattr(coefficients(), k).free_symbols & {S.eta, R_SYM}) for k in ("a0", "a_tt", "a_tr", "a_rr", "p_nu"))
    on_kappa = on_kappa and all(not (sp.cancel(getattr(coefficients(), k) / S.eta).free_symbols & {S.eta, R_SYM})
                                for k in ("p_theta", "p_rho"))
    return {
        "a0, a_tt, a_tr, a_rr, p_nu, p_theta/eta, p_rho/eta depend on k through kappa only": on_kappa,
        "Q^T Q = I": zero(Q.T * Q - sp.eye(3)),
        "k = Q e1 (the chart's k)": zero(Q[:, 0] - w),
        "H' = Q^T H Q": zero(H - Q.T * H0 * Q),
        "g' = Q^T g": zero(g - Q.T * g0),
        "H'(-a) = S H'(a) S": zero(H.subs(a, -a) - Sm * H * Sm),
        "g'(-a) = -S g'(a)": zero(g.subs(a, -a) + Sm * g),
    }


#: the multiplier of the dual bound
MU = sp.Symbol("mu", real=True)
#: the arguments of the dual-bound kernels
DUAL_ARGS = (S.kappa, S.eta, MU, S.lam, S.gamma, S.eps, S.d, S.L)


def _dual_generic(co, kappa, eta, mu):
    """(LB, beta, Delta, T) of :func:`dual_bound` with the coefficients given by ``co``."""
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
    c_ = {k: (ball_form(getattr(co, k)) if ball else getattr(co, k)) for k in _COEF}
    c_["c"] = co.c
    return list(_dual_generic(c_, S.kappa, S.eta, MU))


def valley_mu() -> sp.Expr:
    """mu(kappa) = a0 + p_nu/2: the TRS multiplier on the valley eta = 0, where v* solves the TRS
    (g = -p_nu v*/2 there and H v* = a0 v*)."""
    co = coefficients()
    return co.a0 + co.p_nu / 2


@cache
def dual_proofs() -> dict:
    """SymPy proofs (each a bool), for arbitrary coefficient values (free symbols): the closed form
    of :func:`dual_bound` is c + mu - g^T (H - mu I)^{-1} g for H, g of :func:`trs` (on |k| = 1); and
    the determinant lemma det(H - mu I) = beta Delta."""
    free = {k: sp.Symbol(k, real=True) for k in _COEF}
    free["c"] = sp.Symbol("c", real=True)
    kap, eta, r = S.kappa, S.eta, R_SYM
    LB, beta, Delta, _T = _dual_generic(free, kap, eta, MU)
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


def valley_curvature(ball=False) -> list:
    r"""The local certificate of `docs/MATH.md` §17 in closed form. At fixed kappa and mu the dual bound is
    *exactly* quadratic in eta, LB = A_0(kappa, mu) - A_2(kappa, mu) eta^2 (beta, Delta, M depend on kappa
    and mu only, u and the eta-part of |g|^2 carry the factors eta, eta^2: :func:`dual_proofs`,
    :func:`eta_linear_proofs`). With mu = mu_v(kappa) (:func:`valley_mu`), LB(kappa, 0) = R(kappa, 1, 0, 0, 0)
    (:func:`eta_linear_proofs`), so where
    Q(kappa) = -A_2(kappa, mu_v(kappa)) > 0 and beta, Delta, T > 0,
    m(kappa, eta) >= LB >= m(kappa, 0) for **every** eta: the valley is the minimum of the whole line.
    [Q, beta, Delta, T] at mu = mu_v(kappa), in (kappa; lam, gamma, eps, d, L)."""
    LB, beta, Delta, T = dual_bound(ball)
    mu_v = ball_form(valley_mu()) if ball else valley_mu()
    Q = sp.diff(LB, S.eta, 2).subs(S.eta, 0) / 2
    return [e.subs(MU, mu_v) for e in (Q, beta, Delta, T)]


#: the coefficients as opaque symbols for the two-stage kernels: a0, a_tt, a_tr, a_rr, P_t = p_theta/eta,
#: p_nu, P_r = p_rho/eta (all functions of kappa and the parameters only), and c
COEF_SYMS = sp.symbols("a0 a_tt a_tr a_rr P_t p_nu P_r c", real=True)


def reduced_coefficients(ball=False) -> list:
    """[a0, a_tt, a_tr, a_rr, p_theta/eta, p_nu, p_rho/eta, c] in (kappa; lam, gamma, eps, d, L) (each a
    function of kappa only: :func:`frame_proofs`), optionally in :func:`ball_form`."""
    co = coefficients()
    out = [co.a0, co.a_tt, co.a_tr, co.a_rr, sp.cancel(co.p_theta / S.eta), co.p_nu, sp.cancel(co.p_rho / S.eta), co.c]
    return [ball_form(e) if ball else e for e in out]


def _opaque():
    a0, att, atr, arr, Pt, pn, Pr, c = COEF_SYMS
    return {"a0": a0, "a_tt": att, "a_tr": atr, "a_rr": arr, "p_theta": S.eta * Pt, "p_nu": pn, "p_rho": S.eta * Pr, "c": c}


def dual_algebra() -> list:
    """[LB, beta, Delta, T] of :func:`dual_bound` in (COEF_SYMS, kappa, eta, mu): the algebra on top of
    the coefficients, kept apart so that ball arithmetic sees each coefficient as one ball (expanding
    a_tt a_rr - a_tr^2 into its terms cancels ~1e3-fold at lam ~ 0.85, d = 400)."""
    return list(_dual_generic(_opaque(), S.kappa, S.eta, MU))


#: beta = a0 - mu: the line form takes the multiplier through beta (a box then fixes beta, and mu = a0 - beta
#: follows a0 over the box: beta carries no enclosure width, and weak duality holds pointwise for any mu)
BETA = sp.Symbol("beta", real=True)
#: det M = a_tt a_rr - a_tr^2 as an input of its own: it cancels ~10-fold over a box (a_tt a_rr ~ a_tr^2), so the
#: line form takes it as one ball with its own centred enclosure
DET_M = sp.Symbol("det_M", real=True)


def det_m() -> sp.Expr:
    """det M = a_tt a_rr - a_tr^2 in COEF_SYMS (the input DET_M of :func:`dual_line_algebra`)."""
    co = _opaque()
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
    co = _opaque()
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
    co = _opaque()
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


def circle_algebra() -> list:
    r"""[dL1/dbeta, L0 - L1] in (COEF_SYMS, DET_M, kappa, beta) (:func:`dual_line_algebra`): the circle test of
    `docs/MATH.md` §17. On the circle (t = 1) the dual function is psi(beta) = L1(beta), concave in mu = a0 - beta
    (its mu-derivative is 1 - |(H - mu I)^{-1} g|^2, decreasing: cited); if dL1/dbeta > 0 at beta_s and < 0 at
    beta_b > beta_s, with H - mu I positive definite at beta_s, the optimal multiplier mu* of the circle point lies
    between, strong duality gives m(kappa, 1) = L1(mu*), and weak duality at mu* gives, for every t in [0, 1),
    m(kappa, t) >= L1(mu*) + (1 - t)(L0 - L1)(mu*) > m(kappa, 1) where L0 - L1 > 0 on the bracket."""
    L0, L1, _, _ = dual_line_algebra()
    return [sp.diff(L1, BETA), L0 - L1]


def circle_proofs() -> dict:
    """SymPy proofs (each a bool) of :func:`circle_algebra`'s two expressions: the first is the beta-derivative of
    L1, the second L0 - L1 (both of :func:`dual_line_algebra`, whose proofs :func:`dual_line_proofs` are the
    premise ``dual-bound``)."""
    L0, L1, _, _ = dual_line_algebra()
    d1, diff = circle_algebra()
    return {"dL1/dbeta": sp.simplify(d1 - sp.diff(L1, BETA)) == 0, "L0 - L1": sp.expand(diff - (L0 - L1)) == 0}


@stored
def valley_algebra() -> list:
    """[Q, beta, Delta, T] of :func:`valley_curvature` in (COEF_SYMS, kappa)."""
    co = _opaque()
    LB, beta, Delta, T = _dual_generic(co, S.kappa, S.eta, MU)
    mu_v = co["a0"] + co["p_nu"] / 2
    Q = sp.diff(LB, S.eta, 2).subs(S.eta, 0) / 2
    return [sp.simplify(e.subs(MU, mu_v)) for e in (Q, beta, Delta, T)]


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
    (COEF_SYMS, kappa, eta, mu, s) (H of :func:`_h4` with the coefficients of :func:`_opaque`)."""
    D, on_sphere = _h4(_opaque())
    s = _S_EIG
    cp = (D[:3, :3] - s * sp.eye(3)).det(method="berkowitz").subs(on_sphere)
    return sp.expand(cp - (beta - s) * (s**2 - T * s + Delta)) == 0


@cache
def pd_criterion_proofs() -> dict:
    r"""The positive-definiteness criterion of the dual bound (`docs/MATH.md` §17): for |k| = 1,
    **beta > 0, Delta > 0, T > 0 imply H - mu I positive definite** (and conversely), with beta = a0 - mu and
    T, Delta those of :func:`dual_algebra` and of :func:`dual_line_algebra` (DET_M = det M).

    SymPy proofs (each a bool), for arbitrary coefficient values (:data:`COEF_SYMS`; kappa, eta, mu, s free,
    r = sqrt(1 - kappa^2 - eta^2)):

    * the characteristic polynomial on (k*, v*, e):
      :math:`\det(H - \mu I - sI) = (\beta - s)(s^2 - T s + \Delta)`, with T, Delta of either form;
    * e' is an eigenvector of the 4 x 4 H - mu I with eigenvalue beta (H acts as a0 there);
    * that H, at the derived coefficients, is the H (and a0) of :func:`trs`.

    So the eigenvalues of H - mu I are beta (twice, with e') and the two roots of :math:`s^2 - Ts + \Delta`.
    The rest is cited, not proved here: a real symmetric matrix has real eigenvalues and is positive definite iff
    they are all > 0; the two roots of :math:`s^2 - Ts + \Delta` (real, being eigenvalues) have sum T and product
    Delta (Vieta), so both are > 0 iff T > 0 and Delta > 0. The identity is checked through
    :func:`_char_poly_holds`, which fails for any other (T, Delta)."""
    LB, beta, Delta, T = dual_algebra()
    _L0, _L1, Dl, Tl = dual_line_algebra()
    co = _opaque()
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


def _linear_eta_term(LB) -> sp.Expr:
    """d LB / d eta at eta = 0, as one cancelled fraction (0 iff LB has no term linear in eta)."""
    return sp.cancel(sp.together(sp.diff(LB, S.eta).subs(S.eta, 0)))


@cache
def eta_linear_proofs() -> dict:
    r"""The dual bound has **no term linear in eta** (`docs/MATH.md` §17): at fixed kappa and mu,
    LB = A_0 + Q eta^2 exactly, for LB of :func:`dual_algebra` (p_theta = eta P_t, p_rho = eta P_r; every
    other coefficient free of eta, :func:`frame_proofs`).

    SymPy proofs (each a bool), for arbitrary coefficient values (:data:`COEF_SYMS`; kappa, eta, mu free), each a
    rational identity reduced by ``cancel(together(.))`` to 0:

    * :math:`\partial_\eta LB|_{\eta = 0} = 0`, and the same at the valley multiplier
      :math:`\mu_v = a_0 + p_\nu/2` (:func:`valley_mu`);
    * :math:`LB = A_0 + Q\eta^2` with :math:`A_0 = LB|_{\eta = 0}`, :math:`Q = \tfrac12\partial_\eta^2 LB|_{\eta = 0}`
      (exactly quadratic and even in eta; this contains the third-derivative check of :func:`dual_proofs`);
    * the valley facts at mu_v: :math:`A_0 = c + a_0 + p_\nu` (the quadratic in v at v = v* on eta = 0, i.e.
      Theorem 1 at (kappa, 1, 0, 0, 0): checked on the derived coefficients), and the Q of
      :func:`valley_algebra` is this Q at mu_v.

    So with mu = mu_v, beta, Delta, T > 0 (:func:`pd_criterion_proofs`) and Q > 0, weak duality gives
    m(kappa, eta) >= A_0 = R(kappa, 1, 0, 0, 0) on the whole line at kappa. The linear term is checked through
    :func:`_linear_eta_term`, which a bound without the factor eta fails."""
    LB = dual_algebra()[0]
    co = _opaque()
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


def _oracle_rewrite(expr) -> sp.Expr:
    r"""zetac(t, g) -> 1 - 2 erf(t/sqrt(1 + 2g^2)) + zeta(t, g) and zeta(0, g) -> (2/pi) arcsin(2g^2/(1 + 2g^2))
    (`docs/MATH.md` §4; :mod:`slr_verify.symbolic.zeta`), then radicands factored (sqrt((1 + 2 lam^2)^2) ->
    1 + 2 lam^2 for lam > 0), expanded."""
    from .zeta import zeta, zetac

    e = expr.replace(zetac, lambda t, g: zetac(t, g).rewrite(zeta))
    e = e.replace(zeta, lambda t, g: zeta(t, g).rewrite(sp.asin))
    e = e.replace(lambda x: x.is_Pow and x.exp.is_Rational and x.exp.q == 2,
                  lambda x: sp.factor(sp.together(x.base)) ** x.exp)
    return sp.expand(e)


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
