"""Outside the oracle's window (a point lam): boxes of the quarter disk that enclose every global minimiser, and
an enclosure of the global minimum between their bound and an explicit witness pair (`docs/MATH.md` §17)."""
from __future__ import annotations

import math
import time

import numpy as np
from flint import arb, ctx

from ..checker.fields import Rejected
from ..checker.profile import pair_risk
from ..kernels.balls import midpoint, outward
from ..landscape.float_minimiser import angle_chart
from ..landscape.trs import profile
from . import bisection as B
from . import certificate as C
from .dual_box import Box, constant_U, value_test
from .global_result import GlobalCertificate


def enclose(ev, lo, hi, at, max_boxes, min_width, risk_tol, deadline, t0, bar):
    """Outside W (a point lam): boxes that may hold the global minimiser, against a witness (the incumbent); a box is
    kept (a ``bound`` leaf) once its lower bound is within ``risk_tol`` of the witness's risk and H - mu I is certified
    positive definite on it (otherwise the number is no lower bound: the box is split). The witness starts at the float
    minimiser and is replaced whenever the float profile at a small failing box's centre is lower (its risk certified
    on arb balls, :func:`slr_verify.checker.profile.pair_risk`): the float search can miss the minimiser by ~1e-6 near
    the hard case at k = v*, and a box around the true minimiser never comes within ``risk_tol`` of a witness above it.
    The witness's certified upper end only decreases, so a box excluded against an earlier witness is excluded against
    the last one (the checker tests every value leaf against the last)."""
    if hi > lo:
        return GlobalCertificate(False, "outside the oracle's window only a point lam is supported", (math.nan, math.nan), [],
                                 0, time.time() - t0, (lo, hi), False)
    g = min(at, key=lambda x: x.risk)
    W, where = _witness(ev, lo, *angle_chart(*g.chart))
    state = {"W": W, "where": where, "U": constant_U(W), "updates": 0}
    tree = C.SplitTree(((0.0, 1.0), (0.0, 1.0), (lo, hi)))
    stack = [Box.of(tree, j) for i in tree.grid(tree.root, 0, np.linspace(0, 1, 9)[1:-1])
             for j in tree.grid(i, 1, np.linspace(0, 1, 5)[1:-1])]
    ctl = (ev, lo, min_width, bar, state)
    # two passes: a tolerance the hard case at k = v* can meet (1e-10), then the kept boxes again at risk_tol (its
    # minimiser's location to ~1e-6 elsewhere); the finer pass replaces the coarser only if it closes
    first = max(risk_tol, 1e-10)
    keep, lows, status = _enclose_pass(ctl, stack, first, deadline, max_boxes)
    if status == "done" and risk_tol < first:
        saved = dict(tree.nodes)
        k2, l2, s2 = _enclose_pass(ctl, [Box.of(tree, b.node) for b in keep], risk_tol,
                                   min(deadline, time.time() + 60.0), 50_000)
        if s2 == "done" and k2:
            keep, lows = k2, l2
        else:
            tree.nodes = saved
    return _enclosure_result(ev, lo, hi, g, tree, keep, lows, status, state, deadline, t0)


def _witness(ev, lam, kappa, eta):
    """(R, where): the certified risk ball of the pair at (kappa, eta) and lam, and the pair's record with kappa, eta."""
    pair, R = certified_pair(kappa, eta, lam=lam, setting=ev.S)
    return R, dict(pair, kappa=float(kappa), eta=float(eta))


def _improve_witness(ev, lam, bx, tol, state):
    """Replace ``state``'s witness by a pair at the box's centre kappa whose certified risk is lower (the float hint)."""
    kc = 0.5 * (bx.x[0] + bx.x[1])
    for t in bx.y:
        eta = math.sqrt(max(0.0, t * (1 - kc * kc)))
        if float(profile(kc, eta, lam=lam, **ev.kw).risk) < midpoint(state["W"]) - 0.5 * tol:
            Wn, at_n = _witness(ev, lam, kc, eta)
            if Wn.upper() < state["W"].upper():
                state.update(W=Wn, where=at_n, updates=state["updates"] + 1, U=constant_U(Wn))


def _enclose_pass(ctl, stack, tol, stop, cap):
    """One pass of :func:`enclose` at ``tol``: (kept + unresolved boxes, lower bounds, "done"/"budget"/"min_width")."""
    ev, lam, min_width, bar, state = ctl
    keep, lows, n0 = [], [], ev.count
    tree = stack[0].tree if stack else None

    def step(i, box):
        bx = Box.of(tree, i)
        bar.update()
        o = value_test(ev, bx, state["U"], tol=tol)
        if o.passed:
            return B.Leaf({"test": "value", "beta": o.beta})
        low = -math.inf if o.F is None else min(outward(F)[0] for F in o.F)  # a choice: kept or split
        if low > -tol and o.pd:
            if max(outward(F)[0] for F in o.F) > tol and bx.y[1] - bx.y[0] > max(min_width, 4 * math.ulp(1.0)):
                return B.Split(1)  # one end is excluded already: a shorter line localises the minimiser
            keep.append(bx)
            lows.append(min(arb(e.lower()) for e in o.ends))  # m >= LB on the box (H - mu I positive definite)
            return B.Leaf({"test": "bound", "beta": o.beta})
        if bx.width() < 1e-3:
            _improve_witness(ev, lam, bx, tol, state)
        if bx.width() < min_width:
            return B.Fail("narrower than min_width")
        return B.Split(o.axis if o.axis is not None else 0)

    if tree is None:
        return keep, lows, "done"
    run = B.run(tree, step, roots=[b.node for b in reversed(stack)], upper_first=True,
                stop=lambda: "budget" if ev.count - n0 >= cap or time.time() > stop else None)
    left = [Box.of(tree, i) for i in run.failed + run.open[::-1]]  # the stack's order, as the search left it
    return (keep + left, lows, {"done": "done", "budget": "budget"}.get(run.status, "min_width"))


