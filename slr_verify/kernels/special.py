r"""Float64 and mpmath evaluations of zeta and its complement (`docs/MATH.md` §§4 and 6).

Write :math:`s = |t|/\alpha`, :math:`\alpha = \sqrt{1+2g^2}`, :math:`h = \sqrt2\,s`,
:math:`a = 1/\sqrt{1+4g^2}`, :math:`r = 2g^2/(1+2g^2)`, :math:`c = s^2`. Since
:math:`\mathbb E\operatorname{erf}(t+gZ) = \operatorname{erf}(t/\alpha)`,

.. math::

    \zeta_g(t) = \operatorname{erf}(s)^2 + D, \qquad
    \bar\zeta_g(t) = \operatorname{erfc}(t/\alpha)^2 + D, \qquad
    D = \operatorname{Var}\operatorname{erf}(t+gZ) \ge 0 .

Writing erf through the normal cdf turns :math:`\zeta` into a bivariate normal probability
(correlation r at the point (h, h)), hence into Owen's T function:

.. math::

    D = 8\,[T(h, 1) - T(h, a)] = \frac4\pi\int_a^1 \frac{e^{-c(1+x^2)}}{1+x^2}\,dx,
    \qquad 8\,T(h,1) = (1+\operatorname{erf}s)\operatorname{erfc}s .

Both terms of each sum are non-negative, so the only cancellation left is inside D. Three
evaluations of D, each used where it keeps full relative accuracy:

* **Owen's T** (``scipy.special.owens_t``, a closed-form special function): absolute error
  ~1e-17, which is full relative accuracy for zeta as soon as :math:`\operatorname{erf}(s)^2`
  or D is not tiny.
* **Tetrachoric series** (Pearson): with :math:`\mathrm{He}_n` the probabilists' Hermite
  polynomials, :math:`D = \frac2\pi e^{-h^2}\sum_{n\ge1} \frac{r^n}{n!}\mathrm{He}_{n-1}(h)^2`.
  Every term is >= 0 and, by Cramer's bound :math:`|\mathrm{He}_n(x)| \le 1.09\sqrt{n!}e^{x^2/4}`,
  30 terms leave a relative tail below 1e-17 when r <= 1/4 and s <= 1/2. This is the regime
  where zeta itself is tiny (g -> 0, t -> 0; Corollary 2's erf works in its linear part).
* **Tail form** for the complement at t > 0 (Corollary 2's relevant token, where
  :math:`\bar\zeta` can be 1e-100 or far below, even below the float64 range): factoring out
  the value of the integrand at x = a,

  .. math::

      \bar\zeta_g(t) = e^{-c(1+a^2)}\Big[\frac4\pi J + \operatorname{erfcx}(s)^2 e^{-c(1-a^2)}\Big],
      \quad J = \int_a^1 \frac{e^{-c(x^2-a^2)}}{1+x^2}\,dx,

  a positive integrand; back in the variable x, J is integrated by a *fixed* (non-adaptive)
  105-node double-exponential rule on :math:`[a, \min(1, \sqrt{a^2 + 64/c})]`; ``log_zetac`` returns the
  logarithm so that the value survives when it underflows float64.

The mpmath versions (``zeta_mp``, ``zetac_mp``) evaluate the same closed form at any precision (D by arb's
rigorous quadrature, its enclosure checked to the working precision).
"""
from __future__ import annotations

import math

import mpmath
import numpy as np
from flint import acb, arb, fmpz
from flint import ctx as arb_ctx
from scipy import special as sc

_SQRT2 = math.sqrt(2.0)

# The bodies that serve one float (``tetrachoric_variance``, ``zeta_args``, ``owen_variance``, ``zeta_scalar``, ``zeta2_one``) use
# ``math``, NumPy scalar functions and these three names only: :mod:`.numba_special` compiles the same code for
# compiled loops, rebinding them to their Numba-callable forms (nothing is typed a second time).
_erf, _erfc, _owens_t = sc.erf, sc.erfc, sc.owens_t
_SERIES_TERMS = 30
_SERIES_MAX_R = 0.25
_SERIES_MAX_S = 0.5


