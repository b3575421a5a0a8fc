"""Forged certificates: the adversary's side of the checker (`docs/certificates.md`, "What the checker does").

Each forgery starts from a genuine certificate (a small committed one, or for the kinds that have none committed, one
the search writes here), changes it as an adversary would, and re-derives the statement wherever the text depends on
the changed field (an adversary would: the text is public). The checker must reject it, and its reason must name the
fault (contain one of the entry's words, case-sensitive: field names such as ``T``, ``Y``, ``L`` are).

Everything goes through the checker's public API only (``from slr_verify.checker import replay, load, statement``), so
that the table runs unchanged on any checker behind that API.

The tables:

* :data:`FORGERIES`: must be rejected, the reason naming the fault. An entry with ``old=`` records why the old
  checker (``slr_verify.certify.replay*``, before the checker package) accepted it, ``vague=`` why its reason did not
  name the fault; ``unsound`` entries are false statements it accepted, the others malformed input the format forbids
  while the statement stays true. The checker package rejects them all (they were strict xfails until it landed).
* :data:`PROBES`: changes after which the statement is still true (the checker re-proves it at the changed setting),
  so either verdict is right; if accepted, the conclusion must state the changed value (what a claim binds to).
* :data:`VARIANTS`: true certificates written another way the format allows: must be accepted.
* :data:`FILE_FORGERIES`: byte-level attacks on :func:`load` (duplicate keys, NaN tokens, nesting depth): the file must
  be unreadable (``ValueError``) or rejected, never accepted, never another exception.

``python tests/test_checker_forgeries.py`` prints every entry's verdict and reason under the current checker (add
``--slow`` for the window entries).
"""
from __future__ import annotations

import functools
import gzip
import inspect
import json
import math
import sys
from dataclasses import dataclass, field
from importlib import resources
from typing import Callable

import pytest
from documents import clone

from slr_verify import checker
from slr_verify.checker import load, replay
from slr_verify.checker.premises import premise_hash
from slr_verify.checker.registry import required_premises

# the committed certificates the forgeries start from (leaves; replay without premise proofs)
ORACLE = "oracle_d80_lam0.316717.json.gz"  # oracle-global-minimiser, 38 leaves, 0.02 s
MINIMUM = "minimum_d80_lam0.01.json.gz"  # global-minimum-enclosure with circle, 91 leaves, 0.02 s
P10 = "proposition10_fig4b.json.gz"  # reduced-map-diffeomorphism, 4362 leaves, 0.3 s
SIGNS = "hessian_signs_fig4b.json.gz"  # manifold-hessian-signs, 310 leaves, 0.06 s
P9 = "proposition9_fig4b.json.gz"  # manifold-stationary-points, 13522 leaves, 0.9 s
WINDOW = "window_fig5.json.gz"  # oracle-window, 7877 leaves, 10 s (the ends are tested before the leaves)
# the same cut to a subtree over a lam interval (:func:`lam_piece`): genuine certificates of their own, 84 and 311
# leaves; the window's last piece (1012 leaves, 1.3 s) is an oracle certificate holding a valley-edge leaf
SUB_P9, SUB_WINDOW, EDGE = f"first-piece:{P9}", f"first-piece:{WINDOW}", f"last-piece:{WINDOW}"
# no certificate of these kinds is committed: the searches write them (test_dynamics_certificates' settings), ~3 s
CYCLE, TUBE, FAMILY = "search:contraction-ball", "search:oracle-tube", "search:off-M-minimum"


# ------------------------------------------------------------------------------------------------------ documents

@functools.lru_cache(maxsize=None)
def _genuine(name) -> dict:
    if name == CYCLE:
        from paper import FIG4B, G4B

        from slr_verify.certify import capture_certificate, contraction_ball
        guess, mirror = (-0.237262, -0.999927, 0.011627, 0.003321, -0.009235), (1, 1, -1, -1, -1)
        return capture_certificate(contraction_ball(guess, mirror, lam=0.5, alpha=FIG4B.alpha, **G4B))
    if name == TUBE:
        from paper import FIG4B, G4B

        from slr_verify.certify import oracle_tube
        t = oracle_tube(lam=0.03, alpha=FIG4B.alpha, D=((0.9, 1.0), (0.9, 1.0)), **G4B)
        assert t.proved, t.reason
        return t.certificate
    if name == FAMILY:
        from slr_verify.certify import off_M_family_minimality
        r = off_M_family_minimality(lam=0.3, gamma=math.sqrt(0.8), d=200, L=6)
        assert r["proved"]
        return r["certificate"]
    if name.startswith(("first-piece:", "last-piece:")):
        which, source = name.split(":", 1)
        return lam_piece(source, last=which == "last-piece")
    return load(str(resources.files("slr_verify.certificates").joinpath(name)))


def _subtree_end(tree, i) -> tuple:
    """(the index after the subtree rooted at node i, its number of leaves), the tree in pre-order."""
    need, k = 1, 0
    while need:
        node, i = tree[i], i + 1
        need, k = (need - 1, k + 1) if node == -1 else (need + 1, k)
    return i, k


def lam_piece(name, last=False) -> dict:
    """The committed certificate ``name`` cut to a subtree over a lam interval: the root's left subtree (its root
    splits lam at ``at``: lam = [lo, at]) or, with ``last``, the right subtree reached by following lam splits from
    the root (lam = [at, hi]). Each is a genuine certificate of its own: a window's first piece keeps its lower end,
    its upper end becomes ``none`` ([lo, at] reaches no end of W); a window's last piece has no lower end and becomes
    an ``oracle-global-minimiser``; Proposition 9 keeps the pieces of its lam interval."""
    doc = clone(_genuine(name))
    tree, names, lam = doc["tree"], list(doc["leaves"][0]["box"]), list(doc["domain"]["lam"])
    lam_split = lambda node: node == names.index("lam") or isinstance(node, list) and node[0] == names.index("lam")
    assert lam_split(tree[0])
    i0, k0 = 0, 0
    while lam_split(tree[i0]):
        at = tree[i0][1] if isinstance(tree[i0], list) else 0.5 * (lam[0] + lam[1])
        left_end, left_leaves = _subtree_end(tree, i0 + 1)
        if not last:
            i0, lam = i0 + 1, [lam[0], at]
            break
        i0, k0, lam = left_end, k0 + left_leaves, [at, lam[1]]
    end, n = _subtree_end(tree, i0)
    doc.update(tree=tree[i0:end], leaves=doc["leaves"][k0:k0 + n])
    doc["domain"]["lam"] = lam
    if "ends" in doc and not last:
        doc["ends"]["hi"] = {"mechanism": "none"}
    elif "ends" in doc:
        del doc["ends"]
        doc["kind"] = "oracle-global-minimiser"
    if "pieces" in doc:
        doc["pieces"] = [p for p in doc["pieces"] if lam[0] <= p["lam"][0] and p["lam"][1] <= lam[1]]
    doc.pop("search", None)
    # the premises the piece evaluates (a piece without a valley-edge leaf does not evaluate valley-edge)
    doc["premises"] = [{"name": n, "hash": premise_hash(n)} for n in required_premises(doc["kind"], doc)]
    return restated(doc)


