"""The checker as its own package (`docs/certificates.md`, "The trusted base"): it loads nothing of the suite
but itself, its imports are the standard library, python-flint and itself, its kernels are the committed files the
derivations write (named by their hash), and the code generator refuses what balls cannot evaluate soundly.

Independent routes: a fresh interpreter's ``sys.modules`` (not the import-linter graph), ``hashlib`` on the files'
bytes (not the checker's hash function), ``sys.stdlib_module_names`` for the allow-list, SymPy's own regeneration.
"""
from __future__ import annotations

import ast
import hashlib
import json
import os
import subprocess
import sys
from importlib import resources
from pathlib import Path

import pytest
import sympy as sp

ROOT = Path(__file__).resolve().parent.parent
CHECKER = ROOT / "slr_verify" / "checker"
#: the trusted base's budget in lines (the checker written by hand), the generated kernels counted apart
MAX_LINES = 2500


def _committed(name):
    with resources.as_file(resources.files("slr_verify.certificates").joinpath(name)) as p:
        return str(p)


def test_a_replay_loads_only_the_checker_in_a_fresh_interpreter():
    """Import the checker and replay two committed certificates (a dynamics kind and a profile kind); then no SymPy,
    mpmath or NumPy, and no module of the suite outside slr_verify.checker, is loaded."""
    a, b = _committed("proposition10_fig4b.json.gz"), _committed("oracle_fig4b_lam0.3.json.gz")
    code = ("import sys, json; import slr_verify.checker as c\n"
            f"r = [c.replay({a!r}), c.replay({b!r})]\n"
            "print(json.dumps({'accepted': [x.accepted for x in r], 'modules': sorted(sys.modules)}))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, check=True)
    got = json.loads(out.stdout)
    assert got["accepted"] == [True, True]
    mods = got["modules"]
    assert not [m for m in mods if m.split(".")[0] in ("sympy", "mpmath", "numpy", "scipy", "jax", "numba")]
    suite = [m for m in mods if m.startswith("slr_verify") and m != "slr_verify" and not m.startswith("slr_verify.checker")]
    assert suite == []


def _imports(path):
    """(module, level) of every import statement in the file."""
    tree = ast.parse(path.read_text())
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            yield from ((a.name, 0) for a in node.names)
        elif isinstance(node, ast.ImportFrom):
            yield node.module or "", node.level


def test_the_checker_imports_the_standard_library_flint_and_itself_only():
    """An allow-list, read from the source (the import-linter contract is its deny-list twin)."""
    bad = []
    for path in sorted(CHECKER.rglob("*.py")):
        for mod, level in _imports(path):
            top = mod.split(".")[0]
            ok = (level > 0 and not mod.startswith(".")) or top in sys.stdlib_module_names or top == "flint" \
                or mod.startswith("slr_verify.checker") or top == "__future__"
            # a relative import must stay inside the package: level 1 anywhere, level 2 from generated/ only
            if level > 1 + (path.parent.name == "generated"):
                ok = False
            if not ok:
                bad.append(f"{path.relative_to(ROOT)}: {'.' * level}{mod}")
    assert bad == []


def test_scan_finds_a_planted_import(tmp_path):
    p = tmp_path / "planted.py"
    p.write_text("import numpy\nfrom ..kernels import profile\n")
    assert [m for m in _imports(p)] == [("numpy", 0), ("kernels", 2)]


def _lines(paths):
    return sum(len(p.read_text().splitlines()) for p in paths)


def test_the_trusted_base_is_small():
    """The checker and everything it imports from the suite (itself only) within the budget; the generated kernels
    counted apart (docs/certificates.md states both, generated from the code)."""
    hand = [ROOT / "slr_verify" / "__init__.py"] + [p for p in CHECKER.rglob("*.py") if "generated" not in p.parts]
    assert _lines(hand) <= MAX_LINES, _lines(hand)
    assert _lines(CHECKER.joinpath("generated").glob("*.py")) > 0


def test_premise_hashes_are_the_files_bytes():
    from slr_verify.checker.premises import NAMES, module_of, premise_hash

    for name in NAMES:
        raw = (CHECKER / "generated" / f"{module_of(name)}.py").read_bytes()
        assert premise_hash(name) == hashlib.sha256(raw).hexdigest()[:32]


def _checker_copy(tmp_path):
    """A copy of the imported checker package (it imports the standard library, flint and itself only) under tmp_path,
    with an empty package root: tampering with it leaves the checkout alone."""
    import shutil

    import slr_verify.checker

    (tmp_path / "slr_verify").mkdir()
    (tmp_path / "slr_verify" / "__init__.py").write_text("")
    # the checker this process imports (the checkout's, an installed copy, or a mutant's), not a path beside the tests
    shutil.copytree(Path(slr_verify.checker.__file__).parent, tmp_path / "slr_verify" / "checker",
                    ignore=shutil.ignore_patterns("__pycache__"))
    return tmp_path / "slr_verify" / "checker"


_TAMPER = ("import json, sys\nimport slr_verify.checker as c\nfrom slr_verify.checker.premises import kernels\n"
           "import slr_verify.checker.generated.descent as d, slr_verify.checker.generated.manifold_hessians as h\n"
           "r = c.replay(sys.argv[1])\n"
           "print(json.dumps([[getattr(m, 'TAMPERED', False) for m in (d, h)],"
           " [getattr(kernels(n), 'TAMPERED', False) for n in ('descent', 'manifold-hessians')], r.accepted, r.reason]))")


def _plant_pyc(real, tmp_path):
    """A pyc compiled from a modified copy of ``real`` (a TAMPERED attribute added) and stamped with the real file's
    mtime and size (PEP 552's header: magic, flags, mtime, size), so that the import system would run it."""
    import importlib.util
    import py_compile

    st = real.stat()
    fake = tmp_path / real.name
    fake.write_text(real.read_text() + "\nTAMPERED = True\n")
    pyc = Path(importlib.util.cache_from_source(str(real)))
    pyc.parent.mkdir(exist_ok=True)
    py_compile.compile(str(fake), cfile=str(pyc), doraise=True)
    data = bytearray(pyc.read_bytes())
    data[8:12], data[12:16] = int(st.st_mtime).to_bytes(4, "little"), (st.st_size & 0xFFFFFFFF).to_bytes(4, "little")
    pyc.write_bytes(bytes(data))


def test_a_planted_pyc_is_ignored(tmp_path):
    """The attack of issue 45: pycs compiled from modified ``descent.py`` (theorem-5's premise) and
    ``manifold_hessians.py``, stamped with the real files' mtime and size. The import system runs them (the control:
    the modules imported by name have the planted attribute); the checker's kernels are the files' own bytes, and the
    committed Hessian-signs certificate is accepted on them."""
    gen = _checker_copy(tmp_path) / "generated"
    for name in ("descent.py", "manifold_hessians.py"):
        _plant_pyc(gen / name, tmp_path)
    env = dict(os.environ, PYTHONPATH=str(tmp_path), PYTHONDONTWRITEBYTECODE="1")
    out = subprocess.run([sys.executable, "-c", _TAMPER, _committed("hessian_signs_fig4b.json.gz")], capture_output=True,
                         text=True, cwd=tmp_path, env=env, check=True, timeout=600)
    planted_ran, checker_ran, accepted, reason = json.loads(out.stdout)
    assert planted_ran == [True, True] and checker_ran == [False, False]
    assert accepted, reason


def _replay_with_valley_edited(tmp_path, old, new):
    """(accepted, reason) of the committed lam = 0.3 oracle certificate (it names valley) replayed in a fresh process on
    a checker copy whose ``valley.py`` has ``old`` replaced by ``new``."""
    p = _checker_copy(tmp_path) / "generated" / "valley.py"
    assert old in p.read_text()
    p.write_text(p.read_text().replace(old, new))
    code = ("import sys, json; import slr_verify.checker as c; r = c.replay(sys.argv[1]); "
            "print(json.dumps([r.accepted, r.reason]))")
    env = dict(os.environ, PYTHONPATH=str(tmp_path), PYTHONDONTWRITEBYTECODE="1")
    out = subprocess.run([sys.executable, "-c", code, _committed("oracle_fig4b_lam0.3.json.gz")], capture_output=True,
                         text=True, cwd=tmp_path, env=env, check=True, timeout=600)
    return json.loads(out.stdout)


def test_a_kernel_edited_on_disk_is_rejected_by_its_hash(tmp_path):
    """The same checker copy with ``valley.py``'s body changed: the committed certificate that names valley is
    rejected, the reason naming the premise and the hash."""
    accepted, reason = _replay_with_valley_edited(tmp_path, "-x9,", "x9,")
    assert not accepted and "premise 'valley'" in reason and "hash" in reason


def test_a_kernel_file_declaring_another_premise_is_rejected_as_such(tmp_path):
    """The same checker copy with ``valley.py`` declaring itself another premise (as a file copied over another's would):
    the replay that loads it is rejected, the reason naming the declaration, not only a hash (a mutant dropping this
    check survived: the hash then still rejected the file, for another reason)."""
    accepted, reason = _replay_with_valley_edited(tmp_path, "PREMISE = 'valley'", "PREMISE = 'dual-bound'")
    assert not accepted and "premise 'valley' declares PREMISE = 'dual-bound'" in reason, reason


def _calls_zeta(name):
    from slr_verify.checker.premises import module_of

    return any(m == "zeta_runtime" and "ball_zeta" in names for m, names in _imported_names(
        CHECKER / "generated" / f"{module_of(name)}.py"))


def _imported_names(path):
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.ImportFrom):
            yield node.module, {a.name for a in node.names}


