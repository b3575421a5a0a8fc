"""Proof certificates and their checker (`docs/certificates.md`; `docs/MATH.md` §§17, 20).

The checker must accept what the search proves and reject every corruption, each with a reason that names it.
Independent routes: the committed certificates (written by an earlier search; the checker recomputes everything
they conclude), exact float arithmetic on the boxes (a one-ulp change is a gap), the mpmath profile at 30 digits
(the enclosure's minimiser and global minimum), and a shifted lam interval where the statement is false (the
float profile finds a lower point there).
"""

import json
import math
from importlib import resources

import numpy as np
import pytest
from documents import clone, restated

from slr_verify.checker import replay, statement

G2 = float(np.sqrt(0.5))


def committed(name):
    return json.loads(__import__("gzip").decompress(resources.files("slr_verify.certificates").joinpath(name).read_bytes()))


@pytest.fixture(scope="module")
def oracle_doc():
    return committed("oracle_fig4b_lam0.3.json.gz")


@pytest.fixture(scope="module")
def enclosure_doc():
    return committed("minimum_fig4b_lam0.9.json.gz")


def rejected(doc, *words):
    r = replay(doc)
    assert not r.accepted, r
    for w in words:
        assert w in r.reason, r.reason
    return r


def test_committed_oracle_certificate_is_accepted(oracle_doc):
    """The checker accepts the committed point-lam certificate and states exactly its domain."""
    r = replay(oracle_doc)
    assert r.accepted, r.reason
    assert r.leaves == len(oracle_doc["leaves"])
    assert "for every lam in [0.3, 0.3]" in r.conclusion and "d = 400, L = 10" in r.conclusion


def test_a_rejection_counts_the_leaves_it_was_given(oracle_doc):
    """A rejected replay reports the document's leaf count: the committed number when a field fails, 0 when the leaves
    are not a list (then nothing was tiled)."""
    doc = clone(oracle_doc)
    doc["domain"]["lam"] = [0.31, 0.31]
    r = replay(doc)
    assert not r.accepted and r.leaves == len(oracle_doc["leaves"]), r
    doc = clone(oracle_doc)
    doc["leaves"] = {"0": doc["leaves"][0]}
    r = replay(doc)
    assert not r.accepted and r.leaves == 0, r


def _value_leaf(doc):
    return next(i for i, leaf in enumerate(doc["leaves"]) if leaf["test"] == "value")


def test_a_tree_that_closes_early(oracle_doc):
    """A tree whose first node is a leaf closes the domain at once; with the right number of nodes (2n - 1), the
    nodes after it find no open box: rejected, saying so (the leaves' boxes made to fit as far as they are read)."""
    doc = clone(oracle_doc)
    doc["leaves"] = [dict(doc["leaves"][0], box=dict(doc["domain"])), doc["leaves"][1]]
    doc["tree"] = [-1, -1, 0]
    rejected(doc, "already closed")


def test_dropped_leaf(oracle_doc):
    doc = clone(oracle_doc)
    del doc["leaves"][3]
    rejected(doc, "leaf")


def test_leaf_box_shrunk_by_one_ulp(oracle_doc):
    """A gap of one ulp: the leaf no longer matches its box in the split tree."""
    doc = clone(oracle_doc)
    lo, hi = doc["leaves"][5]["box"]["kappa"]
    doc["leaves"][5]["box"]["kappa"] = [lo, math.nextafter(hi, -math.inf)]
    rejected(doc, "leaf 5", "gap or an overlap")


def test_overlapping_leaves(oracle_doc):
    """A leaf stretched over its neighbour (both now cover a common strip)."""
    doc = clone(oracle_doc)
    a, b = doc["leaves"][0]["box"], doc["leaves"][1]["box"]
    axis = next(c for c in ("kappa", "t", "lam") if a[c] != b[c])
    a[axis] = [min(a[axis][0], b[axis][0]), max(a[axis][1], b[axis][1])]
    rejected(doc, "gap or an overlap")


def test_changed_multiplier(oracle_doc):
    """A value leaf's beta moved where the bound fails (the checker evaluates, it does not trust)."""
    doc = clone(oracle_doc)
    i = _value_leaf(doc)
    doc["leaves"][i]["beta"] = doc["leaves"][i]["beta"] * 1e-6
    rejected(doc, "value leaf")


def test_domain_extended_past_the_leaves(oracle_doc):
    doc = clone(oracle_doc)
    doc["domain"]["lam"] = [0.3, 0.31]
    doc["statement"] = statement(doc)
    rejected(doc, "not the tree's box")
    doc = clone(oracle_doc)
    doc["domain"]["lam"] = [0.3, 0.31]  # the statement left as it was: it no longer says what the domain is
    rejected(doc, "statement")


