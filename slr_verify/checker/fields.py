"""The checker's reading of a certificate's fields (`docs/certificates.md`): exact numbers, intervals, integers and
objects with exactly the admitted keys; anything else is :class:`Rejected`, naming the field."""
from __future__ import annotations

import math


class Rejected(Exception):
    """A certificate that does not prove its statement (the message names the field or the test and how)."""


def number(x, what, positive=False) -> float:
    """x as a float (a JSON number, exactly a binary float, finite; > 0 if ``positive``), or Rejected naming ``what``."""
    if isinstance(x, bool) or not isinstance(x, (int, float)):
        raise Rejected(f"{what} is not a number: {x!r}")
    try:
        f = float(x)
    except OverflowError:
        raise Rejected(f"{what} is not a finite float: {x!r}") from None
    if not math.isfinite(f) or f != x:
        raise Rejected(f"{what} is not a finite float (exactly): {x!r}")
    if positive and not f > 0:
        raise Rejected(f"{what} must be > 0, got {f!r}")
    return f


def interval(iv, what) -> tuple:
    """A [lo, hi] pair of exact floats with lo <= hi, or Rejected naming ``what``."""
    if not (isinstance(iv, list) and len(iv) == 2):
        raise Rejected(f"{what} is not a [lo, hi] pair: {iv!r}")
    lo, hi = number(iv[0], what), number(iv[1], what)
    if not lo <= hi:
        raise Rejected(f"{what} has lo > hi: {iv!r}")
    return lo, hi


def integer(x, what, lo, hi) -> int:
    """x as an int (a JSON integer, not a float or a bool) in [lo, hi], or Rejected naming ``what``."""
    if type(x) is not int or not lo <= x <= hi:
        raise Rejected(f"{what} must be an integer in [{lo}, {hi}], got {x!r}")
    return x


def keys(obj, what, required, optional=()) -> dict:
    """``obj`` as a dict with every key of ``required`` and no key outside ``required`` and ``optional``."""
    if not isinstance(obj, dict):
        raise Rejected(f"{what} must be an object, got {type(obj).__name__}")
    missing, unknown = set(required) - set(obj), set(obj) - set(required) - set(optional)
    if missing:
        raise Rejected(f"{what} lacks the field(s) {sorted(missing)}")
    if unknown:
        raise Rejected(f"{what} has unknown field(s) {sorted(map(str, unknown))}")
    return obj


def matrix(x, n, what) -> list:
    """An n x n list of exact floats."""
    if not (isinstance(x, list) and len(x) == n and all(isinstance(r, list) and len(r) == n for r in x)):
        raise Rejected(f"{what} must be a {n} x {n} list, got {x!r}")
    return [[number(v, what) for v in r] for r in x]
