"""One-dimensional Gaussian integrals by mpmath's tanh-sinh rule, at the current working precision: the engine of the
quadrature route (:mod:`.quadrature`, `docs/MATH.md` §§1-4). The real line is split where the integrand has structure
(``features``: (centre, width) pairs), the integrand is rescaled so that mpmath's absolute stopping rule becomes
relative, and an unconverged integral raises :class:`QuadratureError` instead of returning a number."""
from __future__ import annotations

import mpmath

from ..model.params import keywords_checked

mp = mpmath.mp

#: A feature narrower than this (in units of the standard normal variable) gets extra split points.
SHARP_WIDTH = 0.5


@keywords_checked
def normal_pdf_times(h):
    """z -> h(z) phi(z), with sqrt(2 pi) computed once for the current precision."""
    norm = 1 / mpmath.sqrt(2 * mpmath.pi)
    return lambda z: h(z) * mpmath.exp(-z * z / 2) * norm


@keywords_checked
def breakpoints(features):
    """Interior split points of the real line for tanh-sinh quadrature.

    ``features`` is a list of (centre, width): places where the integrand changes on the scale
    ``width``. Every centre is a split point; a sharp feature (width < 1, sharper than the
    Gaussian weight by a factor 2 or more) also gets points at centre +- width, +- 4 width and
    +- 8 width so that each sub-interval resolves it (erf has reached 1 - 1e-29 at 8 widths).

    Between two neighbouring points a < b, points at a + 4^j w_a and b - 4^j w_b (j >= 1, up to
    the midpoint) are added: tanh-sinh on [a, b] places no node closer to an end than about
    (b - a) 10^-dps, so without this ladder a feature of width 1 at 0 next to a centre at -1e35
    (the erf transition when d = 1e70) would fall between the nodes and the piece would
    converge, silently, to 0.
    """
    width = {}
    for centre, w in features:
        if not mpmath.isfinite(centre):
            continue
        width[centre] = min(width.get(centre, w), w)
        if w < SHARP_WIDTH:
            for m in (1, 4, 8):
                for p in (centre - m * w, centre + m * w):
                    width[p] = min(width.get(p, m * w), m * w)
    pts = sorted(width)
    out = pts[:1]
    for a, b in zip(pts, pts[1:]):
        mid = (a + b) / 2
        step = 4 * width[a]
        while a + step < mid:
            out.append(a + step)
            step *= 4
        tail, step = [], 4 * width[b]
        while b - step > mid:
            tail.append(b - step)
            step *= 4
        out += tail[::-1]
        out.append(b)
    return out


class QuadratureError(ArithmeticError):
    """mpmath.quad did not reach the requested accuracy (estimated error too large)."""


def _probe_scale(fun, features, lower=None):
    """A magnitude for the integrand: max |fun| at the feature centres and +- 1, 2 widths away.

    ``mpmath.quad`` stops when its error estimate is below 2^-prec in *absolute* terms; an integral
    of size 1e-100 would be accepted after two rounds. Dividing the integrand by this scale makes the
    stopping rule relative (the integrand then peaks at about 1).
    """
    best = mpmath.mpf(0)
    for centre, width in features:
        if not mpmath.isfinite(centre):
            continue
        for m in (0, -1, 1, -2, 2):
            z = centre + m * width
            if lower is not None and z < lower:
                continue
            best = max(best, abs(fun(z)))
    return best if best > 0 else mpmath.mpf(1)


def _default_degree(prec):
    """mpmath's default maximal tanh-sinh degree for ``prec`` bits: 6 + floor(log2(prec / 30))."""
    return int(6 + max(0, mpmath.log(mpmath.mpf(prec) / 30, 2)))


#: Retries of an unconverged quadrature, each with a larger maximal degree.
_RETRIES = 2


