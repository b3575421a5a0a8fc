"""The float64 profile route's global minimum (`slr_verify.landscape.float_global_minimum`) against the 30-digit mpmath
minimum (`landscape.trs.profile_mp`, golden section on the circle r = 0 over the certified kappa range), at every
committed enclosure of the global minimum with r = 0; and whether that mpmath minimum lies in the certified enclosure.
The basis of `slr_verify.claims.window_claims.FLOAT_PROFILE_RTOL`, the float route's accuracy in the global-minimiser
claim's cross-check (an enclosure r > 0 is skipped: its minimiser is off the circle).

    python benchmarks/float_profile_accuracy.py --out benchmarks/results/float_profile_accuracy.csv
"""
import argparse
import math

import mpmath
from csv_out import check_csv_out, write_rows
from tqdm.auto import tqdm

from slr_verify import landscape as LS
from slr_verify.certify.committed import names, replay_committed
from slr_verify.landscape.trs import profile_mp

FIELDS = ["file", "lam", "d", "float_minimum", "mpmath_minimum", "relative_error", "in_enclosure", "enclosure_lo",
          "enclosure_hi"]
GAMMA = math.sqrt(0.5)


def circle_minimum(lam, d, k0, k1, dps=30):
    """min over kappa in [k0 - 1e-6, k1 + 1e-6] of the profile at (kappa, sqrt(1 - kappa^2)) by golden section."""
    with mpmath.workdps(dps):
        m = lambda k: profile_mp(k, mpmath.sqrt(1 - k * k), lam=lam, gamma=GAMMA, eps=0.0, d=d, L=10, dps=dps)[0]
        a, b, phi = max(mpmath.mpf(k0) - 1e-6, mpmath.mpf(0)), mpmath.mpf(k1) + 1e-6, (mpmath.sqrt(5) - 1) / 2
        for _ in range(40):
            c, e = b - phi * (b - a), a + phi * (b - a)
            a, b = (a, e) if m(c) < m(e) else (c, b)
        return m((a + b) / 2)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", required=True, help="a .csv file (its folder must exist)")
    out = check_csv_out(ap.parse_args(argv).out)
    files = names("minimum_")
    print(f"{len(files)} enclosures, about 3 s each (80 evaluations of the 30-digit profile)")
    rows = []
    for f in tqdm(files, desc="enclosures"):
        v = replay_committed(f).values
        if v["r"][1] != 0.0:
            continue
        lam, d = v["lam"][0], v["setting"]["d"]
        risk, _ = LS.float_global_minimum(lam=lam, gamma=GAMMA, eps=0.0, d=d, L=10)
        mm = circle_minimum(lam, d, *v["kappa"])
        lo, hi = v["risk"]
        rows.append({"file": f, "lam": lam, "d": d, "float_minimum": risk, "mpmath_minimum": mpmath.nstr(mm, 20),
                     "relative_error": float((risk - mm) / mm), "in_enclosure": bool(lo <= mm <= hi),
                     "enclosure_lo": lo, "enclosure_hi": hi})
        write_rows(out, FIELDS, rows)
    worst = max(abs(r["relative_error"]) for r in rows)
    print(f"{len(rows)} enclosures: the float route within {worst:.3g} relative; mpmath's minimum in every enclosure: "
          f"{all(r['in_enclosure'] for r in rows)}")


if __name__ == "__main__":
    main()
