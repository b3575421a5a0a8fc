"""Command line: ``slr-verify check | pgd | derive`` (also ``python -m slr_verify``)."""
from __future__ import annotations

import argparse
import json
import sys
import textwrap

__all__ = ["main", "format_table"]


def _fmt_err(x):
    return "-" if x is None else f"{x:.1e}"


def _fmt_z(z):
    return "-" if z is None else f"{z:.2f}"


def format_table(results) -> str:
    """The report: claim, statement, routes, worst error, worst |z|, verdict."""
    head = ("claim", "statement", "routes", "worst err", "|z|", "verdict")
    rows = []
    for r in results:
        routes = "; ".join(r.get("routes") or []) or "-"
        rows.append((r["id"], r["statement"], routes, _fmt_err(r.get("worst_error")), _fmt_z(r.get("worst_z")), r["verdict"].upper()))
    widths = [18, 44, 44, 9, 6, 7]
    lines = []

    def emit(cells):
        wrapped = [textwrap.wrap(c, w) or [""] for c, w in zip(cells, widths)]
        for i in range(max(len(w) for w in wrapped)):
            lines.append("  ".join((w[i] if i < len(w) else "").ljust(wd) for w, wd in zip(wrapped, widths)).rstrip())

    emit(head)
    lines.append("  ".join("-" * w for w in widths))
    for row in rows:
        emit(row)
    counts = {v: sum(r["verdict"] == v for r in results) for v in ("pass", "fail", "pending")}
    lines.append("")
    lines.append(f"{counts['pass']} passed, {counts['fail']} failed, {counts['pending']} pending")
    return "\n".join(lines)


def _check(args) -> int:
    from .claims import run_claims

    only = set(args.only) if args.only else None
    results = list(run_claims(thorough=args.thorough, only=only, progress=None if args.quiet else sys.stderr))
    if args.json:
        keep = ("id", "statement", "routes", "worst_error", "worst_z", "verdict", "where", "seconds", "details")
        print(json.dumps({"claims": [{k: r.get(k) for k in keep} for r in results]}, indent=2, default=str))
    else:
        print(format_table(results))
    return 1 if any(r["verdict"] == "fail" for r in results) else 0


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="slr-verify",
        description="Verify the claims of 'Attention layers provably solve single-location regression' (ICLR 2025).",
    )
    sub = parser.add_subparsers(dest="command", required=True)
    check = sub.add_parser("check", help="check every claim of the paper by independent routes")
    check.add_argument("--json", action="store_true", help="print the report as JSON")
    check.add_argument("--thorough", action="store_true", help="larger samples and grids (minutes)")
    check.add_argument("--only", nargs="+", metavar="ID", help="check only these claim ids")
    check.add_argument("--quiet", action="store_true", help="no progress on stderr")
    check.set_defaults(func=_check)
    try:
        from .dynamics.cli import add_pgd_parser

        add_pgd_parser(sub)
    except ImportError:  # pragma: no cover - dynamics not installed
        pass
    try:
        from .derive import add_derive_parser

        add_derive_parser(sub)
    except ImportError:
        pass
    return parser


def main(argv=None) -> int:
    args = build_parser().parse_args(argv)
    return int(args.func(args) or 0)


if __name__ == "__main__":  # pragma: no cover
    raise SystemExit(main())
