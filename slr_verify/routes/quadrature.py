"""High-precision route: the risk R_lam(k, v) by mpmath quadrature, straight from its definition.

This module is the independent check of the symbolic route (Theorem 1, Lemma 6, the oracle risk,
Corollary 2). It shares no formula code with ``slr_verify.symbolic`` or ``slr_verify.kernels``
and does not use the erf / zeta / Stein identities of `docs/MATH.md` §4: every expectation is reduced
by linear algebra alone to a one-dimensional Gaussian integral, which ``mpmath.quad`` (tanh-sinh)
evaluates at the requested working precision.

The reduction (`docs/MATH.md` §1-3)
---------------------------------
R_lam(k, v) = E[(Y - T)^2] with T = sum_l erf(lam X_l^T k) X_l^T v and Y = X_{J0}^T v* + xi.
Since T is symmetric in the tokens, condition on J0 = 1. Write, for the relevant token X,

    a = X^T k,  b = X^T v,  e = X^T v*,   W = Y - erf(lam a) b = e + xi - erf(lam a) b,

and for each of the L - 1 null tokens X' ~ N(0, I) the summand U = erf(lam a') b' with
a' = X'^T k, b' = X'^T v. Then Y - T = W - S with S = U_2 + ... + U_L, the U_j iid and
independent of W, so with m0 = E[U], s0 = E[U^2]:

    E[S] = (L - 1) m0,   E[S^2] = (L - 1) s0 + (L - 1)(L - 2) m0^2,
    R = E[W^2] - 2 (L - 1) E[W] m0 + (L - 1) s0 + (L - 1)(L - 2) m0^2.

(a, b, e) is Gaussian: X = sqrt(d/2) k* + gamma G with G ~ N(0, I_d), so the mean is
sqrt(d/2) (kappa, theta, 0) and the covariance gamma^2 times the Gram matrix of (k, v, v*),

    gamma^2 [[1, rho, eta], [rho, 1, nu], [eta, nu, 1]],

and (a', b') is centred with covariance [[1, rho], [rho, 1]]. Var(a) = gamma^2 |k|^2 = gamma^2 > 0,
so conditioning on a is never degenerate; the conditional law of (b, e) given a is read off the
Schur complement. Each expectation is then E_a[h(a)] with h an erf-weighted polynomial in a, a
1-D integral against the normal density, split at the places where the integrand has structure
(the Gaussian bulk, the erf transition, the peak of erfc^2 in the saturating regime).

Accuracy
--------
The conditional second moment of W is written as a sum of non-negative terms,
E[W^2 | a] = eps^2 + C_bb (alpha - f)^2 + (C_ee - C_be^2 / C_bb) + (E[e|a] - f E[b|a])^2 with
f = erf(lam a), alpha = C_be / C_bb, and alpha - f is formed through erfc, so that at the oracle
(alpha = 1) the tiny factor erfc(lam a)^2 keeps full relative accuracy. The Bayes gap of Corollary 2
is computed from its own non-negative pieces (never as a difference with eps^2).

The one-dimensional integrals are :mod:`.gauss_quad`'s, the laws of the token projections and their moments
:mod:`.token_laws`'s. Every public function validates its input (``ValueError`` naming the parameter), works internally at
``dps`` plus guard digits and returns an ``mpmath.mpf``. :func:`claimed_digits` runs a routine at two
precisions and reports how many significant digits agree: that is the digit count this route claims.
"""
from __future__ import annotations

import numbers

import mpmath

from slr_verify.model import validation as _val
from slr_verify.model.params import check_params

from ..model.params import accepts_gamma2, keywords_checked
from .gauss_quad import QuadratureError, erf_features, erfc, even_expectation, gauss_expectation, one_minus_signed
from .token_laws import null_token_mean, null_token_second_moment, relevant_token_moments

mp = mpmath.mp

#: Guard digits added to the caller's ``dps`` for the internal working precision.
GUARD_DPS = 10

_OVERLAP_NAMES = ("kappa", "nu", "theta", "eta", "rho")


# ---------------------------------------------------------------------------------------------
# Input handling
# ---------------------------------------------------------------------------------------------

