"""The global-minimiser diagram, certified (docs/MATH.md section 17; issue: the window proved).

For each lam of a log grid in [0.01, 2], :func:`slr_verify.certify.global_minimiser` at that point lam: inside W the
certificate that (k*, v*) is the unique global minimiser up to the symmetries; outside W an enclosure of the global
minimum (width ~1e-13) and boxes holding every global minimiser, with enclosures of its kappa, eta and of its distance
r from span(k*, v*). The float profile route (:func:`slr_verify.landscape.float_global_minimum`) is recorded next to it.
One row per lam, appended as each finishes (a partial table survives an interruption), sorted by lam at the end. The
lam points are independent tasks on the suite's engine (`slr_verify.model.engine`): in this process by default,
``--workers N`` on a local Dask cluster, ``--scheduler ADDRESS`` on a running one.

    PYTHONPATH=. python benchmarks/certified_diagram.py --d 400 --out /tmp/diagram_400.csv [--certificates DIR] [--workers 2]

Settings: gamma^2 = 1/2, eps = 0, L = 10 and d = 400 (Figure 4b) or d = 80 (Figure 5's model).
"""
import argparse
import csv
import math
import os
import sys
import time

import numpy as np
from tqdm.auto import tqdm

from slr_verify.certify import global_minimiser
from slr_verify.certify.certificate import write
from slr_verify.landscape import float_global_minimum
from slr_verify.model.engine import Engine

FIELDS = ["d", "lam", "proved", "oracle", "risk_lo", "risk_hi", "profile_risk", "kappa_lo", "kappa_hi", "eta_lo", "eta_hi",
          "r_hi", "profile_kappa", "profile_eta", "boxes", "seconds"]


def check_out(path, force):
    """The output path must be a new file (or ``force``) in an existing, writable directory."""
    parent = os.path.dirname(os.path.abspath(path))
    if not os.path.isdir(parent) or not os.access(parent, os.W_OK):
        raise SystemExit(f"--out: directory {parent!r} does not exist or is not writable")
    if os.path.isdir(path) or (os.path.exists(path) and not force):
        raise SystemExit(f"--out: {path!r} exists (use --force to overwrite)")


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--d", type=int, default=400)
    ap.add_argument("--n", type=int, default=24, help="lam values, log-spaced in [0.01, 2]")
    ap.add_argument("--time-limit", type=float, default=300.0, help="seconds per lam")
    ap.add_argument("--out", required=True)
    ap.add_argument("--force", action="store_true")
    ap.add_argument("--certificates", help="a folder to write each lam's certificate into (docs/certificates.md)")
    ap.add_argument("--workers", type=int, default=1, help="processes of a local Dask cluster, one lam per task "
                    "(default 1: in this process)")
    ap.add_argument("--scheduler", help="'sync', 'local' or the address of a running Dask scheduler")
    a = ap.parse_args(argv)
    if a.n < 1 or a.d < 4 or not a.time_limit > 0:
        raise SystemExit("--n must be >= 1, --d >= 4 (the profile's four-dimensional TRS), --time-limit > 0")
    check_out(a.out, a.force)
    if a.certificates and not (os.path.isdir(a.certificates) and os.access(a.certificates, os.W_OK)):
        raise SystemExit(f"--certificates: {a.certificates!r} is not a writable folder")
    kw = {"gamma": math.sqrt(0.5), "eps": 0.0, "d": a.d, "L": 10}
    lams = [float(x) for x in np.geomspace(0.01, 2.0, a.n)]
    rows = []
    # the lam points are independent: one task each on the suite's engine (in this process with --workers 1)
    with Engine(a.scheduler, a.workers, name="benchmarks/certified_diagram.py") as engine, \
            open(a.out, "w", newline="") as fh:
        w = csv.DictWriter(fh, FIELDS)
        w.writeheader()
        bar = tqdm(total=len(lams), desc=f"certified diagram d={a.d}", file=sys.stderr)
        for _, (row, cert) in engine.run(point, [(lam, a.time_limit, kw) for lam in lams]):
            if a.certificates and cert is not None:
                kind = "oracle" if row["oracle"] else "minimum"
                write(cert, os.path.join(a.certificates, f"{kind}_d{a.d}_lam{row['lam']:.6g}.json.gz"))
            rows.append(row)
            w.writerow(row)  # as each finishes (a partial table survives an interruption)
            fh.flush()
            bar.update(1)
        bar.close()
    with open(a.out, "w", newline="") as fh:  # then in lam order
        w = csv.DictWriter(fh, FIELDS)
        w.writeheader()
        w.writerows(sorted(rows, key=lambda r: r["lam"]))


def point(lam, time_limit, kw):
    """One lam: the certified global minimiser and the float profile's, as a row (and the certificate)."""
    t = time.time()
    c = global_minimiser(lam=(lam, lam), time_limit=time_limit, **kw)
    risk, ov = float_global_minimum(lam=lam, **kw)
    o = {} if c.oracle else c.overlaps[0]["overlaps"] if c.overlaps else {}
    k = o.get("kappa", (1.0, 1.0) if c.oracle and c.proved else (math.nan, math.nan))
    e = o.get("eta", (0.0, 0.0) if c.oracle and c.proved else (math.nan, math.nan))
    r = o.get("r", (0.0, 0.0) if c.oracle and c.proved else (math.nan, math.nan))
    row = {"d": kw["d"], "lam": lam, "proved": c.proved, "oracle": c.oracle, "risk_lo": c.risk[0], "risk_hi": c.risk[1],
           "profile_risk": risk, "kappa_lo": k[0], "kappa_hi": k[1], "eta_lo": e[0], "eta_hi": e[1], "r_hi": r[1],
           "profile_kappa": abs(ov[0]), "profile_eta": abs(ov[3]), "boxes": c.boxes, "seconds": round(time.time() - t, 2)}
    return row, c.certificate

if __name__ == "__main__":
    main()