def test_the_premise_list_and_its_dependencies_are_read_from_the_sources():
    """One list of premises (the checker's) and one module each, generated by the derivations; a premise depends on
    zeta-partials exactly when its kernels import the runtime's ball_zeta (which evaluates zeta's partials on series)."""
    from slr_verify.checker.premises import DEPENDS, NAMES, module_of
    from slr_verify.kernels.premises import premises

    assert set(premises()) == set(NAMES) and len(NAMES) == len(set(NAMES))
    files = sorted(p.stem for p in (CHECKER / "generated").glob("*.py") if p.stem != "__init__")
    assert files == sorted(map(module_of, NAMES))
    assert {n: DEPENDS.get(n, ()) for n in NAMES} == {n: ("zeta-partials",) if _calls_zeta(n) else () for n in NAMES}


@pytest.mark.parametrize("name", ["oracle_fig4b_lam0.3.json.gz", "minimum_fig4b_lam0.9.json.gz",
                                  "proposition10_fig4b.json.gz", "hessian_signs_fig4b.json.gz"])
def test_a_replay_evaluates_only_what_its_certificate_names(name):
    """What a replay served (the checker's record) is among the premises the certificate names, and those are exactly
    the ones its kind and fields need. The profile kinds evaluate their coefficients' closed-form partials
    (coefficient-hessians) and name zeta-partials (quadratic-in-v's kernels take Taylor series) without evaluating it:
    their Taylor models call zeta on balls only."""
    from slr_verify.checker import load, replay
    from slr_verify.checker.registry import required_premises

    doc = load(_committed(name))
    r = replay(doc)
    assert r.accepted, r.reason
    named = [p["name"] for p in doc["premises"]]
    got = r.values["premises"]
    assert sorted(named) == sorted(got["named"]) == sorted(required_premises(doc["kind"], doc))
    assert set(got["evaluated"]) <= set(named) and got["evaluated"]
    if doc["kind"] in ("oracle-global-minimiser", "global-minimum-enclosure"):
        assert "coefficient-hessians" in got["evaluated"] and "zeta-partials" not in got["evaluated"]
        assert "zeta-partials" in named


