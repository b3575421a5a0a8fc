"""The claims of the paper and the findings of the suite: each one decorated check
(:mod:`.claim`), evidence declared in a small vocabulary (:mod:`.vocabulary`), the registry and
its parallel runner (:mod:`.registry`), and the report (:mod:`.report`)."""

from .base import Claim, Context, Result, claim
from .registry import CLAIMS, get, ids, run_claims
from .vocabulary import TIERS, VERDICTS, Evidence, verdict

__all__ = [
    "CLAIMS",
    "Claim",
    "Context",
    "Evidence",
    "Result",
    "TIERS",
    "VERDICTS",
    "claim",
    "verdict",
    "get",
    "ids",
    "run_claims",
]