def _scalar(name, value):
    """Check that ``value`` is one real number; return it as an mpf (keeping mpf precision)."""
    if isinstance(value, mpmath.mpf):
        if not mpmath.isfinite(value):
            raise ValueError(f"{name} must be finite (no NaN or infinity), got {value!r}")
        return value
    arr = _val.as_finite(name, value)
    if arr.ndim != 0:
        raise ValueError(f"{name} must be a scalar (the quadrature route takes scalar inputs only), got shape {arr.shape}")
    if isinstance(value, numbers.Integral):
        return mpmath.mpf(int(value))
    if isinstance(value, str):
        return mpmath.mpf(value)
    return mpmath.mpf(float(arr))


def _check(name, value, kind):
    """Validate one scalar with the shared validators, return it as an mpf."""
    if isinstance(value, mpmath.mpf):
        _check(name, float(value), kind)  # the validators take float64; keep the mpf itself
        return value
    _scalar(name, value)
    if kind == "positive":
        _val.positive(name, value)
    elif kind == "nonnegative":
        _val.nonnegative(name, value)
    return _scalar(name, value)


#: The largest working precision accepted (decimal digits); see :func:`_dps`.
DPS_MAX = 200


def _dps(dps):
    """Working precision requested by the caller: an integer in [5, :data:`DPS_MAX`] (the cost of
    :func:`quad_risk` grows steeply with dps)."""
    return _val.integer("dps", dps, 5, DPS_MAX, why="decimal digits of working precision; the cost grows steeply with it")


def _model(lam, gamma, eps, d, L):
    """The model parameters, validated by the model's one check (:func:`slr_verify.model.check_params`:
    lam > 0, gamma > 0, eps >= 0, integers d >= 2, L >= 1), returned as mpf (an mpf input keeps
    its precision)."""
    vals = tuple(_scalar(n, x) for n, x in zip(("lam", "gamma", "eps", "d", "L"), (lam, gamma, eps, d, L)))
    check_params(*(float(v) for v in vals))
    return vals


#: The route's supported range: the relevant token's erf transition sits at z = -sqrt(d/2) kappa / gamma
#: in units of the Gaussian variable; up to |z| = 1e50 the split-point ladder (:func:`breakpoints`)
#: has a few hundred pieces; beyond, the number of pieces and the cost grow fast, so the route refuses rather
#: than hang.
Z_MAX = 1e50


def _extent(d, gamma):
    """``ValueError`` naming d and gamma when sqrt(d/2) / gamma > :data:`Z_MAX`."""
    z = mpmath.sqrt(d / 2) / gamma
    if z > Z_MAX:
        raise ValueError(f"d = {mpmath.nstr(d, 3)}, gamma = {mpmath.nstr(gamma, 3)} are outside the quadrature route's supported "
                         f"range sqrt(d/2)/gamma <= {Z_MAX:g} (d <= {2 * Z_MAX**2:.0e} gamma^2); the float64 kernels "
                         "cover larger d")


def _overlaps(kappa, nu, theta, eta, rho, d):
    """Validate a realisable overlap tuple (`docs/MATH.md` §3); return the five values as mpf."""
    raw = (kappa, nu, theta, eta, rho)
    vals = [_scalar(n, x) for n, x in zip(_OVERLAP_NAMES, raw)]
    _val.overlaps(*[float(x) for x in vals], d=float(d))
    return vals


# ---------------------------------------------------------------------------------------------
# zeta (`docs/MATH.md` §4) by direct integration
# ---------------------------------------------------------------------------------------------

def _zeta(t, g):
    """zeta_g(t) = E[erf(t + g Z)^2] at the current precision (g >= 0)."""
    if g == 0:
        return mpmath.erf(t) ** 2
    return gauss_expectation(lambda z: mpmath.erf(t + g * z) ** 2, erf_features(t, g))


@keywords_checked
def quad_zeta(t, g, *, dps=30):
    """zeta_g(t) = E[erf(t + g Z)^2], Z ~ N(0, 1), by direct quadrature over Z (`docs/MATH.md` §4).

    ``g = 0`` gives erf(t)^2. The integral is split at the bulk of phi, at the erf transition
    z = -t / g (width 1 / g) and at the peak of the saturating regime, so it keeps full relative
    accuracy for tiny zeta (t = 0, g -> 0, where zeta ~ (4 / pi) g^2) and for |t|, g up to 1e3.
    """
    dps = _dps(dps)
    t = _scalar("t", t)
    g = _check("g", g, "nonnegative")
    with mpmath.workdps(dps + GUARD_DPS):
        return _zeta(t, g)


# ---------------------------------------------------------------------------------------------
# The risk from the per-token moments (:mod:`.token_laws`)
# ---------------------------------------------------------------------------------------------

