"""A seeded mutation run of the certificate checker in a separate checkout (issue 45, item 5).

``benchmarks/mutation_checker.py`` is the suite's full harness (a temporary copy of the package per mutant, every
site or a sample). This one is the short review run: the mutants a reviewer makes by hand, drawn with a seed, run in
one checkout that is not the shared working tree (a ``git worktree`` or clone, ``--repo``), one mutant at a time, in one
pytest process with ``nice``.

Mutants, at sites of the AST of ``slr_verify/checker/*.py`` (not ``generated/``; sites inside f-strings, which only
build messages, docstrings, and the integers of subscripts such as ``x[0]``, which index rather than bound, skipped):

* ``and-or``: ``and`` <-> ``or``;
* ``cmp``: ``<`` <-> ``<=``, ``>`` <-> ``>=``, ``==`` <-> ``!=``, ``is`` <-> ``is not``, ``in`` <-> ``not in``;
* ``not``: ``not x`` -> ``x`` (the negation removed);
* ``int``: an integer constant n -> n + 1 (2 -> 3, so ``x / 2`` -> ``x / 3``; booleans excluded);
* ``float``: a nonzero float constant x -> x * 2 / 3 (1/2 -> 1/3).

A mutant is the module's ``ast.unparse`` with one node changed, written over the file in ``--repo`` and restored after
its run. The control (every target module replaced by its ``ast.unparse``, nothing changed) must pass first. Each run:
``python -m pytest TESTS -x -q -n 0 -p no:cacheprovider --deselect ...`` with ``PYTHONPATH`` and the working directory
at ``--repo`` (the copy's package imported, checked before the run), killed after ``--timeout`` seconds (a hang counts as
killed, reported as ``timeout``). Outcomes: ``killed`` (a test failed or a module failed to collect), ``timeout``,
``survived`` (every test passed), ``error`` (pytest exited 3, 4 or 5).

Usage::

    git -C /work/main worktree add /tmp/mutwt HEAD
    python benchmarks/mutate_checker.py --repo /tmp/mutwt --list
    python benchmarks/mutate_checker.py --repo /tmp/mutwt --seed 45 --sample 40
    python benchmarks/mutate_checker.py --repo /tmp/mutwt --match rate.py:78:float   # rerun chosen sites

The report (``--out``, default ``benchmarks/results/mutate_checker_seedS.json``): the arguments, the control's time, one
row per mutant (key, outcome, seconds, the failing test, the changed line before and after).
"""
from __future__ import annotations

import argparse
import ast
import json
import os
import random
import signal
import subprocess
import sys
import time
from pathlib import Path

#: the checker's and the certificates' test files (non-slow stage), fastest and most direct first so that -x stops early
TESTS = ["tests/test_checker_decide.py", "tests/test_checker_reader.py", "tests/test_taylor.py", "tests/test_rate.py",
         "tests/test_checker_forgeries.py", "tests/test_window_certificate.py", "tests/test_theorem5.py",
         "tests/test_dynamics_certificates.py", "tests/test_profile.py", "tests/test_certificates.py",
         "tests/test_binding.py", "tests/test_checker_package.py", "tests/test_checker_work.py"]
#: tests that fail on any rewrite of a checker file (a table of its lines, its size), not on a fault
DESELECT = ["tests/test_checker_package.py::test_the_trusted_base_table_is_current",
            "tests/test_checker_package.py::test_the_trusted_base_is_small"]

_CMP = {ast.Lt: ast.LtE, ast.LtE: ast.Lt, ast.Gt: ast.GtE, ast.GtE: ast.Gt, ast.Eq: ast.NotEq, ast.NotEq: ast.Eq,
        ast.Is: ast.IsNot, ast.IsNot: ast.Is, ast.In: ast.NotIn, ast.NotIn: ast.In}
_SYM = {ast.Lt: "<", ast.LtE: "<=", ast.Gt: ">", ast.GtE: ">=", ast.Eq: "==", ast.NotEq: "!=", ast.Is: "is",
        ast.IsNot: "is not", ast.In: "in", ast.NotIn: "not in"}


