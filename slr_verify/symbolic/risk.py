r"""Theorem 1, derived: the risk of the erf-attention predictor in five overlaps.

Model (`docs/MATH.md` §1-2): tokens :math:`X_1..X_L`, the relevant one :math:`X_{J_0} \sim N(\sqrt{d/2}\,k^*,
\gamma^2 I_d)`, the others :math:`N(0, I_d)`, :math:`Y = X_{J_0}^\top v^* + \xi`,
:math:`T = \sum_l \operatorname{erf}(\lambda X_l^\top k)\, X_l^\top v`,
:math:`R = \mathbb E(Y - T)^2`.

Only the projections of a token on span(k, v, v*) enter: for the relevant token
:math:`(a, b, e) = (X^\top k, X^\top v, X^\top v^*)` is Gaussian with mean
:math:`\sqrt{d/2}\,(\kappa, \theta, 0)` and covariance :math:`\gamma^2` times the Gram matrix of
(k, v, v*); for a null token :math:`(a', b')` is :math:`N(0, [[1, \rho], [\rho, 1]])`.
Writing :math:`U_l = \operatorname{erf}(\lambda a_l) b_l` and expanding the square *by token type*
(given :math:`J_0 = j`; tokens are independent):

.. math::

    R_j = \underbrace{\varepsilon^2 + \mathbb E e^2 - 2\mathbb E[e\,U] + \mathbb E U^2}_{\text{relevant token}}
        + \underbrace{(L-1)\,\mathbb E U'^2 + (L-1)(L-2)\,(\mathbb E U')^2}_{\text{null tokens}}
        + \underbrace{2(L-1)\,(\mathbb E U - \mathbb E e)\,\mathbb E U'}_{\text{cross terms}} ,

and every expectation is evaluated by :mod:`slr_verify.symbolic.gaussian`. Nothing depends on
j, so R does not depend on the law of :math:`J_0` (:func:`risk_given_location` shows it for
explicit L, summing the token pairs one by one).
"""
from __future__ import annotations

from functools import lru_cache
from types import SimpleNamespace

import sympy as sp

from .gaussian import ERF, ERF2, ONE, GaussianVector
from .stored import stored
from .zeta import zeta, zeta_at_zero, zetac

#: The symbols of the project, named as in the spec.
S = SimpleNamespace(
    kappa=sp.Symbol("kappa", real=True),
    nu=sp.Symbol("nu", real=True),
    theta=sp.Symbol("theta", real=True),
    eta=sp.Symbol("eta", real=True),
    rho=sp.Symbol("rho", real=True),
    lam=sp.Symbol("lambda", positive=True),
    gamma=sp.Symbol("gamma", positive=True),
    eps=sp.Symbol("epsilon", nonnegative=True),
    d=sp.Symbol("d", positive=True),
    L=sp.Symbol("L", positive=True),
)
OVERLAPS = (S.kappa, S.nu, S.theta, S.eta, S.rho)
PARAMS = (S.lam, S.gamma, S.eps, S.d, S.L)


#: |v|^2, kept symbolic by the profile's derivation (`docs/MATH.md` §17); 1 on the sphere
TAU = sp.Symbol("tau", positive=True)


@lru_cache(maxsize=None)
def token_moments(tau=sp.Integer(1)) -> SimpleNamespace:
    r"""The per-token Gaussian expectations (relevant token: a, b, e; null token: a', b'), for
    :math:`|v|^2 = \tau` (1 on the sphere; :data:`TAU` for the profile's quadratic in v)."""
    a, b, e = sp.symbols("a b e", real=True)
    kappa, nu, theta, eta, rho, lam, gamma = S.kappa, S.nu, S.theta, S.eta, S.rho, S.lam, S.gamma
    shift = sp.sqrt(S.d / 2)
    rel = GaussianVector(
        (a, b, e),
        (shift * kappa, shift * theta, 0),
        gamma**2 * sp.Matrix([[1, rho, eta], [rho, tau, nu], [eta, nu, 1]]),
    )
    null = GaussianVector((a, b), (0, 0), sp.Matrix([[1, rho], [rho, tau]]))
    return SimpleNamespace(
        E_e=rel.expect(e, ONE),                 # E e (= 0: v* is orthogonal to k*)
        E_e2=rel.expect(e**2, ONE),             # E e^2
        E_eU=rel.expect(e * b, ERF(lam), a),    # E[e erf(lam a) b]
        E_U=rel.expect(b, ERF(lam), a),         # E[erf(lam a) b], relevant token
        E_U2=rel.expect(b**2, ERF2(lam), a),    # E[erf(lam a)^2 b^2], relevant token
        E_Un=null.expect(b, ERF(lam), a),       # E[erf(lam a') b'], null token
        E_Un2=null.expect(b**2, ERF2(lam), a),  # E[erf(lam a')^2 b'^2], null token
    )


def _simplify(expr):
    return sp.collect(sp.expand(expr), [S.eps, S.L], sp.factor_terms)