def _risk(kappa, nu, theta, eta, rho, lam, gamma, eps, d, L):
    """R = E[W^2] - 2 (L - 1) E[W] m0 + (L - 1) s0 + (L - 1)(L - 2) m0^2 (no validation).

    E[W] = E[e - f b] (xi is centred) and E[W^2] = eps^2 + E[(e - f b)^2] (xi independent).
    Works at the current mpmath precision; the overlaps are treated as five free coordinates.
    """
    if L == 1:
        return eps * eps + relevant_token_moments(kappa, nu, theta, eta, rho, lam, gamma, d, need_first=False)[1]
    m0 = null_token_mean(rho, lam)
    s0 = null_token_second_moment(rho, lam)
    m1, m2 = relevant_token_moments(kappa, nu, theta, eta, rho, lam, gamma, d, need_first=(m0 != 0))
    cross = 2 * m1 * m0 if m0 != 0 else 0
    return eps * eps + m2 + (L - 1) * (s0 - cross + (L - 2) * m0 * m0)


# ---------------------------------------------------------------------------------------------
# Public risk functions
# ---------------------------------------------------------------------------------------------

@accepts_gamma2
def quad_risk(kappa, nu, theta, eta, rho, *, lam, gamma, eps=0.0, d, L, dps=30):
    """R_lam(k, v) of `docs/MATH.md` §2 as a function of the five overlaps (the quantity of Theorem 1).

    Computed by quadrature from the definition (module docstring): one 1-D integral for each of
    E[W], E[W^2] (relevant token) and m0, s0 (null tokens). The tuple must be realisable (`docs/MATH.md` §3).
    Scalars only; returns an mpf accurate to about ``dps`` significant digits
    (check with :func:`claimed_digits`).
    """
    dps = _dps(dps)
    lam, gamma, eps, d, L = _model(lam, gamma, eps, d, L)
    ov = _overlaps(kappa, nu, theta, eta, rho, d)
    _extent(d, gamma)
    with mpmath.workdps(dps + GUARD_DPS):
        return _risk(*ov, lam, gamma, eps, d, L)


@accepts_gamma2
def quad_oracle_risk(*, lam, gamma, eps=0.0, d, L, dps=30):
    """R_lam(k*, v*): quad_risk at (kappa, nu, theta, eta, rho) = (1, 1, 0, 0, 0) (`docs/MATH.md` §5)."""
    return quad_risk(1, 1, 0, 0, 0, lam=lam, gamma=gamma, eps=eps, d=d, L=L, dps=dps)


@accepts_gamma2
def quad_manifold_risk(kappa, nu, *, lam, gamma, eps=0.0, d, L, dps=30):
    """The risk on the manifold M (theta = eta = rho = 0), the quantity of Lemma 6 (`docs/MATH.md` §9)."""
    return quad_risk(kappa, nu, 0, 0, 0, lam=lam, gamma=gamma, eps=eps, d=d, L=L, dps=dps)


@accepts_gamma2
def quad_bayes_gap(*, lam, gamma, eps=0.0, d, L, dps=30):
    """The Bayes gap R_lam(k*, v*) - eps^2 of Corollary 2 (`docs/MATH.md` §6), to full relative accuracy.

    At the oracle, W - xi = e erfc(lam a) with e independent of a ~ N(sqrt(d/2), gamma^2) and
    Var(e) = gamma^2, and the null tokens have m0 = 0 (rho = 0), s0 = E[erf(lam Z)^2], so

        gap = gamma^2 E[erfc(lam sqrt(d/2) + lam gamma Z)^2] + (L - 1) E[erf(lam Z)^2],

    a sum of two non-negative integrals, each computed directly (no subtraction of eps^2; the
    erfc^2 integral is split at its peak, so it stays accurate far below 1e-100, for d up to 1e12).
    ``eps`` is validated but does not enter.
    """
    dps = _dps(dps)
    lam, gamma, eps, d, L = _model(lam, gamma, eps, d, L)
    _extent(d, gamma)
    with mpmath.workdps(dps + GUARD_DPS):
        c, s = lam * mpmath.sqrt(d / 2), lam * gamma
        relevant = gauss_expectation(lambda z: erfc(c + s * z) ** 2, erf_features(c, s))
        gap = gamma * gamma * relevant
        if L > 1:
            gap += (L - 1) * _zeta(mpmath.mpf(0), lam)
        return gap


