"""Every notebook under notebooks/ is valid and its code compiles (default run), and runs
headless, top to bottom, in quick mode (marker ``slow``: CI's third stage, ``.ci/run``; ``tox -e notebooks``).

Each notebook is executed with nbclient in a fresh kernel (working directory notebooks/, so
``import slr_nb`` works) with ``SLR_QUICK=1`` (fewer repetitions and steps) and
``SLR_FIGURES_DIR`` pointing at a temporary folder, so the run does not touch the committed
figures; any cell error fails the test, and each notebook must write at least one PNG. The
executions (a kernel each, importing and generating the kernels anew) cost about twice the default
run's budget: CI runs them after the other slow tests (``.ci/run``; docs/usage.md, "Tests and tox").
"""
from __future__ import annotations

from pathlib import Path

import pytest

nbformat = pytest.importorskip("nbformat")

NB_DIR = Path(__file__).resolve().parents[1] / "notebooks"
NOTEBOOKS = sorted(NB_DIR.glob("*.ipynb"))
#: seconds per cell before nbclient gives up (quick mode needs a few seconds per notebook)
CELL_TIMEOUT = 600

ids = [p.stem for p in NOTEBOOKS]


def test_notebooks_exist():
    names = {p.name for p in NOTEBOOKS}
    for n in ("fig3_oracle_vs_linear", "fig4a", "fig4b", "fig5", "fig7a", "fig7b", "phase_portrait", "bayes_gap", "landscape",
              "fig8_fig10_transformer", "fig9_multihead", "fig1b_probing", "bayes_vs_predictors", "dynamics"):
        assert f"{n}.ipynb" in names, f"notebooks/{n}.ipynb is missing"


@pytest.mark.parametrize("path", NOTEBOOKS, ids=ids)
def test_notebook_structure(path):
    """nbformat v4, valid; one leading markdown cell naming the figure; then code; no stored outputs."""
    nb = nbformat.read(path, as_version=4)
    nbformat.validate(nb)
    assert nb.nbformat == 4
    first, *rest = nb.cells
    assert first.cell_type == "markdown" and first.source.lstrip().startswith("#")
    assert rest and all(c.cell_type == "code" for c in rest)
    assert all(not c.get("outputs") for c in rest), "commit notebooks without outputs (figures go to notebooks/figures)"


@pytest.mark.parametrize("path", NOTEBOOKS, ids=ids)
def test_notebook_code_compiles(path):
    """Every code cell is valid Python (IPython magics and shell lines aside)."""
    nb = nbformat.read(path, as_version=4)
    for i, c in enumerate(nb.cells):
        if c.cell_type == "code":
            src = "\n".join(line for line in c.source.splitlines() if not line.lstrip().startswith(("%", "!")))
            compile(src, f"{path.name}[cell {i}]", "exec")


@pytest.mark.slow
@pytest.mark.parametrize("path", NOTEBOOKS, ids=ids)
def test_notebook_executes_quick(path, tmp_path, monkeypatch):
    nbclient = pytest.importorskip("nbclient")
    pytest.importorskip("matplotlib")
    pytest.importorskip("ipykernel")
    # the kernel inherits this process's environment
    monkeypatch.setenv("SLR_QUICK", "1")
    monkeypatch.setenv("SLR_FIGURES_DIR", str(tmp_path))
    monkeypatch.setenv("MPLBACKEND", "Agg")
    monkeypatch.delenv("SLR_SGD_FALLBACK", raising=False)
    nb = nbformat.read(path, as_version=4)
    client = nbclient.NotebookClient(
        nb, timeout=CELL_TIMEOUT, kernel_name="python3", resources={"metadata": {"path": str(NB_DIR)}}
    )
    client.execute()  # raises CellExecutionError on the first failing cell
    pngs = sorted(tmp_path.glob("*.png"))
    assert pngs, f"{path.name} wrote no PNG to SLR_FIGURES_DIR"
    assert all(p.stat().st_size > 1000 for p in pngs)
    assert not any(o.get("output_type") == "error" for c in nb.cells for o in c.get("outputs", []))