def test_an_unnamed_premise_is_refused_inside_a_replay():
    from slr_verify.checker.fields import Rejected
    from slr_verify.checker.premises import kernels, session

    with session(("valley",)) as served:
        kernels("valley")
        with pytest.raises(Rejected, match="does not name"):
            kernels("descent")
    assert served == {"valley"}


@pytest.mark.slow  # every premise regenerated and proved: the CI's slow stage and `derive --check` run it
def test_committed_kernels_are_their_regeneration_and_their_premises_proved():
    """SymPy regenerates every premise's module from the live derivations (the file must be identical) and proves its
    statements, the rewritings for ball evaluation included: every premise's proofs are run here once (the profile's
    quadratic in v, the dual bound and its line form, the pd criterion, eta-linearity, the oracle's risk form and
    curvature, the manifold's factorisation and Hessians, the reduced map, the family off M, the PGD map's symmetries,
    the valley's invariance)."""
    from slr_verify.kernels.premises import check_generated

    problems = check_generated()  # once: every premise's regeneration and proofs are the test's cost
    assert problems and problems == {name: None for name in problems}


def test_a_kernel_edited_by_hand_is_stale(tmp_path):
    from slr_verify.kernels.premises import check_generated, write_generated

    write_generated(tmp_path, names=("valley", "oracle-risk"))
    p = tmp_path / "valley.py"
    p.write_text(p.read_text().replace("-x9,", "x9,"))
    got = check_generated(tmp_path, names=("valley", "oracle-risk"))
    assert got["valley"] is not None and "differs" in got["valley"] and got["oracle-risk"] is None


