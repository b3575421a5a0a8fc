"""The transverse stability map of M (issue 46; `docs/MATH.md` §13, "The transverse map"): the search's
certificate is the checker's to accept, every decided leaf agrees with the spectrum of an independent float64 route
(central differences of one step of the NumPy five-overlap runner, no arb kernel), and forged leaves are rejected."""
from __future__ import annotations

import copy

import numpy as np
import pytest
from test_dynamics import FIG4B, P4B

from slr_verify.certify.transverse import transverse_map
from slr_verify.checker import replay
from slr_verify.dynamics import overlap_pgd
from slr_verify.dynamics.fixed_points import overlap_jacobian_fd

SETTING = dict(gamma=FIG4B.gamma, d=FIG4B.d, L=FIG4B.L, alpha=FIG4B.alpha)
LAM = FIG4B.lam0


@pytest.fixture(scope="module")
def maps():
    """Two small maps at Figure 4b's lam: a strip of the square at the oracle, and a square around the saddle."""
    near = transverse_map(lam=(LAM, LAM), kappa=(0.9375, 1.0), nu=(0.875, 1.0), min_width=2.0**-8, **SETTING)
    saddle = transverse_map(lam=(LAM, LAM), kappa=(-0.0625, 0.0625), nu=(-0.0625, 0.0625), min_width=2.0**-5, **SETTING)
    return {"oracle": near, "saddle": saddle}


def _spectra(points):
    """The eigenvalues of T at each (kappa, nu) of ``points`` by the float route: the (theta, eta, rho) block of the
    central-difference Jacobian of one float64 step of the NumPy runner (``dynamics.fixed_points.overlap_jacobian_fd``)."""
    J = overlap_jacobian_fd([(k, n, 0.0, 0.0, 0.0) for k, n in points], **P4B, d=FIG4B.d, alpha=FIG4B.alpha)
    return np.linalg.eigvals(J[:, 2:, 2:])


def test_the_maps_are_accepted_and_decide_where_the_float_spectrum_is_clear(maps):
    """Near the oracle most of the corner is attracting, around the saddle most of the square repelling (the
    float64 sketch of `docs/MATH.md` §13: spectral radius 0.99918 at (1, 1), 1.00307 at (0, 0)); the certificates replay."""
    for name, want in (("oracle", "attracting"), ("saddle", "repelling")):
        r = maps[name]
        assert r["proved"], r["failure"]
        assert replay(r["certificate"]).accepted
        assert r["fractions"][want] > 0.5, (name, r["fractions"])
        assert abs(sum(r["fractions"].values()) - 1) < 1e-12


def test_every_decided_leaf_agrees_with_the_float_route(maps):
    """At each decided leaf's centre and two corners: attracting, the float spectral radius < 1; repelling, a real float
    eigenvalue > 1 (the finite differences' error, about 1e-9, is far below both margins)."""
    e = 1e-5  # the corners pulled inside by more than the differences' step: the sphere ends at 1
    for r in maps.values():
        leaves = [x for x in r["certificate"]["leaves"] if x["test"] != "undecided"]
        pts = [p for x in leaves for (k0, k1), (n0, n1) in [(x["box"]["kappa"], x["box"]["nu"])]
               for p in ((0.5 * (k0 + k1), 0.5 * (n0 + n1)), (k0 + e, n0 + e), (k1 - e, n1 - e))]
        ev = _spectra(pts).reshape(len(leaves), 3, 3)
        for leaf, spec in zip(leaves, ev):
            if leaf["test"] == "attracting":
                assert np.max(np.abs(spec)) < 1, (leaf["box"], spec)
            else:
                assert all(any(abs(z.imag) < 1e-12 and z.real > 1 for z in row) for row in spec), (leaf["box"], spec)


def _first(doc, test):
    return next(i for i, x in enumerate(doc["leaves"]) if x["test"] == test)


def _forged(doc, how):
    d = copy.deepcopy(doc)
    how(d)
    return d


