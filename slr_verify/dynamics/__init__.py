"""Training dynamics (`docs/MATH.md` §§8-13): PGD runners (full-dimensional, five-overlap,
reduced on M), SGD on sampled batches, Propositions 9-10 numerically, stationary points off M, runs
continued to convergence, and the paper's experiments. Uses the kernels only (no SymPy)."""
from .runners import overlap_pgd, pgd, reduced_pgd
from .sgd import sgd
from .trajectory import Trajectory

__all__ = ["pgd", "overlap_pgd", "reduced_pgd", "sgd", "Trajectory"]
