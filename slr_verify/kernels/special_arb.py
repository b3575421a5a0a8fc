"""Enclosures of zeta and its complement on arb balls (:mod:`slr_verify.checker.special`, where they live: the checker
evaluates them), re-exported for the searches."""
from ..checker.special import erf_variance_arb, zeta_arb, zetac_arb  # noqa: F401  (re-exported for the searches)

