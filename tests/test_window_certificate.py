"""The window's certificate (kind ``oracle-window``; `docs/certificates.md`, `docs/MATH.md` §17): its ends and its
checker.

Independent routes: the ends at 30 digits from the mpmath profile alone (:func:`slr_verify.landscape.ends_mp`: the
trust-region subproblem in mpmath, Theorem 1's oracle risk, second differences for the curvature -- no ball arithmetic,
no dual bound, no closed-form curvature); the values below were computed by it at Figure 4b's setting and the slow test
recomputes them. Corruptions are made as a dishonest writer would: the statement rewritten to match (it is derived
from the ends), so that the ends' own tests must reject them.
"""

import gzip
import json
import math
from importlib import resources

import mpmath
import pytest
from documents import clone

from slr_verify.certify.certificate import SplitTree
from slr_verify.checker import Rejected, replay, statement
from slr_verify.checker.profile import SettingBalls
from slr_verify.checker.window import check_ends

#: Figure 4b's window ends at 30 digits (:func:`slr_verify.landscape.ends_mp`, dps = 30)
LO_MP = "0.09072182760885264002784568"
HI_MP = "0.8924379482417199886350052"


@pytest.fixture(scope="module")
def window_doc():
    raw = resources.files("slr_verify.certificates").joinpath("window_fig4b.json.gz").read_bytes()
    return json.loads(gzip.decompress(raw))


def _restated(doc):
    try:
        doc["statement"] = statement(doc)
    except Rejected:  # its fields no longer give a statement: the replay says why
        pass
    return doc


def rejected(doc, *words):
    r = replay(_restated(doc))
    assert not r.accepted, r
    for w in words:
        assert w in r.reason, r.reason
    return r


def test_ends_enclose_the_30_digit_ends(window_doc):
    """The checker's ends (two evaluations: a pair's risk, a curvature) are each 8e-13 wide and contain the mpmath
    profile's ends; the proved interval [A, B] abuts them."""
    S = SettingBalls(*(window_doc["setting"][k] for k in ("gamma", "eps", "d", "L")))
    v = check_ends(window_doc, S, tuple(window_doc["domain"]["lam"]))
    for (a, b), ref in ((v["lo"], LO_MP), (v["hi"], HI_MP)):
        assert b - a <= 1e-12
        assert mpmath.mpf(a) < mpmath.mpf(ref) < mpmath.mpf(b)
    assert v["lo"][1] == window_doc["domain"]["lam"][0] and v["hi"][0] == window_doc["domain"]["lam"][1]
    assert v["mechanism_lo"] == "crossing" and v["mechanism_hi"] == "pitchfork"
    assert v["curvature_hi"]["direction"] == "v*" and v["curvature_hi"]["value"][1] < 0
    w = v["witness_lo"]
    assert w["risk"][1] < w["oracle_risk"][0]


def test_statement_names_the_component_and_the_unique_interval(window_doc):
    s = window_doc["statement"]
    A, B = window_doc["domain"]["lam"]
    assert "connected component [lo, hi] of W" in s and f"unique one up to the symmetries for every lam in [{A!r}, {B!r}]" in s


def test_lower_witness_moved_inside_W_is_rejected(window_doc):
    """The witness's lam moved to A - 1e-14, above the 30-digit lower end: W holds the oracle there, no pair beats it."""
    doc = clone(window_doc)
    A = doc["domain"]["lam"][0]
    assert A - 1e-14 > float(LO_MP)
    doc["ends"]["lo"]["enclosure"][0] = A - 1e-14
    rejected(doc, "end lo", "not below the oracle")


def test_upper_point_moved_inside_W_is_rejected(window_doc):
    """The pitchfork's outer point moved to B + 1e-14, below the 30-digit upper end: the curvature is still > 0."""
    doc = clone(window_doc)
    B = doc["domain"]["lam"][1]
    assert B + 1e-14 < float(HI_MP)
    doc["ends"]["hi"]["enclosure"][1] = B + 1e-14
    rejected(doc, "end hi", "not < 0")


def test_wrong_direction_is_rejected(window_doc):
    """The curvature along e (erfc-sized, > 0) does not vanish at the upper end: the direction is part of the proof."""
    doc = clone(window_doc)
    doc["ends"]["hi"]["direction"] = "e"
    rejected(doc, "end hi", "along e")


def test_an_end_enclosure_reaching_lam_0_is_rejected_at_the_ends(window_doc):
    """The ends are read before the leaves: an enclosure of lo starting at lam = 0 is refused there, for that reason
    (a mutant allowing a = 0 survived)."""
    doc = clone(window_doc)
    doc["ends"]["lo"]["enclosure"][0] = 0.0
    rejected(doc, "end lo", "lam > 0")


