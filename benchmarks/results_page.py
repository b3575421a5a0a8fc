"""Write the generated results page, docs/results-generated.md, from the CSV files of benchmarks/results/.

    python benchmarks/results_page.py            # rewrite docs/results-generated.md
    python benchmarks/results_page.py --check    # exit 1 if the committed page is not what the CSVs give

For every CSV the page says what it measures, the command that wrote it, the calibration figure and the commit, and
tabulates its timings and box counts. The calibration figure (seconds of benchmarks/calibrate.py on the machine of
the run) and the commit are read from the CSV's own columns (``calibration_s``, ``commit``, ``date``) when it has
them; a CSV without them is said to lack them, never given a figure from elsewhere (where both ``seconds`` and
``units`` are recorded, the ratio they imply is shown as such). ``budgets.csv`` (columns what, seconds, calibration_s,
units, commit, date: one row per measured budget, e.g. ``slr-verify check`` in default mode) is tabulated row by row.
A CSV this script does not describe is still listed, with its columns and row count.

Standard library only: the page depends on the CSVs and on the names of the committed certificates, nothing else
(tests/test_results_page.py checks that the committed page is what this script writes).
"""
from __future__ import annotations

import argparse
import csv
import math
import sys
from collections import Counter, defaultdict
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

ROOT = Path(__file__).resolve().parents[1]
RESULTS = ROOT / "benchmarks" / "results"
CERTIFICATES = ROOT / "slr_verify" / "certificates"
PAGE = ROOT / "docs" / "results-generated.md"
BUDGET_FIELDS = ["what", "seconds", "calibration_s", "units", "commit", "date"]


# --------------------------------------------------------------------------- formatting
def _table(header, rows) -> list:
    out = ["| " + " | ".join(header) + " |", "|" + "|".join("---" for _ in header) + "|"]
    out += ["| " + " | ".join(str(c) for c in row) + " |" for row in rows]
    return out + [""]


def _f(x, digits=1) -> str:
    return f"{x:,.{digits}f}"


def _int(x) -> str:
    return f"{int(x):,}"


def _num(s) -> float:
    try:
        return float(s)
    except (TypeError, ValueError):
        return float("nan")


def _read(path: Path):
    with open(path, newline="") as fh:
        reader = csv.DictReader(fh)
        rows = list(reader)
        return list(reader.fieldnames or []), rows


def _distinct(rows, column) -> list:
    return sorted({r[column].strip() for r in rows if (r.get(column) or "").strip()})


def _provenance(fields, rows) -> list:
    """The calibration figure, commit and date as the CSV records them, or the statement that it does not."""
    out = []
    if "calibration_s" in fields:
        values = _distinct(rows, "calibration_s")
        out.append(f"- Calibration figure: {', '.join(v + ' s' for v in values) if values else 'column present, empty'}.")
    else:
        line = "- Calibration figure: not recorded in the CSV"
        if "seconds" in fields and "units" in fields:
            ratios = [_num(r["seconds"]) / _num(r["units"]) for r in rows if _num(r["units"]) >= 1]
            if ratios:
                lo, hi = f"{min(ratios):.2f}", f"{max(ratios):.2f}"
                line += f" (its seconds / units imply {lo} s" + (f" to {hi} s" if hi != lo else "") + ")"
        out.append(line + ".")
    for column, what in (("commit", "Commit"), ("date", "Date")):
        if column in fields:
            values = _distinct(rows, column)
            out.append(f"- {what}: {', '.join(values) if values else 'column present, empty'}.")
        elif column == "commit":
            out.append("- Commit: not recorded in the CSV (the commits that changed it: `git log -- <file>`).")
    return out


# --------------------------------------------------------------------------- one summary per CSV
def _budgets(fields, rows) -> list:
    if not rows:
        return ["No measured budget has been recorded yet (the file holds its header only).", ""]
    return _table(BUDGET_FIELDS, [[r.get(c, "") for c in BUDGET_FIELDS] for r in rows])


