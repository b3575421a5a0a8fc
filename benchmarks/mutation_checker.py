"""Mutation testing of the certificate checker: does the corruption suite notice when the checker itself is wrong?

The checker (``slr_verify/checker/``, docs/certificates.md) is the one piece of the suite a false certificate must get
past. This script plants one fault at a time in its source and runs the corruption tests against the faulty copy: a
mutant the tests do not kill is a fault in the checker that no forgery exposes.

Modules: every ``.py`` under ``slr_verify/checker/`` except the generated kernels (a ``generated/`` folder, files named
``kernels_*.py``); ``--modules a.py,b.py,dir`` (paths relative to the repository) mutates others instead, e.g. the old
checker ``slr_verify/certify/replay*.py``.

Operators, at every applicable site of the AST (sites inside f-strings, which only build messages, are skipped):

* ``cmp``: a comparison loosened or tightened, ``<`` <-> ``<=`` and ``>`` <-> ``>=`` (each operator of a chain);
* ``not-if``: the condition of an ``if`` / ``elif`` statement or of a conditional expression negated;
* ``and-or``: ``and`` <-> ``or``;
* ``return-bool``: ``return False`` <-> ``return True``;
* ``int+1``: an integer constant n -> n + 1 (booleans excluded);
* ``float*(1+1e-6)`` and ``float->0``: a nonzero float constant x -> x * (1 + 1e-6), and x -> 0.0;
* ``raise->pass``: ``raise Rejected(...)`` -> ``pass`` (``--raise-names`` for other exception names).

Each mutant is the module's ``ast.unparse`` with the one node changed. It runs in a fresh temporary copy of the package
(``slr_verify`` copied with its bytecode, the mutated module's bytecode removed, the cache folder of derivations and
generated kernels copied too so that nothing is written to the user's), with ``PYTHONPATH`` and the working directory
at the copy: ``python -m pytest TESTS -x -q -n 0 -p no:cacheprovider``. Outcomes:

* ``killed``: a test failed, or a test module could not be collected (a broken public API);
* ``survived``: every test passed;
* ``timeout``: the run took longer than ``--timeout`` (default: three times the control's time, at least 60 s); its
  process group is killed;
* ``error``: the mutated module does not import, or pytest itself failed (internal or usage error, no test collected).

The control (``--control`` runs only it) is the same run with every target module replaced by its ``ast.unparse``
and no mutation: it must pass, and the copy must be the package the tests import; a normal run starts with it and
stops if it fails. ``--seed S --limit N`` draws N sites at random (all sites without ``--limit``); ``--match`` keeps the
sites whose key (``file:line:operator:node``, as ``--list`` prints them) contains one of its texts (e.g. a survivor's,
to rerun it); ``--list`` prints the sites and runs nothing. The report, rewritten after each mutant, goes to
``benchmarks/results/mutation_checker_seedS`` (``.csv``: one row per mutant; ``.json``: the arguments, the control,
the rows with each mutant's diff, the summary), or to ``--out PREFIX``.

Usage::

    python benchmarks/mutation_checker.py --control
    python benchmarks/mutation_checker.py --seed 1 --limit 40
    python benchmarks/mutation_checker.py --modules slr_verify/certify/replay.py,slr_verify/certify/replay_base.py \\
        --seed 1 --limit 20 --tests tests/test_checker_forgeries.py
"""
from __future__ import annotations

import argparse
import ast
import concurrent.futures
import csv
import difflib
import glob
import json
import os
import random
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from dataclasses import asdict, dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = "slr_verify"
CHECKER = f"{PACKAGE}/checker"
RESULTS = ROOT / "benchmarks" / "results"
DEFAULT_TESTS = ("tests/test_checker_forgeries.py", "tests/test_checker*.py", "tests/test_certificates.py")
CMP = {ast.Lt: ast.LtE, ast.LtE: ast.Lt, ast.Gt: ast.GtE, ast.GtE: ast.Gt}
CMP_TEXT = {ast.Lt: "<", ast.LtE: "<=", ast.Gt: ">", ast.GtE: ">="}
OUTCOMES = ("killed", "survived", "timeout", "error")
FIELDS = ("id", "file", "line", "operator", "original", "mutated", "outcome", "seconds", "detail")


# ------------------------------------------------------------------------------------------------------------ sites

