"""The project's calibration workload (benchmarks/calibrate.py) is the one its recorded figures were divided by: the
same code as the development machines' shared script, statement for statement (docstrings aside), wherever that
script is present (skipped in a clone without it)."""
from __future__ import annotations

import ast
import os
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
OURS = ROOT / "benchmarks" / "calibrate.py"
#: the shared script beside the checkout, as the results recorded before this copy name it
SHARED = Path(os.environ.get("SLR_VERIFY_SHARED_CALIBRATE", ROOT.parent / "shared" / "bench" / "calibrate.py"))


def _workload(path) -> list:
    """Every top-level statement as an AST dump, docstrings dropped (the module's and the functions')."""
    tree = ast.parse(path.read_text(encoding="utf-8"))

    def strip(body):
        doc = body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant) \
            and isinstance(body[0].value.value, str)
        return body[1:] if doc else body

    out = []
    for node in strip(tree.body):
        if isinstance(node, ast.FunctionDef):
            node.body = strip(node.body)
        out.append(ast.dump(node, include_attributes=False))
    return out


def test_the_workload_is_what_the_figures_were_measured_with():
    ours = _workload(OURS)
    assert [s for s in ours if "FunctionDef(name=" in s[:20]], "no function found: the parse is wrong"
    if not SHARED.is_file():
        pytest.skip(f"the shared calibration script is not here ({SHARED}): nothing to compare with")
    assert ours == _workload(SHARED)


def test_the_comparison_sees_a_changed_workload(tmp_path):
    """One changed constant (24 erf passes become 25) is a different workload; a changed docstring is not."""
    text = OURS.read_text(encoding="utf-8")
    changed = tmp_path / "changed.py"
    changed.write_text(text.replace("for _ in range(24):", "for _ in range(25):"))
    assert _workload(changed) != _workload(OURS)
    reworded = tmp_path / "reworded.py"
    reworded.write_text(text.replace('"""Pure Python: 4.5 million', '"""Plain Python: 4.5 million'))
    assert _workload(reworded) == _workload(OURS)
