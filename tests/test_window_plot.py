"""The window grid's figure (`notebooks/window_plot.py`, `benchmarks/window_figure.py`): one marker per end drawn, of
the end's mechanism, at its enclosure's midpoint; an upper end "none" at the proved interval's end; a setting not
proved hollow; the figure script refuses a bad output path before any work."""
from __future__ import annotations

import csv
import importlib.util
import sys
from collections import Counter
from pathlib import Path

import pytest

pytest.importorskip("matplotlib")

ROOT = Path(__file__).resolve().parents[1]
H = 4e-13  # the certificates' half width

#: W's ends from the float64 profile route, not from the grid's certificates: slr_verify.landscape.float_window(
#: gamma=sqrt(gamma2), d=d, L=L, lam_range=(1e-4, 10)) -> (lo, hi, mechanism_lo, mechanism_hi); hi None at the scan's end
FLOAT_ENDS = {(0.5, 20, 3): (0.2962502857163892, 1.0010975658567867, "crossing", "pitchfork"),
              (1.5, 50, 10): (0.18367820844211386, 1.9990476363452292, "crossing", "pitchfork"),
              (0.5, 400, 10): (0.09072182760885374, 0.8924379482417185, "crossing", "pitchfork"),
              (1.5, 50, 20): (0.18367820844211413, None, "crossing", None)}
LAM_MAX = 10.0
FIELDS = ["gamma2", "d", "L", "proved", "lo_lower", "lo_upper", "mechanism_lo", "hi_lower", "hi_upper", "mechanism_hi",
          "unique_lo", "unique_hi", "boxes", "leaves", "seconds", "units", "reason"]


def _load(name, path):
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


def _table(path):
    """The hand-made table: the float ends as enclosures +-H, every setting proved; then gamma^2 = 1/2, d = 400, L = 3
    as a search stopped at lam = 0.5 (lo reached, hi not; its proved part [lo, 0.5]); one mechanism as an older table's
    sentence."""
    rows = []
    for (g2, d, L), (lo, hi, m_lo, m_hi) in FLOAT_ENDS.items():
        rows.append({"gamma2": g2, "d": d, "L": L, "proved": True, "lo_lower": lo - H, "lo_upper": lo + H,
                     "mechanism_lo": m_lo, "hi_lower": hi - H if hi else "nan", "hi_upper": hi + H if hi else "nan",
                     "mechanism_hi": m_hi or "none", "unique_lo": lo + H, "unique_hi": hi - H if hi else LAM_MAX})
    rows[0]["mechanism_lo"] = "crossing: the pair k = (1e-9, 1, 0) has lower risk than the oracle just outside"
    lo = FLOAT_ENDS[(0.5, 400, 10)][0]  # lo does not depend on L (docs/MATH.md §13)
    rows.append({"gamma2": 0.5, "d": 400, "L": 3, "proved": False, "lo_lower": lo - H, "lo_upper": lo + H,
                 "mechanism_lo": "crossing", "hi_lower": "nan", "hi_upper": "nan", "mechanism_hi": "",
                 "unique_lo": lo + H, "unique_hi": 0.5, "reason": "time limit"})
    with open(path, "w", newline="") as fh:
        w = csv.DictWriter(fh, FIELDS)
        w.writeheader()
        w.writerows(rows)
    return path


@pytest.mark.slow  # matplotlib imported and a figure drawn (the README run's budget)
def test_one_marker_per_end_of_its_mechanism(tmp_path):
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    wp = _load("window_plot", ROOT / "notebooks" / "window_plot.py")
    fig = wp.plot_window_grid(_table(tmp_path / "t.csv"))
    try:
        assert [ax.get_title() for ax in fig.axes] == [r"$\gamma^2 = 0.5$", r"$\gamma^2 = 1.5$"]
        colour = {L: f"C{i}" for i, L in enumerate((3, 10, 20))}  # a colour per L, in order
        marks = [(ax.get_title(), line.get_gid(), line.get_xdata()[0], line.get_color(), line.get_ydata()[0],
                  line.get_markerfacecolor()) for ax in fig.axes for line in ax.lines if line.get_gid()]
        assert Counter(m[1] for m in marks) == {"lo:crossing:proved": 4, "hi:pitchfork:proved": 3, "hi:none:proved": 1,
                                                "lo:crossing:not proved": 1}
        at = {(m[0], m[1].split(":")[0], m[2], m[3], m[1].endswith(":proved")): m[4] for m in marks}
        assert len(at) == len(marks)
        for (g2, d, L), (lo, hi, _, _) in FLOAT_ENDS.items():
            key = (rf"$\gamma^2 = {g2:g}$", d, colour[L], True)
            assert at[(key[0], "lo", *key[1:])] == pytest.approx(lo, abs=1e-15)
            assert at[(key[0], "hi", *key[1:])] == pytest.approx(hi if hi else LAM_MAX, abs=1e-15)
        assert [m[5] for m in marks if m[1].endswith("not proved")] == ["none"]  # hollow
        proved_part = [line for line in fig.axes[0].lines if line.get_linestyle() == ":"]
        assert len(proved_part) == 1 and list(proved_part[0].get_ydata()) == pytest.approx([0.0907218276, 0.5])
    finally:
        plt.close(fig)


def test_the_figure_script_checks_its_output_path_first(tmp_path):
    wf = _load("window_figure", ROOT / "benchmarks" / "window_figure.py")
    missing_table = str(tmp_path / "no_table.csv")  # never read: --out is refused first
    for bad in (tmp_path / "no_folder" / "w.png", tmp_path / "w.txt", tmp_path):
        with pytest.raises(SystemExit, match="--out") as exc:
            wf.main(["--table", missing_table, "--out", str(bad)])
        assert str(bad) in str(exc.value)
    with pytest.raises(SystemExit, match="--table"):
        wf.main(["--table", missing_table, "--out", str(tmp_path / "w.png")])
