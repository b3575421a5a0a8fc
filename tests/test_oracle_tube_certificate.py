"""The oracle tube as an ``oracle-tube`` certificate (docs/MATH.md section 13, "A tube around M"; docs/certificates.md):
Theorem 5 in a tube around M near the oracle, written by :func:`slr_verify.certify.oracle_tube` at a setting of no
figure of the paper (gamma^2 = 0.8, d = 200, L = 6), replayed by the checker, its constants pinned, its forgeries
rejected.

Independent routes: NumPy's spectral norm of T^-1 (the Euclidean radius's flip), central differences of one float64
step of the NumPy runner (the transverse block's spectral radius against the stated q, the drift rows against C), and
full-dimensional PGD in R^200 from starts inside the tube (the certified contraction and D_m never left)."""
import math

import numpy as np
import pytest
from documents import clone, rejected, restated

from slr_verify import pgd
from slr_verify.certify import oracle_tube
from slr_verify.checker import replay
from slr_verify.checker.binding import proves
from slr_verify.dynamics import fixed_points as F

OWN = dict(gamma=math.sqrt(0.8), d=200, L=6)
LAM, ALPHA, CORNER = 0.05, 4e-3, 0.9


@pytest.fixture(scope="module")
def tube():
    t = oracle_tube(lam=LAM, alpha=ALPHA, D=((CORNER, 1.0), (CORNER, 1.0)), **OWN)
    assert t.proved, t.reason
    return t


@pytest.fixture(scope="module")
def doc(tube):
    return tube.certificate


def _at(doc, **fields):
    d = clone(doc)
    d.update(fields)
    return replay(restated(d))


def test_the_tube_is_accepted_and_states_exactly_its_region_and_radii(doc, tube):
    r = replay(doc)
    assert r.accepted, r.reason
    (k_lo, one), (n_lo, _) = doc["domain"]["kappa"], doc["domain"]["nu"]
    assert one == 1.0 and k_lo + doc["margin"] <= CORNER and n_lo + doc["margin"] <= CORNER
    for text in (f"kappa_0 - m >= {k_lo!r}", f"|T^-1 y_0|_2 <= {doc['entry']!r}", f"every |y_0|_2 <= {doc['euclidean']!r}",
                 f"lam = {LAM!r} (within one ulp)", f"alpha = {ALPHA!r}", f"{doc['q']!r}^t"):
        assert text in r.conclusion, text
    assert r.values["premises"]["named"] == ("pgd-map", "edge-invariance", "zeta-partials")
    assert proves(r, kind="oracle-tube", setting=dict(OWN, eps=0.0), lam=LAM,
                  domain={"alpha": ALPHA, "tube": {"corner": CORNER, "radius": tube.euclidean_entry()}})[0]
    assert not proves(r, kind="oracle-tube", setting=dict(OWN, eps=0.0, d=400), lam=LAM)[0]  # another setting
    assert not proves(r, kind="oracle-tube", setting=dict(OWN, eps=0.0), lam=LAM, domain={"alpha": 2 * ALPHA})[0]


def test_the_entry_test_is_sharp_at_m_one_minus_q_over_c(doc):
    """entry bisected (40 replays) between the certificate's (accepted) and twice it (rejected): the flip lies at
    m (1 - q) / C to 1e-9 relative, C the checker's own bound (what is pinned is the test's form r_0 C <= m (1 - q))."""
    C = replay(doc).values["C"]
    lo, hi = doc["entry"], 2 * doc["entry"]
    assert _at(doc, entry=lo).accepted and not _at(doc, entry=hi).accepted
    for _ in range(40):
        mid = 0.5 * (lo + hi)
        lo, hi = (mid, hi) if _at(doc, entry=mid).accepted else (lo, mid)
    assert "entry * C <= margin * (1 - q)" in _at(doc, entry=hi).reason
    assert abs(lo * C / (doc["margin"] * (1 - doc["q"])) - 1) < 1e-9


def test_the_euclidean_radius_is_sharp_at_entry_over_the_norm_of_t_inverse(doc):
    """The Euclidean radius bisected: the flip lies at r_0 / ||T^-1||_2 to 1e-9 relative, the norm NumPy's (an SVD: the
    checker decides q^2 I - M^T M > 0 on balls instead)."""
    s = np.linalg.norm(np.linalg.inv(np.array(doc["T"])), 2)
    lo, hi = doc["euclidean"], 2 * doc["entry"] / s
    assert _at(doc, euclidean=lo).accepted and not _at(doc, euclidean=hi).accepted
    for _ in range(40):
        mid = 0.5 * (lo + hi)
        lo, hi = (mid, hi) if _at(doc, euclidean=mid).accepted else (lo, mid)
    assert "||T^-1||_2 < entry / euclidean" in _at(doc, euclidean=hi).reason
    assert abs(lo * s / doc["entry"] - 1) < 1e-9


