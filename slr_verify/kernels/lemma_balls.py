r"""Lemma 16 by ball arithmetic (`docs/MATH.md` §20): |1/sqrt(1 + u) - 1| <= u/2 for every u >= 0, on python-flint arb balls.

Written as two inequalities g_+-(u) = u/2 +- (1/sqrt(1 + u) - 1) >= 0
(:func:`slr_verify.symbolic.lemmas.lemma16_sides`), each is proved on three pieces: near 0, on [0, delta], by Taylor's
theorem with Lagrange remainder, g(u) = sum_{k<n} g^(k)(0) u^k/k! + g^(n)(xi) u^n/n!, every g^(k)(0), k < n, enclosed
and found exactly 0 or > 0 and g^(n) enclosed over the whole ball [0, delta] and found > 0 (n the first order for which
it is); on [delta, U] by adaptive bisection, every box's enclosure of g > 0; for u >= U >= 2 by the one-line tail
0 <= 1 - 1/sqrt(1 + u) <= 1 <= U/2 <= u/2 (and 1/sqrt(1 + u) - 1 <= 0 <= u/2), checked as the arb comparison U/2 >= 1.
The derivatives are SymPy's, evaluated on balls by the suite's arb printer (:func:`slr_verify.kernels.arb.generate_arb`):
every operation an arb operation, so each enclosure holds for every point of its ball.
"""
from __future__ import annotations

import time

import sympy as sp
from flint import arb, ctx

from ..model import validation as V
from ..model.params import keywords_checked
from ..symbolic.lemmas import U, lemma16_sides
from .arb import generate_arb


def _ball(lo, hi):
    """The arb ball [lo, hi] (dyadic floats: exact midpoint and radius)."""
    return arb((lo + hi) / 2, (hi - lo) / 2)


def _taylor_at_zero(g, delta, max_order=6):
    """Taylor's theorem at 0 on [0, delta]: (proved, order n, the enclosures of g^(k)(0), k < n, and of g^(n) on the
    ball). Proved when every g^(k)(0), k < n, is exactly 0 or > 0 (their terms are >= 0 for u >= 0) and g^(n) > 0 on
    [0, delta]."""
    derivs = [g]
    for _ in range(max_order):
        derivs.append(sp.diff(derivs[-1], U))
    fns = [generate_arb([U], [e]) for e in derivs]
    at0 = []
    for n, fn in enumerate(fns):
        whole = fn(_ball(0.0, delta))[0]
        if whole > 0:
            return True, n, [str(x) for x in at0], str(whole)
        v = fn(arb(0))[0]
        at0.append(v)
        if not (v == 0 or v > 0):  # a negative or undecided low term: this route does not prove it
            return False, n, [str(x) for x in at0], str(whole)
    return False, max_order, [str(x) for x in at0], None


def _bisect(g, lo, hi, max_boxes):
    """Adaptive bisection of [lo, hi]: (every box's enclosure of g > 0, boxes used, the narrowest width)."""
    fn = generate_arb([U], [g])
    stack, boxes, narrow = [(lo, hi)], 0, hi - lo
    while stack:
        a, b = stack.pop()
        boxes += 1
        if boxes > max_boxes:
            return False, boxes, narrow
        if fn(_ball(a, b))[0] > 0:
            narrow = min(narrow, b - a)
            continue
        m = (a + b) / 2
        if not a < m < b:
            return False, boxes, narrow
        stack += [(a, m), (m, b)]
    return True, boxes, narrow


@keywords_checked
def lemma16_ball(*, upper=4.0, delta=0.0625, prec=64, max_boxes=20000) -> dict:
    """Lemma 16 for every u >= 0 by ball arithmetic (the module's three pieces): Taylor on [0, ``delta``], bisection of
    [``delta``, ``upper``] (at most ``max_boxes`` boxes per side), the tail u >= ``upper`` (needs ``upper`` >= 2); arb
    at ``prec`` bits. ``delta`` and ``upper`` are rounded to dyadic floats, 0 < delta < upper <= 1e6. Returns
    {proved, sides: {name: {taylor_order, at_zero, remainder, boxes, narrowest}}, tail, seconds}. Bad input:
    ``ValueError`` naming it."""
    upper = V.real("upper", upper, minimum=2.0, maximum=1e6, why="the tail argument needs upper >= 2")
    delta = V.real("delta", delta, minimum=0.0, strict_min=True, maximum=upper / 2)
    prec = V.integer("prec", prec, 53, 4096)
    max_boxes = V.integer("max_boxes", max_boxes, 1, 10**6)
    t0, old = time.perf_counter(), ctx.prec
    ctx.prec = prec
    try:
        sides, ok = {}, True
        for name, g in zip(("u/2 - (1/sqrt(1+u) - 1) >= 0", "u/2 + (1/sqrt(1+u) - 1) >= 0"), lemma16_sides()):
            t_ok, order, at0, rem = _taylor_at_zero(g, delta)
            b_ok, boxes, narrow = _bisect(g, delta, upper, max_boxes)
            sides[name] = dict(taylor=t_ok, taylor_order=order, at_zero=at0, remainder=rem, bisection=b_ok, boxes=boxes,
                               narrowest=narrow)
            ok = ok and t_ok and b_ok
        tail = bool(arb(upper) / 2 >= 1)
    finally:
        ctx.prec = old
    return dict(proved=bool(ok and tail), sides=sides, tail=tail, upper=upper, delta=delta, prec=prec,
                seconds=round(time.perf_counter() - t0, 3), boxes=sum(s["boxes"] for s in sides.values()),
                domain="u in [0, oo): Taylor on [0, delta], boxes on [delta, upper], the tail beyond")
