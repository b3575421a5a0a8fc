"""A ball becomes floats only through outward rounding (`docs/MATH.md` §14): ``float()`` of an arb end rounds to
nearest, so a float reported as a lower or upper bound of a ball may lie inside it by up to half an ulp.

* A static scan (ast) of every module under slr_verify/: ``float(X.lower())``, ``float(X.upper())``,
  ``float(X.mid())``, ``float(X.rad())`` and ``float(arb(...))`` are refused outside the helpers that own the
  conversion (:func:`slr_verify.checker.balls.outward`; :func:`slr_verify.kernels.balls.midpoint`, an estimate),
  unless rounded outward on the spot,
  ``math.nextafter(float(X.lower()), -math.inf)`` or ``math.nextafter(float(X.upper()), math.inf)``.
* The four enclosures an adversarial review found rounded to nearest (the ``risk`` question, ``alpha_attract``,
  ``log_bayes_gap_enclosure``, the off-M family's theta* and minors): the reported floats hold the ball they came
  from, exactly, at points where the old round-to-nearest ends lay inside the ball.
"""
import ast
import json
import math
import pathlib

import pytest
from flint import arb, ctx

from slr_verify.certify import alpha_attract, off_M_family_minimality, off_M_family_point
from slr_verify.certify.corollary2 import _log_gap_ball, compare_log_bayes_gap, log_bayes_gap_enclosure
from slr_verify.certify.reduced_map import _alpha_attract_ball
from slr_verify.checker.balls import param_balls
from slr_verify.checker.dynamics import family_values
from slr_verify.cli import main
from slr_verify.kernels.balls import midpoint, outward, widened
from slr_verify.model.params import ModelSetting
from slr_verify.questions import _risk_ball

ROOT = pathlib.Path(__file__).resolve().parent.parent
PACKAGE = ROOT / "slr_verify"
#: (module path, function) where a float of a ball end is the point: the conversion helpers themselves
ALLOWED = {("slr_verify/checker/balls.py", "outward"), ("slr_verify/kernels/balls.py", "midpoint")}
ENDS = {"lower", "upper", "mid", "rad"}
G4B = math.sqrt(0.5)  # Figure 4b's gamma (gamma^2 = 1/2), d = 400, L = 10
#: lams at which, at Figure 4b's setting, the old round-to-nearest ends of each of the four enclosures lay inside the ball
#: at one at least (lam = 0.05 for all of them)
LAMS = (0.05, 0.1, 0.2, 0.3, 0.5)


# --------------------------------------------------------------------------- the static scan
def _is_inf(node, sign):
    """``math.inf`` / ``inf`` (sign +1) or ``-math.inf`` / ``-inf`` (sign -1)."""
    if sign < 0:
        return isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub) and _is_inf(node.operand, 1)
    return (isinstance(node, ast.Attribute) and node.attr == "inf") or (isinstance(node, ast.Name) and node.id == "inf")


def _ball_conversion(node):
    """The end a ``float(...)`` call converts ('lower', 'upper', 'mid', 'rad', 'arb'), or None."""
    if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "float" and node.args):
        return None
    a = node.args[0]
    if isinstance(a, ast.Call) and not a.args and isinstance(a.func, ast.Attribute) and a.func.attr in ENDS:
        return a.func.attr
    if isinstance(a, ast.Call) and ((isinstance(a.func, ast.Name) and a.func.id == "arb")
                                    or (isinstance(a.func, ast.Attribute) and a.func.attr == "arb")):
        return "arb"
    return None


def _rounded_outward(node):
    """The float calls of ``nextafter(float(X.lower()), -inf)`` / ``nextafter(float(X.upper()), inf)`` in ``node``."""
    f = node.func
    if not ((isinstance(f, ast.Attribute) and f.attr == "nextafter") or (isinstance(f, ast.Name) and f.id == "nextafter")):
        return []
    if len(node.args) != 2:
        return []
    end = _ball_conversion(node.args[0])
    ok = (end == "lower" and _is_inf(node.args[1], -1)) or (end == "upper" and _is_inf(node.args[1], 1))
    return [node.args[0]] if ok else []


def violations(source, path="<string>"):
    """[(path:line, the call)] for every float of a ball end in ``source`` outside :data:`ALLOWED`'s functions and not
    rounded outward on the spot."""
    tree = ast.parse(source)
    out, safe = [], set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Call):
            safe.update(id(n) for n in _rounded_outward(node))

    def visit(node, funcs):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            funcs = funcs + (node.name,)
        if _ball_conversion(node) and id(node) not in safe and not any((path, f) in ALLOWED for f in funcs):
            out.append((f"{path}:{node.lineno}", ast.unparse(node)))
        for child in ast.iter_child_nodes(node):
            visit(child, funcs)

    visit(tree, ())
    return out


