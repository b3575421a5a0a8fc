"""``slr-verify pgd --figure 4a|4b|5|7a|7b`` or ``--gamma2 --eps --d --L --lam|--lam0 --alpha --steps``: run a
setting of the paper, or the user's (constant or decreasing lam), and write an .npz.

The output path is checked before anything is computed (its folder exists and is writable, the
path is not a folder); the file is written atomically with the user's umask permissions.
"""
from __future__ import annotations

import json
import sys
import time

import numpy as np

from ..model.cli_args import add_model_options, integer_option
from ..model.outputs import check_output_path, write_atomic


def add_pgd_parser(subparsers):
    from ..model.settings import FIGURES

    p = subparsers.add_parser("pgd", help="run PGD from random starts: a figure of the paper, or any setting and schedule "
                              "(`docs/MATH.md` §11)", allow_abbrev=False)
    p.add_argument("--figure", choices=sorted(FIGURES), help="the paper's setting of that figure (the others: your own)")
    add_model_options(p, note="without --figure: required",
                      extra={"eps": "PGD on the population risk does not depend on it"})
    p.add_argument("--lam", type=float, help="a constant inverse temperature (without --figure: this or --lam0)")
    p.add_argument("--lam0", type=float, help="the decreasing schedule lam_t = lam0 / (1 + 1e-4 t) (Figures 4a, 5)")
    p.add_argument("--alpha", type=float, help="the step size (without --figure: required). From sphere starts the oracle "
                   "is a linearly stable fixed point only for alpha < 2/lambda_max, which is not Proposition 10's "
                   "alpha_max (that one is for reduced PGD on M): `slr-verify certify step-size` prints both")
    p.add_argument("--init", choices=("sphere", "M"), default="sphere", help="starts uniform on the spheres (default) "
                   "or on the manifold M")
    p.add_argument("--repeats", type=integer_option(1), default=30)
    p.add_argument("--steps", type=integer_option(1), default=None, help="the number of steps (a figure's by default)")
    p.add_argument("--out", default=None, help="output .npz (default pgd_<figure>.npz, or pgd.npz)")
    p.add_argument("--seed", type=integer_option(0), default=0)
    p.add_argument("--quiet", action="store_true", help="no progress bar")
    p.set_defaults(func=run_pgd)
    return p


def _setting(args):
    """The figure's :class:`~slr_verify.model.settings.Setting`, or the user's from the options (ValueError naming
    what is missing)."""
    from ..model.params import ModelSetting
    from ..model.settings import FIGURES, Setting

    own = [n for n in ("gamma2", "eps", "d", "L", "lam", "lam0", "alpha") if getattr(args, n) is not None]
    if args.figure:
        if own:
            raise ValueError(f"--figure fixes the setting: drop {', '.join('--' + n for n in own)} (or --figure)")
        return FIGURES[args.figure]
    missing = [f"--{n}" for n in ("gamma2", "eps", "d", "L", "alpha") if getattr(args, n) is None]
    if (args.lam is None) == (args.lam0 is None):
        missing.append("exactly one of --lam (constant) and --lam0 (decreasing)")
    if args.steps is None:
        missing.append("--steps")
    if missing:
        raise ValueError(f"without --figure, {', '.join(missing)} required (no silent default)")
    lam = args.lam if args.lam is not None else args.lam0
    model = ModelSetting(gamma2=args.gamma2, eps=args.eps, d=args.d, L=args.L)
    model.at(lam)  # lam validated with the setting's ranges
    if not (args.alpha > 0 and np.isfinite(args.alpha)):
        raise ValueError(f"--alpha must be a positive number, got {args.alpha!r}")
    return Setting("own", args.init, model, lam, "constant" if args.lam is not None else "decreasing",
                   args.alpha, args.steps, runs=args.repeats)


def run_pgd(args):
    from .experiments import check_setting, run_setting

    S = _setting(args)
    out = args.out or ("pgd_%s.npz" % args.figure if args.figure else "pgd.npz")
    path = check_output_path(out)  # a ValueError is a one-line usage error (exit 2) in cli.main
    check_setting(S, repeats=args.repeats, steps=args.steps, seed=args.seed)
    print("running %s: %d repetitions ..." % (f"figure {args.figure}" if args.figure else S.describe(), args.repeats),
          file=sys.stderr, flush=True)
    t0 = time.perf_counter()
    tr, params = run_setting(S, repeats=args.repeats, steps=args.steps, seed=args.seed,
                             progress=None if args.quiet else sys.stderr)
    print("done in %.1f s; final kappa: %s" % (time.perf_counter() - t0, np.array2string(tr.kappa[-1], precision=3, threshold=8)),
          file=sys.stderr)
    data = tr.as_dict()
    data["distance_to_M"] = tr.distance_to_M
    data["params_json"] = np.array(json.dumps(params))
    write_atomic(path, lambda fh: np.savez(fh, **data))
    print("wrote %s" % out, file=sys.stderr)
    return 0
