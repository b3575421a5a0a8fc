"""First-order Taylor models (:mod:`slr_verify.checker.taylor`, where they live: the checker evaluates them), re-exported
for the searches, with the searches' split heuristic :func:`terms`."""
from flint import arb

from ..checker.balls import outward
from ..checker.taylor import TaylorModel  # noqa: F401  (re-exported for the searches)


def terms(tm) -> tuple:
    """Upper bounds of |g_i| r_i (the linear part's width along each axis) and of |R| (floats, for choosing a split
    axis)."""
    return [outward(abs(gi) * arb(ri))[1] for gi, ri in zip(tm.g, tm.r)], outward(abs(tm.R))[1]
