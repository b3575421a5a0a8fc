"""R1 (`docs/MATH.md`, "R1: a certified rate below the saddle's level"): the search's field passes the checker, forged
fields are rejected, the kernels agree with independent mpmath references, and reduced PGD from S_delta never beats the
certified rate."""
from __future__ import annotations

import copy
import gzip
import json
import math
from functools import lru_cache

import mpmath
import numpy as np
import pytest
from flint import arb, ctx

from slr_verify.certify.rate import lojasiewicz
from slr_verify.checker.fields import Rejected
from slr_verify.checker.premises import kernels
from slr_verify.checker.profile import SettingBalls
from slr_verify.checker.rate import check_rate

GAMMA, D, L = 0.5**0.5, 400, 10  # Figure 4b's model (gamma^2 = 1/2)
PIECE = (0.1, 0.1005)
S = SettingBalls(GAMMA, 0.0, D, L)  # the checker's setting (R1 does not depend on eps)


def _found():
    r = lojasiewicz([PIECE], gamma=GAMMA, d=D, L=L, grid=17, mu_factors=(0.7,), bisect=0)
    assert r["proved"], r["failure"]
    return r


def _pieces(r, **change):
    return [{"lam": PIECE, "mu": r["mu"][0], "delta": r["delta"][0], **change}]


def _check(rate, pieces):
    old = ctx.prec
    ctx.prec = 128
    try:
        return check_rate(rate, S, pieces)
    finally:
        ctx.prec = old


def _first(rate, test):
    return next(i for i, leaf in enumerate(rate["leaves"]) if leaf["test"] == test)


def _changed_test(found, old, new):
    """A leaf's test renamed (a ratio leaf inside S_delta, where an above test cannot pass: its mirror (-kappa, -nu), at
    which the checker tests it, in [0.5, 1]^2; the first such leaf, so that the checker reaches it after few others)."""
    rate = copy.deepcopy(found["rate"])
    i = next(i for i, leaf in enumerate(rate["leaves"]) if leaf["test"] == old
             and (old != "ratio" or _inside_corner(leaf["box"])))
    rate["leaves"][i]["test"] = new
    return rate, _pieces(found)


def _inside_corner(box):
    """Whether the (kappa, nu) box lies in [0.5, 1]^2 or in its mirror [-1, -0.5]^2 (R is even under (kappa, nu) ->
    (-kappa, -nu): the checker tests such a leaf at its mirror)."""
    (k0, k1), (n0, n1) = box["kappa"], box["nu"]
    return min(k0, n0) >= 0.5 or max(k1, n1) <= -0.5


def _corner_without_the_corner(found):
    """The corner test moved to a neighbour of the corner leaf that does not hold (1, 1) (or (-1, -1))."""
    rate = copy.deepcopy(found["rate"])
    box = rate["leaves"][_first(rate, "corner")]["box"]
    if box["kappa"][1] == 1.0:
        j = next(j for j, leaf in enumerate(rate["leaves"]) if leaf["box"]["kappa"][1] == 1.0 and leaf["box"]["nu"][1] < 1.0
                 and leaf["box"]["nu"][0] > 0)
    else:
        j = next(j for j, leaf in enumerate(rate["leaves"]) if leaf["box"]["kappa"][0] == -1.0 and leaf["box"]["nu"][0] > -1.0
                 and leaf["box"]["nu"][1] < 0)
    rate["leaves"][j]["test"] = "corner"
    return rate, _pieces(found)


