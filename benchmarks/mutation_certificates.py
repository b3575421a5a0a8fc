"""Mutation run over the certificate search: no mutant of the search gets a false statement accepted (docs/certificates.md).

The search (``slr_verify/certify/globalmin.py`` and the modules it runs on, ``SEARCH``: ``dual_box``, ``bisection``,
``oracle_proof``, ``enclosure``, ``global_result``) and the certificate writer (``slr_verify/certify/certificate.py``) are
untrusted: only the checker, :func:`slr_verify.checker.replay`, decides. This script mutates these modules
by AST transformations and checks that whatever a mutant writes, the checker accepts only true statements.

Mutations (one per site; the site is replaced in the source text, the rest of the file is unchanged):

* binary operators swapped: ``+`` <-> ``-``, ``*`` <-> ``/`` (augmented assignments too);
* comparisons flipped: ``<`` <-> ``>``, ``<=`` <-> ``>=`` (each operator of a chain is a site);
* numeric constants nudged: a float x -> x * 1.1 or x + 1e-3 (0.5, the midpoints, also -> 0.4); an integer
  n -> n + 1 (or round(n * 1.1) for |n| >= 10: x * 1.1 would only turn an index into a float);
* ``and`` <-> ``or``; ``min`` <-> ``max`` (builtins and ``np.min``/``np.max``/``np.argmin``/``np.argmax``/
  ``np.minimum``/``np.maximum``); ``True`` <-> ``False``;
* the result of a test returned negated: ``return X`` -> ``return not X`` where X is a comparison, a boolean
  operation, ``bool``/``all``/``any``/``isinstance``, or a verdict's name (``passed``, ``proved``, ``ok``, ``pd``,
  ``split_t``); X may also be an element of a returned tuple or the first argument of a returned record
  (``Outcome(passed, ...)``, ``GlobalCertificate(proved, ...)``).

Sites inside f-strings (messages only) are skipped. A fixed-seed sample of ``--max-mutants`` sites is drawn, stratified
by position so that it spreads over each module (the writer gets at least a fifth of the sample).

Each mutant runs in a fresh subprocess: the mutated module M is imported, then
``exec(compile(mutated_source, M.__file__, "exec"), M.__dict__)`` replaces its functions in place and :func:`rebind`
points the names the other search modules imported from M to the mutant's; the checker's
modules (``slr_verify.checker*``) are neither mutated nor reloaded (the worker verifies they are unchanged). At
gamma = sqrt(0.5), eps = 0, d = 400, L = 10, with ``--time-limit`` seconds per search, it runs:

* (a) ``global_minimiser(lam=(0.3, 0.3), check=True)``: "the oracle is the unique global minimiser" is true;
* (b) ``oracle_proof.prove_oracle`` called directly (as ``global_minimiser`` calls it, with the mutant's default budget) at
  lam = (0.95, 0.95) and (0.85, 0.95), above and across W's upper end 0.8924379: the oracle statement is false;
* (c) ``global_minimiser(lam=(0.9, 0.9), check=True)``: the enclosure of the global minimum and its minimiser.

Every certificate a mutant writes goes back to this (parent) process as JSON and is replayed here by the unmutated
checker, in a process that never ran mutated code; the worker's own verdict (``check=True``, or ``replay`` in (b)) is
recorded beside it. Each accepted statement is then judged against independent facts: W = [0.0907218276088526,
0.89243794824172] (docs/MATH.md section 13, each end to 1e-6 relative) for the oracle statement (at the run's gamma,
d, L; any eps, which enters R only as + eps^2), and the float64 profile route (:func:`slr_verify.landscape.float_global_minimum`
at the certificate's setting; kappa = |ov[0]|, eta = |ov[3]|) for an enclosure, with 1e-13 slack on the risk (or 8 ulp)
and 1e-7 on kappa and eta. An unmutated control runs first (and once more with a line tracer: which mutated lines the
control executes); the run stops if the control does not prove (a) and (c). The workers and this process's checker run
on a snapshot of the package taken at the start (other work on the tree cannot change the run half-way).

Verdicts per mutant, first that applies: ``false-accepted`` (the checker accepted a false statement: a checker bug,
must be 0), ``undecided-accepted`` (accepted, truth not decidable here: reviewed by hand, should be 0),
``killed-by-checker`` (a certificate was rejected), ``killed-otherwise`` (crash, timeout, or the search reports (a) or
(c) not proved), ``survived`` (every accepted statement true: the mutation only steers the search).

Run (about 20 s per mutant when the search behaves; a 2-core machine: be nice)::

    nice -n 10 python benchmarks/mutation_certificates.py --out /tmp/mutation_certificates.json
    nice -n 10 python benchmarks/mutation_certificates.py --out m.json --max-mutants 10 --seed 1 --wall-limit 1200

The --out JSON (rewritten after each mutant, so an interrupted run keeps what it has) holds the settings, the
reference values, the control, every mutant (site, replacement, diff, each case's outcome, the checker's reason) and
the summary, which is also printed. The certificate of any accepted statement not known to be true is kept beside it
(``OUT.mutantI.CASE.json``).
"""
from __future__ import annotations