def genuine(name) -> dict:
    """A fresh deep copy of the genuine certificate ``name`` (committed file, or one of the searches')."""
    return clone(_genuine(name))


def check(doc):
    """The checker's verdict on ``doc`` (premises' hashes checked; their SymPy proofs skipped where the API allows:
    no forgery here touches them, and they cost seconds)."""
    if "prove_premises" in inspect.signature(replay).parameters:
        return replay(doc, prove_premises=False)
    return replay(doc)


def restated(doc) -> dict:
    """``doc`` with the statement the checker derives for it (what an adversary writes after changing a field the text
    depends on). A document too malformed to derive a statement for keeps its old one (the checker must reject it on
    the malformed field first)."""
    try:
        doc["statement"] = checker.statement(doc)
    except Exception:  # noqa: BLE001 - malformed on purpose
        pass
    return doc


# --------------------------------------------------------------------------------------------------- the mutations

def up(x, n=1):
    """x moved n ulp up (down for n < 0)."""
    for _ in range(abs(n)):
        x = math.nextafter(x, math.inf if n > 0 else -math.inf)
    return x


def setting(**kv):
    return lambda doc: doc["setting"].update(kv)


def domain(coordinate, value):
    return lambda doc: doc["domain"].__setitem__(coordinate, value)


def field_(name, value):
    return lambda doc: doc.__setitem__(name, value)


def first_leaf(test):
    """The index of the first leaf whose test is ``test``."""
    return lambda doc: next(i for i, leaf in enumerate(doc["leaves"]) if leaf["test"] == test)


def leaf_update(which, **kv):
    """Update the leaf ``which`` (an index, or a function of the document giving one) with ``kv``."""
    def change(doc):
        i = which(doc) if callable(which) else which
        doc["leaves"][i].update(kv)
    return change


def each_leaf(**kv):
    def change(doc):
        for leaf in doc["leaves"]:
            leaf.update(kv)
    return change


def value_betas(f):
    """Every ``value`` leaf's beta replaced by f(beta)."""
    def change(doc):
        for leaf in doc["leaves"]:
            if leaf["test"] == "value":
                leaf["beta"] = f(leaf["beta"])
    return change


def tree_node(i, node):
    return lambda doc: doc["tree"].__setitem__(i, node)


def first_split(doc):
    """The index of the tree's first [axis, at] node."""
    return next(i for i, n in enumerate(doc["tree"]) if isinstance(n, list))


def first_bare_split(doc):
    """The index of the tree's first bare axis node (a midpoint split)."""
    return next(i for i, n in enumerate(doc["tree"]) if isinstance(n, int) and n >= 0)


def split_at(f):
    """The first [axis, at] node's split point replaced by f(box) (box: the domain's interval of its axis; the first
    such node is the root in every certificate used)."""
    def change(doc):
        i = first_split(doc)
        axis, _ = doc["tree"][i]
        names = list(doc["leaves"][0]["box"])
        doc["tree"][i] = [axis, f(doc["domain"][names[axis]])]
    return change


def premise(name=None, hash_=None, drop=False):
    def change(doc):
        i = 0 if name is None else next(i for i, p in enumerate(doc["premises"]) if p["name"] == name)
        if drop:
            del doc["premises"][i]
        else:
            doc["premises"][i]["hash"] = hash_
    return change


def both(*changes):
    def change(doc):
        for c in changes:
            c(doc)
    return change


def shift_box(i, coordinate, dlo, dhi):
    """Leaf i's interval of ``coordinate`` moved dlo, dhi ulp at its ends."""
    def change(doc):
        lo, hi = doc["leaves"][i]["box"][coordinate]
        doc["leaves"][i]["box"][coordinate] = [up(lo, dlo), up(hi, dhi)]
    return change


def duplicate_leaf(i):
    def change(doc):
        doc["leaves"].insert(i, clone(doc["leaves"][i]))
        doc["tree"].insert(doc["tree"].index(-1), -1)
    return change


def window_end(side, **kv):
    return lambda doc: doc["ends"][side].update(kv)


def upper_at_negative(doc):
    doc["alpha_upper"] = -10.0


def p10_upper_below_lower(doc):
    """alpha_upper just below the proved lower end A, at the point of the square where det J is smallest there."""
    doc["alpha_upper"] = up(doc["domain"]["alpha"][1], -1)


def promoted(a, witness):
    """An oracle certificate over lam = [A, B] (window_fig5's setting) relabelled ``oracle-window``: lower end [a, A]
    crossing at a with ``witness``, upper end ``none``, the window's premise ``oracle-curvature`` added."""
    def change(doc):
        doc["kind"] = "oracle-window"
        doc["premises"] += [p for p in _genuine(WINDOW)["premises"] if p["name"] == "oracle-curvature"]
        doc["ends"] = {"lo": {"enclosure": [a, doc["domain"]["lam"][0]], "mechanism": "crossing", "witness": witness},
                       "hi": {"mechanism": "none"}}
        doc.pop("search", None)
    return change


def p10_doubled(doc):
    """Every alpha coordinate doubled (exact in binary: the same tree), the upper bound dropped: the statement
    alpha_max >= 2 A is false (det J < 0 at (0, 0) from about 1.0000 A on)."""
    doc["domain"]["alpha"] = [0.0, 2 * doc["domain"]["alpha"][1]]
    for leaf in doc["leaves"]:
        leaf["box"]["alpha"] = [2 * x for x in leaf["box"]["alpha"]]
    del doc["alpha_upper"], doc["upper_at"]


def last_value_leaf(doc):
    return max(i for i, leaf in enumerate(doc["leaves"]) if leaf["test"] == "value")


def value_leaf_called(test):
    """The last value leaf (near the valley, kappa ~ 0.2) relabelled ``test``, its beta dropped; the premise
    ``valley-edge`` added (from the window) when needed."""
    def change(doc):
        leaf = doc["leaves"][last_value_leaf(doc)]
        leaf["test"] = test
        del leaf["beta"]
        if test == "valley-edge":
            doc["premises"] += [p for p in _genuine(WINDOW)["premises"] if p["name"] == "valley-edge"]
    return change


def point_lam(lam):
    """A point-lam certificate moved to ``lam`` (domain and its one leaf)."""
    def change(doc):
        doc["domain"]["lam"] = [lam, lam]
        doc["leaves"][0]["box"]["lam"] = [lam, lam]
    return change


def circle_with_a_gap(doc):
    """The circle's one piece [k0, k1] cut into [k0, k1 / 4] and [k1 / 2, k1], each with the genuine bracket."""
    p = doc["circle"][0]
    k0, k1 = p["kappa"]
    doc["circle"] = [dict(p, kappa=[k0, k1 / 4]), dict(p, kappa=[k1 / 2, k1])]


def merge_last_leaf_pairs(times):
    """A coarser tree: ``times`` over, the last split whose two children are leaves becomes one leaf over their union,
    tested ``valley-edge`` (in the window's last piece: the valley-edge leaf at kappa = 1 and its valley sibling, then
    the next ones up). Once, the closed-form remainders prove the merged leaf (a variant: accepted); three times over
    (kappa in [0.9996, 1], lam 6.4e-11 wide), they do not (a forgery: the leaf's test is re-evaluated, not trusted)."""
    def change(doc):
        for _ in range(times):
            _merge_last_leaf_pair(doc)
    return change


