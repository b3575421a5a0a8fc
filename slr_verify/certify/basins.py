r"""Every run of sphere-initialised constant-lam PGD accounted for (`docs/MATH.md` §13): a run that has not converged
is classified by where it provably goes, through the capture regions proved on arb balls -- the contraction balls of
:mod:`.capture`, the valley tube of :mod:`.valley` -- or by the almost-sure non-convergence when every listed
stationary point is unstable for PGD; the float side (end points, labels, rates, stability) is
:mod:`slr_verify.landscape.basins`'s, whose docstring states the classes."""
from __future__ import annotations

import numpy as np

from ..kernels.landscape import sigma_equivariance_proofs
from ..landscape.basins import (
    LAW_LEVEL,
    NONCONVERGENT,
    NUMERIC_END,
    UNCLASSIFIED,
    UNCLASSIFIED_EDGE,
    basin_rates,
    end_label,
    label_ends,
    rates_table,
    sample_ends,
    stable_at,
)
from ..landscape.overlap_map import pgd_map
from ..landscape.stationary import SYMMETRIES, canonical
from ..model import tiers as T
from ..model import validation as V
from ..model.params import accepts_gamma2
from .capture import contraction_ball
from .valley import valley_tube


class Classification:
    """Per-run ``labels`` (array of str), ``how`` (per run: "converged", "captured", "valley", "law" or "none"),
    the ``balls`` tried (:class:`~.capture.CaptureBall`; ``ball_of``: per run the index of the capturing ball,
    -2 for the valley tube, -1 for none), ``points`` (the stationary points), ``certificates`` {label:
    [certificate dicts]} and ``extra`` (the valley tube tried, :class:`~.valley.ValleyTube`)."""

    def __init__(self, labels, how, balls, ball_of, points, certificates, kinds, extra=None):
        self.labels, self.how, self.balls, self.ball_of = labels, how, balls, ball_of
        self.points, self.certificates, self.kinds, self.extra = points, certificates, kinds, extra or {}

    def rates(self):
        return rates_table(self.labels, self.kinds, self.certificates)


def _cycle_label(p, period):
    c = canonical(p)
    return ("2-cycle {p, sigma p} (not stationary), p = (%s)" if period == 2 else "fixed point (%s)") % \
        ", ".join("%.6f" % x for x in c)


def _symmetry_of(x, kw, alpha):
    """The sign pattern sigma with sigma Phi(x) closest to x, and that distance (max-norm)."""
    F, _ = pgd_map(x, (1,) * 5, alpha=alpha, **kw)
    dist = [float(np.max(np.abs(s * F - x))) for s in SYMMETRIES]
    i = int(np.argmin(dist))
    return tuple(int(t) for t in SYMMETRIES[i]), dist[i]


class _Ledger:
    """The runs' accounting while :func:`classify_runs` builds regions: labels, how, kinds, certificates and balls."""

    def __init__(self, ends, converged, labels, points):
        self.ends, self.labels, self.points = ends, labels, points
        # the regions capture mirror images only on the proved premise Phi(sigma o) = sigma Phi(o) (see the module)
        premise = sigma_equivariance_proofs()
        self.images = SYMMETRIES if all(premise.values()) else SYMMETRIES[:1]
        self.mirror = {"symmetric_images": {"premise": "Phi(sigma o) = sigma Phi(o) for the symmetries' sign patterns",
                                            "tier": T.SYMBOLIC if all(premise.values()) else
                                            f"{T.NOT_PROVED}: only the region itself, no mirror images, is used"}}
        n = ends.shape[1]
        self.how = np.where(converged & (labels != "unmatched"), "converged", "none").astype(object)
        self.kinds = {end_label(p): p.kind for p in points}
        self.certs: dict = {}
        for lab in set(labels[self.how == "converged"]):
            self.certs.setdefault(lab, []).append({"kind": "converged", "tier": NUMERIC_END})
        self.balls, self.ball_of = [], np.full(n, -1)

    def images_in(self, region, idx):
        """Which of the runs ``idx`` end in ``region`` up to the symmetries the premise allows."""
        hit = np.zeros(len(idx), dtype=bool)
        for s in self.images:
            hit |= region.contains(s[:, None] * self.ends[:, idx])
        return hit

    def name_of(self, ball):
        """(label, kind) of the fixed point or 2-cycle a ball holds."""
        if ball.period == 2:
            return _cycle_label(ball.centre, 2), "2-cycle"
        for p in self.points:
            if np.min(np.max(np.abs(p.images - ball.centre[None, :]), axis=1)) < 1e-8:
                return end_label(p), p.kind
        return _cycle_label(ball.centre, 1), "-"

    def use(self, ball):
        """Record ``ball``; if proved, label the not yet captured runs ending in it (or a mirror image)."""
        self.balls.append(ball)
        if not ball.proved:
            return
        idx = np.flatnonzero(self.ball_of == -1)
        hit = idx[self.images_in(ball, idx)]
        lab, kind = self.name_of(ball)
        self.ball_of[hit] = len(self.balls) - 1
        self.labels[hit] = lab
        self.how[hit] = "captured"
        self.kinds.setdefault(lab, kind)
        if len(hit):
            self.certs.setdefault(lab, []).append(dict(ball.as_dict(), runs=int(len(hit)), **self.mirror,
                                                       label_tier=("proved (ball arithmetic); the name is the centre's "
                                                                   "match to a 40-digit stationary point (numeric)")
                                                       if ball.period == 1 else T.BALL))


