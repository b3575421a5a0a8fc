"""The oracle's window W(gamma^2, d, L) proved end to end at a grid of settings (`docs/MATH.md` §17, issue 27):
per setting, each end's enclosure, its mechanism (as the proof identifies it), whether the certificate was accepted,
the box count and the time; the certificates are written to a folder.

    python benchmarks/window_grid.py --out benchmarks/results/window_grid.csv --certificates DIR [--calibration 0.93]

The grid varies one parameter at a time around Figure 4b's setting (gamma^2 = 1/2, d = 400, L = 10):
gamma^2 in {0.3, 1/2, 1, 3/2}, d in {50, 80, 400, 1000}, L in {3, 10, 20}, and gamma^2 = 3/2, d = 50, L = 20 (no upper end
below the scanned range's end there: proved up to lam = 10 with --lam-max 10; at lam >= 300 the value test near
kappa = 0 did not close within a minute per piece, so 1e4 is not reached). eps = 0 (eps adds eps^2 to every risk: it
does not move W).
"""
import argparse
import math
import os
import sys
import time

from csv_out import check_csv_out, write_rows

from slr_verify.certify import oracle_window
from slr_verify.certify.certificate import check_output_path, write

FIELDS = ["gamma2", "d", "L", "proved", "lo_lower", "lo_upper", "mechanism_lo", "hi_lower", "hi_upper", "mechanism_hi",
          "unique_lo", "unique_hi", "boxes", "leaves", "seconds", "units", "reason"]
GRID = ([(g2, 400, 10) for g2 in (0.3, 0.5, 1.0, 1.5)] + [(0.5, d, 10) for d in (50, 80, 1000)]
        + [(0.5, 400, L) for L in (3, 20)] + [(1.5, 50, 20)])


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", required=True, help="a .csv file (its folder must exist)")
    ap.add_argument("--certificates", required=True, help="an existing folder for the certificates")
    ap.add_argument("--calibration", type=float, help="seconds of benchmarks/calibrate.py on this machine")
    ap.add_argument("--workers", type=int, default=2, help="processes of the branch and bound (default 2)")
    ap.add_argument("--lam-max", type=float, default=10.0, help="the scanned range's end (default 10)")
    ap.add_argument("--only", help="one setting G2,D,L")
    a = ap.parse_args(argv)
    check_csv_out(a.out)
    if not os.path.isdir(a.certificates) or not os.access(a.certificates, os.W_OK):
        raise SystemExit(f"--certificates: {a.certificates!r} must be an existing, writable folder")
    grid = [tuple(t(x) for t, x in zip((float, int, int), a.only.split(",")))] if a.only else GRID
    rows = []
    for g2, d, L in grid:
        path = check_output_path(os.path.join(a.certificates, f"window_g{g2}_d{d}_L{L}.json.gz"))
        print(f"gamma^2 = {g2}, d = {d}, L = {L}", file=sys.stderr, flush=True)
        t = time.time()
        w = oracle_window(gamma=math.sqrt(g2), d=d, L=L, lam_range=(1e-4, a.lam_max), workers=a.workers, progress=True)
        s = time.time() - t
        if w.certificate is not None:
            write(w.certificate, path)
        lo, hi = w.lo or (math.nan, math.nan), w.hi or (math.nan, math.nan)
        rows.append({"gamma2": g2, "d": d, "L": L, "proved": w.proved, "lo_lower": repr(lo[0]), "lo_upper": repr(lo[1]),
                     "mechanism_lo": w.mechanisms[0], "hi_lower": repr(hi[0]), "hi_upper": repr(hi[1]),
                     "mechanism_hi": w.mechanisms[1], "unique_lo": repr(w.unique[0]) if w.unique else "nan",
                     "unique_hi": repr(w.unique[1]) if w.unique else "nan", "boxes": w.boxes,
                     "leaves": len(w.certificate["leaves"]) if w.certificate else 0, "seconds": round(s, 1),
                     "units": round(s / a.calibration, 1) if a.calibration else "",
                     "reason": "" if w.proved else w.details.get("reason", "")})
        print(rows[-1], file=sys.stderr, flush=True)
        write_rows(a.out, FIELDS, rows)


if __name__ == "__main__":
    main()
