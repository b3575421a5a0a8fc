r"""Runs continued to convergence, and the stopping rule (reference section 13).

An end point counts only when the run has converged: the Riemannian (tangent) gradient
:math:`\|(I - kk^\top)\nabla_k R\|^2 + \|(I - vv^\top)\nabla_v R\|^2` is below a stated tolerance.
The norms are generated from the symbolic PGD map (:func:`slr_verify.symbolic.dynamics.tangent_norms_sq`).
"""
from __future__ import annotations

import numpy as np

from ..kernels import generated as G
from ..model.overlaps import Overlaps
from .offM import tangent_gradient_norms
from .runners import overlap_pgd

__all__ = ["tangent_norm", "converge"]


def tangent_norm(ov, *, lam, gamma, d, L):
    """sqrt(|tan_k|^2 + |tan_v|^2) of R_lam at overlaps ``ov`` (arrays of one batch shape)."""
    ov = [np.asarray(x, dtype=float) for x in ov]
    grads = G.risk_and_gradient_kernel()(*ov, lam, gamma, 0.0, d, L)[1:]
    tk, tv = tangent_gradient_norms(ov, grads)
    return np.sqrt(np.maximum(tk, 0) + np.maximum(tv, 0))


def converge(ov, *, lam, gamma, d, L, alpha, tol=1e-9, max_steps=2_000_000, chunk=20_000):
    """Continue constant-lam PGD (five-overlap runner) from ``ov`` until the tangent gradient norm
    is below ``tol`` for every run, or ``max_steps``. Returns (overlaps, norms, steps, converged)."""
    ov = [np.atleast_1d(np.asarray(x, dtype=float)) for x in ov]
    steps = 0
    norm = tangent_norm(ov, lam=lam, gamma=gamma, d=d, L=L)
    while steps < max_steps and np.any(norm > tol):
        tr = overlap_pgd(ov, lam=lam, gamma=gamma, d=d, L=L, alpha=alpha, steps=chunk, every=chunk)
        ov = [tr[f][-1] for f in ("kappa", "nu", "theta", "eta", "rho")]
        steps += chunk
        norm = tangent_norm(ov, lam=lam, gamma=gamma, d=d, L=L)
    return Overlaps(*ov), norm, steps, norm <= tol
