"""The claims of the paper and the findings of the suite: each one decorated check
(:mod:`.base`), evidence declared in a small vocabulary (:mod:`.vocabulary`), the registry
(:mod:`.registry`) and its parallel runner (:mod:`.runner`), and the report (:mod:`.report`). At a user's setting
(``run_claims(setting=...)``) the parameterised claims run there, the others at the paper's."""

from .base import Claim, ClaimSetting, Context, Result, claim
from .registry import CLAIMS, get, ids, parameterised
from .runner import run_claims
from .vocabulary import TIERS, VERDICTS, Evidence, verdict

__all__ = [
    "CLAIMS",
    "Claim",
    "ClaimSetting",
    "Context",
    "Evidence",
    "Result",
    "TIERS",
    "VERDICTS",
    "claim",
    "verdict",
    "get",
    "ids",
    "parameterised",
    "run_claims",
]
