"""Binding (docs/certificates.md "Binding"): a claim that reports a replayed certificate compares the
certificate's whole setting (gamma, eps, d, L), kind and domain with its own statement, in one function
(:func:`slr_verify.checker.binding.proves`), and finds the committed certificates by what they state
(:func:`slr_verify.certify.committed.find_committed`), not by file name.

The attacks of the adversarial review, each refused with a reason naming the field: the window certificate with gamma
moved by 4 ulp (it no longer covers gamma^2 = 1/2) or eps = 1e-30, Proposition 9's certificate at gamma = 0.75, a
certificate at another d, a lam outside the domain, another kind, a rejected replay. The forged documents below are
accepted by the checker (true statements about another setting): only the binding refuses them.
"""
import copy
import gzip
import json
import math
import os
import shutil
from fractions import Fraction
from functools import lru_cache
from importlib import resources
from pathlib import Path

import pytest
from flint import arb

from slr_verify.certify import committed as C
from slr_verify.checker import Replay, replay, statement
from slr_verify.checker import binding as B
from slr_verify.checker.binding import binds, proves
from slr_verify.checker.registry import KINDS as CHECKER_KINDS
from slr_verify.checker.replay import _mint
from slr_verify.claims import basin_claims, get, manifold_claims, sphere_claims, tube_claims, window_claims
from slr_verify.claims import vocabulary as V
from slr_verify.model import tiers as T

G = math.sqrt(0.5)
U = math.ulp(G)
#: the paper's setting as the claims state it: gamma^2 = 1/2 exactly
PAPER = dict(gamma2=Fraction(1, 2), eps=0.0, d=400, L=10)
W_LAM = (window_claims.W_LO[1], window_claims.W_HI[0])
W_CLAIM = dict(kind="oracle-window", setting=PAPER, lam=W_LAM, ends={"lo": window_claims.W_LO, "hi": window_claims.W_HI})
#: the committed certificates' folder (the tests below replace the package's by a temporary one)
REAL = Path(str(resources.files("slr_verify.certificates")))


def fake(kind, *, gamma=G, eps=0.0, d=400, L=10, accepted=True, **domain_and_values):
    """A replay as the checker returns it (accepted, its values), without the leaves: what proves reads."""
    dom = {c: tuple(v) for c, v in domain_and_values.pop("domain", {}).items()}
    values = {"kind": kind, "setting": {"gamma": gamma, "eps": eps, "d": d, "L": L}, "domain": dom,
              "lam": dom.get("lam"), **domain_and_values}
    if not accepted:
        return Replay(False, "rejected: a fake", "conclusion", 1, 0.0, {})
    return _mint("accepted: a fake", "conclusion", 1, 0.0, values)  # the checker's own constructor: binding's fakes


def window(**kw):
    """Figure 4b's window certificate as its checker's values, with ``kw`` changed."""
    return fake("oracle-window", **{"domain": {"kappa": (0.0, 1.0), "t": (0.0, 1.0), "lam": W_LAM},
                                    "lo": window_claims.W_LO, "hi": window_claims.W_HI, **kw})


def prop9(**kw):
    return fake("manifold-stationary-points", **{"domain": {"kappa": (-1.0, 1.0), "nu": (-1.0, 1.0), "lam": (0.01, 1.0)},
                                                 **kw})


def prop10(**kw):
    return fake("reduced-map-diffeomorphism", domain={"kappa": (-1.0, 1.0), "nu": (-1.0, 1.0), "alpha": (0.0, 0.306),
                                                      "lam": (0.1, 0.1)}, **kw)


def point(lam, kind="global-minimum-enclosure", **kw):
    return fake(kind, domain={"kappa": (0.0, 1.0), "t": (0.0, 1.0), "lam": (lam, lam)}, **kw)


# --------------------------------------------------------------------------- proves: the attacks
def test_the_genuine_certificates_bind():
    assert proves(window(), **W_CLAIM)[0]
    assert proves(prop9(), kind="manifold-stationary-points", setting=PAPER, lam=(0.01, 1.0))[0]
    assert proves(prop10(), kind="reduced-map-diffeomorphism", setting=PAPER, lam=0.1, domain={"alpha": (0.0, 4e-3)})[0]
    assert proves(point(0.9), kind=window_claims.POINT_KINDS, setting=PAPER, lam=0.9)[0]


def test_gamma_moved_by_four_ulp_does_not_bind():
    ok, why = proves(window(gamma=G + 4 * U), **W_CLAIM)
    assert not ok and why == "gamma 0.707106781186548 is not within one ulp of the claim's gamma^2 = 1/2", why


def test_gamma_binds_exactly_within_its_ulp_ball():
    """sqrt(1/2) = 0.70710678118654752... lies below the float 0.7071067811865476 (...757): in the ball of G and of
    G - 1 ulp, not of G + 1 ulp. Decided in Fraction arithmetic, not by rounding, on the ball the checker evaluates:
    G one ulp wide either side, its radius as arb stores it (a 30-bit magnitude, rounded up: a hair above one ulp)."""
    assert proves(window(gamma=G - U), **W_CLAIM)[0]
    assert not proves(window(gamma=G + U), **W_CLAIM)[0]
    assert not proves(window(gamma=G - 2 * U), **W_CLAIM)[0]
    (r, e) = arb(G, U).rad().man_exp()  # the radius arb stores for G's one-ulp ball, exactly
    rad = Fraction(int(r)) * Fraction(2) ** int(e)
    assert Fraction(U) <= rad < Fraction(U) * (1 + Fraction(1, 2**28))
    top = (Fraction(G) + rad) ** 2  # the upper end of the ball of G, squared: inside, and one bit above: not
    assert binds(window().values, **dict(W_CLAIM, setting=dict(PAPER, gamma2=top)))[0]
    assert not binds(window().values, **dict(W_CLAIM, setting=dict(PAPER, gamma2=top + Fraction(1, 2**200))))[0]


def test_a_float_gamma_of_the_claim_must_equal_the_certificates():
    setting = dict(gamma=G, eps=0.0, d=400, L=10)
    assert proves(window(), **dict(W_CLAIM, setting=setting))[0]
    ok, why = proves(window(gamma=G - U), **dict(W_CLAIM, setting=setting))
    assert not ok and "gamma 0.7071067811865475 is not the claim's gamma = 0.7071067811865476" in why, why
    assert proves(window(gamma=G - U), **dict(W_CLAIM, setting=dict(setting, gamma=Fraction(G))))[0]  # an exact real


