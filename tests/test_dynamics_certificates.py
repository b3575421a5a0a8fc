"""The dynamics' certificates (docs/certificates.md; docs/MATH.md sections 10, 12, 13): Proposition 9's Hessian signs,
Proposition 10's alpha_max bracket, the stationary point off M, a contraction ball and the oracle tube, written by
the searches at a setting of no figure of the paper (gamma^2 = 0.8, d = 200, L = 6) and at Figure 4b's, replayed by
the checker, and rejected once corrupted.

A corruption that changes a domain is restated (the statement re-derived) so that the rejection comes from the
mathematics, not from the text. Expected numbers come from other routes: the float64 reduced map (Proposition 10's
attraction step), mpmath's root of Theorem 1's R_theta at 30 digits (theta*), the five-overlap float map (the
2-cycle's images)."""

import math
from importlib import resources

import mpmath
import numpy as np
import pytest
from documents import clone, rejected, restated
from paper import FIG4B, G4B

from slr_verify.certify import (
    alpha_diffeo,
    capture_certificate,
    contraction_ball,
    hessian_signs,
    off_M_family_minimality,
    oracle_tube,
    replay,
)
from slr_verify.checker import load
from slr_verify.dynamics import fixed_points as F
from slr_verify.kernels.landscape import fixed_point_kernels

OWN = dict(gamma=math.sqrt(0.8), d=200, L=6)
#: a state of the 2-cycle at lam = 0.5, alpha = 4e-3 (Figure 4b), as in test_basins_capture
TUBE_LAM = 0.05
CYCLE_GUESS, MIRROR = (-0.237262, -0.999927, 0.011627, 0.003321, -0.009235), (1, 1, -1, -1, -1)


_restated, _rejected = restated, rejected


@pytest.fixture(scope="module")
def signs():
    r = hessian_signs((0.05, 0.5), **OWN)
    assert r["proved"], r["failure"]
    return r["certificate"]


@pytest.fixture(scope="module")
def diffeo():
    p = dict(lam=0.1, **OWN)
    r = alpha_diffeo(alpha_numeric=F.alpha_max_diffeo(**p, n=41), **p)
    assert r["ratio"] > 0.99 and r["alpha_upper"] is not None
    return r["certificate"]


@pytest.fixture(scope="module")
def family():
    r = off_M_family_minimality(lam=0.3, **OWN)
    assert r["proved"]
    return r["certificate"]


@pytest.fixture(scope="module")
def cycle():
    return capture_certificate(contraction_ball(CYCLE_GUESS, MIRROR, lam=0.5, alpha=FIG4B.alpha, **G4B))


@pytest.fixture(scope="module")
def tube():
    """The oracle tube at the own setting, lam = 0.05, alpha = 4e-3, D = [0.9, 1]^2 (37 leaves, 0.05 s a search)."""
    t = oracle_tube(lam=TUBE_LAM, alpha=FIG4B.alpha, D=((0.9, 1.0), (0.9, 1.0)), **OWN)
    assert t.proved, t.reason
    return t.certificate


# the diffeo certificate is a 3.5 s search: slow-marked, the other kinds stay in the default run
@pytest.mark.parametrize("name", ["signs", pytest.param("diffeo", marks=pytest.mark.slow), "family", "cycle", "tube"])
def test_every_kind_is_accepted_with_its_premises_proved(name, request):
    doc = request.getfixturevalue(name)
    r = replay(doc)
    assert r.accepted, r.reason
    assert r.conclusion.startswith(doc["statement"])


def test_signs_dropped_leaf_and_extended_domain(signs):
    d = clone(signs)
    d["leaves"].pop(3)
    _rejected(d, "leaf")
    d = clone(signs)
    d["domain"]["lam"][1] = 0.6
    _rejected(_restated(d), "gap")


def test_diffeo_attraction_step_against_the_float_route(diffeo):
    r = replay(diffeo)
    lo, hi = r.values["alpha_attract"]
    a, _ = F.alpha_attract(lam=0.1, **OWN)
    assert lo <= a <= hi and hi - lo < 1e-12 * a