def _params(t, g):
    t = np.asarray(t, dtype=float)
    g = np.abs(np.asarray(g, dtype=float))
    g2 = g * g
    alpha = np.sqrt(1.0 + 2.0 * g2)
    s = np.abs(t) / alpha
    r = 2.0 * g2 / (1.0 + 2.0 * g2)
    a = 1.0 / np.sqrt(1.0 + 4.0 * g2)
    return t, g2, alpha, s, r, a


def tetrachoric_variance(s, r, scalar=False):
    r"""D = Var erf(t + gZ) by the tetrachoric series (module docstring) from s = |t|/sqrt(1 + 2g^2) and
    r = 2g^2/(1 + 2g^2) (arrays, or floats with ``scalar``): full relative accuracy (tail below 1e-17) where it is
    used, r <= 1/4 and s <= 1/2; :math:`D = \frac2\pi e^{-2s^2}\sum_{n=1}^{N} r^n q_{n-1}(\sqrt2 s)^2/n`, with normalised
    Hermite functions :math:`q_n = \mathrm{He}_n/\sqrt{n!}` (all terms >= 0).

    Arrays: N = 30. One float (``scalar``): the sum stops as soon as Cramer's bound
    :math:`q_n^2 \le 1.19\,e^{h^2/2}` puts the tail :math:`\sum_{n>N} r^n q_{n-1}^2/n` below 1e-17 of the sum."""
    h = _SQRT2 * s
    q_prev, q = 0.0 * h, 1.0 + 0.0 * h  # q_{-1}, q_0 (arrays or floats)
    rn = 1.0 + 0.0 * r
    total = 0.0 * h
    bound = 1.19 * np.exp(0.5 * h * h) / (1.0 - r) if scalar else 0.0
    for n in range(1, _SERIES_TERMS + 1):
        rn = rn * r
        total += rn * q * q / n
        if scalar and bound * rn * r / (n + 1) <= 1e-17 * total:
            break
        q_prev, q = q, (h * q - math.sqrt(n - 1) * q_prev) / math.sqrt(n)
    return 2.0 / math.pi * np.exp(-2.0 * s * s) * total


def owen_args(t, g):
    r"""The arguments (h, a) = (sqrt2 |t| / sqrt(1 + 2g^2), 1/sqrt(1 + 4g^2)) of Owen's T in
    :math:`\zeta_g(t) = 1 - 8\,T(h, a)` (the bivariate-normal form; T is even in h)."""
    t, g2, alpha, s, r, a = _params(t, g)
    return _SQRT2 * s, a


def owen_variance(s, a):
    """D = (1 + erf s) erfc s - 8 T(sqrt2 s, a) (= zeta - erf(s)^2) by Owen's T, for arrays or floats s >= 0 and
    a = 1/sqrt(1 + 4g^2): absolute accuracy ~1e-17 (it may come out a rounding below 0; callers clip at 0)."""
    return (1.0 + _erf(s)) * _erfc(s) - 8.0 * _owens_t(_SQRT2 * s, a)


def zeta_args(t, g):
    """(s, r, a) = (|t|/sqrt(1 + 2g^2), 2g^2/(1 + 2g^2), 1/sqrt(1 + 4g^2)) for one float t and g (Python arithmetic,
    no arrays; the same values as the array setup of :func:`erf_variance`, to rounding)."""
    g2 = g * g
    return abs(t) / math.sqrt(1.0 + 2.0 * g2), 2.0 * g2 / (1.0 + 2.0 * g2), 1.0 / math.sqrt(1.0 + 4.0 * g2)


def zetac_scalar(t, g):
    """:func:`zetac` for one float t and g: direct where :func:`log_zetac` is direct (t <= 0 or the
    series regime), else the log-domain tail form."""
    s, r, a = zeta_args(t, g)
    if t <= 0 or (r <= _SERIES_MAX_R and s <= _SERIES_MAX_S):
        e = math.erfc(t / math.sqrt(1.0 + 2.0 * g * g))
        if r <= _SERIES_MAX_R and s <= _SERIES_MAX_S:
            return e * e + float(tetrachoric_variance(s, r, True))
        return e * e + max(float(owen_variance(s, a)), 0.0)
    log_scale, inner = _tail(np.asarray(s), np.asarray(a), np.asarray(g * g))  # the tail form of log_zetac
    return math.exp(float(log_scale)) * float(inner)