x, y = sp.symbols("x y", positive=True)


@pytest.mark.parametrize("expr, word", [
    (sp.Piecewise((x, x > 1), (y, True)), "Piecewise"),
    (sp.Max(x, y), "Max"),
    (sp.Min(x, y), "Min"),
    (sp.sign(x - y), "sign"),
    (sp.Abs(x - y), "Abs"),
    (sp.Heaviside(x - y), "Heaviside"),
    (sp.floor(x), "floor"),
    (x + sp.Float("0.1"), "float constant"),
    (sp.gamma(x), "gamma"),
])
def test_the_code_generator_refuses_what_balls_cannot_evaluate(expr, word):
    from slr_verify.kernels.arb_source import function_source

    with pytest.raises(ValueError, match=word):
        function_source("f", (x, y), [expr], "doc")


def test_the_code_generator_prints_an_enclosure():
    """A generated kernel's ball holds mpmath's value at 50 digits (containment, the python-flint way)."""
    import mpmath
    from flint import arb

    from slr_verify.kernels.arb_source import function_source

    expr = sp.erf(x / sp.sqrt(1 + 2 * y ** 2)) * sp.exp(-x ** 2) + sp.Rational(1, 3) * x ** 3
    ns = {}
    exec("from flint import arb\nfrom slr_verify.checker.runtime import *\n" + function_source("f", (x, y), [expr], "doc"), ns)
    for xv, yv in ((0.3, 0.7), (2.5, 1e-3), (1e-8, 30.0)):
        ball = ns["f"](arb(xv), arb(yv))[0]
        with mpmath.workdps(50):
            ref = sp.lambdify((x, y), expr, "mpmath")(mpmath.mpf(xv), mpmath.mpf(yv))
            assert ball.contains(arb(mpmath.nstr(ref, 45)))


def test_the_trusted_base_table_is_current():
    """docs/certificates.md's table of the trusted base is the one generated from the code (a golden guard against
    drift: `python benchmarks/trusted_base.py` rewrites it)."""
    sys.path.insert(0, str(ROOT / "benchmarks"))
    try:
        import trusted_base
    finally:
        sys.path.pop(0)
    assert trusted_base.main(["--check"]) == 0


