from slr_verify.routes.quadrature import (  # noqa: F401  (re-export of the mpmath route)
    claimed_digits, quad_bayes_gap, quad_manifold_risk, quad_oracle_risk, quad_risk, quad_risk_gradient, quad_zeta,
)
