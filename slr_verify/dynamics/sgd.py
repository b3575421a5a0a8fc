r"""SGD on sampled batches (Figure 5; `docs/MATH.md` §11).

Each step draws a batch of SLR samples (X, Y) with the Monte Carlo sampler
(:func:`slr_verify.model.sampling.sample_slr`, drawn in blocks of ``block`` batches with one
seed per block and run; a block holds at most ``BLOCK_BYTES`` of samples), computes the gradient of the batch's mean squared loss
:math:`\frac1B\sum_b (Y_b - T(\mathbf X_b))^2`, :math:`T = \sum_l \operatorname{erf}(\lambda X_l^\top k) X_l^\top v`,

.. math::

    \nabla_k = -\frac2B\sum_b r_b \sum_l \lambda\,\operatorname{erf}'(\lambda X_{bl}^\top k)\,(X_{bl}^\top v)\,X_{bl},\qquad
    \nabla_v = -\frac2B\sum_b r_b \sum_l \operatorname{erf}(\lambda X_{bl}^\top k)\,X_{bl},

with :math:`r_b = Y_b - T(\mathbf X_b)` (an unbiased estimate of :math:`\nabla R_\lambda`), and
takes the projected normalised step of Definition 1 with it.
"""
from __future__ import annotations

import numpy as np
from scipy import special as sc

from ..model import budgets as B
from ..model import validation as V
from ..model.overlaps import Overlaps
from ..model.params import accepts_gamma2
from ..model.sampling import sample_slr
from .trajectory import (
    SECONDS_PER_RUN_STEP,
    check_cost,
    check_run_args,
    lam_schedule,
    progress_range,
    record_steps,
    trajectory_from_records,
)

_TWO_OVER_SQRT_PI = 2.0 / np.sqrt(np.pi)


def loss_weights(r, s, u, e, lam, B):
    r"""The token weights of the batch gradient: with residuals ``r`` = Y_b - T(X_b) (broadcast to the
    tokens), s = X^T k, u = X^T v, e = erf(lam s) and batch size B,
    :math:`w_k = -\frac2B r\,\lambda\operatorname{erf}'(\lambda s)\,u`, :math:`w_v = -\frac2B r\,e`, so that
    grad_k = sum w_k X and grad_v = sum w_v X (the module's formulas; one head or several)."""
    wk = (-2.0 / B) * r * (lam * _TWO_OVER_SQRT_PI) * np.exp(-(lam * s) ** 2) * u
    wv = (-2.0 / B) * r * e
    return wk, wv


def batch_gradient(k, v, X, Y, lam):
    """Gradient of mean_b (Y_b - T(X_b))^2 in k and v. X: (..., B, L, d), Y: (..., B), k, v:
    (..., d). Returns (grad_k, grad_v) of shape (..., d)."""
    s = np.einsum("...bld,...d->...bl", X, k)
    u = np.einsum("...bld,...d->...bl", X, v)
    e = sc.erf(lam * s)
    r = Y - np.sum(e * u, axis=-1)  # (..., B)
    wk, wv = loss_weights(r[..., None], s, u, e, lam, X.shape[-3])
    return np.einsum("...bl,...bld->...d", wk, X), np.einsum("...bl,...bld->...d", wv, X)


#: memory bound of one block of sampled batches (all runs): Figure 5 stays far below 1 GiB
BLOCK_BYTES = 64 << 20


