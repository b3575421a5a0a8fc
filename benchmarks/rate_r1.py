"""R1 at Figure 4b's model (docs/MATH.md, "R1: a certified rate below the saddle's level"): a certified Lojasiewicz
constant mu on S_delta for geometric lam pieces, one row per piece (lam range, delta, mu, the certified area fraction,
boxes, seconds), each piece searched and replayed by the checker on its own (a piece that does not close is a row with
its failure; after ``--stop`` consecutive failures the run stops). Rows are rewritten as each piece finishes.

    PYTHONPATH=. python benchmarks/rate_r1.py --lam 0.01:0.1585 --pieces 14 --out /tmp/r1.csv
"""
import argparse
import math
import subprocess
import time

from csv_out import check_csv_out, write_rows

from slr_verify.certify.rate import lojasiewicz

FIELDS = ["lam_lo", "lam_hi", "proved", "delta", "mu", "mu_estimate", "factor", "area_fraction", "leaves", "corner",
          "ratio", "above", "boxes", "seconds", "prec", "commit", "failure"]


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--lam", default="0.01:0.1585", help="lo:hi")
    ap.add_argument("--pieces", type=int, default=14, help="geometric pieces of [lo, hi]")
    ap.add_argument("--budget", type=int, default=100_000, help="boxes per piece")
    ap.add_argument("--bisect", type=int, default=1)
    ap.add_argument("--prec", type=int, default=128)
    ap.add_argument("--factors", default="0.02,0.1,0.35,0.7", help="mu factors of the estimate, comma-separated")
    ap.add_argument("--stop", type=int, default=2, help="stop after this many consecutive failures")
    ap.add_argument("--out", required=True)
    a = ap.parse_args(argv)
    out = check_csv_out(a.out)
    lo, hi = (float(x) for x in a.lam.split(":"))
    edges = [lo * (hi / lo) ** (k / a.pieces) for k in range(a.pieces + 1)]
    edges[0], edges[-1] = lo, hi
    commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True).stdout.strip()
    rows, fails = [], 0
    for p in zip(edges, edges[1:]):
        t = time.perf_counter()
        r = lojasiewicz([p], gamma=math.sqrt(0.5), d=400, L=10, budget=a.budget, bisect=a.bisect, prec=a.prec,
                        mu_factors=tuple(float(f) for f in a.factors.split(",")))
        tests = [leaf["test"] for leaf in (r["rate"] or {}).get("leaves", [])]
        fact = r["pieces"][0] if r["pieces"] else {}
        rows.append({"lam_lo": p[0], "lam_hi": p[1], "proved": r["proved"], "delta": (r["delta"] or [""])[0],
                     "mu": (r["mu"] or [""])[0], "mu_estimate": fact.get("mu_estimate", ""), "factor": fact.get("factor", ""),
                     "area_fraction": (r["area_fraction"] or [""])[0], "leaves": len(tests), "corner": tests.count("corner"),
                     "ratio": tests.count("ratio"), "above": tests.count("above"), "boxes": r["boxes"],
                     "seconds": round(time.perf_counter() - t, 1), "prec": a.prec, "commit": commit,
                     "failure": r["failure"] or ""})
        write_rows(out, FIELDS, rows)
        print(rows[-1], flush=True)
        fails = 0 if r["proved"] else fails + 1
        if fails >= a.stop:
            break


if __name__ == "__main__":
    main()
