"""The independent routes (`docs/MATH.md` §§2-6, 15, 18): references the float64 kernels are checked against, sharing
no formula code with them (no SymPy, no kernels: an import-linter contract). mpmath quadrature of the definitions at
any precision, Monte Carlo simulation of the model (full-dimensional or d-free), and the Bayes and softmax routes.

The routes a user calls first are at the package's top (``slr_verify.quad_risk``, ``slr_verify.mc_risk``,
``slr_verify.bayes_excess``, ...; they live here and are exported there, once); ``__all__`` holds the others. The
modules below (``quadrature``, ``montecarlo``, ``gauss_quad``, ...) are the routes' internals."""
from .bayes import LogMCResult, bayes_excess, bayes_risk, bayes_risk_full, log_bayes_excess_bound, softmax_excess, softmax_risk  # noqa: F401  (exported by slr_verify)
from .erf_moments import quad_erf_moment
from .mc_engine import MCResult
from .montecarlo import LinearFit, fit_linear_risk, mc_risk, mc_risk_overlaps  # noqa: F401  (exported by slr_verify)
from .multilocation import mc_multihead_risk, quad_head_pair
from .quadrature import (  # noqa: F401  (exported by slr_verify)
           claimed_digits,
           quad_bayes_gap,
           quad_manifold_risk,
           quad_oracle_risk,
           quad_risk,
           quad_risk_gradient,
           quad_zeta,
)

__all__ = ["quad_oracle_risk", "quad_manifold_risk", "quad_erf_moment", "quad_head_pair", "claimed_digits",
           "mc_multihead_risk", "MCResult", "fit_linear_risk", "LinearFit", "bayes_risk_full", "log_bayes_excess_bound",
           "LogMCResult"]