def _merge_last_leaf_pair(doc):
    tree = doc["tree"]
    i = max(j for j in range(len(tree) - 2) if tree[j] != -1 and tree[j + 1] == tree[j + 2] == -1)
    k = tree[:i].count(-1)
    a, b = doc["leaves"][k]["box"], doc["leaves"][k + 1]["box"]
    tree[i:i + 3] = [-1]
    doc["leaves"][k:k + 2] = [{"box": {c: [min(a[c][0], b[c][0]), max(a[c][1], b[c][1])] for c in a}, "test": "valley-edge"}]


def relabel_kind(kind):
    return lambda doc: doc.__setitem__("kind", kind)


def window_lo_at(lam, witness=None):
    """The window's lower end's enclosure [lam, A], crossing at lam with ``witness`` (default: the genuine one)."""
    def change(doc):
        lo = doc["ends"]["lo"]
        lo["enclosure"][0] = lam
        if witness is not None:
            lo["mechanism"], lo["witness"] = "crossing", witness
    return change


# ----------------------------------------------------------------------------------------------------- the tables

@dataclass
class Forgery:
    """``name``; ``source``: the genuine certificate; ``change``: the mutation (in place, on a deep copy); ``words``:
    the rejection's reason must contain one of them; ``restate``: re-derive the statement after the change; ``old``:
    why the old checker accepts it (the test is then a strict xfail); ``unsound``: the statement accepted is false
    (not only malformed input); ``vague``: the old checker rejects it with a reason that does not name the fault
    (also a strict xfail); ``slow``: runs the leaves of a large certificate."""

    name: str
    source: str
    change: Callable
    words: tuple
    restate: bool = True
    old: str | None = None
    unsound: bool = False
    vague: str | None = None
    slow: bool = False

    def forged(self) -> dict:
        doc = genuine(self.source)
        self.change(doc)
        return restated(doc) if self.restate else doc


@dataclass
class Probe:
    """A change after which the statement stays true (re-proved at the changed setting): the checker may accept or
    reject it; an accepted one's conclusion (or values) must contain ``bound(doc)``, the changed value."""

    name: str
    source: str
    change: Callable
    bound: Callable
    why: str
    old: str = field(default="")


NAN, INF = math.nan, math.inf
W_ENDS = ("end lo", "enclosure", "lam > 0", "lam must")
# a pair below the oracle at lam = -1 (window_fig5's setting): k = k*, v = e; risk 5.18 against the oracle's 6.18
WITNESS_AT_MINUS_1 = {"a": 0.0, "b": 0.0, "x": [0.0, 0.0, 1.0, 0.0]}
OUTSIDE_LAM = ("the outer point of an end is not required to be > 0: a crossing at lam = -1 is evaluated on R_lam's "
               "formula (where (k*, -v*) is the oracle), and the statement puts W's lower end in [-1, A], outside the "
               "model's lam > 0 (every field's domain is checked)")