def zeta_scalar(t, g):
    """:func:`zeta` for one float t and one float g: the same regimes and formulas, evaluated
    with Python floats (a scalar call of the public API, without an array setup).
    Compiled as it stands by :mod:`.numba_special` for compiled loops."""
    s, r, a = zeta_args(t, g)
    e = math.erf(s)
    if r <= _SERIES_MAX_R and s <= _SERIES_MAX_S:
        return e * e + float(tetrachoric_variance(s, r, True))
    return e * e + max(float(owen_variance(s, a)), 0.0)


def zeta_abs(t, g):
    r""":math:`\zeta_g(t) = 1 - 8\,T(h, a)` (:func:`owen_args`; since erf^2 + (1 + erf)(1 - erf) = 1 this
    is :func:`zeta`'s Owen branch in one ufunc call): *absolute* accuracy ~1e-17, for the PGD step
    kernels, where zeta enters the gradient additively (through d theta zeta)."""
    h, a = owen_args(t, g)
    return 1.0 - 8.0 * sc.owens_t(h, a)


def erf_variance(t, g):
    r""":math:`D = \operatorname{Var}\operatorname{erf}(t + gZ) = \zeta_g(t) - \operatorname{erf}(t/\sqrt{1+2g^2})^2`.

    Full relative accuracy in the tetrachoric regime (r <= 1/4, s <= 1/2), absolute accuracy
    ~1e-17 elsewhere (see :func:`log_zetac` for the far tail).
    """
    t, g2, alpha, s, r, a = _params(t, g)
    s, r, a = np.broadcast_arrays(s, r, a)
    out = np.empty(s.shape)
    series = (r <= _SERIES_MAX_R) & (s <= _SERIES_MAX_S)
    if np.all(series):
        return tetrachoric_variance(s, r)
    if not np.any(series):
        return np.maximum(owen_variance(s, a), 0.0)
    out[series] = tetrachoric_variance(s[series], r[series])
    rest = ~series
    out[rest] = np.maximum(owen_variance(s[rest], a[rest]), 0.0)
    return out


def zeta(t, g):
    r"""Float64 :math:`\zeta_g(t) = \mathbb E[\operatorname{erf}(t+gZ)^2]`, vectorised (`docs/MATH.md` §4).

    :math:`\operatorname{erf}(t/\sqrt{1+2g^2})^2 + D`, both terms >= 0; relative error within a
    few ulps over t in [-1e3, 1e3], g in [0, 1e3] (tested against 60-digit mpmath).
    """
    t, g2, alpha, s, r, a = _params(t, g)
    e = sc.erf(s)
    return e * e + erf_variance(t, np.sqrt(g2))


# Fixed double-exponential (tanh-sinh) rule on [0, 1]: u = 1/(1 + exp(-pi sinh tau)).
_DE_STEP = 1.0 / 16.0
_DE_TAU = np.arange(-52, 53) * _DE_STEP  # tau in [-3.25, 3.25], 105 nodes
_DE_X = math.pi * np.sinh(_DE_TAU)
_DE_NODE = 1.0 / (1.0 + np.exp(-_DE_X))          # in (0, 1), accurate near 0
_DE_WEIGHT = _DE_STEP * math.pi * np.cosh(_DE_TAU) * _DE_NODE * (1.0 / (1.0 + np.exp(_DE_X)))
_TAIL_CUT = 64.0  # e^{-64} ~ 1.6e-28: the u-integrand beyond it is negligible


def _tail_J(c, g2):
    r""":math:`J(c, a) = \int_a^{x_m} e^{-c(x^2-a^2)}/(1+x^2)\,dx`, :math:`x_m = \min(1, \sqrt{a^2 + 64/c})`.

    The integrand falls from 1/(1+a^2) to at most e^{-64}/(1+a^2) across the interval and is
    analytic (poles at +-i only), so the fixed double-exponential rule converges fast; the
    width x_m - a is computed without cancellation.
    """
    c = c[..., None]
    g2 = g2[..., None]
    root = np.sqrt(1.0 + 4.0 * g2)
    a = 1.0 / root
    one_minus_a = 4.0 * g2 / (root * (root + 1.0))
    reach = (_TAIL_CUT / c) / (np.sqrt(a * a + _TAIL_CUT / c) + a)
    width = np.minimum(one_minus_a, reach)
    dx = width * _DE_NODE
    x = a + dx
    f = np.exp(-c * dx * (x + a)) / (1.0 + x * x)
    return np.sum(f * _DE_WEIGHT, axis=-1) * width[..., 0]


