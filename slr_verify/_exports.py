"""The top-level public names of :mod:`slr_verify` (its ``__all__``) and the module each comes from, imported on first
use (PEP 562) by the package's ``__getattr__``: ``import slr_verify`` and the command line start fast (a Ctrl-C during
start-up is handled by the CLI, which imports the heavy modules inside its error handling), and a replay of the
checker, which imports the package root, loads none of this."""
from __future__ import annotations

import importlib

EXPORTS = {
    **{name: ".kernels.api" for name in ("bayes_gap", "linear_risk", "log_bayes_gap", "manifold_risk", "oracle_risk", "risk",
                                          "risk_gradient", "zeta")},
    "multihead_risk": ".kernels.multihead",
    **{name: ".routes" for name in ("mc_risk", "mc_risk_overlaps", "quad_bayes_gap", "quad_risk", "quad_risk_gradient",
                                     "quad_zeta")},
    **{name: ".routes" for name in ("bayes_excess", "bayes_risk", "softmax_excess", "softmax_risk")},
    **{name: ".dynamics" for name in ("overlap_pgd", "pgd", "reduced_pgd")},
}

def resolve(name, namespace):
    """The package's attribute ``name``: a public name (cached in the package's ``namespace``) or a subpackage
    (``slr_verify.kernels``, ... as after an explicit import); AttributeError otherwise."""
    if name in EXPORTS:
        value = getattr(importlib.import_module(EXPORTS[name], "slr_verify"), name)
        namespace[name] = value
        return value
    if not name.startswith("_"):
        try:
            return importlib.import_module(f".{name}", "slr_verify")
        except ModuleNotFoundError as exc:
            if exc.name != f"slr_verify.{name}":
                raise
    raise AttributeError(f"module 'slr_verify' has no attribute {name!r}")