def test_diffeo_past_alpha_max_is_rejected(diffeo):
    """Every alpha coordinate doubled (exact in binary: the split tree is the same): the domain now reaches twice
    alpha_max, where det J < 0 at (0, 0); some leaf must fail."""
    d = clone(diffeo)
    d.pop("alpha_upper"), d.pop("upper_at", None)  # now below the domain's end (rejected as such): the leaves alone
    d["domain"]["alpha"] = [0.0, 2 * d["domain"]["alpha"][1]]
    for leaf in d["leaves"]:
        leaf["box"]["alpha"] = [2 * x for x in leaf["box"]["alpha"]]
    _rejected(_restated(d), "det-positive leaf")


def test_diffeo_upper_bound_below_alpha_max_is_rejected(diffeo):
    d = clone(diffeo)
    d["alpha_upper"] = 0.5 * d["domain"]["alpha"][1]
    _rejected(_restated(d), "alpha_upper")


def test_family_theta_star_against_mpmath(family):
    """theta* (the closed form the checker evaluates) against the root of Theorem 1's R_theta(0, 0, theta, 1, 0) found
    by mpmath at 30 digits (the generated gradient, not the closed form)."""
    r = replay(family)
    K = fixed_point_kernels()
    with mpmath.workdps(30):
        root = mpmath.findroot(lambda t: K.risk_mp(0, 0, t, 1, 0, mpmath.mpf(0.3), mpmath.mpf(OWN["gamma"]), 0,
                                                   OWN["d"], OWN["L"])[3], 0.3)
    lo, hi = r.values["theta_star"][1]
    assert lo <= float(root) <= hi


def test_family_changed_premise_hash_is_rejected(family):
    d = clone(family)
    d["premises"][0]["hash"] = "0" * 32
    _rejected(d, "premise", "off-M-family")


def test_cycle_ball_against_the_float_map(cycle):
    """The ball's centre is a 2-cycle point: sigma Phi(c) = c to float precision and Phi(c) != c."""
    leaf = cycle["leaves"][0]
    c, s = np.array(leaf["centre"]), np.array(leaf["sigma"])
    K = fixed_point_kernels()
    r = np.array(K.risk_f64(*c, 0.5, G4B["gamma"], 0.0, G4B["d"], G4B["L"]), dtype=float)
    Phi = np.array(K.map_f64(*c, *r[1:6], FIG4B.alpha), dtype=float)[:5]
    assert np.max(np.abs(s * Phi - c)) < 1e-12 and np.max(np.abs(Phi - c)) > 1e-3


@pytest.mark.parametrize("change, words", [
    (lambda leaf: leaf.update(sigma=[1, 1, 1, 1, 1]), ("r0 + q",)),  # Phi(c) is the mirror image, not c
    (lambda leaf: leaf.update(radius=1e3 * leaf["radius"]), ("r0 + q",)),
    (lambda leaf: leaf.update(groups=[[0, 1, 2], [3, 4]]), ("groups",)),
    (lambda leaf: leaf.update(sigma=[1, 1, -1, 1, 1]), ("symmetries the premise pgd-map proves",)),
])
def test_cycle_corrupted_is_rejected(cycle, change, words):
    d = clone(cycle)
    change(d["leaves"][0])
    _rejected(d, *words)


def test_the_contraction_test_is_sharp_at_one(cycle):
    """The ball's radius raised from the search's until the checker's verdict flips (bisection in log radius, 30
    replays of 2 ms): on the accepted side r0 + q (the upper ends the checker reports) is within 1e-6 below 1, and the
    rejected side's reason is r0 + q. Pins the test's constant 1 (Banach: r0 + q < 1); the bounds r0, q themselves are
    checked against the float map above and in test_basins_capture."""
    def at(s):
        d = clone(cycle)
        d["leaves"][0]["radius"] = s
        return replay(d)

    s0 = cycle["leaves"][0]["radius"]
    assert at(s0).accepted and not at(10 * s0).accepted  # (at 1e3 s0 a replay takes 1.7 s: huge balls)
    lo, hi = math.log(s0), math.log(10 * s0)
    for _ in range(30):
        mid = 0.5 * (lo + hi)
        lo, hi = (mid, hi) if at(math.exp(mid)).accepted else (lo, mid)
    inside, outside = at(math.exp(lo)), at(math.exp(hi))
    assert inside.accepted and 1 - 1e-6 < inside.values["r0"] + inside.values["q"] < 1 + 1e-15, inside.values
    assert not outside.accepted and "r0 + q" in outside.reason, outside.reason