def batches_per_block(runs, batch, L, d):
    """Batches drawn at once per run: at most 1000, and a block of samples for every run fits in
    :data:`BLOCK_BYTES`."""
    return max(1, min(1000, BLOCK_BYTES // (8 * runs * batch * int(L) * (d + 1))))


def sphere_step(x, g, alpha):
    """One projected normalised step of Definition 1: P(x - alpha (I - x x^T) g), P(y) = y / |y|
    (rows of x, g are the runs)."""
    y = x - alpha * (g - np.sum(g * x, -1, keepdims=True) * x)
    return y / np.linalg.norm(y, axis=-1, keepdims=True)


@accepts_gamma2
def sgd(k0, v0, k_star, v_star, *, lam, gamma, eps=0.0, L, alpha, steps, batch, seed, every=1, block=None, progress=None):
    """Projected SGD (Definition 1 with the batch gradient) from (k0, v0); shapes (d,) or
    (runs, d) (each run its own k*, v* and its own sample stream). ``lam`` a number or a callable
    t -> lam_t. Returns a :class:`~.trajectory.Trajectory` whose ``risk`` is Theorem 1's exact risk (with eps)
    at the recorded iterates. ``steps`` >= 0 (0: the initial point alone), ``batch`` >= 1; an L or a batch whose
    samples would not fit in memory is refused naming it."""
    vecs = [V.unit_vectors(n, x) for n, x in (("k0", k0), ("v0", v0), ("k_star", k_star), ("v_star", v_star))]
    if len({x.shape[-1] for x in vecs}) != 1:
        raise ValueError(f"k0, v0, k_star, v_star must have the same length d, got {[x.shape for x in vecs]}")
    d = vecs[0].shape[-1]
    V.broadcast(**dict(zip(("k0", "v0", "k_star", "v_star"), vecs)))  # (runs, d) with the same runs, or (d,)
    a = check_run_args(alpha, steps, every, gamma, L, d=d, eps=eps)
    batch = V.integer("batch", batch, 1)
    runs_ = max(np.atleast_2d(x).shape[0] for x in vecs)
    B.memory_budget("L", 8.0 * runs_ * a["L"] * (d + 1), f"one sample of {a['L']:,} tokens x {runs_} runs")  # before batch's
    B.memory_budget("batch", 8.0 * runs_ * batch * a["L"] * (d + 1), f"one batch of {batch:,} samples x {runs_} runs")
    if block is None:  # batches per block, so that a block of samples for every run fits in BLOCK_BYTES
        block = batches_per_block(runs_, batch, a["L"], d)
    block = V.integer("block", block, 1)
    B.memory_budget("block", 8.0 * block * runs_ * batch * a["L"] * (d + 1), f"a block of {block:,} batches")
    V.integer("seed", seed, 0)
    check_cost(a["steps"], a["every"], runs_, per_run_step=SECONDS_PER_RUN_STEP * batch * a["L"] * d, runs_name="k0")
    batched = any(x.ndim == 2 for x in vecs)
    runs = max(x.shape[0] if x.ndim == 2 else 1 for x in vecs)
    K, Vv, Ks, Vs = (np.array(np.broadcast_to(np.atleast_2d(x), (runs, d)), dtype=float) for x in vecs)
    if np.any(np.abs(np.sum(Ks * Vs, -1)) > 1e-8):
        raise ValueError("k_star and v_star must be orthogonal (Assumption 1)")
    lams, _ = lam_schedule(lam, a["steps"])
    rec = record_steps(a["steps"], a["every"])
    want = set(int(r) for r in rec)
    seeds = np.random.SeedSequence(seed).generate_state(runs * (a["steps"] // block + 1), dtype=np.uint64).reshape(runs, -1)
    alpha_ = a["alpha"]
    out = []
    Xb = Yb = None
    for t in progress_range(a["steps"] + 1, progress, "sgd", total=a["steps"]):
        if t in want:
            out.append(np.stack(Overlaps.from_vectors(K, Vv, Ks, Vs)))
        if t == a["steps"]:
            break
        j = t % block
        if j == 0:  # draw the next block of batches for every run
            m = min(block, a["steps"] - t)
            Xb = np.empty((runs, m, batch, a["L"], d))
            Yb = np.empty((runs, m, batch))
            for r in range(runs):
                X, _, Y = sample_slr(Ks[r], Vs[r], gamma=a["gamma"], eps=a["eps"], L=a["L"], n=m * batch,
                                     seed=int(seeds[r, t // block]))
                Xb[r], Yb[r] = X.reshape(m, batch, a["L"], d), Y.reshape(m, batch)
        gk, gv = batch_gradient(K, Vv, Xb[:, j], Yb[:, j], lams[t])
        K, Vv = sphere_step(K, gk, alpha_), sphere_step(Vv, gv, alpha_)
    return trajectory_from_records(out, batched, rec, lams, a, d, dict(a, lam=lam, batch=batch, seed=int(seed), runner="sgd"))