def test_eps_1e30_does_not_bind():
    ok, why = proves(window(eps=1e-30), **W_CLAIM)
    assert not ok and why.startswith("eps 1e-30 is not the claim's eps = 0.0"), why
    ok, why = proves(window(eps=1e-30), **dict(W_CLAIM, setting=dict(PAPER, eps=Fraction(0))))
    assert not ok and why == "eps 1e-30 is not within one ulp of the claim's eps = 0", why
    assert proves(window(eps=0.0), **dict(W_CLAIM, setting=dict(PAPER, eps=Fraction(0))))[0]  # eps = 0 is the exact 0


def test_proposition9_at_gamma_075_does_not_bind():
    ok, why = proves(prop9(gamma=0.75), kind="manifold-stationary-points", setting=PAPER, lam=(0.01, 1.0))
    assert not ok and why == "gamma 0.75 is not within one ulp of the claim's gamma^2 = 1/2", why


@pytest.mark.parametrize("field, value", [("d", 80), ("L", 9)])
def test_another_d_or_L_does_not_bind(field, value):
    for rep, claim in [(point(0.9, **{field: value}), dict(kind=window_claims.POINT_KINDS, setting=PAPER, lam=0.9)),
                       (prop10(**{field: value}), dict(kind="reduced-map-diffeomorphism", setting=PAPER, lam=0.1)),
                       (window(**{field: value}), W_CLAIM)]:
        ok, why = proves(rep, **claim)
        assert not ok and why.startswith(f"{field} {value} is not the claim's {field} = "), why


def test_lam_outside_the_domain_does_not_bind():
    ok, why = proves(window(), **dict(W_CLAIM, lam=0.05))
    assert not ok and why.startswith("lam: the claim's lam = 0.05 is not inside lam in [0.09072182760925387"), why
    ok, why = proves(prop9(domain={"kappa": (-1.0, 1.0), "nu": (-1.0, 1.0), "lam": (0.01, 0.5)}),
                     kind="manifold-stationary-points", setting=PAPER, lam=(0.01, 1.0))
    assert not ok and why.startswith("lam: the claim's lam = [0.01, 1.0] is not inside"), why
    assert not proves(point(0.9), kind=window_claims.POINT_KINDS, setting=PAPER, lam=float(math.nextafter(0.9, 1)))[0]
    # an interval claim binds only when both its ends lie inside: the lower end out, or the upper end out, does not
    p9 = prop9(domain={"kappa": (-1.0, 1.0), "nu": (-1.0, 1.0), "lam": (0.01, 0.5)})
    claim = dict(kind="manifold-stationary-points", setting=PAPER)
    assert proves(p9, lam=(0.01, 0.5), **claim)[0] and proves(p9, lam=(0.1, 0.2), **claim)[0]
    assert not proves(p9, lam=(0.005, 0.5), **claim)[0] and not proves(p9, lam=(0.01, 0.6), **claim)[0]


def test_the_point_lam_of_a_dynamics_kind_is_its_ulp_ball():
    """The checker widens the point lam of the dynamics' kinds one ulp either side: a float of the claim must equal it,
    an exact real lie in the ball (1/10 does, 0.1's neighbour float does not)."""
    claim = dict(kind="reduced-map-diffeomorphism", setting=PAPER)
    assert proves(prop10(), lam=0.1, **claim)[0] and proves(prop10(), lam=Fraction(1, 10), **claim)[0]
    ok, why = proves(prop10(), lam=math.nextafter(0.1, 1), **claim)
    assert not ok and "lam 0.1 is not the claim's lam = 0.10000000000000002" in why, why
    ok, why = proves(prop10(), lam=0.1, domain={"alpha": (0.0, 0.5)}, **claim)
    assert not ok and why.startswith("alpha: the claim's alpha = [0.0, 0.5] is not inside alpha in [0.0, 0.306]"), why


def test_another_kind_does_not_bind():
    ok, why = proves(point(0.3, kind="oracle-global-minimiser"), **W_CLAIM)
    assert not ok and why == "kind 'oracle-global-minimiser' is not the claim's oracle-window", why
    ok, why = proves(prop9(), kind="manifold-hessian-signs", setting=PAPER, lam=(0.01, 1.0))
    assert not ok and why.startswith("kind 'manifold-stationary-points'"), why


def test_a_rejected_replay_does_not_bind():
    ok, why = proves(window(accepted=False), **W_CLAIM)
    assert not ok and why == "not accepted by the checker (rejected: a fake)", why


def test_the_window_ends_bind_the_statements_enclosures():
    lo = (window_claims.W_LO[0] - 1e-12, window_claims.W_LO[1])
    ok, why = proves(window(lo=lo), **W_CLAIM)
    assert not ok and why.startswith("ends: the certificate's lo in [0.09072182760745387, 0.09072182760925387] is "
                                      "not inside the claim's [0.09072182760845388"), why
    ok, why = proves(window(hi=None), **W_CLAIM)
    assert not ok and why.startswith("ends: the certificate states no hi end of W"), why


def test_eps_is_not_compared_where_the_statement_has_none():
    """manifold-hessian-signs states the classification at gamma, d, L (the Hessians on M do not depend on eps)."""
    rep = fake("manifold-hessian-signs", eps=0.0, domain={"lam": (0.01, 1.0)})
    assert proves(rep, kind="manifold-hessian-signs", setting=dict(PAPER, eps=0.1), lam=(0.01, 1.0))[0]


def test_malformed_fields_do_not_bind_and_a_claims_bug_raises():
    rep = window()
    rep.values["setting"]["gamma"] = "0.7071067811865476"
    ok, why = proves(rep, **W_CLAIM)
    assert not ok and why.startswith("setting gamma is not a number"), why
    assert not binds({}, **W_CLAIM)[0] and not binds(None, **W_CLAIM)[0]
    with pytest.raises(ValueError, match="one of gamma, gamma2"):
        proves(window(), kind="oracle-window", setting=dict(eps=0.0, d=400, L=10))
    with pytest.raises(ValueError, match="kind must be"):
        proves(window(), kind="oracle_window", setting=PAPER)