@pytest.mark.parametrize("forge", [
    # a repelling leaf at the saddle called attracting, with the identity as its basis
    ("saddle", lambda d: d["leaves"][_first(d, "repelling")].update(test="attracting", S=np.eye(3).tolist(),
                                                                     groups=[[0], [1], [2]])),
    ("oracle", lambda d: d["leaves"][_first(d, "attracting")].update(test="repelling")),
    ("oracle", lambda d: d["leaves"][_first(d, "attracting")].update(S=[[1, 0, 0], [0, 1, 0], [1, 0, 0]])),
    ("oracle", lambda d: d["leaves"][_first(d, "attracting")].update(groups=[[0, 1, 2]])),
    ("oracle", lambda d: d["leaves"][_first(d, "undecided")].update(test="attracting")),
    ("oracle", lambda d: d["domain"].update(kappa=[0.875, 1.125])),
    ("oracle", lambda d: d["domain"].update(alpha=[0.0, FIG4B.alpha])),
])
def test_a_forged_leaf_or_domain_is_rejected(maps, forge):
    name, how = forge
    r = replay(_forged(maps[name]["certificate"], how))
    assert not r.accepted, r.conclusion


def test_a_map_over_lam_pieces_replays_with_the_searchs_volume_fractions():
    """A transverse map over a lam interval cut in two pieces is accepted, and the checker's volume fractions (each
    leaf's kappa x nu x lam share) sum to 1 and equal the search's to 1e-12 (a mutant reading a lam box's third end
    survived: no default test replayed a map over a lam interval)."""
    r = transverse_map(lam=(LAM, LAM * 1.0001), pieces=2, kappa=(0.9375, 1.0), nu=(0.875, 1.0), min_width=2.0**-6,
                       **SETTING)
    got = replay(r["certificate"])
    assert r["proved"] and got.accepted, got.reason
    fr = got.values["fractions"]
    assert abs(sum(fr.values()) - 1) < 1e-12 and all(abs(fr[t] - r["fractions"][t]) < 1e-12 for t in fr), (fr, r["fractions"])


@pytest.mark.parametrize("c, box", [("kappa", [0.875, 1.125]), ("nu", [-1.25, -0.875]), ("kappa", [0.875, 1.0000000000000002])])
def test_a_domain_beyond_the_square_is_refused_as_such(maps, c, box):
    """A transverse map's (kappa, nu) domain must lie in [-1, 1]^2 (the realisable overlaps on M): refused for that
    reason, before the leaves are read (the kernels are analytic beyond the square, so leaves tiling such a domain
    could pass their tests; a mutant reading nu <= 2 survived a test that looked only at the verdict)."""
    r = replay(_forged(maps["oracle"]["certificate"], lambda d: d["domain"].update({c: box})))
    assert not r.accepted and "intervals of [-1, 1]" in r.reason, r.reason


@pytest.mark.parametrize("bad, word", [(dict(alpha=-1e-3), "alpha"), (dict(kappa=(0.5, 2.0)), "kappa"),
                                       (dict(nu=(0.3, 0.1)), "nu"), (dict(pieces=0), "pieces")])
def test_bad_input_names_the_parameter(bad, word):
    args = dict(lam=(LAM, LAM), kappa=(0.9, 1.0), nu=(0.9, 1.0), **SETTING) | bad
    with pytest.raises(ValueError, match=word):
        transverse_map(**args)


def _one_step(points):
    """The five overlaps after one float64 step of the NumPy runner from each point (an independent route)."""
    tr = overlap_pgd(tuple(np.asarray(points, float).T), **P4B, d=FIG4B.d, alpha=FIG4B.alpha, steps=1, backend="numpy")
    return np.array([getattr(tr, f)[-1] for f in ("kappa", "nu", "theta", "eta", "rho")]).T


