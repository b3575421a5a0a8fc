"""The window at every setting (`docs/MATH.md` §17, "The window at every setting"): the oracle risk's ball form over
wide lam balls up to lam = 1e4, the lam pieces of an oracle proof, and (slow) windows proved at settings that used to
fail: a valley corner at a pitchfork end, a float end past the curvature's root, no upper end up to the range's end,
and the partial statement a time limit leaves.

References: U(lam) in mpmath from `docs/MATH.md` §4's definitions (zetabar by quadrature over the Gaussian, the
arcsine of zeta_lam(0) as printed), the window's ends as the 30-digit roots of the mechanism functions
(:func:`slr_verify.landscape.float_window`'s ``lo_mp``, ``hi_mp``: the closed-form route, not the certify route).
"""
import math

import mpmath
import pytest
from flint import arb, ctx

from slr_verify.certify import oracle_window
from slr_verify.certify.oracle_proof import lam_pieces
from slr_verify.checker.premises import kernels
from slr_verify.checker.profile import SettingBalls
from slr_verify.kernels.balls import ball
from slr_verify.landscape import float_window

G2, D, L = 1.5, 50, 20  # the setting without an upper end


def _oracle_mp(lam, g2=G2, d=D, L=L):
    """R(k*, v*) at eps = 0: gamma^2 zetabar_{lam gamma}(lam sqrt(d/2)) + (L - 1) (2/pi) asin(2 lam^2/(1 + 2 lam^2))."""
    with mpmath.workdps(30):
        lam, g = mpmath.mpf(lam), mpmath.sqrt(mpmath.mpf(g2))
        t, s = lam * mpmath.sqrt(mpmath.mpf(d) / 2), lam * g
        z0 = -t / s  # erfc(t + s z)^2 lives at z < z0 + a few / s
        f = lambda z: mpmath.erfc(t + s * z) ** 2 * mpmath.npdf(z)
        zetabar = mpmath.quad(f, [-mpmath.inf, z0 - 1, z0, z0 + 1, 0, mpmath.inf])
        return g**2 * zetabar + (L - 1) * 2 / mpmath.pi * mpmath.asin(2 * lam**2 / (1 + 2 * lam**2))


def holds(b, x) -> bool:
    """The real x (an mpf, 30 digits) lies in the finite ball b."""
    with ctx.workprec(160):
        return b.is_finite() and b.contains(arb(mpmath.nstr(x, 30)))


@pytest.mark.parametrize("lam", [1.0, 20.0, 1e4] + [pytest.param(x, marks=pytest.mark.slow) for x in (0.2, 5.0, 100.0, 1e3)])
def test_the_oracle_risk_on_a_lam_ball_is_finite_and_holds_the_reference(lam):
    """The premise ``oracle-risk`` on [lam, lam (1 + 1e-2)]: U's ball holds U at both ends and dU's ball the
    mean-value slope (mpmath). The arcsine with lam twice in its argument gave NaN from lam ~ 5 (the ball crossed 1)."""
    S = SettingBalls(math.sqrt(G2), 0.0, D, L)
    a, b = lam, lam * (1 + 1e-2)
    with ctx.workprec(64):
        U, dU = kernels("oracle-risk").oracle(ball(a, b), **S.P.kw())
    ua, ub = _oracle_mp(a), _oracle_mp(b)
    slope = (ub - ua) / (mpmath.mpf(b) - mpmath.mpf(a))
    for b_, x in ((U, ua), (U, ub), (dU, slope)):
        assert holds(b_, x), (b_, x)


def test_lam_pieces_are_geometric_above_one_tenth_and_tile_the_interval():
    """The pieces tile [lo, hi] (each starts where the last ended), are 0.005 wide below 0.1 and 5 % wide above, so an
    interval up to 1e4 takes ceil(log(1e4 / 0.1) / log(1.05)) pieces above 0.1 (not 2e5 equal ones)."""
    for lo, hi in ((1e-4, 0.05), (0.05, 0.9), (0.18, 1e4)):
        p = lam_pieces(lo, hi)
        assert p[0][0] == lo and p[-1][1] == hi
        assert all(p[i][1] == p[i + 1][0] for i in range(len(p) - 1))
        for a, b in p:
            assert b - a <= 0.05 * max(a, 0.1) * (1 + 1e-9)
    n = len([q for q in lam_pieces(0.18, 1e4) if q[0] >= 0.1])
    assert n == math.ceil(math.log(1e4 / 0.18) / math.log(1.05))


@pytest.mark.slow  # one window proof each (15 s and 90 s on one core)
@pytest.mark.parametrize("g2, eps, d, L", [(0.8, 0.2, 20, 5), (1.5, 0.0, 20, 3)])
def test_the_window_closes_at_a_pitchfork_end_where_it_used_to_fail(g2, eps, d, L):
    """(0.8, 0.2, 20, 5): the valley certificate left a box at (kappa, lam) -> (1, hi) (its test Q + E is the curvature
    / 2 there, ~ slope x h: the boxes must split in lam, not kappa). (1.5, 0, 20, 3): the float status bisection stopped
    past the curvature's root and float_window raised. Both proved; each end within 1e-10 of the 30-digit root."""
    w = oracle_window(gamma=math.sqrt(g2), eps=eps, d=d, L=L)
    assert w.proved, w.details.get("reason")
    ref = float_window(gamma=math.sqrt(g2), eps=eps, d=d, L=L)
    for (a, b), x in ((w.lo, ref.lo_mp), (w.hi, ref.hi_mp)):
        assert b - a <= 1e-10
        assert a - 1e-10 <= float(x) <= b + 1e-10


@pytest.mark.slow  # the window to lam = 100 (about 3 minutes on one core)
def test_a_window_without_upper_end_is_proved_up_to_the_range_end():
    """gamma^2 = 3/2, d = 50, L = 20: no upper end below 100; proved up to 100 (the default call ran > 25 minutes)."""
    w = oracle_window(gamma=math.sqrt(G2), d=D, L=L, lam_range=(1e-4, 100.0))
    assert w.proved and w.hi is None and w.unique[1] == 100.0, w.details.get("reason")
    assert "hi >= 100.0" in w.statement
    lo_mp = float_window(gamma=math.sqrt(G2), d=D, L=L).lo_mp
    assert w.lo[0] - 1e-10 <= float(lo_mp) <= w.lo[1] + 1e-10


@pytest.mark.slow  # a time limit of 40 s
def test_a_time_limit_leaves_the_statement_of_what_is_proved():
    """Stopped by its time limit on the way to 1e4, the call returns proved False, a certificate the checker accepts,
    and a statement about exactly the part proved: hi >= its end, which is below 1e4; the reason says what is not."""
    w = oracle_window(gamma=math.sqrt(G2), d=D, L=L, lam_range=(1e-4, 1e4), time_limit=40.0)
    assert not w.proved and w.replay is not None and w.replay.accepted
    B = w.unique[1]
    assert w.lo[1] < B < 1e4
    assert f"hi >= {B!r}" in w.statement
    assert "not proved" in w.details["reason"] and repr(B) in w.details["reason"]