@keywords_checked
def integrate(fun, points, features, lower=None):
    """Integral of ``fun`` over ``points`` (a list of split points, ends may be infinite).

    The integrand is rescaled by :func:`_probe_scale`; the estimated error must be below
    10^(5 - working dps) times the scale (or times the integral, if that is larger: then the
    integrand is rescaled by it for the next try), otherwise the degree is raised (twice) and finally
    :class:`QuadratureError` is raised: the route never returns an unconverged number silently.
    """
    scale = _probe_scale(fun, features, lower)
    tol = mpmath.mpf(10) ** (5 - mp.dps)
    degree = _default_degree(mp.prec)
    for attempt in range(_RETRIES + 1):
        value, err = mpmath.quad(lambda z: fun(z) / scale, points, error=True, maxdegree=degree + 2 * attempt)
        if err <= tol * max(1, abs(value)):
            return value * scale
        if abs(value) > 1:  # the probes missed the bulk of the integrand: rescale by the estimate
            scale *= abs(value)
    raise QuadratureError(f"quadrature did not converge: estimated relative error {mpmath.nstr(err, 3)} > {mpmath.nstr(tol, 3)}")


@keywords_checked
def gauss_expectation(h, features=()):
    """E[h(Z)] for Z ~ N(0, 1), i.e. the integral of h(z) phi(z) over the real line.

    The line is split at 0 (the bulk of phi) and at the breakpoints of ``features``; each piece
    goes to mpmath's tanh-sinh rule at the current working precision.
    """
    features = [(mpmath.mpf(0), mpmath.mpf(1))] + list(features)
    pts = breakpoints(features)
    return integrate(normal_pdf_times(h), [mpmath.ninf] + pts + [mpmath.inf], features)


@keywords_checked
def erf_features(c, s, slope=False):
    """Features of z -> erf(c + s z) (and of erfc(c + s z)^2 phi(z)) for s > 0.

    * the erf transition at z0 = -c / s, width 1 / s;
    * in the saturating regime, the peak of erfc(c + s z)^2 phi(z): log of it is about
      -2 (c + s z)^2 - z^2 / 2, maximal at z* = -4 s c / (1 + 4 s^2) with width 1 / sqrt(1 + 4 s^2);
    * with ``slope=True``, the peak of erf'(c + s z) phi(z), proportional to
      exp(-(c + s z)^2 - z^2 / 2): at -2 s c / (1 + 2 s^2), width 1 / sqrt(1 + 2 s^2).
    """
    if s == 0:
        return []
    out = [(-c / s, 1 / s), (-4 * s * c / (1 + 4 * s * s), 1 / mpmath.sqrt(1 + 4 * s * s))]
    if slope:
        out.append((-2 * s * c / (1 + 2 * s * s), 1 / mpmath.sqrt(1 + 2 * s * s)))
    return out


#: mpmath's erfc overflows (a float conversion of x^2) for x beyond ~1e154; erfc(1e150) = e^-1e300
#: is zero next to any term of the integrands (the erfc^2 peak sits at x <= 2.5e49 within :data:`.quadrature.Z_MAX`),
#: so larger arguments, met only at the far nodes of the infinite pieces, take the limit 0.
ERFC_ZERO = mpmath.mpf("1e150")


@keywords_checked
def erfc(x):
    """erfc(x), with erfc(x) = 0 for x > :data:`ERFC_ZERO`."""
    return mpmath.mpf(0) if x > ERFC_ZERO else mpmath.erfc(x)


@keywords_checked
def one_minus_signed(alpha, x):
    """alpha - erf(x), through erfc so that alpha = +-1 keeps full relative accuracy.

    For x >= 0: (alpha - 1) + erfc(x); for x < 0: (alpha + 1) - erfc(-x).
    """
    if x >= 0:
        return (alpha - 1) + erfc(x)
    return (alpha + 1) - erfc(-x)


@keywords_checked
def even_expectation(h, lam):
    """E[h(Z)] for an even h whose structure sits at 0 on the scale 1 / lam: 2 x half-line integral."""
    features = [(mpmath.mpf(0), mpmath.mpf(1)), (mpmath.mpf(0), 1 / lam)]
    pts = [mpmath.mpf(0)] + [p for p in breakpoints(features) if p > 0]
    return 2 * integrate(normal_pdf_times(h), pts + [mpmath.inf], features, lower=0)
