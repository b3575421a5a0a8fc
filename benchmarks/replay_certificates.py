"""Replay every committed certificate (`slr_verify/certificates/`, docs/certificates.md) and record, per file, its
kind, domain, leaves, compressed size and replay time, with the machine's calibration figure (the time of
`benchmarks/calibrate.py` if given, so that a time reads as calibration units).

    python benchmarks/replay_certificates.py --out benchmarks/results/replay_certificates.csv [--calibration 0.96]

Each replay checks the premises' hashes against the committed kernels (their SymPy proofs are `slr-verify derive
--check`'s); the total is the wall-clock time of replaying all of them on every core, as ``slr-verify certify replay --committed``
does (`slr_verify.certify.committed.replay_every`: the large files one after another, each testing its leaves in forked
workers, `slr_verify.checker.parallel`; the small files at once, one to each worker), unless SLR_VERIFY_CHECKER_WORKERS
says otherwise. A file's ``seconds`` is its own replay's, so their sum is the single-process time.
"""
import argparse
import csv
import os
import subprocess
import time
from importlib import resources

from csv_out import check_csv_out

from slr_verify.certify.committed import replay_every

FIELDS = ["file", "kind", "lam_lo", "lam_hi", "d", "accepted", "leaves", "bytes", "seconds", "units"]


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", required=True, help="a .csv file (its folder must exist)")
    ap.add_argument("--calibration", type=float, help="seconds of benchmarks/calibrate.py on this machine")
    a = ap.parse_args(argv)
    check_csv_out(a.out)
    if a.calibration is not None and not a.calibration > 0:
        raise SystemExit("--calibration must be a positive number of seconds")
    os.environ.setdefault("SLR_VERIFY_CHECKER_WORKERS", str(os.cpu_count() or 1))  # as the recorded runs: every core
    t0 = time.time()
    folder = resources.files("slr_verify.certificates")
    rows = []
    for f, r in replay_every(progress=True):
        v = r.values
        rows.append({"file": f, "kind": v.get("kind"), "lam_lo": v.get("lam", (None,))[0], "lam_hi": v.get("lam", (0, None))[1],
                     "d": v.get("setting", {}).get("d"), "accepted": r.accepted, "leaves": r.leaves,
                     "bytes": len(folder.joinpath(f).read_bytes()), "seconds": round(r.seconds, 3),
                     "units": round(r.seconds / a.calibration, 3) if a.calibration else ""})
    with open(a.out, "w", newline="") as fh:
        w = csv.DictWriter(fh, FIELDS)
        w.writeheader()
        w.writerows(rows)
    commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True).stdout.strip()
    total = time.time() - t0
    print(f"commit {commit}: {len(rows)} certificates, all accepted: {all(r['accepted'] for r in rows)}, "
          f"{sum(r['leaves'] for r in rows)} leaves, {sum(r['bytes'] for r in rows)} bytes; replays {total:.1f} s"
          + (f" ({total / a.calibration:.1f} calibration units at {a.calibration} s)" if a.calibration else ""))


if __name__ == "__main__":
    main()