def test_every_kind_of_the_checker_has_a_binding_rule():
    """The setting a kind binds is the registry's own ``about`` (the statements on M name neither eps nor L: on M both
    enter R as additive constants, a premise statement); the quantities are binding's table, one entry per registry
    kind: lam for every kind, its one-ulp ball exactly where the registry widens it (the dynamics' point lam: their
    statements say 'within one ulp'), a coordinate only if the kind has it, and theorem-5's alpha as alpha_5, not as
    its tiling's [0, A]."""
    assert set(B.QUANTITIES) == set(CHECKER_KINDS)
    on_M = ("manifold-hessian-signs", "theorem-5", "manifold-stationary-points")
    assert {CHECKER_KINDS[k].about for k in on_M} == {("gamma", "d")}
    for name, table in B.QUANTITIES.items():
        k = CHECKER_KINDS[name]
        assert table["lam"] == ("ulp" if "lam" in k.widened else "domain"), name
        assert {c for c, how in table.items() if how == "ulp"} == set(k.widened), name
        assert all(c in k.coordinates for c, how in table.items() if how in ("domain", "ulp")), name
        assert set(table.values()) <= {"domain", "ulp", "alpha_5", "ends", "tube"}, name
    assert {k for k, t in B.QUANTITIES.items() if "alpha" in t} == {"theorem-5", "reduced-map-diffeomorphism",
                                                                     "contraction-ball", "oracle-tube", "transverse-map"}
    assert B.QUANTITIES["theorem-5"]["alpha"] == "alpha_5" and [k for k, t in B.QUANTITIES.items() if "ends" in t] == [
        "oracle-window"]


# --------------------------------------------------------------------------- quantity by quantity
#: the committed theorem-5 certificate as its document states it, read here with the standard library (not the
#: checker's reader): its pieces' lam intervals and alpha_5 are the expected values of the probes below
T5_DOC = json.loads(gzip.decompress((REAL / "theorem5_fig4b.json.gz").read_bytes()))
T5_PIECES = [(tuple(p["lam"]), p["alpha_5"]) for p in T5_DOC["pieces"]]
T5_A = T5_DOC["domain"]["alpha"][1]
T5 = dict(kind="theorem-5", setting=PAPER)
up = lambda x: math.nextafter(x, math.inf)
down = lambda x: math.nextafter(x, -math.inf)


def _t5(alpha, lam=None, values=None):
    return binds(T5_DOC if values is None else values, **T5, lam=lam, domain={"alpha": alpha})


def test_theorem5_document_is_what_the_probes_assume():
    """Figure 4b's theorem-5 certificate: 26 pieces tiling [0.01, 1], alpha_5 decreasing in lam, the tiling's A above
    every alpha_5 (so a binding against [0, A] would bind steps the theorem is not proved for)."""
    assert T5_DOC["kind"] == "theorem-5" and T5_DOC["domain"]["lam"] == [0.01, 1.0] and len(T5_PIECES) == 26
    assert [lam for lam, _ in T5_PIECES] == sorted(lam for lam, _ in T5_PIECES)
    assert all(a > b for (_, a), (_, b) in zip(T5_PIECES, T5_PIECES[1:]))
    assert T5_A > max(a for _, a in T5_PIECES) and T5_DOC["domain"]["alpha"][0] == 0.0


def test_theorem5_alpha_without_lam_is_bounded_by_every_pieces_alpha_5():
    low = min(a for _, a in T5_PIECES)
    ok, why = _t5(low)
    assert ok and f"alpha = {low!r} inside (0, alpha_5 = {low!r}] on the 26 lam pieces meeting lam = any lam" in why, why
    ok, why = _t5(up(low))
    assert not ok and why.startswith(f"alpha: the claim's alpha = {up(low)!r} is not inside (0, {low!r}]"), why
    assert _t5((low / 2, low))[0] and not _t5((low / 2, up(low)))[0]
    assert _t5(Fraction(low))[0] and not _t5(Fraction(low) + Fraction(1, 2**1100))[0]


@pytest.mark.parametrize("alpha", [0.0, -0.0, -1e-300, -1.0, (0.0, 1e-3), (-1e-3, 1e-3), Fraction(0), 0])
def test_theorem5_alpha_must_be_above_0(alpha):
    """Theorem 5 is for alpha in (0, alpha_5]: a step 0 or below, or an interval reaching it, does not bind."""
    ok, why = _t5(alpha, lam=0.01)
    assert not ok and why.startswith("alpha: the claim's alpha = ") and "is not inside (0, " in why, why
    assert _t5(5e-324, lam=0.01)[0] and _t5((5e-324, 1e-3), lam=0.01)[0]  # the smallest float above 0 does


@pytest.mark.parametrize("i", range(26))
def test_theorem5_alpha_inside_one_piece_binds_its_alpha_5(i):
    """A lam strictly inside piece i meets that piece only: its alpha_5 binds, the next float above does not."""
    (lo, hi), a5 = T5_PIECES[i]
    mid = (lo + hi) / 2
    assert lo < mid < hi
    ok, why = _t5(a5, lam=mid)
    assert ok and f"alpha = {a5!r} inside (0, alpha_5 = {a5!r}] on the 1 lam pieces" in why, why
    assert not _t5(up(a5), lam=mid)[0] and _t5(down(a5), lam=mid)[0]
    assert _t5(a5, lam=(up(lo), down(hi)))[0] and not _t5(up(a5), lam=(up(lo), down(hi)))[0]


