"""slr-verify: a symbolic-numeric verification suite for single-location regression (Marion, Berthier, Biau, Boyer,
ICLR 2025, arXiv 2410.01537): the mathematics and the claims in docs/MATH.md, the layers in `docs/architecture.md`.
"""
__version__ = "0.1.0"

import importlib

#: the public names and the module each comes from; imported on first use (PEP 562), so that
#: ``import slr_verify`` and the command line start fast (a Ctrl-C during start-up is handled by
#: the CLI, which imports the heavy modules inside its error handling)
_EXPORTS = {
    **{name: ".kernels.api" for name in ("bayes_gap", "linear_risk", "log_bayes_gap", "manifold_risk", "oracle_risk", "risk",
                                          "risk_gradient", "zeta")},
    "multihead_risk": ".kernels.multihead",
    **{name: ".routes" for name in ("mc_risk", "mc_risk_overlaps", "quad_bayes_gap", "quad_risk", "quad_risk_gradient",
                                     "quad_zeta")},
    **{name: ".routes" for name in ("bayes_excess", "bayes_risk", "softmax_excess", "softmax_risk")},
    **{name: ".dynamics" for name in ("overlap_pgd", "pgd", "reduced_pgd")},
}

__all__ = ["zeta", "risk", "risk_gradient", "oracle_risk", "manifold_risk", "bayes_gap", "log_bayes_gap", "linear_risk",
           "multihead_risk", "mc_risk", "mc_risk_overlaps", "quad_risk", "quad_risk_gradient", "quad_zeta", "quad_bayes_gap",
           "bayes_risk", "bayes_excess", "softmax_risk", "softmax_excess", "pgd", "overlap_pgd", "reduced_pgd"]


def __getattr__(name):
    if name in _EXPORTS:
        value = getattr(importlib.import_module(_EXPORTS[name], __name__), name)
        globals()[name] = value
        return value
    if not name.startswith("_"):
        try:  # the subpackages (slr_verify.kernels, ...), as after an explicit import
            return importlib.import_module(f".{name}", __name__)
        except ModuleNotFoundError as exc:
            if exc.name != f"{__name__}.{name}":
                raise
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__():
    return sorted(set(globals()) | set(__all__))