@pytest.mark.slow  # two replays of the window certificate (the README run's budget)
def test_detached_enclosure_and_bad_witness_are_rejected(window_doc):
    doc = clone(window_doc)
    doc["ends"]["lo"]["enclosure"][1] = math.nextafter(doc["ends"]["lo"]["enclosure"][1], 0)
    rejected(doc, "must end at")
    doc = clone(window_doc)
    doc["ends"]["lo"]["witness"]["x"] = [0.0, 0.0, 0.0, 0.0]
    rejected(doc, "must not be zero")
    doc = clone(window_doc)
    doc["ends"]["lo"]["mechanism"] = "pitchfork"
    doc["ends"]["lo"]["direction"] = "v*"
    del doc["ends"]["lo"]["witness"]
    rejected(doc, "end lo", "not < 0")
    doc = clone(window_doc)
    doc["ends"]["hi"]["mechanism"] = "guess"
    rejected(doc, "mechanism")


def test_ends_changed_without_the_statement_are_rejected(window_doc):
    doc = clone(window_doc)
    doc["ends"]["hi"]["enclosure"][1] += 1e-13
    r = replay(doc)
    assert not r.accepted and "statement" in r.reason


#: Figure 5's window ends (d = 80) at 30 digits (:func:`slr_verify.landscape.ends_mp`, dps = 30, on
#: :func:`~slr_verify.landscape.float_window`'s window; recomputed by the slow test below)
LO80_MP = "0.1722895579433462506630847576"
HI80_MP = "1.007782222908235811848103894"


def _small_window():
    """A genuine ``oracle-window`` certificate with both ends, small enough for the default run: the committed
    ``oracle_d80_lam0.316717`` (38 leaves: (k*, v*) the unique global minimiser at lam = A = 0.3167...) with, as its
    ends, the committed Figure 5 window's (a crossing witness at a = 0.17228..., a pitchfork along v* at b = 1.00778...)
    stretched to the proved point: lo in [a, A], hi in [A, b]. Both wide, both true (the 30-digit ends lie in them)."""
    from slr_verify.checker import load
    from slr_verify.checker.premises import premise_hash
    from slr_verify.checker.registry import required_premises

    doc = clone(load(str(resources.files("slr_verify.certificates").joinpath("oracle_d80_lam0.316717.json.gz"))))
    A = doc["domain"]["lam"][0]
    doc.pop("search", None)
    doc["kind"] = "oracle-window"
    doc["ends"] = {"lo": {"enclosure": [0.1722895579429466, A], "mechanism": "crossing", "witness": {
        "a": 1.5707963232809965, "b": 0.0, "x": [0.8251781764597811, -1.4220578011184453e-08, 0.5648725317224322, 0.0]}},
                   "hi": {"enclosure": [A, 1.0077822229086608], "mechanism": "pitchfork", "direction": "v*"}}
    doc["premises"] = [{"name": n, "hash": premise_hash(n)} for n in required_premises(doc["kind"], doc)]
    return _restated(doc)


def test_a_small_window_with_an_upper_end_replays_to_acceptance():
    """The default run's replay of a window whose upper end is an end of W (not ``none``; the committed windows'
    replays are slow): accepted (0.03 s), its conclusion's tail states both ends, and each stated enclosure holds the
    30-digit end of the independent mpmath profile route (:data:`LO80_MP`, :data:`HI80_MP`)."""
    doc = _small_window()
    (a, A), (_, b) = doc["ends"]["lo"]["enclosure"], doc["ends"]["hi"]["enclosure"]
    r = replay(doc)
    assert r.accepted, r.reason
    assert r.values["lo"] == (a, A) and r.values["hi"] == (A, b)
    assert r.conclusion.endswith(f"; W's end lo is in [{a!r}, {A!r}] (width {A - a:.2g}: crossing), its end hi in "
                                 f"[{A!r}, {b!r}] (width {b - A:.2g}: pitchfork)"), r.conclusion
    with mpmath.workdps(40):
        assert mpmath.mpf(a) < mpmath.mpf(LO80_MP) < mpmath.mpf(A) < mpmath.mpf(HI80_MP) < mpmath.mpf(b)
    bad = clone(doc)  # the upper end's outer point moved inside W (below the 30-digit end): rejected
    bad["ends"]["hi"]["enclosure"][1] = 1.0077
    rejected(bad, "end hi", "not < 0")


