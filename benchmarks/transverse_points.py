"""The transverse map of M at points of lam (docs/MATH.md, "The transverse map"): at Figure 4b's model, at each lam of a
log grid of [0.01, 1] and at two steps (the paper's alpha = 4e-3, and Theorem 5's alpha_5 of the committed certificate's
piece holding lam), `certify.transverse.transverse_map` over three domains: the corner [7/8, 1]^2 at the oracle (boxes
down to 2^-8), the square [-1/16, 1/16]^2 at the saddle (2^-5) and the whole square (2^-5). One row per (lam, step,
domain): the certified area fractions (attracting, repelling, undecided), q_max, boxes, seconds, whether the checker
accepted the certificate. Each map is proved at its point lam: lam itself is sampled (a lam interval makes the
enclosures too wide to decide anything: at lam in [0.0838, 0.1], 32 sub-pieces, the corner is all undecided).
Rows are rewritten as each finishes. ``--steps`` writes instead, per lam, the two steps beside 2/lambda_max (the step above
which the oracle is linearly unstable for PGD on the spheres, enclosed in arb by `certify.alpha_stable`) and the
eigenvalues of T at (0.99, 0.99) by the float route (central differences of one NumPy step, no arb kernel).

    PYTHONPATH=. python benchmarks/transverse_points.py --out benchmarks/results/transverse_points_4b.csv
    PYTHONPATH=. python benchmarks/transverse_points.py --steps --out benchmarks/results/transverse_steps_4b.csv
"""
import argparse
import gzip
import json
import math
import subprocess
import time
from pathlib import Path

import numpy as np
from csv_out import check_csv_out, write_rows

from slr_verify.certify import alpha_stable
from slr_verify.certify.theorem5 import alpha_5_at
from slr_verify.certify.transverse import transverse_map
from slr_verify.dynamics.fixed_points import overlap_jacobian_fd

FIELDS = ["lam", "step", "alpha", "domain", "min_width", "proved", "attracting", "repelling", "undecided", "q_max",
          "boxes", "seconds", "commit"]
DOMAINS = {"oracle corner": (((0.875, 1.0), (0.875, 1.0)), 2.0**-8),
           "saddle square": (((-0.0625, 0.0625), (-0.0625, 0.0625)), 2.0**-5),
           "whole square": (((-1.0, 1.0), (-1.0, 1.0)), 2.0**-5)}
THEOREM5 = Path(__file__).resolve().parents[1] / "slr_verify" / "certificates" / "theorem5_fig4b.json.gz"


def alpha_5(lam) -> float:
    """Theorem 5's certified step at ``lam`` on the committed certificate's pieces (the smaller at a shared end)."""
    return alpha_5_at(json.loads(gzip.decompress(THEOREM5.read_bytes()))["pieces"], lam)


STEP_FIELDS = ["lam", "alpha_5", "two_over_lambda_max_lo", "two_over_lambda_max_hi", "step", "alpha", "T_eigenvalues",
               "T_min_eigenvalue", "T_spectral_radius", "commit"]


def steps(lams, out, commit):
    rows = []
    for lam in lams:
        a5, st = alpha_5(lam), alpha_stable(lam=lam, gamma=math.sqrt(0.5), d=400, L=10)
        for step, alpha in (("paper", 4e-3), ("alpha_5", a5)):
            J = overlap_jacobian_fd([(0.99, 0.99, 0.0, 0.0, 0.0)], lam=lam, gamma=math.sqrt(0.5), d=400, L=10, alpha=alpha)
            ev = sorted(np.linalg.eigvals(J[0, 2:, 2:]), key=lambda z: z.real)
            rows.append({"lam": lam, "alpha_5": a5, "two_over_lambda_max_lo": st["alpha_stable"][0],
                         "two_over_lambda_max_hi": st["alpha_stable"][1], "step": step, "alpha": alpha,
                         "T_eigenvalues": " ".join(f"{z.real:.6g}" + (f"{z.imag:+.3g}j" if abs(z.imag) > 1e-12 else "")
                                                   for z in ev),
                         "T_min_eigenvalue": min(z.real for z in ev), "T_spectral_radius": max(abs(z) for z in ev),
                         "commit": commit})
            write_rows(out, STEP_FIELDS, rows)
            print(rows[-1], flush=True)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--points", type=int, default=9, help="log-spaced lam in [0.01, 1]")
    ap.add_argument("--steps", action="store_true", help="the steps table instead of the maps")
    ap.add_argument("--out", required=True)
    a = ap.parse_args(argv)
    out = check_csv_out(a.out)
    commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True).stdout.strip()
    lams = [0.01 * 100 ** (k / (a.points - 1)) for k in range(a.points)]
    lams[-1] = 1.0
    if a.steps:
        return steps(lams, out, commit)
    print(f"{len(lams)} lam x 2 steps x {len(DOMAINS)} domains = {6 * len(lams)} maps (about 15 s each)", flush=True)
    rows = []
    for lam in lams:
        for step, alpha in (("paper", 4e-3), ("alpha_5", alpha_5(lam))):
            for name, ((kappa, nu), width) in DOMAINS.items():
                t = time.perf_counter()
                r = transverse_map(lam=(lam, lam), gamma=math.sqrt(0.5), d=400, L=10, alpha=alpha, kappa=kappa, nu=nu,
                                   min_width=width)
                f = r["fractions"]
                rows.append({"lam": lam, "step": step, "alpha": alpha, "domain": name, "min_width": width,
                             "proved": r["proved"], "attracting": f["attracting"], "repelling": f["repelling"],
                             "undecided": f["undecided"], "q_max": r["q_max"] if r["q_max"] is not None else "",
                             "boxes": r["boxes"], "seconds": round(time.perf_counter() - t, 1), "commit": commit})
                write_rows(out, FIELDS, rows)
                print(rows[-1], flush=True)


if __name__ == "__main__":
    main()