def test_runs_started_just_off_M_do_what_the_leaves_say(maps):
    """The nonlinear map, not its linearisation: from 40 attracting leaves' centres (drawn with a fixed seed) one float64
    step from y0 = S z (|z| = 1e-6 in the leaf's group norm) shrinks |S^-1 y| below q_max of the certificate (plus
    1e-4 for the second-order terms, O(|y|)); at the saddle, y0 along T's unstable eigenvector grows by its eigenvalue
    (1.0030671, claim saddle-escape) to 1e-5."""
    from slr_verify.certify.transverse import saddle_escape

    near = maps["oracle"]
    leaves = [x for x in near["certificate"]["leaves"] if x["test"] == "attracting"]
    rng = np.random.default_rng(46)
    for leaf in (leaves[i] for i in rng.choice(len(leaves), min(40, len(leaves)), replace=False)):
        S, groups = np.array(leaf["S"]), leaf["groups"]
        z = rng.standard_normal(3)
        z *= 1e-6 / max(np.linalg.norm(z[g]) for g in groups)
        x = [0.5 * sum(leaf["box"][c]) for c in ("kappa", "nu")]
        y1 = _one_step([(*x, *(S @ z))])[0, 2:]
        ratio = max(np.linalg.norm(np.linalg.solve(S, y1)[g]) for g in groups) / 1e-6
        assert ratio < near["q_max"] + 1e-4, (leaf["box"], ratio)
    e = saddle_escape(lam=LAM, alpha=FIG4B.alpha, gamma=FIG4B.gamma, d=FIG4B.d, L=FIG4B.L)
    y0 = 1e-6 * np.array(e["direction"])
    y1 = _one_step([(0.0, 0.0, *y0)])[0, 2:]
    assert abs(np.linalg.norm(y1) / 1e-6 - e["off"][0]) < 1e-5, np.linalg.norm(y1) / 1e-6


def test_a_box_whose_enclosure_has_no_finite_centre_is_undecided_not_an_error():
    """At a large step (Theorem 5's alpha_5 = 0.1183 on lam in [0.0838, 0.1]) T enclosed over a quarter of the square
    has infinite entries: the box is left to split (it raised numpy's LinAlgError from the float eigenbasis before)."""
    from flint import arb, ctx

    from slr_verify.certify.transverse import decide
    from slr_verify.checker.balls import param_balls
    from slr_verify.checker.contraction import transverse_block
    from slr_verify.kernels.balls import midpoint

    P = param_balls(FIG4B.gamma, 0.0, FIG4B.d, FIG4B.L).kw()
    par, box = dict(lam=arb(0.0837677640068292).union(arb(0.1)), **P), ((0.0, 1.0), (0.0, 1.0))
    with ctx.workprec(64):
        A = arb(0.1183194281792934)
        T = transverse_block(box, par, A)
        assert not all(np.isfinite(midpoint(T[i, j])) for i in range(3) for j in range(3))  # the case is met
        assert decide(box, par, A) is None


def _similar(eigs, seed=0):
    """A real 3 x 3 matrix with the given spectrum (real numbers, or a complex number for a conjugate pair), by a fixed
    random change of basis: the eigenvalues are known by construction."""
    rng = np.random.default_rng(seed)
    D = np.zeros((3, 3))
    if len(eigs) == 2:  # a complex pair r e^{i t} as a rotation-scaling block, and one real eigenvalue
        z, x = eigs
        D[:2, :2] = [[z.real, -z.imag], [z.imag, z.real]]
        D[2, 2] = x
    else:
        D = np.diag(eigs)
    P = rng.normal(size=(3, 3))
    return P @ D @ np.linalg.inv(P)


@pytest.mark.parametrize("eigs, repels", [
    ((1.01, 0.5, -0.3), True),           # a real eigenvalue above 1: det(I - T) < 0
    ((-1.01, 0.5, 0.3), True),           # a flip below -1: det(I - T^2) < 0, det(I - T) > 0
    ((-16.2, 0.6, 0.78), True),          # the oracle's transverse block at lam = 0.01 and alpha_5 = 1.557 (float route)
    ((1.5, -1.5, 0.2), True),            # one of each: det(I - T) < 0 (det(I - T^2) > 0)
    ((0.99, -0.99, 0.5), False),         # all inside (-1, 1)
    ((1.2 * np.exp(0.7j), 0.5), False),  # a complex pair outside the unit circle: neither determinant sees it
])
def test_the_repelling_test_sees_a_real_eigenvalue_of_modulus_above_1(eigs, repels):
    from flint import arb_mat

    from slr_verify.checker.contraction import transverse_tests
    from slr_verify.checker.decide import negative

    T = arb_mat(_similar(eigs).tolist())
    q, p = transverse_tests(T)
    assert q is None and negative(p) is repels