@accepts_gamma2
def classify_runs(ends, converged, points, *, lam, gamma, d, L, alpha, match=1e-3, max_balls=24, near=1e-4, prec=128,
                  valley=True):
    """Account for every run (see the module's docstring): a :class:`Classification`.

    ``ends`` (5, runs) and ``converged`` as for :func:`label_ends`; ``points`` the stationary points. Balls are
    built around the listed minima that are stable at alpha and around the states of non-captured runs that
    PGD maps to a mirror image of themselves within ``near`` (a fixed point or a 2-cycle being approached),
    at most ``max_balls`` in all."""
    ends = np.asarray(ends, dtype=float)
    labels = label_ends(ends, converged, points, match)
    try:
        V.overlaps(*ends, d=d)
    except ValueError as exc:
        raise ValueError(f"ends must be realisable overlap tuples (states of runs in R^d): {exc}") from None
    kw = {"lam": lam, "gamma": gamma, "d": d, "L": L}
    led, extra = _Ledger(ends, converged, labels, points), {}
    for p in points:  # the minima stable at this alpha
        if len(led.balls) < max_balls and stable_at(p, alpha):
            led.use(contraction_ball(p.overlaps, (1,) * 5, alpha=alpha, prec=prec, **kw))
    if valley:
        _capture_valley(led, extra, alpha=alpha, prec=prec, **kw)
    _capture_fixed_points(led, kw, alpha=alpha, near=near, prec=prec, max_balls=max_balls)
    _account_rest(led, extra, alpha)
    return Classification(led.labels, led.how, led.balls, led.ball_of, points, led.certs, led.kinds, extra)


def _capture_valley(led, extra, *, lam, gamma, d, L, alpha, prec):
    """Label the uncaptured runs near M's flat valley nu = 1 that the proved valley tube holds as the oracle's."""
    orc = [p for p in led.points if p.name == "oracle"]
    near_edge = (led.ball_of == -1) & (np.abs(np.abs(led.ends[1]) - 1) < 1e-2)
    if not (orc and np.any(near_edge)):
        return
    # the tube's lower end from the runs themselves: just below the lowest kappa of a valley run, else the
    # quartiles (a lower kappa_a needs more pieces and may fail where the edge is not yet saturated)
    kap = np.abs(led.ends[0, near_edge])
    kap = kap[(kap > 0.05) & (kap < 1)]
    ka = sorted({round(float(x), 4) for x in np.clip(np.r_[0.99 * kap.min(), np.quantile(kap, [0.25, 0.5])], 0.05, 0.95)}) \
        if len(kap) else [0.5]
    tube = valley_tube(lam=lam, gamma=gamma, d=d, L=L, alpha=alpha, prec=prec, kappa_a=ka)
    extra["valley_tube"] = tube
    if tube.proved:
        idx = np.flatnonzero(near_edge)
        hit = idx[led.images_in(tube, idx)]
        lab = end_label(orc[0])
        led.labels[hit] = lab
        led.how[hit] = "valley"
        led.ball_of[hit] = -2
        if len(hit):
            led.certs.setdefault(lab, []).append(dict(tube.as_dict(), runs=int(len(hit)), **led.mirror))


