"""The oracle tubes at Figure 4b's model and the paper's step (docs/MATH.md section 13, "A tube around M"): lam pieces
covering [0.01, 0.159] (the oracle is a linearly unstable fixed point of PGD above lam ~ 0.16 at alpha = 4e-3), each
with the largest corner D = [c, 1]^2 its tiling closes within 800 boxes (certify.oracle_tube.oracle_tube_cover), written
as ``oracle-tube`` certificates (the committed ones: slr_verify/certificates/tube_fig4b_*.json.gz) and tabulated in
benchmarks/results/oracle_tubes_fig4b.json.

    python benchmarks/oracle_tubes.py [--out DIR] [--lam LO:HI[,LO:HI...]] [--table FILE]

The committed four: ``--lam 0.01:0.0105,0.03:0.0315,0.1:0.105,0.15:0.1575``. The whole cover of [0.01, 0.159]: about
20 minutes on one core (about 130 pieces, 5-10 s each: the corners are tried from the largest D), with
``--out`` a folder outside the package (its leaves would be a replay of about 20 s in every check)."""
from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def main(argv=None) -> int:
    from slr_verify.certify.certificate import check_output_path, write
    from slr_verify.certify.oracle_tube import oracle_tube_cover
    from slr_verify.checker import replay

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", default=str(ROOT / "slr_verify" / "certificates"), help="the certificates' folder")
    ap.add_argument("--lam", default="0.01:0.159", help="LO:HI")
    ap.add_argument("--table", default=str(ROOT / "benchmarks" / "results" / "oracle_tubes_fig4b.json"))
    a = ap.parse_args(argv)
    ranges = [tuple(float(x) for x in part.split(":")) for part in a.lam.split(",")]
    out = Path(a.out)
    check_output_path(out / "tube_fig4b_probe.json.gz")  # the folder writable, before the run
    check_output_path(a.table)
    print(f"lam pieces of ratio 1.05 over {ranges}: 5-10 s a piece (about 20 minutes for [0.01, 0.159])", file=sys.stderr)
    t0, rows = time.time(), []

    def tick(t, piece):
        print(f"[{time.time() - t0:6.0f} s] lam {piece[0]:.6f}..{piece[1]:.6f}: "
              + (f"c = {t.D[0][0]}, |y| <= {t.euclidean_entry():.3g}" if t else "no corner closes (halved)"), file=sys.stderr)

    tubes, missed = [], []
    for lo, hi in ranges:
        got = oracle_tube_cover(lam=(lo, hi), gamma=0.5**0.5, d=400, L=10, alpha=4e-3, progress=tick)
        tubes, missed = tubes + got[0], missed + got[1]
    for t in tubes:
        a_, b_ = t.params["lam"]
        name = out / f"tube_fig4b_{a_:.7f}.json.gz"
        write(t.certificate, name)
        r = replay(str(name))
        rows.append({"lam": [a_, b_], "corner": t.D[0][0], "margin": t.margin, "radius": t.radius, "entry": t.entry,
                     "euclidean": t.euclidean_entry(), "q": t.q, "C": t.C, "leaves": len(t.certificate["leaves"]),
                     "search_seconds": round(t.seconds, 2), "replay_seconds": round(r.seconds, 3), "accepted": r.accepted,
                     "file": name.name})
    Path(a.table).write_text(json.dumps({"pieces": rows, "missed": missed, "seconds": round(time.time() - t0, 1)}, indent=1))
    print(f"{len(rows)} pieces, {sum(r['leaves'] for r in rows)} leaves, missed {missed}", file=sys.stderr)
    return 0 if all(r["accepted"] for r in rows) else 1


if __name__ == "__main__":
    sys.exit(main())
