"""Claims as data (:mod:`.model`), the registry of the paper's claims and the suite's findings
(:mod:`.registry`), their checks, and the report (:mod:`.report`)."""
from .model import VERDICTS, Claim, Context, Evidence, Result, verdict
from .registry import CLAIMS, get, ids, run_claims

__all__ = ["CLAIMS", "Claim", "Context", "Evidence", "Result", "VERDICTS", "verdict", "get", "ids", "run_claims"]
