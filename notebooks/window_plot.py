"""The window grid's figure (issue 39): W's proved ends lo and hi against d, one panel per gamma^2, a colour per L.

The data are the window grid's (`docs/usage.md`, "The window over a grid"): the ``xarray.Dataset`` of
:func:`slr_verify.certify.open_window_grid`, or the CSV table of ``benchmarks/window_grid.py table`` (a path or its rows
as dicts). Drawn per setting:

* each end's certified enclosure [lower, upper] as one marker at its midpoint (the enclosures are about 1e-12 wide,
  far below a marker's size), its shape the end's mechanism (:data:`MARKERS`: a crossing, a pitchfork);
* an upper end with mechanism ``none`` (no upper end on the scanned range) as an upward triangle at ``unique_hi``,
  the end of the proved interval: W has no upper end below it;
* a setting not proved hollow: its ends' markers where the search found them, and its proved interval
  [``unique_lo``, ``unique_hi``] (the part of W the partial certificate covers) as a dotted vertical segment.

Overlaid, from `docs/MATH.md` §13 ("The window over d and L"), measurements and asymptotics, not proofs: the limit
sqrt(3)/2 of hi as d grows (a horizontal line), and the shape lo ~ c sqrt(log d / d) per curve, with c matched at the
curve's largest d (one point: a shape, not a fit, no error attached).

Standard library, NumPy and Matplotlib (imported when drawing); not part of the library's surface.
"""
from __future__ import annotations

import csv
import math
from pathlib import Path

#: marker per end mechanism (``none``: no upper end below the proved interval's end)
MARKERS = {"crossing": "o", "pitchfork": "D", "none": "^"}
#: the ends' columns, and the proved interval's
ENDS = ("lo_lower", "lo_upper", "hi_lower", "hi_upper")
UNIQUE = ("unique_lo", "unique_hi")
#: the limit of the upper end as d grows (`docs/MATH.md` §13: observed, not derived)
HI_LIMIT = math.sqrt(3) / 2


def mechanism(text) -> str:
    """An end's mechanism tag: the store's tags as they are, the older tables' sentences ("crossing: the pair ...")
    by their first word; "" when the end was not reached."""
    return str(text).split(":", 1)[0].strip()


def _float(x) -> float:
    try:
        return float(x)
    except (TypeError, ValueError):
        return math.nan


def _row(r: dict) -> dict:
    proved = r["proved"]
    return {"gamma2": float(r["gamma2"]), "d": int(float(r["d"])), "L": int(float(r["L"])),
            "proved": proved if isinstance(proved, bool) else str(proved).strip() == "True",
            **{k: _float(r[k]) for k in ENDS + UNIQUE},
            "mechanism_lo": mechanism(r["mechanism_lo"]), "mechanism_hi": mechanism(r["mechanism_hi"])}


def _dataset_rows(ds) -> list:
    """The done settings of a window-grid dataset as plain dicts (eps does not move W: one row per eps)."""
    import numpy as np

    ds = ds.load()
    rows = []
    for idx in np.ndindex(*(ds.sizes[a] for a in ("gamma2", "d", "L", "eps"))):
        at = ds.isel(gamma2=idx[0], d=idx[1], L=idx[2], eps=idx[3])
        if bool(at["done"]):
            rows.append(_row({k: at[k].values.item() for k in ("gamma2", "d", "L", "proved", "mechanism_lo",
                                                               "mechanism_hi", *ENDS, *UNIQUE)}))
    return rows


def window_rows(source) -> list:
    """The settings of ``source`` (a window-grid ``xarray.Dataset``, a CSV path, or the CSV's rows as dicts) as dicts:
    gamma2, d, L, proved (bool), the ends and the proved interval (float, NaN where absent), the mechanisms (tags)."""
    if hasattr(source, "data_vars"):
        return _dataset_rows(source)
    if isinstance(source, (str, Path)):
        with open(source, newline="") as fh:
            source = list(csv.DictReader(fh))
    return [_row(r) for r in source]


def _mid(r, end):
    lower, upper = r[f"{end}_lower"], r[f"{end}_upper"]
    return (lower + upper) / 2 if math.isfinite(lower) and math.isfinite(upper) else math.nan


def _points(r) -> list:
    """(end, mechanism, lam) of each marker of a setting."""
    out = []
    for end in ("lo", "hi"):
        tag, lam = r[f"mechanism_{end}"], _mid(r, end)
        if end == "hi" and tag == "none" and math.isfinite(r["unique_hi"]):
            out.append((end, tag, r["unique_hi"]))
        elif tag in MARKERS and math.isfinite(lam):
            out.append((end, tag, lam))
    return out


