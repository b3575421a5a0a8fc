"""Command line: ``slr-verify check | pgd | experiment | sweep | derive`` (also ``python -m slr_verify``).

Exit codes of ``check``: 0 when every verdict is the one the suite has established (a claim that
needs a missing optional extra is reported as not run and does not count); 1 on any other verdict
(a fail, a new refutation, an established refutation that no longer reproduces, a pending claim
without ``--allow-pending``); 2 a usage error (an unknown claim id, a bad value), in one line.
"""
from __future__ import annotations

import argparse
import os
import sys

__all__ = ["main", "build_parser"]


class _Parser(argparse.ArgumentParser):
    def error(self, message):  # one line and exit 2, never a traceback
        self.exit(2, f"{self.prog}: error: {message}\n")


def _check(args) -> int:
    from .claims import CLAIMS, ids, report, run_claims

    if args.list:
        print(report.claims_table(CLAIMS), end="")
        return 0
    if args.jobs is not None and args.jobs < 1:
        print(f"slr-verify check: error: --jobs must be a positive integer, got {args.jobs}", file=sys.stderr)
        return 2

    if args.only:
        unknown = [i for i in args.only if i not in ids()]
        if unknown:
            print(f"slr-verify check: error: unknown claim id(s) {', '.join(unknown)}; known ids: {', '.join(ids())}",
                  file=sys.stderr)
            return 2
    mode = "thorough" if args.thorough else "fast" if args.fast else "default"
    results = run_claims(mode=mode, only=set(args.only) if args.only else None,
                         progress=None if args.quiet else sys.stderr, jobs=args.jobs or os.cpu_count() or 1)
    if args.json:
        print(report.as_json(results))
    elif args.markdown:
        print(report.markdown(results))
    else:
        print(report.text(results))
    return report.exit_code(results, allow_pending=args.allow_pending)


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(prog="slr-verify",
                     description="Verify the claims of 'Attention layers provably solve single-location regression' (ICLR 2025).")
    sub = parser.add_subparsers(dest="command", parser_class=_Parser)
    check = sub.add_parser("check", help="check every claim of the paper and every finding, by independent routes")
    fmt = check.add_mutually_exclusive_group()
    fmt.add_argument("--json", action="store_true", help="print the report as JSON")
    fmt.add_argument("--markdown", action="store_true", help="print the report as Markdown")
    size = check.add_mutually_exclusive_group()
    size.add_argument("--thorough", action="store_true",
                      help="the paper's full run counts and horizons (20 and 10 training runs, 100k-step Figure 9): an hour")
    size.add_argument("--fast", action="store_true", help="the smallest samples (what the test suite runs)")
    check.add_argument("--only", nargs="+", action="extend", metavar="ID",
                       help="check only these claim ids (repeatable: --only a --only b runs both)")
    check.add_argument("--jobs", type=int, metavar="N", help="worker processes (default: one per core; 1: in this process)")
    check.add_argument("--list", action="store_true", help="print the claims table (Markdown, from the registry) and exit")
    check.add_argument("--allow-pending", action="store_true", help="a pending claim does not make the exit code 1")
    check.add_argument("--quiet", action="store_true", help="no progress on stderr")
    check.set_defaults(func=_check)
    from .derive import add_derive_parser
    from .dynamics.cli import add_pgd_parser
    from .experiments.cli import add_experiment_parser
    from .sweep.cli import add_sweep_parser

    add_pgd_parser(sub)
    add_experiment_parser(sub)
    add_sweep_parser(sub)
    add_derive_parser(sub)
    return parser


def main(argv=None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if getattr(args, "func", None) is None:
        parser.print_help()
        return 0
    return int(args.func(args) or 0)


if __name__ == "__main__":  # pragma: no cover
    raise SystemExit(main())