def test_the_scan_finds_planted_conversions():
    source = """
import math
from flint import arb

def report(b, x):
    lo, hi = float(b.lower()), float(b.upper())
    centre, r = float(b.mid()), float(b.rad())
    y = float(arb(x))
    wrong = math.nextafter(float(b.lower()), math.inf)
    return lo, hi, centre, r, y, wrong

def fine(b):
    return math.nextafter(float(b.lower()), -math.inf), math.nextafter(float(b.upper()), math.inf), float(len(b))
"""
    found = violations(source, "planted.py")
    assert [w for w, _ in found] == ["planted.py:6", "planted.py:6", "planted.py:7", "planted.py:7", "planted.py:8",
                                     "planted.py:9"], found
    assert violations(source.replace("def report", "def outward"), "slr_verify/checker/balls.py") == []  # the helper


def test_no_ball_becomes_a_float_but_through_the_helpers():
    found = []
    for p in sorted(PACKAGE.rglob("*.py")):
        rel = p.relative_to(ROOT).as_posix()
        found += violations(p.read_text(), rel)
    assert not found, "floats of ball ends rounded to nearest (use kernels.balls.outward for a bound, midpoint for an " \
                      "estimate):\n" + "\n".join(f"{w}: {c}" for w, c in found)


# --------------------------------------------------------------------------- the four enclosures
def encloses(pair, b):
    """``pair`` = (lo, hi) floats with lo <= every point of the ball b <= hi (exact comparisons)."""
    lo, hi = pair
    with ctx.workprec(1024):  # the ends mid -+ rad exactly
        return bool(arb(lo) <= b.lower()) and bool(b.upper() <= arb(hi))


def nearest_lies_inside(b, prec):
    """Whether the old conversion, float(b.lower()), float(b.upper()) at ``prec`` bits (round to nearest), put an end
    inside the ball: a lower bound above its lower end or an upper bound below its upper end."""
    with ctx.workprec(prec):
        lo, hi = float(b.lower()), float(b.upper())
    return not encloses((lo, hi), b)


def test_risk_question_enclosure_holds_the_ball(capsys):

    ov, own = [0.3, 0.5, 0.2, 0.9, 0.4], dict(gamma2=0.8, eps=0.1, d=200, L=6)
    model, old_inside = ModelSetting(**own), []
    for lam in LAMS[:2]:
        assert main(["risk", "--gamma2", "0.8", "--eps", "0.1", "--d", "200", "--L", "6", "--lam", str(lam),
                     "--overlaps", ",".join(map(str, ov)), "--json"]) == 0
        lo, hi = json.loads(capsys.readouterr().out)["results"][1]["value"]
        b = _risk_ball(ov, lam, model)
        assert encloses((lo, hi), b), (lam, lo, hi, b)
        old_inside.append(nearest_lies_inside(b, 128))
    assert any(old_inside), "no point where rounding to nearest failed: choose lams that exercise it"


def test_alpha_attract_encloses_its_ball():

    old_inside = []
    for lam in LAMS:
        b = _alpha_attract_ball(lam, G4B, 400, 10, 192)
        assert encloses(alpha_attract(lam=lam, gamma=G4B, d=400, L=10), b), (lam, b)
        old_inside.append(nearest_lies_inside(b, 192))
    assert any(old_inside), "no point where rounding to nearest failed: choose lams that exercise it"


def test_log_bayes_gap_enclosure_encloses_its_ball():

    old_inside = []
    for lam in LAMS:
        b = _log_gap_ball(lam, G4B, 400, 10, 128)
        assert encloses(log_bayes_gap_enclosure(lam=lam, gamma=G4B, d=400, L=10), b), (lam, b)
        old_inside.append(nearest_lies_inside(b, 128))
    assert any(old_inside), "no point where rounding to nearest failed: choose lams that exercise it"
    rows = compare_log_bayes_gap([dict(lam=LAMS[0], gamma=G4B, d=400, L=10)])[2]
    assert encloses(rows[0]["enclosure"], _log_gap_ball(LAMS[0], G4B, 400, 10, 128))


def test_off_M_family_enclosures_hold_their_balls():

    old_inside = []
    for lam in LAMS:
        with ctx.workprec(128):
            v = family_values(widened(lam), param_balls(G4B, 0.0, 400, 10))
        for eta in (1, -1):
            r = off_M_family_point(lam=lam, gamma=G4B, d=400, L=10, eta=eta)
            assert encloses(r["theta_star"], v["theta_star"][eta]), (lam, eta, r["theta_star"])  # proved or not
            old_inside.append(nearest_lies_inside(v["theta_star"][eta], 128))
    assert any(old_inside), "no point where rounding to nearest failed: choose lams that exercise it"
    m = off_M_family_minimality(lam=0.1, gamma=G4B, d=400, L=10)  # at lam = 0.05 |theta*| > 1: the minors are nan
    with ctx.workprec(128):
        v = family_values(widened(0.1), param_balls(G4B, 0.0, 400, 10))
    assert m["proved"] and encloses(m["minus_mu_k"], v["minus_mu_k"])
    assert all(encloses(pair, b) for pair, b in zip(m["minors"], v["minors"], strict=True))


@pytest.mark.parametrize("x", [arb(1) / 3, arb(2).sqrt() * arb(10) ** 200, -arb(1) / 7, arb(0, 1e-300)])
def test_midpoint_is_the_estimate_and_outward_the_bound(x):

    with ctx.workprec(128):
        assert midpoint(x) == float(x.mid()) and encloses(outward(x), x)
