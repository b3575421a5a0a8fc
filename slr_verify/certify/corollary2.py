"""Corollary 2 by ball arithmetic: enclosures of the Bayes gap where float64 cannot represent it
(`docs/MATH.md` §6), compared with the float64 log-domain kernel."""
from __future__ import annotations

import time

from flint import arb, ctx

from ..checker.balls import param_balls
from ..kernels import api
from ..kernels.balls import outward, widened
from ..kernels.certified import bayes_gap_arb
from ..model.params import keywords_checked
from . import args as A


def _log_gap_ball(lam, gamma, d, L, prec) -> arb:
    """log(R_lam(k*, v*) - eps^2) as an arb ball (lam, gamma one ulp wide; checked arguments)."""
    with ctx.workprec(int(prec)):
        gap = bayes_gap_arb()(lam=widened(lam), **param_balls(gamma, 0.0, d, L).kw("gamma", "d", "L"))[0]
        if not gap.lower() > 0:
            raise ArithmeticError(f"the gap enclosure {gap} does not exclude 0 at {prec} bits")
        return gap.log()


@keywords_checked
def log_bayes_gap_enclosure(*, lam, gamma, eps=0.0, d, L, prec=128):
    """(lo, hi): an enclosure of log(R_lam(k*, v*) - eps^2), lam and gamma taken one ulp wide (the ball's ends
    rounded outward to floats). Corollary 2, `docs/MATH.md` §6."""
    lam, gamma, eps, d, L = A.model(lam, gamma, eps, d, L)
    return outward(_log_gap_ball(lam, gamma, d, L, A.precision(prec)))


@keywords_checked
def compare_log_bayes_gap(points, prec=128):
    """For each point (dict of lam, gamma, d, L): the enclosure of log gap, the float64 kernel's
    value, and its error relative to max(1, |log gap|) measured against the enclosure's midpoint
    (plus the enclosure's half-width). Returns (worst error, widest relative enclosure, rows, seconds)."""
    t0 = time.perf_counter()
    rows, worst, widest = [], 0.0, 0.0
    for p in points:
        lo, hi = log_bayes_gap_enclosure(**p, prec=prec)
        f = float(api.log_bayes_gap(eps=0.0, **p))
        mid, half = 0.5 * (lo + hi), 0.5 * (hi - lo)
        scale = max(1.0, abs(mid))
        err = (abs(f - mid) + half) / scale
        worst, widest = max(worst, err), max(widest, half / scale)
        rows.append(dict(p, enclosure=(lo, hi), float64=f, error=err))
    return worst, widest, rows, time.perf_counter() - t0