def test_theorem5_a_lam_restricting_to_larger_alpha_5_binds_a_larger_alpha():
    """The smaller the claim's lam, the larger the step it binds: the first piece's alpha_5 (about 1.557) binds at
    lam = 0.01 only; a lam interval binds the smallest alpha_5 of the pieces it meets (at a common end: both)."""
    (lo0, hi0), a0 = T5_PIECES[0]
    (_, _), a1 = T5_PIECES[1]
    assert _t5(a0, lam=0.01)[0] and _t5(a0, lam=(0.01, down(hi0)))[0]
    assert not _t5(a0, lam=(0.01, hi0))[0] and _t5(a1, lam=(0.01, hi0))[0]  # hi0 is also piece 1's lower end
    assert not _t5(a0, lam=hi0)[0] and _t5(a1, lam=hi0)[0] and not _t5(up(a1), lam=hi0)[0]
    assert not _t5(a0)[0] and not _t5(a0, lam=(0.01, 1.0))[0]
    for j in range(1, 26):  # lam in [0.01, the end of piece j - 1]: min over pieces 0..j-1, then over 0..j
        end = T5_PIECES[j - 1][0][1]
        assert _t5(T5_PIECES[j - 1][1], lam=(0.01, down(end)))[0]
        assert not _t5(up(T5_PIECES[j][1]), lam=(0.01, end))[0] and _t5(T5_PIECES[j][1], lam=(0.01, end))[0]
    (lo, _), last = T5_PIECES[-1]
    assert _t5(last, lam=1.0)[0] and not _t5(up(last), lam=1.0)[0]


def test_theorem5_the_tiling_bound_A_no_longer_binds():
    """The reviewer's probe: alpha = 1.6 (and the tiling's A = 1.6355) bound before, against [0, A]; neither is a step
    the theorem is proved for at any lam of the certificate. Stretching the tiling's A (a document's field) does not
    move what binds either."""
    for alpha in (1.6, T5_A, (0.0, T5_A), (1e-3, T5_A)):
        for lam in (None, 0.01, (0.01, 1.0), 1.0):
            ok, why = _t5(alpha, lam=lam)
            assert not ok and why.startswith("alpha: the claim's alpha = "), (alpha, lam, why)
    stretched = dict(T5_DOC, domain=dict(T5_DOC["domain"], alpha=[0.0, 1e300]))
    assert not _t5(1e299, values=stretched)[0] and not _t5(1.6, lam=0.01, values=stretched)[0]
    assert _t5(T5_PIECES[0][1], lam=0.01, values=stretched)[0]


def test_theorem5_lam_and_malformed_pieces():
    """The claim's lam is bound first (outside the domain: a lam mismatch); pieces missing, malformed, or none meeting
    the claim's lam: a mismatch naming them, not an exception."""
    ok, why = _t5(1e-3, lam=(0.005, 0.02))
    assert not ok and why.startswith("lam: the claim's lam = [0.005, 0.02] is not inside lam in [0.01, 1.0]"), why
    bad = dict(T5_DOC, pieces=[dict(p, alpha_5="0.5") if i == 3 else p for i, p in enumerate(T5_DOC["pieces"])])
    ok, why = _t5(1e-3, values=bad)
    assert not ok and why.startswith("piece 3 alpha_5 is not a number"), why
    for pieces in (None, {}, [1, 2], []):
        ok, why = _t5(1e-3, values=dict(T5_DOC, pieces=pieces))
        assert not ok and why.startswith("alpha: "), (pieces, why)
    far = dict(T5_DOC, domain=dict(T5_DOC["domain"], lam=[0.01, 2.0]))
    ok, why = _t5(1e-3, lam=1.5, values=far)
    assert not ok and why == "alpha: no lam piece of the certificate meets the claim's lam = 1.5", why
    assert binds(T5_DOC, **dict(T5, setting=dict(PAPER, eps=0.1)), lam=0.5)[0]  # its statement names no eps


@pytest.mark.slow  # replays the whole committed theorem-5 certificate (~10 s; the README run's budget)
def test_theorem5_alpha_binds_the_replays_alpha_5():
    """The replay's values bind as the document's fields do: alpha_5 of each piece (the document's), the minimum over
    the whole lam interval, and not the tiling's A."""
    rep = C.replay_committed("theorem5_fig4b.json.gz")
    assert rep.accepted, rep.reason
    low = min(a for _, a in T5_PIECES)
    assert rep.values["alpha_5_min"] == low
    assert proves(rep, **T5, lam=(0.01, 1.0), domain={"alpha": low})[0]
    assert not proves(rep, **T5, lam=(0.01, 1.0), domain={"alpha": up(low)})[0]
    assert not proves(rep, **T5, lam=0.01, domain={"alpha": 1.6})[0] and not proves(rep, **T5, domain={"alpha": T5_A})[0]
    assert not proves(rep, **T5, lam=0.01, domain={"alpha": 0.0})[0]
    for (lo, hi), a5 in T5_PIECES:
        mid = (lo + hi) / 2
        assert proves(rep, **T5, lam=mid, domain={"alpha": a5})[0] and not proves(rep, **T5, lam=mid, domain={"alpha": up(a5)})[0]


def test_diffeomorphism_alpha_is_its_domain_from_0():
    """reduced-map-diffeomorphism proves det J > 0 for every alpha in [0, A]: the committed certificate's A (read off
    the document here) binds, the next float above does not; alpha = 0 binds, a step below 0 does not."""
    doc = json.loads(gzip.decompress((REAL / "proposition10_fig4b.json.gz").read_bytes()))
    (a0, A), lam = doc["domain"]["alpha"], doc["domain"]["lam"][0]
    claim = dict(kind="reduced-map-diffeomorphism", setting=PAPER, lam=lam)
    assert a0 == 0.0
    for alpha in (A, (0.0, A), 0.0, (0.0, 0.0), (A / 2, A), Fraction(A)):
        assert binds(doc, **claim, domain={"alpha": alpha})[0], alpha
    for alpha in (up(A), (0.0, up(A)), -5e-324, (-5e-324, A), -1.0, Fraction(A) + Fraction(1, 2**1100)):
        ok, why = binds(doc, **claim, domain={"alpha": alpha})
        assert not ok and why.startswith("alpha: the claim's alpha = ") and f"alpha in [0.0, {A!r}]" in why, (alpha, why)


