r"""Basins of sphere-initialised PGD (`docs/MATH.md` §13).

k_0, v_0 independent and uniform on S^{d-1}: the initial overlaps are drawn d-free from their exact
law (:func:`~slr_verify.model.sampling.initial_overlaps_exact`). Each run is continued at its last
lam until its tangent gradient is below a stated tolerance (:func:`~slr_verify.dynamics.convergence.converge`);
only such runs have an end point. An end point is matched to the stationary points of
:func:`~.stationary.stationary_points` (all four images of each symmetry orbit) within ``match``; the
probability of each end point is reported with its 95% Clopper-Pearson interval over the runs
(the non-converged runs are a class of their own, never an end point).
"""
from __future__ import annotations

import numpy as np

from ..dynamics.convergence import converge
from ..dynamics.runners import overlap_pgd
from ..model import validation as V
from ..model.intervals import clopper_pearson
from ..model.params import Params
from ..model.sampling import initial_overlaps_exact
from .stationary import stationary_points

__all__ = ["label_ends", "basin_rates", "sample_basins"]


def _label(p):
    """A unique label: the name (oracle, on M, corner), k = +-v* with its |theta| and the sign of
    theta eta, or the overlaps."""
    if p.name == "k = +-v*":
        # theta eta is invariant under the symmetries: its sign separates v leaning towards +k* from
        # v leaning towards -k* when k = v* (at |theta| = 1 one is a minimum, the other a saddle)
        return "k = +-v*, |theta| = %.6f, sign(theta eta) = %+d" % (abs(p.overlaps[2]), np.sign(p.overlaps[2] * p.overlaps[3]))
    return p.name or "(%s)" % ", ".join("%.6f" % x for x in p.overlaps)


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


def basin_rates(ends, converged, *, lam, gamma, d, L, match=1e-3, starts=200):
    """{label: {"count", "rate", "ci95", "kind"}} over the runs (see the module's docstring)."""
    pts = stationary_points(lam=lam, gamma=gamma, d=d, L=L, starts=starts)
    labels = label_ends(ends, converged, pts, match)
    kinds = {_label(p): p.kind for p in pts}
    n = len(labels)
    out = {}
    for lab in sorted(set(labels), key=lambda s: -np.sum(labels == s)):
        k = int(np.sum(labels == lab))
        out[str(lab)] = {"count": k, "runs": n, "rate": k / n, "ci95": clopper_pearson(k, n), "kind": kinds.get(lab, "-")}
    return out


def sample_basins(seed, runs, *, lam, gamma, d, L, alpha, steps, tol=1e-6, max_steps=600_000, starts=200, progress=None):
    """Basin rates at constant lam from ``runs`` sphere starts (exact law, ``seed`` an int or a
    SeedSequence): ``steps`` of PGD, then continued until the tangent gradient is below ``tol`` (or
    float64's resolution) or ``max_steps`` more steps, then :func:`basin_rates`. Returns
    (rates, ends (5, runs), converged, continuation steps)."""
    if not isinstance(seed, np.random.SeedSequence):
        V.integer("seed", seed, 0)
    runs = V.integer("runs", runs, 1)
    V.integer("starts", starts, 1, 100_000)
    V.integer("max_steps", max_steps, 0)
    V.real("tol", tol, minimum=0.0, strict_min=True)
    Params(lam=lam, gamma=gamma, eps=0.0, d=d, L=L)
    ov0 = initial_overlaps_exact(seed, runs, d)
    tr = overlap_pgd(tuple(ov0), lam=lam, gamma=gamma, d=d, L=L, alpha=alpha, steps=steps, every=steps, progress=progress)
    ends, _, extra, ok = converge([tr[f][-1] for f in ("kappa", "nu", "theta", "eta", "rho")], lam=lam, gamma=gamma,
                                  d=d, L=L, alpha=alpha, tol=tol, max_steps=max_steps)
    ends = np.array(ends)
    return basin_rates(ends, ok, lam=lam, gamma=gamma, d=d, L=L, starts=starts), ends, ok, extra
