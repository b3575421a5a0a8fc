"""Where sphere initialisations meet the oracle tube (docs/MATH.md section 13, "A tube around M"; issue 46 item 4):
runs of constant-lam PGD from the exact d-free law of uniform starts on the spheres (model.sampling.initial_overlaps_exact)
at the tube's own setting, step and lam (the lower end of its lam piece; default: Figure 4b's model, lam = 0.01,
alpha = 4e-3, the committed tube), through the five-overlap map (float64); a run counts as entering when a
recorded state lies in the tube's entry condition (D = [c, 1]^2 and |T^-1 y|_2 <= r_0, decided on arb balls by
OracleTube.contains on the float state) or in its image under (k, v) -> (-k, -v) (the sign pattern (-1, -1, -1, -1, 1),
a symmetry of the map the premise pgd-map proves). From the entering state on, exact PGD converges to the oracle (or
its image): the theorem. The fraction with its 95% Wilson interval, by run end.

    python benchmarks/tube_entry.py [--tube NAME_OR_FILE] [--runs N] [--steps S] [--seed K] [--out FILE]
"""
from __future__ import annotations

import argparse
import json
import math
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]


def wilson(k, n, z=1.959963984540054):
    p = k / n
    c = (p + z * z / (2 * n)) / (1 + z * z / n)
    h = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return max(0.0, c - h), min(1.0, c + h)


def main(argv=None) -> int:
    from slr_verify.certify.committed import load_committed, replay_committed
    from slr_verify.certify.oracle_tube import OracleTube
    from slr_verify.checker.reader import load
    from slr_verify.checker.replay import replay
    from slr_verify.dynamics.runners import overlap_pgd
    from slr_verify.model.sampling import initial_overlaps_exact

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=1000)
    ap.add_argument("--steps", type=int, default=60_000)
    ap.add_argument("--every", type=int, default=100)
    ap.add_argument("--seed", type=int, default=11)
    ap.add_argument("--tube", default="tube_fig4b_0.0100000.json.gz", help="a committed certificate's name or a file")
    ap.add_argument("--out", default=str(ROOT / "benchmarks" / "results" / "tube_entry_fig4b_lam0.01.json"))
    a = ap.parse_args(argv)
    Path(a.out).parent.mkdir(parents=True, exist_ok=True)
    Path(a.out).touch()  # the output path writable before the run
    name = a.tube
    if Path(name).is_file():
        doc, rep = load(name), replay(name)
    else:
        doc, rep = load_committed(name), replay_committed(name)
    tube = OracleTube.from_replay(rep, doc)
    lam, alpha = tube.params["lam"], tube.params["alpha"]
    lam = lam[0] if isinstance(lam, (list, tuple)) else lam
    gamma, d, L = (tube.params[k] for k in ("gamma", "d", "L"))
    a.d = d
    print(f"{a.runs} runs x {a.steps} steps (about {a.runs * a.steps / 2e8:.0f} minutes), lam = {lam}, d = {a.d}",
          file=sys.stderr)
    t0 = time.time()
    X = initial_overlaps_exact(a.seed, a.runs, a.d)
    tr = overlap_pgd([X.kappa, X.nu, X.theta, X.eta, X.rho], lam=lam, alpha=alpha, steps=a.steps, every=a.every,
                     gamma=gamma, d=d, L=L, progress=sys.stderr)
    S = np.stack([tr.kappa, tr.nu, tr.theta, tr.eta, tr.rho])  # (5, records, runs)
    (c, _), re = tube.D[0], tube.euclidean_entry()
    entered, when, side = np.zeros(a.runs, bool), np.full(a.runs, -1), np.zeros(a.runs, int)
    for sign in (1, -1):
        Z = S * np.array([sign, sign, sign, sign, 1.0])[:, None, None]
        cand = (Z[0] >= c) & (Z[1] >= c) & (np.linalg.norm(Z[2:], axis=0) <= 0.999 * re)
        for j in np.flatnonzero(cand.any(axis=0) & ~entered):
            for i in np.flatnonzero(cand[:, j]):
                if tube.contains(Z[:, i, j])[0]:  # the float state, decided on arb balls
                    entered[j], when[j], side[j] = True, int(tr.step[i]), sign
                    break
    end = S[:, -1]
    at_oracle = (np.abs(end[0]) > 0.99) & (np.abs(end[1]) > 0.99)
    off_M = (np.abs(end[0]) < 0.05) & (np.abs(end[3]) > 0.95)
    k = int(entered.sum())
    out = {"runs": a.runs, "steps": a.steps, "every": a.every, "seed": a.seed, "d": d, "L": L, "gamma": gamma,
           "lam": lam, "alpha": alpha, "tube": Path(name).name,
           "corner": c, "euclidean": re, "entered": k, "wilson95": wilson(k, a.runs),
           "entered_image": int((side == -1).sum()), "median_step_of_entry": float(np.median(when[entered])) if k else None,
           "ends_at_oracle_or_image": int(at_oracle.sum()), "ends_near_k_pm_v": int(off_M.sum()),
           "entered_among_ends_at_oracle": int((entered & at_oracle).sum()), "seconds": round(time.time() - t0, 1)}
    Path(a.out).write_text(json.dumps(out, indent=1))
    print(json.dumps(out, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