def plot_window_grid(source, axes=None):
    """Draw lo and hi against d (log axes) from ``source`` (see :func:`window_rows`), one panel per gamma^2 (``axes``:
    as many Matplotlib axes; None: a new figure), a colour per L. Each marker's ``gid`` is
    "<end>:<mechanism>:<proved|not proved>" (end: lo or hi). Returns the figure."""
    import matplotlib.pyplot as plt
    import numpy as np
    from matplotlib.lines import Line2D

    rows = window_rows(source)
    if not rows:
        raise ValueError("source: no setting to draw (an empty table, or a store with no setting done)")
    gammas = sorted({r["gamma2"] for r in rows})
    Ls = sorted({r["L"] for r in rows})
    colour = {L: f"C{i}" for i, L in enumerate(Ls)}
    size = {L: max(3.0, 9.0 - 2.5 * i) for i, L in enumerate(Ls)}  # smaller per L: coinciding ends stay visible
    if axes is None:
        fig, axes = plt.subplots(1, len(gammas), figsize=(6.2 * len(gammas), 4.6), sharex=True, sharey=True,
                                 squeeze=False)
        axes = axes[0]
    if len(axes) != len(gammas):
        raise ValueError(f"axes: one per gamma^2 ({len(gammas)}), got {len(axes)}")
    for ax, g2 in zip(axes, gammas):
        for L in Ls:
            rs = sorted((r for r in rows if r["gamma2"] == g2 and r["L"] == L), key=lambda r: r["d"])
            if not rs:
                continue
            c = colour[L]
            for r in rs:
                for end, tag, lam in _points(r):
                    ax.plot([r["d"]], [lam], MARKERS[tag], color=c, ms=size[L], mfc=c if r["proved"] else "none",
                            gid=f"{end}:{tag}:{'proved' if r['proved'] else 'not proved'}")
                if not r["proved"] and all(math.isfinite(r[k]) for k in UNIQUE):
                    ax.plot([r["d"]] * 2, [r["unique_lo"], r["unique_hi"]], ":", color=c, lw=1.5)
            for end in ("lo", "hi"):  # the curve through the proved ends, a guide for the eye
                pts = [(r["d"], _mid(r, end)) for r in rs if r["proved"] and math.isfinite(_mid(r, end))]
                if len(pts) > 1:
                    ax.plot(*zip(*pts), "-", color=c, lw=0.8, alpha=0.6)
            lo = [(r["d"], _mid(r, "lo")) for r in rs if r["proved"] and math.isfinite(_mid(r, "lo"))]
            if lo:
                d_max, lo_max = lo[-1]
                cst = lo_max / math.sqrt(math.log(d_max) / d_max)
                d = np.geomspace(min(r["d"] for r in rs), d_max, 60)
                ax.plot(d, cst * np.sqrt(np.log(d) / d), "--", color=c, lw=1, alpha=0.8)
        ax.axhline(HI_LIMIT, color="0.4", lw=1, ls="-.")
        ax.set_xscale("log")
        ax.set_yscale("log")
        ax.set_xlabel("d")
        ax.set_title(rf"$\gamma^2 = {g2:g}$")
        ax.grid(alpha=0.3, which="both")
    axes[0].set_ylabel(r"$\lambda$: the ends lo, hi of W")
    handles = [Line2D([], [], color=colour[L], lw=2, label=f"L = {L}") for L in Ls]
    handles += [Line2D([], [], ls="", marker=MARKERS["crossing"], color="k", label="end proved: crossing"),
                Line2D([], [], ls="", marker=MARKERS["pitchfork"], color="k", label="end proved: pitchfork"),
                Line2D([], [], ls="", marker=MARKERS["none"], color="k", label="no upper end below the marker (proved)"),
                Line2D([], [], ls="", marker="o", color="k", mfc="none",
                       label="setting not proved (hollow; dotted: its proved part)"),
                Line2D([], [], color="0.4", lw=1, ls="-.", label=r"$\sqrt{3}/2$: hi's limit as d grows (measured, §13)"),
                Line2D([], [], color="k", lw=1, ls="--",
                       label=r"$c\sqrt{\log d / d}$, c matched at each curve's largest d (a shape, not a fit)")]
    fig = axes[0].figure
    fig.suptitle("The oracle's window W over d: each filled marker a certified enclosure of an end (about 1e-12 wide); "
                 "the lines are measurements and asymptotics, not proofs", fontsize=9)
    fig.tight_layout(rect=(0, 0.16, 1, 1))
    fig.legend(handles=handles, fontsize=7, loc="lower center", ncol=min(len(handles), 4), frameon=False)
    return fig