@pytest.mark.parametrize("kind", ["contraction-ball", "oracle-tube"])
def test_a_point_alpha_binds_only_itself(kind):
    """contraction-ball and oracle-tube prove their statement at their point alpha, which the checker does not widen
    (lam: the one-ulp ball): the claim's alpha must equal it exactly, as a float or a real."""
    a = 4e-3
    dom = {"lam": (0.5, 0.5), "alpha": (a, a), **({"kappa": (0.5, 1.0), "nu": (0.5, 1.0)} if kind == "oracle-tube" else {})}
    values = fake(kind, eps=0.0, domain=dom).values
    claim = dict(kind=kind, setting=PAPER, lam=0.5)
    assert binds(values, **claim, domain={"alpha": a})[0] and binds(values, **claim, domain={"alpha": Fraction(a)})[0]
    for alpha in (up(a), down(a), (a, up(a)), (down(a), a), Fraction(1, 250), 0.0, -a):
        ok, why = binds(values, **claim, domain={"alpha": alpha})
        assert not ok and why.startswith("alpha: the claim's alpha") and f"alpha in [{a!r}, {a!r}]" in why, (alpha, why)
    assert binds(values, **claim)[0]  # a claim that names no alpha binds the lam and the setting only


def test_the_lam_of_a_domain_binds_up_to_its_ends_and_a_point_lam_its_ulp_ball():
    """lam as a domain interval: both ends bind, the floats outside do not; lam of a widened point: the ball
    [x - ulp(x), x + ulp(x)] of the float x binds (arb stores a radius a hair above one ulp), two ulp away does not."""
    claim = dict(kind="manifold-stationary-points", setting=PAPER)
    assert binds(prop9().values, **claim, lam=0.01)[0] and binds(prop9().values, **claim, lam=1.0)[0]
    assert not binds(prop9().values, **claim, lam=down(0.01))[0] and not binds(prop9().values, **claim, lam=up(1.0))[0]
    x, u = Fraction(0.1), Fraction(math.ulp(0.1))
    claim = dict(kind="reduced-map-diffeomorphism", setting=PAPER)
    assert binds(prop10().values, **claim, lam=(x - u, x + u))[0]
    assert not binds(prop10().values, **claim, lam=x + 2 * u)[0] and not binds(prop10().values, **claim, lam=x - 2 * u)[0]
    assert not binds(prop10().values, **claim, lam=up(0.1))[0]  # a float of the claim: equal exactly


def test_the_window_ends_bind_up_to_the_claims_enclosures():
    """The claim's enclosures of W's ends exactly the certificate's stated [a, A] and [B, b] bind; one float tighter
    on either side does not."""
    (a, A), (B, b) = (window_claims.W_LO[0], W_LAM[0]), (W_LAM[1], window_claims.W_HI[1])
    assert proves(window(), **dict(W_CLAIM, ends={"lo": (a, A), "hi": (B, b)}))[0]
    for ends in ({"lo": (up(a), A)}, {"lo": (a, down(A))}, {"hi": (up(B), b)}, {"hi": (B, down(b))}):
        ok, why = proves(window(), **dict(W_CLAIM, ends=ends))
        assert not ok and why.startswith("ends: the certificate's "), (ends, why)


@pytest.mark.parametrize("kind, domain", [
    ("theorem-5", {"kappa": (0.0, 1.0)}), ("theorem-5", {"nu": 0.5}), ("oracle-window", {"alpha": 1e-3}),
    ("oracle-global-minimiser", {"t": (0.0, 1.0)}), ("off-M-minimum", {"alpha": 1e-3}), ("oracle-tube", {"kappa": 0.9}),
    ("manifold-hessian-signs", {"radius": 0.1}), ("contraction-ball", {"region": (0.0, 1.0)}),
    ("global-minimum-enclosure", {"ends": {"lo": (0.0, 1.0)}}),
])
def test_a_quantity_the_kind_does_not_bind_is_a_mismatch(kind, domain):
    """A quantity the claim names that its kind's table does not list is not silently ignored: the reason names it."""
    doms = {"theorem-5": T5_DOC["domain"], "oracle-tube": {"kappa": (0.5, 1.0), "nu": (0.5, 1.0), "lam": (0.5, 0.5),
                                                        "alpha": (4e-3, 4e-3)}}
    values = T5_DOC if kind == "theorem-5" else fake(kind, domain=doms.get(kind, {"lam": (0.5, 0.5)})).values
    (name,) = domain
    claim = dict(kind=kind, setting=PAPER, lam=0.5)
    ok, why = binds(values, **claim, **({"ends": domain["ends"]} if name == "ends" else {"domain": domain}))
    assert not ok and why.startswith(f"the claim binds {name}, which a {kind} certificate does not state"), why
    assert binds(values, **claim)[0], "without it the claim binds"


def test_replayed_needs_a_binding_per_replay():
    with pytest.raises(TypeError):
        V.Replayed("r", "ref", [window()])
    with pytest.raises(ValueError, match="one"):
        V.Replayed("r", "ref", [window()], binding=[])
    e = V.Replayed("r", "ref", [window()], binding=[proves(window(gamma=G + 4 * U), **W_CLAIM)])
    assert e.tier == T.BALL and not e.holds
    assert "gamma^2 = 1/2" in e.details["certificates"][0]["binding"]


# --------------------------------------------------------------------------- find_committed: by content
#: each claim's statement, in every mode, and the committed certificates it must find (the whole folder between them)
STATEMENTS = [
    (W_CLAIM, ["window_fig4b.json.gz"]),
    (dict(kind="oracle-window", setting=dict(PAPER, d=80), lam=(window_claims.W80_LO[1], window_claims.W80_HI[0]),
          ends={"lo": window_claims.W80_LO, "hi": window_claims.W80_HI}), ["window_fig5.json.gz"]),
    (dict(kind="oracle-global-minimiser", setting=PAPER, lam=0.3), ["oracle_fig4b_lam0.3.json.gz"]),
    (dict(kind=window_claims.POINT_KINDS, setting=PAPER, lam=0.9), ["minimum_fig4b_lam0.9.json.gz"]),
    (dict(kind="manifold-stationary-points", setting=PAPER, lam=(0.01, 1.0)), ["proposition9_fig4b.json.gz"]),
    (dict(kind="manifold-hessian-signs", setting=PAPER, lam=(0.01, 1.0)), ["hessian_signs_fig4b.json.gz"]),
    (dict(kind="reduced-map-diffeomorphism", setting=PAPER, lam=0.1, domain={"alpha": (0.0, 4e-3)}),
     ["proposition10_fig4b.json.gz"]),
    (dict(kind="theorem-5", setting=PAPER, lam=(0.01, 1.0)), ["theorem5_fig4b.json.gz"]),
    (dict(kind="transverse-map", setting=PAPER, lam=0.1, domain={"alpha": 4e-3}),
     [name for name, *_ in basin_claims.TRANSVERSE_MAPS]),
]


