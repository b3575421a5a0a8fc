"""Theorem 5 at an explicit step (docs/MATH.md section 22; docs/certificates.md, "theorem-5"): the certificate written
at a setting of no figure of the paper (gamma^2 = 1.2, d = 600, L = 12), replayed, and rejected once corrupted; its
steps checked by other routes (mpmath quadrature of the risk on M, the float64 reduced map); the descent's algebra.

A corruption that changes a field the statement reads is restated (the statement re-derived) so that the rejection
comes from the mathematics, not from the text."""

import json
import math
from functools import lru_cache

import mpmath
import numpy as np
import pytest
from documents import clone, rejected, restated

from slr_verify.certify.theorem5 import theorem5_step
from slr_verify.checker import replay, statement
from slr_verify.dynamics.runners import reduced_pgd
from slr_verify.routes.quadrature import quad_manifold_risk
from slr_verify.symbolic import descent as D

OWN = dict(gamma=math.sqrt(1.2), d=600, L=12)
LAM = (0.2, 0.25)


@lru_cache(maxsize=1)
def _proof():
    r = theorem5_step(LAM, ratio=0.15, rate=False, **OWN)
    assert r["proved"], r["failure"]
    return r


@pytest.fixture(scope="module")
def proof():
    return _proof()  # once per process: with --dist worksteal a worker may set a module's fixtures up more than once


_restated, _rejected = restated, rejected


def test_the_certificate_replays_and_states_theorem5(proof):
    r = replay(proof["certificate"])
    assert r.accepted, r.reason
    assert "(Theorem 5)" in r.conclusion and "Lebesgue-null" in r.conclusion
    assert "d = 600, every eps >= 0 and every L >= 1" in r.conclusion
    pieces = r.values["pieces"]
    assert [p["lam"] for p in pieces][0][0] == LAM[0] and pieces[-1]["lam"][1] == LAM[1] and len(pieces) == 2
    for p in pieces:
        assert 0 < p["alpha_5"] <= min(p["alpha_8"], p["alpha_12"])
        assert p["alpha_5"] * p["mu_plus"][1] < 1


@pytest.mark.slow  # two fresh interpreters, each replaying the certificate (~5 s of CPU)
def test_the_values_do_not_depend_on_the_workers(proof, tmp_path):
    """The leaves tested in 1 and in 2 forked workers (a fresh interpreter: the checker forks only without JAX loaded;
    every chunk of the split as small as it goes) give the same values: each piece's G, H and M is the largest of the
    leaves' float upper bounds, whatever the split (the arb unions they replace drifted with it)."""
    import os
    import subprocess
    import sys

    path = tmp_path / "t5.json"
    path.write_text(json.dumps(proof["certificate"]))
    code = ("import json, sys; import slr_verify.checker.parallel as P; P.MIN_LEAVES = 1; "
            "from slr_verify.checker import replay; r = replay(sys.argv[1]); "
            "print(json.dumps([r.accepted, P.workers(10**6), r.values['pieces']], default=str))")
    out = {}
    for k in ("1", "2"):
        run = subprocess.run([sys.executable, "-c", code, str(path)], capture_output=True, text=True, timeout=600,
                             env={**os.environ, "SLR_VERIFY_CHECKER_WORKERS": k})
        assert run.returncode == 0, run.stderr
        out[k] = json.loads(run.stdout)
    assert out["1"][:2] == [True, 1] and out["2"][:2] == [True, 2]
    assert out["1"][2] == out["2"][2]


def _one_step_excess(lam, alpha, n=400, seed=11):
    """max over random x of R(Phi(x)) - R(x) + (alpha/2)|Pg(x)|^2, the float64 reduced map and a central difference of
    the float64 risk on M for Pg (an independent route: no kernel of the certificate)."""
    rng = np.random.default_rng(seed)
    k, v = rng.uniform(-0.999, 0.999, (2, n))
    p = dict(lam=lam, **OWN)
    tr = reduced_pgd(k, v, alpha=alpha, steps=1, every=1, **p)
    h = 1e-6
    R = lambda a, b: reduced_pgd(a, b, alpha=alpha, steps=0, every=1, **p).risk[0]
    gk, gv = (R(k + h, v) - R(k - h, v)) / (2 * h), (R(k, v + h) - R(k, v - h)) / (2 * h)
    return float(np.max(tr.risk[1] - tr.risk[0] + 0.5 * alpha * ((1 - k**2) * gk**2 + (1 - v**2) * gv**2)))


