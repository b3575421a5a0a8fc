r"""The global minimiser of R_lam and the oracle's window (reference section 13).

W(d, L, gamma, eps) = {lam : (k*, v*) is a global minimiser of R_lam on S^{d-1} x S^{d-1}}.

Two closed-form functions of lam bound it (:mod:`slr_verify.symbolic.landscape`):

* **local** -- det B(lam), B the (k towards v*, v towards k*) block of the oracle's Riemannian Hessian:
  where it changes sign the oracle stops being a local minimum;
* **crossing** -- the risk gap R(k = v*, theta*) - R(k*, v*) of the stationary family k = +-v*: where it
  is negative a point has lower risk than the oracle.

So W is contained in {det B > 0, gap > 0}. :func:`oracle_window` finds that set's component, its
end points as roots of the mechanism functions (float64 bracketing, then ``mpmath.findroot`` at 30
digits), and *verifies* the inclusion the other way with the complete search of
:func:`~.stationary.stationary_points` at lam just inside each end and at interior points: the oracle
must be the global minimum there. A window whose verification fails raises ``RuntimeError`` (the
mechanisms would not explain it).
"""
from __future__ import annotations

from dataclasses import dataclass, field

import mpmath
import numpy as np

from ..kernels.landscape import window_kernels
from ..model.params import Params
from .stationary import stationary_points

__all__ = ["global_minimum", "oracle_window", "phase_diagram", "Window", "EndPoints", "mechanism_values", "MECHANISMS"]

MECHANISMS = {
    "local": "the oracle stops being a local minimum (det B = 0: k moving towards v* and v towards k*)",
    "crossing": "the risk of the stationary point k = +-v*, kappa = nu = rho = 0, theta = theta* crosses the oracle's",
}


def global_minimum(*, lam, gamma, eps=0.0, d, L, **search):
    """(risk, overlaps) of the global minimiser of R_lam on S^{d-1} x S^{d-1} (one representative of
    its symmetry orbit; the risk includes eps^2), from the complete search of
    :func:`~.stationary.stationary_points` (refined at 40 digits)."""
    pts = stationary_points(lam=lam, gamma=gamma, eps=eps, d=d, L=L, **search)
    mins = [p for p in pts if p.kind in ("minimum", "degenerate")]
    best = min(mins, key=lambda p: p.risk)
    return best.risk, tuple(float(x) for x in best.overlaps)


def mechanism_values(lam, *, gamma, d, L):
    """(det B, trace B, family gap) at lam (float64 arrays broadcast)."""
    out = window_kernels().f64(np.asarray(lam, dtype=float), gamma, d, L)
    return tuple(np.broadcast_to(np.asarray(x, dtype=float), np.shape(lam)) for x in out)


def _mp_root(which, a, b, gamma, d, L, dps=30):
    """The root of the mechanism function ``which`` (0: det B, 2: gap) in [a, b] at ``dps`` digits
    (Illinois method on the bracket, then the secant polish of ``findroot``)."""
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
    """The oracle's window: ``lo``, ``hi`` (floats; ``lo_mp``, ``hi_mp`` at 30 digits), the
    mechanism at each end (keys of :data:`MECHANISMS`; None for an end of the scanned range),
    and the verification records (lam, oracle risk, global minimum risk, its overlaps)."""

    lo: float
    hi: float
    mechanism_lo: str | None
    mechanism_hi: str | None
    lo_mp: object = None
    hi_mp: object = None
    verified: list = field(default_factory=list)


def oracle_window(*, gamma, eps=0.0, d, L, lam_range=(1e-4, 1e2), grid=4000, verify=5, starts=200):
    """The oracle's window W(d, L, gamma, eps) (see the module's docstring): a :class:`Window`,
    which unpacks as (lo, hi). eps does not move it (it adds eps^2 to every risk).

    ``lam_range``, ``grid``: the log-spaced scan of the mechanism functions; ``verify``: the number
    of interior lam checked by the complete search besides the two ends (0 to skip all checks)."""
    p = Params(lam=1.0, gamma=gamma, eps=eps, d=d, L=L)
    gamma, eps, d, L = p.gamma, p.eps, p.d, p.L
    lo_r, hi_r = (float(x) for x in lam_range)
    if not 0 < lo_r < hi_r:
        raise ValueError(f"lam_range must be (lo, hi) with 0 < lo < hi, got {lam_range!r}")
    lams = np.geomspace(lo_r, hi_r, int(grid))
    det, tr, gap = mechanism_values(lams, gamma=gamma, d=d, L=L)
    ok = (det > 0) & (tr > 0) & (gap > 0)
    if not ok.any():
        raise RuntimeError("the oracle is never a candidate global minimum on the scanned range")
    # the component: runs of ok; the window is one component (several would be reported)
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
    w = Window(lo, hi, m_lo, m_hi, lo_mp, hi_mp)
    if verify:
        inside = [lo * (1 + 1e-4), hi * (1 - 1e-4)] + list(np.geomspace(lo, hi, int(verify) + 2)[1:-1])
        for lam in inside:
            pts = stationary_points(lam=lam, gamma=gamma, eps=eps, d=d, L=L, starts=starts)
            best = min((q for q in pts if q.kind in ("minimum", "degenerate")), key=lambda q: q.risk)
            orc = [q for q in pts if q.name == "oracle"]
            w.verified.append({"lam": float(lam), "global_min_risk": best.risk, "global_min": best.name or
                               tuple(round(float(x), 6) for x in best.overlaps),
                               "oracle_risk": orc[0].risk if orc else None,
                               "oracle_kind": orc[0].kind if orc else None})
            if not orc or best.risk < orc[0].risk - 1e-12 * max(1.0, abs(orc[0].risk)):
                raise RuntimeError(f"at lam = {lam!r} inside the mechanisms' window the oracle is not the global "
                                   f"minimum: {w.verified[-1]}")
    return w


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
            w = oracle_window(gamma=gamma, eps=eps, d=d, L=L, lam_range=lam_range, grid=grid, verify=0)
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
