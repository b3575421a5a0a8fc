"""Basin rates of constant-lam PGD from sphere starts, every run accounted for (docs/MATH.md section 13).

For each lam of a log grid: ``runs`` starts from the exact sphere law, PGD at the setting's step size,
continued towards convergence, then :func:`slr_verify.certify.sample_basins` (capture balls, the valley
tube, the almost-sure non-convergence certificate). One row per (lam, label): count, rate, 95% Clopper-Pearson
interval, how the runs were classified, seconds. Rows are appended as each lam finishes (a partial table
survives an interruption).

    PYTHONPATH=. python benchmarks/basin_rates.py --setting 4b --out /tmp/rates_4b.csv

Settings: ``4b`` (gamma^2 = 1/2, d = 400, L = 10, alpha = 4e-3, 20k steps) and ``5`` (Figure 5's model
gamma^2 = 1/2, d = 80, L = 10 and its alpha = 1e-3, 50k steps; constant lam, full-batch PGD: eps only shifts
the risks and is left at 0).
"""
import argparse
import csv
import os
import sys
import time

import numpy as np
from tqdm.auto import tqdm

from slr_verify.certify.basins import sample_basins
from slr_verify.model.settings import FIGURES

STEPS = {"4b": 20_000, "5": 50_000}
FIELDS = ["setting", "d", "alpha", "lam", "label", "kind", "count", "runs", "rate", "ci_lo", "ci_hi", "how", "tier", "seconds"]


def check_out(path, force):
    """The output path must be a new file (or ``force``) in an existing, writable directory."""
    parent = os.path.dirname(os.path.abspath(path))
    if not os.path.isdir(parent) or not os.access(parent, os.W_OK):
        raise SystemExit(f"--out: directory {parent!r} does not exist or is not writable")
    if os.path.isdir(path):
        raise SystemExit(f"--out: {path!r} is a directory")
    if os.path.exists(path) and not force:
        raise SystemExit(f"--out: {path!r} exists (use --force to overwrite)")


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--setting", choices=sorted(STEPS), default="4b")
    ap.add_argument("--runs", type=int, default=1000)
    ap.add_argument("--lams", type=int, default=13, help="number of lam values, log-spaced on [lo, hi]")
    ap.add_argument("--lo", type=float, default=0.02)
    ap.add_argument("--hi", type=float, default=2.0)
    ap.add_argument("--max-steps", type=int, default=100_000, help="continuation steps towards convergence")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--out", required=True)
    ap.add_argument("--force", action="store_true")
    a = ap.parse_args(argv)
    check_out(a.out, a.force)
    S = FIGURES[a.setting]
    lams = np.geomspace(a.lo, a.hi, a.lams)
    with open(a.out, "w", newline="") as fh:
        w = csv.DictWriter(fh, fieldnames=FIELDS)
        w.writeheader()
        for i, lam in enumerate(tqdm(lams, desc=f"basins (Figure {a.setting} model)", file=sys.stderr)):
            t0 = time.perf_counter()
            rates, _, _, _, cl = sample_basins(np.random.SeedSequence([a.seed, i]), a.runs, lam=float(lam), gamma=S.gamma,
                                               d=S.d, L=S.L, alpha=S.alpha, steps=STEPS[a.setting], max_steps=a.max_steps,
                                               details=True)
            sec = time.perf_counter() - t0
            for lab, v in rates.items():
                hows = sorted(set(cl.how[cl.labels == lab]))
                tiers = sorted({c.get("tier", "") for c in v["certificates"]})
                w.writerow({"setting": a.setting, "d": S.d, "alpha": S.alpha, "lam": f"{lam:.6g}", "label": lab,
                            "kind": v["kind"], "count": v["count"], "runs": v["runs"], "rate": f"{v['rate']:.4f}",
                            "ci_lo": f"{v['ci95'][0]:.4f}", "ci_hi": f"{v['ci95'][1]:.4f}", "how": "+".join(hows),
                            "tier": " | ".join(tiers), "seconds": f"{sec:.1f}"})
            fh.flush()


if __name__ == "__main__":
    main()