def test_the_certified_descent_holds_at_held_out_points(proof):
    """At alpha_8, one step of the float64 map never beats the certified descent (finite-difference error ~1e-10)."""
    for p in proof["pieces"]:
        for lam in (p["lam"][0], p["lam"][1]):
            assert _one_step_excess(lam, p["alpha_8"]) <= 1e-8


def test_the_suprema_hold_the_quadrature_gradient(proof):
    """|g_kappa| and |g_nu| from mpmath quadrature of the risk on M (Theorem 1's definition, 20 digits) at points of the
    square lie below the checker's G_kappa, G_nu."""
    p = proof["pieces"][0]
    lam = p["lam"][0]
    R = lambda a, b: quad_manifold_risk(a, b, lam=lam, dps=20, **OWN)
    for k, v in ((0.3, -0.9), (0.8, 0.99)):
        gk = mpmath.diff(lambda x: R(x, v), k)
        gv = mpmath.diff(lambda y: R(k, y), v)
        assert abs(gk) <= p["G_kappa"] and abs(gv) <= p["G_nu"]


@pytest.mark.parametrize("how", ["alpha_8", "alpha_12", "alpha_5", "lam", "gap", "stationary", "signs", "field",
                                 "premise", "box", "no pieces"])
def test_a_corrupted_certificate_is_rejected(proof, how):
    doc = clone(proof["certificate"])
    p0 = doc["pieces"][0]
    if how == "alpha_8":  # the step of Proposition 8 raised: the bracket drops below 1/2
        p0["alpha_8"] *= 1.5
        p0["alpha_5"] = p0["alpha_8"] if p0["alpha_12"] >= p0["alpha_8"] else p0["alpha_5"]
        _rejected(_restated(doc), "B(alpha_8")
    elif how == "alpha_12":  # Proposition 12's step raised above what alpha ||D K|| < 1 covers
        p0["alpha_12"] = doc["domain"]["alpha"][1]
        if p0["alpha_12"] <= proof["pieces"][0]["alpha_12"] * 1.01:
            doc["domain"]["alpha"][1] *= 4
            p0["alpha_12"] = doc["domain"]["alpha"][1]
        _rejected(_restated(doc))
    elif how == "alpha_5":  # the saddle's eigenvalue 1 - alpha_5 mu_+ pushed below 0
        p0["alpha_5"] = p0["alpha_8"] = p0["alpha_12"] = 2.0 / proof["pieces"][0]["mu_plus"][0]
        _rejected(_restated(doc))
    elif how == "lam":  # the lam interval widened: the leaves no longer tile it
        doc["domain"]["lam"][1] = 0.5
        doc["pieces"][-1]["lam"][1] = 0.5
        _rejected(_restated(doc))
    elif how == "gap":
        doc["pieces"][1]["lam"][0] = np.nextafter(doc["pieces"][1]["lam"][0], 1.0)
        _rejected(_restated(doc), "pieces must tile")
    elif how == "stationary":  # Proposition 9 from another setting
        doc["stationary"]["setting"]["d"] = 601
        doc["stationary"]["statement"] = statement(doc["stationary"])
        _rejected(doc, "stationary")
    elif how == "signs":
        del doc["signs"]
        _rejected(doc, "signs")
    elif how == "field":
        p0["G_kappa"] = 1.0
        _rejected(doc, "piece 0")
    elif how == "no pieces":  # refused by the pieces' own check (a mutant letting [] through survived)
        doc["pieces"] = []
        _rejected(_restated(doc), "pieces must be a non-empty list")
    elif how == "premise":
        doc["premises"][0]["hash"] = "0" * 32
        _rejected(doc, "hash")
    else:
        doc["leaves"][3]["box"]["kappa"][1] = 0.123
        _rejected(doc)