def _relevant_token_partials(kappa, nu, theta, eta, rho, lam, gamma, d, m0, L):
    """d/dp of E[(e - f b)^2] - 2 (L - 1) m0 E[e - f b] for p in the five overlaps (m0 held fixed).

    Write a = r kappa + gamma z (r = sqrt(d/2), z ~ N(0, 1) fixed under the parameters), x = lam a,
    f = erf(x), f' = (2 / sqrt(pi)) exp(-x^2), B = E[b | a] = r theta + gamma rho z,
    M = E[e - f b | a] = gamma eta z - f B, and the conditional covariances C_bb = gamma^2 (1 - rho^2),
    C_be = gamma^2 (nu - rho eta), C_ee = gamma^2 (1 - eta^2). The integrand
    S(z) = C_ee - 2 f C_be + f^2 C_bb + M^2 - 2 (L - 1) m0 M has the partials
      kappa: f_k = lam r f';  dS = -2 f_k (C_be - f C_bb) - 2 f_k B (M - (L - 1) m0)
      nu:    dS = -2 gamma^2 f
      theta: dS = -2 r f (M - (L - 1) m0)
      eta:   dS = -2 gamma^2 eta + 2 gamma^2 rho f + 2 gamma z (M - (L - 1) m0)
      rho:   dS = 2 gamma^2 f (eta - rho f) - 2 gamma f z (M - (L - 1) m0)
    (differentiation under the integral sign; C_be - f C_bb is formed as C_bb (alpha - f) with
    alpha - f through erfc when C_bb > 0).
    """
    r = mpmath.sqrt(d / 2)
    g2 = gamma * gamma
    c, s = lam * r * kappa, lam * gamma
    c_bb, c_be = g2 * (1 - rho * rho), g2 * (nu - rho * eta)
    lin = (L - 1) * m0
    two_over_sqrt_pi = 2 / mpmath.sqrt(mpmath.pi)
    features = erf_features(c, s)
    split = c_bb > 0
    alpha = c_be / c_bb if split else None

    def pieces(z):
        x = c + s * z
        f = mpmath.erf(x)
        B = r * theta + gamma * rho * z
        M = gamma * eta * z - f * B
        return x, f, B, M - lin

    def d_kappa(z):
        x, f, B, Ml = pieces(z)
        f_k = lam * r * two_over_sqrt_pi * mpmath.exp(-x * x)
        gap = c_bb * one_minus_signed(alpha, x) if split else c_be - f * c_bb
        return -2 * f_k * gap - 2 * f_k * B * Ml

    def d_nu(z):
        return -2 * g2 * mpmath.erf(c + s * z)

    def d_theta(z):
        x, f, B, Ml = pieces(z)
        return -2 * r * f * Ml

    def d_eta(z):
        x, f, B, Ml = pieces(z)
        return -2 * g2 * eta + 2 * g2 * rho * f + 2 * gamma * z * Ml

    def d_rho(z):
        x, f, B, Ml = pieces(z)
        return 2 * g2 * f * (eta - rho * f) - 2 * gamma * f * z * Ml

    funcs = {"kappa": d_kappa, "nu": d_nu, "theta": d_theta, "eta": d_eta, "rho": d_rho}
    out = {name: gauss_expectation(h, features) for name, h in funcs.items() if name != "kappa"}
    out["kappa"] = gauss_expectation(d_kappa, erf_features(c, s, slope=True))
    return {name: out[name] for name in funcs}


def _risk_gradient(kappa, nu, theta, eta, rho, lam, gamma, eps, d, L):
    """The five partials of R (no validation), by differentiation under the integral sign.

    From R = eps^2 + m2 + (L - 1)(s0 - 2 m1 m0 + (L - 2) m0^2): only m0, s0 depend on rho among the
    null-token pieces, with dm0/drho = E[z erf(lam z)] and ds0/drho = 2 rho E[erf(lam z)^2 (z^2 - 1)].
    """
    out = _relevant_token_partials(kappa, nu, theta, eta, rho, lam, gamma, d,
                                   null_token_mean(rho, lam) if L > 1 else 0, L)
    if L > 1:
        dm0 = even_expectation(lambda z: z * mpmath.erf(lam * z), lam)
        m0 = rho * dm0
        ds0 = 2 * rho * even_expectation(lambda z: mpmath.erf(lam * z) ** 2 * (z * z - 1), lam)
        m1 = relevant_token_moments(kappa, nu, theta, eta, rho, lam, gamma, d)[0]
        out["rho"] += (L - 1) * (ds0 - 2 * m1 * dm0 + 2 * (L - 2) * m0 * dm0)
    return out


