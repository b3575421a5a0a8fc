r"""Enclosures of the oracle's window end points by ball arithmetic (`docs/MATH.md` §§13, 14, 17).

Each end of W(d, L, gamma, eps) comes from :func:`slr_verify.landscape.oracle_window` (the profile
route) with its mechanism read off the minimiser just outside. For an end x the enclosure is
[x(1 - delta), x(1 + delta)] and its two sides carry different evidence:

* **outside** (proved by ball arithmetic): at lam_out = x(1 -+ delta) an explicit pair (k, v) --
  the profile's minimiser there, rounded to exact rationals, v normalised in arb -- has a certified
  risk (the TRS kernels on arb balls, :func:`slr_verify.kernels.profile.trs_kernels`, proved equal to
  Theorem 1 by SymPy) strictly below the certified oracle risk: lam_out is not in W.
* **inside** (proved by ball arithmetic when ``inside=True``): at lam_in = x(1 +- delta) the branch and bound
  :func:`slr_verify.certify.global_minimiser` proves (k*, v*) the unique global minimiser up to the symmetries
  (a point lam: a few seconds near either end at Figure 4b's setting). For the ``"local"`` end the oracle's local
  minimality at lam_in is also certified by the closed-form det B > 0, trace B > 0 on arb balls
  (:func:`slr_verify.kernels.landscape.window_kernels`; det B is proved by SymPy to be the oracle's Hessian block).

So ``outside_proved`` says the window cannot extend past either enclosure; ``proved`` (both sides of both ends at the
ball tier) says each enclosure holds a boundary point of W. That W is one interval is the profile route's scan
(numeric), not part of the proof.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

from flint import arb, ctx

from ..kernels.certified import bayes_gap_arb
from ..kernels.landscape import window_kernels
from ..landscape import oracle_window as float_window
from ..landscape.window import EndPoints, minimise_profile
from ..model import validation as V
from ..model.params import check_params
from .globalmin import global_minimiser
from .manifold import _fuzzy
from .replay_profile import SettingBalls, pair_risk

__all__ = ["WindowEnclosure", "oracle_window"]


@dataclass
class WindowEnclosure(EndPoints):
    """``lo``, ``hi``: (lower, upper) enclosures of the two end points; ``outside_proved`` (the
    witnesses outside both enclosures certified); ``proved`` (both sides at the ball tier: False
    here, see the module); ``mechanisms`` (for lo, for hi); ``values``: the certified quantities."""

    lo: tuple
    hi: tuple
    proved: bool
    outside_proved: bool
    mechanisms: tuple
    values: dict


def _witness(lam_out, gamma, eps, d, L):
    """A certified point with lower risk than the oracle at lam_out (or None): (R enclosure, oracle enclosure)."""
    from ..landscape.trs import profile
    from ..landscape.window import angle_chart

    g = minimise_profile(lam=lam_out, gamma=gamma, eps=eps, d=d, L=L)
    kappa, eta = angle_chart(*g.chart)
    x = [float(v) for v in profile(kappa, eta, lam=lam_out, gamma=gamma, eps=eps, d=d, L=L).x]
    S, lam_b = SettingBalls(gamma, eps, d, L), arb(lam_out)
    a, b = math.atan2(float(eta), float(kappa)), math.asin(min(1.0, math.sqrt(max(0.0, 1.0 - kappa**2 - eta**2))))
    R = pair_risk(S, lam_b, a, b, x)
    gam_b, eps_b = S.P[0], S.P[1]
    O = eps_b * eps_b + bayes_gap_arb()(lam_b, gam_b, arb(int(d)), arb(int(L)))[0]
    return R, O, bool(R < O)


def oracle_window(*, gamma, eps=0.0, d, L, delta=1e-6, prec=128, verify=0, window=None, inside=True, time_limit=300.0):
    """Enclosures (lo, hi) of the window's end points (see the module's docstring); each of width
    2 delta times the end point. ``verify``: interior checks of the float window by the
    stationary-point search; ``window``: a :class:`~slr_verify.landscape.Window` already computed;
    ``inside``: prove the inner side by the branch and bound (``time_limit`` seconds per end)."""
    check_params(1.0, gamma, eps, d, L)
    delta = V.real("delta", delta, minimum=0.0, strict_min=True, maximum=1e-3, why="relative half-width of the enclosures")
    prec = V.integer("prec", prec, 53, why="bits of the ball arithmetic")
    time_limit = V.real("time_limit", time_limit, minimum=0.0, strict_min=True)
    if not isinstance(inside, bool):
        raise ValueError(f"inside must be True or False, got {inside!r}")
    w = window if window is not None else float_window(gamma=gamma, eps=eps, d=d, L=L, verify=verify)
    old = ctx.prec
    ctx.prec = int(prec)
    try:
        vals, ok, ok_in, encl = {}, [], [], []
        for name, x, mech, sign in (("lo", w.lo, w.mechanism_lo, -1), ("hi", w.hi, w.mechanism_hi, +1)):
            if mech is None:  # an end of the scanned range, not of W
                encl.append((x, x))
                ok.append(False)
                continue
            lam_out, lam_in = x * (1 + sign * delta), x * (1 - sign * delta)
            R, O, below = _witness(lam_out, gamma, eps, d, L)
            rec = {"lam_out": lam_out, "witness_risk": str(R), "oracle_risk": str(O), "witness_below_oracle": below,
                   "lam_in": lam_in}
            ins = False
            if inside:
                c = global_minimiser(lam=(lam_in, lam_in), gamma=gamma, eps=eps, d=d, L=L, time_limit=time_limit)
                ins = bool(c.proved and c.oracle)
                rec.update({"oracle_global_at_lam_in": ins, "inside_boxes": c.boxes, "inside_seconds": c.seconds})
            if mech == "local":
                det, tr, _ = window_kernels().arb(arb(lam_in), _fuzzy(gamma), arb(int(d)), arb(int(L)))
                rec.update({"lam_in": lam_in, "det_B": str(det), "trace_B": str(tr),
                            "oracle_local_min_at_lam_in": bool(det > 0 and tr > 0)})
            vals[name] = rec
            encl.append(tuple(sorted((lam_in, lam_out))))
            ok.append(below)
            ok_in.append(ins)
    finally:
        ctx.prec = old
    return WindowEnclosure(encl[0], encl[1], all(ok) and all(ok_in) and len(ok_in) == 2, all(ok),
                           (w.mechanism_lo, w.mechanism_hi), vals)
