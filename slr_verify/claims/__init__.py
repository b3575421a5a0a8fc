"""The claims of the paper and the findings of the suite: each one decorated check
(:mod:`.base`), evidence declared in a small vocabulary (:mod:`.vocabulary`), the registry
(:mod:`.registry`) and its parallel runner (:mod:`.runner`), and the report (:mod:`.report`). At a user's setting
(``run_claims(setting=...)``) the parameterised claims run there, the others at the paper's."""

from . import registry, vocabulary
from .base import Claim, ClaimSetting, Context, Result, claim
from .registry import get, ids, parameterised
from .runner import run_claims
from .vocabulary import Evidence, verdict

#: every claim and finding, in the report's order (:class:`Claim` values; the table of `docs/claims.md`)
CLAIMS = registry.CLAIMS
#: the tiers of evidence, strongest first: proved (symbolic), proved (ball arithmetic), ... , numeric, statistical
TIERS = vocabulary.TIERS
#: the verdicts a claim can earn: pass, fail, refuted, pending, not run (a missing optional extra, never a failure)
VERDICTS = vocabulary.VERDICTS

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