def _bracket_root(G, H):
    """alpha with B(alpha, G, H) = 1/2, B = 1/sqrt(1 + alpha^2 G^2) - alpha G/2 - (alpha H/2)(1 + alpha G/2)^2 as
    docs/MATH.md states it (Proposition 8), by mpmath at 30 digits (not the generated kernel)."""
    with mpmath.workdps(30):
        G, H = mpmath.mpf(G), mpmath.mpf(H)
        B = lambda a: 1 / mpmath.sqrt(1 + a * a * G * G) - a * G / 2 - (a * H / 2) * (1 + a * G / 2) ** 2
        return mpmath.findroot(lambda a: B(a) - mpmath.mpf(1) / 2, 1 / (H + G))


def test_the_bracket_test_is_sharp_at_one_half(proof):
    """Each piece's alpha_8 moved to the root of B(alpha, max(G_kappa, G_nu), H) = 1/2 (mpmath, from the G and H the
    checker reports; B decreases in G), times 1 - 1e-9 on piece 0 and 1 + 1e-9 on piece 1: one replay, which must
    reject piece 1's bracket (so piece 0's passed: the pieces are checked in order). Pins the test's 1/2. (Its other
    constant, alpha_5 mu_+ < 1, cannot be pinned: B >= 1/2 gives alpha_8 H < 1, and mu_+ <= H, alpha_5 <= alpha_8.)"""
    doc = clone(proof["certificate"])
    for i, f in ((0, 1 - 1e-9), (1, 1 + 1e-9)):
        p = proof["pieces"][i]
        doc["pieces"][i]["alpha_8"] = float(_bracket_root(max(p["G_kappa"], p["G_nu"]), p["H"]) * f)
        assert doc["pieces"][i]["alpha_5"] <= doc["pieces"][i]["alpha_8"]
    r = _rejected(_restated(doc), "B(alpha_8")
    assert r.reason.startswith("rejected: piece 1:"), r.reason


def test_the_descent_algebra_is_proved_and_a_wrong_bracket_is_not():
    assert all(D.descent_proofs().values()) and all(D.k_map_proofs().values()) and all(D.norm_proofs().values())
    import sympy as sp

    a, G, H = D.BRACKET_ARGS
    wrong = 1 / sp.sqrt(1 + a**2 * G**2) - a * G / 4 - (a * H / 2) * (1 + a * G / 2) ** 2  # alpha G/2 halved
    W, h = sp.symbols("W h", positive=True)
    comb = (-a * W * h**2 / sp.sqrt(1 + a**2 * G**2) + (a * G / 2) * a * W * h**2
            + (H / 2) * a**2 * W * h**2 * (1 + a * G / 2) ** 2)
    assert sp.simplify(comb + a * W * h**2 * D.bracket()) == 0
    assert sp.simplify(comb + a * W * h**2 * wrong) != 0


def test_reduced_runs_at_alpha_5_never_raise_the_risk_and_end_at_minima(proof):
    """Held-out lam (inside a piece, not an end) and 150 held-out starts: at the certified alpha_5 the float64 risk never
    rises beyond rounding and every run ends at +-(1, 1) (neither the saddle nor a maximum)."""
    p = proof["pieces"][1]
    lam = 0.5 * (p["lam"][0] + p["lam"][1])
    k0, v0 = np.cos(np.random.default_rng(2026).uniform(0, 2 * np.pi, (2, 150)))
    tr = reduced_pgd(k0, v0, lam=lam, alpha=p["alpha_5"], steps=3000, every=1, **OWN)
    assert np.max(np.diff(tr.risk, axis=0)) <= 256 * np.finfo(float).eps * (1 + np.max(np.abs(tr.risk)))
    # kappa's linear rate at (1, 1) is 1 - alpha P erfc(c2), ~1 - 1e-5 here: the runs are followed until nu has
    # aligned and kappa has left the saddle's side, not to the end of their (very slow) linear phase
    end = reduced_pgd(k0, v0, lam=lam, alpha=p["alpha_5"], steps=20_000, every=10_000, **OWN)
    k, v = end.kappa[-1], end.nu[-1]
    assert np.all(k * v > 0) and np.all(np.abs(v) > 1 - 1e-9) and np.all(np.abs(k) > 0.5)
    # after nu has aligned (the first record on), |kappa| climbs towards the minimum (or is stuck there in float64)
    assert np.all(np.diff(np.abs(end.kappa[1:]), axis=0) >= 0)