def _replay(fields, rows) -> list:
    by_kind = defaultdict(list)
    for r in rows:
        by_kind[r["kind"]].append(r)
    body = []
    for kind in sorted(by_kind):
        rs = by_kind[kind]
        body.append([f"`{kind}`", len(rs), sum(r["accepted"] == "True" for r in rs), _int(sum(_num(r["leaves"]) for r in rs)),
                     _int(sum(_num(r["bytes"]) for r in rs)), _f(sum(_num(r["seconds"]) for r in rs)),
                     _f(sum(_num(r["units"]) for r in rs if r["units"]))])
    body.append(["all", len(rows), sum(r["accepted"] == "True" for r in rows), _int(sum(_num(r["leaves"]) for r in rows)),
                 _int(sum(_num(r["bytes"]) for r in rows)), _f(sum(_num(r["seconds"]) for r in rows)),
                 _f(sum(_num(r["units"]) for r in rows if r["units"]))])
    out = _table(["kind", "files", "accepted", "leaves", "bytes", "replay seconds", "units"], body)
    slow = sorted(rows, key=lambda r: -_num(r["seconds"]))[:3]
    out += ["The slowest replays: " + "; ".join(f"`{r['file']}` ({_int(_num(r['leaves']))} leaves, {r['seconds']} s)"
                                                 for r in slow) + ".", ""]
    committed = sorted(p.name for p in CERTIFICATES.glob("*.json.gz"))
    missing = [n for n in committed if n not in {r["file"] for r in rows}]
    if missing:
        out += [f"Not in this CSV (committed since it was written, not yet measured): {', '.join(f'`{n}`' for n in missing)}.",
                ""]
    return out


def _window_grid(fields, rows) -> list:
    body = [[r["gamma2"], r["d"], r["L"], r["proved"], _int(_num(r["boxes"])), _int(_num(r["leaves"])), r["seconds"],
             r["units"] or "-"] for r in rows]
    body.append(["all", "", "", f"{sum(r['proved'] == 'True' for r in rows)} of {len(rows)}",
                 _int(sum(_num(r["boxes"]) for r in rows)), _int(sum(_num(r["leaves"]) for r in rows)),
                 _f(sum(_num(r["seconds"]) for r in rows)),
                 _f(sum(_num(r["units"]) for r in rows if r["units"])) if any(r["units"] for r in rows) else "-"])
    return _table(["gamma^2", "d", "L", "proved", "boxes", "leaves", "seconds", "units"], body)


def _scaling(fields, rows) -> list:
    body = [[r["workers"], f"{r['proved']} of {r['settings']}", r["wall_seconds"], r["units"], r["core_minutes"],
             r["settings_per_core_minute"], r["speedup"], f"{r['calibration_before']}, {r['calibration_after']}"]
            for r in rows]
    return _table(["workers", "proved", "wall seconds", "units", "core-minutes", "settings per core-minute",
                   "speed-up", "calibration before, after"], body)


def _ends_mp(fields, rows) -> list:
    inside = sum(r["inside"] == "True" for r in rows)
    worst = max((_num(r["distance_to_midpoint"]) for r in rows), default=float("nan"))
    return [f"{inside} of {len(rows)} ends inside their enclosures; the largest distance from the 30-digit end to the "
            f"enclosure's midpoint is {worst:.2g}. No timings are recorded.", ""]


def _float_accuracy(fields, rows) -> list:
    inside = sum(r["in_enclosure"] == "True" for r in rows)
    worst = max((abs(_num(r["relative_error"])) for r in rows), default=float("nan"))
    below = sum(_num(r["relative_error"]) < 0 for r in rows)
    return [f"{inside} of {len(rows)} mpmath minima inside their certified enclosures; the float route within {worst:.3g} "
            f"relative of them ({below} of {len(rows)} below).", ""]


