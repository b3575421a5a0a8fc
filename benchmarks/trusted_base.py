"""The checker's trusted base, module by module, with line counts read from the code: the table between the markers
``<!-- trusted-base:start -->`` and ``<!-- trusted-base:end -->`` of docs/certificates.md (tests/test_checker_package.py
fails when it is stale).

    python benchmarks/trusted_base.py            # rewrite the table
    python benchmarks/trusted_base.py --check    # exit 1 if it differs
"""
from __future__ import annotations

import ast
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
CHECKER = ROOT / "slr_verify" / "checker"
DOC = ROOT / "docs" / "certificates.md"
START, END = "<!-- trusted-base:start -->", "<!-- trusted-base:end -->"


def _summary(path) -> str:
    doc = ast.get_docstring(ast.parse(path.read_text())) or ""
    first = " ".join(doc.split("\n\n")[0].split())
    first = first.split(". ")[0].rstrip(".")
    return first if len(first) <= 150 else first[:147].rsplit(" ", 1)[0] + " ..."


def table() -> str:
    hand = [ROOT / "slr_verify" / "__init__.py"] + sorted(p for p in CHECKER.glob("*.py"))
    gen = sorted(p for p in (CHECKER / "generated").glob("*.py"))
    count = lambda p: len(p.read_text().splitlines())
    rows = ["| module | lines | what it is |", "|---|---:|---|"]
    rows += [f"| `{p.relative_to(ROOT / 'slr_verify')}` | {count(p)} | {_summary(p)} |" for p in hand]
    rows.append(f"| **the checker, written by hand** | **{sum(map(count, hand))}** | everything a replay loads from the suite "
                "(the package root's `__init__.py` imports nothing until asked) |")
    rows += [f"| `checker/generated/{p.name}` | {count(p)} | {_summary(p)} |" for p in gen]
    rows.append(f"| **the committed generated kernels** | **{sum(map(count, gen))}** | written by `slr-verify derive --arb`, "
                "compared and their premises proved by `slr-verify derive --check` and the default tests |")
    return "\n".join(rows)


def main(argv=None) -> int:
    check = "--check" in (argv if argv is not None else sys.argv[1:])
    text = DOC.read_text()
    i, j = text.index(START) + len(START), text.index(END)
    new = text[:i] + "\n" + table() + "\n" + text[j:]
    if check:
        return 0 if new == text else 1
    DOC.write_text(new)
    return 0


if __name__ == "__main__":
    sys.exit(main())