@dataclass(frozen=True)
class Site:
    """One mutation: the ``index``-th node of ``ast.walk`` over ``file``'s tree, the ``operator``, and ``arg`` (the
    position of a comparison's operator in its chain)."""

    file: str
    index: int
    operator: str
    arg: int
    line: int
    original: str
    mutated: str

    @property
    def key(self) -> str:
        return f"{self.file}:{self.line}:{self.operator}:{self.index}.{self.arg}"


def _short(text, n=160) -> str:
    text = re.sub(r"\s+", " ", text).strip()
    return text if len(text) <= n else text[:n - 3] + "..."


def _in_fstrings(tree) -> set:
    """The ids of every node inside an f-string (messages)."""
    out = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.JoinedStr):
            out.update(id(n) for n in ast.walk(node))
    return out


def _is_raise_of(node, names) -> bool:
    exc = node.exc.func if isinstance(node.exc, ast.Call) else node.exc
    name = exc.id if isinstance(exc, ast.Name) else exc.attr if isinstance(exc, ast.Attribute) else None
    return name in names


def _node_mutations(node, raise_names):
    """(operator, arg) for each mutation of one node."""
    if isinstance(node, ast.Compare):
        return [("cmp", i) for i, op in enumerate(node.ops) if type(op) in CMP]
    if isinstance(node, (ast.If, ast.IfExp)):
        return [("not-if", 0)]
    if isinstance(node, ast.BoolOp):
        return [("and-or", 0)]
    if isinstance(node, ast.Return) and isinstance(node.value, ast.Constant) and isinstance(node.value.value, bool):
        return [("return-bool", 0)]
    if isinstance(node, ast.Constant) and type(node.value) is int:
        return [("int+1", 0)]
    if isinstance(node, ast.Constant) and type(node.value) is float and node.value != 0:
        return [("float*(1+1e-6)", 0), ("float->0", 0)]
    if isinstance(node, ast.Raise) and node.exc is not None and _is_raise_of(node, raise_names):
        return [("raise->pass", 0)]
    return []


def _parents(tree) -> dict:
    """id(node) -> (parent, field name) for every node held in a list field (statements, elements)."""
    out = {}
    for parent in ast.walk(tree):
        for name, value in ast.iter_fields(parent):
            if isinstance(value, list):
                for item in value:
                    if isinstance(item, ast.AST):
                        out[id(item)] = (parent, name)
    return out


def _apply(tree, index, operator, arg, raise_names=()):
    """Apply one mutation in place; returns (original text, mutated text) of the changed node."""
    node = list(ast.walk(tree))[index]
    if operator == "cmp":
        before = ast.unparse(node)
        node.ops[arg] = CMP[type(node.ops[arg])]()
        return before, ast.unparse(node)
    if operator == "not-if":
        before = ast.unparse(node.test)
        node.test = ast.UnaryOp(op=ast.Not(), operand=node.test)
        return f"{'if ' if isinstance(node, ast.If) else ''}{before}", \
            f"{'if ' if isinstance(node, ast.If) else ''}{ast.unparse(node.test)}"
    if operator == "and-or":
        before = ast.unparse(node)
        node.op = ast.Or() if isinstance(node.op, ast.And) else ast.And()
        return before, ast.unparse(node)
    if operator == "return-bool":
        before = ast.unparse(node)
        node.value = ast.Constant(value=not node.value.value)
        return before, ast.unparse(node)
    if operator in ("int+1", "float*(1+1e-6)", "float->0"):
        before = repr(node.value)
        node.value = {"int+1": lambda x: x + 1, "float*(1+1e-6)": lambda x: x * (1 + 1e-6),
                      "float->0": lambda x: 0.0}[operator](node.value)
        return before, repr(node.value)
    if operator == "raise->pass":
        parent, name = _parents(tree)[id(node)]
        body = getattr(parent, name)
        body[next(i for i, x in enumerate(body) if x is node)] = ast.Pass()
        return ast.unparse(node), "pass"
    raise ValueError(f"unknown operator {operator!r}")


def _in_line(source, node, before, after) -> tuple:
    """A constant's change shown in its line: (the line, the line with ``after`` in place of the constant)."""
    if node.lineno != node.end_lineno:
        return before, after
    line = source.splitlines()[node.lineno - 1].encode()
    a, b = node.col_offset, node.end_col_offset
    return line.decode().strip(), (line[:a] + after.encode() + line[b:]).decode().strip()