def _spectral_radius_at_oracle(doc):
    J = F.overlap_jacobian_fd([(1 - 1e-6, 1 - 1e-6, 0.0, 0.0, 0.0)], lam=LAM, alpha=ALPHA, **OWN)[0]
    return float(np.max(np.abs(np.linalg.eigvals(J[2:, 2:]))))


@pytest.mark.parametrize("name, change, words", [
    ("radius times 1e3", lambda d: d.update(radius=1e3 * d["radius"], entry=d["entry"]), ("tube-box",)),
    ("margin / 8", lambda d: d.update(margin=d["margin"] / 8), ("entry * C",)),
    ("entry above the radius", lambda d: d.update(entry=2 * d["radius"]), ("entry <= radius",)),
    ("q = 1", lambda d: d.update(q=1.0), ("q < 1",)),
    ("q NaN", lambda d: d.update(q=float("nan")), ("q",)),
    ("T singular", lambda d: d.update(T=[d["T"][0], d["T"][0], d["T"][2]]), ("T is not invertible",)),
    ("T of 2 x 2", lambda d: d.update(T=[row[:2] for row in d["T"][:2]]), ("T must be a 3 x 3",)),
    ("D from kappa = 0", lambda d: d["domain"]["kappa"].__setitem__(0, 0.0), ("kappa and nu must be [c, 1]",)),
    ("D not reaching nu = 1", lambda d: d["domain"]["nu"].__setitem__(1, 0.999), ("kappa and nu must be [c, 1]",)),
    ("D enlarged by 0.05 (no leaf there)", lambda d: d["domain"]["kappa"].__setitem__(0, d["domain"]["kappa"][0] - 0.05),
     ("leaf",)),
    ("D empty: margin past 1", lambda d: d.update(margin=0.2), ("is empty",)),
    ("a leaf dropped", lambda d: (d["leaves"].pop(), d["tree"].pop()), ("tree",)),
    ("an unknown field", lambda d: d.update(delta=1e-3), ("unknown field",)),
])
def test_forged_tubes_are_rejected(doc, name, change, words):
    d = clone(doc)
    change(d)
    rejected(restated(d), *words)


def test_a_q_below_the_spectral_radius_is_rejected(doc):
    """A q between 1 - 2 (1 - rho) and rho, rho the float64 spectral radius of the transverse block at the oracle (central
    differences): no norm contracts by less than rho, so the forged q cannot be certified whatever the basis."""
    rho = _spectral_radius_at_oracle(doc)
    assert doc["q"] > rho
    rejected(restated(dict(clone(doc), q=rho - (1 - rho))), "tube-box")


def test_another_step_is_rejected(doc):
    """alpha = 0.5 (above 2 / lambda_max at the oracle: M repels there), the leaves' boxes moved with it."""
    d = clone(doc)
    d["domain"]["alpha"] = [0.5, 0.5]
    for leaf in d["leaves"]:
        leaf["box"]["alpha"] = [0.5, 0.5]
    rejected(restated(d), "tube-box")


def test_the_stated_q_and_c_bound_the_float_jacobian(doc):
    """At 25 points of D on M: the transverse block's spectral radius (central differences of one float64 step of the
    NumPy runner) is below the stated q, and the drift rows |D_y K T|_2, |D_y N T|_2 below the checker's C (rounding
    of the differences, 1e-6 relative, allowed)."""
    C, T = replay(doc).values["C"], np.array(doc["T"])
    g = np.linspace(CORNER, 1 - 1e-5, 5)
    J = F.overlap_jacobian_fd([(k, n, 0.0, 0.0, 0.0) for k in g for n in g], lam=LAM, alpha=ALPHA, **OWN)
    rho = max(np.max(np.abs(np.linalg.eigvals(j[2:, 2:]))) for j in J)
    drift = max(np.linalg.norm(j[i, 2:] @ T) for j in J for i in (0, 1))
    assert rho < doc["q"] < 1 and drift <= C * (1 + 1e-6), (rho, doc["q"], drift, C)


def _start(kappa, nu, y, d):
    """Unit k, v in R^d with the overlaps (kappa, nu, theta, eta, rho) = (kappa, nu, *y); k* = e_1, v* = e_2."""
    theta, eta, rho = y
    k, v = np.zeros(d), np.zeros(d)
    a = math.sqrt(1 - kappa**2 - eta**2)
    k[:3] = kappa, eta, a
    b = (rho - kappa * theta - eta * nu) / a
    v[:4] = theta, nu, b, math.sqrt(1 - theta**2 - nu**2 - b**2)
    return k, v


