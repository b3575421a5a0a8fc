r"""Basins of sphere-initialised PGD (`docs/MATH.md` §13).

k_0, v_0 independent and uniform on S^{d-1}: the initial overlaps are drawn d-free from their exact
law (:func:`~slr_verify.model.sampling.initial_overlaps_exact`). Each run is continued at its last
lam until its tangent gradient is below a stated tolerance (:func:`~slr_verify.dynamics.convergence.converge`);
only such runs have an end point. An end point is matched to the stationary points of
:func:`~.stationary.stationary_points` (all four images of each symmetry orbit) within ``match``; the
probability of each end point is reported with its 95% Clopper-Pearson interval over the runs
(the non-converged runs are a class of their own, never an end point).

**Every run accounted for** (:func:`slr_verify.certify.classify_runs`, with the capture regions proved in
:mod:`slr_verify.certify`). A run that has not converged is classified by where
it provably goes, not by how far it got:

* *captured*: its state lies in a contraction ball of sigma o Phi (:mod:`slr_verify.certify.capture`, proved by ball
  arithmetic): it converges to the ball's fixed point (a stationary point, labelled by its match to the
  list) or to the 2-cycle {p, sigma p} of the overlaps (a period-2 orbit of PGD that is not a stationary
  point; found where alpha exceeds 2 / the largest Riemannian Hessian eigenvalue of a nearby minimum, which
  is then unstable for PGD). Converged runs are tested too:
  inside a ball their end point's label is upgraded to the proved tier.
* *in the valley*: its state satisfies the entry condition of the valley tube (:mod:`slr_verify.certify.valley`, proved by
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
from ..model import budgets as B
from ..model import tiers as T
from ..model import validation as V
from ..model.intervals import clopper_pearson
from ..model.params import Params, accepts_gamma2, keywords_checked
from ..model.sampling import initial_overlaps_exact
from .stationary import stationary_points

#: the tier of an end point reached by a converged run and matched to a listed stationary point
NUMERIC_END = f"{T.NUMERIC} (tangent gradient below tol; matched to a stationary point refined at 40 digits)"
#: the tier of the almost-sure statement "no convergence to a stationary point"
LAW_LEVEL = ("almost sure (center-stable manifold theorem) given the listed stationary points: each is linearly unstable "
             "for PGD at this alpha (Riemannian Hessian at 40-160 digits); the list's completeness is the search's "
             "(numeric)")
#: labels of runs no certificate covers
UNCLASSIFIED = "unclassified (no certificate)"
UNCLASSIFIED_EDGE = "unclassified: on the edge nu = 1 of M (no certificate)"
NONCONVERGENT = "non-convergent a.s. (no stationary point is stable at this alpha)"


@keywords_checked
def end_label(p):
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
    converged" for the runs with ``converged`` False. `docs/MATH.md` §13."""
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
        labels[near & (labels == "unmatched")] = end_label(p)
    labels[~converged] = "not converged"
    return labels


@keywords_checked
def stable_at(p, alpha) -> bool:
    """Whether the stationary point ``p`` (:class:`~.stationary.StationaryPoint`) is a linearly stable fixed
    point of PGD at step size alpha: a minimum (every eigenvalue off the flat ones > 0) whose largest
    Riemannian Hessian eigenvalue mu satisfies 1 - alpha mu > -1. (The derivative of the projected step
    at a stationary point is I - alpha Hess on the tangent space.) Definition 1, `docs/MATH.md` §13."""
    top = max(float(np.max(p.core)), float(np.max(p.block)))
    return p.kind == "minimum" and alpha * top < 2


@keywords_checked
def rates_table(labels, kinds, certs):
    """{label: {"count", "runs", "rate", "ci95" (95% Clopper-Pearson), "kind", "certificates"}} of the per-run ``labels``,
    most frequent first; ``kinds`` and ``certs``: per label."""
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
    ``points``: the stationary points (None: :func:`~.stationary.stationary_points` with ``starts``).
    `docs/MATH.md` §13."""
    pts = stationary_points(lam=lam, gamma=gamma, d=d, L=L, starts=starts) if points is None else points
    labels = label_ends(ends, converged, pts, match)
    return rates_table(labels, {end_label(p): p.kind for p in pts}, {end_label(p): [{"kind": "converged", "tier": NUMERIC_END}]
                                                            for p in pts})


@accepts_gamma2
def sample_ends(seed, runs, *, lam, gamma, d, L, alpha, steps, tol=1e-6, max_steps=600_000, starts=200, progress=None):
    """The end points of ``runs`` sphere-initialised PGD runs at constant lam (exact law, ``seed`` an int or a
    SeedSequence): ``steps`` of PGD, then continued until the tangent gradient is below ``tol`` (or float64's
    resolution) or ``max_steps`` more steps. Returns (ends (5, runs), converged, continuation steps, the stationary
    points of :func:`~.stationary.stationary_points` with ``starts``): what :func:`basin_rates` and
    :func:`slr_verify.certify.classify_runs` classify. `docs/MATH.md` §13."""
    if not isinstance(seed, np.random.SeedSequence):
        V.integer("seed", seed, 0)
    runs = V.integer("runs", runs, 1)
    B.memory_budget("runs", 8.0 * 40 * runs, f"the overlaps of {runs:,} runs")
    V.integer("steps", steps, 1, floats=True)
    V.integer("starts", starts, 1, 100_000)
    V.integer("max_steps", max_steps, 0)
    V.real("tol", tol, minimum=0.0, strict_min=True)
    p = Params(lam=lam, gamma=gamma, eps=0.0, d=d, L=L)
    d, L = p.d, p.L  # beyond int64 floats (np.sqrt takes no larger int)
    ov0 = initial_overlaps_exact(seed, runs, d)
    tr = overlap_pgd(tuple(ov0), lam=lam, gamma=gamma, d=d, L=L, alpha=alpha, steps=steps, every=steps, progress=progress)
    ends, _, extra, ok = converge([tr[f][-1] for f in ("kappa", "nu", "theta", "eta", "rho")], lam=lam, gamma=gamma,
                                  d=d, L=L, alpha=alpha, tol=tol, max_steps=max_steps)
    pts = stationary_points(lam=lam, gamma=gamma, d=d, L=L, starts=starts)
    return np.array(ends), ok, extra, pts
