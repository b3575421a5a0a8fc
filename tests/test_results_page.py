"""The generated results page (docs/results-generated.md) is what benchmarks/results_page.py writes from the committed
CSV files of benchmarks/results/: a CSV changed without regenerating the page, or the page edited by hand, fails here.
Standard library only, well under a second."""
from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SCRIPT = ROOT / "benchmarks" / "results_page.py"


def _page_module():
    spec = importlib.util.spec_from_file_location("results_page", SCRIPT)
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # its dataclass looks its module up there
    spec.loader.exec_module(module)
    return module


def test_committed_page_is_generated():
    rp = _page_module()
    committed = (ROOT / "docs" / "results-generated.md").read_text(encoding="utf-8")
    assert committed == rp.render(), "docs/results-generated.md is stale: run python benchmarks/results_page.py"
    assert rp.main(["--check"]) == 0


def test_budget_rows_and_unknown_files_are_picked_up(tmp_path):
    """A row of budgets.csv appears with its calibration figure and commit; a CSV the script does not describe is
    still listed; a CSV without calibration or commit columns is said to lack them."""
    rp = _page_module()
    (tmp_path / "budgets.csv").write_text("what,seconds,calibration_s,units,commit,date\n"
                                          "slr-verify check (default mode),88.0,0.92,95.7,abc1234,2026-11-24\n")
    (tmp_path / "new_table.csv").write_text("a,b\n1,2\n")
    (tmp_path / "window_ends_mp.csv").write_text("gamma2,d,L,end,lower,upper,end_30_digits,inside,distance_to_midpoint\n"
                                                 "0.5,400,10,lo,0.09,0.1,0.095,True,1e-15\n")
    page = rp.render(tmp_path)
    assert "| slr-verify check (default mode) | 88.0 | 0.92 | 95.7 | abc1234 | 2026-11-24 |" in page
    assert "`benchmarks/results/new_table.csv`: 1 rows, columns `a`, `b`" in page
    assert "Calibration figure: not recorded in the CSV." in page and "Commit: not recorded in the CSV" in page
    assert "No file `benchmarks/results/replay_certificates.csv` yet." in page
    out = tmp_path / "page.md"
    assert rp.main(["--results", str(tmp_path), "--out", str(out)]) == 0
    assert out.read_text(encoding="utf-8") == page
    assert rp.main(["--results", str(tmp_path), "--out", str(out), "--check"]) == 0
    out.write_text(page + "edited by hand\n", encoding="utf-8")
    assert rp.main(["--results", str(tmp_path), "--out", str(out), "--check"]) == 1
