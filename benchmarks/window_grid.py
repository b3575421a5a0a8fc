"""The oracle's window W(gamma^2, d, L) proved over a grid of settings (`docs/MATH.md` §§13, 17), by the grid
engine (`slr_verify.certify.window_grid`: a Dask local cluster, a resumable Zarr store, the certificates beside it).

Three modes, each writing one CSV (a partial table survives an interruption):

* ``table``: one grid, its settings as rows (`benchmarks/results/window_grid.csv`'s columns: both ends' enclosures,
  their mechanisms, proved, boxes, leaves, seconds, units); ``--append`` adds them to an existing table.
* ``rate``: the grid once per ``--workers`` value, each on a fresh store: certified settings per core-minute
  (settings proved / (workers x wall minutes)).
* ``scaling``: the same on the 24-setting grid below by default, with the calibration
  (``benchmarks/calibrate.py``'s workload) measured before and after: wall seconds, units, speed-up over the first
  ``--workers`` value.

    python benchmarks/window_grid.py table --gamma2 0.3,0.5,1,1.5 --d 400 --L 10 --store DIR/g.zarr \\
        --out benchmarks/results/window_grid.csv [--calibration S] [--append]
    python benchmarks/window_grid.py rate --gamma2 1.5 --d 20,50 --L 20 --lam-max 0.5 --out /tmp/rate.csv
    python benchmarks/window_grid.py scaling --out benchmarks/results/window_grid_scaling.csv

The default grid (``scaling``): gamma^2 in {0.5, 1.5}, L in {3, 10}, d in {20, 50, 100, 200, 400, 1000}, eps = 0,
lam up to 10: 24 settings, the figure's data (W over d at two noise levels and two lengths;
``benchmarks/window_figure.py``, `docs/window-grid.md`). eps adds eps^2 to every
risk: it does not move W.
"""
import argparse
import csv
import os
import sys
import tempfile
import time

from calibrate import once
from csv_out import check_csv_out, write_rows

from slr_verify.certify import open_window_grid, window_grid

TABLE = ["gamma2", "d", "L", "proved", "lo_lower", "lo_upper", "mechanism_lo", "hi_lower", "hi_upper", "mechanism_hi",
         "unique_lo", "unique_hi", "boxes", "leaves", "seconds", "units", "reason"]
RUNS = ["mode", "workers", "settings", "proved", "wall_seconds", "core_minutes", "settings_per_core_minute", "units",
        "speedup", "calibration_before", "calibration_after", "grid"]
GRID = {"gamma2": "0.5,1.5", "d": "20,50,100,200,400,1000", "L": "3,10", "eps": "0"}


def table_rows(store, calibration=None):
    """The store's settings as rows of :data:`TABLE` (float ends as repr, NaN as 'nan')."""
    ds = open_window_grid(store).load()
    rows = []
    for g2 in ds["gamma2"].values:
        for d in ds["d"].values:
            for L in ds["L"].values:
                for e in ds["eps"].values:
                    at = ds.sel(gamma2=g2, d=d, L=L, eps=e)
                    if not bool(at["done"]):
                        continue
                    v = {k: at[k].values.item() if at[k].ndim == 0 else at[k].values for k in ds.data_vars}
                    s = float(v["seconds"])
                    rows.append({"gamma2": float(g2), "d": int(d), "L": int(L), "proved": bool(v["proved"]),
                                 **{k: repr(float(v[k])) for k in ("lo_lower", "lo_upper", "hi_lower", "hi_upper",
                                                                     "unique_lo", "unique_hi")},
                                 "mechanism_lo": str(v["mechanism_lo"]), "mechanism_hi": str(v["mechanism_hi"]),
                                 "boxes": int(v["boxes"]), "leaves": int(v["leaves"]), "seconds": round(s, 1),
                                 "units": round(s / calibration, 1) if calibration else "", "reason": str(v["reason"])})
    return rows