def test_changed_premise_hash(oracle_doc):
    doc = clone(oracle_doc)
    doc["premises"][1]["hash"] = "0" * 32
    rejected(doc, f"premise {doc['premises'][1]['name']!r}", "hash")


@pytest.mark.parametrize("entry", [{"name": "made-up", "hash": "0" * 32}, "valley", {"name": "valley"},
                                   {"name": "valley", "hash": "x", "note": 1}], ids=["unknown", "string", "no hash", "extra key"])
def test_a_premise_entry_that_names_no_premise_is_rejected(oracle_doc, entry):
    doc = clone(oracle_doc)
    doc["premises"].append(entry)
    rejected(doc, "premise entry")


def test_a_premise_named_twice_is_rejected(oracle_doc):
    doc = clone(oracle_doc)
    doc["premises"].append(dict(doc["premises"][0]))
    rejected(doc, "premise entry", "named once")


def test_missing_premise(oracle_doc):
    doc = clone(oracle_doc)
    doc["premises"] = [p for p in doc["premises"] if p["name"] != "valley"]
    rejected(doc, "'valley' is missing")


def test_statement_claiming_more(oracle_doc):
    doc = clone(oracle_doc)
    doc["statement"] = doc["statement"].replace("[0.3, 0.3]", "[0.09, 0.9]")
    rejected(doc, "statement")


def test_setting_changed(oracle_doc):
    """The same leaves at d = 50 (the multipliers were chosen for d = 400)."""
    doc = clone(oracle_doc)
    doc["setting"]["d"] = 50
    doc["statement"] = statement(doc)
    rejected(doc)


def test_lam_moved_where_the_statement_is_false(oracle_doc):
    """Every lam coordinate moved to 0.95 (above W = [0.0907, 0.8924]: the float profile finds a point below the
    oracle there, an independent route); the tree and statement moved with them: the leaves' tests must fail."""
    from slr_verify.landscape import oracle_is_global

    assert not oracle_is_global(lam=0.95, gamma=G2, eps=0.0, d=400, L=10)
    doc = clone(oracle_doc)
    doc["domain"]["lam"] = [0.95, 0.95]
    for leaf in doc["leaves"]:
        leaf["box"]["lam"] = [0.95, 0.95]
    doc["statement"] = statement(doc)
    rejected(doc, "leaf")


@pytest.mark.parametrize("field, value, words", [
    ("format", "slr-verify-certificate/0", ["format"]),
    ("kind", "anything", ["kind"]),
    ("tree", [0, -1], ["leaf"]),
    ("leaves", [], ["non-empty"]),
])
def test_malformed(oracle_doc, field, value, words):
    doc = clone(oracle_doc)
    doc[field] = value
    rejected(doc, *words)


def test_unreadable(tmp_path):
    from slr_verify.certify.replay import load

    p = tmp_path / "x.json.gz"
    p.write_bytes(b"\x1f\x8bnot gzip")
    with pytest.raises(ValueError, match="unreadable"):
        load(p)


