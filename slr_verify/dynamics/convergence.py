r"""Runs continued to convergence, and the stopping rule (`docs/MATH.md` §13).

An end point counts only when the run has converged: the Riemannian (tangent) gradient
:math:`\|(I - kk^\top)\nabla_k R\|^2 + \|(I - vv^\top)\nabla_v R\|^2` is below a stated tolerance.
The norms are generated from the symbolic PGD map (:func:`slr_verify.symbolic.dynamics.tangent_norms_sq`).
"""
from __future__ import annotations

import mpmath
import numpy as np

from ..kernels import generated as G
from ..kernels.steps import tangent_norm_kernels
from ..model import validation as V
from ..model.overlaps import Overlaps
from ..model.params import accepts_gamma2, keywords_checked
from .runners import overlap_pgd

#: the float64 tangent norm's resolution, in units of sqrt(eps) |grad R|: |tan|^2 is computed as a
#: difference |grad|^2 - <k, grad>^2, whose rounding error is a few eps |grad|^2 (measured: 4 eps
#: |grad|^2 at k = v*, where |grad R| ~ 1 is almost all normal); 4 allows 16 eps |grad|^2
RESOLUTION = 4.0


@keywords_checked
def tangent_gradient_norms(ov, grads):
    """|(I - k k^T) grad_k R|^2 and |(I - v v^T) grad_v R|^2 from the overlaps and the partials
    (floats or arrays: float64; mpmath numbers: at the working precision), generated from the
    symbolic map (:func:`slr_verify.symbolic.dynamics.tangent_norms_sq`)."""
    K = tangent_norm_kernels()
    f = K.mp if any(isinstance(x, mpmath.mpf) for x in (*ov, *grads)) else K.f64
    return tuple(f(*ov, *grads))


@keywords_checked
def tangent_norm(ov, *, lam, gamma, d, L, resolution=False):
    """sqrt(|tan_k|^2 + |tan_v|^2) of R_lam at overlaps ``ov`` (arrays of one batch shape).

    With ``resolution``, also the smallest value the float64 formula can tell from 0 there,
    ``RESOLUTION sqrt(eps) |grad R|``: below it the computed norm is rounding noise. (Near
    k = +-v* the overlaps fix the vectors only to ~sqrt(eps): 1 - eta^2 ~ eps.)"""
    ov = [np.asarray(x, dtype=float) for x in ov]
    grads = G.risk_and_gradient_kernel()(*ov, lam, gamma, 0.0, d, L)[1:]
    tk, tv = tangent_gradient_norms(ov, grads)
    norm = np.sqrt(np.maximum(tk, 0) + np.maximum(tv, 0))
    if not resolution:
        return norm
    gk, gv = tangent_norm_kernels().scale(*ov, *grads)
    return norm, RESOLUTION * np.sqrt(np.finfo(float).eps * (np.abs(gk) + np.abs(gv)))


@keywords_checked
def converge(ov, *, lam, gamma, d, L, alpha, tol=1e-9, max_steps=2_000_000, chunk=20_000, per_run=False):
    """Continue constant-lam PGD (five-overlap runner) from ``ov`` until the tangent gradient norm
    is below max(``tol``, its float64 resolution) for every run (:func:`tangent_norm`), or
    ``max_steps`` steps (never more: the last piece is shortened). Returns (overlaps, norms, steps,
    converged); ``steps`` is the number of continuation steps taken, or with ``per_run`` an array:
    for each run the step (a multiple of ``chunk``, or ``max_steps``) at which it first met the
    criterion, the total for the runs that never did. `docs/MATH.md` §12."""
    tol = V.real("tol", tol, minimum=0.0)
    max_steps = V.integer("max_steps", max_steps, 0)
    chunk = V.integer("chunk", chunk, 1)
    if isinstance(ov, (str, bytes)) or not hasattr(ov, "__len__") or len(ov) != 5:
        raise ValueError(f"ov must be the five overlaps (kappa, nu, theta, eta, rho), got {ov!r}")
    try:  # arrays of different lengths: named here, not NumPy's broadcast message from the kernels
        V.broadcast(**dict(zip(("kappa", "nu", "theta", "eta", "rho"), ov)))
    except ValueError as exc:
        raise ValueError(f"ov: {exc}") from None
    ov = [np.atleast_1d(np.asarray(x, dtype=float)) for x in ov]
    steps = 0
    norm, res = tangent_norm(ov, lam=lam, gamma=gamma, d=d, L=L, resolution=True)
    ok = norm <= np.maximum(tol, res)
    first = np.where(ok, 0, -1)
    while steps < max_steps and not np.all(ok):
        n = min(chunk, max_steps - steps)
        tr = overlap_pgd(ov, lam=lam, gamma=gamma, d=d, L=L, alpha=alpha, steps=n, every=n)
        ov = tr.ends
        steps += n
        norm, res = tangent_norm(ov, lam=lam, gamma=gamma, d=d, L=L, resolution=True)
        ok = norm <= np.maximum(tol, res)
        first = np.where((first < 0) & ok, steps, first)
    if per_run:
        return Overlaps(*ov), norm, np.where(first < 0, steps, first), ok
    return Overlaps(*ov), norm, steps, ok


@keywords_checked
def recovered(ov, tol=1e-6):
    """Whether the overlaps ``ov`` (five numbers or arrays of one shape) are at +-(k*, v*), the oracle the paper's runs
    from the sphere should recover (Section 5, `docs/MATH.md` §11): |nu| > 1 - tol, |kappa| > 1 - 100 tol (kappa aligns
    slowest), kappa nu > 0, and within ``tol`` of M (sqrt(theta^2 + eta^2 + rho^2) < tol). A boolean array."""
    k, n, t, e, r = (np.asarray(x) for x in ov)
    return (np.abs(k) > 1 - 100 * tol) & (np.abs(n) > 1 - tol) & (k * n > 0) & (np.sqrt(t * t + e * e + r * r) < tol)


@accepts_gamma2
def classify_recovery(ends, *, lam, gamma, d, L, alpha, tol=1e-8, max_steps=2_000_000):
    """The runs ending at ``ends`` (five arrays of shape (runs,)) sorted out for the claims on recovery (`docs/MATH.md`
    §§11-13): those :func:`recovered` count as recovered; the others are continued at constant ``lam`` by
    :func:`converge` (``tol``, ``max_steps``), and count as converged elsewhere when they meet its stopping rule away
    from +-(k*, v*). Returns (recovered, converged elsewhere, tangent norms: 0 for the recovered runs), arrays of shape
    (runs,); a run in neither converged within ``max_steps``."""
    rec = recovered(ends)
    elsewhere = np.zeros(rec.shape, bool)
    norms = np.zeros(rec.shape)
    idx = np.flatnonzero(~rec)
    if idx.size:
        sub = [np.asarray(x)[idx] for x in ends]
        end, nrm, _, conv = converge(sub, lam=lam, gamma=gamma, d=d, L=L, alpha=alpha, tol=tol, max_steps=max_steps)
        elsewhere[idx] = conv & ~recovered(end)
        norms[idx] = nrm
    return rec, elsewhere, norms