FORGERIES = [
    # --- the known attacks
    Forgery("p10 alpha_upper = -10", P10, upper_at_negative, ("alpha_upper",), unsound=True,
            old="det J(0, 0) < 0 at alpha = -10 holds, and nothing asks alpha_upper >= A (or > 0): the conclusion says "
            "'alpha_max >= 0.306...' and 'so alpha_max <= -10.0'"),
    Forgery("p10 alpha_upper one ulp below A", P10, p10_upper_below_lower, ("alpha_upper",)),
    Forgery("oracle certificate promoted to a window, lo end at lam = -1", ORACLE, promoted(-1.0, WITNESS_AT_MINUS_1),
            W_ENDS, old=OUTSIDE_LAM),
    Forgery("window (first piece) lo end at lam = -1", SUB_WINDOW, window_lo_at(-1.0, WITNESS_AT_MINUS_1), W_ENDS,
            old=OUTSIDE_LAM),
    Forgery("window lo end at lam = -1 (crossing)", WINDOW, window_lo_at(-1.0, WITNESS_AT_MINUS_1), W_ENDS, slow=True,
            old=OUTSIDE_LAM),
    Forgery("window lo end at lam = -1, genuine witness", SUB_WINDOW, window_lo_at(-1.0), W_ENDS),
    Forgery("window lo end at lam = 0", SUB_WINDOW, window_lo_at(0.0), W_ENDS),
    Forgery("gamma + 4 ulp, statement kept", ORACLE, lambda d: d["setting"].update(gamma=up(d["setting"]["gamma"], 4)),
            ("statement",), restate=False),
    Forgery("eps = 1e-30, statement kept", ORACLE, setting(eps=1e-30), ("statement",), restate=False),
    Forgery("premise hash changed", ORACLE, premise(hash_="0" * 32), ("premise",)),
    Forgery("premise hash of another premise", ORACLE,
            lambda d: d["premises"][0].update(hash=d["premises"][1]["hash"]), ("premise",)),
    Forgery("premise missing", ORACLE, premise("valley", drop=True), ("premise",)),
    Forgery("premise renamed", P10, lambda d: d["premises"][0].update(name="Reduced-Map"), ("premise",)),
    Forgery("premises not a list", P10, field_("premises", {"reduced-map": "d17d2795faf49a29848935baa960914a"}),
            ("premise",)),
    Forgery("leaf tests of another kind", P10, each_leaf(test="signs"), ("test", "admitted")),
    Forgery("one leaf test of another kind", ORACLE, leaf_update(first_leaf("valley"), test="det-positive"),
            ("test", "admitted")),
    Forgery("leaf box one ulp short (gap)", ORACLE, shift_box(3, "kappa", 0, -1), ("box", "gap", "tree")),
    Forgery("leaf box one ulp long (overlap)", ORACLE, shift_box(3, "kappa", 0, 1), ("box", "overlap", "tree")),
    Forgery("leaf box shifted one ulp", P10, shift_box(7, "alpha", 1, 1), ("box", "gap", "tree")),
    Forgery("tree with an extra leaf node", ORACLE, lambda d: d["tree"].append(-1), ("tree",)),
    Forgery("tree with an extra split node", ORACLE, lambda d: d["tree"].append(0), ("tree",)),
    Forgery("tree missing its last node", SIGNS, lambda d: d["tree"].pop(), ("tree", "leaves")),
    Forgery("prec = 10", ORACLE, field_("prec", 10), ("prec",)),
    Forgery("prec = 4097", ORACLE, field_("prec", 4097), ("prec",)),
    Forgery("prec = 10**7", SIGNS, field_("prec", 10**7), ("prec",)),
    Forgery("prec a float", ORACLE, field_("prec", 128.0), ("prec",)),
    Forgery("prec a bool", ORACLE, field_("prec", True), ("prec",)),
    Forgery("unknown top-level field", ORACLE,
            field_("conclusion", "(k*, v*) is the unique global minimiser for every lam > 0"), ("unknown", "field"),
            old="fields it does not read are ignored (the format rejects unknown fields)"),
    Forgery("another kind's field (alpha_upper on an oracle certificate)", ORACLE, field_("alpha_upper", 0.25),
            ("unknown", "field", "alpha_upper"), old="fields the kind does not read are ignored"),
    Forgery("ends on an oracle-global-minimiser", ORACLE,
            field_("ends", {"lo": {"enclosure": [0.1, 0.3167172634509454], "mechanism": "crossing"}}),
            ("unknown", "field", "ends"), old="fields the kind does not read are ignored"),
    Forgery("unknown field in a leaf", ORACLE, leaf_update(0, lower_bound=1e9), ("unknown", "field", "leaf"),
            old="a leaf's fields it does not read are ignored"),
    Forgery("beta in a valley leaf", ORACLE, leaf_update(first_leaf("valley"), beta=-1.0), ("unknown", "field", "beta"),
            old="a valley leaf's beta is not read"),
    Forgery("unknown coordinate in a leaf's box", ORACLE, lambda d: d["leaves"][0]["box"].update(eta=[0.0, 2.0]),
            ("unknown", "field", "box", "eta"), old="a box's extra coordinates are ignored"),
    Forgery("unknown field in the setting", ORACLE, setting(alpha=0.004), ("setting",)),
    Forgery("duplicate leaf", ORACLE, duplicate_leaf(2), ("leaf", "tree", "box", "duplicate")),
    Forgery("d = 3", ORACLE, setting(d=3), ("setting", "d =", "d must")),
    Forgery("d = 2**60", ORACLE, setting(d=2**60), ("setting", "d =", "d must", "leaf", "undefined")),
    Forgery("d = 10**400", SIGNS, setting(d=10**400), ("setting", "d =", "d must", "leaf", "undefined")),
    Forgery("L = 0", ORACLE, setting(L=0), ("setting", "L =", "L must")),
    Forgery("L = -3", P10, setting(L=-3), ("setting", "L =", "L must")),
    Forgery("d = 400.0 (a float)", P10, setting(d=400.0), ("setting", "d =", "d must")),
    Forgery("d a bool", ORACLE, setting(d=True), ("setting", "d =", "d must")),
    Forgery("d a string", ORACLE, setting(d="80"), ("setting", "d =", "d must")),
    Forgery("gamma negative", ORACLE, lambda d: d["setting"].update(gamma=-d["setting"]["gamma"]), ("setting", "gamma")),
    Forgery("gamma = 0", SIGNS, setting(gamma=0.0), ("setting", "gamma")),
    Forgery("gamma = 'NaN' (a string)", ORACLE, setting(gamma="NaN"), ("gamma", "number")),
    Forgery("gamma = NaN", ORACLE, setting(gamma=NAN), ("gamma", "finite")),
    Forgery("gamma = inf", P10, setting(gamma=INF), ("gamma", "finite")),
    Forgery("gamma a bool", ORACLE, setting(gamma=True), ("gamma", "number")),
    Forgery("eps negative", ORACLE, setting(eps=-1e-3), ("setting", "eps")),
    Forgery("eps = NaN", SIGNS, setting(eps=NAN), ("eps", "finite")),
    Forgery("setting without eps", ORACLE, lambda d: d["setting"].pop("eps"), ("setting", "eps")),
    Forgery("lam domain lo > hi", ORACLE, domain("lam", [0.4, 0.3]), ("lam",)),
    Forgery("lam domain lo > hi (interval kind)", SIGNS, domain("lam", [1.0, 0.01]), ("lam",)),
    Forgery("lam = 0", ORACLE, domain("lam", [0.0, 0.0]), ("lam",)),
    Forgery("lam = -0.0", ORACLE, domain("lam", [-0.0, -0.0]), ("lam",)),
    Forgery("lam negative", P10, lambda d: (domain("lam", [-0.1, -0.1])(d), [leaf["box"].update(lam=[-0.1, -0.1])
                                                                          for leaf in d["leaves"]]), ("lam",)),
    Forgery("lam interval reaching below 0", SIGNS, lambda d: d["domain"]["lam"].__setitem__(0, -0.5), ("lam",)),
    Forgery("lam = NaN", ORACLE, domain("lam", [NAN, NAN]), ("lam", "finite")),
    Forgery("lam interval on a point kind", P10, domain("lam", [0.1, 0.2]), ("lam", "point")),
    Forgery("lam interval on an enclosure", MINIMUM, domain("lam", [0.01, up(0.01)]), ("lam", "point")),
    Forgery("kind: oracle -> oracle-window (no ends)", ORACLE, relabel_kind("oracle-window"), ("ends",)),
    Forgery("kind: enclosure -> oracle-global-minimiser", MINIMUM, relabel_kind("oracle-global-minimiser"),
            ("test", "admitted", "witness", "circle")),
    Forgery("kind: oracle -> global-minimum-enclosure", ORACLE, relabel_kind("global-minimum-enclosure"),
            ("test", "admitted", "witness")),
    Forgery("kind: hessian-signs -> off-M-minimum", SIGNS, relabel_kind("off-M-minimum"), ("lam", "point", "domain")),
    Forgery("kind: off-M-minimum -> hessian-signs", FAMILY, relabel_kind("manifold-hessian-signs"), ("test", "admitted")),
    Forgery("kind: manifold-stationary-points -> oracle-global-minimiser", SUB_P9, relabel_kind("oracle-global-minimiser"),
            ("domain", "unknown field")),
    Forgery("kind unknown", ORACLE, relabel_kind("oracle-global-minimiser/2"), ("kind",)),
    Forgery("format changed", ORACLE, field_("format", "slr-verify-certificate/2"), ("format",)),
    Forgery("statement with a changed number", ORACLE,
            lambda d: d.__setitem__("statement", d["statement"].replace("d = 80", "d = 800")), ("statement",),
            restate=False),
    Forgery("statement with a wider lam", ORACLE,
            lambda d: d.__setitem__("statement", d["statement"].replace("[0.3167172634509454, 0.3167172634509454]",
                                                                        "[0.3167172634509454, 0.9]")),
            ("statement",), restate=False),
    Forgery("statement with a trailing space", P10, lambda d: d.__setitem__("statement", d["statement"] + " "),
            ("statement",), restate=False),
    Forgery("statement not a string", ORACLE, field_("statement", None), ("statement",), restate=False),
    Forgery("beta = 0 in every value leaf", ORACLE, value_betas(lambda b: 0.0), ("beta",)),
    Forgery("beta negative in every value leaf", ORACLE, value_betas(lambda b: -b), ("beta",)),
    Forgery("beta = -0.0", MINIMUM, value_betas(lambda b: -0.0), ("beta",)),
    Forgery("beta a subnormal", ORACLE, value_betas(lambda b: 5e-324), ("beta",)),
    Forgery("beta = NaN", ORACLE, value_betas(lambda b: NAN), ("beta", "finite")),
    Forgery("beta a bool", MINIMUM, value_betas(lambda b: True), ("beta", "number")),
    Forgery("beta missing", ORACLE, value_betas(lambda b: None), ("beta", "number")),
    Forgery("contraction radius 0", CYCLE, leaf_update(0, radius=0.0), ("radius",)),
    Forgery("contraction radius negative", CYCLE, lambda d: d["leaves"][0].update(radius=-d["leaves"][0]["radius"]),
            ("radius",)),
    Forgery("contraction radius NaN", CYCLE, leaf_update(0, radius=NAN), ("radius",)),
    Forgery("contraction sigma not +-1", CYCLE, leaf_update(0, sigma=[2, 1, -1, -1, -1]), ("sigma",)),
    Forgery("contraction sigma with a float", CYCLE, leaf_update(0, sigma=[1, 1, -1, -1, -1.0]), ("sigma",)),
    Forgery("contraction sigma with a bool", CYCLE, leaf_update(0, sigma=[True, 1, -1, -1, -1]), ("sigma",)),
    Forgery("contraction sigma of four signs", CYCLE, leaf_update(0, sigma=[1, 1, -1, -1]), ("sigma",)),
    Forgery("oracle-tube margin 0", TUBE, field_("margin", 0.0), ("margin",)),
    Forgery("oracle-tube margin negative", TUBE, lambda d: d.__setitem__("margin", -d["margin"]), ("margin",)),
    Forgery("oracle-tube radius negative", TUBE, lambda d: d.__setitem__("radius", -d["radius"]), ("radius",)),
    Forgery("oracle-tube entry 0", TUBE, field_("entry", 0.0), ("entry",)),
    Forgery("oracle-tube margin NaN", TUBE, field_("margin", NAN), ("margin",)),
    Forgery("oracle-tube q a bool", TUBE, field_("q", True), ("q",)),
    # --- invented: numbers that are not what they seem
    Forgery("split point NaN", ORACLE, split_at(lambda box: NAN), ("split", "tree", "node", "finite")),
    Forgery("split point a string", ORACLE, split_at(lambda box: "0.5"), ("split", "tree", "node", "number")),
    Forgery("split point at the box's lower end", ORACLE, split_at(lambda box: box[0]), ("split", "inside", "tree")),
    Forgery("split point at the box's upper end", SIGNS, split_at(lambda box: box[1]), ("split", "inside", "tree")),
    Forgery("split point outside the box", ORACLE, split_at(lambda box: 2 * box[1]), ("split", "inside", "tree")),
    Forgery("split axis out of range", ORACLE, lambda d: d["tree"].__setitem__(first_split(d), [3, 0.5]),
            ("tree", "node", "axis")),
    Forgery("split axis a float", ORACLE, lambda d: d["tree"].__setitem__(first_split(d), [0.0, d["tree"][0][1]]),
            ("tree", "node", "axis"), vague="a TypeError (tuple indices must be integers) caught as 'malformed'"),
    Forgery("split axis a bool", ORACLE, lambda d: d["tree"].__setitem__(first_split(d), [False, d["tree"][0][1]]),
            ("tree", "node", "axis", "bool"), old="[False, at] is read as the split [0, at] (False == 0)"),
    Forgery("leaf marker -1.0 (a float)", ORACLE, lambda d: d["tree"].__setitem__(d["tree"].index(-1), -1.0),
            ("tree", "node"), old="-1.0 == -1 is read as a leaf"),
    Forgery("leaf marker a string", ORACLE, lambda d: d["tree"].__setitem__(d["tree"].index(-1), "-1"), ("tree", "node")),
    Forgery("bare axis a bool", SUB_P9, lambda d: d["tree"].__setitem__(first_bare_split(d), bool(d["tree"][first_bare_split(d)]))
            if d["tree"][first_bare_split(d)] in (0, 1) else None, ("tree", "node")),
    Forgery("tree deeper than the floats (splits at a repeated point)", SIGNS,
            lambda d: d.__setitem__("tree", [[0, 0.5]] * 3 + d["tree"]), ("tree", "inside", "split")),
    Forgery("tree of 10**5 extra splits", P10, lambda d: d["tree"].extend([2] * 10**5), ("tree",)),
    Forgery("leaves not a list", ORACLE, lambda d: d.__setitem__("leaves", {str(i): x for i, x in enumerate(d["leaves"])}),
            ("leaves",)),
    Forgery("no leaves", ORACLE, lambda d: d.update(leaves=[], tree=[]), ("leaves", "tree")),
    Forgery("a leaf not an object", ORACLE, lambda d: d["leaves"].__setitem__(0, [0.0, 1.0]), ("leaf", "box")),
    Forgery("leaf box with NaN", ORACLE, lambda d: d["leaves"][0]["box"].update(kappa=[NAN, NAN]), ("leaf", "box", "finite")),
    Forgery("leaf box with inf", P10, lambda d: d["leaves"][0]["box"].update(alpha=[0.0, INF]), ("leaf", "box", "finite")),
    Forgery("leaf box lo > hi", ORACLE, lambda d: d["leaves"][0]["box"]["kappa"].reverse(), ("leaf", "box", "lo > hi")),
    # --- invented: domains
    Forgery("domain wider than the quarter disk", ORACLE, domain("t", [0.0, 2.0]), ("domain", "t")),
    Forgery("domain wider than M's square", P10, domain("kappa", [-2.0, 2.0]), ("domain", "kappa")),
    Forgery("domain narrower than M's square", SUB_P9, domain("nu", [-1.0, 0.5]), ("domain", "nu")),
    Forgery("domain kappa a point", ORACLE, domain("kappa", [0.5, 0.5]), ("domain", "kappa")),
    Forgery("domain missing a coordinate", ORACLE, lambda d: d["domain"].pop("t"), ("domain",)),
    Forgery("domain with an extra coordinate", ORACLE, domain("alpha", [0.0, 1.0]), ("domain",)),
    Forgery("alpha domain a point (lo == hi, not a point coordinate)", P10, domain("alpha", [0.0, 0.0]),
            ("alpha", "domain")),
    Forgery("alpha domain not starting at 0", P10, lambda d: d["domain"]["alpha"].__setitem__(0, 0.01), ("alpha",)),
    Forgery("contraction alpha = 0", CYCLE, lambda d: (domain("alpha", [0.0, 0.0])(d),
                                                       d["leaves"][0]["box"].update(alpha=[0.0, 0.0])), ("alpha",)),
    Forgery("oracle-tube kappa reaching past 1", TUBE, lambda d: d["domain"]["kappa"].__setitem__(1, 1.5), ("kappa",)),
    Forgery("oracle-tube nu a point", TUBE, domain("nu", [1.0, 1.0]), ("nu",)),
    # D_m from kappa = 0: the domain check itself must refuse it (the coverage would reject it too)
    Forgery("oracle-tube kappa from 0", TUBE, domain("kappa", [0.0, 1.0]), ("0 < c < 1",)),
    Forgery("oracle-tube lam = 0", TUBE, lambda d: (domain("lam", [0.0, 0.0])(d), [x["box"].update(lam=[0.0, 0.0])
                                                                                   for x in d["leaves"]]), ("lam",)),
    # --- invented: the kinds' own fields
    Forgery("upper_at one ulp outside the square", P10, field_("upper_at", [0.0, up(1.0)]), ("upper_at", "square")),
    # each of the four bounds of the square apart (a mutant reading kappa <= 2 survived the nu case above)
    Forgery("upper_at's kappa one ulp above 1", P10, field_("upper_at", [up(1.0), 0.0]), ("upper_at", "square")),
    Forgery("upper_at's kappa one ulp below -1", P10, field_("upper_at", [-up(1.0), 0.0]), ("upper_at", "square")),
    Forgery("upper_at's nu one ulp below -1", P10, field_("upper_at", [0.0, -up(1.0)]), ("upper_at", "square")),
    Forgery("upper_at of three numbers", P10, field_("upper_at", [0.0, 0.0, 0.0]), ("upper_at",),
            vague="a ValueError (too many values to unpack) in the statement's derivation, caught as 'malformed'"),
    Forgery("upper_at NaN", P10, field_("upper_at", [NAN, 0.0]), ("upper_at", "finite")),
    Forgery("alpha_upper NaN", P10, field_("alpha_upper", NAN), ("alpha_upper", "finite")),
    Forgery("alpha_upper a bool", P10, field_("alpha_upper", True), ("alpha_upper", "number")),
    Forgery("window lo end: pitchfork inside W", SUB_WINDOW, window_end("lo", mechanism="pitchfork", direction="v*"),
            ("end lo", "curvature")),
    Forgery("window lo end: mechanism none", SUB_WINDOW, window_end("lo", mechanism="none"), ("end lo", "mechanism")),
    # the same with none's own (empty) fields, and an unknown mechanism: the mechanism check itself must say so (a
    # mutant letting both through survived the entry above, whose leftover fields are rejected by the field check)
    Forgery("window lo end: none, alone", SUB_WINDOW, lambda d: d["ends"].update(lo={"mechanism": "none"}),
            ("end lo: mechanism must be",)),
    Forgery("window hi end: an unknown mechanism", SUB_WINDOW, lambda d: d["ends"].update(hi={"mechanism": "guess"}),
            ("end hi: mechanism must be",)),
    Forgery("window hi end: zero width", WINDOW, lambda d: d["ends"]["hi"]["enclosure"].__setitem__(1, d["domain"]["lam"][1]),
            ("end hi", "enclosure")),
    Forgery("window hi end: enclosure detached from B", WINDOW,
            lambda d: d["ends"]["hi"].update(enclosure=[up(d["domain"]["lam"][1]), d["ends"]["hi"]["enclosure"][1]]),
            ("end hi", "enclosure")),
    Forgery("window hi end: direction k*", WINDOW, window_end("hi", direction="k*"), ("end hi", "direction")),
    Forgery("window lo end: witness x = 0", SUB_WINDOW, lambda d: d["ends"]["lo"]["witness"].update(x=[0.0] * 4),
            ("end lo", "witness")),
    Forgery("window lo end: witness x NaN", SUB_WINDOW, lambda d: d["ends"]["lo"]["witness"].update(x=[NAN, 0.0, 1.0, 0.0]),
            ("witness", "finite")),
    Forgery("window without ends", SUB_WINDOW, lambda d: d.pop("ends"), ("ends",)),
    Forgery("window with a third end", SUB_WINDOW, lambda d: d["ends"].update(mid={"mechanism": "none"}), ("ends",)),
    Forgery("enclosure witness NaN", MINIMUM, lambda d: d["witness"].update(a=NAN), ("witness", "finite")),
    Forgery("enclosure witness of three numbers", MINIMUM, lambda d: d["witness"].update(x=[1.0, 0.0, 0.0]), ("witness",)),
    Forgery("enclosure circle empty", MINIMUM, field_("circle", []), ("circle",)),
    Forgery("enclosure circle bracket reversed", MINIMUM, lambda d: [p["beta"].reverse() for p in d["circle"]],
            ("circle", "beta")),
    Forgery("enclosure circle stops short of the bound leaves", MINIMUM,
            lambda d: d["circle"][-1]["kappa"].__setitem__(1, d["circle"][-1]["kappa"][1] / 2), ("circle",)),
    Forgery("enclosure circle starts above the bound leaves", MINIMUM,
            lambda d: d["circle"][0]["kappa"].__setitem__(0, d["circle"][0]["kappa"][1] / 2), ("circle",)),
    Forgery("enclosure every bound leaf called value", MINIMUM,
            lambda d: [leaf.update(test="value") for leaf in d["leaves"] if leaf["test"] == "bound"], ("value", "leaf")),
    Forgery("proposition 9: r = 0.5", SUB_P9, field_("r", 0.5), (" r ", "r =", "'r'", "radius")),
    Forgery("proposition 9: r = 0", SUB_P9, field_("r", 0.0), (" r ", "r =", "'r'", "radius")),
    Forgery("proposition 9: r shrunk below the in-X leaves", SUB_P9, field_("r", 1e-6), ("in-X", "Krawczyk")),
    Forgery("proposition 9: a piece dropped", SUB_P9, lambda d: d["pieces"].pop(0), ("piece",)),
    Forgery("proposition 9: Y NaN", SUB_P9, lambda d: d["pieces"][0].update(Y=[[NAN, 0.0], [0.0, 1.0]]), ("Y", "finite")),
    Forgery("proposition 9: an edge tiling not increasing", SUB_P9, lambda d: d["pieces"][0]["edges"]["1"].reverse(),
            ("edge",)),
    Forgery("proposition 9: an exclude leaf called in-X", SUB_P9,
            lambda d: next(leaf for leaf in d["leaves"] if leaf["test"] == "exclude").update(test="in-X"), ("in-X",)),
    Forgery("contraction T singular", CYCLE, leaf_update(0, T=[[0.0] * 5 for _ in range(5)]),
            ("singular", "invertible", "undefined", "T ")),
    Forgery("contraction groups overlapping", CYCLE, leaf_update(0, groups=[[0, 1], [1, 2], [3, 4]]), ("groups",)),
    Forgery("contraction centre of four numbers", CYCLE, lambda d: d["leaves"][0]["centre"].pop(), ("centre",)),
    Forgery("contraction two leaves on a point domain", CYCLE, lambda d: d["leaves"].append(clone(d["leaves"][0])),
            ("leaf", "leaves", "tree")),
    # --- invented: false statements that only the mathematics rejects (one per test of the checker)
    Forgery("a leaf dropped, tree kept", ORACLE, lambda d: d["leaves"].pop(), ("leaves", "leaf", "tree")),
    Forgery("beta an integer beyond the floats", ORACLE, value_betas(lambda b: 10**400), ("beta",)),
    Forgery("upper_at an object", P10, field_("upper_at", {"k": 0.0, "n": 0.0}), ("upper_at",)),
    Forgery("p10 alpha domain doubled past alpha_max", P10, p10_doubled, ("det-positive", "det J")),
    Forgery("a value leaf called valley", ORACLE, value_leaf_called("valley"), ("valley",)),
    Forgery("a value leaf called valley-edge", ORACLE, value_leaf_called("valley-edge"), ("valley-edge",)),
    Forgery("a value leaf called valley-edge, premise absent", ORACLE,
            lambda d: d["leaves"][last_value_leaf(d)].update(test="valley-edge"), ("premise", "valley-edge")),
    Forgery("a valley-edge leaf merged three times up the tree (a coarser tree)", EDGE, merge_last_leaf_pairs(3),
            ("valley-edge",)),
    Forgery("off-M at a lam where |theta*| >= 1", FAMILY, point_lam(0.05), ("theta*", "family-minimum")),
    Forgery("off-M at a lam where the Hessian off the orbit is not positive", FAMILY, point_lam(3.0),
            ("minor", "family-minimum", "Hessian")),
    Forgery("contraction sigma = identity (a 2-cycle called a fixed point)", CYCLE, leaf_update(0, sigma=[1] * 5),
            ("r0 + q", "contraction")),
    Forgery("contraction sigma not a symmetry of the map", CYCLE, leaf_update(0, sigma=[1, 1, -1, 1, 1]), ("sigma",)),
    Forgery("contraction centre moved by 1e-3", CYCLE,
            lambda d: d["leaves"][0]["centre"].__setitem__(0, d["leaves"][0]["centre"][0] + 1e-3), ("r0 + q", "contraction")),
    Forgery("oracle-tube margin / 8 (the drift no longer fits)", TUBE, lambda d: d.__setitem__("margin", d["margin"] / 8),
            ("entry * C",)),
    Forgery("oracle-tube radius times 1e3", TUBE, lambda d: d.__setitem__("radius", d["radius"] * 1e3), ("tube-box",)),
    Forgery("oracle-tube Euclidean radius doubled", TUBE, lambda d: d.__setitem__("euclidean", 2 * d["euclidean"]),
            ("euclidean",)),
    Forgery("proposition 9: Y = 0 (the Krawczyk image is X)", SUB_P9, lambda d: d["pieces"][0].update(Y=[[0.0, 0.0], [0.0, 0.0]]),
            ("Krawczyk",)),
    Forgery("proposition 9: Y of 2 x 3", SUB_P9, lambda d: d["pieces"][0].update(Y=[[1.0, 0.0, 0.0], [0.0, 1.0, 0.0]]),
            ("Y",)),
    Forgery("proposition 9: an edge tiling with a repeated breakpoint", SUB_P9,
            lambda d: d["pieces"][0]["edges"]["1"].insert(1, d["pieces"][0]["edges"]["1"][1]), ("edge",)),
    Forgery("proposition 9: the in-X leaf at the origin called exclude", SUB_P9,
            lambda d: next(x for x in d["leaves"] if x["test"] == "in-X").update(test="exclude"), ("exclude",)),
    Forgery("enclosure circle pieces with a gap between them", MINIMUM, circle_with_a_gap, ("uncovered", "circle")),
    Forgery("enclosure circle bracket from beta = 0", MINIMUM, lambda d: d["circle"][0]["beta"].__setitem__(0, 0.0),
            ("bracket", "beta_s", "circle")),
    Forgery("enclosure circle bracket doubled", MINIMUM,
            lambda d: d["circle"][0].update(beta=[2 * x for x in d["circle"][0]["beta"]]), ("circle",)),
    Forgery("enclosure witness x = 0", MINIMUM, lambda d: d["witness"].update(x=[0.0] * 4), ("witness",)),
    Forgery("window lo end: crossing without a witness", SUB_WINDOW, lambda d: d["ends"]["lo"].pop("witness"),
            ("witness",)),
    Forgery("window lo end: pitchfork at lam = -0.001 (the closed form's gaps < 0)", SUB_WINDOW,
            both(window_lo_at(-0.001), window_end("lo", mechanism="pitchfork", direction="v*")), W_ENDS),
    Forgery("oracle-tube T of 2 x 2", TUBE, lambda d: d.update(T=[row[:2] for row in d["T"][:2]]), ("T must", "3 x 3")),
    Forgery("oracle-tube T with a NaN", TUBE, lambda d: d["T"][1].__setitem__(1, NAN), ("T",)),
]