@pytest.mark.slow  # a certificate search at a second setting
def test_cli_step_size_at_another_setting(tmp_path):
    """`slr-verify certify step-size` at gamma^2 = 0.8, d = 200, L = 6, lam = 0.1: exit 0, the certificate on disk is
    accepted, and the float64 det J on a 201^2 grid is > 0 at the bracket's lower end and < 0 somewhere at its upper
    end (the float route the search only starts from)."""
    from slr_verify.cli import main

    out = tmp_path / "s.json.gz"
    argv = ["certify", "step-size", "--gamma2", "0.8", "--eps", "0", "--d", "200", "--L", "6", "--lam", "0.1",
            "--out", str(out), "--quiet"]
    assert main(argv) == 0
    r = replay(str(out))
    assert r.accepted and "lam = 0.1" in r.conclusion
    k, v = np.meshgrid(np.linspace(-1, 1, 201), np.linspace(-1, 1, 201))
    below = F.det_jacobian(k, v, lam=0.1, alpha=r.values["domain_alpha"][1], **OWN)
    above = F.det_jacobian(k, v, lam=0.1, alpha=r.values["alpha_upper"], **OWN)
    assert below.min() > 0 and above.min() < 0


def test_claims_read_the_setting_off_the_replay(family, cycle):
    """A true certificate at another setting or lam than the claim asked for must not count (a mutant of the ball's
    search wrote one at eps = 0.001, which the checker rightly accepted): checker.binding.proves compares them."""
    from slr_verify.checker.binding import proves

    r, c = replay(family), replay(cycle)
    own, g4b = dict(OWN, eps=0.0), dict(G4B, eps=0.0)
    assert proves(r, kind="off-M-minimum", setting=own, lam=0.3)[0]
    assert not proves(r, kind="off-M-minimum", setting=dict(own, d=400), lam=0.3)[0]
    assert not proves(r, kind="off-M-minimum", setting=own, lam=0.1)[0]
    assert proves(c, kind="contraction-ball", setting=g4b, lam=0.5, domain={"alpha": FIG4B.alpha})[0]
    assert not proves(c, kind="contraction-ball", setting=dict(g4b, eps=1e-3), lam=0.5, domain={"alpha": FIG4B.alpha})[0]


def test_a_search_reports_proved_only_what_the_checker_accepts():
    """hessian_signs at d = 3 (the searches take d >= 2, the checker's model d >= 4): the search's sign tests pass,
    but the checker rejects the certificate, naming d, so the search reports not proved (it reported proved with a
    certificate its own checker rejected)."""
    r = hessian_signs((0.1, 0.2), gamma=math.sqrt(0.5), d=3, L=10)
    assert r["proved"] is False and r["certificate"] is None
    assert "setting d" in r["failure"]


def test_hessian_signs_on_one_coarse_leaf_are_rejected():
    """Proposition 9's classification certificate with its lam pieces merged into one leaf over [0.01, 1]: on so wide a
    ball the determinant at (0, 0) is not certified < 0, and the checker says which point fails."""
    doc = load(str(resources.files("slr_verify.certificates").joinpath("hessian_signs_fig4b.json.gz")))
    lam = doc["domain"]["lam"]
    doc["tree"], doc["leaves"] = [-1], [{"box": {"lam": lam}, "test": "signs"}]
    _rejected(doc, "signs leaf", "(0, 0)", "saddle")
