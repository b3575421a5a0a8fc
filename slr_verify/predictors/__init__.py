"""Predictors side by side at (k*, v*) (`docs/MATH.md` §18): the erf attention of the paper (Theorem 1's kernels),
softmax attention and the Bayes predictor (Monte Carlo routes), the best linear predictor (Proposition 3); and the erf
oracle's Bayes gap along Corollary 2's paths (`docs/MATH.md` §6: :mod:`.oracle_paths`)."""
from . import compare
from .compare import (
    Comparison,
    bayes_rate,
    compare_predictors,
    corollary2_path,
    erf_best_lam,
    paper_record,  # noqa: F401  (the results page's record)
    paper_settings,  # noqa: F401  (not exported: experiments.paper_settings is the public name)
    softmax_best_lam,
)
from .oracle_paths import decay_slope, log_gap_path, path_point, quad_log_gap

#: the four predictors compared (`docs/MATH.md` §18): erf attention, softmax attention, the best linear predictor, Bayes
LAW_NAMES = compare.LAW_NAMES
#: the paper's figures whose settings are compared (`docs/MATH.md` §11)
PAPER_FIGURES = compare.PAPER_FIGURES

__all__ = ["compare_predictors", "Comparison", "LAW_NAMES", "PAPER_FIGURES", "bayes_rate", "corollary2_path",
           "erf_best_lam", "softmax_best_lam", "path_point", "log_gap_path", "quad_log_gap", "decay_slope"]