@pytest.mark.slow  # a fresh interpreter with forked workers: the CI's slow stage
def test_the_verdict_does_not_depend_on_the_workers(monkeypatch):
    """The same certificate (above the parallel threshold, bound leaves among its 3691) replayed serially here and in
    two forked workers in a fresh interpreter (this one may hold JAX, which rules forking out): the same verdict,
    conclusion and values; and a value leaf's multiplier spoiled deep in the list is rejected both ways, the same
    reason naming the leaf."""
    code = ("import copy, json, sys; from slr_verify.checker import parallel, replay, load\n"
            f"doc = load({_committed('minimum_d400_lam1.00206.json.gz')!r})\n"
            "bad = copy.deepcopy(doc)\n"
            "i = max(k for k, leaf in enumerate(bad['leaves']) if leaf['test'] == 'value')\n"
            "bad['leaves'][i]['beta'] *= 1e-9\n"
            "a, b = replay(doc), replay(bad)\n"
            "print(json.dumps([parallel.workers(len(doc['leaves'])), a.accepted, a.conclusion, repr(a.values), b.accepted, "
            "b.reason]))")
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, check=True,
                         env=dict(os.environ, SLR_VERIFY_CHECKER_WORKERS="2"))
    forked = json.loads(run.stdout)
    monkeypatch.setenv("SLR_VERIFY_CHECKER_WORKERS", "1")
    from slr_verify.checker import parallel, replay
    from slr_verify.checker.reader import load

    doc = load(_committed("minimum_d400_lam1.00206.json.gz"))
    bad = json.loads(json.dumps(doc))
    i = max(k for k, leaf in enumerate(bad["leaves"]) if leaf["test"] == "value")
    bad["leaves"][i]["beta"] *= 1e-9
    a, b = replay(doc), replay(bad)
    here = [parallel.workers(len(doc["leaves"])), a.accepted, a.conclusion, repr(a.values), b.accepted, b.reason]
    assert forked[0] == 2 and here[0] == 1
    assert forked[1:] == here[1:]
    assert here[1] is True and here[4] is False and "value leaf" in here[5]


def test_the_certificates_page_names_every_kind_and_counts_its_tables():
    """docs/certificates.md: the format's ``kind`` row names every kind the checker's registry admits, and the dynamics'
    kinds table has as many rows as the number it states in words, each a registered kind (counts checked, not typed)."""
    import re

    from slr_verify.checker.registry import KINDS

    text = (ROOT / "docs" / "certificates.md").read_text(encoding="utf-8")
    row = next(line for line in text.splitlines() if line.startswith("| `kind` |"))
    assert set(re.findall(r'`"([a-zA-Z0-9-]+)"`', row)) == set(KINDS)
    section = text.split("## The dynamics' kinds", 1)[1].split("\n## ", 1)[0]
    stated = re.search(r"\n(\w+) kinds certify", section).group(1).lower()
    rows = re.findall(r"^\| `([a-zA-Z0-9-]+)` \|", section, re.M)
    words = ["zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten", "eleven", "twelve"]
    assert words.index(stated) == len(rows) and set(rows) <= set(KINDS), (stated, rows)


def test_an_accepted_replay_is_the_checkers_only():
    """Issue 49: an accepted Replay cannot be built outside the checker's replay (a claim cannot forge one), and none
    can be changed after the fact; a rejection anyone may state."""
    import dataclasses

    from slr_verify.checker import Replay, replay

    with pytest.raises(TypeError, match="made by slr_verify.checker.replay only"):
        Replay(True, "accepted: forged", "anything", 1, 0.0, {"kind": "theorem-5"})
    r = replay(_committed("hessian_signs_fig4b.json.gz"))
    assert r.accepted
    with pytest.raises(dataclasses.FrozenInstanceError):
        r.accepted = False
    with pytest.raises(TypeError):
        dataclasses.replace(r, conclusion="something else")
    assert not Replay(False, "rejected: not searched").accepted
