r"""The ball-arithmetic conventions of every proof and of the checker, in one place (`docs/MATH.md` §14): the setting
to balls (:func:`param_ball`: gamma and eps one ulp wide either side, so gamma = 0.7071067811865476 covers gamma^2 =
1/2; d and L exact), boxes (:func:`ball`, :func:`centre_radius`), and balls to floats, rounded outward (:func:`outward`).
"""
from __future__ import annotations

import math
from typing import NamedTuple

from flint import arb


class ParamBalls(NamedTuple("ParamBalls", [("gamma", arb), ("eps", arb), ("d", arb), ("L", arb)])):
    """The setting (gamma, eps, d, L) as balls (:func:`param_balls`); ``kw(*names)``: some (all) as a kernel's keywords."""

    def kw(self, *names) -> dict:
        return {n: getattr(self, n) for n in names or self._fields}


def param_ball(name, x) -> arb:
    """The ball of the setting's parameter ``name`` at the float x, the one place of the convention (a line a parameter):
    gamma and eps one ulp wide either side, d and L exact. The searches, the checker and binding all read it here."""
    return {"gamma": widened, "eps": widened, "d": arb, "L": arb}[name](x)


def param_balls(gamma, eps, d, L) -> ParamBalls:
    """The setting's balls (:func:`param_ball` for each parameter)."""
    return ParamBalls(*(param_ball(n, x) for n, x in zip(ParamBalls._fields, (gamma, eps, d, L))))


def ball(lo, hi=None) -> arb:
    """The ball [lo, hi] (exact float end points); ``ball(x)`` is the exact float x."""
    hi = lo if hi is None else hi
    return arb(float(lo)).union(arb(float(hi)))


def widened(x) -> arb:
    """x as a ball one ulp wide either side (it covers the real number the float rounds); 0 stays exact."""
    x = float(x)
    return arb(x, math.ulp(x)) if x else arb(0)


def outward(x: arb) -> tuple:
    """(lo, hi) floats enclosing the ball x: each end rounded to a float, then one ulp outward (float() of an arb
    end rounds to nearest, so the ulp makes it safe)."""
    return math.nextafter(float(x.lower()), -math.inf), math.nextafter(float(x.upper()), math.inf)


def centre_radius(a, b) -> tuple:
    """(c, r) floats with [c - r, c + r] containing [a, b] (r rounded up by one ulp)."""
    c = 0.5 * (a + b)
    return c, (math.nextafter(max(c - a, b - c), math.inf) if b > a else 0.0)
