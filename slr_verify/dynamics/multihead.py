r"""Multi-head dynamics on multiple-location regression (`docs/MATH.md` §15; paper Figure 9).

* :func:`multihead_pgd`: projected gradient descent (Definition 1, each head's k_h and v_h
  updated by its own projected normalised step, all from the same iterate) on the exact risk,
  run *on the Gram matrix* of :math:`(k_1..k_H, v_1..v_H, k^*_1..k^*_K, v^*_1..v^*_K)`.
  Since :math:`\nabla_{k_h} R = \sum_w \partial R/\partial(k_h\cdot w)\,w` lies in the span of
  the vectors, one step is a linear map C on the span, :math:`G' = C G C^\top`, followed by the
  normalisation of the heads' rows: the cost does not depend on d. The partial derivatives come
  from the generated kernel :func:`slr_verify.kernels.multihead.risk_gradient_kernel`.
* :func:`multihead_sgd`: the same projected step with the gradient of a sampled batch's mean
  squared loss, in full dimension (the paper's Figure 9).

Both return a :class:`MultiheadTrajectory`: at every recorded step the exact risk and the
alignment matrices :math:`|k_h\cdot k^*_j|`, :math:`|v_h\cdot v^*_j|`.
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
from scipy import special as sc

from ..kernels import fused as FK
from ..kernels import multihead as KM
from ..kernels import multihead_fused as MF
from ..model import budgets as B
from ..model import validation as V
from ..model.multilocation import draw_multi_full, validate_heads
from ..model.params import accepts_gamma2, keywords_checked
from ..model.sampling import STREAM_TRAIN, generators
from ..model.settings import FIGURES, decreasing
from .sgd import batches_per_block, loss_weights, sphere_step
from .trajectory import check_cost, check_run_args, lam_schedule, progress_range, record_steps

#: Figure 9's schedule (``docs/MATH.md`` section 15): Figure 5's lam_t = 2/(1 + 1e-4 t), constant after t = 25k
figure9_lam = decreasing(FIGURES["5"].lam0, until=25_000)


@dataclass
class MultiheadTrajectory:
    """Recorded steps; ``risk`` (records, runs); ``align_k``, ``align_v`` (records, runs, H, K);
    ``gram`` (records, runs, n, n); ``settings``. Figure 9, `docs/MATH.md` §15."""

    step: np.ndarray
    risk: np.ndarray
    align_k: np.ndarray
    align_v: np.ndarray
    gram: np.ndarray
    lam: np.ndarray
    settings: dict = field(default_factory=dict)


def _record(grams, H, K):
    g = np.asarray(grams)
    ak = np.abs(g[..., :H, 2 * H:2 * H + K])
    av = np.abs(g[..., H:2 * H, 2 * H + K:])
    return ak, av


def _exact_risk(grams, lams, H, K, gamma, eps, d, L, backend="auto"):
    if backend == "fused" or (backend == "auto" and FK.available()):
        risk = MF.fused_multihead_kernel(H, K).risk
        g = np.asarray(grams, float)
        flat = np.ascontiguousarray(g.reshape((g.shape[0], -1) + g.shape[-2:]))
        out = np.array([[risk(G, float(lam), gamma, eps, float(d), float(L)) for G in rec] for rec, lam in zip(flat, lams)])
        return out.reshape(g.shape[:-2])
    fn, pairs = KM.risk_gradient_kernel(H, K)
    g = np.asarray(grams)
    free = [g[..., i, j] for i, j in pairs]
    lam = np.asarray(lams, float).reshape((-1,) + (1,) * (g.ndim - 3))
    return np.asarray(fn(*free, lam, gamma, eps, d, L)[0], float) * np.ones(g.shape[:-2])


@accepts_gamma2
def gram_step(Gm, H, K, *, lam, gamma, eps=0.0, d, L, alpha):
    """One PGD step on a batch of Gram matrices (runs, n, n) (module docstring)."""
    fn, pairs = KM.risk_gradient_kernel(H, K)
    free = [Gm[:, i, j] for i, j in pairs]
    out = fn(*free, lam, gamma, eps, d, L)
    runs, n = Gm.shape[0], Gm.shape[1]
    P = np.zeros((runs, n, n))
    grads = np.stack([np.broadcast_to(g, (runs,)) for g in out[1:]], axis=1)  # (runs, free entries)
    P[:, pairs[:, 0], pairs[:, 1]] = grads
    P[:, pairs[:, 1], pairs[:, 0]] = grads
    heads = 2 * H
    radial = np.einsum("rij,rij->ri", P[:, :heads], Gm[:, :heads])  # u_i . grad_i
    C = np.broadcast_to(np.eye(n), (runs, n, n)).copy()
    C[:, :heads] -= alpha * P[:, :heads]
    idx = np.arange(heads)
    C[:, idx, idx] += alpha * radial
    G2 = C @ Gm @ np.swapaxes(C, 1, 2)
    s = np.ones((runs, n))
    s[:, :heads] = 1.0 / np.sqrt(G2[:, idx, idx])
    G2 = G2 * s[:, :, None] * s[:, None, :]
    G2[:, idx, idx] = 1.0
    return G2


def _check(H, K, lam, alpha, steps, every, gamma, L, d, eps):
    a = check_run_args(alpha, steps, every, gamma, L, d=d, eps=eps)
    if a["L"] < K:
        raise ValueError(f"L must be >= K = {K}, got L={a['L']}")
    lams, _ = lam_schedule(lam, a["steps"])
    return a, lams


@accepts_gamma2
def multihead_pgd(gram0, H, K, *, lam, gamma, eps=0.0, d, L, alpha, steps, every=1, progress=None, backend="auto"):
    """d-free multi-head PGD from Gram matrices ``gram0`` (n, n) or (runs, n, n), n = 2H + 2K,
    vectors ordered (k_1..k_H, v_1..v_H, k*_1..k*_K, v*_1..v*_K) with unit diagonal and
    k*_j . v*_j = 0. ``lam`` a number or a callable t -> lam_t. ``backend``: ``"fused"`` (one
    compiled loop, :mod:`slr_verify.kernels.multihead_fused`), ``"numpy"`` (:func:`gram_step`)
    or ``"auto"`` (fused when Numba is importable); both give the same trajectories to rounding. ``steps`` >= 0 (0: the
    initial point alone, one record), as the other runners (:mod:`.runners`). Figure 9, `docs/MATH.md` §15."""
    backend = V.choice("backend", backend, ("auto", "fused", "numpy"))
    H, K = V.integer("H", H, 1, 64, why="heads"), V.integer("K", K, 1, 64, why="locations")
    a = check_run_args(alpha, steps, every, gamma, L, d=d, eps=eps)
    Gm = V.gram("gram0", gram0, d=a["d"])
    single = Gm.ndim == 2
    Gm = np.array(Gm[None] if single else Gm, dtype=float)
    n = 2 * H + 2 * K
    if Gm.shape[1:] != (n, n):
        raise ValueError(f"gram0 must have shape ({n}, {n}) or (runs, {n}, {n}) for H={H}, K={K}, got {np.shape(gram0)}")
    if np.any(np.abs(Gm[:, 2 * H + np.arange(K), 2 * H + K + np.arange(K)]) > 1e-8):
        raise ValueError("gram0 must have k*_j . v*_j = 0 for every location j")
    a, lams = _check(H, K, lam, alpha, steps, every, gamma, L, d, eps)
    check_cost(a["steps"], a["every"], Gm.shape[0] * n * n, per_run_step=1e-6, runs_name="gram0")
    rec = record_steps(a["steps"], a["every"])
    if backend == "auto":
        backend = "fused" if FK.available() else "numpy"
    settings = dict(a, lam=lam, H=H, K=K, runner="multihead_pgd", backend=backend)
    if backend == "fused":
        grams = _iterate_fused(Gm, H, K, lams, a, rec, progress)
        return _trajectory(grams, rec, lams, H, K, a, single, settings)
    want = set(int(r) for r in rec)
    grams = []
    for t in progress_range(a["steps"] + 1, progress, "multihead pgd", total=a["steps"]):
        if t in want:
            grams.append(Gm.copy())
        if t == a["steps"]:
            break
        Gm = gram_step(Gm, H, K, lam=lams[t], gamma=a["gamma"], eps=a["eps"], d=a["d"], L=a["L"], alpha=a["alpha"])
    return _trajectory(grams, rec, lams, H, K, a, single, settings)


_CHUNK = 1000


def _iterate_fused(Gm, H, K, lams, a, rec, progress=None):
    """The compiled loop (:mod:`slr_verify.kernels.multihead_fused`) over blocks of ``_CHUNK``
    steps: the Gram matrices at the recorded steps, (records, runs, n, n)."""
    run = MF.fused_multihead_kernel(H, K).run
    G = np.array(Gm, dtype=float, order="C")
    out = np.empty((len(rec),) + G.shape)
    out[0] = G
    slot = np.full(a["steps"], -1, dtype=np.int64)
    slot[rec[1:] - 1] = np.arange(1, len(rec))  # after the update t -> t + 1
    bar = progress_range(a["steps"], progress, "multihead pgd (fused)")
    for t0 in range(0, a["steps"], _CHUNK):
        t1 = min(t0 + _CHUNK, a["steps"])
        run(G, np.ascontiguousarray(lams[t0:t1]), a["alpha"], a["gamma"], a["eps"], float(a["d"]), float(a["L"]),
            slot[t0:t1], out)
        if hasattr(bar, "update"):
            bar.update(t1 - t0)
    if hasattr(bar, "close"):
        bar.close()
    return out


def _trajectory(grams, rec, lams, H, K, a, single, settings):
    g = np.stack(grams)
    risk = _exact_risk(g, lams[rec], H, K, a["gamma"], a["eps"], a["d"], a["L"], settings.get("backend", "auto"))
    ak, av = _record(g, H, K)
    if single:
        g, risk, ak, av = g[:, 0], risk[:, 0], ak[:, 0], av[:, 0]
    return MultiheadTrajectory(rec, risk, ak, av, g, lams[rec], settings)


def batch_gradient_heads(Kh, Vh, X, Y, lam):
    """Gradient of mean_b (Y_b - T(X_b))^2 in every k_h and v_h; X (runs, B, L, d), Y (runs, B),
    Kh, Vh (runs, H, d). T = sum_h sum_l erf(lam X_l . k_h) X_l . v_h."""
    a = np.einsum("rbld,rhd->rblh", X, Kh)
    b = np.einsum("rbld,rhd->rblh", X, Vh)
    e = sc.erf(lam * a)
    r = Y - np.einsum("rblh,rblh->rb", e, b)
    wk, wv = loss_weights(r[:, :, None, None], a, b, e, lam, X.shape[1])
    return np.einsum("rblh,rbld->rhd", wk, X), np.einsum("rblh,rbld->rhd", wv, X)


@accepts_gamma2
def multihead_sgd(K0, V0, K_star, V_star, *, lam, gamma, eps=0.0, L, alpha, steps, batch, seed, every=1, progress=None):
    """Projected SGD for the multi-head predictor in full dimension (paper Figure 9). Heads
    ``K0``, ``V0`` of shape (H, d) or (runs, H, d); locations (K, d) or (runs, K, d). Each run
    draws its own stream of batches (block-seeded). The recorded risk is the exact one. ``steps`` >= 0 (0: the initial
    point alone), ``batch`` >= 1; an L or a batch whose samples would not fit in memory is refused naming it."""
    arrs = [V.as_finite(n, x) for n, x in (("K0", K0), ("V0", V0), ("K_star", K_star), ("V_star", V_star))]
    for n, x in zip(("K0", "V0", "K_star", "V_star"), arrs):
        if x.ndim not in (2, 3):
            raise ValueError(f"{n} must have shape (rows, d) or (runs, rows, d), got {x.shape}")
    single = arrs[0].ndim == 2
    runs = max(x.shape[0] if x.ndim == 3 else 1 for x in arrs)
    try:
        arrs = [np.array(np.broadcast_to(x if x.ndim == 3 else x[None], (runs,) + x.shape[-2:])) for x in arrs]
    except ValueError:
        raise ValueError("K0, V0, K_star, V_star must have the same number of runs (or none), got shapes "
                         f"{[x.shape for x in arrs]}") from None
    for r in range(runs):
        validate_heads(*(x[r] for x in arrs))
    Kh, Vh, Ks, Vs = arrs
    H, K, d = Kh.shape[1], Ks.shape[1], Kh.shape[2]
    a, lams = _check(H, K, lam, alpha, steps, every, gamma, L, d, eps)
    batch = V.integer("batch", batch, 1)
    B.memory_budget("L", 8.0 * a["L"] * (d + 1), f"one sample of {a['L']:,} tokens")  # before batch's
    V.integer("seed", seed, 0)
    B.memory_budget("batch", 8.0 * runs * batch * a["L"] * (d + 1), f"one batch of {batch:,} samples x {runs} runs")
    rec = record_steps(a["steps"], a["every"])
    want = set(int(r) for r in rec)
    block = batches_per_block(runs, batch, a["L"], d)
    grams = []
    Xb = Yb = None
    for t in progress_range(a["steps"] + 1, progress, "multihead sgd", total=a["steps"]):
        if t in want:
            W = np.concatenate([Kh, Vh, Ks, Vs], axis=1)
            grams.append(W @ np.swapaxes(W, 1, 2))
        if t == a["steps"]:
            break
        j = t % block
        if j == 0:
            m = min(block, a["steps"] - t)
            Xb = np.empty((runs, m, batch, a["L"], d))
            Yb = np.empty((runs, m, batch))
            for r in range(runs):
                X, _, Y = draw_multi_full(generators(int(seed), STREAM_TRAIN, r * 1_000_003 + t // block), m * batch,
                                          Ks[r], Vs[r], a["gamma"], a["eps"], a["L"])
                Xb[r], Yb[r] = X.reshape(m, batch, a["L"], d), Y.reshape(m, batch)
        gk, gv = batch_gradient_heads(Kh, Vh, Xb[:, j], Yb[:, j], lams[t])
        Kh, Vh = sphere_step(Kh, gk, a["alpha"]), sphere_step(Vh, gv, a["alpha"])
    return _trajectory(grams, rec, lams, H, K, a, single,
                       dict(a, lam=lam, H=H, K=K, batch=batch, seed=int(seed), runner="multihead_sgd"))


#: Figure 9 (``docs/MATH.md`` section 15): Figure 5's settings with H = K = 2, 100k steps, 20 repetitions.
FIGURE9 = dict(d=FIGURES["5"].d, L=FIGURES["5"].L, gamma=FIGURES["5"].gamma, eps=FIGURES["5"].eps, alpha=FIGURES["5"].alpha,
               batch=FIGURES["5"].batch, steps=100_000, runs=20, H=2, K=2)


@keywords_checked
def figure9(*, runs=None, steps=None, seed=0, every=None, progress=None):
    """Figure 9: stochastic PGD (batch 5) and the deterministic d-free PGD on the exact risk,
    from the same random starts (heads and locations uniform on the sphere, v*_j orthogonal to
    k*_j), with :func:`figure9_lam`. Returns ``(sgd_trajectory, pgd_trajectory)``. runs, steps, every integers
    >= 1 (None: the paper's; every: about 200 records), runs within memory."""
    from ..model.multilocation import random_heads, random_locations

    S = dict(FIGURE9)
    runs = S["runs"] if runs is None else V.integer("runs", runs, 1, floats=True)
    B.memory_budget("runs", 16.0 * runs * (2 * S["H"] + 2 * S["K"]) * S["d"], f"the starts of {runs:,} runs")
    steps = S["steps"] if steps is None else V.integer("steps", steps, 1, floats=True)
    every = max(1, steps // 200) if every is None else V.integer("every", every, 1, floats=True)
    rng = np.random.default_rng(seed)
    H, K, d = S["H"], S["K"], S["d"]
    draws = [random_heads(H, d, rng) + random_locations(K, d, rng) for _ in range(runs)]
    Kh, Vh, Ks, Vs = (np.stack([x[i] for x in draws]) for i in range(4))
    common = dict(lam=figure9_lam, gamma=S["gamma"], eps=S["eps"], L=S["L"], alpha=S["alpha"], steps=steps, every=every,
                  progress=progress)
    tr_sgd = multihead_sgd(Kh, Vh, Ks, Vs, batch=S["batch"], seed=seed, **common)
    G0 = np.stack([KM.gram_of(Kh[r], Vh[r], Ks[r], Vs[r]) for r in range(runs)])
    tr_pgd = multihead_pgd(G0, H, K, d=d, **common)
    return tr_sgd, tr_pgd