def _diagram(fields, rows) -> list:
    body = [[f"{_num(r['lam']):.4g}", r["proved"], r["oracle"], _int(_num(r["boxes"])), r["seconds"]] for r in rows]
    body.append(["all", f"{sum(r['proved'] == 'True' for r in rows)} of {len(rows)}",
                 f"{sum(r['oracle'] == 'True' for r in rows)} of {len(rows)}", _int(sum(_num(r["boxes"]) for r in rows)),
                 _f(sum(_num(r["seconds"]) for r in rows), 2)])
    return _table(["lam", "proved", "(k*, v*) the global minimiser", "boxes", "seconds"], body)


def _basins(fields, rows) -> list:
    by_lam = defaultdict(list)
    for r in rows:
        by_lam[_num(r["lam"])].append(r)
    body = []
    for lam in sorted(by_lam):
        rs = by_lam[lam]
        body.append([f"{lam:.4g}", len(rs), f'{_int(sum(_num(r["count"]) for r in rs))} of {_int(_num(rs[0]["runs"]))}',
                     ", ".join(f"{k} {n}" for k, n in sorted(Counter(r["how"] for r in rs).items())), rs[0]["seconds"]])
    total = sum(_num(rs[0]["seconds"]) for rs in by_lam.values())
    out = _table(["lam", "end classes", "runs accounted for", "how (classes)", "seconds"], body)
    return out + [f"{len(by_lam)} values of lam, {_f(total)} s in all (the seconds are per lam: every row of a lam repeats "
                  "them).", ""]


def _rate(fields, rows) -> list:
    body = [[f'[{_num(r["lam_lo"]):.4g}, {_num(r["lam_hi"]):.4g}]', r["proved"], f'{_num(r["delta"]):.3g}' if r["delta"] else "",
             f'{_num(r["mu"]):.3g}' if r["mu"] else "", f'{_num(r["area_fraction"]):.4f}' if r["area_fraction"] else "",
             r["leaves"], r["boxes"], r["seconds"]] for r in rows]
    return _table(["lam", "proved", "delta", "mu", "area fraction >=", "leaves", "boxes", "seconds"], body) + [""]


def _transverse(fields, rows) -> list:
    body = [[f'{_num(r["lam"]):.4g}', r["step"], f'{_num(r["alpha"]):.4g}', r["domain"],
             f'2^{round(math.log2(_num(r["min_width"])))}',
             f'{_num(r["attracting"]):.4f}', f'{_num(r["repelling"]):.4f}', f'{_num(r["undecided"]):.4f}',
             f'{_num(r["q_max"]):.8f}' if r["q_max"] and _num(r["q_max"]) > 0 else "", r["boxes"], r["proved"]] for r in rows]
    return _table(["lam", "step", "alpha", "domain", "boxes to", "attracting", "repelling", "undecided", "q_max", "boxes",
                   "accepted"], body) + [""]


def _steps(fields, rows) -> list:
    body = [[f'{_num(r["lam"]):.4g}', f'{_num(r["alpha_5"]):.4g}', f'{_num(r["two_over_lambda_max_hi"]):.5g}', r["step"],
             f'{_num(r["alpha"]):.4g}', r["T_eigenvalues"], f'{_num(r["T_spectral_radius"]):.5g}'] for r in rows]
    return _table(["lam", "alpha_5", "2/lambda_max", "step", "alpha", "eigenvalues of T at (0.99, 0.99)",
                   "spectral radius"], body) + [""]


def _mutants(fields, rows) -> list:
    outcomes, body = ("killed", "survived", "timeout", "error"), []
    for f in sorted({r["file"] for r in rows}):
        rs = [r for r in rows if r["file"] == f]
        body.append([f"`{f}`", len(rs)] + [sum(r["outcome"] == o for r in rs) for o in outcomes])
    out = _table(["module", "mutants", *outcomes], body)
    survivors = [f"- `{r['file']}:{r['line']}` ({r['operator']}): `{r['original']}` -> `{r['mutated']}`"
                 for r in rows if r["outcome"] == "survived"]
    return out + (["Survived:", ""] + survivors + [""] if survivors else [])


