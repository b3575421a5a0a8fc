"""Capture certificates of constant-lam PGD (docs/MATH.md section 13, "Where PGD goes").

Expected values come from routes independent of the arb kernels the certificates use: the
full-dimensional PGD in R^400 (vectors, not overlaps), the compiled five-overlap runner, and the
quadrature route of the risk (mpmath, from the definition)."""
import math

import mpmath
import numpy as np
import pytest
from paper import FIG4B, G4B

from slr_verify.certify.basins import classify_runs, sample_basins
from slr_verify.certify.capture import contraction_ball
from slr_verify.dynamics.runners import overlap_pgd, pgd
from slr_verify.landscape import StationaryPoint, classify, realise
from slr_verify.landscape.basins import NONCONVERGENT, UNCLASSIFIED, stable_at

FIELDS = ("kappa", "nu", "theta", "eta", "rho")
#: a state of the 2-cycle at lam = 0.5, alpha = 4e-3 (Figure 4b's step), read off a sphere-initialised run
CYCLE_GUESS = (-0.237262, -0.999927, 0.011627, 0.003321, -0.009235)
MIRROR = (1, 1, -1, -1, -1)


def _vectors(ov, d):
    """k*, v*, k, v in R^d realising the overlaps ``ov`` (R^4 realisation padded with zeros)."""
    X = np.array(realise(ov).tolist(), dtype=float)
    out = np.zeros((4, d))
    out[:, :4] = X
    return out / np.linalg.norm(out, axis=1)[:, None]


@pytest.fixture(scope="module")
def cycle_ball():
    return contraction_ball(CYCLE_GUESS, MIRROR, lam=0.5, alpha=FIG4B.alpha, **G4B)


def test_two_cycle_ball_is_proved(cycle_ball):
    b = cycle_ball
    assert b.proved and b.period == 2, b.reason
    assert b.r0 + b.q < 1 and b.radius > 0


def test_two_cycle_is_a_two_cycle_of_full_dimensional_pgd(cycle_ball):
    """The ball's centre c solves sigma Phi(c) = c: the full-dimensional PGD in R^400 (vectors, not the
    overlap map) sends c to its mirror image sigma c in one step and back in two."""
    c = cycle_ball.centre
    ks, vs, k, v = _vectors(c, FIG4B.d)
    tr = pgd(k, v, ks, vs, lam=0.5, gamma=FIG4B.gamma, L=FIG4B.L, alpha=FIG4B.alpha, steps=2)
    one = np.array([tr[f][1] for f in FIELDS])
    two = np.array([tr[f][2] for f in FIELDS])
    assert np.max(np.abs(one - np.array(MIRROR) * c)) < 1e-10
    assert np.max(np.abs(two - c)) < 1e-10
    assert np.max(np.abs(one - c)) > 1e-3  # a genuine 2-cycle, not a fixed point


def test_two_cycle_ball_contracts_under_the_compiled_runner(cycle_ball):
    """A realisable point of the ball as far out as possible along one of its axes, run by the compiled
    five-overlap runner (not the arb kernels): after 2n steps its distance to c in the ball's norm is at most
    q^(2n) (its initial distance) + the centre's offset from the true fixed point (r0 radius / (1 - q))."""
    from slr_verify.model import validation as V

    b = cycle_ball

    def realisable(x):
        try:
            V.overlaps(*x)
            return True
        except ValueError:
            return False

    cands = [(s, b.centre + sg * s * b.radius * b.T[:, j]) for s in (0.9, 0.5, 0.2, 0.1) for j in range(5) for sg in (1, -1)]
    s0, x0 = next((s, x) for s, x in cands if realisable(x) and b.contains(x[:, None])[0])
    n2 = 2000
    tr = overlap_pgd(tuple(x0), lam=0.5, alpha=FIG4B.alpha, steps=n2, every=n2, **G4B)
    x = np.array([tr[f][-1] for f in FIELDS])
    y = np.linalg.solve(b.T, x - b.centre)
    dist = max(np.linalg.norm(y[list(g)]) for g in b.groups)
    bound = b.q**n2 * s0 * b.radius + b.r0 * b.radius / (1 - b.q)
    assert dist <= bound
    assert dist < 0.5 * s0 * b.radius  # and the bound is not vacuous here


