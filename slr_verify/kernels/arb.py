r"""Ball-arithmetic kernels generated at run time: SymPy expressions -> functions on python-flint ``arb`` balls.

The searches' kernels that the checker does not evaluate (its own are committed files, :mod:`.premises`) are printed by
the same printer, :func:`.arb_source.function_source` (which refuses what balls cannot evaluate soundly), and run on
the same runtime, :mod:`slr_verify.checker.runtime` and :mod:`slr_verify.checker.zeta_runtime`: every operation is an
arb operation, so the result is an enclosure for every point of the argument balls, and the functions also take
``arb_series`` (Taylor arithmetic: with a ball as the constant term, the k-th coefficient encloses the k-th Taylor
coefficient over the whole ball) and, for rational operations, the checker's Taylor models. The working precision is
``flint.ctx.prec`` (bits) at the time of the call.

`docs/MATH.md` §14 (evidence tiers): these kernels are the route of the ``proved (ball arithmetic)`` tier.
"""
from __future__ import annotations

from flint import arb

from ..checker import runtime, zeta_runtime
from .arb_source import function_source

#: what the printed source calls
NAMESPACE = {"arb": arb, **{n: getattr(runtime, n) for n in runtime.CALLABLE if n != "arb"},
             **{n: getattr(zeta_runtime, n) for n in zeta_runtime.CALLABLE}}


def generate_arb(args, exprs, series=False):
    """A function of arb balls ``args`` returning enclosures of ``exprs`` (a list); ``series`` is accepted for the
    callers that pass ``arb_series`` (every kernel takes them)."""
    ns = dict(NAMESPACE)
    exec(compile(function_source("kernel", args, exprs, "generated at run time"), "<generate_arb>", "exec"), ns)
    return ns["kernel"]