def test_the_committed_certificates_bind_their_claims():
    """Every committed certificate is found by the statement of the claim that reports it, and by no other."""
    found = []
    for claim, names in STATEMENTS:
        assert C.find_committed(**claim) == names, claim
        found += names
    ctx = get("global-minimiser").context("default")
    for lam, d in window_claims._diagram_points(ctx):
        (name,) = C.find_committed(window_claims.POINT_KINDS, setting=dict(PAPER, d=d), lam=lam)
        assert f"_d{d}_lam{lam:.6g}.json.gz" in name
        found.append(name)
    assert len(window_claims._diagram_points(ctx)) == 48
    for a, b, *_ in tube_claims.STATED:  # the oracle tubes: one certificate a lam piece
        (name,) = C.find_committed("oracle-tube", setting=PAPER, lam=(a, b), domain={"alpha": tube_claims.ALPHA})
        found.append(name)
    assert sorted(found) == C.names(), "each committed certificate is reported by exactly one claim's statement"


def test_a_committed_certificate_binds_after_its_replay():
    rep = C.replay_committed("oracle_fig4b_lam0.3.json.gz")
    ok, why = proves(rep, kind="oracle-global-minimiser", setting=PAPER, lam=0.3)
    assert ok and why.startswith("binds the claim: kind oracle-global-minimiser; gamma 0.7071067811865476 within one ulp "
                                 "of gamma^2 = 1/2, eps = 0.0, d = 400, L = 10, lam = 0.3 inside lam in [0.3, 0.3]"), why
    assert not proves(rep, kind="oracle-global-minimiser", setting=PAPER, lam=0.31)[0]


def _statement_of(doc) -> dict:
    """``doc`` with the statement the checker derives (a forgery that changes the setting restates it: the checker then
    decides on the mathematics); the checker's own derivation, without a replay."""
    doc["statement"] = statement(doc)
    return doc


@lru_cache(maxsize=None)
def _forged_doc(name, shift=4):
    """The committed certificate ``name`` with gamma moved by ``shift`` ulp, restated (a JSON string: cached)."""
    doc = C.load_committed(name, folder=REAL)
    doc["setting"] = dict(doc["setting"], gamma=G + shift * U)
    return json.dumps(_statement_of(doc))


def forged(name, shift=4) -> dict:
    return json.loads(_forged_doc(name, shift))


def _write(doc, path):
    path.write_bytes(gzip.compress(json.dumps(doc).encode()))


def test_the_forgeries_are_accepted_by_the_checker():
    """What the binding is for: the checker accepts a true certificate at gamma + 4 ulp (the statement restated)."""
    r = replay(forged("oracle_fig4b_lam0.3.json.gz"))
    assert r.accepted and r.values["setting"]["gamma"] == G + 4 * U, r.reason


def test_find_committed_finds_by_content_not_by_name(tmp_path):
    shutil.copyfile(REAL / "window_fig5.json.gz", tmp_path / "renamed.json.gz")
    shutil.copyfile(REAL / "oracle_d80_lam0.199794.json.gz", tmp_path / "small.json.gz")
    _write(forged("oracle_fig4b_lam0.3.json.gz"), tmp_path / "oracle_fig4b_lam0.3.json.gz")  # the name, not the content
    (tmp_path / "broken.json.gz").write_bytes(b"not gzip")
    w80 = STATEMENTS[1][0]
    assert C.find_committed(**w80, folder=tmp_path) == ["renamed.json.gz"]
    assert C.find_committed(kind="oracle-global-minimiser", setting=PAPER, lam=0.3, folder=tmp_path) == []
    assert C.find_committed(kind="oracle-global-minimiser", setting=dict(PAPER, gamma2=(Fraction(G) + 4 * Fraction(U)) ** 2),
                            lam=0.3, folder=tmp_path) == ["oracle_fig4b_lam0.3.json.gz"]
    (small,) = C.find_committed(kind="oracle-global-minimiser", setting=dict(PAPER, d=80), lam=0.19979387562494444,
                                folder=tmp_path)
    rep = C.replay_committed(small, folder=tmp_path)
    assert small == rep.values["file"] == "small.json.gz" and proves(rep, kind="oracle-global-minimiser",
                                                                     setting=dict(PAPER, d=80), lam=0.19979387562494444)[0]


def test_replay_every_gives_each_file_the_verdict_of_its_own_replay(tmp_path):
    """``replay_every`` over a folder (two forked workers, in a fresh interpreter so that forking is allowed): each
    file's verdict and reason are those of replaying it alone, here; a file that is not gzip is a rejection saying
    it is unreadable, and a certificate whose statement was edited is rejected, without stopping the others."""
    import subprocess
    import sys

    for name in ("oracle_d80_lam0.199794.json.gz", "hessian_signs_fig4b.json.gz"):
        shutil.copyfile(REAL / name, tmp_path / name)
    doc = C.load_committed("oracle_d80_lam0.199794.json.gz")
    _write(dict(doc, statement=doc["statement"].replace("unique", "only")), tmp_path / "edited.json.gz")
    (tmp_path / "broken.json.gz").write_bytes(b"not gzip")
    code = ("import json, sys; from slr_verify.certify.committed import replay_every\n"
            f"print(json.dumps([(n, r.accepted, r.reason) for n, r in replay_every(folder={str(tmp_path)!r})]))")
    env = dict(os.environ, SLR_VERIFY_CHECKER_WORKERS="2")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, check=True)
    got = json.loads(out.stdout.strip().splitlines()[-1])
    assert [n for n, *_ in got] == sorted(p.name for p in tmp_path.iterdir())
    for name, accepted, reason in got:
        if name == "broken.json.gz":
            assert not accepted and reason.startswith("rejected: unreadable")
            continue
        alone = C.replay_committed(name, folder=tmp_path)
        assert (accepted, reason) == (alone.accepted, alone.reason), name
        assert accepted == (name != "edited.json.gz")


