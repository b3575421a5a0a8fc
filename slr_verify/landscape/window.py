r"""The global minimiser of R_lam and the oracle's window (`docs/MATH.md` §§13 and 17).

W(d, L, gamma, eps) = {lam : (k*, v*) is a global minimiser of R_lam on S^{d-1} x S^{d-1}}.

**Global minimum** (:func:`global_minimum`). min over S^{d-1} x S^{d-1} of R_lam is the minimum of the
profile m_lam(kappa, eta) (:mod:`.trs`) over the quarter disk, a two-dimensional problem:
a grid in the angle chart kappa = cos(b) cos(a), eta = cos(b) sin(a), r = sin(b) (a, b in [0, pi/2]),
every grid local minimum refined by a vectorised pattern search (:func:`_zoom`), the oracle
(a = b = 0) always a candidate, and candidates that float64 cannot separate compared by the mpmath
profile at 40 to 320 digits (the flat valley nu = 1 of `docs/MATH.md` §17, where m - R(k*, v*) is
1e-15 to 1e-44). No random starts.

**Window** (:func:`oracle_window`). The set {lam : the global minimiser is the oracle} scanned on a
log grid, each end bracketed by bisection, then resolved by the mechanism read off the minimiser
found just outside (not assumed):

* ``"crossing"`` -- a minimiser away from k* (e.g. the k = +-v* family, or its boundary point
  theta = 1) reaches the oracle's risk: the root of m(local min tracked from it) - R(k*, v*);
* ``"local"`` -- the minimiser just outside tends to k*: the oracle stops being a local minimum of
  m; the root of the curvature of m at k* that changes sign, along v* or along e (the two directions of
  the chart around k*), in closed form: the implicit-function theorem on the TRS's KKT system
  (:func:`slr_verify.symbolic.profile.oracle_curvature`, `docs/MATH.md` §17), its signs read in mpmath
  at the precision that resolves them (the curvature along e is erfc-sized).

The oracle's status at a lam is a grid statement (:func:`oracle_is_global`); the scan tries the
sub-grid of every third point first, for all lam at once (a point below the oracle settles it), and the
full grid only where the sub-grid sees nothing (timings: `docs/findings.md`).

The closed-form mechanism functions (det B of the oracle's Hessian block, the gap of the k = +-v* family
at its stationary theta*; :func:`mechanism_values`) are an independent check, and :func:`phase_diagram`
scans them over (d, L) (they assume the mechanisms). The ends proved: :func:`slr_verify.certify.oracle_window`;
at 30 digits by the mpmath profile alone: :func:`slr_verify.landscape.ends_mp.ends_mp`.
"""
from __future__ import annotations

from dataclasses import dataclass, field

import mpmath
import numpy as np
from scipy.optimize import brentq

from ..kernels.generated import oracle_kernel
from ..kernels.landscape import window_kernels
from ..kernels.profile import oracle_curvature_kernels
from ..model import tiers as T
from ..model import validation as V
from ..model.params import Params, accepts_gamma2
from .stationary import stationary_points
from .trs import profile, solve_trs, trs_matrices

__all__ = [
    "MECHANISMS",
    "EndPoints",
    "GlobalMinimiser",
    "Window",
    "angle_chart",
    "global_minimum",
    "local_minimum",
    "mechanism_values",
    "minimise_profile",
    "minimiser_diagram",
    "oracle_is_global",
    "oracle_window",
    "phase_diagram",
]

MECHANISMS = {
    "local": "the oracle stops being a local minimum (a curvature of the profile at k* crosses 0: a pitchfork)",
    "crossing": "the risk of a minimiser away from k* crosses the oracle's",
}


def angle_chart(a, b):
    """(kappa, eta) of the angle chart kappa = cos(b) cos(a), eta = cos(b) sin(a) (r = sin(b))."""
    return np.cos(b) * np.cos(a), np.cos(b) * np.sin(a)


