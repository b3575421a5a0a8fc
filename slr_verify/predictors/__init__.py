"""Predictors side by side at (k*, v*) (`docs/MATH.md` §18): the erf attention of the paper (Theorem 1's kernels),
softmax attention and the Bayes predictor (Monte Carlo routes), the best linear predictor (Proposition 3); and the erf
oracle's Bayes gap along Corollary 2's paths (`docs/MATH.md` §6: :mod:`.oracle_paths`)."""
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
from .oracle_paths import decay_slope, log_gap_path, path_point, quad_log_gap

__all__ = ["LAW_NAMES", "PAPER_FIGURES", "Comparison", "bayes_rate", "compare_predictors", "corollary2_path", "erf_best_lam",
           "paper_record", "paper_settings", "softmax_best_lam", "path_point", "log_gap_path", "quad_log_gap", "decay_slope"]
