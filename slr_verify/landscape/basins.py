r"""Basins of sphere-initialised PGD (`docs/MATH.md` §13).

k_0, v_0 independent and uniform on S^{d-1}: the initial overlaps are drawn d-free from their exact
law (:func:`~slr_verify.model.sampling.initial_overlaps_exact`). Each run is continued at its last
lam until its tangent gradient is below a stated tolerance (:func:`~slr_verify.dynamics.convergence.converge`);
only such runs have an end point. An end point is matched to the stationary points of
:func:`~.stationary.stationary_points` (all four images of each symmetry orbit) within ``match``; the
probability of each end point is reported with its 95% Clopper-Pearson interval over the runs
(the non-converged runs are a class of their own, never an end point).

**Every run accounted for** (:func:`classify_runs`). A run that has not converged is classified by where
it provably goes, not by how far it got:

* *captured*: its state lies in a contraction ball of sigma o Phi (:mod:`.capture`, proved by ball
  arithmetic): it converges to the ball's fixed point (a stationary point, labelled by its match to the
  list) or to the 2-cycle {p, sigma p} of the overlaps (a period-2 orbit of PGD that is not a stationary
  point; found where alpha exceeds 2 / the largest Riemannian Hessian eigenvalue of a nearby minimum, which
  is then unstable for PGD). Converged runs are tested too:
  inside a ball their end point's label is upgraded to the proved tier.
* *in the valley*: its state satisfies the entry condition of the valley tube (:mod:`.valley`, proved by
  ball arithmetic on top of SymPy facts): it converges to the oracle along the flat edge nu = 1 of M,
  however slowly.
* *non-convergent almost surely*: when no listed stationary point is linearly stable for PGD at this alpha
  (:func:`stable_at`: every Riemannian Hessian eigenvalue off the symmetry's flat ones in (0, 2/alpha)), the
  center-stable manifold theorem (PGD's map is analytic with a Jacobian determinant not identically 0) gives
  probability 0 of converging to any of them: a random start is classified so with probability 1.
* anything else is ``"unclassified (no certificate)"``, never matched silently.

A region also captures the mirror images of its runs: if sigma x lies in it for a symmetry's sign pattern
sigma, Phi^n(x) = sigma Phi^n(sigma x) has the mirror image of its fate. This uses Phi(sigma o) = sigma Phi(o),
proved by SymPy for the four patterns (:func:`slr_verify.kernels.landscape.sigma_equivariance_proofs`); were a
statement not proved, only the regions themselves (no images) would be used. The certificates record it
(``"symmetric_images"``).

Each label carries its certificate (kind, tier, region or bound) in the rates' ``"certificates"``.
"""
from __future__ import annotations

import numpy as np

from ..dynamics.convergence import converge
from ..dynamics.runners import overlap_pgd
from ..kernels.landscape import sigma_equivariance_proofs
from ..model import tiers as T
from ..model import validation as V
from ..model.intervals import clopper_pearson
from ..model.params import Params, accepts_gamma2, keywords_checked
from ..model.sampling import initial_overlaps_exact
from .capture import CERTIFIED, contraction_ball, pgd_map
from .stationary import SYMMETRIES, canonical, stationary_points
from .valley import valley_tube

__all__ = ["label_ends", "basin_rates", "sample_basins", "classify_runs", "Classification", "stable_at",
           "NUMERIC_END", "LAW_LEVEL"]

#: the tier of an end point reached by a converged run and matched to a listed stationary point
NUMERIC_END = "numeric (tangent gradient below tol; matched to a stationary point refined at 40 digits)"
#: the tier of the almost-sure statement "no convergence to a stationary point"
LAW_LEVEL = ("almost sure (center-stable manifold theorem) given the listed stationary points: each is linearly unstable "
             "for PGD at this alpha (Riemannian Hessian at 40-160 digits); the list's completeness is the search's "
             "(numeric)")
#: labels of runs no certificate covers
UNCLASSIFIED = "unclassified (no certificate)"
UNCLASSIFIED_EDGE = "unclassified: on the edge nu = 1 of M (no certificate)"
NONCONVERGENT = "non-convergent a.s. (no stationary point is stable at this alpha)"


def _label(p):
    """A unique label: the name (oracle, on M, corner), k = +-v* with its |theta| and the sign of
    theta eta, or the overlaps."""
    if p.name == "k = +-v*":
        # theta eta is invariant under the symmetries: its sign separates v leaning towards +k* from
        # v leaning towards -k* when k = v* (at |theta| = 1 one is a minimum, the other a saddle)
        return "k = +-v*, |theta| = %.6f, sign(theta eta) = %+d" % (abs(p.overlaps[2]), np.sign(p.overlaps[2] * p.overlaps[3]))
    return p.name or "(%s)" % ", ".join("%.6f" % x for x in p.overlaps)


@keywords_checked
def label_ends(ends, converged, points, match=1e-3):
    """Labels of the end points ``ends`` (array (5, n)): the name of the stationary point whose orbit
    contains the point within ``match`` (max-norm on the overlaps), "unmatched" if none, "not
    converged" for the runs with ``converged`` False."""
    ends = np.asarray(ends, dtype=float)
    converged = np.asarray(converged)
    if ends.ndim != 2 or ends.shape[0] != 5:
        raise ValueError(f"ends must have shape (5, runs) (kappa, nu, theta, eta, rho), got {ends.shape}")
    if converged.shape != (ends.shape[1],) or converged.dtype != bool:
        raise ValueError(f"converged must be a boolean array of shape ({ends.shape[1]},), "
                         f"got {converged.dtype} {converged.shape}")
    if not np.all(np.isfinite(ends)):
        raise ValueError("ends must be finite")
    if not match > 0:
        raise ValueError(f"match must be > 0, got {match!r}")
    labels = np.full(ends.shape[1], "unmatched", dtype=object)
    for p in points:
        near = np.min(np.max(np.abs(ends.T[:, None, :] - p.images[None, :, :]), axis=2), axis=1) < match
        labels[near & (labels == "unmatched")] = _label(p)
    labels[~converged] = "not converged"
    return labels


