"""The oracle's window ends through the profile (`docs/MATH.md` §17), against independent routes.

* The profile's curvature at k* (closed form from the implicit-function theorem on the TRS's KKT
  system, :func:`slr_verify.symbolic.profile_oracle.oracle_curvature`) against centred second differences of
  the mpmath profile (the TRS solved at 50 to 70 digits, no derivative taken symbolically), and its root
  along v* against the 30-digit root of det B (the oracle's Riemannian Hessian block, derived from
  Theorem 1's risk in the five overlaps: a different derivation).
* The window's lower end at gamma^2 = 3/2, d = 50, L = 20 against the 30-digit mpmath root of Theorem 1
  at the boundary point k = v*, v = k* (overlaps (0, 0, 1, 1, 0)) minus Theorem 1 at the oracle.
"""
import functools

import mpmath
import numpy as np
import pytest

from slr_verify.kernels.codegen import generate_mp
from slr_verify.kernels.landscape import window_kernels
from slr_verify.kernels.profile import oracle_curvature_kernels
from slr_verify.landscape import trs as LP
from slr_verify.landscape import window as LW
from slr_verify.symbolic.risk import OVERLAPS, PARAMS, theorem1_risk

G2 = float(np.sqrt(0.5))
FIG4B = {"gamma": G2, "eps": 0.0, "d": 400, "L": 10}
OFF = {"gamma": float(np.sqrt(1.5)), "eps": 0.0, "d": 50, "L": 20}


def _second_difference(lam, direction, kw, h, dps):
    """2 (m(h) - m(0)) / h^2 in the chart k = (sqrt(1 - x^2 - y^2), x, y) (m is even in x and in y, so this
    is m'' + O(h^2)), from the mpmath profile at ``dps`` digits."""
    kw = dict(kw, lam=lam)
    with mpmath.workdps(dps):
        h = mpmath.mpf(h)
        k = mpmath.sqrt(1 - h**2)
        # the e direction: eta = 0, r = h (profile_mp takes (kappa, eta) and recovers r = sqrt(1 - kappa^2 - eta^2))
        m1 = LP.profile_mp(k, h if direction == 0 else 0, dps=dps, **kw)[0]
        m0 = LP.profile_mp(1, 0, dps=dps, **kw)[0]
        return 2 * (m1 - m0) / h**2


CURVATURE_CASES = [  # (lam, direction, h, dps, rtol): the e curvature is erfc-sized, so a larger h and more digits
    (0.3, 0, 1e-8, 50, 1e-8),
    (0.3, 1, 1e-5, 70, 1e-6),
    pytest.param(0.02, 0, 1e-8, 50, 1e-8, marks=pytest.mark.slow),
    pytest.param(0.02, 1, 1e-5, 50, 1e-6, marks=pytest.mark.slow),
    pytest.param(0.89, 0, 1e-8, 50, 1e-6, marks=pytest.mark.slow),
    pytest.param(2.0, 0, 1e-8, 50, 1e-8, marks=pytest.mark.slow),
]


@pytest.mark.parametrize("lam, direction, h, dps, rtol", CURVATURE_CASES)
def test_oracle_curvature_against_second_differences(lam, direction, h, dps, rtol):
    with mpmath.workdps(40):
        ref = _second_difference(lam, direction, FIG4B, h, dps)
        closed = oracle_curvature_kernels().mp(mpmath.mpf(lam), mpmath.sqrt(mpmath.mpf(1) / 2), 0, 400, 10)[direction]
        assert abs(closed - ref) <= rtol * abs(ref), (closed, ref)


@pytest.mark.slow
def test_curvature_root_is_the_root_of_det_b():
    """Figure 4b's upper end: the closed-form curvature of m along v* and det B (the oracle's Hessian
    block, `docs/MATH.md` §13) vanish at the same lam (30-digit roots, 1e-20 relative)."""
    with mpmath.workdps(30):
        g = mpmath.sqrt(mpmath.mpf(1) / 2)
        fc = lambda lam: oracle_curvature_kernels().mp(lam, g, 0, 400, 10)[0]
        fd = lambda lam: window_kernels().mp(lam, g, 400, 10)[0]
        bracket = (mpmath.mpf("0.89"), mpmath.mpf("0.895"))
        a = mpmath.findroot(fc, bracket, solver="anderson")
        b = mpmath.findroot(fd, bracket, solver="anderson")
        assert abs(a - b) < 1e-20 * b, (a, b)


@functools.cache
def _theorem1():
    """Theorem 1's closed form (:func:`slr_verify.symbolic.risk.theorem1_risk`) in mpmath: no TRS, no profile."""
    return generate_mp(tuple(OVERLAPS) + tuple(PARAMS), [theorem1_risk()], cse=True)


def _theorem1_mp(ov, lam, kw):
    return _theorem1()(*ov, lam, mpmath.mpf(kw["gamma"]), mpmath.mpf(kw["eps"]), kw["d"], kw["L"])[0]


def test_window_lower_end_off_the_paper_setting_by_mpmath():
    """gamma^2 = 3/2, d = 50, L = 20: the lower end is the crossing of the boundary point k = v*, v = k*
    with the oracle: the 30-digit root of Theorem 1 at (0, 0, 1, 1, 0) minus Theorem 1 at (1, 1, 0, 0, 0)
    (= 0.183678208442...); the profile's window gives it to 1e-12 relative. Its upper end does not exist
    in (1e-2, 1]: the window is reported open above there."""
    w = LW.float_window(lam_range=(1e-2, 1.0), grid=9, **OFF)
    with mpmath.workdps(30):
        gap = lambda lam: _theorem1_mp((0, 0, 1, 1, 0), lam, OFF) - _theorem1_mp((1, 1, 0, 0, 0), lam, OFF)
        ref = mpmath.findroot(gap, (mpmath.mpf("0.18"), mpmath.mpf("0.19")), solver="anderson")
    assert abs(float(ref) - 0.183678208442) < 1e-12
    assert w.mechanism_lo == "crossing" and abs(w.lo - float(ref)) < 1e-12 * float(ref)
    assert w.mechanism_hi is None and w.hi == 1.0


@pytest.mark.slow
def test_window_off_the_paper_setting_open_above():
    """gamma^2 = 3/2, d = 50, L = 20 on the default scan (1e-4, 1e2): open above (no upper end), and the
    oracle stays a strict local minimum up to lam = 1e4 by det B > 0, trace B > 0 (30 digits): no "pitchfork"
    end exists beyond the scan either."""
    w = LW.float_window(**OFF)
    assert w.mechanism_hi is None and w.hi == 100.0
    with mpmath.workdps(30):
        g = mpmath.sqrt(mpmath.mpf(3) / 2)
        for lam in mpmath.linspace(mpmath.log(w.lo * 1.01), mpmath.log(1e4), 12):
            det, tr, _ = window_kernels().mp(mpmath.exp(lam), g, 50, 20)
            assert det > 0 and tr > 0