def _start_near_M(kappa, nu, size, d, rng):
    """Unit k, v in R^d with overlaps (kappa, nu) and transverse overlaps theta = <k, v*>, eta = <v, k*> of order
    ``size`` (rho = 0), with k* = e_0, v* = e_1."""
    e = np.eye(d)
    th, et = size * rng.normal(size=2)
    k = kappa * e[0] + th * e[1] + np.sqrt(1 - kappa**2 - th**2) * e[2]
    v = nu * e[1] + et * e[0] + np.sqrt(1 - nu**2 - et**2) * e[3]
    return k, v, e[0], e[1]


@pytest.mark.parametrize("lam, test", [(0.0316, "attracting"), (0.3162, "repelling")])
def test_full_dimensional_pgd_leaves_or_approaches_M_as_the_certified_leaf_says(lam, test):
    """At the paper's step the oracle's corner is certified attracting at lam = 0.0316 and repelling (a flip, det(I - T^2)
    < 0) at lam = 0.3162 (benchmarks/transverse_points.py). Full-dimensional PGD in R^400 (vectors, not the overlap
    kernels: another route) from a leaf's centre, 1e-6 off M: the distance to M falls over 50 steps on the attracting
    leaf and grows past 1e-3 on the repelling one. First order only: what the run does later is not claimed."""
    from slr_verify.dynamics import pgd

    r = transverse_map(lam=(lam, lam), kappa=(0.875, 1.0), nu=(0.875, 1.0), min_width=2.0**-8, **SETTING)
    assert r["proved"] and r["fractions"][test] > 0.99, r["fractions"]
    leaf = next(lf for lf in r["certificate"]["leaves"] if lf["test"] == test and lf["box"]["kappa"][1] < 1.0
                and lf["box"]["nu"][1] < 1.0)
    kappa, nu = (0.5 * sum(leaf["box"][x]) for x in ("kappa", "nu"))
    k, v, ks, vs = _start_near_M(kappa, nu, 1e-6, FIG4B.d, np.random.default_rng(3))
    tr = pgd(k, v, ks, vs, lam=lam, gamma=FIG4B.gamma, L=FIG4B.L, alpha=FIG4B.alpha, steps=50, every=50)
    start, end = np.asarray(tr.distance_to_M).ravel()[[0, -1]]
    assert (end < start) if test == "attracting" else (end > 1e3 * start), (start, end)


@pytest.mark.parametrize("key, value", [("alpha", 1e-3), ("lam", 0.0316)])
def test_a_flip_certificate_moved_to_where_the_oracle_is_stable_is_rejected(key, value):
    """The corner at lam = 0.3162, alpha = 4e-3 is all flip-repelling. Moved, domain, every leaf and the statement
    restated, to a step below 2/lambda_max (0.0033 there) or to lam = 0.0316 (where the corner is attracting), the
    checker's own determinant test fails on a leaf, and the reason names both determinants."""
    from slr_verify.checker import statement

    doc = transverse_map(lam=(0.3162, 0.3162), kappa=(0.875, 1.0), nu=(0.875, 1.0), min_width=2.0**-8,
                         **dict(SETTING, alpha=FIG4B.alpha))["certificate"]
    assert replay(doc).accepted
    forged = copy.deepcopy(doc)
    forged["domain"][key] = [value, value]
    for leaf in forged["leaves"]:
        leaf["box"][key] = [value, value]
    forged["statement"] = statement(forged)
    rep = replay(forged)
    assert not rep.accepted and "det(I - T) or det(I - T^2)" in rep.reason, rep.reason