PROBES = [
    Probe("oracle certificate promoted to a window (true lower end)", ORACLE,
          lambda d: promoted(_genuine(WINDOW)["ends"]["lo"]["enclosure"][0], _genuine(WINDOW)["ends"]["lo"]["witness"])(d),
          lambda d: f"lo in [{d['ends']['lo']['enclosure'][0]!r}, ",
          "the control of the lam = -1 forgery: the window's genuine crossing below [A, B] proves lo in [a, A]"),
    Probe("gamma + 4 ulp, restated", ORACLE, lambda d: d["setting"].update(gamma=up(d["setting"]["gamma"], 4)),
          lambda d: repr(d["setting"]["gamma"]), "a true certificate at the neighbouring setting: the leaves pass there"),
    Probe("eps = 1e-30, restated", ORACLE, setting(eps=1e-30), lambda d: "eps = 1e-30",
          "eps enters R only as + eps^2, on both sides of every test"),
    Probe("eps = -0.0, restated", ORACLE, setting(eps=-0.0), lambda d: "eps = -0.0",
          "-0.0 == 0: the same model (a canonical-form checker may refuse it)"),
    Probe("eps a subnormal, restated", SIGNS, setting(eps=5e-324), lambda d: "",
          "the Hessian on M does not depend on eps (nor does this kind's statement)"),
    Probe("eps = 0.5 on off-M-minimum, restated", FAMILY, setting(eps=0.5), lambda d: "eps = 0.5",
          "theta* and the Hessian off M do not depend on eps (it enters R only as + eps^2)"),
    Probe("prec = 4096", FAMILY, field_("prec", 4096), lambda d: "",
          "arb is rigorous at any precision; 4096 bits is the documented cap (a cost, not a falsehood)"),
    Probe("prec missing", ORACLE, lambda d: d.pop("prec"), lambda d: "",
          "the replay's precision defaults to 128 bits; the format lists prec as a field"),
    Probe("kappa domain [-0.0, 1.0]", ORACLE, domain("kappa", [-0.0, 1.0]), lambda d: "",
          "-0.0 == 0.0: the same quarter disk"),
    Probe("window hi end: mechanism none", WINDOW, window_end("hi", mechanism="none"), lambda d: "hi >= ",
          "the statement weakens to hi >= B, true of the component containing [A, B]; its parenthesis '(W has no upper "
          "end below B)' is true of that component only, and the checker cannot know that B was the scan's end"),
    Probe("oracle-window relabelled oracle-global-minimiser", WINDOW,
          both(relabel_kind("oracle-global-minimiser"), lambda d: d.pop("ends"),
               lambda d: d.__setitem__("premises", [p for p in d["premises"] if p["name"] != "oracle-curvature"])),
          lambda d: "for every lam in", "the window's leaves prove the oracle statement on [A, B]"),
    Probe("window eps = 1e-30, restated", WINDOW, setting(eps=1e-30), lambda d: "eps = 1e-30",
          "eps enters R as + eps^2; the pitchfork's closed form takes eps's one-ulp ball into its centred form"),
]
PROBES_SLOW = {"window hi end: mechanism none", "oracle-window relabelled oracle-global-minimiser",
               "window eps = 1e-30, restated"}