def calibration():
    """benchmarks/calibrate.py's figure: the minimum of three runs of its workload, in seconds."""
    return round(min(once() for _ in range(3)), 2)


def run(grid, workers, store, a):
    """The grid on a local cluster of ``workers`` processes (in this process for 1 with --sync) into ``store``:
    (wall seconds, settings, proved)."""
    t = time.perf_counter()
    window_grid(**grid, out=store, lam_max=a.lam_max, time_limit=a.time_limit, workers=workers,
                scheduler="sync" if a.sync and workers == 1 else "local", progress=None if a.quiet else sys.stderr)
    wall = time.perf_counter() - t
    ds = open_window_grid(store)
    return wall, int(ds["done"].sum()), int(ds["proved"].sum())


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("mode", choices=("table", "rate", "scaling"))
    for name in GRID:
        ap.add_argument(f"--{name}", default=GRID[name], help=f"values: a,b,c or start:stop:num[:log] (default {GRID[name]})")
    ap.add_argument("--lam-max", type=float, default=10.0, help="the scanned range's end (default 10)")
    ap.add_argument("--time-limit", type=float, default=1800.0, help="seconds per setting (default 1800)")
    ap.add_argument("--workers", default="1,2", help="table: one number (default 2); rate, scaling: a list (default 1,2)")
    ap.add_argument("--sync", action="store_true", help="with 1 worker: in this process instead of a one-worker cluster")
    ap.add_argument("--out", required=True, help="a .csv file (its folder must exist)")
    ap.add_argument("--store", help="table: the Zarr store (resumed if it holds the grid); rate, scaling: a folder for "
                    "the stores (default: a temporary one, removed)")
    ap.add_argument("--append", action="store_true", help="table: add the rows to the existing --out")
    ap.add_argument("--calibration", type=float, help="table, rate: seconds of benchmarks/calibrate.py on this machine")
    ap.add_argument("--quiet", action="store_true")
    a = ap.parse_args(argv)
    check_csv_out(a.out)
    grid = {k: getattr(a, k) for k in GRID}
    workers = [int(w) for w in a.workers.split(",")]
    if a.mode == "table":
        if not a.store:
            raise SystemExit("--store: required in table mode (the grid's Zarr store)")
        run(grid, workers[-1] if a.workers != "1,2" else 2, a.store, a)
        rows = table_rows(a.store, a.calibration)
        if a.append and os.path.exists(a.out):
            old = list(csv.DictReader(open(a.out)))
            new = {(str(r["gamma2"]), str(r["d"]), str(r["L"])) for r in rows}
            rows = [r for r in old if (r["gamma2"], r["d"], r["L"]) not in new] + rows
        write_rows(a.out, TABLE, rows)
        return
    folder = a.store or tempfile.mkdtemp(prefix="window_grid_")
    os.makedirs(folder, exist_ok=True)
    before = calibration() if a.mode == "scaling" else a.calibration
    rows, first = [], None
    for w in workers:
        store = os.path.join(folder, f"{a.mode}_workers{w}.zarr")
        wall, n, proved = run(grid, w, store, a)
        first = first or wall
        core_min = w * wall / 60
        rows.append({"mode": a.mode, "workers": w, "settings": n, "proved": proved, "wall_seconds": round(wall, 1),
                     "core_minutes": round(core_min, 2), "settings_per_core_minute": round(proved / core_min, 3),
                     "units": round(wall / before, 1) if before else "", "speedup": round(first / wall, 2),
                     "calibration_before": before or "", "calibration_after": "", "grid": " ".join(
                         f"--{k} {v}" for k, v in grid.items()) + f" --lam-max {a.lam_max:g}"})
        write_rows(a.out, RUNS, rows)
        print(rows[-1], file=sys.stderr, flush=True)
    if a.mode == "scaling":
        after = calibration()
        for r in rows:
            r["calibration_after"] = after
        write_rows(a.out, RUNS, rows)
    if not a.store:
        import shutil

        shutil.rmtree(folder, ignore_errors=True)


if __name__ == "__main__":
    main()
