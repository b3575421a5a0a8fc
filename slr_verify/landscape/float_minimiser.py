r"""The global minimiser of R_lam in float64 (`docs/MATH.md` §17): the landscape layer's answer, tier numeric.

min over S^{d-1} x S^{d-1} of R_lam is the minimum of the profile m_lam(kappa, eta) (:mod:`.trs`) over the quarter
disk, a two-dimensional problem (:func:`minimise_profile`, :func:`float_global_minimum`): a grid in the angle chart
kappa = cos(b) cos(a), eta = cos(b) sin(a), r = sin(b) (a, b in [0, pi/2]), the best grid local minima refined by a
vectorised pattern search (:func:`_zoom`), the oracle (a = b = 0) always a candidate. A candidate within
:data:`TIE_RTOL` (relative) of the oracle's risk is a tie that float64 cannot break (the flat valley nu = 1 of
`docs/MATH.md` §17, where m - R(k*, v*) is 1e-15 to 1e-44): the oracle is reported. No random starts.

Whether the oracle is the global minimiser at a lam (:func:`oracle_is_global`) is a grid statement: a basin of m
below the oracle that no grid point enters is not seen.

The proved counterpart (ball arithmetic, a certificate the independent checker replays) is
:func:`slr_verify.certify.global_minimiser`; the claim ``global-minimiser`` compares the two.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..model import tiers as T
from ..model import validation as V
from ..model.params import ModelSetting, Params, accepts_gamma2, keywords_checked
from .trs import profile, solve_trs, trs_matrices


@keywords_checked
def angle_chart(a, b):
    """(kappa, eta) of the angle chart kappa = cos(b) cos(a), eta = cos(b) sin(a) (r = sin(b))."""
    return np.cos(b) * np.cos(a), np.cos(b) * np.sin(a)


def _zoom(a, b, h, kw, h_min=1e-11, iters=400, lam=None):
    """Local minima of m from the seeds (a, b) (arrays) by a pattern search on the angle chart, all
    seeds at once: a 5 x 5 stencil of spacing h around each seed (clipped to [0, pi/2]^2), the seed
    moved to the stencil's best point, h divided by 3 when the best is the centre. ``lam``: one per seed (an array;
    then ``kw`` has no lam), or None (``kw``'s). Returns (m, a, b)."""
    a, b = np.atleast_1d(np.asarray(a, dtype=float)).copy(), np.atleast_1d(np.asarray(b, dtype=float)).copy()
    lam = np.broadcast_to(kw["lam"] if lam is None else np.asarray(lam, dtype=float), a.shape)
    kw = {k: v for k, v in kw.items() if k != "lam"}
    h = np.full(a.shape, float(h))
    off = np.arange(-2, 3, dtype=float)
    da, db = (x.ravel() for x in np.meshgrid(off, off, indexing="ij"))
    m = profile(*angle_chart(a, b), lam=lam, **kw).risk
    act = np.flatnonzero(h >= h_min)
    for _ in range(int(iters)):
        if act.size == 0:
            break
        # only the seeds not yet converged (h >= h_min) are moved
        A = np.clip(a[act, None] + h[act, None] * da, 0.0, np.pi / 2)
        B = np.clip(b[act, None] + h[act, None] * db, 0.0, np.pi / 2)
        M = profile(*angle_chart(A, B), lam=lam[act, None], **kw).risk
        j = np.argmin(M, axis=1)
        rows = np.arange(len(act))
        better = M[rows, j] < m[act]
        a[act] = np.where(better, A[rows, j], a[act])
        b[act] = np.where(better, B[rows, j], b[act])
        m[act] = np.where(better, M[rows, j], m[act])
        h[act] = np.where(better, h[act], h[act] / 3)
        act = act[h[act] >= h_min]
    return m, a, b


def _local_min(a, b, kw, h=1e-2):
    """The local minimum of m reached from (a, b) by :func:`_zoom`: (m, a, b)."""
    m, a, b = _zoom([a], [b], h, kw)
    return float(m[0]), float(a[0]), float(b[0])


@keywords_checked
def local_minimum(chart, *, lam, gamma, eps=0.0, d, L):
    """The profile's local minimum reached from ``chart`` = (a, b) of the angle chart (a pattern search in float64):
    (m, (a, b)). A crossing end's competitor is followed this way from where it was found
    (``Window.mechanism_records["lo"]["chart"]``)."""
    p = ModelSetting(gamma=gamma, eps=eps, d=d, L=L).require_d("profile").at(lam).kw()
    m, a, b = _local_min(float(chart[0]), float(chart[1]), p)
    return m, (a, b)


@dataclass
class GlobalMinimiser:
    """The global minimiser of R_lam in float64 (tier numeric; :func:`minimise_profile`): ``risk``, ``overlaps``
    (kappa, nu, theta, eta, rho) of the representative with kappa, eta >= 0, ``chart`` (a, b), ``is_oracle`` and the
    other local minima of the profile found (``candidates``: (risk, kappa, eta), sorted). `docs/MATH.md` §17."""

    risk: float
    overlaps: tuple
    chart: tuple
    is_oracle: bool
    candidates: list

    #: what the answer rests on (`slr_verify.model.tiers`)
    tier = (f"{T.NUMERIC}: float64 profile, a grid of the angle chart and a pattern search; ties within 1e-12 relative "
            "resolved by the mpmath profile (certify.global_minimiser proves it)")


#: how close to (a, b) = (0, 0) a candidate is taken as the oracle
_ORACLE_TOL = 1e-6
#: candidates within this relative distance of the oracle's risk are ties, reported as the oracle
TIE_RTOL = 1e-12


@keywords_checked
def chart_grid(grid) -> tuple:
    """The angle chart's grid (na, nb), validated: two integers in [3, 10000] (``ValueError`` naming ``grid``)."""
    if isinstance(grid, (str, bytes)) or np.ndim(grid) != 1 or len(grid) != 2:
        raise ValueError(f"grid must be two integers (na, nb) of the angle chart, got {grid!r}")
    return tuple(V.integer(f"grid[{i}]", x, 3, 10_000, why="the profile on the chart grid") for i, x in enumerate(grid))


def _chart_grid(na, nb):
    return np.meshgrid(np.linspace(0, np.pi / 2, na), np.linspace(0, np.pi / 2, nb), indexing="ij")


@keywords_checked
def coarse_grid(grid):
    """The sub-grid of every third point of ``grid`` (a subset of its points when grid[i] = 1 mod 3)."""
    return tuple((n - 1) // 3 + 1 if (n - 1) % 3 == 0 else n for n in grid)


@keywords_checked
def below_oracle(lams, kw, grid):
    """For each lam of ``lams`` (an array: one batched TRS for all of them), whether some point of the
    ``grid`` (na, nb) of the angle chart has m below the oracle's risk by more than ``TIE_RTOL`` (relative); ``kw``:
    gamma, eps, d, L (:meth:`slr_verify.model.params.Params.kw` without lam)."""
    lams = np.asarray(lams, dtype=float)
    for x in lams:
        Params(lam=float(x), **kw)
    A, B = _chart_grid(*grid)
    k, e = angle_chart(A.ravel(), B.ravel())
    kappa = np.concatenate([[1.0], k])
    eta = np.concatenate([[0.0], e])
    r = np.sqrt(np.clip(1 - kappa**2 - eta**2, 0.0, None))
    d, L = (V.count_value(kw[k]) for k in ("d", "L"))  # beyond int64 a float: np.sqrt takes no larger int
    c, H, g = trs_matrices(kappa[None], eta[None], r[None], lams[:, None], kw["gamma"], kw["eps"], d, L)
    m = solve_trs(c, H, g, int(min(d, 4)))[0]
    orc = m[:, :1]
    return np.any(m[:, 1:] < orc - TIE_RTOL * np.abs(orc), axis=1)


@accepts_gamma2
def oracle_is_global(*, lam, gamma, eps=0.0, d, L, grid=(91, 46)) -> bool:
    """Whether the oracle is the global minimiser of R_lam (float64, ties to ``TIE_RTOL`` go to the
    oracle): False as soon as a point of the chart ``grid`` is below it (the sub-grid of every third point
    tried first: cheap where the answer is False), else True (:func:`minimise_profile` then has no seed:
    it zooms only from grid local minima below the oracle). A grid statement: a basin of m below the
    oracle that no grid point enters is not seen (`docs/MATH.md` §17; the ball-tier decision is
    :func:`slr_verify.certify.global_minimiser`)."""
    return bool(oracles_are_global([lam], gamma=gamma, eps=eps, d=d, L=L, grid=grid)[0])


@accepts_gamma2
def oracles_are_global(lams, *, gamma, eps=0.0, d, L, grid=(91, 46)) -> np.ndarray:
    """:func:`oracle_is_global` at each lam of ``lams``, batched (one TRS per sub-grid for all of them; the full grid
    only where the coarse one finds nothing below): a boolean array."""
    S = ModelSetting(gamma=gamma, eps=eps, d=d, L=L).require_d("profile")
    lam = np.array([S.at(float(x)).lam for x in np.atleast_1d(V.as_finite("lams", lams))])
    kw, grid = S.kw(), chart_grid(grid)
    out = np.ones(lam.size, dtype=bool)
    for g in dict.fromkeys((coarse_grid(grid), grid)):
        todo = np.flatnonzero(out)
        if todo.size:
            out[todo] = ~below_oracle(lam[todo], kw, g)
    return out


@accepts_gamma2
def minimise_profile(*, lam, gamma, eps=0.0, d, L, grid=(91, 46), seeds=8) -> GlobalMinimiser:
    """The global minimiser of R_lam on S^{d-1} x S^{d-1} through the profile (see the module): the
    ``seeds`` best grid local minima of m on a ``grid`` of the angle chart, refined together by :func:`_zoom`,
    and the oracle. A candidate within ``TIE_RTOL`` (relative) of the oracle's risk is a tie that
    float64 cannot break (the flat valley nu = 1, where m - R(k*, v*) is 1e-15 to 1e-44): the oracle
    is reported, and only :func:`slr_verify.certify.global_minimiser` decides such a tie rigorously.
    `docs/MATH.md` §17."""
    return minimise_profiles([lam], gamma=gamma, eps=eps, d=d, L=L, grid=grid, seeds=seeds)[0]


@accepts_gamma2
def minimise_profiles(lams, *, gamma, eps=0.0, d, L, grid=(91, 46), seeds=8) -> list:
    """:func:`minimise_profile` at each lam of ``lams`` (a sequence), in one batch: the grids of every lam in one
    profile call and every seed in one pattern search (each point's arithmetic as alone: the same answers). A list of
    :class:`GlobalMinimiser`, in the order of ``lams``."""
    S = ModelSetting(gamma=gamma, eps=eps, d=d, L=L).require_d("profile")
    lam = np.array([S.at(float(x)).lam for x in np.atleast_1d(V.as_finite("lams", lams))])
    if lam.ndim != 1 or lam.size == 0:
        raise ValueError(f"lams must be a non-empty sequence of lam, got shape {lam.shape}")
    kw = S.kw()
    na, nb = chart_grid(grid)
    seeds = V.integer("seeds", seeds, 1, 1000)
    A, B = _chart_grid(na, nb)
    m = profile(*angle_chart(A, B), lam=lam[:, None, None], **kw).risk  # (lam, na, nb)
    orc = profile(1.0, 0.0, lam=lam, **kw).risk
    tie = orc - TIE_RTOL * np.abs(orc)
    P = np.pad(m, ((0, 0), (1, 1), (1, 1)), constant_values=np.inf)
    loc = np.ones_like(m, dtype=bool)
    for di in (-1, 0, 1):
        for dj in (-1, 0, 1):
            if di or dj:
                loc &= m <= P[:, 1 + di:1 + di + na, 1 + dj:1 + dj + nb]
    loc &= m < tie[:, None, None]  # grid points tied with the oracle: the valley's float noise
    picks = [(n, i, j) for n in range(lam.size)
             for i, j in sorted(zip(*np.nonzero(loc[n])), key=lambda ij: m[(n, *ij)])[:int(seeds)]]
    cands = [[] for _ in lam]
    if picks:
        n, i, j = (np.array(x) for x in zip(*picks))
        ms, As, Bs = _zoom(A[i, j], B[i, j], np.pi / 2 / (na - 1), kw, lam=lam[n])
        for q, x, y, z in zip(n, ms, As, Bs):
            if x < tie[q]:
                cands[q].append((float(x), float(y), float(z)))
    for q, c in enumerate(cands):
        c.append((float(orc[q]), 0.0, 0.0))  # the oracle, always a candidate, and the winner of ties
        c.sort()
    chart = np.array([c[0][1:] for c in cands])
    is_oracle = (chart[:, 0] < _ORACLE_TOL) & (chart[:, 1] < _ORACLE_TOL)
    pr = profile(*angle_chart(chart[:, 0], chart[:, 1]), lam=lam, **kw)
    out = []
    for q, c in enumerate(cands):
        ov = (1.0, 1.0, 0.0, 0.0, 0.0) if is_oracle[q] else tuple(float(x) for x in pr.overlaps[q])
        found = [(x[0], *(float(v) for v in angle_chart(x[1], x[2]))) for x in c]
        out.append(GlobalMinimiser(float(pr.risk[q]), ov, tuple(float(v) for v in chart[q]), bool(is_oracle[q]), found))
    return out


@accepts_gamma2
def minimiser_diagram(lams, *, gamma, eps=0.0, d, L, progress=None) -> dict:
    """The global minimiser against lam (`docs/MATH.md` §17's diagram), numeric (float64 profile):
    arrays ``lam``, ``risk``, ``kappa``, ``eta``, ``r`` (= sin b: r = 0 iff k in span(k*, v*)),
    ``angle`` (atan2(eta, kappa), the angle a* of k on the circle when r = 0) and ``is_oracle``. A
    sampled statement about r = 0 (every lam of ``lams``), not a proof. The lams in batches of 16
    (:func:`minimise_profiles`, :func:`circle_minima`); ``progress`` counts them."""
    lams = V.as_finite("lams", lams)
    if lams.ndim != 1 or lams.size == 0:
        raise ValueError(f"lams must be a non-empty one-dimensional sequence of lam, got shape {lams.shape}")
    bar = None
    if progress is not None:
        from tqdm.auto import tqdm

        bar = tqdm(total=lams.size, desc="minimiser diagram", file=progress, mininterval=0.5)
    rows = []
    for lo in range(0, lams.size, 16):
        part = lams[lo:lo + 16]
        found = minimise_profiles(part, gamma=gamma, eps=eps, d=d, L=L)
        circle = circle_minima(part, gamma=gamma, eps=eps, d=d, L=L)
        for g, (c, _) in zip(found, circle):
            kappa, eta = angle_chart(*g.chart)
            rows.append((g.risk, kappa, eta, np.sin(g.chart[1]), g.is_oracle, c))
        if bar is not None:
            bar.update(part.size)
    if bar is not None:
        bar.close()
    risk, kappa, eta, r, orc, circle = (np.array(x) for x in zip(*rows))
    return {"lam": lams, "risk": risk, "kappa": kappa, "eta": eta, "r": r, "angle": np.arctan2(eta, kappa),
            "is_oracle": orc.astype(bool), "circle_risk": circle}


@keywords_checked
def circle_minimum(*, lam, gamma, eps=0.0, d, L, n=2001):
    """(risk, angle) of the minimum of the profile on the circle k = cos(a) k* + sin(a) v*, a in
    [0, pi/2] (r = 0: k in span(k*, v*)), a one-dimensional problem: a grid of ``n`` angles, then the bracket
    around the best narrowed 16-fold at a time to 1e-12 (33 angles a step, one batched profile; `docs/MATH.md` §17).
    Equal to the global minimum exactly when a global minimiser has k in span(k*, v*)."""
    return circle_minima([lam], gamma=gamma, eps=eps, d=d, L=L, n=n)[0]


@keywords_checked
def circle_minima(lams, *, gamma, eps=0.0, d, L, n=2001) -> list:
    """:func:`circle_minimum` at each lam of ``lams``, in one batch (each lam's arithmetic as alone): [(risk, angle)]."""
    n = V.integer("n", n, 3, 10**6, why="profile evaluations")
    S = ModelSetting(gamma=gamma, eps=eps, d=d, L=L).require_d("profile")
    lam = np.array([S.at(float(x)).lam for x in np.atleast_1d(V.as_finite("lams", lams))])
    kw = S.kw()
    a = np.linspace(0.0, np.pi / 2, n)
    m = profile(np.cos(a), np.sin(a), lam=lam[:, None], **kw).risk
    i = np.argmin(m, axis=1)
    rows = np.arange(lam.size)
    best, at = m[rows, i], a[i]
    lo, hi = a[np.maximum(i - 1, 0)], a[np.minimum(i + 1, n - 1)]
    act = np.flatnonzero(hi - lo > 1e-12)
    while act.size:  # each bracket around its best angle, 33 angles at a time (one batched profile), 16x narrower
        t = np.linspace(lo[act], hi[act], 33, axis=1)
        r = profile(np.cos(t), np.sin(t), lam=lam[act, None], **kw).risk
        j = np.argmin(r, axis=1)
        k = np.arange(act.size)
        win = r[k, j] < best[act]
        best[act] = np.where(win, r[k, j], best[act])
        at[act] = np.where(win, t[k, j], at[act])
        lo[act], hi[act] = t[k, np.maximum(j - 1, 0)], t[k, np.minimum(j + 1, 32)]
        act = act[hi[act] - lo[act] > 1e-12]
    return [(float(x), float(y)) for x, y in zip(best, at)]


@accepts_gamma2
def float_global_minimum(*, lam, gamma, eps=0.0, d, L, starts=None):
    """(risk, overlaps) of the global minimiser of R_lam on S^{d-1} x S^{d-1} (one representative of
    its symmetry orbit, kappa, eta >= 0; the risk includes eps^2), through the float64 profile
    (:func:`minimise_profile`; landscape layer, tier numeric; proved: :func:`slr_verify.certify.global_minimiser`).
    ``starts`` (the stationary-point route's keyword) is accepted and ignored: the profile needs no random starts.
    ``gamma2=`` may replace ``gamma=``. `docs/MATH.md` §17."""
    if starts is not None:
        V.integer("starts", starts, 1, 100_000, why="ignored by the profile route")
    g = minimise_profile(lam=lam, gamma=gamma, eps=eps, d=d, L=L)
    return g.risk, g.overlaps