@dataclass
class Variant:
    """A true certificate written another way the format allows: any correct checker accepts it, its conclusion
    containing ``bound`` (only an acceptance kills a mutant that makes the checker stricter than the format)."""

    name: str
    source: str
    change: Callable
    bound: str


def root_split_explicit(doc):
    """The root's midpoint split (a bare axis) written as [axis, the float midpoint]."""
    axis = doc["tree"][0]
    assert type(axis) is int and axis >= 0, axis
    lo, hi = doc["domain"][list(doc["leaves"][0]["box"])[axis]]
    doc["tree"][0] = [axis, 0.5 * (lo + hi)]


VARIANTS = [
    Variant("p10 upper bound at a point on the square's edge", P10, lambda d: d.update(alpha_upper=0.5, upper_at=[-0.25, -1.0]),
            "alpha_max <= 0.5"),
    Variant("a midpoint split written as [axis, midpoint]", SUB_P9, root_split_explicit, "vanishes on [-1, 1]^2"),
    Variant("premises in another order", ORACLE, lambda d: d["premises"].reverse(), "unique global minimiser"),
    Variant("a valley-edge leaf merged with its sibling (a coarser tree the remainders prove)", EDGE,
            merge_last_leaf_pairs(1), "unique global minimiser"),
]



def _params(table, slow=lambda e: False):
    out = []
    for e in table:
        marks = []
        if slow(e):
            marks.append(pytest.mark.slow)
        out.append(pytest.param(e, id=e.name, marks=marks))
    return out