#: the oracle's Riemannian Hessian at lam = 0.15 (Figure 4b's model): core and block eigenvalues as classify
#: gives them at 40 digits; the largest, 492.17329003769066, is the top eigenvalue of the off-M block B whose
#: closed-form det and trace the window tests check (test_oracle_point_at_015 below recomputes all, slow)
ORACLE_015 = dict(core=[1.07577170e-04, 1.07577170e-04, 3.75764300e-01, 9.96990922e-01, 9.96990922e-01, 492.17329003769066],
                  block=[1.07577170e-04, 9.96990922e-01])


@pytest.fixture(scope="module")
def oracle015():
    """The oracle at lam = 0.15 as a stationary point, from the literal spectrum above (classify's mpmath
    kernels take ~10 s to generate: the slow test below checks the literal against them)."""
    return StationaryPoint(np.array([1.0, 1, 0, 0, 0]), float("nan"), "minimum", 0, 0, np.array(ORACLE_015["core"]),
                           np.array(ORACLE_015["block"]), 0.0, 40, name="oracle")


@pytest.mark.slow
def test_oracle_point_at_015(oracle015):
    p = classify((1, 1, 0, 0, 0), lam=0.15, **G4B)
    assert p.kind == "minimum" and p.name == "oracle"
    assert np.allclose(np.sort(p.core), np.sort(oracle015.core), rtol=1e-8)
    assert np.allclose(np.sort(p.block), np.sort(oracle015.block), rtol=1e-8)


def test_stability_at_alpha_matches_the_runner(oracle015):
    """stable_at(oracle, alpha) at lam = 0.15: its largest Riemannian Hessian eigenvalue is ~492, so PGD is
    stable there at alpha = 4e-3 (< 2/492) and unstable at 4.5e-3. Checked by the compiled runner from a
    realisable point 1e-6 off the oracle: the perturbation decays at 4e-3 and grows at 4.5e-3."""
    assert stable_at(oracle015, 4e-3) and not stable_at(oracle015, 4.5e-3)
    k, v = np.array([1.0, 1e-6, 2e-6, 0]), np.array([1.5e-6, 1.0, -1e-6, 1e-6])
    k, v = k / np.linalg.norm(k), v / np.linalg.norm(v)
    x0 = (k[0], v[1], v[0], k[1], k @ v)
    for alpha, grows in ((4e-3, False), (4.5e-3, True)):
        tr = overlap_pgd(x0, lam=0.15, alpha=alpha, steps=400, every=400, **G4B)
        off = max(abs(tr[f][-1]) for f in ("theta", "eta", "rho"))
        assert (off > 1e-5) == grows, (alpha, off)


@pytest.fixture(scope="module")
def planted(oracle015):
    """classify_runs at lam = 0.15, alpha = 4e-3 (the oracle stable: largest Hessian eigenvalue 492 < 500)
    on three planted states: in the valley at kappa = 0.95 (and its mirror image at kappa = -0.95, nu = -1),
    and a generic state that PGD does not map near a mirror image of itself."""
    lam = 0.15
    orc = oracle015
    ends = np.array([[0.95, 1.0, 1e-12, -1e-12, 2e-12], [-0.95, -1.0, -1e-12, 1e-12, 2e-12],
                     [0.3, 0.2, 0.1, 0.1, 0.05]]).T
    for x in ends.T:
        realise(tuple(x))  # realisable
    return lam, classify_runs(ends, np.zeros(3, dtype=bool), [orc], lam=lam, alpha=FIG4B.alpha, max_balls=2, **G4B)


def test_valley_runs_are_classified_to_the_oracle(planted):
    lam, cl = planted
    assert list(cl.labels[:2]) == ["oracle", "oracle"] and list(cl.how[:2]) == ["valley", "valley"]
    tube = cl.extra["valley_tube"]
    assert tube.proved and tube.q < 1 and all(tube.proofs.values())


def test_valley_drift_by_quadrature(planted):
    """The tube's kappa drift rests on dR/dkappa < 0 on the edge nu = 1 (SymPy's factorisation); the
    quadrature route (the risk from its definition, 40 digits) confirms R decreases from kappa = 0.95."""
    from slr_verify.routes.quadrature import quad_risk

    lam, _ = planted
    kw = dict(lam=lam, gamma=G4B["gamma"], eps=0.0, d=G4B["d"], L=G4B["L"], dps=40)
    with mpmath.workdps(40):
        r0 = quad_risk(0.95, 1, 0, 0, 0, **kw)
        r1 = quad_risk(0.96, 1, 0, 0, 0, **kw)
    assert r1 < r0