def sites_of(rel, raise_names) -> list:
    """Every mutation site of the module at ``rel`` (relative to the repository)."""
    source = (ROOT / rel).read_text(encoding="utf-8")
    tree = ast.parse(source)
    skip, out = _in_fstrings(tree), []
    for index, node in enumerate(ast.walk(tree)):
        if id(node) in skip:
            continue
        for operator, arg in _node_mutations(node, raise_names):
            fresh = ast.parse(source)
            before, after = _apply(fresh, index, operator, arg, raise_names)
            if isinstance(node, ast.Constant):
                before, after = _in_line(source, node, before, after)
            out.append(Site(rel, index, operator, arg, getattr(node, "lineno", 0), _short(before), _short(after)))
    return sorted(out, key=lambda s: (s.file, s.line, s.index, s.operator, s.arg))


def mutant_source(site, raise_names) -> str:
    tree = ast.parse((ROOT / site.file).read_text(encoding="utf-8"))
    _apply(tree, site.index, site.operator, site.arg, raise_names)
    return ast.unparse(ast.fix_missing_locations(tree)) + "\n"


def identity_source(rel) -> str:
    return ast.unparse(ast.parse((ROOT / rel).read_text(encoding="utf-8"))) + "\n"


def target_modules(spec) -> list:
    """The modules to mutate: ``spec`` (comma-separated files or folders, relative to the repository) or the checker
    package without its generated kernels."""
    items = [s.strip() for s in spec.split(",") if s.strip()] if spec else [CHECKER]
    out = []
    for item in items:
        p = (ROOT / item).resolve()
        if not p.exists():
            raise SystemExit(f"--modules: {item!r} does not exist")
        files = sorted(p.rglob("*.py")) if p.is_dir() else [p]
        out += [f for f in files if "generated" not in f.relative_to(ROOT).parts and not f.name.startswith("kernels_")]
    rels = sorted({str(f.relative_to(ROOT)) for f in out})
    if not rels:
        raise SystemExit(f"no module to mutate in {items}")
    return rels


def test_files(spec) -> list:
    """The test files: ``spec`` (comma-separated files or globs, relative to the repository or absolute) or the
    default corruption tests, each once, in order."""
    patterns = [s.strip() for s in spec.split(",") if s.strip()] if spec else list(DEFAULT_TESTS)
    out = []
    for pattern in patterns:
        for p in sorted(glob.glob(str(ROOT / pattern))):
            if os.path.abspath(p) not in out:
                out.append(os.path.abspath(p))
    if not out:
        raise SystemExit(f"--tests: no test file matches {patterns}")
    return out


# ----------------------------------------------------------------------------------------------------------- running

def _module_name(rel) -> str:
    return rel[:-3].replace("/", ".").removesuffix(".__init__")


def _cache_source() -> Path:
    return Path(os.environ.get("SLR_VERIFY_CACHE", Path.home() / ".cache" / "slr-verify"))


def _copy(files) -> tuple:
    """A fresh copy of the package with ``files`` ({relative path: source}) written in; returns (folder, env)."""
    tmp = Path(tempfile.mkdtemp(prefix="mutation_checker_"))
    shutil.copytree(ROOT / PACKAGE, tmp / PACKAGE, ignore=shutil.ignore_patterns(".pytest_cache"))
    for rel, text in files.items():
        target = tmp / rel
        target.write_text(text, encoding="utf-8")
        for pyc in (target.parent / "__pycache__").glob(f"{target.stem}.*.pyc"):
            pyc.unlink()
    cache = tmp / "cache"
    if _cache_source().is_dir():
        shutil.copytree(_cache_source(), cache, ignore=shutil.ignore_patterns("*.tmp"))
    env = dict(os.environ, PYTHONPATH=str(tmp), SLR_VERIFY_CACHE=str(cache))
    return tmp, env


def _run(cmd, cwd, env, timeout, nice) -> tuple:
    """(return code or None on timeout, output, seconds); on timeout the process group is killed."""
    t0 = time.time()
    cmd = (["nice", "-n", str(nice)] if nice else []) + cmd
    proc = subprocess.Popen(cmd, cwd=cwd, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                            start_new_session=True)
    try:
        out, _ = proc.communicate(timeout=timeout)
        return proc.returncode, out, time.time() - t0
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        out, _ = proc.communicate()
        return None, out, time.time() - t0


def _first_failure(out) -> str:
    for line in out.splitlines():
        if line.startswith(("FAILED ", "ERROR ")):
            return _short(line, 240)
    tail = [line for line in out.splitlines() if line.strip()]
    return _short(tail[-1] if tail else "", 240)