@dataclass(frozen=True)
class Source:
    """How one CSV of benchmarks/results/ is described: its title, what it measures, the command that writes it (the
    script's usage line), and its summary."""

    pattern: str
    title: str
    measures: str
    command: str
    summary: Callable
    #: the calibration figure and commit stated for the whole file (False: the table gives them per row)
    provenance: bool = True


SOURCES = [
    Source("budgets.csv", "Budgets of the main job and the test suite",
           "The wall-clock time of a whole job (one row each: `slr-verify check` in default mode, the README's test "
           "command, ...) with the calibration figure measured in the same sitting and the ratio, in calibration "
           "units; the budget is 100 units for each of the two (a requirement, not a measurement).",
           "time slr-verify check                 # or the README's test command: python -m pytest\n"
           "python benchmarks/calibrate.py        # in the same sitting: calibration_s; units = seconds / calibration_s\n"
           "# then one row added to benchmarks/results/budgets.csv by hand",
           _budgets, provenance=False),
    Source("replay_certificates.csv", "The committed certificates replayed",
           "Every committed proof certificate (`slr_verify/certificates/`, {doc}`certificates`) replayed by the "
           "independent checker: per file its kind, lam interval, d, whether it was accepted, leaves, compressed bytes, "
           "replay seconds and calibration units (the premises' SymPy proofs, run once before the first file, are not "
           "in the per-file times).",
           "python benchmarks/replay_certificates.py --out benchmarks/results/replay_certificates.csv --calibration S",
           _replay),
    Source("window_grid.csv", "The oracle's window proved at ten settings",
           "`certify.oracle_window` at ten settings, one parameter varied at a time around Figure 4b's (gamma^2 = 1/2, "
           "d = 400, L = 10): both ends' enclosures and mechanisms, whether the certificate was accepted, boxes of the "
           "branch and bound, leaves of the certificate, seconds and calibration units (the number of workers is not "
           "recorded; the script's default is 2).",
           "python benchmarks/window_grid.py table --gamma2 G --d D --L L --store DIR/g.zarr --append "
           "--out benchmarks/results/window_grid.csv --calibration S",
           _window_grid),
    Source("window_grid_figure.csv", "The oracle's window proved over d: the figure's grid",
           "`certify.window_grid` at every setting of a product grid (gamma^2 x d x L, eps = 0, lam up to 10), the "
           "data of the figure on {doc}`window-grid` (`benchmarks/window_figure.py`): the same columns as "
           "`window_grid.csv`, the mechanisms as their tags (the number of workers is not recorded).",
           "python benchmarks/window_grid.py table --gamma2 G --d D --L L --eps 0 --lam-max 10 --store DIR/g.zarr "
           "--out benchmarks/results/window_grid_figure.csv [--calibration S]",
           _window_grid),
    Source("window_grid_scaling.csv", "The window grid on one and two workers",
           "The 24-setting grid of `window_grid_figure.csv` proved on a local Dask cluster of 1 and of 2 workers, each on "
           "a fresh store: wall seconds, calibration units, certified settings per core-minute, speed-up over one "
           "worker (`certify.window_grid`; the calibration measured before and after).",
           "python benchmarks/window_grid.py scaling --store DIR --out benchmarks/results/window_grid_scaling.csv",
           _scaling),
    Source("window_ends_mp.csv", "The proved window ends against the mpmath profile",
           "Each end proved in `window_grid.csv` against the 30-digit end of the mpmath profile alone "
           "(`landscape.ends_mp`: no ball arithmetic, no dual bound): whether it lies inside the enclosure, and its "
           "distance to the enclosure's midpoint.",
           "python benchmarks/window_ends_mp.py --grid benchmarks/results/window_grid.csv "
           "--out benchmarks/results/window_ends_mp.csv",
           _ends_mp),
    Source("float_profile_accuracy.csv", "The float profile's global minimum against mpmath",
           "At every committed enclosure of the global minimum with r = 0: the float64 profile route's minimum "
           "(`landscape.float_global_minimum`) against the 30-digit mpmath minimum on the circle over the certified "
           "kappa range (golden section on `landscape.trs.profile_mp`), and whether the latter lies in the enclosure: "
           "the basis of the float route's accuracy in the global-minimiser claim (no timings).",
           "python benchmarks/float_profile_accuracy.py --out benchmarks/results/float_profile_accuracy.csv",
           _float_accuracy, provenance=False),
    Source("certified_diagram_*.csv", "The certified global-minimiser diagram",
           "`certify.global_minimiser` at each lam of a log grid of 24 values in [0.01, 2] (gamma^2 = 1/2, eps = 0, "
           "L = 10, d in the file name): whether the branch and bound closed, whether (k*, v*) is the global minimiser, "
           "the enclosures, the float profile's values beside them, boxes and seconds (no calibration units).",
           "python benchmarks/certified_diagram.py --d D --out benchmarks/results/certified_diagram_D.csv",
           _diagram),
    Source("mutation_checker_*.csv", "Mutants of the certificate checker",
           "One fault at a time planted in the checker's source (comparisons loosened or tightened, conditions negated, "
           "`and` <-> `or`, `return True` <-> `return False`, constants nudged, `raise Rejected` -> `pass`), a random "
           "sample of the sites, each run against the corruption tests (`tests/test_checker_forgeries.py`, "
           "`tests/test_certificates.py`): killed (a test failed), survived, timeout or error (no import). The file "
           "name says the modules (`replay`: the old checker's `certify/replay*.py`; none: `slr_verify/checker/`) and "
           "the seed; each mutant's diff is in the JSON beside it (no calibration units).",
           "python benchmarks/mutation_checker.py --seed S --limit N [--modules FILES --out benchmarks/results/NAME]",
           _mutants, provenance=False),
    Source("r1_rate_*.csv", "R1: a certified Lojasiewicz constant below the saddle's level",
           "Per lam piece at Figure 4b's model: delta, the certified mu with |Pg|^2 >= mu (R - R*) on S_delta, the "
           "certified lower bound of the area fraction of Q in S_delta, the leaves, boxes and seconds of the search "
           "(`certify.rate.lojasiewicz`, replayed by `checker.rate.check_rate`; docs/MATH.md, \"R1\"; no calibration "
           "units; the commit per row).",
           "python benchmarks/rate_r1.py --lam LO:HI --pieces N --out benchmarks/results/r1_rate_fig4b.csv",
           _rate, provenance=False),
    Source("transverse_points_*.csv", "The transverse map of M at points of lam",
           "At Figure 4b's model, at 9 log-spaced lam in [0.01, 1] and two steps (the paper's 4e-3 and alpha_5 of the "
           "committed Theorem 5 certificate's piece), the certified transverse map (`certify.transverse.transverse_map`, "
           "kind `transverse-map`, each certificate accepted by the checker) over the oracle's corner, the saddle's "
           "square and the whole square: the area fractions attracting, repelling (a real eigenvalue of T of modulus "
           "above 1), undecided, and q_max. Each map is proved at its point lam; lam itself is sampled (no "
           "calibration units; the commit per row).",
           "python benchmarks/transverse_points.py --out benchmarks/results/transverse_points_4b.csv",
           _transverse, provenance=False),
    Source("transverse_steps_*.csv", "The two steps against the oracle's stability threshold",
           "At the same lam: alpha_5 (committed certificate), 2/lambda_max enclosed in arb (`certify.alpha_stable`: the "
           "step above which the oracle is linearly unstable for PGD on the spheres), and the eigenvalues of T at "
           "(0.99, 0.99) by the float route (central differences of one NumPy step) at 4e-3 and at alpha_5.",
           "python benchmarks/transverse_points.py --steps --out benchmarks/results/transverse_steps_4b.csv",
           _steps, provenance=False),
    Source("basin_rates_*.csv", "Basin rates of constant-lam PGD",
           "1000 sphere-initialised PGD runs per lam (13 values in [0.02, 2]) at Figure 4b's model and step (`4b`) or "
           "Figure 5's (`5`), every end point classified (`certify.sample_basins`): per end class its count, rate and "
           "95% interval, how the runs were classified, and the seconds per lam (no calibration units).",
           "python benchmarks/basin_rates.py --setting S --out benchmarks/results/basin_rates_S.csv",
           _basins),
]


