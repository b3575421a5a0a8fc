"""The checker's decisions on balls, in one place: each predicate is true only when it holds at every point of its
arguments (python-flint's comparisons of arb balls), so that a decision taken on enclosures holds for the exact
values they contain. Every test of the checker decides through these; their own tests put the balls' ends exactly on
the boundary (tests/test_checker_decide.py)."""
from __future__ import annotations

from flint import arb


def positive(x) -> bool:
    """Every point of the ball x is > 0."""
    return bool(arb(x) > 0)


def negative(x) -> bool:
    """Every point of the ball x is < 0."""
    return bool(arb(x) < 0)


def below(x, y) -> bool:
    """Every point of x is < every point of y."""
    return bool(arb(x) < arb(y))


def at_most(x, y) -> bool:
    """Every point of x is <= every point of y."""
    return bool(arb(x) <= arb(y))


def nonzero(x) -> bool:
    """The ball x is finite and does not contain 0."""
    x = arb(x)
    return x.is_finite() and not x.contains(0)


def inside(x, lo, hi) -> bool:
    """Every point of x lies in the open interval (lo, hi)."""
    return below(lo, x) and below(x, hi)