def test_full_dimensional_pgd_from_inside_the_tube(tube, doc):
    """PGD in R^200 from 6 starts inside the tube's entry condition (the corner of D and points inside it, y on the
    entry sphere in T's norm, seed 3), 3000 steps: at every step |T^-1 y_t|_2 <= q^t |T^-1 y_0|_2 (float rounding, 1e-13
    a step, allowed for), (kappa_t, nu_t) never below D_m, and every run ends nearer the oracle than it started."""
    rng = np.random.default_rng(3)
    T, Tinv, q = np.array(doc["T"]), np.linalg.inv(np.array(doc["T"])), doc["q"]
    d, steps = OWN["d"], 3000
    ks, vs = np.eye(d)[0], np.eye(d)[1]
    for kappa, nu in ((CORNER, CORNER), (0.95, CORNER), (CORNER, 0.97), (0.99, 0.95), (0.93, 0.93), (1 - 1e-3, 1 - 1e-3)):
        w = rng.normal(size=3)
        y = T @ (w / np.linalg.norm(w) * 0.999 * doc["entry"])
        assert tube.contains(np.array([kappa, nu, *y]))[0]
        k0, v0 = _start(kappa, nu, y, d)
        tr = pgd(k0, v0, ks, vs, lam=LAM, alpha=ALPHA, steps=steps, every=1, **{k: OWN[k] for k in ("gamma", "L")})
        Y = np.stack([tr.theta, tr.eta, tr.rho])
        ny = np.linalg.norm(Tinv @ Y, axis=0)
        t = tr.step
        assert np.all(ny[1:] <= q ** t[1:] * ny[0] + 1e-13 * t[1:]), kappa
        assert tr.kappa.min() >= doc["domain"]["kappa"][0] and tr.nu.min() >= doc["domain"]["nu"][0]
        dist = np.hypot(1 - tr.kappa, 1 - tr.nu) + ny
        assert dist[-1] < dist[0]


def test_a_lam_interval_tube_states_every_lam_of_it():
    t = oracle_tube(lam=(0.05, 0.051), alpha=ALPHA, D=((CORNER, 1.0), (CORNER, 1.0)), **OWN)
    assert t.proved, t.reason
    r = replay(t.certificate)
    assert r.accepted and "every lam in [0.05, 0.051]" in r.conclusion
    assert proves(r, kind="oracle-tube", setting=dict(OWN, eps=0.0), lam=(0.05, 0.051))[0]
    assert not proves(r, kind="oracle-tube", setting=dict(OWN, eps=0.0), lam=0.052)[0]


def test_the_committed_tubes_prove_the_claims_pieces():
    """The committed Figure 4b tubes (benchmarks/oracle_tubes.py): each accepted and binding its stated piece (lam, the
    paper's step, D = [c, 1]^2, the Euclidean radius), twice the radius not; each one's q above the transverse block's
    spectral radius at the oracle at both ends of its lam piece (central differences of one float64 step, Figure 4b)."""
    from slr_verify.certify.committed import load_committed, names, replay_committed
    from slr_verify.claims import tube_claims as TC

    files = names(TC.PREFIX)
    assert len(files) == len(TC.STATED)
    paper = dict(gamma2=0.5, eps=0.0, d=400, L=10)
    for f, (a, b, c, rad) in zip(files, TC.STATED):
        r, doc = replay_committed(f), load_committed(f)
        assert r.accepted, (f, r.reason)
        claim = dict(kind="oracle-tube", setting=paper, lam=(a, b))
        assert proves(r, **claim, domain={"alpha": TC.ALPHA, "tube": {"corner": c, "radius": rad}})[0], f
        assert not proves(r, **claim, domain={"tube": {"corner": c, "radius": 2 * r.values["tube"]["euclidean"]}})[0]
        for lam in (a, b):
            J = F.overlap_jacobian_fd([(1 - 1e-6, 1 - 1e-6, 0.0, 0.0, 0.0)], lam=lam, alpha=TC.ALPHA, gamma=0.5**0.5, d=400,
                                      L=10)[0]
            assert np.max(np.abs(np.linalg.eigvals(J[2:, 2:]))) < doc["q"] < 1, (f, lam)


def test_a_point_tube_stretched_over_a_lam_interval_is_rejected(doc):
    """The point-lam certificate with its domain and every leaf's lam stretched to [0.05, 0.3] (the tree unchanged, so the
    leaves still tile it): every leaf must then hold over lam's whole ball, and at lam = 0.3 g_kappa > 0 near the corner
    (no progress on M). A checker that evaluated a lam interval at its lower end only accepted it (the seed-71 mutant)."""
    d = clone(doc)
    d["domain"]["lam"] = [LAM, 0.3]
    for leaf in d["leaves"]:
        leaf["box"]["lam"] = [LAM, 0.3]
    rejected(restated(d), "tube-box")
    assert _at(doc).accepted  # the control: the point certificate restated unchanged


def test_the_progress_test_reads_the_gradient_on_m():
    """The progress test's g_kappa, g_nu are read at y = 0 (on M). At theta = rho = 0 they do not depend on eta (SymPy:
    d/d eta of Theorem 1's R_kappa and R_nu vanishes identically there), so reading them at eta = 1 (the seed-71
    mutant) changes nothing: the identity checked here is why that mutant is equivalent."""
    import sympy as sp

    from slr_verify.symbolic import risk as srisk
    from slr_verify.symbolic.risk import theorem1_gradient

    g, S = theorem1_gradient(), srisk.S
    assert all(sp.diff(g[i].subs({S.theta: 0, S.rho: 0}), S.eta) == 0 for i in (0, 1))