def test_a_state_outside_every_region_is_not_classified(planted):
    _, cl = planted
    assert cl.labels[2] == UNCLASSIFIED and cl.how[2] == "none"
    assert cl.certificates[UNCLASSIFIED][0]["kind"] == "none"


def test_capture_bad_input():
    with pytest.raises(ValueError, match="sigma"):
        contraction_ball(CYCLE_GUESS, (1, -1, 1, 1, 1), lam=0.5, alpha=4e-3, **G4B)
    with pytest.raises(ValueError, match="alpha"):
        contraction_ball(CYCLE_GUESS, MIRROR, lam=0.5, alpha=-1.0, **G4B)


@pytest.mark.slow
@pytest.mark.parametrize("lam", [0.5, 1.5])
def test_every_run_accounted_for_at_figure_4b_step(lam):
    """200 sphere starts at Figure 4b's setting and step (alpha = 4e-3): no run left "not converged" or
    unclassified, and within the 10-minute budget. At lam = 0.5 every run is captured by a proved ball
    (2-cycles); at lam = 1.5 no listed stationary point is stable at this alpha."""
    import time

    t0 = time.perf_counter()
    rates, _, _, _, cl = sample_basins(0, 200, lam=lam, alpha=FIG4B.alpha, steps=FIG4B.steps, details=True, **G4B)
    assert time.perf_counter() - t0 < 600
    assert not {"not converged", "unmatched", UNCLASSIFIED} & set(rates)
    assert sum(v["count"] for v in rates.values()) == 200
    if lam == 0.5:
        assert set(cl.how) == {"captured"}
    else:
        assert set(rates) == {NONCONVERGENT}
    assert math.isclose(sum(v["rate"] for v in rates.values()), 1.0)


# ---------------------------------------------------------------------------------------------
# realisability of the states a region is asked about; the symmetry premise of the 2-cycle argument
# ---------------------------------------------------------------------------------------------

#: k = k*, v = v* forces theta = v.k* = v*.k* = 0: (1, 1, 1, 0, 0) is no state of the model
UNREALISABLE = {"theta = 1 at k = k*, v = v*": (1.0, 1.0, 1.0, 0.0, 0.0),
                "rho = 0.99 at kappa = nu = 0.5": (0.5, 0.5, 0.0, 0.0, 0.99),
                "rho above 1": (0.0, 0.0, 0.0, 0.0, 1.0 + 1e-6)}


def _gram_min_eig(ov):
    """Smallest eigenvalue of the 4 x 4 Gram matrix of (k*, v*, k, v), written out from the definitions of the
    overlaps (kappa = k.k*, nu = v.v*, theta = v.k*, eta = k.v*, rho = k.v) and solved by LAPACK."""
    kappa, nu, theta, eta, rho = ov
    G = np.array([[1, 0, kappa, theta], [0, 1, eta, nu], [kappa, eta, 1, rho], [theta, nu, rho, 1]], dtype=float)
    return float(np.linalg.eigvalsh(G)[0])


@pytest.mark.parametrize("case", list(UNREALISABLE))
def test_contains_refuses_unrealisable_tuples(case, cycle_ball, planted):
    """Route: the 4 x 4 Gram matrix of (k*, v*, k, v) written out from the overlaps' definitions and diagonalised by
    LAPACK (not the package's closed-form Schur test) has a negative eigenvalue, so no unit k, v exist; both regions
    refuse the tuple (and its image under the mirror symmetry, still unrealisable) with a ValueError naming ``ov``
    instead of answering."""
    ov = UNREALISABLE[case]
    assert _gram_min_eig(ov) < -1e-7 or max(abs(x) for x in ov) > 1
    tube = planted[1].extra["valley_tube"]
    for region in (cycle_ball, tube):
        with pytest.raises(ValueError, match=r"ov must be realisable"):
            region.contains(np.array(ov))
        with pytest.raises(ValueError, match=r"ov must be realisable"):  # hidden among realisable columns
            region.contains(np.c_[cycle_ball.centre, np.array(MIRROR) * np.array(ov)])


def test_contains_refuses_a_malformed_state_array(cycle_ball, planted):
    """Route: the contract of the package's validators (``ValueError`` naming the parameter): a (2, 5) array is
    not five rows of overlaps (it used to be reshaped silently into scrambled columns), NaN is no state."""
    tube = planted[1].extra["valley_tube"]
    for region in (cycle_ball, tube):
        for bad in (np.full((2, 5), 0.1), np.full(5, np.nan), "0.5"):
            with pytest.raises(ValueError, match="ov"):
                region.contains(bad)
        assert region.contains(np.zeros((5, 0))).shape == (0,)


