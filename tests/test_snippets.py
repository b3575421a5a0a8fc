"""The Python snippets of README.md and docs/ run as pasted.

Every fenced ```python block of README.md and of the Markdown pages under docs/ is executed, on
its own, in a fresh namespace and a temporary working directory: a snippet that uses a name it
does not define (the README's old ``slr.zeta(t, g)``) fails here. A block preceded by the comment
``<!-- snippet: slow -->`` (training runs, proofs over lam intervals: tens of seconds) runs only
with the ``slow`` marker (``tox -e slow``); ``<!-- snippet: skip -->`` is never run (a sketch with
elisions: docs/adding-a-claim.md).
The Quick start's two commands are checked verbatim: ``.ci/run`` runs the second one.
"""
from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PAGES = [ROOT / "README.md"] + sorted(p for p in (ROOT / "docs").rglob("*.md") if "_build" not in p.parts)
FENCE = re.compile(r"(?:<!--\s*snippet:\s*(?P<mark>\w+)[^>]*-->\s*\n)?```python\n(?P<code>.*?)```", re.DOTALL)
QUICK_START = ('python -m pip install . && slr-verify check', 'python -m pip install ".[test]" && python -m pytest')


def snippets():
    out = []
    for page in PAGES:
        text = page.read_text(encoding="utf-8")
        for m in FENCE.finditer(text):
            line = text.count("\n", 0, m.start("code"))
            rel = page.relative_to(ROOT).as_posix()
            mark = m.group("mark") or "default"
            marks = {"slow": [pytest.mark.slow], "skip": [pytest.mark.skip(reason="marked skip in the page")]}.get(mark, [])
            out.append(pytest.param(rel, line, m.group("code"), marks=marks, id=f"{rel}:{line}"))
    return out


SNIPPETS = snippets()


def test_snippets_found():
    """The README and the usage page hold snippets, and at least one runs in the default tests."""
    pages = {p.values[0] for p in SNIPPETS}
    assert {"README.md", "docs/usage.md"} <= pages
    assert any(not p.marks for p in SNIPPETS if p.values[0] == "README.md")


def test_quick_start_verbatim():
    """README's Quick start block holds the two commands exactly (CI runs the second verbatim)."""
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    block = readme.split("## Quick start", 1)[1].split("```bash\n", 1)[1].split("```", 1)[0]
    assert tuple(block.strip().splitlines()) == QUICK_START
    assert QUICK_START[1] in (ROOT / ".ci" / "run").read_text(encoding="utf-8")


@pytest.mark.parametrize("page, line, code", SNIPPETS)
def test_snippet_runs(page, line, code, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    exec(compile(code, f"{page}:{line}", "exec"), {"__name__": "__snippet__"})  # noqa: S102 - running the page is the test
