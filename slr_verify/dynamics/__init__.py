"""Training dynamics (SPEC 8-12): PGD runners, Lemma 4, Propositions 9-10, Theorem 5, experiments."""
from .runners import overlap_pgd, pgd, reduced_pgd
from .trajectory import Trajectory

__all__ = ["pgd", "overlap_pgd", "reduced_pgd", "Trajectory"]