def test_enclosure_certificate_against_mpmath(enclosure_doc):
    """The committed enclosure at lam = 0.9: accepted, and its conclusion holds the 30-digit mpmath profile's
    minimum and minimiser (an independent route: Nelder-Mead on the mpmath TRS, no ball arithmetic). With its circle
    test r = 0 and eta = sqrt(1 - kappa^2) over the kept kappa, recomputed here in mpmath; without it, the r bound is
    sqrt((1 - t_lo)(1 - kappa_lo^2)) of the kept boxes."""
    import mpmath

    from slr_verify.landscape import float_global_minimum

    r = replay(enclosure_doc)
    assert r.accepted, r.reason
    v = r.values
    risk, ov = float_global_minimum(lam=0.9, gamma=G2, eps=0.0, d=400, L=10)
    # the minimum on the circle r = 0 (where the circle test puts it) by golden section on the 30-digit mpmath profile
    # over the certified kappa range: the float64 search's value (4.8e-14 below it) is no reference at this width
    from slr_verify.landscape.trs import profile_mp

    def m(k):
        return profile_mp(k, mpmath.sqrt(1 - k * k), lam=0.9, gamma=G2, eps=0.0, d=400, L=10, dps=30)[0]

    with mpmath.workdps(30):
        a, b, phi = mpmath.mpf(v["kappa"][0]) - 1e-6, mpmath.mpf(v["kappa"][1]) + 1e-6, (mpmath.sqrt(5) - 1) / 2
        c, e = b - phi * (b - a), a + phi * (b - a)
        mc, me = m(c), m(e)
        for _ in range(40):  # the bracket shrinks by phi each step; the inner point kept is the next step's other one
            if mc < me:
                b, e, me = e, c, mc
                c = b - phi * (b - a)
                mc = m(c)
            else:
                a, c, mc = c, e, me
                e = a + phi * (b - a)
                me = m(e)
        m_mp = m((a + b) / 2)
    assert v["risk"][0] <= m_mp <= v["risk"][1] and v["risk"][1] - v["risk"][0] < 1e-12, (v["risk"], m_mp)
    assert abs(risk - m_mp) < 1e-13  # the float search agrees to its own accuracy
    kappa, eta = abs(ov[0]), abs(ov[3])
    assert v["kappa"][0] - 1e-7 <= kappa <= v["kappa"][1] + 1e-7 and v["eta"][0] - 1e-7 <= eta <= v["eta"][1] + 1e-7
    assert v["r"] == (0.0, 0.0) and "r = 0" in r.conclusion
    with mpmath.workdps(30):
        e_lo, e_hi = (mpmath.sqrt(1 - mpmath.mpf(k) ** 2) for k in (v["kappa"][1], v["kappa"][0]))
    assert v["eta"][0] <= e_lo and e_hi <= v["eta"][1] and v["eta"][1] - v["eta"][0] < 1e-6
    doc = clone(enclosure_doc)
    del doc["circle"]
    doc["premises"] = [p for p in doc["premises"] if p["name"] != "circle"]
    v = replay(doc).values
    bound = [b for b in enclosure_doc["leaves"] if b["test"] == "bound"]
    k_lo = min(b["box"]["kappa"][0] for b in bound)
    t_lo = min(b["box"]["t"][0] for b in bound)
    k_hi, t_hi = max(b["box"]["kappa"][1] for b in bound), max(b["box"]["t"][1] for b in bound)
    with mpmath.workdps(30):
        r_max = mpmath.sqrt((1 - mpmath.mpf(t_lo)) * (1 - mpmath.mpf(k_lo) ** 2))
        eta_lo = mpmath.sqrt(mpmath.mpf(t_lo) * (1 - mpmath.mpf(k_hi) ** 2))
        eta_hi = mpmath.sqrt(mpmath.mpf(t_hi) * (1 - mpmath.mpf(k_lo) ** 2))
    assert 0 < float(r_max) <= v["r"][1] <= float(r_max) * (1 + 1e-12)
    # eta^2 = t (1 - kappa^2), extreme at the kept boxes' corners: the enclosure holds both and is tight to them
    assert v["eta"][0] <= eta_lo and eta_hi <= v["eta"][1] and v["eta"][0] >= float(eta_lo) * (1 - 1e-12)
    assert v["eta"][0] - 1e-7 <= eta <= v["eta"][1] + 1e-7


def test_circle_test_rejections(enclosure_doc):
    """The circle test (r = 0) refused: a bracket of multipliers that misses the circle point's optimum (both ends
    above it: the dual function's slope has one sign), a piece that no longer covers the kept boxes' kappa, its
    premise dropped."""
    doc = clone(enclosure_doc)
    bs, bb = doc["circle"][0]["beta"]
    doc["circle"][0]["beta"] = [bb * 1.01, bb * 1.02]
    rejected(doc, "circle piece", "not proved")
    doc = clone(enclosure_doc)
    k0, k1 = doc["circle"][0]["kappa"]
    doc["circle"][0]["kappa"] = [k0, 0.5 * (k0 + k1)]
    rejected(doc, "circle pieces end at")
    doc = clone(enclosure_doc)
    doc["premises"] = [p for p in doc["premises"] if p["name"] != "circle"]
    rejected(doc, "premise 'circle' is missing")


def test_bound_leaf_without_positive_definiteness_is_rejected(enclosure_doc):
    """The audit's defect: a kept box's 'lower bound' at a multiplier where H - mu I is not positive definite
    (beta = 1e-6 > 0 on the box around the minimiser at lam = 0.9: Delta < 0) is no lower bound; the checker refuses
    it (the old search kept such a box with its number). beta < 0 likewise."""
    i = next(i for i, leaf in enumerate(enclosure_doc["leaves"]) if leaf["test"] == "bound")
    for beta in (1e-6, -1e-3):
        doc = clone(enclosure_doc)
        doc["leaves"][i]["beta"] = beta
        r = rejected(doc, "positive definite not proved")
        assert "Delta" in r.reason


