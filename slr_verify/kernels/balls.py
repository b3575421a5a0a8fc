r"""The ball-arithmetic conventions every proof of the suite and its checker use, in one place (`docs/MATH.md` §14).

* **Parameters to balls** (:func:`widened`): a float setting parameter (gamma, eps, lam of a point) is taken as the
  ball one ulp wide either side, which holds the real number the float rounds (gamma = 0.7071067811865476 covers
  gamma^2 = 1/2 exactly); integers (d, L) and box end points are exact (:func:`ball`).
* **Boxes**: :func:`ball` (the hull of two exact floats), :func:`centre_radius` (a float centre and a radius rounded up
  so that the centred box holds the box).
* **Results to floats** (:func:`outward`): an enclosure's ends rounded outward by one ulp; every float bound taken of
  a ball goes through it. :func:`midpoint` is the one other conversion: a ball's centre as a float estimate (a choice
  of the searches, a preconditioner, a number in a message), never a bound.
* **lam pieces**: :func:`geometric_pieces` (relative width, for intervals spanning decades) and
  :func:`uniform_pieces` (equal pieces of width relative to the interval's start).

The conventions themselves live in the checker (:mod:`slr_verify.checker.balls`), re-exported here for the searches;
the lam pieces (NumPy) are the searches' own.
"""
from __future__ import annotations

import math

import numpy as np

from ..checker.balls import ball, centre_radius, outward, widened  # noqa: F401  (the searches import them from here)


def midpoint(x) -> float:
    """The ball ``x``'s midpoint rounded to the nearest float: an estimate, NOT a bound (it may lie on either side of
    the true value, and for a ball narrower than an ulp outside the ball). For bounds use :func:`outward`."""
    return float(x.mid())


def geometric_pieces(lo, hi, ratio):
    """[lo, hi] cut into pieces of relative width ``ratio`` (geometric)."""
    n = max(1, int(math.ceil(math.log(hi / lo) / math.log(1 + ratio)))) if hi > lo else 1
    edges = [lo * (hi / lo) ** (i / n) for i in range(n + 1)]
    edges[0], edges[-1] = lo, hi
    return list(zip(edges[:-1], edges[1:]))


def uniform_pieces(lo, hi, width=0.05):
    """[lo, hi] in equal pieces of width at most ``width`` times max(lo, 0.1) (boxes start local)."""
    n = max(1, math.ceil((hi - lo) / (width * max(lo, 0.1))))
    xs = np.linspace(lo, hi, n + 1)
    xs[0], xs[-1] = lo, hi
    return list(zip(xs[:-1], xs[1:])) if hi > lo else [(lo, hi)]