def test_contains_accepts_the_states_of_real_runs(cycle_ball, planted):
    """Route: states that come from unit vectors, so realisable by construction, including rank-deficient ones on
    the boundary of the realisable set: the compiled five-overlap runner's state after 2000 steps from the
    2-cycle's guess (captured by the ball), the oracle k = k*, v = v* (Gram rank 2), a point of the edge
    nu = 1 of M (rank 3), and the overlaps of float64 unit vectors of R^400 one rounding away from the oracle.
    None is refused; the edge points are in the valley tube."""
    tr = overlap_pgd(CYCLE_GUESS, lam=0.5, alpha=FIG4B.alpha, steps=2000, every=2000, **G4B)
    x = np.array([tr[f][-1] for f in FIELDS])
    assert cycle_ball.contains(x)[0] or cycle_ball.contains(np.array(MIRROR) * x)[0]
    rng = np.random.default_rng(0)
    d = FIG4B.d
    ks, vs = np.eye(d)[0], np.eye(d)[1]
    k = ks + 1e-9 * rng.standard_normal(d)
    v = vs + 1e-9 * rng.standard_normal(d)
    k, v = k / np.linalg.norm(k), v / np.linalg.norm(v)
    near = np.array([k @ ks, v @ vs, v @ ks, k @ vs, k @ v])
    edge = np.array([[1.0, 1, 0, 0, 0], [0.95, 1, 0, 0, 0], near]).T
    tube = planted[1].extra["valley_tube"]
    assert list(tube.contains(edge)) == [True, True, True]
    assert cycle_ball.contains(edge).shape == (3,)


def test_sigma_equivariance_is_proved_for_every_symmetry_the_regions_use(cycle_ball):
    """Route: SymPy, exact identities on Theorem 1's derived gradient and the derived five-overlap map (the
    expressions the kernels are generated from): Phi(sigma o) = sigma Phi(o) for all parameters, for the three
    non-identity sign patterns; they are the patterns of ``SYMMETRIES`` the classification uses. The 2-cycle ball
    carries the statements as its premise."""
    from slr_verify.kernels.landscape import sigma_equivariance_proofs
    from slr_verify.landscape import SYMMETRIES

    proofs = sigma_equivariance_proofs()
    assert proofs and all(proofs.values()), [k for k, v in proofs.items() if not v]
    for s in SYMMETRIES[1:]:
        lab = "(" + ", ".join("+" if x > 0 else "-" for x in s) + ")"
        assert any(k.startswith(f"sigma = {lab}: Phi(sigma o) = sigma Phi(o)") for k in proofs), lab
    assert cycle_ball.premises == sigma_equivariance_proofs(MIRROR)
    assert cycle_ball.as_dict()["premises"]["tier"] == "proved (symbolic)"


def test_sigma_equivariance_check_detects_a_false_symmetry():
    """Route: the same SymPy check on a sign pattern that is *not* a symmetry, theta -> -theta alone (v is reflected
    in k* with k, v* kept: rho = k.v would have to change too), is not proved; and the float64 kernels show that
    it is really false, not merely unproved: at a generic realisable point Phi(sigma' o) and sigma' Phi(o) differ
    by far more than round-off, while for the mirror pattern they agree to round-off."""
    from slr_verify.kernels.landscape import sigma_equivariance_proofs
    from slr_verify.landscape.overlap_map import pgd_map

    flip_theta = (1, 1, -1, 1, 1)
    proofs = sigma_equivariance_proofs(flip_theta)
    assert not proofs["sigma = (+, +, -, +, +): Phi(sigma o) = sigma Phi(o) (composition of grad R's and F's equivariance)"]
    assert not proofs["sigma = (+, +, -, +, +): R(sigma o) = R(o)"]
    kw = dict(lam=0.5, alpha=FIG4B.alpha, **G4B)
    o = np.array([0.3, 0.4, 0.2, 0.1, 0.15])
    assert _gram_min_eig(o) > 0.1 and _gram_min_eig(np.array(flip_theta) * o) > 0.1  # both realisable
    for s, differs in ((flip_theta, True), (MIRROR, False)):
        s = np.array(s, dtype=float)
        lhs = pgd_map(s * o, (1,) * 5, **kw)[0]
        rhs = s * pgd_map(o, (1,) * 5, **kw)[0]
        assert (np.max(np.abs(lhs - rhs)) > 1e-4) == differs, (s, lhs - rhs)
    with pytest.raises(ValueError, match="sigma"):
        sigma_equivariance_proofs((1, 1, 2, 1, 1))