@lru_cache(maxsize=None)
def risk_parts(tau=sp.Integer(1)) -> tuple:
    r"""The square expanded by powers of v (`docs/MATH.md` §17): (c, linear, quadratic) with
    :math:`c = \mathbb E Y^2`, linear :math:`= -2\,\mathbb E[Y T]` and quadratic :math:`= \mathbb E T^2`,
    for :math:`|v|^2 = \tau` (the predictor is linear in v, so these are of degree 0, 1, 2 in v)."""
    m = token_moments(tau)
    L = S.L
    c = S.eps**2 + m.E_e2
    linear = -2 * m.E_eU - 2 * (L - 1) * m.E_e * m.E_Un
    quadratic = m.E_U2 + (L - 1) * m.E_Un2 + (L - 1) * (L - 2) * m.E_Un**2 + 2 * (L - 1) * m.E_U * m.E_Un
    return c, linear, quadratic


@lru_cache(maxsize=None)
def theorem1_risk() -> sp.Expr:
    r"""Theorem 1: :math:`\tilde R(\kappa, \nu, \theta, \eta, \rho; \lambda, \gamma, \varepsilon, d, L)`, derived:
    the sum of :func:`risk_parts` on the sphere."""
    return _simplify(sum(risk_parts(), sp.Integer(0)))


@stored
def theorem1_gradient() -> tuple:
    """The five partial derivatives of Theorem 1's risk, in the order of ``OVERLAPS``."""
    R = theorem1_risk()
    return tuple(sp.diff(R, x) for x in OVERLAPS)


@stored
def theorem1_hessian() -> tuple:
    """The 5 x 5 second partial derivatives of Theorem 1's risk (row-major tuple of 25, in the
    order of ``OVERLAPS``): the Riemannian Hessian on the spheres is built from them and the
    gradient (`docs/MATH.md` §13)."""
    g = theorem1_gradient()
    return tuple(sp.diff(g[i], x) for i in range(5) for x in OVERLAPS)


def risk_given_location(j: int, L: int) -> sp.Expr:
    r"""Conditional risk :math:`\mathbb E[(Y - T)^2 \mid J_0 = j]` for an explicit number of tokens L,
    by summing :math:`\mathbb E Y^2 - 2\sum_l \mathbb E[Y U_l] + \sum_{l,m} \mathbb E[U_l U_m]` over
    the token pairs one by one (independent tokens factorise). Used to show that R does not
    depend on j, hence not on the law of :math:`J_0` (`docs/MATH.md` §2)."""
    if not 0 <= j < L:
        raise ValueError(f"j must be in 0..L-1, got j={j}, L={L}")
    m = token_moments()
    mean = lambda l: m.E_U if l == j else m.E_Un          # E U_l
    second = lambda l: m.E_U2 if l == j else m.E_Un2      # E U_l^2
    total = S.eps**2 + m.E_e2
    for l in range(L):
        total -= 2 * (m.E_eU if l == j else m.E_e * m.E_Un)
        for k in range(L):
            total += second(l) if l == k else mean(l) * mean(k)
    return sp.expand(total)


# ------------------------------------------------------------------ specialisations
def oracle_point() -> dict:
    """(k, v) = (k*, v*): kappa = nu = 1, theta = eta = rho = 0."""
    return {S.kappa: 1, S.nu: 1, S.theta: 0, S.eta: 0, S.rho: 0}


def manifold_point() -> dict:
    """The manifold M of Lemma 6: theta = eta = rho = 0."""
    return {S.theta: 0, S.eta: 0, S.rho: 0}


def oracle_risk_spec() -> sp.Expr:
    r"""`docs/MATH.md` §5, as printed:
    :math:`\varepsilon^2 + \gamma^2[1 - 2\operatorname{erf}(\lambda\sqrt{d/2}/\sqrt{1+2\lambda^2\gamma^2})
    + \zeta_{\lambda\gamma}(\lambda\sqrt{d/2})] + (L-1)\zeta_\lambda(0)`."""
    lam, gamma, d, L = S.lam, S.gamma, S.d, S.L
    A = lam * sp.sqrt(d / 2)
    return S.eps**2 + gamma**2 * (1 - 2 * sp.erf(A / sp.sqrt(1 + 2 * lam**2 * gamma**2)) + zeta(A, lam * gamma)) + (
        L - 1
    ) * zeta(0, lam)


def lemma6_spec() -> sp.Expr:
    r"""`docs/MATH.md` §9 (Lemma 6), as printed: the risk on M in (kappa, nu)."""
    lam, gamma, d, L = S.lam, S.gamma, S.d, S.L
    A = lam * sp.sqrt(d / 2) * S.kappa
    return (
        S.eps**2
        + gamma**2
        + (L - 1) * zeta(0, lam)
        + gamma**2 * (zeta(A, lam * gamma) - 2 * S.nu * sp.erf(A / sp.sqrt(1 + 2 * lam**2 * gamma**2)))
    )


def bayes_gap_expr() -> sp.Expr:
    r"""Corollary 2's object :math:`R_\lambda(k^*, v^*) - \varepsilon^2`, in the complement form
    :math:`\gamma^2\bar\zeta_{\lambda\gamma}(\lambda\sqrt{d/2}) + (L-1)\,\frac2\pi\arcsin\frac{2\lambda^2}{1+2\lambda^2}`
    in which every term is >= 0 (no cancellation). Equal to the oracle risk minus eps^2
    through ``zetac.rewrite(zeta)`` and ``zeta(0, g).rewrite(asin)``."""
    lam, gamma, d, L = S.lam, S.gamma, S.d, S.L
    return gamma**2 * zetac(lam * sp.sqrt(d / 2), lam * gamma) + (L - 1) * zeta_at_zero(lam)