def _tail(s, a, g2):
    r"""The tail form :math:`\bar\zeta = e^{-c(1+a^2)}\,[\frac4\pi J + \operatorname{erfcx}(s)^2 e^{-c(1-a^2)}]`, c = s^2:
    returns (the log of the scale factor, the bracket), both finite where the value underflows."""
    c = s * s
    ex = sc.erfcx(s)
    return -c * (1.0 + a * a), 4.0 / math.pi * _tail_J(c, g2) + ex * ex * np.exp(-c * (1.0 - a * a))


def log_zetac(t, g):
    r"""Natural log of :math:`\bar\zeta_g(t) = \mathbb E[\operatorname{erfc}(t+gZ)^2]`, finite even where
    the value underflows float64 (t up to ~1e150): the form in which Corollary 2's Bayes gap
    is checked along d -> infinity."""
    t, g2, alpha, s, r, a = _params(t, g)
    t, g2, alpha, s, r, a = np.broadcast_arrays(t, g2, alpha, s, r, a)
    out = np.empty(t.shape)
    # t <= 0 or the tetrachoric regime: no underflow, erfc(t/alpha)^2 + D directly.
    direct = (t <= 0) | ((r <= _SERIES_MAX_R) & (s <= _SERIES_MAX_S))
    if np.any(direct):
        td = t[direct]
        ec = sc.erfc(td / alpha[direct])
        out[direct] = np.log(ec * ec + erf_variance(td, np.sqrt(g2[direct])))
    tail = ~direct
    if np.any(tail):
        log_scale, inner = _tail(s[tail], a[tail], g2[tail])
        out[tail] = log_scale + np.log(inner)
    return out


def zetac(t, g):
    r"""Float64 :math:`\bar\zeta_g(t) = \mathbb E[\operatorname{erfc}(t+gZ)^2] = 1 - 2\operatorname{erf}(t/\alpha) + \zeta_g(t)`,
    down to the float64 underflow threshold (`docs/MATH.md` §6). The relative error is about
    |log zetac| ulps (measured against arb enclosures: <= 3.4e-13 where zetac ~ 1e-254): that is
    zetac's own condition number in t, so the value is exact for inputs within a few ulps;
    :func:`log_zetac` keeps the log to ~1e-16 relative."""
    return np.exp(log_zetac(t, g))


# --------------------------------------------------------------------------- mpmath
def _arb_of(x):
    """The finite mpf ``x`` as an exact arb ball (its signed mantissa times a power of two: mpmath's ``man_exp`` drops
    the sign, and arb's power of two is rounded at the context's precision)."""
    if not mpmath.isfinite(x):
        raise ValueError(f"an arb ball of a finite number only, got {x}")
    man, exp = x.man_exp
    return arb((fmpz(-int(man) if x < 0 else int(man)), fmpz(int(exp))))


