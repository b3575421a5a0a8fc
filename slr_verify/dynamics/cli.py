"""``slr-verify pgd --figure 4a|4b|5|7a|7b``: run a setting of the paper and write an .npz.

The output path is checked before anything is computed (its folder exists and is writable, the
path is not a folder); the file is written atomically with the user's umask permissions.
"""
from __future__ import annotations

import json
import sys
import time

import numpy as np

from ..model.outputs import check_output_path, write_atomic

__all__ = ["add_pgd_parser", "run_pgd", "check_output_path", "write_atomic"]


def _int_at_least(minimum):
    """An argparse type: an integer >= minimum (a bad value is a one-line usage error, exit 2)."""
    import argparse

    def parse(text):
        try:
            v = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"expected an integer, got {text!r}") from None
        if v < minimum:
            raise argparse.ArgumentTypeError(f"must be >= {minimum}, got {v}")
        return v

    return parse


def add_pgd_parser(subparsers):
    from ..model.settings import FIGURES

    p = subparsers.add_parser("pgd", help="run one of the paper's PGD experiments (`docs/MATH.md` §11)")
    p.add_argument("--figure", required=True, choices=sorted(FIGURES))
    p.add_argument("--repeats", type=_int_at_least(1), default=30)
    p.add_argument("--steps", type=_int_at_least(1), default=None, help="override the figure's number of steps")
    p.add_argument("--out", default=None, help="output .npz (default pgd_<figure>.npz)")
    p.add_argument("--seed", type=_int_at_least(0), default=0)
    p.add_argument("--quiet", action="store_true", help="no progress bar")
    p.set_defaults(func=run_pgd)
    return p


def run_pgd(args):
    from .experiments import check_figure, run_figure

    out = args.out or "pgd_%s.npz" % args.figure
    path = check_output_path(out)  # a ValueError is a one-line usage error (exit 2) in cli.main
    check_figure(args.figure, repeats=args.repeats, steps=args.steps, seed=args.seed)
    print("running figure %s: %d repetitions ..." % (args.figure, args.repeats), file=sys.stderr, flush=True)
    t0 = time.perf_counter()
    tr, params = run_figure(args.figure, repeats=args.repeats, steps=args.steps, seed=args.seed,
                            progress=None if args.quiet else sys.stderr)
    print("done in %.1f s; final kappa: %s" % (time.perf_counter() - t0, np.array2string(tr.kappa[-1], precision=3, threshold=8)),
          file=sys.stderr)
    data = tr.as_dict()
    data["distance_to_M"] = tr.distance_to_M
    data["params_json"] = np.array(json.dumps(params))
    write_atomic(path, lambda fh: np.savez(fh, **data))
    print("wrote %s" % out, file=sys.stderr)
    return 0
