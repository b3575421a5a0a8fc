"""The registry: every claim of the paper and every finding of the suite, in report order.

The claims are the decorated checks of the modules imported below (definition order within a module, the modules in
``_MODULES``' order). :mod:`.runner` runs them.
"""

from __future__ import annotations

from ..model.params import keywords_checked
from . import (  # noqa: F401  (they register)
    basin_claims,
    bayes_claims,
    experiment_claims,
    landscape_claims,
    lemma_claims,
    manifold_claims,
    optimality_claims,
    region_claims,
    risk_claims,
    sphere_claims,
    theorem5_claims,
    tube_claims,
    window_claims,
    window_phase_claims,
)
from .base import REGISTERED, Claim, ClaimSetting

#: the report's order: the modules in this order, each in definition order
_MODULES = [m.__name__ for m in (risk_claims, optimality_claims, manifold_claims, theorem5_claims, tube_claims, region_claims,
                                  lemma_claims,
                                  sphere_claims,
                                  landscape_claims, window_claims, basin_claims, window_phase_claims, bayes_claims,
                                  experiment_claims)]
CLAIMS: list[Claim] = sorted(REGISTERED, key=lambda c: (_MODULES.index(c.check.__module__), REGISTERED.index(c)))
_BY_ID = {c.id: c for c in CLAIMS}


@keywords_checked
def ids():
    """The ids of every claim and finding, in the report's order (``slr-verify check --claims ID,...`` takes them)."""
    return [c.id for c in CLAIMS]


@keywords_checked
def get(claim_id) -> Claim:
    """The :class:`~.base.Claim` of id ``claim_id``; ``KeyError`` listing the known ids otherwise."""
    if claim_id not in _BY_ID:
        raise KeyError(f"unknown claim id {claim_id!r}; known ids: {', '.join(ids())}")
    return _BY_ID[claim_id]


@keywords_checked
def parameterised():
    """The ids of the claims that run at a user's setting (they declare ``at_setting``), in report order."""
    return [c.id for c in CLAIMS if c.parameterised]


def user_setting(setting) -> ClaimSetting | None:
    """A user's setting as a :class:`ClaimSetting`: given as one, or as a dict {gamma2, eps, d, L} (validated:
    ``ValueError`` naming the value); None stays None (the paper's settings)."""
    if setting is None or isinstance(setting, ClaimSetting) and setting.user:
        return setting
    if isinstance(setting, dict):
        from ..model.cli_args import check_setting

        return ClaimSetting(**check_setting(setting))
    raise ValueError(f"setting must be a dict {{gamma2, eps, d, L}} or a user ClaimSetting, got {setting!r}")
