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


@pytest.mark.parametrize("bad, word", [(dict(alpha=-1e-3), "alpha"), (dict(kappa=(0.5, 2.0)), "kappa"),
                                       (dict(nu=(0.3, 0.1)), "nu"), (dict(pieces=0), "pieces")])
def test_bad_input_names_the_parameter(bad, word):
    args = dict(lam=(LAM, LAM), kappa=(0.9, 1.0), nu=(0.9, 1.0), **SETTING) | bad
    with pytest.raises(ValueError, match=word):
        transverse_map(**args)