def _mp_D(t, g):
    """D at mpmath's working precision: the u-form of the closed form (``erf_variance``) integrated by arb's rigorous
    quadrature (``acb.integral``, 20 guard bits) on [0, min(c(1 - a^2), U)] split at u = 1, 8, 40, with U = 2 prec
    (in bits) and the rest enclosed in [0, e^-U f(0)] (the integrand is e^-u times a decreasing factor); the
    enclosure must be relatively 2^-prec wide, else :class:`ArithmeticError` (never an unconverged number)."""
    t, g = mpmath.mpf(t), abs(mpmath.mpf(g))
    if g == 0:
        return mpmath.mpf(0)
    alpha = mpmath.sqrt(1 + 2 * g**2)
    c = (t / alpha) ** 2
    a = 1 / mpmath.sqrt(1 + 4 * g**2)
    root = mpmath.sqrt(1 + 4 * g**2)
    one_minus_a = 4 * g**2 / (root * (root + 1))  # 1 - a without cancellation
    if c == 0:  # (4/pi)(atan 1 - atan a) = (4/pi) atan((1 - a)/(1 + a))
        return 4 / mpmath.pi * mpmath.atan(one_minus_a / (2 - one_minus_a))
    upper = c * 4 * g**2 / (1 + 4 * g**2)  # c (1 - a^2)
    prec, old = mpmath.mp.prec, arb_ctx.prec
    cut = mpmath.mpf(2 * prec)
    pts = [mpmath.mpf(0)] + [p for p in (mpmath.mpf(1), mpmath.mpf(8), mpmath.mpf(40)) if p < min(upper, cut)]
    pts.append(min(upper, cut))
    arb_ctx.prec = prec + 20
    try:
        ca, a2 = _arb_of(c), _arb_of(a) ** 2
        f = lambda u, analytic: (-u).exp() / (2 * (ca * (a2 * ca + u)).sqrt(analytic=analytic) * (1 + a2 + u / ca))
        rel = arb(2) ** -(prec + 10)
        total = acb.integral(f, _arb_of(pts[0]), _arb_of(pts[1]), rel_tol=rel, abs_tol=arb(2) ** -(1 << 20)).real
        tol = total.abs_lower() * rel  # the first piece holds the bulk: the rest to the same absolute accuracy
        for lo, hi in zip(pts[1:], pts[2:]):
            total += acb.integral(f, _arb_of(lo), _arb_of(hi), rel_tol=rel, abs_tol=tol).real
        if upper > cut:
            total += arb(0).union((-_arb_of(cut)).exp() * f(acb(0), False).real)
        if not (total.is_finite() and total.rad() <= total.abs_lower() * arb(2) ** -prec):
            raise ArithmeticError(f"zeta's D at t = {mpmath.nstr(t, 8)}, g = {mpmath.nstr(g, 8)}: the quadrature's "
                                  f"enclosure is {float(total.rad() / total.mid()):.1e} wide relatively, above 2^-{prec}")
        man, exp = total.mid().man_exp()
    finally:
        arb_ctx.prec = old
    return 4 / mpmath.pi * mpmath.exp(-c * (1 + a**2)) * mpmath.mpf((int(man), int(exp)))


def zeta_mp(t, g, dps=50):
    r""":math:`\zeta_g(t)` at ``dps`` digits through the Owen-T closed form
    :math:`\operatorname{erf}(t/\alpha)^2 + \frac4\pi\int_a^1 e^{-c(1+x^2)}/(1+x^2)\,dx` (D with 10 guard digits,
    :func:`_mp_D`: :class:`ArithmeticError` where its enclosure cannot reach them)."""
    with mpmath.workdps(dps + 10):
        t, g = mpmath.mpf(t), mpmath.mpf(g)
        val = mpmath.erf(t / mpmath.sqrt(1 + 2 * g**2)) ** 2 + _mp_D(t, g)
    with mpmath.workdps(dps):
        return +val


def zetac_mp(t, g, dps=50):
    r""":math:`\bar\zeta_g(t) = \operatorname{erfc}(t/\alpha)^2 + D` at ``dps`` digits (D as in :func:`zeta_mp`)."""
    with mpmath.workdps(dps + 10):
        t, g = mpmath.mpf(t), mpmath.mpf(g)
        val = mpmath.erfc(t / mpmath.sqrt(1 + 2 * g**2)) ** 2 + _mp_D(t, g)
    with mpmath.workdps(dps):
        return +val


# --------------------------------------------------------------------------- bivariate zeta
def zeta2_one(t1, t2, s11, s22, s12):
    """:func:`zeta2` at one point (Python floats; compiled by :mod:`.numba_special`)."""
    a1, a2 = 1.0 + 2.0 * s11, 1.0 + 2.0 * s22
    h1, h2 = _SQRT2 * t1 / math.sqrt(a1), _SQRT2 * t2 / math.sqrt(a2)
    r = 2.0 * s12 / math.sqrt(a1 * a2)
    if h1 == 0.0 and h2 == 0.0:  # Sheppard
        return 2.0 / math.pi * math.asin(min(max(r, -1.0), 1.0))
    q = math.sqrt((a1 * a2 - 4.0 * s12 * s12) / (a1 * a2))  # sqrt(1 - r^2) without cancellation
    sg1 = (h1 > 0.0) - (h1 < 0.0)
    sg2 = (h2 > 0.0) - (h2 < 0.0)
    # on an axis T(0, +-inf) = +-1/4
    T1 = 0.25 * sg2 if h1 == 0.0 else float(_owens_t(h1, (h2 - r * h1) / (h1 * q)))
    T2 = 0.25 * sg1 if h2 == 0.0 else float(_owens_t(h2, (h1 - r * h2) / (h2 * q)))
    beta = 0.5 if (sg1 * sg2 < 0 or (sg1 * sg2 == 0 and sg1 + sg2 < 0)) else 0.0
    return 1.0 - 4.0 * (T1 + T2 + beta)