@keywords_checked
def stable_at(p, alpha) -> bool:
    """Whether the stationary point ``p`` (:class:`~.stationary.StationaryPoint`) is a linearly stable fixed
    point of PGD at step size alpha: a minimum (every eigenvalue off the flat ones > 0) whose largest
    Riemannian Hessian eigenvalue mu satisfies 1 - alpha mu > -1. (The derivative of the projected step
    at a stationary point is I - alpha Hess on the tangent space.)"""
    top = max(float(np.max(p.core)), float(np.max(p.block)))
    return p.kind == "minimum" and alpha * top < 2


def _rates(labels, kinds, certs):
    n = len(labels)
    out = {}
    for lab in sorted(set(labels), key=lambda s: -np.sum(labels == s)):
        k = int(np.sum(labels == lab))
        out[str(lab)] = {"count": k, "runs": n, "rate": k / n, "ci95": clopper_pearson(k, n), "kind": kinds.get(lab, "-"),
                         "certificates": certs.get(lab, [])}
    return out


@accepts_gamma2
def basin_rates(ends, converged, *, lam, gamma, d, L, match=1e-3, starts=200, points=None):
    """{label: {"count", "rate", "ci95", "kind", "certificates"}} over the runs, from the end points of the
    converged runs only (see the module's docstring; :func:`classify_runs` accounts for the others).
    ``points``: the stationary points (None: :func:`~.stationary.stationary_points` with ``starts``)."""
    pts = stationary_points(lam=lam, gamma=gamma, d=d, L=L, starts=starts) if points is None else points
    labels = label_ends(ends, converged, pts, match)
    return _rates(labels, {_label(p): p.kind for p in pts}, {_label(p): [{"kind": "converged", "tier": NUMERIC_END}]
                                                            for p in pts})


class Classification:
    """Per-run ``labels`` (array of str), ``how`` (per run: "converged", "captured", "valley", "law" or "none"),
    the ``balls`` tried (:class:`~.capture.CaptureBall`; ``ball_of``: per run the index of the capturing ball,
    -2 for the valley tube, -1 for none), ``points`` (the stationary points), ``certificates`` {label:
    [certificate dicts]} and ``extra`` (the valley tube tried, :class:`~.valley.ValleyTube`)."""

    def __init__(self, labels, how, balls, ball_of, points, certificates, kinds, extra=None):
        self.labels, self.how, self.balls, self.ball_of = labels, how, balls, ball_of
        self.points, self.certificates, self.kinds, self.extra = points, certificates, kinds, extra or {}

    def rates(self):
        return _rates(self.labels, self.kinds, self.certificates)


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
        self.kinds = {_label(p): p.kind for p in points}
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
                return _label(p), p.kind
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
                                                       if ball.period == 1 else CERTIFIED))


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
        lab = _label(orc[0])
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
        led.certs[NONCONVERGENT] = [{"kind": "all stationary points linearly unstable at alpha", "tier": LAW_LEVEL,
                                     "largest_hessian_eigenvalue_times_alpha": {
                                         _label(p): alpha * max(float(np.max(p.core)), float(np.max(p.block))) for p in points}}]
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
    SeedSequence): ``steps`` of PGD, then continued until the tangent gradient is below ``tol`` (or
    float64's resolution) or ``max_steps`` more steps; then every run is accounted for by
    :func:`classify_runs` (``capture`` False: only the converged runs' end points, :func:`basin_rates`).
    Returns (rates, ends (5, runs), converged, continuation steps), and the :class:`Classification` as a
    fifth element with ``details``."""
    if not isinstance(seed, np.random.SeedSequence):
        V.integer("seed", seed, 0)
    runs = V.integer("runs", runs, 1)
    V.integer("starts", starts, 1, 100_000)
    V.integer("max_steps", max_steps, 0)
    V.integer("max_balls", max_balls, 0, 10_000, why="contraction balls, about a second each")
    V.real("tol", tol, minimum=0.0, strict_min=True)
    Params(lam=lam, gamma=gamma, eps=0.0, d=d, L=L)
    ov0 = initial_overlaps_exact(seed, runs, d)
    tr = overlap_pgd(tuple(ov0), lam=lam, gamma=gamma, d=d, L=L, alpha=alpha, steps=steps, every=steps, progress=progress)
    ends, _, extra, ok = converge([tr[f][-1] for f in ("kappa", "nu", "theta", "eta", "rho")], lam=lam, gamma=gamma,
                                  d=d, L=L, alpha=alpha, tol=tol, max_steps=max_steps)
    ends = np.array(ends)
    pts = stationary_points(lam=lam, gamma=gamma, d=d, L=L, starts=starts)
    if not capture:
        rates = basin_rates(ends, ok, lam=lam, gamma=gamma, d=d, L=L, points=pts)
        return (rates, ends, ok, extra, None) if details else (rates, ends, ok, extra)
    cl = classify_runs(ends, ok, pts, lam=lam, gamma=gamma, d=d, L=L, alpha=alpha, max_balls=max_balls, valley=valley)
    rates = cl.rates()
    return (rates, ends, ok, extra, cl) if details else (rates, ends, ok, extra)