def test_enclosure_witness_moved(enclosure_doc):
    """A witness moved away from the minimiser has a higher certified risk: some value leaf no longer excludes."""
    doc = clone(enclosure_doc)
    doc["witness"]["a"] = doc["witness"]["a"] + 0.05
    rejected(doc, "leaf")


def test_search_writes_what_the_checker_accepts(tmp_path):
    """A fresh search at a setting no committed certificate has (gamma^2 = 0.8, d = 60, L = 4, eps = 0.1), written
    to disk and replayed from the file by the command line (exit 0), then corrupted (exit 1)."""
    from slr_verify.certify import global_minimiser
    from slr_verify.certify.certificate import write
    from slr_verify.cli import main
    from slr_verify.landscape import oracle_is_global

    kw = dict(gamma=math.sqrt(0.8), eps=0.1, d=60, L=4)
    assert oracle_is_global(lam=0.3, **kw)
    c = global_minimiser(lam=(0.3, 0.3), **kw)
    assert c.proved and c.oracle and c.replay.accepted, c.reason
    p = write(c.certificate, tmp_path / "c.json.gz")
    assert main(["certify", "replay", str(p)]) == 0
    bad = clone(c.certificate)
    bad["leaves"][-1]["box"]["t"][0] = math.nextafter(bad["leaves"][-1]["box"]["t"][0], 2.0)
    write(bad, tmp_path / "bad.json")
    assert main(["certify", "replay", str(tmp_path / "bad.json")]) == 1
    assert main(["certify", "replay", str(tmp_path / "missing.json")]) == 2


@pytest.fixture(scope="module")
def prop9_doc():
    return committed("proposition9_fig4b.json.gz")


def test_proposition9_certificate_is_accepted(prop9_doc):
    r = replay(prop9_doc)
    assert r.accepted, r.reason
    assert "for every lam in [0.01, 1.0]" in r.conclusion and "exactly at (0, 0), (1, 1)" in r.conclusion


def test_proposition9_changed_preconditioner(prop9_doc):
    """A Krawczyk preconditioner far from the inverse Jacobian: the image of X is not inside X."""
    doc = clone(prop9_doc)
    doc["pieces"][0]["Y"] = [[1.0, 0.0], [0.0, 1.0]]
    rejected(doc, "Krawczyk")


def test_proposition9_edge_not_tiled(prop9_doc):
    doc = clone(prop9_doc)
    doc["pieces"][3]["edges"]["1"] = doc["pieces"][3]["edges"]["1"][:-1]
    rejected(doc, "edge nu = 1")


def test_proposition9_edges_are_evaluated_on_nu_plus_minus_1(prop9_doc, monkeypatch):
    """The edge test of each lam piece evaluates H_0 on the edges nu = +1 and nu = -1 exactly (the arguments recorded
    for every piece of the committed certificate, 0.05 s). H_0(kappa, +-1) = erf(c2 kappa) -+ 1 excludes 0 on one
    segment at every lam here, so no certificate's verdict shows a wrong nu (a mutant evaluating nu = +-2 survived)."""
    from flint import arb, ctx

    import slr_verify.checker.manifold as M
    from slr_verify.checker.profile import SettingBalls

    seen, inner = [], M._mean_value
    monkeypatch.setattr(M, "_mean_value", lambda k, n, par: (seen.append(n), inner(k, n, par))[1])
    old = ctx.prec
    ctx.prec = prop9_doc["prec"]
    try:
        S = SettingBalls(*(prop9_doc["setting"][k] for k in ("gamma", "eps", "d", "L")))
        for p in prop9_doc["pieces"]:
            M._piece(S.P.kw("gamma", "d", "L"), tuple(p["lam"]), p, prop9_doc["r"])
    finally:
        ctx.prec = old
    assert seen and all(n.is_exact() and n in (arb(1), arb(-1)) for n in seen), seen[:4]
    assert {float(n.mid()) for n in seen} == {1.0, -1.0}


def test_proposition9_in_x_leaf_called_excluded(prop9_doc):
    """The leaves around (0, 0) hold a zero of H: calling one 'exclude' must fail."""
    doc = clone(prop9_doc)
    i = next(i for i, leaf in enumerate(doc["leaves"]) if leaf["test"] == "in-X")
    doc["leaves"][i]["test"] = "exclude"
    rejected(doc, "neither H_0 nor H_1")


def test_proposition9_piece_missing_and_r_outside(prop9_doc):
    doc = clone(prop9_doc)
    doc["pieces"] = doc["pieces"][1:]
    rejected(doc, "no piece")
    doc = clone(prop9_doc)
    doc["r"] = 0.6
    rejected(doc, "r must be")
    doc = clone(prop9_doc)
    doc["r"] = doc["r"] / 4  # X shrunk: some in-X leaves now lie outside it
    rejected(doc)