def _gap(found):
    rate = copy.deepcopy(found["rate"])
    leaf = rate["leaves"][len(rate["leaves"]) // 2]
    lo, hi = leaf["box"]["nu"]
    leaf["box"]["nu"] = [lo, math.nextafter(hi, -math.inf)]
    return rate


def _split_piece(found):
    """The piece cut at its midpoint, a leaf spanning it."""
    mid = 0.5 * (PIECE[0] + PIECE[1])
    assert any(leaf["box"]["lam"][0] < mid < leaf["box"]["lam"][1] for leaf in found["rate"]["leaves"])
    return found["rate"], [{"lam": (PIECE[0], mid), "mu": found["mu"][0], "delta": found["delta"][0]},
                           {"lam": (mid, PIECE[1]), "mu": found["mu"][0], "delta": found["delta"][0]}]


#: each forgery of a genuine R1 certificate: (what it does, the forged (rate, pieces), the checker's words)
FORGERIES = [
    ("mu ten times larger", lambda f: (f["rate"], _pieces(f, mu=10 * f["mu"][0])), "test fails"),
    *[(f"delta = {x!r}", lambda f, x=x: (f["rate"], _pieces(f, delta=x)), "delta = " + repr(x) + " must be a finite float > 0")
      for x in (0.0, -0.01, -0.0)],
    *[(f"{k} = {x!r}", lambda f, k=k, x=x: (f["rate"], _pieces(f, **{k: x})), "must be a finite float > 0")
      for k, x in (("mu", math.inf), ("delta", math.inf), ("mu", 0.0))],  # mu = 0: a true but empty rate
    *[(f"a {old} leaf called {new}", lambda f, o=old, n=new: _changed_test(f, o, n), words)
      for old, new, words in [("ratio", "above", "above test fails"), ("ratio", "corner", "corner leaf must"),
                              ("corner", "above", "above test fails"), ("ratio", "valley", "unknown test")]],
    ("a corner box without the corner", _corner_without_the_corner, "corner leaf must"),
    ("a leaf outside its piece", _split_piece, "not inside one piece"),
    ("a piece of one point", lambda f: (f["rate"], [{"lam": (PIECE[0], PIECE[0]), "mu": f["mu"][0], "delta": f["delta"][0]}]),
     "not an interval in lam > 0"),
    ("the rate's lam not a union of pieces",
     lambda f: (f["rate"], [{"lam": (PIECE[0], 0.2), "mu": f["mu"][0], "delta": f["delta"][0]}]),
     "union of consecutive pieces"),
    ("a leaf one ulp short in nu (a gap)", lambda f: (_gap(f), _pieces(f)), "gap or an overlap"),
    ("the last leaf deleted", lambda f: (dict(f["rate"], leaves=f["rate"]["leaves"][:-1]), _pieces(f)), "tile"),
    ("S_delta empty: delta = 1e6, mu = 1e300, two above leaves (issue 45)", lambda f: ({"lam": list(PIECE), "tree": [0, -1, -1],
        "leaves": [{"box": {"kappa": [-1.0, 0.0], "nu": [-1.0, 1.0], "lam": list(PIECE)}, "test": "above"},
                   {"box": {"kappa": [0.0, 1.0], "nu": [-1.0, 1.0], "lam": list(PIECE)}, "test": "above"}]},
        _pieces(f, mu=1e300, delta=1e6)), "vacuous"),
    ("a leaf across kappa = 0", lambda f: ({"lam": list(PIECE), "tree": [-1], "leaves": [{"box": {
        "kappa": [-1.0, 1.0], "nu": [-1.0, 1.0], "lam": list(PIECE)}, "test": "above"}]}, _pieces(f)), "crosses kappa = 0"),
]


def test_the_rate_found_at_lam_0_1_passes_no_forgery_does_and_pgd_never_beats_it():
    """One search (built once, in one test worker): the checker accepts its certificate, rejects each of
    :data:`FORGERIES` for its own reason, and reduced PGD never beats the certified rate (:func:`_never_beaten`)."""
    found = _found()
    out = _check(found["rate"], _pieces(found))
    assert out[0]["area_fraction"] == found["area_fraction"][0] > 0.2
    assert found["mu"][0] > 1e-3 and found["delta"][0] > 0
    assert {leaf["test"] for leaf in found["rate"]["leaves"]} == {"above", "ratio", "corner"}
    for what, forge, words in FORGERIES:
        try:
            _check(*forge(found))
        except Rejected as e:
            assert words in str(e), (what, str(e))
        else:
            pytest.fail(f"forgery accepted: {what}")
    frac = out[0]["area_fraction"]
    upper, lower = _float_fraction(found, (-1e-12, 1e-2))
    assert upper >= frac >= lower
    _never_beaten(found)


def _float_fraction(found, margins):
    """The area fraction of Q inside S_delta as the checker counts it (the least, over the lam cells between the leaves'
    ends, of the area of the ratio and corner leaves inside S_delta over their lam range, over 4), each leaf decided in
    float64 instead (:func:`_gap_float`, an independent route): inside when R - R(0, 0) + delta < -margin at the 9 x 9
    grid of its (kappa, nu) box at both ends of its lam range; one fraction per margin. A leaf the checker proves inside
    has every grid point below 0 (margin -1e-12 bounds the certified fraction from above); one 1e-2 inside is proved
    inside by the checker's enclosures on these boxes (margin 1e-2 bounds it from below). /5 or /3 for the checker's /4
    falls outside both."""
    delta = found["delta"][0]
    leaves = [leaf for leaf in found["rate"]["leaves"] if leaf["test"] in ("ratio", "corner")]
    grid = np.linspace(0.0, 1.0, 9)
    K = np.array([[k0 + (k1 - k0) * u for u in grid for _ in grid] for k0, k1 in (lf["box"]["kappa"] for lf in leaves)])
    N = np.array([[n0 + (n1 - n0) * w for _ in grid for w in grid] for n0, n1 in (lf["box"]["nu"] for lf in leaves)])
    slack = np.full(len(leaves), -np.inf)
    for x in {e for lf in leaves for e in lf["box"]["lam"]}:  # every leaf at each lam end of its own range
        at = np.array([x in lf["box"]["lam"] for lf in leaves])
        gap = _gap_float(K[at].ravel(), N[at].ravel(), x)[0].reshape(-1, 81)
        slack[at] = np.maximum(slack[at], gap.max(axis=1) - _gap_float(np.zeros(1), np.zeros(1), x)[0][0] + delta)
    area = np.array([(lf["box"]["kappa"][1] - lf["box"]["kappa"][0]) * (lf["box"]["nu"][1] - lf["box"]["nu"][0])
                     for lf in leaves])
    out = []
    for margin in margins:
        inside = [(tuple(lf["box"]["lam"]), a) for lf, a, sl in zip(leaves, area, slack) if sl < -margin]
        ends = sorted({PIECE[0], PIECE[1], *(x for lam, _ in inside for x in lam)})
        out.append(min(sum(a for (l0, l1), a in inside if l0 <= lo and hi <= l1) for lo, hi in zip(ends, ends[1:])) / 4)
    return out


# ------------------------------------------------------------------------------ references independent of the code

def _zeta_mp(t, g, n=0):
    """The n-th t-derivative of zeta_g(t) = E erf(t + gZ)^2 (`docs/MATH.md` §4) by mpmath quadrature of its definition
    (differentiated under E by hand: erf' = 2 exp(-x^2) / sqrt(pi), erf'' = -2x erf'), not the closed form."""
    e1 = lambda x: 2 * mpmath.exp(-x * x) / mpmath.sqrt(mpmath.pi)
    h = [lambda x: mpmath.erf(x) ** 2, lambda x: 2 * mpmath.erf(x) * e1(x),
         lambda x: 2 * e1(x) ** 2 - 4 * x * mpmath.erf(x) * e1(x)][n]
    f = lambda z: h(t + g * z) * mpmath.exp(-z * z / 2)
    return mpmath.quad(f, [-mpmath.inf, -12, -6, -3, 0, 3, 6, 12, mpmath.inf]) / mpmath.sqrt(2 * mpmath.pi)


def _R_mp(kappa, nu, lam, count=5):
    """Lemma 6's R on M minus its constant (`docs/MATH.md` §9) and its partials (R, R_k, R_n, R_kk, R_kn), in mpmath; the
    chain rule by hand (R_nn = 0). The first ``count`` of them (the quadratures of only the zeta derivatives they need:
    R needs zeta, R_k zeta', R_kk zeta'')."""
    g2 = mpmath.mpf(GAMMA) ** 2
    A = lam * mpmath.sqrt(mpmath.mpf(D) / 2)
    b = A / mpmath.sqrt(1 + 2 * lam**2 * g2)
    g = lam * mpmath.mpf(GAMMA)
    e1 = 2 * mpmath.exp(-(b * kappa) ** 2) / mpmath.sqrt(mpmath.pi)
    z = [_zeta_mp(A * kappa, g, n) for n in range((0, 1, 2, 2, 3, 3)[count])]
    out = [lambda: g2 * (z[0] - 2 * nu * mpmath.erf(b * kappa)), lambda: g2 * (A * z[1] - 2 * nu * b * e1),
           lambda: -2 * g2 * mpmath.erf(b * kappa), lambda: g2 * (A**2 * z[2] + 4 * nu * b**3 * kappa * e1),
           lambda: -2 * g2 * b * e1]
    return tuple(f() for f in out[:count])


def _close(ball, ref):
    """The float of the ball's midpoint within its radius and two ulps of the float of ref (each rounded to nearest)."""
    return abs(float(ball.mid()) - float(ref)) <= float(ball.rad()) + 2 * math.ulp(float(ref))


@pytest.mark.parametrize("kappa,nu", [(0.3, 0.7), (0.9, 0.99), (0.6, -0.4)])
def test_kernels_agree_with_mpmath(kappa, nu):
    """G = R - R(0, 0), |Pg|^2 and R - R* at lam = 0.1 from mpmath (30 digits) lie in the kernels' balls, compared as
    floats (each side rounded to nearest: two ulps of the value)."""
    K = kernels("lojasiewicz")
    with mpmath.workdps(30):
        lam = mpmath.mpf("0.1")
        R, Rk, Rn = _R_mp(kappa, nu, lam, 3)
        G = R - _R_mp(0, 0, lam, 1)[0]
        pg2 = (1 - mpmath.mpf(kappa) ** 2) * Rk**2 + (1 - mpmath.mpf(nu) ** 2) * Rn**2
        gap = R - _R_mp(1, 1, lam, 1)[0]
    old = ctx.prec
    ctx.prec = 128
    try:
        par = (arb(GAMMA), arb(D))
        x = (arb(kappa), arb(nu), arb("0.1"))
        balls = {"G": K.saddle(*x, *par)[0], "|Pg|^2": K.ratio(*x, *par, arb(0))[0],
                 "R - R*": K.ratio(*x, *par, arb(0))[0] - K.ratio(*x, *par, arb(1))[0]}
    finally:
        ctx.prec = old
    for name, ref in (("G", G), ("|Pg|^2", pg2), ("R - R*", gap)):
        assert _close(balls[name], ref), (name, balls[name], ref)


def test_corner_hessian_agrees_with_mpmath():
    """The angle Hessian of R(cos phi, cos psi) at (phi, psi) = (0.1, 0.2), lam = 0.1: d^2/dphi^2 = sin^2 R_kk - cos R_k,
    d^2/dphi dpsi = sin sin R_kn, d^2/dpsi^2 = -cos R_n, from mpmath's partials."""
    with mpmath.workdps(30):
        lam, p, q = mpmath.mpf("0.1"), mpmath.mpf(0.1), mpmath.mpf(0.2)
        _, Rk, Rn, Rkk, Rkn = _R_mp(mpmath.cos(p), mpmath.cos(q), lam)
        ref = [mpmath.sin(p) ** 2 * Rkk - mpmath.cos(p) * Rk, mpmath.sin(p) * mpmath.sin(q) * Rkn, -mpmath.cos(q) * Rn]
    old = ctx.prec
    ctx.prec = 128
    try:
        out = kernels("lojasiewicz").corner_hessian(arb(0.1), arb(0.2), arb("0.1"), arb(GAMMA), arb(D))
    finally:
        ctx.prec = old
    for ball, r in zip(out, ref):
        assert _close(ball, r), (ball, r)


# ------------------------------------------------------------------------------ the corner test's constants pinned

def _corner_verdict(box, mu, par=None):
    """The corner leaf test (:func:`slr_verify.checker.rate._corner`) at 128 bits: True if it passes."""
    from slr_verify.checker.rate import _corner

    old = ctx.prec
    ctx.prec = 128
    try:
        _corner(box, par if par is not None else S.P.kw("gamma", "d"), mu, "corner probe")
        return True
    except Rejected as e:
        assert "corner test fails" in str(e)
        return False
    finally:
        ctx.prec = old


def test_the_corner_test_is_sharp_at_the_minimum_and_its_outside_is_false():
    """At the minimum (1, 1) the angle Hessian is diag(a, e), a = -R_k(1, 1), e = -R_n(1, 1) (mpmath quadrature, 30
    digits: a = 0.01069 < e = 0.953 at lam = 0.1), and |Pg|^2 >= mu (R - R*) holds near it iff mu <= 2 a. On the corner
    box [1 - 1e-10, 1]^2 x [0.1, 0.1 + ulp] the corner test passes at mu = 2a (1 - 1e-4) and fails at 2a (1 + 1e-4); at
    the latter the inequality is false at (cos 1e-5, 1), a point of the box (and of S_delta: R - R* = 5e-13 there), by
    mpmath. Pins the corner matrix's mu a / 2 (mu a / 3 accepts the false case: issue 45) and its 'and'."""
    with mpmath.workdps(30):
        lam, g2 = mpmath.mpf(0.1), mpmath.mpf(GAMMA) ** 2
        A = lam * mpmath.sqrt(mpmath.mpf(D) / 2)
        b = A / mpmath.sqrt(1 + 2 * lam**2 * g2)
        # R and R_k on nu = 1 (as in _R_mp, without its second derivatives), R_n(1, 1) = -2 gamma^2 erf(b)
        R_ = lambda k: g2 * (_zeta_mp(A * k, lam * GAMMA) - 2 * mpmath.erf(b * k))
        Rk_ = lambda k: g2 * (A * _zeta_mp(A * k, lam * GAMMA, 1) - 4 * b * mpmath.exp(-(b * k) ** 2) / mpmath.sqrt(mpmath.pi))
        R1, a, e = R_(1), -Rk_(1), 2 * g2 * mpmath.erf(b)
        assert 0 < a < e
        phi = mpmath.mpf("1e-5")
        k = mpmath.cos(phi)
        Rx, Rkx = R_(k), Rk_(k)
        out = 2 * a * (1 + mpmath.mpf("1e-4"))
        F = (1 - k**2) * Rkx**2 - out * (Rx - R1)  # |Pg|^2 - mu (R - R*) at (k, 1): R_n is not needed as 1 - nu^2 = 0
        assert F < 0 and 0 < Rx - R1 < 1e-12
    h = 1e-10
    assert float(k) >= 1 - h
    box = ((1 - h, 1.0), (1 - h, 1.0), (0.1, math.nextafter(0.1, 1.0)))
    assert _corner_verdict(box, float(2 * a * (1 - mpmath.mpf("1e-4"))))
    assert not _corner_verdict(box, float(out))


class _Fixed:
    """A stand-in for the premise's kernels: corner_hessian returns the given (a, c, e) balls."""

    def __init__(self, a, c, e):
        self.ace = (a, c, e)

    def corner_hessian(self, *args, **kw):
        return self.ace


#: (a, c, e) point Hessians with eigenvalues 1/2 and 1 (rotated by 0.3: c != 0) and with 1/2 and -0.2; mu* = 1 in both
#: (every matrix H^2 - mu H / 2 with H's eigenvalues lam_i has eigenvalues lam_i (lam_i - mu / 2): PSD iff mu <= 1)
_ROTATED = [(0.5, 1.0, 0.3), (0.5, -0.2, 1.1)]


@pytest.mark.parametrize("l1, l2, th", _ROTATED)
def test_the_corner_decision_is_the_psd_test_of_h1_squared_minus_mu_h2_over_2(monkeypatch, l1, l2, th):
    """The corner test's algebra on exact Hessians H (a stand-in kernel): it passes at mu = 0.999 and fails at 1.001
    where the eigenvalues of H^2 - mu H / 2, computed by mpmath (40 digits) from H's float entries, are >= 0 and < 0.
    Pins the three entries' constants and the off-diagonal one (c != 0) and the test's three conjuncts."""
    import slr_verify.checker.rate as rate

    with mpmath.workdps(40):
        c_, s_ = mpmath.cos(th), mpmath.sin(th)
        H = [[float(l1 * c_**2 + l2 * s_**2), float((l1 - l2) * c_ * s_)], [0, float(l1 * s_**2 + l2 * c_**2)]]
        a, c, e = H[0][0], H[0][1], H[1][1]
        Hm = mpmath.matrix([[a, c], [c, e]])
        least = lambda mu: min(mpmath.eigsy(Hm * Hm - mpmath.mpf(mu) * Hm / 2)[0])
        assert least(0.999) > 0 and least(1.001) < 0
    monkeypatch.setattr(rate, "kernels", lambda name: _Fixed(arb(a), arb(c), arb(e)))
    box = ((0.5, 1.0), (0.5, 1.0), PIECE)
    assert _corner_verdict(box, 0.999, par={}) and not _corner_verdict(box, 1.001, par={})


def test_the_corner_matrix_holds_every_h1_squared_minus_mu_h2_over_2(monkeypatch):
    """The interval matrix (q11, q12, q22) contains H1^2 - mu H2 / 2 for H1, H2 symmetric with entries at any ends of
    the enclosures a, c, e (64 choices, each end moved 1e-25 inwards; mpmath, 50 digits): the mean-value argument's set,
    H1 and H2 independent. Pins each entry's mu/2 (with /3 the lower end of q11 and q22 or the upper end of q12 misses
    a matrix of the set)."""
    import itertools

    import slr_verify.checker.rate as rate

    balls = (arb(0.3, 0.05), arb(0.01, 0.2), arb(0.9, 0.1))  # a, c (around 0, as on a corner box), e
    mu = 0.7
    monkeypatch.setattr(rate, "kernels", lambda name: _Fixed(*balls))
    old = ctx.prec
    ctx.prec = 128
    try:
        q = rate.corner_matrix(((0.5, 1.0), (0.5, 1.0), PIECE), {}, mu)
    finally:
        ctx.prec = old
    with mpmath.workdps(50):
        ends = []
        for b in balls:
            m, r = mpmath.mpf(b.mid().str(60, radius=False)), mpmath.mpf(b.rad().str(60, radius=False))
            ends.append((m - r * (1 - mpmath.mpf("1e-25")), m + r * (1 - mpmath.mpf("1e-25"))))
        inside = lambda ball, x: mpmath.mpf(ball.lower().str(60, radius=False)) <= x <= mpmath.mpf(
            ball.upper().str(60, radius=False))
        for (a1, c1, e1), (a2, c2, e2) in itertools.product(itertools.product(*ends), repeat=2):
            M = (a1 * a1 + c1 * c1 - mu * a2 / 2, c1 * (a1 + e1) - mu * c2 / 2, c1 * c1 + e1 * e1 - mu * e2 / 2)
            assert all(inside(ball, x) for ball, x in zip(q, M)), (a1, c1, e1, a2, c2, e2)


# ------------------------------------------------------------------------------ a sound rate is never beaten

def _gap_float(kappa, nu, lam):
    """R - R* in float64, complement form (premise ``lojasiewicz``): gamma^2 [zetac(A|kappa|) - zetac(A)
    + 2 (1 - s nu) erf(b |kappa|)], s = sign(kappa) (R is even under (kappa, nu) -> (-kappa, -nu)). Returns (value,
    M): M is the sum of the magnitudes of the three terms, for the error bound."""
    from scipy.special import erf

    from slr_verify.kernels.special import zetac

    g2 = GAMMA**2
    A = lam * math.sqrt(D / 2)
    b = A / math.sqrt(1 + 2 * lam**2 * g2)
    s = np.where(kappa < 0, -1.0, 1.0)
    k, v = s * kappa, s * nu
    terms = (g2 * zetac(A * k, lam * GAMMA), g2 * zetac(A, lam * GAMMA), 2 * g2 * (1 - v) * erf(b * k))
    return terms[0] - terms[1] + terms[2], sum(abs(t) for t in terms)


@lru_cache(maxsize=1)
def _committed_pieces_json():
    """The committed theorem-5 certificate's pieces (read, not replayed here: the claims' tests replay it, test_report's
    fast mode, and test_binding binds it; read once, with the standard library), as JSON text."""
    from importlib import resources

    raw = (resources.files("slr_verify.certificates") / "theorem5_fig4b.json.gz").read_bytes()
    return json.dumps(json.loads(gzip.decompress(raw))["pieces"])


def _committed_pieces():
    """A fresh copy of :func:`_committed_pieces_json`'s pieces (a test may change its own)."""
    return json.loads(_committed_pieces_json())


def _committed_alpha_8(lam):
    """Proposition 8's alpha_8 at ``lam`` as the committed theorem-5 certificate states it."""
    return max(p["alpha_8"] for p in _committed_pieces() if p["lam"][0] <= lam <= p["lam"][1])


def _never_beaten(found):
    """From 100 points of S_delta (uniform in Q, seed 0, kept where the float gap is below R(0, 0) - R* - delta by the
    margin below), reduced PGD at lam = 0.1 and alpha = 1e-3 (below alpha_8 = 0.118 of the committed theorem-5
    certificate's piece [0.084, 0.1], checked below by its replay) satisfies, at every step,
    R(x_{t+1}) - R* <= (1 - alpha mu / 2) (R(x_t) - R*) + E_t.

    The rounding allowance E_t, derived: the float gap (complement form) has error <= eps M (M the sum of its terms'
    magnitudes, eps = 3.4e-13 + 4u: zetac's documented worst relative error, erf's and three additions'), at both
    steps; the float iterate differs from the exact map at the float point by <= (8 + 16 alpha G) u per coordinate
    (eight roundings, and the gradient's own relative error 16u times alpha (1 - x^2) |g| <= alpha G), which moves the
    gap by <= G sqrt(2) (8 + 16 alpha G) u, G = sup_Q |grad R| (`symbolic.fixed_points.gradient_bounds`, < 3 here)."""
    from slr_verify.dynamics import reduced_pgd

    lam, alpha, mu, delta = 0.1, 1e-3, found["mu"][0], found["delta"][0]
    assert alpha <= _committed_alpha_8(lam)
    u, G = 2.0**-53, 3.0
    eps = 3.4e-13 + 4 * u
    rng = np.random.default_rng(0)
    x = rng.uniform(-1, 1, size=(2, 4000))
    gap, M = _gap_float(x[0], x[1], lam)
    gap0, M0 = _gap_float(np.array([0.0]), np.array([0.0]), lam)
    keep = gap + eps * (M + M0) <= gap0 - delta
    x = x[:, keep][:, :100]
    assert x.shape[1] == 100
    tr = reduced_pgd(x[0], x[1], lam=lam, gamma=GAMMA, d=D, L=L, alpha=alpha, steps=1000)
    gaps, Ms = _gap_float(tr.kappa, tr.nu, lam)
    bound = (1 - alpha * mu / 2) * gaps[:-1] + eps * (Ms[:-1] + Ms[1:]) + G * math.sqrt(2) * (8 + 16 * alpha * G) * u
    assert np.all(gaps[1:] <= bound)
    # the test is not vacuous: the certified contraction is used, and somewhere nearly attained relative to mu
    ratio = (gaps[:-1] - gaps[1:]) / (alpha * gaps[:-1])
    assert np.min(ratio) < 100 * mu


@pytest.mark.slow
def test_the_search_passes_the_checker_on_more_pieces():
    r = lojasiewicz([(0.05, 0.06), (0.06, 0.07)], gamma=GAMMA, d=D, L=L)
    assert r["proved"], r["failure"]
    pieces = [{"lam": p, "mu": m, "delta": dl} for p, m, dl in zip([(0.05, 0.06), (0.06, 0.07)], r["mu"], r["delta"])]
    out = _check(r["rate"], pieces)
    assert [o["area_fraction"] for o in out] == r["area_fraction"]


def test_bad_input_raises_value_error():
    for kw, word in (({"pieces": []}, "pieces"), ({"pieces": [(0.2, 0.1)]}, "pieces"), ({"gamma": -1.0}, "gamma"),
                     ({"d": 0}, "d"), ({"prec": 8}, "prec"), ({"budget": 0}, "budget"),
                     ({"delta_fraction": 1.5}, "delta_fraction")):
        args = {"pieces": [PIECE], "gamma": GAMMA, "d": D, "L": L, **kw}
        with pytest.raises(ValueError, match=word):
            lojasiewicz(args.pop("pieces"), **args)


def test_the_certified_step_counts_are_the_least_integers_of_the_committed_rate():
    """steps_to on the committed theorem-5 certificate's rate pieces: E holds R(0, 0) - R* - delta at 5 lam of the piece
    (mpmath's R on M by quadrature of zeta's definition, :func:`_R_mp`); each T is the least integer with
    (1 - alpha mu/2)^T E <= eps (mpmath, 40 digits: the T - 1 before it is above eps); a step above alpha_8 gets
    None, and a target above E gets 0."""
    from slr_verify.certify.rate import steps_to

    pieces = [p for p in _committed_pieces() if p.get("mu") is not None]
    assert pieces
    eps, out = 1e-6, []
    for p in pieces:
        alphas = [4e-3, p["alpha_5"], 2 * p["alpha_8"]]
        (got,) = steps_to([p], eps, alphas, gamma=GAMMA, d=D, L=L)
        out.append(got)
        E = got["excess_bound"]
        for lam in np.linspace(*p["lam"], 5):
            with mpmath.workdps(30):
                lam = mpmath.mpf(lam)
                gap = _R_mp(mpmath.mpf(0), mpmath.mpf(0), lam, 1)[0] - _R_mp(mpmath.mpf(1), mpmath.mpf(1), lam, 1)[0]
                assert gap - p["delta"] <= E
        assert got["steps"][2] is None
        with mpmath.workdps(40):
            for a, T in zip(alphas[:2], got["steps"][:2]):
                f = 1 - mpmath.mpf(a) * mpmath.mpf(p["mu"]) / 2
                assert T > 0 and f**T * E <= eps < f ** (T - 1) * E, (p["lam"], a, T)
        assert steps_to([p], 2 * E, [4e-3], gamma=GAMMA, d=D, L=L)[0]["steps"] == [0]
    assert steps_to([{"lam": PIECE, "mu": None}], eps, [1e-3], gamma=GAMMA, d=D, L=L) == [None]
    for bad in (0.0, -1.0, float("nan"), True):
        with pytest.raises(ValueError, match="eps"):
            steps_to(pieces, bad, [1e-3], gamma=GAMMA, d=D, L=L)
    with pytest.raises(ValueError, match="alphas"):
        steps_to(pieces, eps, [0.0], gamma=GAMMA, d=D, L=L)