def _enclosure_result(ev, lo, hi, g, tree, keep, lows, status, state, deadline, t0):
    """:func:`enclose`'s GlobalCertificate: [kept boxes' bound, witness] and the document (with the circle) if closed."""
    W, where, updates = state["W"], state["where"], state["updates"]
    proved = status == "done" and bool(keep)
    risk = (outward(min(min(lows), arb(W.lower())))[0], outward(W)[1]) if proved else (math.nan, outward(W)[1])
    ov = {"float_minimiser": g.overlaps}
    reason = ("the global minimiser lies in the kept boxes (every other box has a weak-duality bound above the witness); "
              "the global minimum is within [the kept boxes' bound, witness]" if proved else f"not closed ({status})")
    doc = None
    if proved:
        wit = {k: where[k] for k in ("a", "b", "x")}
        circle = _circle(ev, lo, keep, deadline)
        doc = C.document("global-minimum-enclosure", ev.setting, tree, witness=wit, prec=ctx.prec,
                         search={"boxes": ev.count, "seconds": time.time() - t0, "witness_updates": updates},
                         extra={"circle": circle} if circle else None)
    return GlobalCertificate(proved, reason, risk, [{"lam": (lo, hi), "overlaps": ov}], ev.count, time.time() - t0, (lo, hi),
                             False, {"kept_boxes": len(keep), "witness": {"kappa": where["kappa"], "eta": where["eta"]},
                                     "witness_risk": str(W), "witness_updates": updates}, doc)


def _circle(ev, lam, kept, deadline, depth=12):
    """Pieces of the circle test (:func:`slr_verify.checker.profile.check_circle`) over the kept boxes' kappa
    range, or None: per piece a bracket of beta around the float TRS's optimal multiplier at t = 1 at the piece's
    centre (relative widths 1e-6 .. 1e-2 tried), halving a piece that fails, ``depth`` times at most."""
    from ..checker.profile import check_circle

    k_lo, k_hi = min(b.x[0] for b in kept), max(b.x[1] for b in kept)
    tree, out = C.SplitTree(((k_lo, k_hi),), names=("kappa",)), []

    def step(i, box):
        K, = box
        kc = 0.5 * (K[0] + K[1])
        mu = float(profile(kc, math.sqrt(max(0.0, 1 - kc * kc)), lam=lam, **ev.kw).mu)
        beta = float(np.asarray(ev.K.coef_f64(kc, lam, ev.gamma, ev.eps, ev.d, ev.L)[0])) - mu
        for rho in (1e-6, 1e-4, 1e-2):
            piece = {"kappa": [K[0], K[1]], "beta": [beta * (1 - rho), beta * (1 + rho)]}
            try:
                if beta > 0:
                    check_circle(ev.S, [piece], [((K[0], K[1]), (1.0, 1.0), (lam, lam))], lam)
                    out.append(piece)
                    return B.Leaf({})
            except (Rejected, ValueError, ZeroDivisionError):
                continue
        halvings = round(math.log2((k_hi - k_lo) / (K[1] - K[0])))
        return B.Fail(f"no circle test on {K}") if halvings >= depth else B.Split(0)

    if not B.run(tree, step, seconds=deadline - time.time()).proved:
        return None
    return sorted(out, key=lambda p: p["kappa"][0])


def certified_pair(kappa, eta, *, lam, setting) -> tuple:
    """The explicit pair at (kappa, eta) of the quarter disk with the float TRS's v there, as exact floats {a, b, x}
    (k = cos b cos a k* + cos b sin a v* + sin b e, v = x / |x|: a witness of a certificate), and its risk at ``lam``
    certified on arb balls (:func:`~slr_verify.checker.profile.pair_risk`; ``setting``: a
    :class:`~slr_verify.checker.profile.SettingBalls`)."""
    kappa, eta = float(kappa), float(eta)
    kw = {"gamma": setting.gamma, "eps": setting.eps, "d": setting.d, "L": setting.L}
    x = [float(v) for v in np.asarray(profile(kappa, eta, lam=lam, **kw).x, float).ravel()]
    a = math.atan2(eta, kappa)
    b = math.asin(min(1.0, math.sqrt(max(0.0, 1.0 - kappa**2 - eta**2))))
    return {"a": a, "b": b, "x": x}, pair_risk(setting, arb(lam), a, b, x)