def _matches(reason, words) -> bool:
    return any(w in reason for w in words)


@pytest.mark.parametrize("forgery", _params(FORGERIES, lambda e: e.slow))
def test_forgery_is_rejected(forgery):
    r = check(forgery.forged())
    assert not r.accepted, f"ACCEPTED: {r.conclusion}"
    assert _matches(r.reason, forgery.words), f"the reason does not name the fault {forgery.words}: {r.reason}"


@pytest.mark.parametrize("probe", _params(PROBES, lambda e: e.name in PROBES_SLOW))
def test_probe_is_bound_if_accepted(probe):
    doc = genuine(probe.source)
    probe.change(doc)
    r = check(restated(doc))
    if r.accepted:
        assert probe.bound(doc) in r.conclusion, r.conclusion
        assert r.values["setting"] == {k: doc["setting"][k] for k in ("gamma", "eps", "d", "L")}


@pytest.mark.parametrize("variant", [pytest.param(v, id=v.name) for v in VARIANTS])
def test_variant_is_accepted(variant):
    doc = genuine(variant.source)
    variant.change(doc)
    r = check(restated(doc))
    assert r.accepted, r.reason
    assert variant.bound in r.conclusion, r.conclusion


def test_the_genuine_sources_are_accepted():
    """The control: every genuine document the fast forgeries start from is accepted (else a rejection proves nothing)."""
    for name in (ORACLE, MINIMUM, P10, SIGNS, SUB_P9, SUB_WINDOW, EDGE, CYCLE, TUBE, FAMILY):
        r = check(genuine(name))
        assert r.accepted, (name, r.reason)