@pytest.mark.parametrize("sigma", [(-1, -1, -1, -1, 1), (1, 1, -1, -1, -1), (-1, -1, 1, 1, -1)])
def test_symmetry_commutes_with_full_dimensional_pgd(sigma):
    """Route: full-dimensional PGD in R^400 (vectors, not the overlap map): the isometries (k, v) -> (-k, -v),
    (k, v) -> (Sk, -Sv) (S the reflection reversing v*) and their product, applied to the vectors, commute with
    PGD steps; on the overlaps they act by the sign patterns the SymPy proof covers."""
    d = FIG4B.d
    rng = np.random.default_rng(1)
    ks, vs = np.eye(d)[0], np.eye(d)[1]
    k, v = rng.standard_normal(d), rng.standard_normal(d)
    k, v = k + 3 * ks + vs, v + 2 * vs - ks
    k, v = k / np.linalg.norm(k), v / np.linalg.norm(v)
    S = np.eye(d)
    S[1, 1] = -1
    images = {(-1, -1, -1, -1, 1): (-k, -v), (1, 1, -1, -1, -1): (S @ k, -S @ v), (-1, -1, 1, 1, -1): (-S @ k, S @ v)}
    kw = dict(lam=0.5, gamma=FIG4B.gamma, L=FIG4B.L, alpha=FIG4B.alpha, steps=3)
    a = pgd(k, v, ks, vs, **kw)
    b = pgd(*images[sigma], ks, vs, **kw)
    for t in range(4):
        x = np.array([a[f][t] for f in FIELDS])
        y = np.array([b[f][t] for f in FIELDS])
        assert np.max(np.abs(y - np.array(sigma) * x)) < 1e-12, (t, y - np.array(sigma) * x)


def test_contraction_ball_refuses_a_two_cycle_without_the_premise(monkeypatch):
    """Route: the certificate's logic itself: with the symmetry premise reported unproved, no 2-cycle ball is
    certified (it would rest on Phi^n = sigma^n G^n), and the reason names the premise; the identity pattern
    needs no premise."""
    from slr_verify.certify import capture

    monkeypatch.setattr(capture, "sigma_equivariance_proofs", lambda sigma=None: {"a statement": False})
    b = contraction_ball(CYCLE_GUESS, MIRROR, lam=0.5, alpha=FIG4B.alpha, **G4B)
    assert not b.proved and "Phi(sigma o) = sigma Phi(o) is not proved" in b.reason
    assert not b.contains(np.array(CYCLE_GUESS)).any()
    assert b.as_dict()["premises"]["tier"] == "not proved"


def test_mirror_images_need_the_premise(monkeypatch, oracle015):
    """Route: the classification's logic: the mirror image (kappa, nu) = (-0.95, -1) of a valley state is captured
    only through the symmetry; with the premise reported unproved it is left unclassified, the state itself is
    still in the valley (the tube needs no symmetry)."""
    from slr_verify.certify import basins

    monkeypatch.setattr(basins, "sigma_equivariance_proofs", lambda sigma=None: {"a statement": False})
    ends = np.array([[0.95, 1.0, 1e-12, -1e-12, 2e-12], [-0.95, -1.0, -1e-12, 1e-12, 2e-12]]).T
    cl = classify_runs(ends, np.zeros(2, dtype=bool), [oracle015], lam=0.15, alpha=FIG4B.alpha, max_balls=0, **G4B)
    assert list(cl.how) == ["valley", "none"]


def test_classify_runs_refuses_unrealisable_ends(oracle015):
    """Route: the Gram matrix of the written-out overlaps (as above): an end state (1, 1, 1, 0, 0) is no state of a
    run; classify_runs refuses it by naming ``ends`` before any certificate is built."""
    ends = np.array([[0.95, 1.0, 0, 0, 0], UNREALISABLE["theta = 1 at k = k*, v = v*"]]).T
    with pytest.raises(ValueError, match="ends must be realisable"):
        classify_runs(ends, np.zeros(2, dtype=bool), [oracle015], lam=0.15, alpha=FIG4B.alpha, **G4B)