def test_the_command_line_proves_an_interval_and_prints_the_pieces(tmp_path, capsys):
    from slr_verify.cli import main

    out = tmp_path / "t5.json.gz"
    args = ["certify", "theorem5", "--gamma2", "0.9", "--eps", "0.1", "--d", "300", "--L", "7", "--lam", "0.3:0.31",
            "--ratio", "1", "--out", str(out), "--json", "--quiet"]
    assert main(args + ["--steps", "1e-4"]) == 0
    got = json.loads(capsys.readouterr().out)
    assert got["proved"] and got["pieces"] and set(got["pieces"][0]) >= {"lam", "alpha_8", "alpha_12", "alpha_5", "mu",
                                                                          "delta"}
    assert replay(str(out)).accepted
    # R1's step counts: one row per piece with a rate (tests/test_rate.py checks the counts themselves)
    assert got["steps"]["alphas"] == ["0.004", "0.001", "alpha_5"] and len(got["steps"]["pieces"]) == len(got["pieces"])
    for piece, row in zip(got["pieces"], got["steps"]["pieces"]):
        assert (row is None) == (piece["mu"] is None)
        assert row is None or all(isinstance(t, int) and t > 0 for t in row["steps"]), row
    # off M: at both ends of the one piece the oracle is unstable for PGD on the spheres at alpha_5, and so says the
    # Riemannian spectrum at 40+ digits (landscape.classify, mpmath: another route than the arb enclosure)
    from slr_verify import landscape as LS

    assert [x["lam"] for x in got["off_M"]] == [0.3, 0.31]
    for x in got["off_M"]:
        oracle = LS.classify((1, 1, 0, 0, 0), lam=x["lam"], gamma=0.9**0.5, eps=0.1, d=300, L=7)
        assert x["unstable_at_alpha_5"] and not LS.stable_at(oracle, x["alpha_5"]), x
    assert main(args[:10] + ["--lam", "0:1", "--out", str(tmp_path / "x.json")]) == 2
    assert "lam" in capsys.readouterr().err
    with pytest.raises(SystemExit, match="--steps must be a finite EPS > 0"):
        main(args[:10] + ["--lam", "0.3:0.31", "--out", str(tmp_path / "y.json"), "--steps", "0"])


@pytest.mark.slow
def test_the_rate_joins_the_certificate_and_a_forged_mu_is_rejected():
    """At Figure 4b's model on one lam piece (Proposition 9's committed certificates embedded): R1's mu and delta in the
    piece, the certified area of S_delta above 0.2 (a float grid count gives ~0.28 at lam = 0.1); mu raised 10x is
    rejected by the checker. Slow (7 s): in the default run the committed certificate's rate is replayed by the claims
    (test_report, rate-r1) and check_rate's forgeries are tests/test_rate.py's."""
    from importlib import resources

    from slr_verify.checker import load

    folder = resources.files("slr_verify.certificates")
    p9 = tuple(load(str(folder / f)) for f in ("proposition9_fig4b.json.gz", "hessian_signs_fig4b.json.gz"))
    r = theorem5_step((0.09, 0.1), gamma2=0.5, d=400, L=10, ratio=1.0, proposition9=p9,
                      rate_options=dict(bisect=0, mu_factors=(0.5,)))
    assert r["proved"] and r["rate_failure"] is None, r
    (p,) = r["pieces"]
    assert p["mu"] > 0 and p["delta"] > 0 and p["area_fraction"] > 0.2
    doc = clone(r["certificate"])
    doc["pieces"][0]["mu"] *= 10
    _rejected(_restated(doc))


@pytest.mark.parametrize("bad", [dict(lam=(0.0, 1.0)), dict(lam=(0.5, 0.1)), dict(ratio=0.0), dict(margin=0.9),
                                 dict(rate="all"), dict(proposition9="committed"), dict(d=3), dict(gamma=-1.0),
                                 dict(budget=0), dict(prec=20)])
def test_bad_input_is_refused_before_the_search(bad):
    """Each bad argument raises a ValueError naming it, before any box is searched."""
    kw = dict(dict(lam=(0.1, 0.2), **OWN), **bad)
    name = next(iter(bad))
    with pytest.raises(ValueError, match=name if name != "lam" else "lam"):
        theorem5_step(**kw)


