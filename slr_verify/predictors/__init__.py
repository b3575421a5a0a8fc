"""Predictors side by side at (k*, v*) (`docs/MATH.md` §18): the erf attention of the paper (Theorem 1's kernels),
softmax attention and the Bayes predictor (Monte Carlo routes), the best linear predictor (Proposition 3)."""
from .compare import (
    LAW_NAMES,
    PAPER_FIGURES,
    Comparison,
    bayes_rate,
    compare_predictors,
    corollary2_path,
    erf_best_lam,
    paper_record,
    paper_settings,
    softmax_best_lam,
)

__all__ = ["LAW_NAMES", "PAPER_FIGURES", "Comparison", "bayes_rate", "compare_predictors", "corollary2_path", "erf_best_lam",
           "paper_record", "paper_settings", "softmax_best_lam"]
