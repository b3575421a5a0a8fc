"""``slr-verify experiment transformer | probing``: run one of the experiments of reference
sections 15-16 and write its logged metrics, with the settings, atomically as JSON (the output
path is checked before anything runs)."""
from __future__ import annotations

import json
import sys

from ..model.cli_args import integer_option
from ..model.outputs import check_output_path, write_atomic


def add_experiment_parser(subparsers):
    p = subparsers.add_parser("experiment", help="the Transformer layer (Figures 8, 10) or [CLS] probing (Figure 1b)")
    sub = p.add_subparsers(dest="experiment", required=True)
    t = sub.add_parser("transformer", help="train the Transformer layer of Appendix E.3 in JAX")
    t.add_argument("--heads", type=integer_option(1), default=1, help="1: Figure 8; 2: Figure 10 (K = 2 locations)")
    t.add_argument("--quick", action="store_true", help="a few hundred steps, 2 runs (for tests)")
    t.add_argument("--runs", type=integer_option(1), default=None)
    t.add_argument("--steps", type=integer_option(1), default=None)
    t.add_argument("--seed", type=integer_option(0), default=0)
    t.add_argument("--float64", action="store_true", help="double precision (default float32, as in the paper)")
    t.add_argument("--out", default=None, help="output .json (default transformer_h<heads>.json)")
    t.add_argument("--quiet", action="store_true", help="no progress bar")
    t.set_defaults(func=run_transformer)
    q = sub.add_parser("probing", help="linear probing of [CLS] per layer (the 'probing' extra: torch, transformers)")
    q.add_argument("--quick", action="store_true", help="a subsample of every set (for tests)")
    q.add_argument("--seed", type=integer_option(0), default=0)
    q.add_argument("--out", default="probing.json", help="output .json")
    q.add_argument("--quiet", action="store_true", help="no progress bar")
    q.set_defaults(func=run_probing)
    return p


def _write_json(path, obj):
    # strict JSON: a NaN or infinity left in the results is an error here, not a bare NaN in the file
    text = json.dumps(obj, indent=1, allow_nan=False)
    write_atomic(path, lambda fh: fh.write(text.encode()))


def run_transformer(args) -> int:
    from .transformer import quick_settings, transformer_layer

    try:
        path = check_output_path(args.out or f"transformer_h{args.heads}.json")
    except ValueError as exc:
        print(f"slr-verify experiment transformer: error: {exc}", file=sys.stderr)
        return 2
    settings = dict(quick_settings(args.heads)) if args.quick else {}
    runs = args.runs if args.runs is not None else settings.pop("runs", None)
    steps = args.steps if args.steps is not None else settings.pop("steps", None)
    settings.pop("runs", None)
    settings.pop("steps", None)
    if args.float64:
        settings["dtype"] = "float64"
    res = transformer_layer(heads=args.heads, runs=runs, steps=steps, seed=args.seed,
                            progress=None if args.quiet else sys.stderr, **settings)
    _write_json(path, res.to_dict())
    print(f"wrote {path}: final excess risk {res.excess_risk[-1].tolist()}, align_k {res.align_k[-1].tolist()}, "
          f"align_v {res.align_v[-1].tolist()} ({res.seconds:.1f} s)")
    return 0


def run_probing(args) -> int:
    from .probing import probe_cls

    try:
        path = check_output_path(args.out)
    except ValueError as exc:
        print(f"slr-verify experiment probing: error: {exc}", file=sys.stderr)
        return 2
    res = probe_cls(quick=args.quick, seed=args.seed, progress=None if args.quiet else sys.stderr)
    _write_json(path, res)
    print(f"wrote {path}")
    return 0
