"""Float64 kernels generated from the SymPy expressions (lambdify, shared subexpressions).

Each kernel is generated once per process, on first use, from the live expression of
:mod:`slr_verify.symbolic`; nothing here is typed by hand. The functions in this module do
*not* validate their input: they are the inner loops of the public API
(:mod:`slr_verify.kernels.api`) and of the PGD runners. All arguments broadcast (NumPy).

Argument order of the five-parameter kernels: ``(kappa, nu, theta, eta, rho, lam, gamma, eps, d, L)``.
"""
from __future__ import annotations

from functools import lru_cache
from typing import Callable, NamedTuple

import numpy as np
import sympy as sp

from ..symbolic import linear, risk
from ..symbolic import zeta as szeta
from .codegen import (
    NAMESPACE,  # noqa: F401  (the benchmarks' name for it)
    LogZetac,
    generate,
    generate_mp,
    generate_scalar,
)

_ARGS = risk.OVERLAPS + risk.PARAMS


class ScalarKernels(NamedTuple):
    """Theorem 1's risk, risk and gradient, the oracle's risk and the risk on M for Python floats (:func:`scalar_kernels`)."""

    risk: Callable
    risk_and_gradient: Callable
    oracle: Callable
    manifold: Callable


@lru_cache(maxsize=None)
def risk_kernel():
    """Theorem 1: R(kappa, nu, theta, eta, rho, lam, gamma, eps, d, L)."""
    return generate(_ARGS, risk.theorem1_risk())


@lru_cache(maxsize=None)
def risk_kernel_mp():
    """Theorem 1 in mpmath (at ``mpmath.mp.dps``): R(kappa, nu, theta, eta, rho, lam, gamma, eps, d, L)."""
    return generate_mp(_ARGS, risk.theorem1_risk(), cse=True)


@lru_cache(maxsize=None)
def risk_and_gradient_kernel():
    """Theorem 1 and its five partials, sharing subexpressions: returns [R, dR/dkappa, ..., dR/drho]."""
    return generate(_ARGS, [risk.theorem1_risk(), *risk.theorem1_gradient()])


@lru_cache(maxsize=None)
def manifold_kernel():
    """Lemma 6 (derived by substitution into Theorem 1): R(kappa, nu, lam, gamma, eps, d, L) on M."""
    expr = risk.theorem1_risk().subs(risk.manifold_point())
    return generate((risk.S.kappa, risk.S.nu) + risk.PARAMS, expr)


@lru_cache(maxsize=None)
def oracle_kernel():
    """The oracle risk R(k*, v*) = eps^2 + Bayes gap, generated from the complement form
    (``risk.bayes_gap_expr``, shown equal to Theorem 1 at kappa = nu = 1, theta = eta = rho = 0),
    whose terms are all >= 0: full relative accuracy even when eps = 0 and the gap is tiny."""
    return generate(risk.PARAMS, risk.S.eps**2 + risk.bayes_gap_expr())


@lru_cache(maxsize=None)
def log_bayes_gap_kernel():
    """log(R(k*, v*) - eps^2) of Corollary 2, term by term in the log domain.

    The gap is a sum of non-negative terms (``risk.bayes_gap_expr``); each term's logarithm is
    generated with log(zetac) evaluated by the log-domain kernel, and the terms are combined
    with logaddexp, so the gap survives where it underflows float64.
    """
    expr = risk.bayes_gap_expr()
    logs = []
    for term in sp.Add.make_args(expr):
        term = term.replace(szeta.zetac, lambda t, g: sp.exp(LogZetac(t, g)))
        logs.append(sp.expand_log(sp.log(term), force=True))
    fns = [generate(risk.PARAMS, lt) for lt in logs]

    def log_gap(lam, gamma, eps, d, L):
        with np.errstate(divide="ignore"):  # log(L - 1) = -inf at L = 1: that term is absent
            vals = [np.asarray(f(lam, gamma, eps, d, L), dtype=float) for f in fns]
        return np.logaddexp.reduce(np.broadcast_arrays(*vals), axis=0)

    return log_gap


@lru_cache(maxsize=None)
def linear_kernel():
    """Proposition 3: R_lin(p, gamma, eps, L) for a law p given as an array of length L,
    generated from the form whose terms are all >= 0 (``linear.linear_risk_nonneg_expr``)."""
    return generate((linear.p, risk.S.gamma, risk.S.eps, risk.S.L), linear.linear_risk_nonneg_expr(), cse=False)


@lru_cache(maxsize=None)
def linear_uniform_kernel():
    """Proposition 3 with uniform p: R_lin(gamma, eps, L)."""
    return generate((risk.S.gamma, risk.S.eps, risk.S.L), linear.linear_risk_uniform())


@lru_cache(maxsize=None)
def scalar_kernels():
    """The same expressions as :func:`risk_kernel`, :func:`risk_and_gradient_kernel`,
    :func:`oracle_kernel` and :func:`manifold_kernel`, generated for one set of Python floats."""
    on_M = risk.theorem1_risk().subs(risk.manifold_point())
    return ScalarKernels(
        risk=generate_scalar(_ARGS, risk.theorem1_risk()),
        risk_and_gradient=generate_scalar(_ARGS, [risk.theorem1_risk(), *risk.theorem1_gradient()]),
        oracle=generate_scalar(risk.PARAMS, risk.S.eps**2 + risk.bayes_gap_expr()),
        manifold=generate_scalar((risk.S.kappa, risk.S.nu) + risk.PARAMS, on_M),
    )