def _skipped(tree) -> set:
    """ids of the nodes under f-strings and of docstring expressions (not mutated)."""
    out = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.JoinedStr):
            out.update(id(n) for n in ast.walk(node))
        if isinstance(node, ast.Subscript):  # an index (x[0], m[5 + 10 * i + j]): structure, not a constant of a test
            out.update(id(n) for n in ast.walk(node.slice) if isinstance(n, ast.Constant))
        if isinstance(node, (ast.Module, ast.FunctionDef, ast.ClassDef, ast.AsyncFunctionDef)) and node.body and \
                isinstance(node.body[0], ast.Expr) and isinstance(node.body[0].value, ast.Constant):
            out.add(id(node.body[0].value))
    return out


def sites(path: Path, rel: str) -> list:
    """(key, node index in ast.walk order, operator, detail) for every mutable site of one module."""
    tree = ast.parse(path.read_text())
    skip = _skipped(tree)
    out = []
    for i, node in enumerate(ast.walk(tree)):
        if id(node) in skip:
            continue
        line = getattr(node, "lineno", 0)
        if isinstance(node, ast.BoolOp):
            out.append((f"{rel}:{line}:and-or:{type(node.op).__name__}", i, "and-or", 0))
        elif isinstance(node, ast.Compare):
            for j, op in enumerate(node.ops):
                if type(op) in _CMP:
                    out.append((f"{rel}:{line}:cmp:{_SYM[type(op)]}#{j}", i, "cmp", j))
        elif isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not):
            out.append((f"{rel}:{line}:not", i, "not", 0))
        elif isinstance(node, ast.Constant) and type(node.value) is int:
            out.append((f"{rel}:{line}:int:{node.value}", i, "int", 0))
        elif isinstance(node, ast.Constant) and type(node.value) is float and node.value != 0:
            out.append((f"{rel}:{line}:float:{node.value!r}", i, "float", 0))
    # one key per site: a repeated key (two sites of one kind on a line) gets its position
    seen = {}
    for k, (key, *rest) in enumerate(out):
        seen[key] = seen.get(key, 0) + 1
        if seen[key] > 1:
            out[k] = (f"{key}@{seen[key]}", *rest)
    return out


def mutant_source(path: Path, index: int, op: str, detail: int) -> str:
    """The module's ast.unparse with the node at ``index`` (ast.walk order) mutated by ``op``."""
    tree = ast.parse(path.read_text())
    node = next(n for i, n in enumerate(ast.walk(tree)) if i == index)
    if op == "and-or":
        node.op = ast.Or() if isinstance(node.op, ast.And) else ast.And()
    elif op == "cmp":
        node.ops[detail] = _CMP[type(node.ops[detail])]()
    elif op == "not":
        parent = next(p for p in ast.walk(tree) for f, v in ast.iter_fields(p)
                      if v is node or isinstance(v, list) and any(x is node for x in v))
        for f, v in ast.iter_fields(parent):
            if v is node:
                setattr(parent, f, node.operand)
            elif isinstance(v, list):
                setattr(parent, f, [node.operand if x is node else x for x in v])
    elif op == "int":
        node.value += 1
    elif op == "float":
        node.value = node.value * 2 / 3
    return ast.unparse(ast.fix_missing_locations(tree))


def _targets(repo: Path) -> list:
    return sorted(p for p in (repo / "slr_verify" / "checker").glob("*.py"))


def _run(repo: Path, tests, timeout) -> tuple:
    """(outcome, seconds, the first failing test or None) of one pytest run in ``repo``."""
    env = dict(os.environ, PYTHONPATH=str(repo), PYTHONDONTWRITEBYTECODE="1")
    cmd = ["nice", "-n", "10", sys.executable, "-m", "pytest", *tests, "-x", "-q", "-n", "0", "-p", "no:cacheprovider",
           *(a for d in DESELECT for a in ("--deselect", d))]
    t = time.monotonic()
    p = subprocess.Popen(cmd, cwd=repo, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                         start_new_session=True)
    try:
        out, _ = p.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        os.killpg(p.pid, signal.SIGKILL)
        p.communicate()
        return "timeout", time.monotonic() - t, None
    dt = time.monotonic() - t
    failed = next((ln.split(" ", 2)[1] for ln in out.splitlines() if ln.startswith(("FAILED ", "ERROR "))), None)
    outcome = {0: "survived", 1: "killed", 2: "killed"}.get(p.returncode, "error")
    return outcome, dt, failed or (out.strip().splitlines()[-1] if out.strip() else None)


