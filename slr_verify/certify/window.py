r"""Enclosures of the oracle's window end points by ball arithmetic (reference sections 13-14).

Each end of W(d, L, gamma, eps) is the root of its mechanism function (:mod:`slr_verify.landscape.window`):
det B(lam) (the oracle stops being a local minimum) or the family gap (the risk of k = +-v* crosses
the oracle's). Both are closed-form functions of lam, generated to arb balls from SymPy
(:func:`~slr_verify.kernels.certified.window_arb`). For an end x found at 30 digits, the function is
evaluated on the exact point balls x(1 - delta) and x(1 + delta); certified opposite signs prove,
by continuity, a root in between: the enclosure (and trace B > 0 is certified on the whole enclosure,
so det B = 0 means one eigenvalue of B crosses 0).

What the balls prove is that the *mechanism* fires inside the enclosure. That nothing else bounds
the window (the oracle is the global minimum on the whole interval between the ends) rests on the
scan of the mechanism functions and the complete stationary-point search, numeric evidence.
"""
from __future__ import annotations

from dataclasses import dataclass

from flint import arb, ctx

from ..kernels.certified import window_arb
from ..landscape import oracle_window as float_window
from ..landscape.window import EndPoints
from ..model.params import check_params
from .manifold import _fuzzy

__all__ = ["WindowEnclosure", "oracle_window"]


@dataclass
class WindowEnclosure(EndPoints):
    """``lo``, ``hi``: (lower, upper) enclosures of the two end points; ``proved`` (both closed);
    ``mechanisms`` (for lo, for hi); ``values``: the certified signs at the enclosures' ends."""

    lo: tuple
    hi: tuple
    proved: bool
    mechanisms: tuple
    values: dict


def _enclose(x, which, gamma, d, L, delta):
    f = window_arb()
    idx = 0 if which == "local" else 2
    a, b = float(x) * (1 - delta), float(x) * (1 + delta)
    fa = f(arb(a), gamma, arb(int(d)), arb(int(L)))
    fb = f(arb(b), gamma, arb(int(d)), arb(int(L)))
    sa, sb = fa[idx], fb[idx]
    closed = (sa < 0 and sb > 0) or (sa > 0 and sb < 0)
    if which == "local":  # trace B > 0 on the whole enclosure: the ball of [a, b]
        mid, rad = (a + b) / 2, (b - a) / 2
        tr = f(arb(mid, rad), gamma, arb(int(d)), arb(int(L)))[1]
        closed = closed and tr > 0
    return (a, b), bool(closed), {"at_lo": str(sa), "at_hi": str(sb)}


def oracle_window(*, gamma, eps=0.0, d, L, delta=1e-12, prec=128, verify=2, window=None):
    """Enclosures (lo, hi) of the window's end points (see the module's docstring); each of width
    2 delta times the end point. ``verify``: interior checks of the float window's search;
    ``window``: a :class:`~slr_verify.landscape.Window` already computed for these parameters."""
    check_params(1.0, gamma, eps, d, L)
    if not 0 < delta < 1e-3:
        raise ValueError(f"delta must be in (0, 1e-3) (relative half-width of the enclosures), got {delta!r}")
    w = window if window is not None else float_window(gamma=gamma, eps=eps, d=d, L=L, verify=verify)
    old = ctx.prec
    ctx.prec = int(prec)
    try:
        g = _fuzzy(gamma)
        lo, ok_lo, v_lo = _enclose(w.lo_mp, w.mechanism_lo, g, d, L, delta) if w.mechanism_lo else ((w.lo, w.lo), False, {})
        hi, ok_hi, v_hi = _enclose(w.hi_mp, w.mechanism_hi, g, d, L, delta) if w.mechanism_hi else ((w.hi, w.hi), False, {})
    finally:
        ctx.prec = old
    return WindowEnclosure(lo, hi, ok_lo and ok_hi, (w.mechanism_lo, w.mechanism_hi), {"lo": v_lo, "hi": v_hi})