def test_replay_every_refuses_a_progress_that_is_no_stream():
    """Before any replay: ``progress`` is None, True, False or a writable stream."""
    with pytest.raises(ValueError, match="progress must be None, True, False or a writable stream"):
        C.replay_every(progress=3)


def test_find_committed_reads_the_folder_once():
    C.find_committed(**W_CLAIM)
    hits = C._index.cache_info().hits
    for claim, _ in STATEMENTS:
        C.find_committed(**claim)
    assert C._index.cache_info().hits == hits + len(STATEMENTS)


# --------------------------------------------------------------------------- the claims: a forgery fails them
@pytest.fixture
def forged_folder(monkeypatch, tmp_path):
    """The committed folder replaced by ``tmp_path`` (``put(name, doc)`` writes into it), the index read afresh."""
    monkeypatch.setattr(C, "_folder", lambda folder: tmp_path if folder is None else Path(folder))
    C._index.cache_clear()
    yield lambda name, doc: _write(doc, tmp_path / name)
    C._index.cache_clear()


def _by_name(module, monkeypatch, names):
    """The claims' module finding certificates by file name again (the old way: ``names`` by kind), as an index fooled
    would: the binding of the replay must still refuse a forgery."""
    def find(kind, **kw):
        return [names[k] for k in ((kind,) if isinstance(kind, str) else kind) if k in names]
    monkeypatch.setattr(module, "find_committed", find)


def _not_proved(e, why="gamma^2 = 1/2"):
    """A Replayed record that is not proved: the ball tier, failed, the binding's reason in its details."""
    assert e.tier == T.BALL and not e.holds, e.as_dict()
    reasons = [c["binding"] for c in e.details["certificates"]]
    assert any(why in r for r in reasons) or not reasons, reasons


def _verdict(claim_id):
    c = get(claim_id)
    return c.check(c.context("fast"))


@pytest.mark.parametrize("found_by", ["content", "name"])
def test_oracle_window_fails_on_a_forged_certificate(forged_folder, monkeypatch, found_by):
    forged_folder("oracle_fig4b_lam0.3.json.gz", forged("oracle_fig4b_lam0.3.json.gz"))
    if found_by == "name":
        _by_name(window_claims, monkeypatch, {"oracle-global-minimiser": "oracle_fig4b_lam0.3.json.gz"})
    e = window_claims._window_proof(get("oracle-window").context("fast"), None)
    _not_proved(e)
    assert (e.size["certificates"] == 0) == (found_by == "content")


@pytest.mark.parametrize("found_by", ["content", "name"])
def test_global_minimiser_fails_on_a_forged_certificate(forged_folder, monkeypatch, found_by):
    forged_folder("minimum_fig4b_lam0.9.json.gz", forged("minimum_fig4b_lam0.9.json.gz"))
    if found_by == "name":
        _by_name(window_claims, monkeypatch, {"global-minimum-enclosure": "minimum_fig4b_lam0.9.json.gz"})
    e = window_claims._certified_diagram(get("global-minimiser").context("fast"))
    _not_proved(e)
    assert e.details["without_certificate"] == ([(0.9, 400)] if found_by == "content" else [])


def test_the_diagram_refuses_a_certificate_at_another_d(forged_folder, monkeypatch):
    """The d = 80 certificate at lam = 2 reported for d = 400 (before: read against the profile at its own d)."""
    forged_folder("minimum_d80_lam2.json.gz", C.load_committed("minimum_d80_lam2.json.gz", folder=REAL))
    _by_name(window_claims, monkeypatch, {"global-minimum-enclosure": "minimum_d80_lam2.json.gz"})
    monkeypatch.setattr(window_claims, "_diagram_points", lambda ctx: [(2.0, 400)])
    e = window_claims._certified_diagram(get("global-minimiser").context("fast"))
    _not_proved(e, "d 80 is not the claim's d = 400")


@pytest.mark.parametrize("found_by", ["content", pytest.param("name", marks=pytest.mark.slow)])  # the same replay
def test_proposition9_fails_on_a_forged_certificate(forged_folder, monkeypatch, found_by):
    forged_folder("proposition9_fig4b.json.gz", forged("proposition9_fig4b.json.gz"))
    forged_folder("hessian_signs_fig4b.json.gz", C.load_committed("hessian_signs_fig4b.json.gz", folder=REAL))
    if found_by == "name":
        _by_name(manifold_claims, monkeypatch, {"manifold-stationary-points": "proposition9_fig4b.json.gz",
                                                "manifold-hessian-signs": "hessian_signs_fig4b.json.gz"})
    ev = _verdict("proposition-9")
    assert V.verdict(ev) == "fail"
    stationary, signs = [e for e in ev if e.tier == T.BALL]
    _not_proved(stationary, "gamma^2 = 1/2" if found_by == "name" else "")
    assert signs.holds


@pytest.mark.parametrize("found_by", ["content", "name"])
def test_proposition10_fails_on_a_forged_certificate(forged_folder, monkeypatch, found_by):
    forged_folder("proposition10_fig4b.json.gz", forged("proposition10_fig4b.json.gz"))
    if found_by == "name":
        _by_name(manifold_claims, monkeypatch, {"reduced-map-diffeomorphism": "proposition10_fig4b.json.gz"})
    ev = _verdict("proposition-10")
    assert V.verdict(ev) == "fail"
    _not_proved(next(e for e in ev if e.tier == T.BALL), "gamma^2 = 1/2" if found_by == "name" else "")


def _shifted(module, monkeypatch):
    """The search's certificate moved by 4 ulp in gamma before the replay (a mutant of the search)."""
    real = module.replay

    def replay_forged(doc, **kw):
        doc = copy.deepcopy(doc)
        doc["setting"] = dict(doc["setting"], gamma=doc["setting"]["gamma"] + 4 * math.ulp(doc["setting"]["gamma"]))
        return real(_statement_of(doc), **kw)

    monkeypatch.setattr(module, "replay", replay_forged)


