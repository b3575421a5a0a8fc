"""The erf oracle's Bayes gap R_lam(k*, v*) - eps^2 along Corollary 2's paths (`docs/MATH.md` §6).

Corollary 2 (paper): d -> oo, lam -> 0, lam sqrt(d) -> oo and lam sqrt(L) -> 0 give R_lam(k*, v*) -> eps^2. Its
paths are lam = d^-a, L = d^b with 0 < a < 1/2 and 0 <= b < 2a, along which the null-token part decays like
(4/pi) d^(b - 2a) and the relevant-token part faster than any power. Here, at eps = 0: where a path puts (lam, L)
at a dimension d (:func:`path_point`), the float64 log-domain kernel's log gap along it (:func:`log_gap_path`), the
same log gap by mpmath quadrature of the definition (:func:`quad_log_gap`, an independent route), and the local
log-log slope that the corollary's rate predicts (:func:`decay_slope`).
"""
from __future__ import annotations

import math

import mpmath

from ..kernels import api
from ..model import validation as V
from ..model.params import accepts_gamma2, keywords_checked
from ..routes import quad_bayes_gap


@keywords_checked
def path_point(*, a, b, d) -> tuple:
    """(lam, L) = (d^-a, max(1, round(d^b))) on Corollary 2's path (a, b) at dimension d (a float, or a NumPy
    float: the powers are taken in the type given); d >= 2, a and b finite."""
    V.real("d", d, minimum=2.0), V.real("a", a), V.real("b", b)
    return d ** (-a), max(1, int(round(d**b)))


@accepts_gamma2
def log_gap_path(*, a, b, gamma, ds) -> list:
    """log(R_lam(k*, v*) - eps^2) at eps = 0 by the float64 log-domain kernel (:func:`slr_verify.kernels.api.
    log_bayes_gap`, Theorem 1 at (k*, v*)) at each d of ``ds`` on the path (a, b) (:func:`path_point`), finite
    where the gap itself underflows float64; within 1e-12 of max(1, |log gap|), the accuracy the corollary-2 claim
    checks against :func:`quad_log_gap` and arb enclosures for d up to 1e12."""
    out = []
    for d in ds:
        lam, L = path_point(a=a, b=b, d=d)
        out.append(api.log_bayes_gap(lam=lam, gamma=gamma, eps=0.0, d=d, L=L))
    return out


@accepts_gamma2
def quad_log_gap(*, lam, gamma, d, L, dps=20) -> float:
    """log(R_lam(k*, v*) - eps^2) at eps = 0 by mpmath quadrature of the definition
    (:func:`slr_verify.routes.quad_bayes_gap` at ``dps`` digits, its logarithm taken at dps + 10), rounded to a
    float: the quadrature's full relative accuracy carried into the log at any d up to 1e12 (the gap is held as an
    mpf, never underflowing)."""
    with mpmath.workdps(dps + 10):
        return float(mpmath.log(quad_bayes_gap(lam=lam, gamma=gamma, eps=0.0, d=d, L=L, dps=dps)))


@keywords_checked
def decay_slope(log_gaps, ds) -> float:
    """The local log-log slope of the gap over the last three d: (log gap(d[-1]) - log gap(d[-3])) / log(d[-1]/d[-3])
    (``log_gaps`` and ``ds`` of equal length >= 3, as :func:`log_gap_path` returns them). Along a path with
    0 <= b < 2a it tends to -(2a - b), Corollary 2's rate of the null-token part."""
    if len(log_gaps) != len(ds) or len(ds) < 3:
        raise ValueError(f"log_gaps and ds must have one equal length >= 3, got {len(log_gaps)} and {len(ds)}")
    lo, hi = V.real("ds[-3]", ds[-3], minimum=0.0, strict_min=True), V.real("ds[-1]", ds[-1], minimum=0.0, strict_min=True)
    if hi == lo:
        raise ValueError(f"ds must differ over the last three points, got ds[-3] = ds[-1] = {lo!r}")
    return (log_gaps[-1] - log_gaps[-3]) / math.log(hi / lo)