def _source(name) -> Source | None:
    for s in SOURCES:
        if Path(name).match(s.pattern):
            return s
    return None


# --------------------------------------------------------------------------- the page
HEAD = """\
# Measured figures (generated)

<!-- Generated by benchmarks/results_page.py from benchmarks/results/*.csv: do not edit by hand; rerun
     `python benchmarks/results_page.py` after changing a CSV (tests/test_results_page.py checks it). -->

Timings and box counts of the suite's long runs, as the CSV files under `benchmarks/results/` record them. A time on
a shared machine means little alone: the suite states a budget as a ratio to `benchmarks/calibrate.py` (a fixed
workload) measured in the same sitting (calibration units). For each file: what it measures, the command that writes it, the
calibration figure and the commit when the file records them (when it does not, this page says so), and the figures.
The runs recorded as JSON, and what the findings read off these tables, are on {doc}`results`.
"""


def render(results: Path = RESULTS) -> str:
    """The page, from the CSV files in ``results``."""
    lines = [HEAD]
    files = sorted(p.name for p in Path(results).glob("*.csv"))
    for src in SOURCES:
        matched = [f for f in files if Path(f).match(src.pattern)]
        lines += [f"## {src.title}", "", src.measures, "", "Written by:", "", "```bash", src.command, "```", ""]
        if not matched:
            lines += [f"No file `benchmarks/results/{src.pattern}` yet.", ""]
        for f in matched:
            fields, rows = _read(Path(results) / f)
            lines += [f"### `benchmarks/results/{f}`", "", f"- Rows: {len(rows)}."]
            lines += (_provenance(fields, rows) if rows and src.provenance else []) + [""]
            lines += src.summary(fields, rows)
    other = [f for f in files if _source(f) is None]
    if other:
        lines += ["## Other files", "", "Not described by `benchmarks/results_page.py` yet (add a `Source` there):", ""]
        for f in other:
            fields, rows = _read(Path(results) / f)
            lines += [f"- `benchmarks/results/{f}`: {len(rows)} rows, columns {', '.join(f'`{c}`' for c in fields)}."]
        lines += [""]
    return "\n".join(lines).rstrip("\n") + "\n"


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--check", action="store_true", help="compare the committed page with what the CSVs give; exit 1 if not")
    ap.add_argument("--results", type=Path, default=RESULTS, help="the folder of the CSV files (default benchmarks/results)")
    ap.add_argument("--out", type=Path, default=PAGE, help="the page (default docs/results-generated.md)")
    a = ap.parse_args(argv)
    if not a.results.is_dir():
        raise SystemExit(f"--results: {str(a.results)!r} is not a folder")
    page = render(a.results)
    if a.check:
        current = a.out.read_text(encoding="utf-8") if a.out.is_file() else ""
        if current != page:
            print(f"{a.out} is stale: rerun python benchmarks/results_page.py", file=sys.stderr)
            return 1
        return 0
    a.out.write_text(page, encoding="utf-8")
    print(f"wrote {a.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
