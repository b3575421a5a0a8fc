"""Command line: ``slr-verify check | pgd | experiment | sweep | derive`` (also ``python -m slr_verify``).

Exit codes: 0 success; 1 a claim failed, was refuted, or is pending (unless ``--allow-pending``);
2 a usage error (an unknown claim id, a bad value), reported in one line.
"""
from __future__ import annotations

import argparse
import sys

__all__ = ["main", "build_parser"]


class _Parser(argparse.ArgumentParser):
    def error(self, message):  # one line and exit 2, never a traceback
        self.exit(2, f"{self.prog}: error: {message}\n")


def _check(args) -> int:
    from .claims import ids, report, run_claims

    if args.only:
        unknown = [i for i in args.only if i not in ids()]
        if unknown:
            print(f"slr-verify check: error: unknown claim id(s) {', '.join(unknown)}; known ids: {', '.join(ids())}",
                  file=sys.stderr)
            return 2
    mode = "thorough" if args.thorough else "fast" if args.fast else "default"
    results = list(run_claims(mode=mode, only=set(args.only) if args.only else None,
                              progress=None if args.quiet else sys.stderr))
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
    size.add_argument("--thorough", action="store_true", help="larger samples and grids (minutes)")
    size.add_argument("--fast", action="store_true", help="the smallest samples (what the test suite runs)")
    check.add_argument("--only", nargs="+", metavar="ID", help="check only these claim ids")
    check.add_argument("--allow-pending", action="store_true", help="exit 0 even if some claim is pending")
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