def _zoom(a, b, h, kw, h_min=1e-11, iters=400):
    """Local minima of m from the seeds (a, b) (arrays) by a pattern search on the angle chart, all
    seeds at once: a 5 x 5 stencil of spacing h around each seed (clipped to [0, pi/2]^2), the seed
    moved to the stencil's best point, h divided by 3 when the best is the centre. Returns (m, a, b)."""
    a, b = np.atleast_1d(np.asarray(a, dtype=float)).copy(), np.atleast_1d(np.asarray(b, dtype=float)).copy()
    h = np.full(a.shape, float(h))
    off = np.arange(-2, 3, dtype=float)
    da, db = (x.ravel() for x in np.meshgrid(off, off, indexing="ij"))
    m = profile(*angle_chart(a, b), **kw).risk
    act = np.flatnonzero(h >= h_min)
    for _ in range(int(iters)):
        if act.size == 0:
            break
        # only the seeds not yet converged (h >= h_min) are moved
        A = np.clip(a[act, None] + h[act, None] * da, 0.0, np.pi / 2)
        B = np.clip(b[act, None] + h[act, None] * db, 0.0, np.pi / 2)
        M = profile(*angle_chart(A, B), **kw).risk
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


def local_minimum(chart, *, lam, gamma, eps=0.0, d, L):
    """The profile's local minimum reached from ``chart`` = (a, b) of the angle chart (a pattern search in float64):
    (m, (a, b)). A crossing end's competitor is followed this way from where it was found
    (``Window.mechanism_records["lo"]["chart"]``)."""
    p = Params(lam=lam, gamma=gamma, eps=eps, d=d, L=L).kw()
    m, a, b = _local_min(float(chart[0]), float(chart[1]), p)
    return m, (a, b)


@dataclass
class GlobalMinimiser:
    """The global minimiser of R_lam: ``risk`` (float64), ``overlaps`` (kappa, nu, theta, eta, rho) of
    the representative with kappa, eta >= 0, ``chart`` (a, b), ``is_oracle`` and the other local
    minima of the profile found (``candidates``: (risk, kappa, eta), sorted)."""

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


def _chart_grid(na, nb):
    return np.meshgrid(np.linspace(0, np.pi / 2, na), np.linspace(0, np.pi / 2, nb), indexing="ij")