def _imports_the_copy(repo: Path) -> bool:
    env = dict(os.environ, PYTHONPATH=str(repo))
    got = subprocess.run([sys.executable, "-c", "import slr_verify.checker as c; print(c.__file__)"], cwd=repo, env=env,
                         capture_output=True, text=True).stdout.strip()
    return Path(got).resolve().is_relative_to(repo.resolve())


def _changed_line(before: str, after: str) -> tuple:
    a, b = before.splitlines(), after.splitlines()
    for x, y in zip(a, b):
        if x != y:
            return x.strip(), y.strip()
    return "", ""


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repo", required=True, type=Path, help="a checkout to mutate (never the shared working tree)")
    ap.add_argument("--seed", type=int, default=45)
    ap.add_argument("--sample", type=int, default=40, help="mutants drawn (0: all sites)")
    ap.add_argument("--match", default="", help="comma-separated texts: only the sites whose key contains one")
    ap.add_argument("--timeout", type=float, default=400.0, help="seconds per mutant (a hang counts as killed)")
    ap.add_argument("--tests", default=",".join(TESTS))
    ap.add_argument("--list", action="store_true", help="print the drawn sites and run nothing")
    ap.add_argument("--no-control", action="store_true")
    ap.add_argument("--out", type=Path, default=None)
    a = ap.parse_args(argv)
    repo = a.repo.resolve()
    here = Path(__file__).resolve().parents[1]
    if repo == here and not a.list:
        print(f"refusing to mutate the checkout this script runs from ({here}): use a worktree (--repo)", file=sys.stderr)
        return 2
    tests = [t for t in a.tests.split(",") if (repo / t).exists()]
    all_sites = [(p, rel, *s) for p in _targets(repo) for rel in [str(p.relative_to(repo))] for s in sites(p, rel)]
    if a.match:
        drawn = [s for s in all_sites if any(m in s[2] for m in a.match.split(","))]
    else:
        drawn = random.Random(a.seed).sample(all_sites, a.sample) if a.sample else all_sites
    if a.list:
        for s in drawn:
            print(s[2])
        print(f"{len(drawn)} of {len(all_sites)} sites", file=sys.stderr)
        return 0
    if not _imports_the_copy(repo):
        print(f"PYTHONPATH={repo} does not import the copy's slr_verify", file=sys.stderr)
        return 2
    originals = {p: p.read_text() for p in _targets(repo)}
    out = a.out or here / "benchmarks" / "results" / f"mutate_checker_seed{a.seed}.json"
    report = {"args": {k: str(v) for k, v in vars(a).items()}, "tests": tests, "deselected": DESELECT, "sites": len(all_sites),
              "control": None, "rows": []}
    try:
        if not a.no_control:
            for p in originals:
                p.write_text(ast.unparse(ast.parse(originals[p])))
            outcome, dt, failed = _run(repo, tests, a.timeout * 2)
            report["control"] = {"outcome": outcome, "seconds": round(dt, 1), "failed": failed}
            print(f"control: {outcome} in {dt:.0f} s {failed or ''}", flush=True)
            for p, src in originals.items():
                p.write_text(src)
            if outcome != "survived":
                return 1
        for k, (p, rel, key, index, op, detail) in enumerate(drawn):
            src = mutant_source(p, index, op, detail)
            before, after = _changed_line(ast.unparse(ast.parse(originals[p])), src)
            try:
                p.write_text(src)
                outcome, dt, failed = _run(repo, tests, a.timeout)
            finally:
                p.write_text(originals[p])
            report["rows"].append({"key": key, "outcome": outcome, "seconds": round(dt, 1), "failed": failed,
                                   "before": before, "after": after})
            print(f"[{k + 1}/{len(drawn)}] {outcome:8s} {dt:5.0f} s  {key}  {failed or ''}\n    - {before}\n    + {after}",
                  flush=True)
            out.parent.mkdir(parents=True, exist_ok=True)
            out.write_text(json.dumps(report, indent=1))
    finally:
        for p, src in originals.items():
            p.write_text(src)
    counts = {}
    for r in report["rows"]:
        counts[r["outcome"]] = counts.get(r["outcome"], 0) + 1
    report["summary"] = counts
    out.write_text(json.dumps(report, indent=1))
    print(json.dumps(counts))
    return 0


if __name__ == "__main__":
    sys.exit(main())