def _capture_fixed_points(led, kw, *, alpha, near, prec, max_balls):
    """Balls around uncaptured runs that PGD maps to within ``near`` of a mirror image of themselves."""
    ends = led.ends
    tried = np.zeros(ends.shape[1], dtype=bool)
    while len(led.balls) < max_balls:
        todo = np.flatnonzero((led.ball_of == -1) & ~tried & (led.how != "converged"))
        if not len(todo):
            break
        i = todo[0]
        tried[i] = True
        sigma, dist = _symmetry_of(ends[:, i], kw, alpha)
        if dist > near:
            continue
        led.use(contraction_ball(ends[:, i], sigma, alpha=alpha, prec=prec, **kw))
        if not led.balls[-1].proved:  # do not try again from the states next to this one (any image)
            gap = np.min([np.max(np.abs(s[:, None] * ends - ends[:, i:i + 1]), axis=0) for s in SYMMETRIES], axis=0)
            tried |= gap < 1e-2


def _account_rest(led, extra, alpha):
    """Label the runs no region holds: the law's non-convergence if every point is unstable, else unclassified."""
    ends, points = led.ends, led.points
    rest = np.flatnonzero((led.ball_of == -1) & (led.how != "converged"))
    if not len(rest):
        return
    law = bool(points) and all(not stable_at(p, alpha) and p.kind != "degenerate" for p in points)
    led.how[rest] = "law" if law else "none"
    if law:
        led.labels[rest] = NONCONVERGENT
        led.kinds[NONCONVERGENT] = "-"
        top = {end_label(p): alpha * max(float(np.max(p.core)), float(np.max(p.block))) for p in points}
        led.certs[NONCONVERGENT] = [{"kind": "all stationary points linearly unstable at alpha", "tier": LAW_LEVEL,
                                     "largest_hessian_eigenvalue_times_alpha": top}]
        return
    edge = np.abs(np.abs(ends[1, rest]) - 1) < 1e-6
    tube = extra.get("valley_tube")
    for lab, sel in ((UNCLASSIFIED_EDGE, rest[edge]), (UNCLASSIFIED, rest[~edge])):
        if not len(sel):
            continue
        led.labels[sel] = lab
        led.kinds[lab] = "-"
        c = {"kind": "none", "tier": "no certificate: not converged, outside every proved ball"}
        if lab == UNCLASSIFIED_EDGE:
            c.update(kappa_range=(float(np.min(np.abs(ends[0, sel]))), float(np.max(np.abs(ends[0, sel])))),
                     valley_tube=tube.reason if tube is not None else "not tried")
        led.certs[lab] = [c]


@accepts_gamma2
def sample_basins(seed, runs, *, lam, gamma, d, L, alpha, steps, tol=1e-6, max_steps=600_000, starts=200, progress=None,
                  capture=True, max_balls=24, valley=True, details=False):
    """Basin rates at constant lam from ``runs`` sphere starts (exact law, ``seed`` an int or a
    SeedSequence): the runs of :func:`slr_verify.landscape.basins.sample_ends`; then every run is accounted for by
    :func:`classify_runs` (``capture`` False: only the converged runs' end points,
    :func:`slr_verify.landscape.basin_rates`).
    Returns (rates, ends (5, runs), converged, continuation steps), and the :class:`Classification` as a
    fifth element with ``details``."""
    V.integer("max_balls", max_balls, 0, 10_000, why="contraction balls, about a second each")
    ends, ok, extra, pts = sample_ends(seed, runs, lam=lam, gamma=gamma, d=d, L=L, alpha=alpha, steps=steps, tol=tol,
                                       max_steps=max_steps, starts=starts, progress=progress)
    if not capture:
        rates = basin_rates(ends, ok, lam=lam, gamma=gamma, d=d, L=L, points=pts)
        return (rates, ends, ok, extra, None) if details else (rates, ends, ok, extra)
    cl = classify_runs(ends, ok, pts, lam=lam, gamma=gamma, d=d, L=L, alpha=alpha, max_balls=max_balls, valley=valley)
    rates = cl.rates()
    return (rates, ends, ok, extra, cl) if details else (rates, ends, ok, extra)