@pytest.mark.parametrize("claim_id, module", [("off-M-stationary", sphere_claims), ("oracle-unstable-for-pgd", basin_claims)])
def test_a_searched_certificate_at_another_gamma_fails_its_claim(monkeypatch, claim_id, module):
    _shifted(module, monkeypatch)
    ev = _verdict(claim_id)
    assert V.verdict(ev) == "fail"
    (e,) = [e for e in ev if e.details.get("certificates")]
    assert e.details["certificates"][0]["accepted"], e.details  # the checker accepts it: only the binding refuses
    _not_proved(e)


def test_thorough_mode_binds_the_committed_window_and_checks_the_fresh_search_by_overlap():
    """Issue 49: a fresh search's enclosures of W's ends differ from the statement's in the last digits, so binding
    refuses it (the old thorough mode failed); the claim binds the committed certificate and requires the fresh one's
    enclosures to meet the statement's. The enclosures below: the statement's shifted by 2.7e-14 (as measured, inside),
    and by 1e-9 (outside)."""
    near = window(hi=(window_claims.W_HI[0] + 2.72e-14, window_claims.W_HI[1] + 2.72e-14))
    assert not proves(near, **W_CLAIM)[0]  # the reason the old thorough mode failed
    assert window_claims._fresh_overlap(near, W_CLAIM["ends"])["overlaps"]
    far = window(hi=(window_claims.W_HI[1] + 1e-9, window_claims.W_HI[1] + 2e-9))
    assert not window_claims._fresh_overlap(far, W_CLAIM["ends"])["overlaps"]
    assert not window_claims._fresh_overlap(window(accepted=False), W_CLAIM["ends"])["overlaps"]
    assert not window_claims._fresh_overlap(None, W_CLAIM["ends"])["overlaps"]


def test_a_statement_on_M_binds_a_claim_at_any_eps_and_L():
    """Theorem 5 and Proposition 9 on M hold at every eps and L (the premises prove the kernels free of both, and that
    on M they add a constant to R: dR/dL = zeta_lam(0), dR/deps = 2 eps); gamma and d still bind."""
    rep = prop9()
    for eps, L in ((0.0, 10), (0.5, 1), (3.0, 10**6)):
        assert proves(rep, kind="manifold-stationary-points", setting=dict(PAPER, eps=eps, L=L), lam=(0.01, 1.0))[0]
    assert not proves(rep, kind="manifold-stationary-points", setting=dict(PAPER, d=401), lam=(0.01, 1.0))[0]
    assert not proves(rep, kind="manifold-stationary-points", setting=dict(PAPER, gamma2=Fraction(1, 3)),
                      lam=(0.01, 1.0))[0]


def test_find_committed_binds_theorem5_by_its_step():
    """The committed Theorem 5 certificate is found by its step as binding states it (alpha_5 of the pieces meeting the
    claim's lam, read from the document independently of the index): the paper's alpha = 4e-3 at lam in [0.05, 0.1],
    at any eps and L; not on [0.9, 1], whose piece has alpha_5 < 4e-3."""
    from slr_verify.certify.committed import find_committed

    doc = json.loads(gzip.decompress((REAL / "theorem5_fig4b.json.gz").read_bytes()))
    last = [p["alpha_5"] for p in doc["pieces"] if p["lam"][1] > 0.9]
    assert max(last) < 4e-3 < min(p["alpha_5"] for p in doc["pieces"] if p["lam"][0] < 0.1)
    for s in (PAPER, dict(PAPER, eps=0.3, L=2)):
        assert find_committed("theorem-5", setting=s, lam=(0.05, 0.1), domain={"alpha": 4e-3}) == ["theorem5_fig4b.json.gz"]
    assert find_committed("theorem-5", setting=PAPER, lam=(0.9, 1.0), domain={"alpha": 4e-3}) == []


def _tube_values(**tube):
    """An oracle-tube replay's values: D_m = [0.79, 1] x [0.785, 1], m = 0.01, so D's corner is 0.79 + 0.01 exactly."""
    t = {"kappa": 0.79, "nu": 0.785, "margin": 0.01, "entry": 2e-3, "euclidean": 1e-3, "q": 0.9998, **tube}
    return fake("oracle-tube", domain={"kappa": (0.79, 1.0), "nu": (0.785, 1.0), "lam": (0.01, 0.01), "alpha": (4e-3, 4e-3)},
                tube=t).values


def test_a_tube_binds_a_region_inside_d_and_a_radius_up_to_the_euclidean_one():
    """The claim's D = [c, 1]^2 and |y|_2 <= r bind when c >= max(kappa_lo, nu_lo) + m (exact rationals: the largest
    lower end counts) and 0 < r <= the certificate's Euclidean radius; a corner 2^-70 below, a radius one float above,
    r = 0 and a certificate with no tube do not; a malformed claim is the claim's bug (ValueError)."""
    claim = dict(kind="oracle-tube", setting=PAPER, lam=0.01)
    corner = Fraction(0.79) + Fraction(0.01)
    for t in ({"corner": corner, "radius": 1e-3}, {"corner": 0.9, "radius": 5e-4}, {"corner": 1.0, "radius": Fraction(1e-3)}):
        ok, why = binds(_tube_values(), **claim, domain={"tube": t})
        assert ok and "tube D = [" in why, (t, why)
    for t in ({"corner": corner - Fraction(1, 2**70), "radius": 1e-3}, {"corner": 0.9, "radius": up(1e-3)},
              {"corner": 0.9, "radius": 0.0}, {"corner": 0.9, "radius": -1e-4}):
        ok, why = binds(_tube_values(), **claim, domain={"tube": t})
        assert not ok and why.startswith("tube: the claim's D = ["), (t, why)
    ok, why = binds(_tube_values(nu=0.795), **claim, domain={"tube": {"corner": corner, "radius": 1e-3}})
    assert not ok, "nu's lower end 0.795 + m lies above the corner"
    ok, why = binds(fake("oracle-tube", domain={"lam": (0.01, 0.01)}).values, **claim, domain={"tube": {"corner": 0.9,
                                                                                                      "radius": 1e-4}})
    assert not ok and "tube kappa" in why, why
    for bad in ({"corner": 0.9}, {"corner": 0.9, "radius": 1e-4, "nu": 0.9}, {"corner": "0.9", "radius": 1e-4}, 0.9):
        with pytest.raises(ValueError, match="tube must be"):
            binds(_tube_values(), **claim, domain={"tube": bad})