def run_tests(files, tests, timeout, nice, modules=()) -> dict:
    """Run ``tests`` on a copy of the package with ``files`` written in; classify (see the module)."""
    tmp, env = _copy(files)
    try:
        cmd = [sys.executable, "-m", "pytest", *tests, "-x", "-q", "-n", "0", "-p", "no:cacheprovider"]
        rc, out, seconds = _run(cmd, tmp, env, timeout, nice)
        if rc is None:
            return {"outcome": "timeout", "seconds": seconds, "detail": f"over {timeout:.0f} s"}
        if rc == 0:
            return {"outcome": "survived", "seconds": seconds, "detail": _short(out.strip().splitlines()[-1], 240)}
        for mod in modules:
            irc, iout, _ = _run([sys.executable, "-c", f"import importlib; importlib.import_module({_module_name(mod)!r})"],
                                tmp, env, 300, nice)
            if irc != 0:
                return {"outcome": "error", "seconds": seconds, "detail": f"import {_module_name(mod)}: " +
                        _short(iout.strip().splitlines()[-1] if iout.strip() else f"rc {irc}", 200)}
        outcome = "killed" if rc in (1, 2) else "error"
        return {"outcome": outcome, "seconds": seconds, "detail": f"pytest rc {rc}: {_first_failure(out)}"}
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def control(modules, tests, timeout, nice) -> dict:
    """The unmutated run (every target module through ``ast.unparse``); also checks that the copy is what the tests
    import."""
    files = {rel: identity_source(rel) for rel in modules}
    tmp, env = _copy(files)
    try:
        probe = f"import importlib; print(importlib.import_module({_module_name(modules[0])!r}).__file__)"
        rc, out, _ = _run([sys.executable, "-c", probe], tmp, env, 300, 0)
        where = out.strip().splitlines()[-1] if out.strip() else ""
        if rc != 0 or not where.startswith(str(tmp)):
            return {"outcome": "error", "seconds": 0.0, "detail": f"the copy is not what is imported: {_short(out, 300)}"}
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return run_tests(files, tests, timeout, nice, modules)


# ------------------------------------------------------------------------------------------------------------ report

def summary(rows) -> dict:
    counts = {o: sum(r["outcome"] == o for r in rows) for o in OUTCOMES}
    decided = counts["killed"] + counts["survived"]
    return {**counts, "mutants": len(rows), "score": round(counts["killed"] / decided, 4) if decided else None,
            "seconds": round(sum(r["seconds"] for r in rows), 1)}


def write_report(prefix, meta, rows):
    prefix.parent.mkdir(parents=True, exist_ok=True)
    with open(f"{prefix}.csv", "w", newline="") as fh:
        w = csv.DictWriter(fh, FIELDS, extrasaction="ignore")
        w.writeheader()
        w.writerows(rows)
    with open(f"{prefix}.json", "w") as fh:
        json.dump({**meta, "mutants": rows, "summary": summary(rows)}, fh, indent=1)


def print_summary(meta, rows):
    s = summary(rows)
    print(f"\n{s['mutants']} mutants of {len(meta['modules'])} module(s), {meta['sites']} sites: killed {s['killed']}, "
          f"survived {s['survived']}, timeout {s['timeout']}, error {s['error']}; score killed / (killed + survived) = "
          f"{s['score']}")
    by_op = {}
    for r in rows:
        by_op.setdefault(r["operator"], []).append(r["outcome"])
    for op, outs in sorted(by_op.items()):
        print(f"  {op:16s} " + ", ".join(f"{o} {outs.count(o)}" for o in OUTCOMES if outs.count(o)))
    for r in rows:
        if r["outcome"] == "survived":
            print(f"  SURVIVED {r['file']}:{r['line']} {r['operator']}: {r['original']} -> {r['mutated']}")


# -------------------------------------------------------------------------------------------------------------- main

def _diff(site, raise_names) -> str:
    a = identity_source(site.file).splitlines()
    b = mutant_source(site, raise_names).splitlines()
    return "\n".join(difflib.unified_diff(a, b, site.file, site.file, n=1, lineterm=""))


