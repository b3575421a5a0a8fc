"""``slr-verify pgd --figure 4a|4b|5|7a|7b``: run a paper setting and write an .npz (atomically)."""
from __future__ import annotations

import json
import os
import sys
import tempfile
import time

import numpy as np

__all__ = ["add_pgd_parser", "run_pgd"]


def add_pgd_parser(subparsers):
    p = subparsers.add_parser("pgd", help="run one of the paper's PGD experiments (SPEC 11)")
    p.add_argument("--figure", required=True, choices=["4a", "4b", "5", "7a", "7b"])
    p.add_argument("--repeats", type=int, default=30)
    p.add_argument("--steps", type=int, default=None, help="override the figure's number of steps")
    p.add_argument("--out", default=None, help="output .npz (default pgd_<figure>.npz)")
    p.add_argument("--seed", type=int, default=0)
    p.set_defaults(func=run_pgd)
    return p


def run_pgd(args):
    from .experiments import run_figure

    if args.repeats < 1:
        print("slr-verify pgd: --repeats must be >= 1", file=sys.stderr)
        return 2
    out = args.out or "pgd_%s.npz" % args.figure
    print("running figure %s: %d repetitions ..." % (args.figure, args.repeats), file=sys.stderr, flush=True)
    t0 = time.perf_counter()
    tr, params = run_figure(args.figure, repeats=args.repeats, steps=args.steps, seed=args.seed)
    dt = time.perf_counter() - t0
    print("done in %.1f s; final kappa: %s" % (dt, np.array2string(tr.kappa[-1], precision=3, threshold=8)), file=sys.stderr)
    data = tr.as_dict()
    data["distance_to_M"] = tr.distance_to_M
    data["params_json"] = np.array(json.dumps(params))
    folder = os.path.dirname(os.path.abspath(out))
    fd, tmp = tempfile.mkstemp(suffix=".npz", dir=folder)
    try:
        with os.fdopen(fd, "wb") as fh:
            np.savez(fh, **data)
        os.replace(tmp, out)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise
    print("wrote %s" % out, file=sys.stderr)
    return 0
