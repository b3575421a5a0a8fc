r"""The ball-arithmetic conventions of every proof and of the checker, in one place (`docs/MATH.md` §14).

* **Parameters to balls** (:func:`widened`): a float setting parameter (gamma, eps, lam of a point) is the ball one
  ulp wide either side, which holds the real number the float rounds (gamma = 0.7071067811865476 covers
  gamma^2 = 1/2 exactly); integers (d, L) and box end points are exact (:func:`ball`).
* **Boxes**: :func:`ball` (the hull of two exact floats), :func:`centre_radius` (a float centre and a radius rounded
  up so that the centred box holds the box).
* **Balls to floats** (:func:`outward`): the only place where a ball becomes floats; its ends rounded outward.
"""
from __future__ import annotations

import math

from flint import arb


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
