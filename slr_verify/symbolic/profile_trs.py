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

**Frame** (:func:`frame_proofs`). The same TRS in the orthonormal frame adapted to k on the angle chart
:math:`\kappa = \cos b \cos a,\ \eta = \cos b \sin a,\ r = \sin b`, and the coefficients as opaque symbols
(:data:`COEF_SYMS`, :func:`opaque_coefficients`) on which the dual bound's algebra is written
(:mod:`.profile_dual`, :mod:`.profile_valley`).
"""
from __future__ import annotations

from functools import cache
from types import SimpleNamespace

import sympy as sp

from .risk import TAU, S, risk_parts, theorem1_risk

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


#: the angle chart kappa = cos b cos a, eta = cos b sin a, r = sin b (`docs/MATH.md` §17)
ANGLES = sp.symbols("a b", real=True)


def chart() -> dict:
    """{kappa, eta, r} as functions of the angles (a, b)."""
    a, b = ANGLES
    return {S.kappa: sp.cos(b) * sp.cos(a), S.eta: sp.cos(b) * sp.sin(a), R_SYM: sp.sin(b)}


#: the names of the coefficients (attributes of :func:`coefficients`, keys of :func:`opaque_coefficients`), for
#: identities that hold whatever their values
COEF_NAMES = ("a0", "a_tt", "a_tr", "a_rr", "p_theta", "p_nu", "p_rho")


def _frame_generic(co):
    """(Q, H', g') with the coefficients given by ``co`` (a dict of COEF_NAMES -> expression)."""
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
def frame_proofs() -> dict:
    """SymPy proofs (each a bool), for arbitrary values of the coefficients (a0 ... p_rho as free
    symbols; p_theta, p_rho as eta times a free symbol, and every coefficient a function of kappa only,
    as :func:`proofs` checks): the frame is orthonormal and carries k; H' = Q^T H Q and g' = Q^T g on
    the chart (so the TRS value is the same); and the reflection a -> -a (eta -> -eta):
    H'(-a) = S H'(a) S, g'(-a) = -S g'(a) with S = diag(1, -1, 1), so every dual bound
    c + mu - g'^T (H' - mu I)^{-1} g' with mu independent of a is even in a."""
    a, b = ANGLES
    sub = chart()
    free = {k: sp.Symbol(k, real=True) for k in COEF_NAMES}
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


#: the coefficients as opaque symbols for the two-stage kernels: a0, a_tt, a_tr, a_rr, P_t = p_theta/eta,
#: p_nu, P_r = p_rho/eta (all functions of kappa and the parameters only), and c
COEF_SYMS = sp.symbols("a0 a_tt a_tr a_rr P_t p_nu P_r c", real=True)


def reduced_coefficients(ball=False) -> list:
    """[a0, a_tt, a_tr, a_rr, p_theta/eta, p_nu, p_rho/eta, c] in (kappa; lam, gamma, eps, d, L) (each a
    function of kappa only: :func:`frame_proofs`), optionally in :func:`ball_form`."""
    co = coefficients()
    out = [co.a0, co.a_tt, co.a_tr, co.a_rr, sp.cancel(co.p_theta / S.eta), co.p_nu, sp.cancel(co.p_rho / S.eta), co.c]
    return [ball_form(e) if ball else e for e in out]


def opaque_coefficients() -> dict:
    """The coefficients as the opaque symbols :data:`COEF_SYMS`, by name (:data:`COEF_NAMES` and ``"c"``),
    with p_theta = eta P_t and p_rho = eta P_r: the form in which the dual bound's, the valley's and the
    circle's algebra is written (:mod:`.profile_dual`, :mod:`.profile_valley`)."""
    a0, att, atr, arr, Pt, pn, Pr, c = COEF_SYMS
    return {"a0": a0, "a_tt": att, "a_tr": atr, "a_rr": arr, "p_theta": S.eta * Pt, "p_nu": pn, "p_rho": S.eta * Pr, "c": c}