@pytest.mark.slow  # replays the whole committed theorem-5 certificate (the README run's budget)
def test_a_rate_stated_on_a_piece_the_rate_field_does_not_cover_is_rejected():
    """The committed certificate with mu and delta put on its first piece, which its rate field (one piece at lam = 0.1)
    does not cover: a forgery the checker accepted before it counted the pieces check_rate decides."""
    from importlib import resources

    from slr_verify.checker import load

    doc = load(str(resources.files("slr_verify.certificates") / "theorem5_fig4b.json.gz"))
    doc["pieces"][0]["mu"], doc["pieces"][0]["delta"] = 1000.0, 1e-9
    _rejected(_restated(doc), "state a rate")


@pytest.mark.slow  # a local Dask cluster of two workers
def test_the_pieces_on_two_workers_make_the_same_certificate():
    """Theorem 5's lam pieces on the engine (`slr_verify.model.engine`): two local workers give the tree and leaves of
    the in-process search, piece for piece (the split tree does not depend on where a piece ran)."""
    import json

    from slr_verify.certify.theorem5 import theorem5_step

    kw = dict(lam=(0.1, 0.3), gamma=0.5**0.5, d=400, L=10, rate=False)
    one, two = theorem5_step(**kw), theorem5_step(workers=2, **kw)
    assert one["proved"] and two["proved"] and len(one["pieces"]) == 5
    same = lambda f: json.dumps(one["certificate"][f]) == json.dumps(two["certificate"][f])
    assert same("tree") and same("leaves") and two["pieces"] == one["pieces"]


@pytest.mark.parametrize("covered, words", [(2, "do not bound G and H"), (1, "pieces state a rate, the rate field covers 1")])
def test_the_rate_field_must_decide_every_piece_stating_a_rate(monkeypatch, covered, words):
    """The count check between the pieces stating a rate and those the rate field decides (a mutant flipping it survived
    the default run: the replays with a rate are slow), with check_rate stubbed to decide ``covered`` of the two rated
    pieces and no leaves: all decided, the check passes and the next one (the leaves' bounds) rejects; one short, the
    count check rejects. Independent of any search: the document's pieces are written here."""
    from slr_verify.checker import rate as checker_rate
    from slr_verify.checker.fields import Rejected
    from slr_verify.checker.profile import SettingBalls
    from slr_verify.checker.theorem5 import check_theorem5

    monkeypatch.setattr(checker_rate, "check_rate", lambda rate, S, pieces: [{"area_fraction": 0.5}] * covered)
    piece = lambda lo, hi: {"lam": [lo, hi], "alpha_8": 0.1, "alpha_12": 0.1, "alpha_5": 0.05, "mu": 0.01, "delta": 0.01}
    doc = {"pieces": [piece(0.1, 0.2), piece(0.2, 0.3)], "rate": {"lam": [0.1, 0.3]}, "leaves": []}
    domain = ((-1.0, 1.0), (-1.0, 1.0), (0.0, 0.2), (0.1, 0.3))
    with pytest.raises(Rejected, match=words):
        check_theorem5(doc, "theorem-5", SettingBalls(0.5**0.5, 0.0, 400, 10), domain, [])


def test_the_step_at_a_lam_and_the_oracles_instability_read_what_is_proved():
    """alpha_5 at lam is the smaller of two pieces at their shared end (what binding accepts), 0 outside; the oracle is
    unstable at a step only where a sign or an order is proved (None, undecided, is not unstable)."""
    from slr_verify.certify.oracle_stability import unstable_at
    from slr_verify.certify.theorem5 import alpha_5_at

    pieces = [{"lam": [0.1, 0.2], "alpha_5": 0.5}, {"lam": [0.2, 0.3], "alpha_5": 0.25}]
    assert [alpha_5_at(pieces, x) for x in (0.1, 0.15, 0.2, 0.3, 0.31)] == [0.5, 0.5, 0.25, 0.25, 0.0]
    st = lambda m: {"minimum": m, "alpha_stable": (0.0099, 0.01)}
    assert unstable_at(st(False), 1e-9) and unstable_at(st(True), 0.0101)
    assert not unstable_at(st(True), 0.01) and not unstable_at(st(None), 1.0)
