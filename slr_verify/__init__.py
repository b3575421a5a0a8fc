"""slr-verify: a symbolic-numeric verification suite for single-location regression.

Marion, Berthier, Biau, Boyer, "Attention layers provably solve single-location regression",
ICLR 2025 (arXiv 2410.01537). The mathematics and the list of claims are in docs/MATH.md.

Layers (imports go one way, top to bottom):

* ``slr_verify.symbolic``  SymPy: zeta, the Gaussian-expectation engine, Theorem 1, Lemma 6,
  the oracle risk, Proposition 3, the dynamics' maps.
* ``slr_verify.kernels``   float64 kernels generated from those expressions (lambdify).
* ``slr_verify.routes``    independent routes: mpmath quadrature and Monte Carlo (the Bayes risk and softmax
  attention at (k*, v*) in ``routes.bayes``).
* ``slr_verify.predictors`` erf, softmax, linear and Bayes predictors side by side (`docs/MATH.md` §18).
* ``slr_verify.claims``    the claim registry and the ``slr-verify check`` report.
* ``slr_verify.dynamics``  PGD runners (use the kernels only).
"""
__version__ = "0.1.0"

from .dynamics import overlap_pgd, pgd, reduced_pgd  # noqa: E402
from .kernels import api as _api  # noqa: E402
from .kernels.api import *  # noqa: E402, F403 (the validated numeric API, listed once in kernels.api.__all__)
from .kernels.multihead import multihead_risk  # noqa: E402
from .routes import (  # noqa: E402  # noqa: E402
    bayes_excess,
    bayes_risk,
    mc_risk,
    mc_risk_overlaps,
    quad_bayes_gap,
    quad_risk,
    quad_risk_gradient,
    quad_zeta,
    softmax_excess,
    softmax_risk,
)

__all__ = [
    *_api.__all__,
    "multihead_risk",
    "mc_risk",
    "mc_risk_overlaps",
    "quad_risk",
    "quad_risk_gradient",
    "quad_zeta",
    "quad_bayes_gap",
    "bayes_risk",
    "bayes_excess",
    "softmax_risk",
    "softmax_excess",
    "pgd",
    "overlap_pgd",
    "reduced_pgd",
]
