r"""The oracle's window in float64 (`docs/MATH.md` §§13 and 17): the landscape layer's answer, tier numeric.

W(d, L, gamma, eps) = {lam : (k*, v*) is a global minimiser of R_lam on S^{d-1} x S^{d-1}}.

:func:`float_window` scans {lam : the global minimiser is the oracle} on a log grid (the oracle's status by
:func:`~.float_minimiser.oracle_is_global`: the sub-grid of every third point of the chart first, for all lam at
once, a point below the oracle settling it, and the full grid only where the sub-grid sees nothing), brackets each end
by bisection, then resolves it by the mechanism read off the minimiser found just outside (not assumed):

* ``"crossing"`` -- a minimiser away from k* (e.g. the k = +-v* family, or its boundary point
  theta = 1) reaches the oracle's risk: the root of m(local min tracked from it) - R(k*, v*);
* ``"pitchfork"`` -- the minimiser just outside tends to k*: the oracle stops being a local minimum of
  m; the root of the curvature of m at k* that changes sign, along v* or along e (the two directions of
  the chart around k*), in closed form: the implicit-function theorem on the TRS's KKT system
  (:func:`slr_verify.symbolic.profile_oracle.oracle_curvature`, `docs/MATH.md` §17), its signs read in mpmath
  at the precision that resolves them (the curvature along e is erfc-sized).

The same window elsewhere: proved by ball arithmetic, :func:`slr_verify.certify.oracle_window` (the certify layer,
which starts from this float window); at 30 digits by the mpmath profile alone,
:func:`slr_verify.landscape.ends_mp.ends_mp`; from the closed-form mechanism functions alone, which assume the
mechanisms, :mod:`.mechanisms`. The claim ``oracle-window`` compares them.
"""
from __future__ import annotations

import copy
import math
from dataclasses import dataclass, field

import mpmath
import numpy as np
from scipy.optimize import brentq

from ..kernels.generated import oracle_kernel
from ..kernels.profile import oracle_curvature_kernels
from ..model import tiers as T
from ..model import validation as V
from ..model.params import ModelSetting, accepts_gamma2
from .float_minimiser import (
    TIE_RTOL,
    local_minimum,
    minimise_profile,
    minimiser_diagram,
    oracle_is_global,
    oracles_are_global,
)
from .stationary import stationary_points

