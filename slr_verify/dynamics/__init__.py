"""Training dynamics (SPEC 8-12): PGD runners, Lemma 4, Propositions 9-10, Theorem 5, experiments."""
from .runners import overlap_pgd, pgd, reduced_pgd
from .trajectory import Trajectory

__all__ = ["pgd", "overlap_pgd", "reduced_pgd", "Trajectory"]
from .sgd import sgd
from .claims import (check_lemma4, check_off_M, check_proposition9, check_proposition10, check_schedule_recovery,
                     check_theorem5)

__all__ += ["sgd", "check_lemma4", "check_proposition9", "check_proposition10", "check_theorem5", "check_off_M",
            "check_schedule_recovery"]