def _mutant_row(n, site, raise_names, tests, timeout, nice) -> dict:
    result = run_tests({site.file: mutant_source(site, raise_names)}, tests, timeout, nice, (site.file,))
    return {"id": n, "key": site.key, **{k: v for k, v in asdict(site).items() if k not in ("index", "arg")},
            **result, "seconds": round(result["seconds"], 1), "diff": _diff(site, raise_names)}


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0], formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--modules", help="comma-separated files or folders to mutate (default: slr_verify/checker/)")
    ap.add_argument("--tests", help=f"comma-separated test files or globs (default: {','.join(DEFAULT_TESTS)})")
    ap.add_argument("--seed", type=int, default=0, help="the sample's seed (default 0)")
    ap.add_argument("--limit", type=int, help="mutants drawn at random from the sites (default: every site)")
    ap.add_argument("--timeout", type=float, help="seconds per mutant (default: 3 x the control's, at least 60)")
    ap.add_argument("--jobs", type=int, default=1, help="mutants run at once (default 1)")
    ap.add_argument("--nice", type=int, default=10, help="niceness of the test runs (default 10; 0: not niced)")
    ap.add_argument("--raise-names", default="Rejected", help="exceptions whose raise becomes pass (default Rejected)")
    ap.add_argument("--out", help="report prefix (default benchmarks/results/mutation_checker_seedS)")
    ap.add_argument("--control", action="store_true", help="run only the unmutated control (must pass)")
    ap.add_argument("--match", help="comma-separated texts: only the sites whose key (file:line:operator:node) contains one")
    ap.add_argument("--list", action="store_true", help="print the (sampled) sites and run nothing")
    args = ap.parse_args(argv)

    raise_names = tuple(s.strip() for s in args.raise_names.split(","))
    modules, tests = target_modules(args.modules), test_files(args.tests)
    sites = [s for rel in modules for s in sites_of(rel, raise_names)]
    if args.match:
        wanted = [m.strip() for m in args.match.split(",") if m.strip()]
        sites = [s for s in sites if any(m in s.key for m in wanted)]
    chosen = sites if args.limit is None else sorted(random.Random(args.seed).sample(sites, min(args.limit, len(sites))),
                                                      key=lambda s: (s.file, s.line, s.index, s.operator, s.arg))
    if args.list:
        for s in chosen:
            print(f"{s.key}  {s.original} -> {s.mutated}")
        print(f"{len(chosen)} of {len(sites)} sites")
        return 0
    prefix = Path(args.out) if args.out else RESULTS / f"mutation_checker_seed{args.seed}{'_control' if args.control else ''}"
    meta = {"args": vars(args), "modules": modules, "tests": [os.path.relpath(t, ROOT) for t in tests],
            "sites": len(sites), "sites_by_operator": {op: sum(s.operator == op for s in sites)
                                                       for op in sorted({s.operator for s in sites})}}
    print(f"modules: {', '.join(modules)}\ntests: {', '.join(meta['tests'])}\n{len(sites)} sites; "
          f"{'control only' if args.control else f'{len(chosen)} mutants'}", flush=True)

    ctl = control(modules, tests, args.timeout or 3600, args.nice)
    meta["control"] = {**ctl, "seconds": round(ctl["seconds"], 1)}
    print(f"control: {ctl['outcome']} in {ctl['seconds']:.1f} s ({ctl['detail']})", flush=True)
    if args.control or ctl["outcome"] != "survived":
        write_report(prefix, meta, [])
        if ctl["outcome"] != "survived":
            print("the control does not pass: no mutant is run", file=sys.stderr)
            return 1
        return 0
    timeout = args.timeout or max(60.0, 3 * ctl["seconds"])
    meta["timeout"] = timeout

    rows = []
    with concurrent.futures.ThreadPoolExecutor(max_workers=max(1, args.jobs)) as pool:
        futures = {pool.submit(_mutant_row, n, s, raise_names, tests, timeout, args.nice): n for n, s in enumerate(chosen)}
        for fut in concurrent.futures.as_completed(futures):
            row = fut.result()
            rows.append(row)
            rows.sort(key=lambda r: r["id"])
            write_report(prefix, meta, rows)
            print(f"[{len(rows)}/{len(chosen)}] {row['outcome']:8s} {row['seconds']:6.1f} s  {row['file']}:{row['line']} "
                  f"{row['operator']}: {row['original']} -> {row['mutated']}", flush=True)
    print_summary(meta, rows)
    print(f"report: {prefix}.csv, {prefix}.json")
    return 0


if __name__ == "__main__":
    sys.exit(main())