def zeta2_ball(t1, t2, s11, s22, s12, prec=113):
    r"""An arb ball holding :math:`\zeta_2(t_1, t_2; s_{11}, s_{22}, s_{12})` (``s11 > 0``; floats, mpf or exact balls):
    given :math:`A = t_1 + \sqrt{s_{11}}z`, B is Gaussian with mean :math:`t_2 + s_{12}z/\sqrt{s_{11}}` and variance
    :math:`v = s_{22} - s_{12}^2/s_{11}`, and :math:`\mathbb E[\operatorname{erf}(B)\mid z] =
    \operatorname{erf}(\mathbb E[B\mid z]/\sqrt{1+2v})` (`docs/MATH.md` §15), so

    .. math:: \zeta_2 = \int \operatorname{erf}(t_1 + \sqrt{s_{11}}z)\,
        \operatorname{erf}\big((t_2 + s_{12}z/\sqrt{s_{11}})/\sqrt{1+2v}\big)\,\varphi(z)\,dz .

    The integrand is entire: arb's rigorous quadrature (``acb.integral``) at ``prec`` bits on [-Z, Z],
    :math:`Z = \lfloor\sqrt{2 p \ln 2}\rfloor + 2`, and the rest, at most :math:`\operatorname{erfc}(Z/\sqrt2)` in absolute value
    (|erf| <= 1 on the line), in the radius. Independent of the Owen-T kernel."""
    old = arb_ctx.prec
    arb_ctx.prec = int(prec)
    try:
        t1, t2, s11, s22, s12 = (x if isinstance(x, arb) else _arb_of(mpmath.mpf(x)) for x in (t1, t2, s11, s22, s12))
        g1 = s11.sqrt()
        v = ((s11 * s22 - s12**2) / s11).max(arb(0))  # >= 0 for a covariance; max drops the rounding below 0
        c, b, k = 1 / (1 + 2 * v).sqrt(), s12 / g1, 1 / (2 * arb.pi()).sqrt()
        f = lambda z, analytic: (t1 + g1 * z).erf() * ((t2 + b * z) * c).erf() * (-z * z / 2).exp() * k
        Z = arb(int(math.sqrt(2 * prec * math.log(2))) + 2)
        total = acb.integral(f, -Z, Z, abs_tol=arb(2) ** -(int(prec) - 10)).real
        return total + arb(0, (Z / arb(2).sqrt()).erfc().upper())
    finally:
        arb_ctx.prec = old


def zeta2_mp(t1, t2, s11, s22, s12, dps=50):
    r""":math:`\zeta_2` at ``dps`` digits: :func:`zeta2_ball` with 20 guard bits (s11 > 0), the product of erf means when
    s11 = 0. The enclosure must be 10^-dps wide, else :class:`ArithmeticError` (never an unconverged number); a
    non-covariance (s11, s22, s12) is a ``ValueError``."""
    dps = int(dps)
    with mpmath.workdps(dps + 10):
        t1, t2, s11, s22, s12 = (mpmath.mpf(x) for x in (t1, t2, s11, s22, s12))
        if s11 < 0 or s22 < 0 or s12**2 > s11 * s22:
            raise ValueError(f"(s11, s22, s12) must be a covariance: s11, s22 >= 0 and s12^2 <= s11 s22, got "
                             f"{mpmath.nstr(s11, 8)}, {mpmath.nstr(s22, 8)}, {mpmath.nstr(s12, 8)}")
        if s11 == 0:
            val = mpmath.erf(t1) * mpmath.erf(t2 / mpmath.sqrt(1 + 2 * s22))
        else:
            ball = zeta2_ball(t1, t2, s11, s22, s12, prec=mpmath.mp.prec + 20)
            if not (ball.is_finite() and ball.rad() <= arb(10) ** -dps):
                raise ArithmeticError(f"zeta2's quadrature: the enclosure is {ball.rad().str(3, radius=False)} wide, "
                                      f"above 1e-{dps}")
            man, exp = ball.mid().man_exp()
            val = mpmath.mpf((int(man), int(exp)))
    with mpmath.workdps(dps):
        return +val
