"""slr-verify: a symbolic-numeric verification suite for single-location regression (Marion, Berthier, Biau, Boyer,
ICLR 2025, arXiv 2410.01537): the mathematics and the claims in docs/MATH.md, the layers in `docs/architecture.md`.
The public names are imported on first use (:mod:`._exports`)."""
import importlib

__version__ = "0.1.0"
__all__ = ["zeta", "risk", "risk_gradient", "oracle_risk", "manifold_risk", "bayes_gap", "log_bayes_gap", "linear_risk",
           "multihead_risk", "mc_risk", "mc_risk_overlaps", "quad_risk", "quad_risk_gradient", "quad_zeta", "quad_bayes_gap",
           "bayes_risk", "bayes_excess", "softmax_risk", "softmax_excess", "pgd", "overlap_pgd", "reduced_pgd"]


def __getattr__(name):
    return importlib.import_module(f"{__name__}._exports").resolve(name, globals())


def __dir__():
    return sorted(set(globals()) | set(__all__))
