r"""The oracle's window from the closed-form mechanism functions alone, and its phase diagram over (d, L)
(`docs/MATH.md` §13): the landscape layer, tier numeric (a float64 scan, each end a 30-digit root).

The mechanism functions (:func:`mechanism_values`: det B of the oracle's Hessian block, the gap of the k = +-v*
family at its stationary theta*) assume the two mechanisms of :data:`~.window.MECHANISMS`: an independent check of
the profile route (:func:`~.window.float_window`). :func:`phase_diagram` scans the window they give over (d, L).
"""
from __future__ import annotations

import mpmath
import numpy as np

from ..kernels.landscape import window_kernels
from ..model import validation as V
from ..model.params import accepts_gamma2, checked, keywords_checked
from .window import Window


@accepts_gamma2
def mechanism_values(lam, *, gamma, d, L):
    """(det B, trace B, family gap) at lam (float64 arrays broadcast): the closed-form mechanism
    functions (an independent check; they assume the mechanisms). ``lam``, ``d``, ``L`` broadcast together; the model's
    ranges are the model's (:func:`slr_verify.model.params.checked`, ``ValueError`` naming the parameter). `docs/MATH.md`
    §13."""
    shape = V.broadcast(lam=lam, d=d, L=L)
    lam, gamma, d, L = checked(lam=lam, gamma=gamma, d=d, L=L)
    d, L = (x if x.ndim else V.count_value(x) for x in (d, L))
    out = window_kernels().f64(lam, gamma, d, L)
    return tuple(np.broadcast_to(np.asarray(x, dtype=float), shape) for x in out)


@accepts_gamma2
def ends_change_sign(window, *, gamma, d, L, rel=1e-9):
    """Whether each end of ``window`` (a :class:`~.window.Window` of the profile route, both ends resolved by a
    mechanism) is a sign change of the closed-form mechanism function its mechanism names (det B for ``"pitchfork"``,
    the family gap for ``"crossing"``; `docs/MATH.md` §13), float64 at end (1 -+ ``rel``): from negative to positive
    across the lower end, from positive to negative across the upper one. An independent derivation of the two ends:
    it assumes the mechanisms, the profile does not. A scan-limit end (mechanism None) raises ``KeyError``."""
    lo, hi = window.lo, window.hi
    det, _, gap = mechanism_values(np.array([lo * (1 - rel), lo * (1 + rel), hi * (1 - rel), hi * (1 + rel)]), gamma=gamma,
                                   d=d, L=L)
    f = {"pitchfork": det, "crossing": gap}
    return bool((f[window.mechanism_lo][0] < 0 < f[window.mechanism_lo][1])
                and (f[window.mechanism_hi][2] > 0 > f[window.mechanism_hi][3]))


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
        return float(x), ("pitchfork" if which == 0 else "crossing"), x

    lo, m_lo, lo_mp = end(i0, i0 - 1)
    hi, m_hi, hi_mp = end(i1, i1 + 1)
    return Window(lo, hi, m_lo, m_hi, lo_mp, hi_mp)


@accepts_gamma2
def phase_diagram(d_values, L_values, *, gamma, eps=0.0, lam_range=(1e-4, 1e2), grid=4000, progress=None):
    """The window W(d, L) over a grid (mechanisms only, ``verify=0``): an ``xarray.Dataset`` with
    ``lo``, ``hi`` (NaN where unresolved), ``mechanism_lo``, ``mechanism_hi`` and ``status`` over
    (d, L). ``status`` is ``"ok"``; ``"open above"`` when the candidate set reaches the scan's upper
    end (hi is then the scan limit, a lower bound); ``"unresolved"`` when the candidate set is not one
    interval in float64 (at L = 1, det B decays to round-off size ~1e-14 above lam ~ 1 and its sign
    is noise; the lower end is still reported when the crossing mechanism brackets it). `docs/MATH.md` §13."""
    import xarray as xr

    grid = V.integer("grid", grid, 3, 10**7, why="mechanism evaluations per (d, L)")
    lam_range = V.interval("lam_range", lam_range, minimum=0, strict_min=True)
    checked(gamma=gamma, eps=eps)
    d_values = [int(checked(d=x)[0]) for x in d_values]
    L_values = [int(checked(L=x)[0]) for x in L_values]
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


@keywords_checked
def window_scaling(ds, exponents=(0.1, 0.25, 0.4)):
    """What the grid ``ds`` of :func:`phase_diagram` (its first L column the reference) says about W's ends
    (`docs/MATH.md` §13; Corollary 2's regime lam = d^-a, 0 < a < 1/2); a reading of the float grid, tier numeric.
    Returns a dict:

    * ``spread``: the largest relative spread of lo across L, max |lo(d, L) - lo(d, L_1)| / lo(d, L_1) (NaN cells
      ignored); the 30-digit roots put it at rounding level when lo does not depend on L;
    * ``inside``: for each exponent a of ``exponents``, whether lam = d^-a at the largest d lies inside W for every L
      (above lo, and below hi where the cell's status is ``"ok"``);
    * ``lo_rescaled``: lo(d, L_1) sqrt(d / log d) by d (lo ~ c sqrt(log d / d));
    * ``hi_gap``: hi - sqrt(3)/2 at the largest d, by L with status ``"ok"``;
    * ``grid``: the grid as lists (d, L, lo, hi, status); ``unresolved``: the number of unresolved cells."""
    lo = ds.lo.values
    ok = ds.status.values == "ok"
    hi = np.where(ok, ds.hi.values, np.nan)
    dmax = int(ds.d.values[-1])
    return {
        "spread": float(np.nanmax(np.abs(lo - lo[:, :1]) / lo[:, :1])),
        "inside": {a: bool(np.all((lo[-1] < dmax**-a) & ((dmax**-a < hi[-1]) | ~ok[-1]))) for a in exponents},
        "lo_rescaled": {int(d): float(lo[i, 0] * np.sqrt(d / np.log(d))) for i, d in enumerate(ds.d.values)},
        "hi_gap": {int(L): float(hi[-1, j] - np.sqrt(3) / 2) for j, L in enumerate(ds.L.values) if ok[-1, j]},
        "dmax": dmax,
        "grid": {
            "d": [int(x) for x in ds.d.values],
            "L": [int(x) for x in ds.L.values],
            "lo": [[float(x) for x in row] for row in lo],
            "hi": [[float(x) for x in row] for row in ds.hi.values],
            "status": [list(row) for row in ds.status.values],
        },
        "unresolved": int(np.sum(ds.status.values == "unresolved")),
    }
