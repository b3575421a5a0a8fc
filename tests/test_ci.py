"""``.ci/run`` runs everything, the README's test command first and verbatim, and stops at the first failure.

The stages (docs/usage.md, "Tests and tox"): the README's test command, the slow tests, the notebooks in quick
mode, ``slr-verify derive --check``, the docs with warnings as errors. Read as text; nothing is run here.
"""
from __future__ import annotations

from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
README_TEST = 'python -m pip install ".[test]" && python -m pytest'
STAGES = (
    README_TEST,
    "python -m pytest -m slow --ignore=tests/test_notebooks.py",
    "SLR_QUICK=1 python -m pytest tests/test_notebooks.py -m slow",
    "slr-verify derive --check",
    "sphinx-build -W --keep-going -b html docs",
)


def _commands():
    text = (ROOT / ".ci" / "run").read_text(encoding="utf-8")
    lines = [ln.strip() for ln in text.splitlines()]
    return [ln for ln in lines if ln and not ln.startswith("#")]


def test_readme_states_the_test_command():
    assert README_TEST in (ROOT / "README.md").read_text(encoding="utf-8")


def test_stages_in_order_readme_command_first():
    cmds = _commands()
    at = [next((i for i, c in enumerate(cmds) if c.startswith(stage)), None) for stage in STAGES]
    assert None not in at, f"a stage is missing from .ci/run: {STAGES[at.index(None)]}"
    assert at == sorted(at), ".ci/run runs its stages out of order"
    first = next(c for c in cmds if c.startswith(("python", "slr-verify", "sphinx-build", "SLR_")))
    assert first.startswith(README_TEST), "the README's test command is not the first command of .ci/run"


def test_fails_on_any_stage():
    """``set -euo pipefail``, and the ``a && b`` line ends with ``|| exit`` (``set -e`` alone ignores a failing ``a``)."""
    cmds = _commands()
    assert "set -euo pipefail" in cmds
    assert all(c.rstrip().endswith(("|| exit $?", "|| exit 1")) for c in cmds if "&&" in c)