MECHANISMS = {
    "pitchfork": "the oracle stops being a local minimum (a curvature of the profile at k* crosses 0: a pitchfork)",
    "crossing": "the risk of a minimiser away from k* crosses the oracle's",
}


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
    """The oracle's window in float64 (tier numeric): ``lo``, ``hi`` (floats; ``lo_mp``, ``hi_mp``: mpf, the
    30-digit roots of the mechanism functions on the closed-form route of :mod:`.mechanisms`, the float ends as mpf on
    the profile route), the mechanism at each end (keys of :data:`MECHANISMS`; None for an end of the scanned range),
    and the verification records (lam, oracle risk, global minimum risk, its overlaps). `docs/MATH.md` §§13, 17."""

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
    (k*, v*, e)) from the closed form of :func:`slr_verify.symbolic.profile_oracle.oracle_curvature` (the
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
        return local_minimum((a, b), lam=lam, **kw)[0] - orc, orc

    fi, orc = F(lam_in)
    if fi > 100 * TIE_RTOL * abs(orc):  # it stays above the oracle at lam_in, away from k*: a crossing
        fo = F(lam_out)[0]
        if not fo < 0:
            raise RuntimeError(f"the competitor at lam = {lam_out!r} does not cross the oracle in [{lam_in}, {lam_out}]: "
                               f"{fi}, {fo}")
        x = brentq(lambda lam: F(lam)[0], min(lam_in, lam_out), max(lam_in, lam_out), xtol=1e-15, rtol=1e-15)
        return x, "crossing", {"competitor": g.overlaps, "at": lam_out, "chart": (a, b)}
    # it merges into k* at lam_in: the oracle stops being a local minimum
    inner = lam_in
    while abs(math.log(inner / lam_out)) <= 0.5:
        for direction in (0, 1):  # the direction whose curvature changes sign: towards v* or towards e
            if _resolved(inner, kw, direction) > 0 > _resolved(lam_out, kw, direction):
                x = _curvature_root(direction, inner, lam_out, kw)
                return x, "pitchfork", {"direction": ("v*", "e")[direction], "competitor": g.overlaps, "at": lam_out}
        # near a supercritical pitchfork the branch's risk is the oracle's to O((lam - end)^2): the status bisection
        # can stop on the far side of the curvature's root (at gamma^2 = 3/2, d = 20, L = 3 both its ends were past
        # it); the bracket widens into W, its log-width doubled, up to a factor e^0.5
        inner = inner * (inner / lam_out)
    raise RuntimeError(f"no curvature of the profile at k* changes sign in [{lam_in}, {lam_out}] nor in a bracket "
                       "widened into W")


@accepts_gamma2
def float_window(*, gamma, eps=0.0, d, L, lam_range=(1e-4, 1e2), grid=31, verify=0, starts=200, rtol=1e-3):
    """The oracle's window W(d, L, gamma, eps) through the float64 profile (see the module's docstring; landscape
    layer, tier numeric; the ends proved: :func:`slr_verify.certify.oracle_window`): a :class:`Window`, which unpacks
    as (lo, hi). eps does not move it (it adds eps^2 to every risk).

    ``lam_range``, ``grid``: the log-spaced scan of the oracle's status; ``rtol``: the relative
    bracket of the bisection before the end is resolved by its mechanism; ``verify``: the number of
    interior lam checked by the independent stationary-point search (with ``starts``) besides lam just
    inside the two ends (0: none). ``ValueError`` (naming ``lam_range`` and the setting) where the oracle is never the
    global minimum on the scan, where its set of lam is not one interval there, or where an end cannot be resolved to
    the route's accuracy."""
    key = repr((gamma, eps, d, L, tuple(lam_range) if isinstance(lam_range, (list, tuple)) else lam_range, grid, verify,
                starts, rtol))
    if key not in _WINDOWS:  # a deterministic function of its arguments: computed once per process (several claims and
        _WINDOWS[key] = _float_window(gamma, eps, d, L, lam_range, grid, verify, starts, rtol)  # tests ask for Figure 4b's)
    return copy.deepcopy(_WINDOWS[key])


_WINDOWS: dict = {}


def _float_window(gamma, eps, d, L, lam_range, grid, verify, starts, rtol):
    p = ModelSetting(gamma=gamma, eps=eps, d=d, L=L).require_d("profile")
    kw = p.kw()
    lo_r, hi_r = V.interval("lam_range", lam_range, minimum=0, strict_min=True)
    grid = V.integer("grid", grid, 3, 100_000, why="one profile minimisation per point")
    verify = V.integer("verify", verify, 0, 1000, why="one stationary-point search each")
    starts = V.integer("starts", starts, 1, 100_000, why="memory of the multistart search")
    rtol = V.real("rtol", rtol, minimum=0, strict_min=True, maximum=0.5)
    lams = np.geomspace(lo_r, hi_r, grid)
    ok = oracles_are_global(lams, **kw)  # the sub-grid first for every lam at once, the full grid for the others
    at = f"at d = {p.d:g}, L = {p.L:g}, gamma = {p.gamma:g}"
    if not ok.any():
        raise ValueError(f"lam_range {(lo_r, hi_r)}: the oracle is never the global minimum on the scanned range {at} "
                         "(no window there: widen lam_range)")
    idx = np.flatnonzero(ok)
    if np.any(np.diff(idx) != 1):
        raise ValueError(f"lam_range {(lo_r, hi_r)}: the oracle's window is not one interval on the scan {at}: "
                         f"{lams[ok].tolist()}")
    i0, i1 = idx[0], idx[-1]
    rec = {}
    try:
        if i0 > 0:
            lo, m_lo, rec["lo"] = _end(lams[i0], lams[i0 - 1], kw, rtol)
        else:
            lo, m_lo = float(lams[0]), None
        if i1 < len(lams) - 1:
            hi, m_hi, rec["hi"] = _end(lams[i1], lams[i1 + 1], kw, rtol)
        else:
            hi, m_hi = float(lams[-1]), None
    except RuntimeError as e:  # an end the route cannot resolve to its stated accuracy: refused, with the setting
        raise ValueError(f"{at}: {e}") from None
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


@accepts_gamma2
def oracle_beaten_inside(window, n, *, gamma, eps=0.0, d, L):
    """W sampled from inside (`docs/MATH.md` §§13, 17; tier numeric): ``n`` log-spaced lam from lo (1 + 1e-4) to
    hi (1 - 1e-4) of ``window`` (a :class:`Window`, or any (lo, hi) with attributes ``lo``, ``hi``), and the list of
    those (floats) where the float64 profile finds a point below the oracle (:func:`~.float_minimiser.oracle_is_global`
    false; its ties within TIE_RTOL go to the oracle). Inside the true window the list is empty. Returns (lams, beaten)."""
    n = V.integer("n", n, 1, 100_000, why="one profile minimisation each")
    inside = np.geomspace(window.lo * (1 + 1e-4), window.hi * (1 - 1e-4), n)
    won = oracles_are_global(inside, gamma=gamma, eps=eps, d=d, L=L)
    return inside, [float(lam) for lam, ok in zip(inside, won) if not ok]


@accepts_gamma2
def diagram_against_window(lams, window, *, gamma, eps=0.0, d, L):
    """The float64 global-minimiser diagram (:func:`~.float_minimiser.minimiser_diagram` at ``lams``) read against
    ``window`` (the :class:`Window` at the same setting), `docs/MATH.md` §17; tier numeric, at the sampled lam only.
    Returns a dict:

    * ``largest_r``: the largest r of the 2-D search (resolved to ~1e-6 only: m grows like r^2 with a small curvature);
    * ``circle_gap``: the largest (circle minimum - global minimum) / |global minimum|; float64 resolves the risk to
      ~1e-15, so a value at that level says every sampled global minimiser has k in span(k*, v*);
    * ``wrong_branch``: the number of sampled lam below W whose minimiser's angle a* differs from 90 degrees by more
      than 1e-6, plus those strictly inside W whose minimiser is not the oracle (0 on the diagram of §17);
    * ``pitchfork_hi``: whether W's upper end is the oracle's loss of local minimality towards v* (mechanism
      ``"pitchfork"`` along v*), not a crossing with a far minimiser."""
    D = minimiser_diagram(lams, gamma=gamma, eps=eps, d=d, L=L)
    below, inside = D["lam"] < window.lo, (D["lam"] > window.lo) & (D["lam"] < window.hi)
    rec = window.mechanism_records.get("hi", {})
    return {
        "largest_r": float(D["r"].max()),
        "circle_gap": float(np.max((D["circle_risk"] - D["risk"]) / np.abs(D["risk"]))),
        "wrong_branch": int(np.sum(below & (np.abs(D["angle"] - np.pi / 2) > 1e-6)) + np.sum(inside & ~D["is_oracle"])),
        "pitchfork_hi": bool(window.mechanism_hi == "pitchfork" and rec.get("direction") == "v*"),
    }
