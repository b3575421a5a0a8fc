"""The window grid's figure for the docs: W's proved ends lo, hi against d, drawn from a table of
``benchmarks/window_grid.py table`` by the notebooks' plotting code (`notebooks/window_plot.py`, the one place it lives).

    python benchmarks/window_figure.py --table benchmarks/results/window_grid_figure.csv --out docs/results/window_grid.png

``--out`` (a .png in an existing, writable folder) and ``--table`` (a readable file) are checked before anything is
read or drawn; SystemExit naming the option otherwise.
"""
import argparse
import os
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def check_png_out(path) -> str:
    """``path`` must be a .png file in an existing, writable folder, not a folder (SystemExit naming ``--out``)."""
    parent = os.path.dirname(os.path.abspath(path))
    if (not str(path).endswith(".png") or os.path.isdir(path) or not os.path.isdir(parent)
            or not os.access(parent, os.W_OK)):
        raise SystemExit(f"--out: {str(path)!r} must be a .png file in an existing, writable folder")
    return path


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--table", default=str(ROOT / "benchmarks/results/window_grid_figure.csv"),
                    help="the CSV of benchmarks/window_grid.py table (default benchmarks/results/window_grid_figure.csv)")
    ap.add_argument("--out", required=True, help="the figure, a .png file (its folder must exist)")
    a = ap.parse_args(argv)
    check_png_out(a.out)
    if not os.path.isfile(a.table) or not os.access(a.table, os.R_OK):
        raise SystemExit(f"--table: {a.table!r} is not a readable file")
    import matplotlib

    matplotlib.use("Agg")
    sys.path.insert(0, str(ROOT / "notebooks"))
    from window_plot import plot_window_grid, window_rows

    from slr_nb import write_png

    rows = window_rows(a.table)
    write_png(plot_window_grid(rows), a.out)
    print(f"wrote {a.out}: {len(rows)} settings, {sum(r['proved'] for r in rows)} proved", file=sys.stderr)


if __name__ == "__main__":
    main()
