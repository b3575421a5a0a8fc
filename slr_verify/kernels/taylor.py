"""First-order Taylor models (:mod:`slr_verify.checker.taylor`, where they live: the checker evaluates them), re-exported
for the searches, with the searches' split heuristic :func:`terms`."""
from flint import arb

from ..checker.taylor import TaylorModel

__all__ = ["TaylorModel", "terms"]


def terms(tm) -> tuple:
    """Estimates (floats, for choosing a split axis) of |g_i| r_i, the linear part's width along each axis, and of |R|."""
    return [float((abs(gi) * arb(ri)).upper()) for gi, ri in zip(tm.g, tm.r)], float(abs(tm.R).upper())