def test_proposition9_x_touching_the_in_x_leaves(prop9_doc):
    """X = [-r, r]^2 with r exactly the in-X leaves' largest |kappa|, |nu| (2^-10 here): the leaves touch its boundary
    and lie inside it (closed boxes), so the certificate is accepted; one ulp less and a leaf sticks out. Pins the
    containment's <= (a strict < rejected this genuine certificate and survived the mutation run of seed 47)."""
    boxes = [leaf["box"] for leaf in prop9_doc["leaves"] if leaf["test"] == "in-X"]
    m = max(abs(x) for b in boxes for x in b["kappa"] + b["nu"])
    doc = clone(prop9_doc)
    doc["r"] = m
    rep = replay(restated(doc))
    assert rep.accepted, rep.reason
    doc["r"] = math.nextafter(m, 0.0)
    rejected(restated(doc), "is not inside X")


def test_cli_certify_oracle_at_another_setting(tmp_path, capsys):
    """`slr-verify certify oracle` at gamma^2 = 0.8, eps = 0.1, d = 60, L = 4 (no committed certificate there):
    exit 0, the certificate on disk replays as accepted, its statement is the lam interval asked for."""
    from slr_verify.cli import main

    out = tmp_path / "c.json.gz"
    argv = ["certify", "oracle", "--gamma2", "0.8", "--eps", "0.1", "--d", "60", "--L", "4", "--lam", "0.3:0.31",
            "--out", str(out), "--quiet"]
    assert main(argv) == 0
    r = replay(str(out))
    assert r.accepted and "for every lam in [0.3, 0.31]" in r.conclusion and "d = 60, L = 4" in r.conclusion


@pytest.mark.slow
def test_cli_certify_oracle_across_the_window_end_is_not_proved(tmp_path):
    """Across W's upper end (0.8924 at Figure 4b's setting) the statement is false: exit 1, nothing accepted."""
    from slr_verify.cli import main

    out = tmp_path / "c.json.gz"
    argv = ["certify", "oracle", "--gamma2", "0.5", "--eps", "0", "--d", "400", "--L", "10", "--lam", "0.88:0.9",
            "--out", str(out), "--time-limit", "60", "--quiet"]
    assert main(argv) == 1
    assert not out.exists() or not replay(str(out)).accepted


def test_review_findings_are_rejected(enclosure_doc, oracle_doc):
    """A review of the checker: a zero witness (NaN risk), an integer coordinate that is not a float exactly, a
    precision outside [53, 4096], a boolean L; each is rejected, none raises."""
    doc = clone(enclosure_doc)
    doc["witness"]["x"] = [0, 0, 0, 0]
    rejected(doc, "witness")
    doc = clone(oracle_doc)
    doc["prec"] = 10**7
    rejected(doc, "prec")
    doc = clone(oracle_doc)
    doc["setting"]["L"] = True
    rejected(doc, "setting")
    doc = clone(oracle_doc)
    doc["domain"]["lam"] = [2**60 + 1, 2**60 + 1]
    rejected(doc, "exactly")


def test_replay_takes_a_precision_within_its_range(oracle_doc):
    """The caller's precision overrides the certificate's within [64, 256] bits (both ends taken); outside, or not an
    integer, a ValueError naming prec."""
    for bits in (64, 256):
        assert replay(oracle_doc, prec=bits).accepted
    for bad in (63, 257, 128.0, True):
        with pytest.raises(ValueError, match="prec"):
            replay(oracle_doc, prec=bad)


def test_a_circle_enclosure_states_t_1_r_0_and_eta_from_kappa():
    """An enclosure with the circle test (every global minimiser has k in span(k*, v*)) states t = 1 and r = 0 exactly,
    and |eta| = sqrt(1 - kappa^2) over its kappa range: the stated range holds both ends' values (mpmath, 30 digits)
    to 1e-8 (arb keeps a union's radius to 30 bits)."""
    import mpmath

    r = replay(committed("minimum_d400_lam0.01.json.gz"))
    assert r.accepted, r.reason
    v = r.values
    assert v["t"] == (1.0, 1.0) and v["r"] == (0.0, 0.0), (v["t"], v["r"])
    with mpmath.workdps(30):
        ends = sorted(mpmath.sqrt(1 - mpmath.mpf(k) ** 2) for k in v["kappa"])
    lo, hi = v["eta"]
    assert lo <= ends[0] < lo + 1e-8 and hi - 1e-8 < ends[1] <= hi, (v["eta"], ends)