import argparse
import ast
import copy
import difflib
import hashlib
import json
import math
import os
import random
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import traceback
from pathlib import Path

from tqdm.auto import tqdm

ROOT = Path(__file__).resolve().parent.parent
#: the mutated modules, relative to the repository
#: the search's modules and the certificate writer (key: the module's name in slr_verify.certify)
SEARCH = ("globalmin", "dual_box", "bisection", "oracle_proof", "enclosure", "global_result")
MODULES = {**{m: f"slr_verify/certify/{m}.py" for m in SEARCH}, "certificate": "slr_verify/certify/certificate.py"}
SETTING = {"gamma": math.sqrt(0.5), "eps": 0.0, "d": 400, "L": 10}
#: the oracle's window at SETTING (docs/MATH.md section 13); each end proved to W_RTOL (relative)
W = (0.0907218276088526, 0.89243794824172)
W_RTOL = 1e-6
RISK_SLACK, OVERLAP_SLACK = 1e-13, 1e-7
#: (name, lam, route); route "minimiser": global_minimiser(check=True), "prove_oracle": oracle_proof.prove_oracle directly
CASES = [("a", (0.3, 0.3), "minimiser"), ("b1", (0.95, 0.95), "prove_oracle"), ("b2", (0.85, 0.95), "prove_oracle"),
         ("c", (0.9, 0.9), "minimiser")]
MARK = "@@case "
SWAP_OPS = {ast.Add: ast.Sub, ast.Sub: ast.Add, ast.Mult: ast.Div, ast.Div: ast.Mult}
FLIP_CMP = {ast.Lt: ast.Gt, ast.Gt: ast.Lt, ast.LtE: ast.GtE, ast.GtE: ast.LtE}
#: min <-> max: builtins, and numpy's (``np.``) names
MINMAX = {"min": "max", "max": "min", "argmin": "argmax", "argmax": "argmin", "minimum": "maximum", "maximum": "minimum"}
TEST_CALLS = {"bool", "all", "any", "isinstance"}
TEST_NAMES = {"passed", "proved", "ok", "accepted", "pd", "split_t"}


# ----------------------------------------------------------------------------------------------------------- mutations

def _offset(source, line, col):
    """The character offset of (1-based ``line``, ``col`` a UTF-8 byte offset in it, as ast gives it)."""
    lines = source.splitlines(keepends=True)
    return sum(map(len, lines[:line - 1])) + len(lines[line - 1].encode()[:col].decode())


def _mutations(node, source):
    """(kind, node whose source segment is replaced, replacement text) for each mutation of one AST node."""
    seg = lambda n: ast.get_source_segment(source, n)
    out = []
    if isinstance(node, ast.BinOp) and type(node.op) in SWAP_OPS:
        new = copy.copy(node)
        new.op = SWAP_OPS[type(node.op)]()
        out.append(("binop", node, f"({ast.unparse(new)})"))
    elif isinstance(node, ast.AugAssign) and type(node.op) in SWAP_OPS:
        new = copy.copy(node)
        new.op = SWAP_OPS[type(node.op)]()
        out.append(("binop", node, ast.unparse(new)))
    elif isinstance(node, ast.Compare):
        for i, op in enumerate(node.ops):
            if type(op) in FLIP_CMP:
                new = copy.copy(node)
                new.ops = list(node.ops)
                new.ops[i] = FLIP_CMP[type(op)]()
                out.append(("compare", node, f"({ast.unparse(new)})"))
    elif isinstance(node, ast.Constant) and isinstance(node.value, bool):
        out.append(("bool", node, repr(not node.value)))
    elif isinstance(node, ast.Constant) and isinstance(node.value, (int, float)):
        x = node.value
        if isinstance(x, float):
            vals = ([x * 1.1] if x != 0 else []) + [x + 1e-3] + ([0.4] if x == 0.5 else [])
        else:
            vals = [x + 1] + ([round(x * 1.1)] if abs(x) >= 10 else [])
        out += [("constant", node, f"({v!r})") for v in vals if v != x]
    elif isinstance(node, ast.BoolOp):
        new = copy.copy(node)
        new.op = ast.Or() if isinstance(node.op, ast.And) else ast.And()
        out.append(("boolop", node, f"({ast.unparse(new)})"))
    elif isinstance(node, ast.Call):
        f = node.func
        if isinstance(f, ast.Name) and f.id in ("min", "max"):
            out.append(("minmax", f, MINMAX[f.id]))
        elif isinstance(f, ast.Attribute) and f.attr in MINMAX and isinstance(f.value, ast.Name) and f.value.id == "np":
            out.append(("minmax", f, f"{f.value.id}.{MINMAX[f.attr]}"))
    elif isinstance(node, ast.Return) and node.value is not None:
        v = node.value
        cands = [v] + (list(v.elts) if isinstance(v, ast.Tuple) else [])
        if isinstance(v, ast.Call) and isinstance(v.func, ast.Name) and v.func.id.lstrip("_")[:1].isupper() and v.args:
            cands.append(v.args[0])  # the verdict of a returned record: _Outcome(passed, ...), GlobalCertificate(proved, ...)
        for x in cands:
            if _is_test(x):
                out.append(("return-negated", x, f"(not ({seg(x)}))"))
    return out