def test_restating_a_genuine_document_is_the_identity():
    """The adversary's statement derivation is the checker's (else a restated forgery is rejected on its text)."""
    for name in (ORACLE, MINIMUM, P10, SIGNS, SUB_P9, SUB_WINDOW, EDGE, CYCLE, TUBE, FAMILY):
        doc = genuine(name)
        assert restated(clone(doc))["statement"] == doc["statement"], name


# ------------------------------------------------------------------------------------------------- byte-level attacks

def _file_verdict(path) -> str:
    """"unreadable" (ValueError), "rejected", "accepted", or "crash: <exception>" for the file at ``path``."""
    try:
        r = check(str(path))
    except ValueError:
        return "unreadable"
    except Exception as e:  # noqa: BLE001 - what the test reports
        return f"crash: {type(e).__name__}"
    return "accepted" if r.accepted else "rejected"


def _json_with(doc, old, new) -> bytes:
    """``doc`` as JSON text with the fragment ``old`` replaced once by ``new`` (keys kept in their order)."""
    text = json.dumps(doc)
    assert old in text, old
    return text.replace(old, new, 1).encode()


def duplicate_prec(doc):
    # a reviewer reading the file sees "prec": 64 first; json keeps the last
    return _json_with(doc, '"prec": ', '"prec": 4096, "prec": ')


def duplicate_alpha_upper(doc):
    # a reader of the file sees alpha_upper = A first (alpha_max known exactly); json keeps the last
    return _json_with(doc, '"alpha_upper": ', '"alpha_upper": 0.30600276759362527, "alpha_upper": ')


def nan_token(doc):
    return _json_with(doc, '"beta": ', '"beta": NaN, "ignored": ')


def deep_nesting(doc):
    return json.dumps(doc)[:-1].encode() + b', "search": ' + b"[" * 100_000 + b"]" * 100_000 + b"}"


def huge_integer(doc):
    return _json_with(doc, '"d": 80', '"d": ' + "9" * 5000)


def gzip_of(data):
    return gzip.compress(data, compresslevel=1)


DUPLICATES = "accepted by the old checker: json keeps the last of duplicate keys (the format rejects duplicate keys)"
#: (name, source, the file's bytes from the genuine document, the strict xfail's reason under the old checker or None)
FILE_FORGERIES = [
    ("duplicate key prec", ORACLE, duplicate_prec, DUPLICATES),
    ("duplicate key alpha_upper", P10, duplicate_alpha_upper, DUPLICATES),
    ("NaN token", ORACLE, nan_token, None),
    ("nesting 10**5 deep", ORACLE, deep_nesting, "the old checker crashes: json.loads raises RecursionError, which load "
     "does not catch (every unreadable input is unreadable, exit 2)"),
    ("a 5000-digit integer", ORACLE, huge_integer, None),
    ("a JSON array", ORACLE, lambda doc: json.dumps([doc]).encode(), None),
]


def _write_forged_file(path, source, make):
    with open(path, "wb") as fh:
        fh.write(gzip_of(make(genuine(source))))


@pytest.mark.parametrize("name, source, make, old", [pytest.param(*f, id=f[0]) for f in FILE_FORGERIES])
def test_file_forgery_is_not_accepted(tmp_path, name, source, make, old):
    path = tmp_path / "forged.json.gz"
    _write_forged_file(path, source, make)
    assert _file_verdict(path) in ("unreadable", "rejected")


# ------------------------------------------------------------------------------------------------------------ report

def report(slow=False):
    """Print every entry's verdict and reason under the current checker, one line each: name | source | verdict |
    reason (or, if accepted, the conclusion)."""
    import tempfile

    rows = []
    for f in FORGERIES:
        if f.slow and not slow:
            continue
        r = check(f.forged())
        verdict = "ACCEPTED" if r.accepted else "rejected"
        named = "" if r.accepted or _matches(r.reason, f.words) else " (reason does not name the fault)"
        rows.append((f.name, f.source, verdict + named, (r.reason if not r.accepted else r.conclusion)[:200]))
    for p in PROBES:
        if p.name in PROBES_SLOW and not slow:
            continue
        doc = genuine(p.source)
        p.change(doc)
        r = check(restated(doc))
        rows.append((f"probe: {p.name}", p.source, "accepted" if r.accepted else "rejected", r.reason[:200]))
    for v in VARIANTS:
        doc = genuine(v.source)
        v.change(doc)
        r = check(restated(doc))
        rows.append((f"variant: {v.name}", v.source, "accepted" if r.accepted else "REJECTED", r.reason[:200]))
    with tempfile.TemporaryDirectory() as tmp:
        for name, source, make, _ in FILE_FORGERIES:
            path = f"{tmp}/forged.json.gz"
            _write_forged_file(path, source, make)
            rows.append((f"file: {name}", source, _file_verdict(path), ""))
    for row in rows:
        print(" | ".join(row))


if __name__ == "__main__":
    report(slow="--slow" in sys.argv)
