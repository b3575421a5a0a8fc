from slr_verify.routes.montecarlo import mc_risk, mc_risk_overlaps  # noqa: F401  (Monte Carlo route)