def _is_test(x):
    """A test result: a comparison, a boolean operation or negation, bool/all/any/isinstance, or a verdict's name."""
    return (isinstance(x, (ast.Compare, ast.BoolOp)) or (isinstance(x, ast.UnaryOp) and isinstance(x.op, ast.Not))
            or (isinstance(x, ast.Call) and isinstance(x.func, ast.Name) and x.func.id in TEST_CALLS)
            or (isinstance(x, ast.Attribute) and x.attr in TEST_NAMES) or (isinstance(x, ast.Name) and x.id in TEST_NAMES))


def sites(module, source):
    """Every mutation site of a module (its ``source``): dicts with the position, kind, original text and the possible
    replacements."""
    tree = ast.parse(source)
    skip = set()
    for n in ast.walk(tree):  # f-strings (messages), annotations
        if isinstance(n, ast.JoinedStr):
            skip |= {id(m) for m in ast.walk(n)}
        for a in ("annotation", "returns"):
            if isinstance(getattr(n, a, None), ast.AST):
                skip |= {id(m) for m in ast.walk(getattr(n, a))}
    found = {}
    for node in ast.walk(tree):
        if id(node) in skip:
            continue
        for kind, target, text in _mutations(node, source):
            key = (target.lineno, target.col_offset, target.end_lineno, target.end_col_offset, kind)
            s = found.setdefault(key, {"module": module, "line": target.lineno, "col": target.col_offset,
                                       "end_line": target.end_lineno, "end_col": target.end_col_offset, "kind": kind,
                                       "original": ast.get_source_segment(source, target), "replacements": []})
            if text not in s["replacements"]:
                s["replacements"].append(text)
    return sorted(found.values(), key=lambda s: (s["line"], s["col"], s["kind"]))


def apply(site, replacement, source):
    """(mutated source, unified diff) of ``site`` of ``source`` replaced by ``replacement``; ValueError if it does not
    compile or leaves the AST unchanged."""
    a, b = _offset(source, site["line"], site["col"]), _offset(source, site["end_line"], site["end_col"])
    if source[a:b] != site["original"]:
        raise ValueError(f"site {site['line']}:{site['col']} does not match its source text")
    mutated = source[:a] + replacement + source[b:]
    if ast.dump(ast.parse(mutated)) == ast.dump(ast.parse(source)):
        raise ValueError("the mutation leaves the AST unchanged")
    name = MODULES[site["module"]]
    compile(mutated, name, "exec")
    diff = "".join(difflib.unified_diff(source.splitlines(keepends=True), mutated.splitlines(keepends=True),
                                        fromfile=name, tofile=name + " (mutant)", n=0))
    return mutated, diff


def sample(n, seed, sources, writer_share=0.2):
    """A fixed-seed sample of ``n`` (site, replacement). Each module's sites, in order of position, are cut into equal
    consecutive strata, one per mutant: in each, a kind of mutation is drawn uniformly among the kinds present (numeric
    constants, the most numerous, would otherwise make half the sample), then a site of that kind and a replacement.
    The writer's share is proportional to its sites but at least ``writer_share``."""
    rng = random.Random(seed)
    by = {m: sites(m, sources[m]) for m in MODULES}
    total = sum(map(len, by.values()))
    n = min(n, total)
    n_w = min(len(by["certificate"]), max(round(n * len(by["certificate"]) / total), math.ceil(n * writer_share)))
    alloc = dict(shares(n - n_w, {m: len(by[m]) for m in SEARCH}), certificate=n_w)
    return draw(rng, by, alloc, sources), {m: len(v) for m, v in by.items()}


def shares(n, sizes):
    """``n`` split among the modules in proportion to ``sizes`` (their sites), by largest remainders, none above its
    size."""
    total = sum(sizes.values())
    n = min(n, total)
    exact = {m: n * k / total for m, k in sizes.items()} if total else {m: 0 for m in sizes}
    out = {m: int(x) for m, x in exact.items()}
    for m in sorted(sizes, key=lambda m: out[m] - exact[m])[:n - sum(out.values())]:
        out[m] += 1
    return out


def rebind(mod, before, modules):
    """After a mutant was executed into ``mod`` (its namespace was ``before``): every name of ``modules`` bound to one of
    ``mod``'s old objects (``from .dual_box import value_test``) now points to the mutant's, as a call through the
    module's globals would."""
    changed = {id(v): mod.__dict__[k] for k, v in before.items() if k in mod.__dict__ and mod.__dict__[k] is not v}
    for other in modules:
        if other is not mod:
            for k, v in list(vars(other).items()):
                if id(v) in changed:
                    setattr(other, k, changed[id(v)])


