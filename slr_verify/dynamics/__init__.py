"""Training dynamics (`docs/MATH.md` §§8-13): PGD runners (full-dimensional, five-overlap,
reduced on M), SGD on sampled batches, Propositions 9-10 numerically, stationary points off M, runs
continued to convergence, and the paper's experiments. Uses the kernels only (no SymPy)."""
from . import multihead
from .convergence import classify_recovery, converge
from .experiments import run_figure, run_setting
from .family_search import find_stationary_points_off_M
from .fixed_points import alpha_max_diffeo, classify_point, classify_points, hessian_at, jacobian_at, predicted_rates
from .multihead import MultiheadTrajectory, figure9, multihead_pgd, multihead_sgd
from .runners import overlap_pgd, pgd, reduced_pgd  # noqa: F401  (exported by slr_verify)
from .sgd import sgd
from .trajectory import Trajectory

#: Figure 9's setting (`docs/MATH.md` §15): Figure 5's with H = K = 2 heads and locations, 100k steps, 20 repetitions
FIGURE9 = multihead.FIGURE9

__all__ = ["sgd", "Trajectory", "run_figure", "run_setting", "converge", "classify_recovery", "hessian_at",
           "jacobian_at", "classify_point", "classify_points", "predicted_rates", "alpha_max_diffeo",
           "find_stationary_points_off_M", "multihead_pgd", "multihead_sgd", "MultiheadTrajectory", "figure9",
           "FIGURE9"]
