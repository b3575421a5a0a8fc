from slr_verify.routes.bayes import bayes_excess, bayes_risk, softmax_excess, softmax_risk  # noqa: F401  (`docs/MATH.md` §18)
from slr_verify.routes.erf_moments import quad_erf_moment  # noqa: F401  (Lemma 18, `docs/MATH.md` §4)
from slr_verify.routes.montecarlo import mc_risk, mc_risk_overlaps  # noqa: F401  (Monte Carlo route)
from slr_verify.routes.quadrature import (  # noqa: F401  (mpmath quadrature route)
    claimed_digits,
    quad_bayes_gap,
    quad_manifold_risk,
    quad_oracle_risk,
    quad_risk,
    quad_risk_gradient,
    quad_zeta,
)