@pytest.mark.slow  # the float window and its 30-digit ends at d = 80 (30 s)
def test_the_d80_window_ends_are_recomputed():
    from slr_verify.landscape import float_window
    from slr_verify.landscape.ends_mp import ends_mp

    kw = dict(gamma=0.5**0.5, eps=0.0, d=80, L=10)
    e = ends_mp(float_window(**kw), **kw)
    with mpmath.workdps(40):
        for side, ref in (("lo", LO80_MP), ("hi", HI80_MP)):
            assert abs(e[side] - mpmath.mpf(ref)) < 1e-20


def test_graft_rebuilds_the_same_tree():
    """A tree searched in pieces and grafted serialises exactly as the tree built in one piece (the boxes are exact
    floats: a midpoint split gives the same float in both)."""
    def build(tree, node):
        a, b = tree.split(node, 0)
        c, e = tree.split(a, 2, 0.15)
        for i in (c, e, b):
            tree.leaf(i, {"test": "value", "beta": float(i)})

    whole = SplitTree(((0.0, 1.0), (0.0, 1.0), (0.1, 0.5)))
    p, q = whole.grid(whole.root, 2, [0.2])
    build(whole, p)
    whole.leaf(q, {"test": "valley"})
    piece = SplitTree(((0.0, 1.0), (0.0, 1.0), (0.1, 0.2)))
    build(piece, piece.root)
    nodes, leaves = piece.serialise()
    grafted = SplitTree(((0.0, 1.0), (0.0, 1.0), (0.1, 0.5)))
    p2, q2 = grafted.grid(grafted.root, 2, [0.2])
    grafted.graft(p2, nodes, leaves)
    grafted.leaf(q2, {"test": "valley"})
    (n1, l1), (n2, l2) = whole.serialise(), grafted.serialise()
    assert n1 == n2 and [x["box"] for x in l1] == [x["box"] for x in l2]
    assert [x["test"] for x in l1] == [x["test"] for x in l2]


@pytest.mark.slow
def test_committed_window_certificate_is_accepted_and_ends_recomputed(window_doc):
    """The whole certificate replays (every leaf, the premises proved) and the 30-digit ends are recomputed."""
    from slr_verify.landscape import float_window
    from slr_verify.landscape.ends_mp import ends_mp

    r = replay(window_doc)
    assert r.accepted, r.reason
    kw = {k: window_doc["setting"][k] for k in ("gamma", "eps", "d", "L")}
    e = ends_mp(float_window(**kw), **kw)
    for side, ref in (("lo", LO_MP), ("hi", HI_MP)):
        with mpmath.workdps(40):  # at the default 15 digits mpf(ref) is the reference rounded to 53 bits (off by ~1e-19)
            assert abs(e[side] - mpmath.mpf(ref)) < 1e-20
        a, b = r.values[side]
        assert a < e[side] < b


@pytest.fixture(scope="module")
def edge_certificate():
    """The branch and bound just below Figure 5's upper end (d = 80): there the curvature along e at k* is 2.4e-12
    (second differences of the mpmath profile, tests/test_window_ends.py), so Q < 0 at kappa -> 1 and the valley
    certificate needs its edge term."""
    from slr_verify.certify import global_minimiser

    hi = 1.0077822229082736  # the float route's upper end at d = 80 (mpmath: 1.00778222290827...)
    c = global_minimiser(lam=(hi - 1e-10, hi - 4e-13), gamma=0.5**0.5, eps=0.0, d=80, L=10)
    assert c.proved, c.reason
    return c.certificate


def test_valley_edge_leaves_are_used_and_checked(edge_certificate):
    """Some leaves need the edge term (their Q alone is not > 0: changed to plain valley they are rejected), the
    premise is named, and without it the certificate is rejected."""
    doc = edge_certificate
    edge = [i for i, leaf in enumerate(doc["leaves"]) if leaf["test"] == "valley-edge"]
    assert edge and any(p["name"] == "valley-edge" for p in doc["premises"])
    bad = clone(doc)
    bad["leaves"][edge[-1]]["test"] = "valley"
    if len(edge) == 1:  # no valley-edge leaf left: the premise is no longer evaluated, and naming it is rejected
        bad["premises"] = [p for p in bad["premises"] if p["name"] != "valley-edge"]
    r = replay(bad)
    assert not r.accepted and "valley leaf" in r.reason
    bad = clone(doc)
    bad["premises"] = [p for p in bad["premises"] if p["name"] != "valley-edge"]
    r = replay(bad)
    assert not r.accepted and "premise 'valley-edge' is missing" in r.reason
