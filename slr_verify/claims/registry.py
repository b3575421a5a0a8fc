"""The registry of the paper's claims and how each is checked (``slr-verify check``).

A claim has an id (``zeta``, ``theorem-1``, ...), a one-line statement, and a check returning
``{"statement", "routes", "worst_error", "worst_z", "verdict", "details"}``. Claims whose
machinery is missing report ``pending``; a check that raises reports ``fail`` with the error.
"""
from __future__ import annotations

import importlib
import sys
import time
from dataclasses import dataclass
from typing import Callable

from . import core

__all__ = ["Claim", "CLAIMS", "run_claims"]


@dataclass(frozen=True)
class Claim:
    id: str
    statement: str
    where: str  # the paper's numbering
    check: Callable[..., dict] | str  # a function, or "module:function" resolved lazily


def _dynamics(name):
    return f"slr_verify.dynamics.claims:{name}"


CLAIMS = [
    Claim("zeta", "zeta_g(t) = E erf(t+gZ)^2: closed form (Owen's T), derivative, value at 0", "SPEC 4", core.check_zeta),
    Claim("theorem-1", "The risk is a closed form in the five overlaps", "Theorem 1, App. C", core.check_theorem1),
    Claim("oracle-risk", "The risk of (k*, v*) in closed form", "Theorem 1 / SPEC 5", core.check_oracle_risk),
    Claim("law-of-J0", "The risk does not depend on the law of J0", "Section 2", core.check_law_of_J0),
    Claim("corollary-2", "The oracle is asymptotically Bayes optimal", "Corollary 2", core.check_corollary2),
    Claim("proposition-3", "Best linear predictor and its risk", "Proposition 3", core.check_proposition3),
    Claim("lemma-4", "M is invariant under PGD", "Lemma 4", _dynamics("check_lemma4")),
    Claim("lemma-6", "On M the risk depends on (kappa, nu) only", "Lemma 6", core.check_lemma6),
    Claim("proposition-9", "Stationary points on M: exactly (0,0) and the four corners", "Proposition 9", _dynamics("check_proposition9")),
    Claim("proposition-10", "Classification, Jacobians, step-size bounds of the reduced map", "Proposition 10", _dynamics("check_proposition10")),
    Claim("theorem-5", "PGD on M converges to +-(k*, v*) for alpha < alpha_max", "Theorem 5", _dynamics("check_theorem5")),
    Claim("off-M-stationary", "Stationary points off M where sphere-initialised runs can end", "SPEC 12", _dynamics("check_off_M")),
    Claim("schedule-recovery", "Decreasing lam recovers +-(k*, v*); constant lam not always", "Figures 4a, 7", _dynamics("check_schedule_recovery")),
]


def _resolve(check):
    if callable(check):
        return check
    module, name = check.split(":")
    try:
        return getattr(importlib.import_module(module), name)
    except (ImportError, AttributeError):
        return None


def run_claims(thorough=False, only=None, progress=sys.stderr):
    """Run every claim (or those in ``only``); yield one result dict per claim, with its id,
    the paper's numbering and the time it took."""
    for claim in CLAIMS:
        if only and claim.id not in only:
            continue
        fn = _resolve(claim.check)
        if progress:
            print(f"[slr-verify] checking {claim.id} ...", file=progress, flush=True)
        t0 = time.perf_counter()
        if fn is None:
            res = {"statement": claim.statement, "routes": [], "worst_error": None, "worst_z": None, "verdict": "pending",
                   "details": {"reason": "machinery not available yet"}}
        else:
            try:
                res = dict(fn(thorough=thorough))
            except Exception as exc:  # a check that crashes is a failed check, reported as such
                res = {"statement": claim.statement, "routes": [], "worst_error": None, "worst_z": None, "verdict": "fail",
                       "details": {"error": f"{type(exc).__name__}: {exc}"}}
        res.setdefault("worst_z", None)
        res["id"] = claim.id
        res["where"] = claim.where
        res["seconds"] = round(time.perf_counter() - t0, 2)
        if progress:
            print(f"[slr-verify]   {claim.id}: {res['verdict']} ({res['seconds']} s)", file=progress, flush=True)
        yield res
