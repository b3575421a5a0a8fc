"""The proved window ends (`benchmarks/window_grid.py`'s CSV) against the 30-digit ends of the mpmath profile alone
(:func:`slr_verify.landscape.ends_mp`: the TRS in mpmath, Theorem 1's oracle risk, second differences for the
curvature; no ball arithmetic, no dual bound, no closed-form curvature). Per setting and end: the enclosure, the
30-digit end, whether it lies inside, and its distance to the enclosure's midpoint.

    python benchmarks/window_ends_mp.py --grid benchmarks/results/window_grid.csv --out benchmarks/results/window_ends_mp.csv
"""
import argparse
import csv
import math
import sys

import mpmath
from csv_out import check_csv_out, write_rows

from slr_verify.landscape import float_window
from slr_verify.landscape.ends_mp import ends_mp

FIELDS = ["gamma2", "d", "L", "end", "lower", "upper", "end_30_digits", "inside", "distance_to_midpoint"]


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--grid", required=True, help="the CSV of benchmarks/window_grid.py")
    ap.add_argument("--out", required=True, help="a .csv file (its folder must exist)")
    a = ap.parse_args(argv)
    check_csv_out(a.out)
    rows = []
    for g in csv.DictReader(open(a.grid)):
        if g["proved"] != "True":
            continue
        kw = {"gamma": math.sqrt(float(g["gamma2"])), "eps": 0.0, "d": int(g["d"]), "L": int(g["L"])}
        print(f"gamma^2 = {g['gamma2']}, d = {g['d']}, L = {g['L']}", file=sys.stderr, flush=True)
        e = ends_mp(float_window(**kw), **kw)
        for side in ("lo", "hi"):
            lo, hi = g[f"{side}_lower"], g[f"{side}_upper"]
            if e[side] is None or lo == "nan":
                continue
            lo, hi = mpmath.mpf(lo), mpmath.mpf(hi)
            rows.append({"gamma2": g["gamma2"], "d": g["d"], "L": g["L"], "end": side, "lower": g[f"{side}_lower"],
                         "upper": g[f"{side}_upper"], "end_30_digits": mpmath.nstr(e[side], 30),
                         "inside": bool(lo < e[side] < hi),
                         "distance_to_midpoint": mpmath.nstr(abs(e[side] - (lo + hi) / 2), 3)})
            print(rows[-1], file=sys.stderr, flush=True)
        write_rows(a.out, FIELDS, rows)


if __name__ == "__main__":
    main()
