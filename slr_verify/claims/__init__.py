"""Claims of the paper and the ``slr-verify check`` report."""
from .registry import CLAIMS, Claim, run_claims

__all__ = ["CLAIMS", "Claim", "run_claims"]
