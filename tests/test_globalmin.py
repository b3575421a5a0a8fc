"""The pieces of the certified global minimisation (`docs/MATH.md` §§14 and 17), on arb balls.

Independent routes: mpmath quadrature of the risk's definition (the certified risk of an explicit
pair); the float64 profile (weak duality: a certified lower bound must not exceed it); second
differences of the float64 dual function (the strip's curvature). All behind ``slow``: the arb
kernels of the TRS take about two minutes to generate.
"""
import math

import numpy as np
import pytest
from flint import arb

from slr_verify.routes import quad_risk

pytestmark = pytest.mark.slow

G2 = float(np.sqrt(0.5))
KW = {"gamma": G2, "eps": 0.0, "d": 400, "L": 10}


def test_certified_risk_of_a_pair_encloses_the_quadrature():
    from slr_verify.certify.window import risk_at_arb
    from slr_verify.landscape import profile

    kappa, eta, lam = 0.3, 0.5, 0.9
    p = profile(kappa, eta, lam=lam, **KW)
    R = risk_at_arb(kappa, eta, p.x[()], lam=arb(lam), gamma=arb(G2, math.ulp(G2)), eps=arb(0), d=400, L=10)
    # the pair is the rational rounding of (kappa, eta, x): its overlaps differ from p.overlaps by ~1e-12
    q = float(quad_risk(*p.overlaps[()], lam=lam, gamma=G2, eps=0.0, d=400, L=10, dps=25))
    assert float(R.rad()) < 1e-12 and abs(float(R.mid()) - q) < 1e-9


def test_value_test_is_a_lower_bound_and_excludes_a_far_box():
    """lam = 0.3 (inside W): on a box around (a, b) = (0.8, 0.3) the certified lower bound of m - R(k*, v*)
    is positive and below the float64 profile minus the oracle risk at the box's centre."""
    from slr_verify.certify.globalmin import _Box, _Evaluator, _oracle_U, _value_test
    from slr_verify.landscape import profile
    from slr_verify.landscape.window import angle_chart

    ev = _Evaluator(G2, 0.0, 400, 10)
    box = _Box((0.8, 0.801), (0.3, 0.301), (0.3, 0.3))
    F = _value_test(ev, box, _oracle_U(ev))
    m = float(profile(*angle_chart(0.8005, 0.3005), lam=0.3, **KW).risk)
    orc = float(profile(1.0, 0.0, lam=0.3, **KW).risk)
    assert F is not None and F > 0 and float(F.lower()) <= m - orc


def test_strip_curvature_against_finite_differences():
    """d^2G/da^2 at (a, b) = (0, 0.5), lam = 0.3, with mu(b) = a0 - g2 fixed: the arb enclosure on a point
    box vs second differences of the float64 dual bound G(a) = c + mu - g^T (H - mu)^{-1} g."""
    from slr_verify.certify.globalmin import _Box, _Evaluator, _strip_test
    from slr_verify.landscape.trs import trs_matrices
    from slr_verify.landscape.window import angle_chart

    ev = _Evaluator(G2, 0.0, 400, 10)
    assert _strip_test(ev, _Box((0.0, 1e-6), (0.5, 0.5), (0.3, 0.3)))

    def G(a, b=0.5, lam=0.3):
        k, e = angle_chart(a, b)
        c, H, g = trs_matrices(k, e, math.sin(b), lam, G2, 0.0, 400, 10)
        _c0, H0, g0 = trs_matrices(math.cos(b), 0.0, math.sin(b), lam, G2, 0.0, 400, 10)
        mu = H0[3, 3] - g0[1]
        D = H[:3, :3] - mu * np.eye(3)
        return c + mu - g[:3] @ np.linalg.solve(D, g[:3])

    h = 1e-3
    fd = (G(h) - 2 * G(0.0) + G(-h)) / h**2
    assert 0.5 < fd < 0.7  # the arb point value is 0.5923 (see the report); FD to ~1e-5