def draw(rng, by, alloc, sources):
    """``alloc[m]`` (site, replacement) pairs of each module m: its sites ``by[m]``, in order of position, cut into
    equal consecutive strata, one per pair; in each, a kind drawn uniformly among the stratum's, then a site of that
    kind and a replacement that applies to ``sources[m]``."""
    picked = []
    for m, k in alloc.items():
        ss = by[m]
        for j in range(k):
            stratum = ss[j * len(ss) // k:(j + 1) * len(ss) // k]
            kinds = sorted({s["kind"] for s in stratum})
            for kind in rng.sample(kinds, len(kinds)):
                cands = [s for s in stratum if s["kind"] == kind]
                hit = None
                for s in rng.sample(cands, len(cands)):
                    reps = [r for r in rng.sample(s["replacements"], len(s["replacements"])) if _applies(s, r, sources[m])]
                    if reps:
                        hit = (s, reps[0])
                        break
                if hit:
                    picked.append(hit)
                    break
    return picked


def _applies(site, replacement, source):
    try:
        apply(site, replacement, source)
        return True
    except (ValueError, SyntaxError):
        return False


# -------------------------------------------------------------------------------------------------------------- worker

def _checker_state():
    """The checker's modules (``slr_verify.checker*``) and the ids of their attributes: a mutant must change
    neither."""
    return {k: (id(m), {n: id(v) for n, v in vars(m).items()}) for k, m in sys.modules.items()
            if k.startswith("slr_verify.checker")}


def worker(job_path):
    """Run the cases of one job (a mutant, or the control) and print one ``MARK`` line of JSON per case."""
    import importlib

    job = json.loads(Path(job_path).read_text())
    from flint import ctx

    mods = {m: importlib.import_module(f"slr_verify.certify.{m}") for m in MODULES}
    G, O, B, D = mods["globalmin"], mods["oracle_proof"], mods["bisection"], mods["dual_box"]
    R = importlib.import_module("slr_verify.checker")
    checker, before = R.replay, _checker_state()
    mod = mods[job["module"]]
    namespace = dict(mod.__dict__)
    exec(compile(job["source"], mod.__file__, "exec"), mod.__dict__)  # the mutant replaces the module's functions
    rebind(mod, namespace, mods.values())
    intact = _checker_state() == before and G.replay is checker and R.replay is checker
    executed = {}
    if job.get("trace"):
        files = {m.__file__: k for k, m in mods.items()}

        def local(frame, event, arg):
            if event == "line":
                executed.setdefault(files[frame.f_code.co_filename], set()).add(frame.f_lineno)
            return local

        def tracer(frame, event, arg):
            return local(frame, "line", arg) if frame.f_code.co_filename in files else None

        sys.settrace(tracer)
    out_dir = Path(job["dir"])
    for name, lam, route in job["cases"]:
        lam = tuple(lam)
        rec = {"case": name, "lam": lam, "route": route, "checker_intact": intact}
        t0 = time.time()
        try:
            if route == "minimiser":
                res = G.global_minimiser(lam=lam, **SETTING, time_limit=job["time_limit"], check=True)
                inner = res.replay
            else:  # as global_minimiser calls it, with the (mutant's) default budget and precision
                kw = dict(G.global_minimiser.__kwdefaults__ or {})
                with ctx.workprec(int(kw.get("prec", 64))):
                    ev = D.Evaluator(SETTING["gamma"], SETTING["eps"], SETTING["d"], SETTING["L"])
                    start = time.time()
                    res = O.prove_oracle(ev, lam[0], lam[1], kw.get("kappa0"), int(kw.get("max_boxes", 2_000_000)),
                                         float(kw.get("min_width", 1e-9)), start + job["time_limit"], start,
                                         B.Progress(None, "prove_oracle"))
            rec.update(status="returned", proved=bool(res.proved), reason=str(res.reason)[:400], boxes=res.boxes,
                       certificate=res.certificate is not None)
            if res.certificate is not None:  # for the parent's checker, before this process's replay (it might raise)
                try:
                    path = out_dir / f"{name}.json"
                    path.write_text(json.dumps(res.certificate))
                    rec["file"] = str(path)
                except (TypeError, ValueError) as e:
                    rec["json_error"] = f"{type(e).__name__}: {e}"[:400]
            if route != "minimiser":
                inner = checker(res.certificate) if res.certificate is not None else None
            if inner is not None:
                rec["inner"] = {"accepted": bool(inner.accepted), "reason": str(inner.reason)[:600],
                                "values": _jsonable(inner.values)}
        except Exception as e:  # a mutant may raise anything: recorded
            tb = traceback.extract_tb(e.__traceback__)
            at = next((f"{Path(f.filename).name}:{f.lineno}" for f in reversed(tb) if "slr_verify" in f.filename), "")
            rec.update(status="error", error=f"{type(e).__name__}: {e}"[:400], at=at)
        rec["seconds"] = round(time.time() - t0, 2)
        print(MARK + json.dumps(rec), flush=True)
    if job.get("trace"):
        sys.settrace(None)
        print(MARK + json.dumps({"executed": {k: sorted(v) for k, v in executed.items()}}), flush=True)


def _jsonable(x):
    return json.loads(json.dumps(x, default=str))


# ---------------------------------------------------------------------------------------------------------- the parent

class Judge:
    """The unmutated checker (this process never runs mutated code) and the independent facts."""

    def __init__(self):
        from slr_verify.checker import replay
        from slr_verify.landscape import float_global_minimum

        self.replay, self.float_global_minimum, self.refs = replay, float_global_minimum, {}

    def reference(self, lam, setting=None):
        """(risk, kappa, eta) of the global minimiser at ``lam`` (and ``setting``, default the run's) by the float64
        profile route."""
        setting = dict(SETTING, **(setting or {}))
        key = (lam, *(setting[k] for k in ("gamma", "eps", "d", "L")))
        if key not in self.refs:
            risk, ov = self.float_global_minimum(lam=lam, **setting)
            self.refs[key] = (float(risk), abs(float(ov[0])), abs(float(ov[3])))
        return self.refs[key]

    def truth(self, values):
        """(True | False | None, why) for the statement of an accepted certificate with the checker's ``values``.
        The oracle statement is judged by W, which holds at the run's gamma, d, L for every eps (eps enters R only as
        + eps^2: Theorem 1, ``slr_verify/symbolic/risk.py``); an enclosure by the float route at the certificate's own
        setting."""
        setting = values.get("setting", {})
        kind = values.get("kind")
        if kind not in ("oracle-global-minimiser", "global-minimum-enclosure"):
            return None, f"kind {kind!r} is not one this run can judge"
        if set(setting) != set(SETTING):
            return None, f"the certificate's setting {setting} is incomplete"
        lo, hi = values["lam"]
        if kind == "oracle-global-minimiser":
            if any(setting[k] != SETTING[k] for k in ("gamma", "d", "L")):
                return None, f"the certificate's setting {setting} has another W than the run's"
            eps = "" if setting["eps"] == SETTING["eps"] else f" (at eps = {setting['eps']!r}: W does not depend on eps)"
            if lo < W[0] * (1 - W_RTOL) or hi > W[1] * (1 + W_RTOL):
                return False, f"lam in [{lo!r}, {hi!r}] leaves W = {W}: the oracle is not the global minimiser there{eps}"
            if lo > W[0] * (1 + W_RTOL) and hi < W[1] * (1 - W_RTOL):
                return True, "lam inside W" + eps
            return None, f"lam in [{lo!r}, {hi!r}] reaches W's ends within their resolution {W_RTOL}"
        if not all(isinstance(values.get(k), (list, tuple)) and len(values[k]) == 2 for k in ("risk", "kappa", "eta")):
            return None, f"the checker's values lack an enclosure: {values}"
        try:
            risk, kappa, eta = self.reference(float(lo), setting)
        except Exception as e:  # a setting the float route cannot take
            return None, f"no float reference at {setting}: {type(e).__name__}: {e}"
        bad = []
        for name, x, slack in (("risk", risk, max(RISK_SLACK, 8 * math.ulp(risk))), ("kappa", kappa, OVERLAP_SLACK),
                               ("eta", eta, OVERLAP_SLACK)):
            a, b = values[name]
            if b < x - slack or a > x + slack:
                bad.append(f"{name} {x!r} (float route) is not in the accepted [{a!r}, {b!r}] (slack {slack:.3g})")
        return (False, "; ".join(bad)) if bad else (True, "risk, kappa and eta enclose the float route's")

    def judge(self, rec):
        """Replay the case's certificate with the unmutated checker and judge its statement; adds ``outcome``."""
        if rec.get("file"):
            doc = json.loads(Path(rec["file"]).read_text())
            rec["checker"], r = checker_record(self.replay, doc)
            if r is not None:
                rec["checker"]["domain_lam"] = doc.get("domain", {}).get("lam") if isinstance(doc.get("domain"), dict) else None
                if r.accepted:
                    rec["true"], rec["why"] = self.truth(r.values)
        inner = rec.get("inner")
        if inner and inner["accepted"] and "true" not in rec:
            rec["true"], rec["why"] = self.truth(inner["values"])  # accepted in the worker only: judged all the same
        if inner is not None and "checker" in rec and inner["accepted"] != rec["checker"]["accepted"]:
            rec["verdict_mismatch"] = True
        rec["outcome"] = outcome(rec, rec.get("checker", {}).get("accepted") or (inner and inner["accepted"]))
        return rec


def outcome(rec, accepted):
    """A case's outcome: its worker's status when it did not return, else accepted, rejected (a certificate the
    checker refused) or not proved (no certificate written)."""
    if rec.get("status") != "returned":
        return rec.get("status", "no result")
    if accepted:
        return "accepted"
    return "rejected" if rec.get("certificate") else "not proved"


def checker_record(replay, doc):
    """(record, result) of the unmutated checker's ``replay(doc)``: accepted, reason, leaves, seconds, values, kind; a
    raise (the checker must reject, never raise) is recorded as a finding, with result None."""
    try:
        r = replay(doc)
    except Exception as e:  # noqa: BLE001 - recorded, not hidden
        return {"accepted": False, "raised": f"{type(e).__name__}: {e}"[:400], "kind": doc.get("kind")}, None
    return {"accepted": bool(r.accepted), "reason": r.reason[:600], "leaves": r.leaves, "seconds": round(r.seconds, 2),
            "values": _jsonable(r.values), "kind": doc.get("kind")}, r


def run_worker(script, job, timeout, tmp, snap):
    """Run ``script --worker`` on ``job`` in a fresh subprocess on the snapshot ``snap`` of the package (killed with
    its process group after ``timeout`` seconds): (case records by name, executed lines, timed out, return code,
    the last lines of stderr when it failed, seconds)."""
    path = Path(tmp) / "job.json"
    path.write_text(json.dumps(job))
    env = dict(os.environ, OMP_NUM_THREADS="1", OPENBLAS_NUM_THREADS="1", MKL_NUM_THREADS="1",
               PYTHONPATH=os.pathsep.join([str(snap), *filter(None, [os.environ.get("PYTHONPATH")])]))
    t0 = time.time()
    proc = subprocess.Popen([sys.executable, str(Path(script).resolve()), "--worker", str(path)], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, env=env, cwd=str(snap), start_new_session=True)
    timed_out = False
    try:
        stdout, stderr = proc.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        timed_out = True
        os.killpg(proc.pid, signal.SIGKILL)  # the worker's own process group
        stdout, stderr = proc.communicate()
    recs, executed = {}, None
    for line in stdout.splitlines():
        if line.startswith(MARK):
            r = json.loads(line[len(MARK):])
            if "executed" in r:
                executed = r["executed"]
            else:
                recs[r["case"]] = r
    tail = stderr.strip().splitlines()[-5:] if (timed_out or proc.returncode) else []
    return recs, executed, timed_out, proc.returncode, tail, round(time.time() - t0, 1)


def run_job(job, timeout, judge, tmp, snap):
    """Run one job (:func:`run_worker`); its case records, judged (a case it did not reach: ``timeout``)."""
    recs, executed, timed_out, code, tail, seconds = run_worker(__file__, job, timeout, tmp, snap)
    out = {}
    for name, lam, route in job["cases"]:
        rec = recs.get(name) or {"case": name, "lam": lam, "route": route, "status": "timeout" if timed_out else "no result"}
        out[name] = judge.judge(rec)
    return {"cases": out, "seconds": seconds, "returncode": code, "timed_out": timed_out, "stderr_tail": tail,
            "executed": executed}


def checker_verdict(cases):
    """The verdict the checker's outcomes decide, first that applies: an accepted false statement, an accepted one
    whose truth is undecided, a rejected certificate; None when none applies."""
    acc = [c for c in cases.values() if c["outcome"] == "accepted"]
    if any(c.get("true") is False for c in acc):
        return "false-accepted"
    if any(c.get("true") is None for c in acc):
        return "undecided-accepted"
    if any(c["outcome"] == "rejected" for c in cases.values()):
        return "killed-by-checker"
    return None


def verdict(cases):
    """The mutant's verdict from its judged cases (see the module)."""
    if checker_verdict(cases):
        return checker_verdict(cases)
    if any(c["outcome"] in ("timeout", "no result") for c in cases.values()) or \
            any(cases[k]["outcome"] != "accepted" or not cases[k].get("proved") for k in ("a", "c") if k in cases):
        return "killed-otherwise"  # (a) or (c): a crash, or the search says not proved (even if its certificate is good)
    return "survived"


VERDICTS = ["false-accepted", "undecided-accepted", "killed-by-checker", "killed-otherwise", "survived"]


OUTCOMES = ("accepted", "rejected", "not proved", "error", "timeout", "no result")


def summary_of(mutants, control, case_names, same):
    """The summary both mutation runs report: the verdict counts, per case the outcomes (``run``, the certificates
    written, the false statements accepted), the survivors identical to the control (``same(case, control_case)``) or
    on lines it never runs, the checker's raises and alterations, the ids by verdict."""
    counts = {v: sum(m["verdict"] == v for m in mutants) for v in VERDICTS}
    per_case = {}
    for name in case_names:
        cs = [m["cases"][name] for m in mutants if name in m["cases"]]
        per_case[name] = {"run": len(cs), **{o: sum(c["outcome"] == o for c in cs) for o in OUTCOMES}}
        per_case[name]["certificates"] = sum(bool(c.get("certificate")) for c in cs)
        per_case[name]["false_accepted"] = sum(c["outcome"] == "accepted" and c.get("true") is False for c in cs)
    surv = [m for m in mutants if m["verdict"] == "survived"]
    cases = [c for m in mutants for c in m["cases"].values()]
    return {"mutants_run": len(mutants), **counts, "killed_total": counts["killed-by-checker"] + counts["killed-otherwise"],
            "survivors_identical_to_control": sum(all(same(m["cases"][k], control["cases"][k]) for k in m["cases"])
                                                  for m in surv),
            "survivors_not_executed_in_control": sum(not m.get("executed") for m in surv),
            "checker_raised": sum("raised" in c.get("checker", {}) for c in cases),
            "checker_not_intact": sum(any(c.get("checker_intact") is False for c in m["cases"].values()) for m in mutants),
            "per_case": per_case, "ids": {v: [m["id"] for m in mutants if m["verdict"] == v] for v in VERDICTS}}


def summarise(mutants, control):
    out = summary_of(mutants, control, [name for name, *_ in CASES], _same)
    out["verdict_mismatches"] = sum(bool(c.get("verdict_mismatch")) for m in mutants for c in m["cases"].values())
    return out


def _same(a, b):
    """The same outcome and, when accepted, the same leaves and enclosures as the control."""
    if a["outcome"] != b["outcome"]:
        return False
    if a["outcome"] != "accepted":
        return True
    ca, cb = a.get("checker", {}), b.get("checker", {})
    return ca.get("leaves") == cb.get("leaves") and ca.get("values") == cb.get("values")


def check_out(path):
    """--out must be a .json file in an existing, writable folder (checked before the run)."""
    p = Path(path)
    if p.suffix != ".json":
        raise SystemExit(f"--out must end with .json, got {path!r}")
    parent = p.parent.resolve()
    if p.is_dir() or not parent.is_dir() or not os.access(parent, os.W_OK) or (p.exists() and not os.access(p, os.W_OK)):
        raise SystemExit(f"--out {path!r} is not a writable file in an existing folder")
    return p


def write(path, doc):
    tmp = path.with_name(path.name + ".part")
    tmp.write_text(json.dumps(doc, indent=1, default=str))
    os.replace(tmp, path)


def summary_rows(s, killed_otherwise):
    """The counts of :func:`summary_of` as (label, number) rows; ``killed_otherwise`` says what kills otherwise."""
    return [("mutants run", s["mutants_run"]),
            ("killed by the checker (a certificate rejected)", s["killed-by-checker"]),
            (f"killed otherwise ({killed_otherwise})", s["killed-otherwise"]),
            ("survived, every accepted statement true", s["survived"]),
            ("  of which identical to the control", s["survivors_identical_to_control"]),
            ("  of which on lines the control never runs", s["survivors_not_executed_in_control"]),
            ("accepted, truth undecided here", s["undecided-accepted"]),
            ("ACCEPTED A FALSE STATEMENT (must be 0)", s["false-accepted"]),
            ("checker raised instead of rejecting", s["checker_raised"]),
            ("trusted modules (the checker's) altered by a mutant", s["checker_not_intact"])]


def rows_and_cases(rows, per_case, middle=()):
    """The table: the rows, then the ``middle`` lines, then one line per case of :func:`summary_of`."""
    w = max(len(r[0]) for r in rows)
    lines = [f"{a:<{w}}  {b:>5}" for a, b in rows] + [""] + list(middle)
    head = ("case", "run", "certs", "accepted", "rejected", "not proved", "error", "timeout", "false")
    lines.append(f"{head[0]:<8}" + "".join(f"{h:>11}" for h in head[1:]))
    for k, c in per_case.items():
        row = (c["run"], c["certificates"], c["accepted"], c["rejected"], c["not proved"], c["error"],
               c["timeout"] + c["no result"], c["false_accepted"])
        lines.append(f"{k:<8}" + "".join(f"{x:>11}" for x in row))
    return "\n".join(lines)


def table(summary):
    rows = summary_rows(summary, "crash, timeout, (a) or (c) not proved")
    rows.insert(8, ("worker/parent checker verdict mismatches", summary["verdict_mismatches"]))
    return rows_and_cases(rows, summary["per_case"])


def resummarise(path):
    """Recompute the verdicts and the summary of an earlier run's JSON (the judged cases are kept), print the table."""
    doc = json.loads(path.read_text())
    for m in doc["mutants"]:
        m["verdict"] = verdict(m["cases"])
    doc["summary"] = summarise(doc["mutants"], doc["control"])
    write(path, doc)
    print(table(doc["summary"]))
    return 1 if doc["summary"]["false-accepted"] else 0


def snapshot(tmp):
    """A copy of the package under ``tmp``, first on sys.path: the workers and this process's checker run one version of
    it, however the working tree changes during the run. Returns its folder."""
    snap = Path(tmp) / "snapshot"
    shutil.copytree(ROOT / "slr_verify", snap / "slr_verify", ignore=shutil.ignore_patterns("__pycache__"))
    sys.path.insert(0, str(snap))
    return snap


def mutant_record(i, site, rep, diff, ran, res, out):
    """One mutant's record: the site, the diff, whether the control runs its lines (``ran``, a set of line numbers), the
    job's result; the certificate of an accepted statement not known to be true is kept next to ``out``."""
    lines = set(range(site["line"], site["end_line"] + 1))
    m = {"id": i, "module": site["module"], "line": site["line"], "col": site["col"], "kind": site["kind"],
         "original": site["original"], "replacement": rep, "diff": diff, "executed": bool(lines & ran), **res}
    for c in res["cases"].values():
        if c["outcome"] == "accepted" and c.get("true") is not True and c.get("file"):
            keep = out.with_name(f"{out.stem}.mutant{i}.{c['case']}.json")
            shutil.copyfile(c["file"], keep)
            c["kept"] = str(keep)
    return m


def report(doc, out, text):
    """Print the table ``text`` and every mutant that got a statement accepted without its truth; exit code 1 iff a
    false statement was accepted."""
    print(text)
    for m in doc["mutants"]:
        if m["verdict"] in ("false-accepted", "undecided-accepted"):
            print(f"\n{m['verdict']}: mutant {m['id']} ({m['module']}:{m['line']}, {m['kind']})\n{m['diff']}")
            for c in m["cases"].values():
                if c["outcome"] == "accepted":
                    print(f"  case {c['case']}: {c.get('why')}; checker: {c.get('checker', c.get('inner', {})).get('reason')}")
    print(f"\nwritten {out} ({doc['meta']['seconds']:.0f} s)", file=sys.stderr)
    return 1 if doc["summary"]["false-accepted"] else 0


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", help="the results, a .json file (checked writable before the run)")
    ap.add_argument("--max-mutants", type=int, default=40, help="mutation sites sampled (default 40)")
    ap.add_argument("--seed", type=int, default=0, help="seed of the sample (default 0)")
    ap.add_argument("--time-limit", type=float, default=60.0, help="seconds per search (default 60)")
    ap.add_argument("--timeout", type=float, default=300.0,
                    help="seconds per mutant, all four cases (default 300: the four searches' limits and a margin)")
    ap.add_argument("--wall-limit", type=float, default=None, help="start no new mutant after this many seconds")
    ap.add_argument("--summarise", metavar="FILE.json", help="recompute the verdicts and summary of an earlier --out, no run")
    ap.add_argument("--worker", help=argparse.SUPPRESS)
    a = ap.parse_args(argv)
    if a.worker:
        return worker(a.worker)
    if a.summarise:
        return resummarise(Path(a.summarise))
    if not a.out:
        ap.error("--out is required")
    if a.max_mutants < 1 or a.time_limit <= 0 or a.timeout <= 0:
        ap.error("--max-mutants, --time-limit and --timeout must be positive")
    out = check_out(a.out)
    t_start = time.time()
    with tempfile.TemporaryDirectory(prefix="mutcert-") as tmp:
        snap = snapshot(tmp)
        sources = {m: (snap / p).read_text() for m, p in MODULES.items()}
        picked, n_sites = sample(a.max_mutants, a.seed, sources)
        judge = Judge()
        ref = judge.reference(0.9)
        files = sorted(["slr_verify/certify/" + p.name for p in (snap / "slr_verify/certify").glob("replay*.py")]
                       + list(MODULES.values()))
        head = subprocess.run(["git", "rev-parse", "HEAD"], cwd=ROOT, capture_output=True, text=True).stdout.strip()
        doc = {"meta": {"script": "benchmarks/mutation_certificates.py", "argv": sys.argv[1:], "seed": a.seed,
                        "max_mutants": a.max_mutants, "time_limit": a.time_limit, "timeout": a.timeout,
                        "wall_limit": a.wall_limit, "setting": SETTING, "cases": CASES, "W": W, "W_rtol": W_RTOL,
                        "risk_slack": RISK_SLACK, "overlap_slack": OVERLAP_SLACK,
                        "reference_lam_0.9": {"risk": ref[0], "kappa": ref[1], "eta": ref[2]}, "sites": n_sites,
                        "git_head": head, "sha256": {f: hashlib.sha256((snap / f).read_bytes()).hexdigest() for f in files},
                        "started": time.strftime("%Y-%m-%d %H:%M:%S")},
               "control": None, "mutants": [], "summary": None}
        write(out, doc)  # fails here, before the run, if --out is not writable after all
        base = {"cases": CASES, "time_limit": a.time_limit, "module": "globalmin", "source": sources["globalmin"]}
        print(f"control (unmutated; {n_sites} sites, {len(picked)} sampled) ...", file=sys.stderr)
        control = run_job(dict(base, dir=tmp), a.timeout, judge, tmp, snap)
        traced = run_job(dict(base, dir=tmp, trace=True), a.timeout * 3, judge, tmp, snap)
        control["executed_lines"], control["verdict"] = traced["executed"], verdict(control["cases"])
        doc["control"] = control
        write(out, doc)
        if control["verdict"] != "survived":
            raise SystemExit(f"the unmutated control does not behave ({control['verdict']}): see {out}")
        executed = traced["executed"] or {}
        bar = tqdm(picked, desc="mutants", unit="mutant", file=sys.stderr)
        for i, (site, rep) in enumerate(bar):
            if a.wall_limit is not None and time.time() - t_start > a.wall_limit:
                doc["meta"]["stopped_by_wall_limit_after"] = i
                break
            source, diff = apply(site, rep, sources[site["module"]])
            with tempfile.TemporaryDirectory(dir=tmp) as d:
                res = run_job(dict(base, dir=d, module=site["module"], source=source), a.timeout, judge, d, snap)
                res.pop("executed")
                m = mutant_record(i, site, rep, diff, set(executed.get(site["module"], [])), res, out)
            m["verdict"] = verdict(res["cases"])
            doc["mutants"].append(m)
            doc["summary"] = summarise(doc["mutants"], control)
            doc["meta"]["seconds"] = round(time.time() - t_start, 1)
            write(out, doc)
            s = doc["summary"]
            bar.set_postfix(checker=s["killed-by-checker"], other=s["killed-otherwise"], survived=s["survived"],
                            FALSE=s["false-accepted"])
        bar.close()
    doc["summary"] = summarise(doc["mutants"], control)
    doc["meta"]["seconds"] = round(time.time() - t_start, 1)
    write(out, doc)
    return report(doc, out, table(doc["summary"]))


if __name__ == "__main__":
    sys.exit(main())
