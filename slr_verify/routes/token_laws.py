"""The Gaussian laws of the token projections (`docs/MATH.md` §3), their conditioning on the key's projection, and
the per-token moments of the risk that the quadrature route (:mod:`.quadrature`) integrates in one dimension
(`docs/MATH.md` §§1-3). mpmath at the current working precision; no validation (the route validates)."""
from __future__ import annotations

import mpmath
import numpy as np

from ..model import validation as V
from ..model.params import checked, keywords_checked
from .gauss_quad import erf_features, even_expectation, gauss_expectation, one_minus_signed


@keywords_checked
def relevant_token_law(kappa, nu, theta, eta, rho, gamma, d):
    """Mean and covariance of (a, b, e) = (X^T k, X^T v, X^T v*), X ~ N(sqrt(d/2) k*, gamma^2 I).

    Mean: sqrt(d/2) (k^T k*, v^T k*, v*^T k*) = sqrt(d/2) (kappa, theta, 0).
    Covariance: gamma^2 times the Gram matrix of (k, v, v*) (a sub-block of `docs/MATH.md` §3's matrix).
    Single numbers (floats or mpmath numbers, kept as given): gamma > 0, an integer d >= 2.
    """
    _single(gamma=gamma, d=d)
    r = mpmath.sqrt(d / 2)
    mean = [r * kappa, r * theta, mpmath.mpf(0)]
    g2 = gamma * gamma
    cov = [[g2, g2 * rho, g2 * eta], [g2 * rho, g2, g2 * nu], [g2 * eta, g2 * nu, g2]]
    return mean, cov


def _single(**values):
    """``ValueError`` naming the value that is not a single number in its range (gamma, lam > 0; d an integer >= 2;
    the overlaps real); the values themselves are used as given (mpmath numbers keep their precision)."""
    for name, x in values.items():
        if np.ndim(x) != 0 or isinstance(x, (str, bytes)):
            raise ValueError(f"{name} must be a single number, got {x!r}")
        if name in ("d", "gamma", "lam"):
            checked(**{name: x})  # the model's constraint and range (d >= 2, gamma, lam > 0)
        else:
            V.as_finite(name, x)


@keywords_checked
def condition_on_first(mean, cov):
    """Conditional law of components 1.. of a Gaussian vector given component 0 (Schur complement).

    For a = mean[0] + sqrt(cov[0][0]) z, component i has conditional mean mean[i] + beta_i z with
    beta_i = cov[i][0] / sqrt(cov[0][0]), and the conditional covariance is
    C_ij = cov[i][j] - cov[i][0] cov[0][j] / cov[0][0] (independent of z). Requires cov[0][0] > 0.
    Returns (sd0, [(mean_i, beta_i)], C).
    """
    v0 = cov[0][0]
    sd0 = mpmath.sqrt(v0)
    n = len(mean)
    affine = [(mean[i], cov[i][0] / sd0) for i in range(1, n)]
    schur = [[cov[i][j] - cov[i][0] * cov[0][j] / v0 for j in range(1, n)] for i in range(1, n)]
    return sd0, affine, schur


@keywords_checked
def null_token_mean(rho, lam):
    """m0 = E[erf(lam a') b'] = rho E[a' erf(lam a')] (E[b' | a'] = rho a', a' ~ N(0, 1))."""
    if rho == 0:
        return mpmath.mpf(0)
    return rho * even_expectation(lambda z: z * mpmath.erf(lam * z), lam)


@keywords_checked
def null_token_second_moment(rho, lam):
    """s0 = E[erf(lam a')^2 b'^2] = E[erf(lam a')^2 ((1 - rho^2) + rho^2 a'^2)].

    E[b'^2 | a'] = Var(b' | a') + E[b' | a']^2 = (1 - rho^2) + rho^2 a'^2; the integrand is even.
    """
    one_m, r2 = 1 - rho * rho, rho * rho
    return even_expectation(lambda z: mpmath.erf(lam * z) ** 2 * (one_m + r2 * z * z), lam)


@keywords_checked
def relevant_token_moments(kappa, nu, theta, eta, rho, lam, gamma, d, *, need_first=True):
    """(E[W - xi], E[(W - xi)^2]) for the relevant token, W - xi = e - erf(lam a) b.

    With ``need_first=False`` the first moment is not integrated (returned as None).

    Given a = mu_a + gamma z, with f = erf(lam a), (b, e) has conditional means
    (mu_b + beta_b z, beta_e z) and covariance C (Schur complement), so::

      E[e - f b | a]      = beta_e z - f (mu_b + beta_b z),
      E[(e - f b)^2 | a]  = Var(e - f b | a) + E[e - f b | a]^2,
      Var(e - f b | a)    = C_ee - 2 f C_be + f^2 C_bb
                          = C_bb (alpha - f)^2 + (C_ee - C_be^2 / C_bb),  alpha = C_be / C_bb,

    the second form (used when C_bb > 0) being a sum of non-negative terms with alpha - f formed
    through erfc (exact cancellation at the oracle, where alpha = 1).
    """
    mean, cov = relevant_token_law(kappa, nu, theta, eta, rho, gamma, d)
    sd_a, ((mu_b, beta_b), (mu_e, beta_e)), C = condition_on_first(mean, cov)
    mu_a = mean[0]
    c_bb, c_be, c_ee = C[0][0], C[0][1], C[1][1]
    c, s = lam * mu_a, lam * sd_a
    features = erf_features(c, s)
    split = c_bb > 0
    if split:
        alpha = c_be / c_bb
        resid = c_ee - c_be * c_be / c_bb

    def mean_given(z, f):
        return (mu_e + beta_e * z) - f * (mu_b + beta_b * z)

    def first(z):
        return mean_given(z, mpmath.erf(c + s * z))

    def second(z):
        x = c + s * z
        f = mpmath.erf(x)
        if split:
            var = c_bb * one_minus_signed(alpha, x) ** 2 + resid
        else:
            var = c_ee - 2 * f * c_be + f * f * c_bb
        return var + mean_given(z, f) ** 2

    m1 = gauss_expectation(first, features) if need_first else None
    m2 = gauss_expectation(second, features)
    return m1, m2