def _coarse(grid):
    """The sub-grid of every third point of ``grid`` (a subset of its points when grid[i] = 1 mod 3)."""
    return tuple((n - 1) // 3 + 1 if (n - 1) % 3 == 0 else n for n in grid)


def _below_oracle(lams, kw, grid):
    """For each lam of ``lams`` (an array: one batched TRS for all of them), whether some point of the
    ``grid`` of the angle chart has m below the oracle's risk by more than ``TIE_RTOL`` (relative)."""
    lams = np.asarray(lams, dtype=float)
    for x in lams:
        Params(lam=float(x), **kw)
    A, B = _chart_grid(*grid)
    k, e = angle_chart(A.ravel(), B.ravel())
    kappa = np.concatenate([[1.0], k])
    eta = np.concatenate([[0.0], e])
    r = np.sqrt(np.clip(1 - kappa**2 - eta**2, 0.0, None))
    c, H, g = trs_matrices(kappa[None], eta[None], r[None], lams[:, None], kw["gamma"], kw["eps"], int(kw["d"]), int(kw["L"]))
    m = solve_trs(c, H, g, min(int(kw["d"]), 4))[0]
    orc = m[:, :1]
    return np.any(m[:, 1:] < orc - TIE_RTOL * np.abs(orc), axis=1)


def oracle_is_global(*, lam, gamma, eps=0.0, d, L, grid=(91, 46)) -> bool:
    """Whether the oracle is the global minimiser of R_lam (float64, ties to ``TIE_RTOL`` go to the
    oracle): False as soon as a point of the chart ``grid`` is below it (the sub-grid of every third point
    tried first: cheap where the answer is False), else True (:func:`minimise_profile` then has no seed:
    it zooms only from grid local minima below the oracle). A grid statement: a basin of m below the
    oracle that no grid point enters is not seen (`docs/MATH.md` §17; the ball-tier decision is
    :func:`slr_verify.certify.global_minimiser`)."""
    kw = Params(lam=lam, gamma=gamma, eps=eps, d=d, L=L).kw()
    lam = kw.pop("lam")
    for g in dict.fromkeys((_coarse(grid), tuple(grid))):
        if _below_oracle([lam], kw, g)[0]:
            return False
    return True


@accepts_gamma2
def minimise_profile(*, lam, gamma, eps=0.0, d, L, grid=(91, 46), seeds=8) -> GlobalMinimiser:
    """The global minimiser of R_lam on S^{d-1} x S^{d-1} through the profile (see the module): the
    ``seeds`` best grid local minima of m on a ``grid`` of the angle chart, refined together by :func:`_zoom`,
    and the oracle. A candidate within ``TIE_RTOL`` (relative) of the oracle's risk is a tie that
    float64 cannot break (the flat valley nu = 1, where m - R(k*, v*) is 1e-15 to 1e-44): the oracle
    is reported, and only :func:`slr_verify.certify.global_minimiser` decides such a tie rigorously."""
    p = Params(lam=lam, gamma=gamma, eps=eps, d=d, L=L)
    kw = p.kw()
    na, nb = (V.integer(f"grid[{i}]", x, 3, 10_000, why="the profile on the chart grid") for i, x in enumerate(grid))
    seeds = V.integer("seeds", seeds, 1, 1000)
    A, B = _chart_grid(na, nb)
    m = profile(*angle_chart(A, B), **kw).risk
    orc = float(profile(1.0, 0.0, **kw).risk)
    P = np.pad(m, 1, constant_values=np.inf)
    loc = np.ones_like(m, dtype=bool)
    for di in (-1, 0, 1):
        for dj in (-1, 0, 1):
            if di or dj:
                loc &= m <= P[1 + di:1 + di + na, 1 + dj:1 + dj + nb]
    loc &= m < orc - TIE_RTOL * abs(orc)  # grid points tied with the oracle: the valley's float noise
    best_seeds = sorted(zip(*np.nonzero(loc)), key=lambda ij: m[ij])[:int(seeds)]
    cands = []
    if best_seeds:
        i, j = (np.array(x) for x in zip(*best_seeds))
        ms, As, Bs = _zoom(A[i, j], B[i, j], np.pi / 2 / (na - 1), kw)
        cands = [(float(x), float(y), float(z)) for x, y, z in zip(ms, As, Bs) if x < orc - TIE_RTOL * abs(orc)]
    cands.append((orc, 0.0, 0.0))  # the oracle, always a candidate, and the winner of ties
    cands.sort()
    _r, a, b = cands[0]
    is_oracle = a < _ORACLE_TOL and b < _ORACLE_TOL
    k, e = angle_chart(a, b)
    pr = profile(k, e, **kw)
    ov = (1.0, 1.0, 0.0, 0.0, 0.0) if is_oracle else tuple(float(x) for x in pr.overlaps[()])
    out = [(c[0], *(float(x) for x in angle_chart(c[1], c[2]))) for c in cands]
    return GlobalMinimiser(float(pr.risk), ov, (a, b), bool(is_oracle), out)


def minimiser_diagram(lams, *, gamma, eps=0.0, d, L, progress=None) -> dict:
    """The global minimiser against lam (`docs/MATH.md` §17's diagram), numeric (float64 profile):
    arrays ``lam``, ``risk``, ``kappa``, ``eta``, ``r`` (= sin b: r = 0 iff k in span(k*, v*)),
    ``angle`` (atan2(eta, kappa), the angle a* of k on the circle when r = 0) and ``is_oracle``. A
    sampled statement about r = 0 (every lam of ``lams``), not a proof."""
    lams = np.asarray(lams, dtype=float)
    it = lams
    if progress is not None:
        from tqdm.auto import tqdm

        it = tqdm(lams, desc="minimiser diagram", file=progress, mininterval=0.5)
    rows = []
    for lam in it:
        g = minimise_profile(lam=float(lam), gamma=gamma, eps=eps, d=d, L=L)
        kappa, eta = angle_chart(*g.chart)
        circle = circle_minimum(lam=float(lam), gamma=gamma, eps=eps, d=d, L=L)[0]
        rows.append((g.risk, kappa, eta, np.sin(g.chart[1]), g.is_oracle, circle))
    risk, kappa, eta, r, orc, circle = (np.array(x) for x in zip(*rows))
    return {"lam": lams, "risk": risk, "kappa": kappa, "eta": eta, "r": r, "angle": np.arctan2(eta, kappa),
            "is_oracle": orc.astype(bool), "circle_risk": circle}


def circle_minimum(*, lam, gamma, eps=0.0, d, L, n=2001):
    """(risk, angle) of the minimum of the profile on the circle k = cos(a) k* + sin(a) v*, a in
    [0, pi/2] (r = 0: k in span(k*, v*)), a one-dimensional problem: a grid of ``n`` angles, then a
    bounded scalar minimisation around the best (`docs/MATH.md` §17). Equal to the global minimum
    exactly when a global minimiser has k in span(k*, v*)."""
    from scipy.optimize import minimize_scalar

    n = V.integer("n", n, 3, 10**6, why="profile evaluations")
    kw = Params(lam=lam, gamma=gamma, eps=eps, d=d, L=L).kw()
    a = np.linspace(0.0, np.pi / 2, n)
    m = profile(np.cos(a), np.sin(a), **kw).risk
    i = int(np.argmin(m))
    lo, hi = a[max(i - 1, 0)], a[min(i + 1, n - 1)]
    f = lambda t: float(profile(np.cos(t), np.sin(t), **kw).risk)
    res = minimize_scalar(f, bounds=(lo, hi), method="bounded", options={"xatol": 1e-12})
    return (float(res.fun), float(res.x)) if res.fun < m[i] else (float(m[i]), float(a[i]))


@accepts_gamma2
def global_minimum(*, lam, gamma, eps=0.0, d, L, starts=None):
    """(risk, overlaps) of the global minimiser of R_lam on S^{d-1} x S^{d-1} (one representative of
    its symmetry orbit, kappa, eta >= 0; the risk includes eps^2), through the profile
    (:func:`minimise_profile`). ``starts`` (the stationary-point route's keyword) is accepted and
    ignored: the profile needs no random starts. ``gamma2=`` may replace ``gamma=``."""
    if starts is not None:
        V.integer("starts", starts, 1, 100_000, why="ignored by the profile route")
    g = minimise_profile(lam=lam, gamma=gamma, eps=eps, d=d, L=L)
    return g.risk, g.overlaps


def mechanism_values(lam, *, gamma, d, L):
    """(det B, trace B, family gap) at lam (float64 arrays broadcast): the closed-form mechanism
    functions (an independent check; they assume the mechanisms)."""
    out = window_kernels().f64(np.asarray(lam, dtype=float), gamma, d, L)
    return tuple(np.broadcast_to(np.asarray(x, dtype=float), np.shape(lam)) for x in out)


def _mp_root(which, a, b, gamma, d, L, dps=30):
    """The root of the closed-form mechanism function ``which`` (0: det B, 2: gap) in [a, b] at
    ``dps`` digits (Illinois method on the bracket)."""
    f = window_kernels().mp
    with mpmath.workdps(dps):
        g = mpmath.mpf(gamma)
        fun = lambda x: f(x, g, d, L)[which]
        a, b = mpmath.mpf(a), mpmath.mpf(b)
        x = mpmath.findroot(fun, (a, b), solver="illinois", tol=mpmath.mpf(10) ** (-2 * dps + 4), verify=False)
        # findroot's own check compares |f(x)|^2 with an absolute tolerance, which fails where the
        # mechanism function is large; check instead that x is in the bracket and f is at rounding size there
        scale = max(abs(fun(a)), abs(fun(b)))
        if not (a <= x <= b and abs(fun(x)) <= scale * mpmath.mpf(10) ** (-dps + 6)):
            raise RuntimeError(f"no root of mechanism {which} found in [{a}, {b}]")
        return x


class EndPoints:
    """Unpacks as (lo, hi): ``lo, hi = window``."""

    def __iter__(self):
        return iter((self.lo, self.hi))

    def __getitem__(self, i):
        return (self.lo, self.hi)[i]

    def __len__(self):
        return 2


@dataclass
class Window(EndPoints):
    """The oracle's window: ``lo``, ``hi`` (floats; ``lo_mp``, ``hi_mp``: mpf, the 30-digit roots of the mechanism
    functions on the closed-form route :func:`_mechanism_window`, the float ends as mpf on the profile route), the
    mechanism at each end (keys of :data:`MECHANISMS`; None for an end of the scanned range),
    and the verification records (lam, oracle risk, global minimum risk, its overlaps)."""

    lo: float
    hi: float
    mechanism_lo: str | None
    mechanism_hi: str | None
    lo_mp: object = None
    hi_mp: object = None
    verified: list = field(default_factory=list)
    mechanism_records: dict = field(default_factory=dict)

    #: what the answer rests on (`slr_verify.model.tiers`)
    tier = (f"{T.NUMERIC}: the float64 profile's global minimiser scanned and bisected, each end resolved by its "
            "mechanism (certify.oracle_window proves the ends)")


def _curvatures_mp(lam, kw, dps=30):
    """[m'' along v*, m'' along e, H11 - mu0, H33 - mu0] at k* (the chart k = (sqrt(1 - x^2 - y^2), x, y) on
    (k*, v*, e)) from the closed form of :func:`slr_verify.symbolic.profile.oracle_curvature` (the
    implicit-function theorem on the TRS's KKT system), mpmath values at ``dps`` digits. Raises unless
    H11 - mu0, H33 - mu0 > 0 (v* the TRS's nondegenerate minimiser at k*: where the formula holds)."""
    with mpmath.workdps(dps):
        out = oracle_curvature_kernels().mp(mpmath.mpf(lam), mpmath.mpf(kw["gamma"]), mpmath.mpf(kw["eps"]),
                                            int(kw["d"]), int(kw["L"]))
    if not (out[2] > 0 and out[3] > 0):
        raise RuntimeError(f"v* is not the nondegenerate minimiser of the TRS at k* at lam = {lam!r}: the closed-form "
                           f"curvature does not apply (H11 - mu0 = {out[2]}, H33 - mu0 = {out[3]})")
    return out


def _resolved(lam, kw, direction, precisions=(20, 30, 45, 60, 90)):
    """The curvature along ``direction`` at k*, mpmath, at the first of ``precisions`` whose value agrees
    with the previous one to 1e-8 relative (the curvature along e is erfc-sized, 1e-14 to 1e-86 at d = 400,
    float64 cancels it and 20 digits give it to 5e-6 at lam = 0.89); raises if none does."""
    prev = None
    for p in precisions:
        cur = _curvatures_mp(lam, kw, p)[direction]
        if prev is not None and abs(cur - prev) <= 1e-8 * abs(cur):
            return cur
        prev = cur
    raise RuntimeError(f"the curvature of the profile at k* is not resolved at {p} digits at lam = {lam!r}")


def _curvature_root(direction, lam_in, lam_out, kw):
    """The root of the profile's curvature at k* along ``direction`` (0: v*, 1: e) between lam_in (> 0) and
    lam_out (< 0): brentq on the float64 closed form where its signs at the two ends agree with the mpmath
    ones (then checked by the mpmath form at x (1 -+ 1e-10)), else mpmath's Illinois method at 30 digits."""
    a, b = sorted((lam_in, lam_out))
    f64 = oracle_curvature_kernels().f64
    args = (kw["gamma"], kw["eps"], kw["d"], kw["L"])
    c = lambda lam: float(f64(lam, *args)[direction])
    if c(lam_in) > 0 > c(lam_out):
        x = brentq(c, a, b, xtol=1e-15, rtol=1e-14)
        s = (_resolved(x * (1 - 1e-10), kw, direction), _resolved(x * (1 + 1e-10), kw, direction))
        if (s[0] > 0 > s[1]) == (lam_in < lam_out) and s[0] * s[1] < 0:
            return x
    fm = oracle_curvature_kernels().mp
    with mpmath.workdps(30):
        fun = lambda lam: fm(lam, mpmath.mpf(kw["gamma"]), mpmath.mpf(kw["eps"]), int(kw["d"]), int(kw["L"]))[direction]
        x = mpmath.findroot(fun, (mpmath.mpf(a), mpmath.mpf(b)), solver="illinois", tol=mpmath.mpf(10) ** -40, verify=False)
        if not a <= x <= b:
            raise RuntimeError(f"the curvature root along {('v*', 'e')[direction]} left its bracket [{a}, {b}]: {x}")
        return float(x)


def _end(lam_in, lam_out, kw, rtol):
    """Bisect the oracle's status between lam_in (oracle global) and lam_out (not), then resolve the end
    by the mechanism read off the minimiser just outside. Returns (end, mechanism, record)."""
    is_orc = lambda lam: oracle_is_global(lam=lam, **kw)
    while abs(np.log(lam_out / lam_in)) > rtol:
        mid = float(np.sqrt(lam_in * lam_out))
        if is_orc(mid):
            lam_in = mid
        else:
            lam_out = mid
    g = minimise_profile(lam=lam_out, **kw)
    a, b = g.chart

    def F(lam):  # the competitor's local minimum, followed from lam_out, minus the oracle's risk
        orc = float(oracle_kernel()(lam, kw["gamma"], kw["eps"], kw["d"], kw["L"]))
        return _local_min(a, b, dict(kw, lam=lam))[0] - orc, orc

    fi, orc = F(lam_in)
    if fi > 100 * TIE_RTOL * abs(orc):  # it stays above the oracle at lam_in, away from k*: a crossing
        fo = F(lam_out)[0]
        if not fo < 0:
            raise RuntimeError(f"the competitor at lam = {lam_out!r} does not cross the oracle in [{lam_in}, {lam_out}]: "
                               f"{fi}, {fo}")
        x = brentq(lambda lam: F(lam)[0], min(lam_in, lam_out), max(lam_in, lam_out), xtol=1e-15, rtol=1e-15)
        return x, "crossing", {"competitor": g.overlaps, "at": lam_out, "chart": (a, b)}
    # it merges into k* at lam_in: the oracle stops being a local minimum
    for direction in (0, 1):  # the direction whose curvature changes sign: towards v* or towards e
        if _resolved(lam_in, kw, direction) > 0 > _resolved(lam_out, kw, direction):
            break
    else:
        raise RuntimeError(f"no curvature of the profile at k* changes sign in [{lam_in}, {lam_out}]")
    x = _curvature_root(direction, lam_in, lam_out, kw)
    return x, "local", {"direction": ("v*", "e")[direction], "competitor": g.overlaps, "at": lam_out}


@accepts_gamma2
def oracle_window(*, gamma, eps=0.0, d, L, lam_range=(1e-4, 1e2), grid=31, verify=0, starts=200, rtol=1e-3):
    """The oracle's window W(d, L, gamma, eps) through the profile (see the module's docstring): a
    :class:`Window`, which unpacks as (lo, hi). eps does not move it (it adds eps^2 to every risk).

    ``lam_range``, ``grid``: the log-spaced scan of the oracle's status; ``rtol``: the relative
    bracket of the bisection before the end is resolved by its mechanism; ``verify``: the number of
    interior lam checked by the independent stationary-point search (with ``starts``) besides lam just
    inside the two ends (0: none)."""
    p = Params(lam=1.0, gamma=gamma, eps=eps, d=d, L=L)
    kw = p.kw()
    kw.pop("lam")
    lo_r, hi_r = V.interval("lam_range", lam_range, minimum=0, strict_min=True)
    grid = V.integer("grid", grid, 3, 100_000, why="one profile minimisation per point")
    verify = V.integer("verify", verify, 0, 1000, why="one stationary-point search each")
    starts = V.integer("starts", starts, 1, 100_000, why="memory of the multistart search")
    rtol = V.real("rtol", rtol, minimum=0, strict_min=True, maximum=0.5)
    lams = np.geomspace(lo_r, hi_r, grid)
    # the sub-grid decides every lam where one of its points is below the oracle (all at once); the full
    # grid decides the others
    ok = ~_below_oracle(lams, kw, _coarse((91, 46)))
    ok[ok] = [oracle_is_global(lam=lam, **kw) for lam in lams[ok]]
    if not ok.any():
        raise RuntimeError("the oracle is never the global minimum on the scanned range")
    idx = np.flatnonzero(ok)
    if np.any(np.diff(idx) != 1):
        raise RuntimeError(f"the oracle's window is not one interval on the scan: {lams[ok].tolist()}")
    i0, i1 = idx[0], idx[-1]
    rec = {}
    if i0 > 0:
        lo, m_lo, rec["lo"] = _end(lams[i0], lams[i0 - 1], kw, rtol)
    else:
        lo, m_lo = float(lams[0]), None
    if i1 < len(lams) - 1:
        hi, m_hi, rec["hi"] = _end(lams[i1], lams[i1 + 1], kw, rtol)
    else:
        hi, m_hi = float(lams[-1]), None
    w = Window(float(lo), float(hi), m_lo, m_hi, mpmath.mpf(lo), mpmath.mpf(hi), mechanism_records=rec)
    if verify:
        inside = [lo * (1 + 1e-4), hi * (1 - 1e-4)] + list(np.geomspace(lo, hi, int(verify) + 2)[1:-1])
        for lam in inside:
            pts = stationary_points(lam=lam, gamma=p.gamma, eps=p.eps, d=p.d, L=p.L, starts=starts)
            best = min((q for q in pts if q.kind in ("minimum", "degenerate")), key=lambda q: q.risk)
            orc = [q for q in pts if q.name == "oracle"]
            w.verified.append({"lam": float(lam), "global_min_risk": best.risk, "global_min": best.name or
                               tuple(round(float(x), 6) for x in best.overlaps),
                               "oracle_risk": orc[0].risk if orc else None,
                               "oracle_kind": orc[0].kind if orc else None})
            if not orc or best.risk < orc[0].risk - 1e-12 * max(1.0, abs(orc[0].risk)):
                raise RuntimeError(f"at lam = {lam!r} inside the profile's window the stationary-point search finds a point "
                                   f"below the oracle: {w.verified[-1]}")
    return w


def _mechanism_window(*, gamma, d, L, lam_range, grid):
    """The window read off the closed-form mechanism functions alone (det B, the family gap), which
    assume the two mechanisms; :func:`phase_diagram` scans it over (d, L)."""
    lams = np.geomspace(*lam_range, int(grid))
    det, tr, gap = mechanism_values(lams, gamma=gamma, d=d, L=L)
    ok = (det > 0) & (tr > 0) & (gap > 0)
    if not ok.any():
        raise RuntimeError("the oracle is never a candidate global minimum on the scanned range")
    edges = np.flatnonzero(np.diff(ok.astype(int)))
    starts_ = [0] if ok[0] else []
    starts_ += [e + 1 for e in edges if not ok[e]]
    comps = [(s, s + int(np.argmin(ok[s:])) - 1 if not ok[s:].all() else len(ok) - 1) for s in starts_]
    if len(comps) != 1:
        raise RuntimeError(f"the candidate set has {len(comps)} components: {[(lams[a], lams[b]) for a, b in comps]}")
    i0, i1 = comps[0]

    def end(i_in, i_out):
        if i_out < 0 or i_out >= len(lams):
            return float(lams[i_in]), None, None
        a, b = sorted((lams[i_in], lams[i_out]))
        which = 0 if (det[i_out] <= 0 or tr[i_out] <= 0) else 2
        x = _mp_root(which, a, b, gamma, d, L)
        return float(x), ("local" if which == 0 else "crossing"), x

    lo, m_lo, lo_mp = end(i0, i0 - 1)
    hi, m_hi, hi_mp = end(i1, i1 + 1)
    return Window(lo, hi, m_lo, m_hi, lo_mp, hi_mp)


def phase_diagram(d_values, L_values, *, gamma, eps=0.0, lam_range=(1e-4, 1e2), grid=4000, progress=None):
    """The window W(d, L) over a grid (mechanisms only, ``verify=0``): an ``xarray.Dataset`` with
    ``lo``, ``hi`` (NaN where unresolved), ``mechanism_lo``, ``mechanism_hi`` and ``status`` over
    (d, L). ``status`` is ``"ok"``; ``"open above"`` when the candidate set reaches the scan's upper
    end (hi is then the scan limit, a lower bound); ``"unresolved"`` when the candidate set is not one
    interval in float64 (at L = 1, det B decays to round-off size ~1e-14 above lam ~ 1 and its sign
    is noise; the lower end is still reported when the crossing mechanism brackets it)."""
    import xarray as xr

    d_values = [int(Params(lam=1.0, gamma=gamma, eps=eps, d=x, L=1).d) for x in d_values]
    L_values = [int(Params(lam=1.0, gamma=gamma, eps=eps, d=2, L=x).L) for x in L_values]
    shape = (len(d_values), len(L_values))
    lo, hi = np.full(shape, np.nan), np.full(shape, np.nan)
    mlo, mhi, status = (np.full(shape, "", dtype=object) for _ in range(3))
    cells = [(i, j) for i in range(shape[0]) for j in range(shape[1])]
    if progress is not None:
        from tqdm.auto import tqdm

        cells = tqdm(cells, desc="phase diagram", file=progress, mininterval=0.5)
    for i, j in cells:
        d, L = d_values[i], L_values[j]
        try:
            w = _mechanism_window(gamma=gamma, d=d, L=L, lam_range=lam_range, grid=grid)
        except RuntimeError:
            status[i, j] = "unresolved"
            lams = np.geomspace(*lam_range, int(grid))
            gap = mechanism_values(lams, gamma=gamma, d=d, L=L)[2]
            k = np.flatnonzero((gap[:-1] <= 0) & (gap[1:] > 0))
            if k.size:
                lo[i, j], mlo[i, j] = float(_mp_root(2, lams[k[0]], lams[k[0] + 1], gamma, d, L)), "crossing"
            continue
        lo[i, j], hi[i, j] = w.lo, w.hi
        mlo[i, j], mhi[i, j] = w.mechanism_lo or "", w.mechanism_hi or ""
        status[i, j] = "open above" if w.mechanism_hi is None else "ok"
    coords = {"d": d_values, "L": L_values}
    return xr.Dataset({"lo": (("d", "L"), lo), "hi": (("d", "L"), hi),
                       "mechanism_lo": (("d", "L"), mlo.astype(str)), "mechanism_hi": (("d", "L"), mhi.astype(str)),
                       "status": (("d", "L"), status.astype(str))}, coords=coords,
                      attrs={"gamma": float(gamma), "eps": float(eps), "lam_range": list(lam_range)})