@accepts_gamma2
def quad_risk_gradient(kappa, nu, theta, eta, rho, *, lam, gamma, eps=0.0, d, L, dps=30, method="integral"):
    """Partial derivatives of R in the five overlaps, taken as independent coordinates.

    Returns {'kappa': dR/dkappa, 'nu': ..., 'theta': ..., 'eta': ..., 'rho': ...}: the gradient of
    the 5-parameter function Rt of Theorem 1 (not a derivative along the sphere).

    ``method='integral'`` (default) differentiates under the integral sign (one 1-D integral per
    partial, see :func:`_relevant_token_partials`); ``method='diff'`` applies ``mpmath.diff`` (central
    difference at about twice the precision) to the quadrature risk in one coordinate with the other
    four fixed: much slower, an independent check of the first. The perturbed
    tuple may be momentarily non-realisable, which is fine for the formula (realisability is checked
    at the user's point only).

    Where the partials' quadrature does not reach the working accuracy (measured at large d: at dps = 15 it
    converges at d = 1e20, not at d = 1e24 with gamma^2 = 0.5), ``ValueError`` names d and gamma.
    """
    dps = _dps(dps)
    _val.choice("method", method, ("integral", "diff"))
    lam, gamma, eps, d, L = _model(lam, gamma, eps, d, L)
    ov = _overlaps(kappa, nu, theta, eta, rho, d)
    _extent(d, gamma)
    try:
        return _gradient_at(ov, lam, gamma, eps, d, L, dps, method)
    except QuadratureError as exc:
        raise ValueError(f"d = {mpmath.nstr(d, 3)}, gamma = {mpmath.nstr(gamma, 3)}: the quadrature route's gradient does "
                         f"not reach its accuracy at this setting ({exc}); the float64 kernels (risk_gradient) cover "
                         "larger d") from exc


def _gradient_at(ov, lam, gamma, eps, d, L, dps, method):
    """The five partials at the validated point ``ov`` by ``method``, at dps + GUARD_DPS digits."""
    with mpmath.workdps(dps + GUARD_DPS):
        if method == "integral":
            return _risk_gradient(*ov, lam, gamma, eps, d, L)
        out = {}
        for i, name in enumerate(_OVERLAP_NAMES):
            def f(x, i=i):
                args = list(ov)
                args[i] = x
                return _risk(*args, lam, gamma, eps, d, L)

            out[name] = mpmath.diff(f, ov[i])
        return out


# ---------------------------------------------------------------------------------------------
# Self-check of the digit count
# ---------------------------------------------------------------------------------------------

def _agreeing_digits(x, y, cap):
    """Number of significant decimal digits on which x and y agree, capped at ``cap``."""
    x, y = mpmath.mpf(x), mpmath.mpf(y)
    scale = max(abs(x), abs(y))
    if x == y:
        return float(cap)
    if scale == 0:
        return float(cap)
    return float(min(cap, -mpmath.log10(abs(x - y) / scale)))


@keywords_checked
def claimed_digits(f, *args, dps=30, extra=15, **kw):
    """Run ``f(*args, dps=dps, **kw)`` and ``f(*args, dps=dps + extra, **kw)``; return agreeing digits.

    The result (a float, capped at ``dps``) is the number of significant digits on which the two
    runs agree, i.e. the number of digits the route can honestly claim at ``dps``. For a dict result
    (:func:`quad_risk_gradient`) the comparison is norm-wise: the largest entry-wise difference
    relative to the largest entry (a partial that vanishes up to cancellation, e.g. d/d eta when the
    erf saturates, is only meaningful on the scale of the whole gradient).
    """
    dps = _dps(dps)
    extra = _val.integer("extra", extra, 1, DPS_MAX - dps, why="additional digits of the reference run; dps + extra <= DPS_MAX")
    lo = f(*args, dps=dps, **kw)
    hi = f(*args, dps=dps + int(extra), **kw)
    if isinstance(lo, dict):
        scale = max(abs(mpmath.mpf(x)) for x in hi.values())
        diff = max(abs(mpmath.mpf(lo[k]) - mpmath.mpf(hi[k])) for k in hi)
        if diff == 0 or scale == 0:
            return float(dps)
        return float(min(dps, -mpmath.log10(diff / scale)))
    return _agreeing_digits(lo, hi, dps)
