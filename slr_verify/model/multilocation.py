r"""Multiple-location regression (paper eq. 30; `docs/MATH.md` §15): validation and sampling.

K distinct positions :math:`J_1..J_K` (a uniformly random ordered K-subset of {0..L-1});
:math:`X_{J_j} \sim N(\sqrt{d/2}\,k^*_j, \gamma^2 I_d)`, the other tokens :math:`N(0, I_d)`,
independent given the positions; :math:`Y = \sum_j X_{J_j}^\top v^*_j + \xi`,
:math:`\xi \sim N(0, \varepsilon^2)`.

Two samplers, seeded block by block like the single-location one (:mod:`.sampling`): the full
d-dimensional tokens (:func:`draw_multi_full`), and their projections on a fixed set of
directions (:func:`draw_multi_projected`: a Gaussian vector with the directions' Gram matrix as
covariance; its cost does not depend on d).
"""
from __future__ import annotations

import math

import numpy as np

from . import budgets as B
from . import validation as V
from .params import keywords_checked, scalars


def _unit_rows(name, x):
    arr = V.as_finite(name, x)
    if arr.ndim != 2 or arr.shape[0] < 1 or arr.shape[1] < 1:
        raise ValueError(f"{name} must have shape (rows, d) with rows >= 1, got {arr.shape}")
    norms = np.linalg.norm(arr, axis=1)
    if np.any(np.abs(norms - 1) > 1e-8):
        raise ValueError(f"{name} must have unit rows, got row norms {norms!r}")
    return arr


@keywords_checked
def validate_locations(K_star, V_star):
    """(K_star, V_star) of shape (K, d), unit rows, each k*_j orthogonal to v*_j."""
    K_star, V_star = _unit_rows("K_star", K_star), _unit_rows("V_star", V_star)
    if V_star.shape != K_star.shape:
        raise ValueError(f"V_star must have the shape of K_star {K_star.shape}, got {V_star.shape}")
    dots = np.einsum("jd,jd->j", K_star, V_star)
    if np.any(np.abs(dots) > 1e-8):
        raise ValueError(f"each k*_j must be orthogonal to v*_j, got k*_j . v*_j = {dots!r}")
    return K_star, V_star


@keywords_checked
def validate_heads(K, V_, K_star, V_star):
    """Heads (K, V) of shape (H, d) and locations (K_star, V_star) of shape (K, d), all with unit
    rows, the same d, each k*_j orthogonal to v*_j."""
    K, V_ = _unit_rows("K", K), _unit_rows("V", V_)
    if V_.shape != K.shape:
        raise ValueError(f"V must have the shape of K {K.shape}, got {V_.shape}")
    K_star, V_star = validate_locations(K_star, V_star)
    if K_star.shape[1] != K.shape[1]:
        raise ValueError(f"K_star must have d = {K.shape[1]} columns like K, got {K_star.shape}")
    return K, V_, K_star, V_star


@keywords_checked
def draw_positions(gen, m: int, L: int, K: int) -> np.ndarray:
    """(m, K) distinct positions per sample: the first K entries of a uniform random permutation."""
    return np.argsort(gen.random((m, L)), axis=1)[:, :K]


@keywords_checked
def draw_multi_full(gens, m, K_star, V_star, gamma, eps, L):
    """m samples in full dimension: ``(X, J, Y)`` with X (m, L, d), J (m, K), Y (m,)."""
    g_tok, g_loc, g_xi = gens
    K, d = K_star.shape
    J = draw_positions(g_loc, m, L, K)
    X = g_tok.standard_normal((m, L, d))
    rows = np.arange(m)[:, None]
    X[rows, J] = gamma * X[rows, J] + math.sqrt(d / 2.0) * K_star[None]
    Y = np.einsum("mjd,jd->m", X[rows, J], V_star) + eps * g_xi.standard_normal(m)
    return X, J, Y


@keywords_checked
def draw_multi_projected(gens, m, factor, rel_means, target_index, gamma, eps, L):
    r"""m samples of the projections :math:`X_l^\top w` on q fixed unit directions w, without d.

    ``factor`` (q, r): :math:`F F^\top` = the directions' Gram matrix; ``rel_means`` (K, q): the
    mean :math:`\sqrt{d/2}\,k^{*\top}_j w` of location j's token; ``target_index[j]``: the row of
    :math:`v^*_j` among the directions. Returns ``(P, J, Y)`` with P (m, L, q)."""
    g_tok, g_loc, g_xi = gens
    K = rel_means.shape[0]
    J = draw_positions(g_loc, m, L, K)
    P = g_tok.standard_normal((m, L, factor.shape[1])) @ factor.T
    rows = np.arange(m)[:, None]
    P[rows, J] = gamma * P[rows, J] + rel_means[None]
    e = P[rows, J][:, np.arange(K), target_index]  # (m, K): X_{J_j} . v*_j
    Y = e.sum(axis=1) + eps * g_xi.standard_normal(m)
    return P, J, Y


@keywords_checked
def sample_multi(K_star, V_star, *, gamma, eps=0.0, L, n, seed):
    """n samples of multiple-location regression in full dimension, ``(X, J, Y)`` (all in memory;
    the Monte Carlo route draws the same blocks chunk by chunk). `docs/MATH.md` §15."""
    from .sampling import BLOCK, STREAM_FULL, generators

    K_star, V_star = validate_locations(K_star, V_star)
    gamma, eps = scalars(gamma=gamma, eps=eps)
    L = V.integer("L", L, K_star.shape[0], floats=True)  # the multi-location model: at least one token per location
    d = K_star.shape[1]
    B.memory_budget("L", 8.0 * L * (d + 1), f"one sample of {L:,} tokens in R^{d}")
    n = V.integer("n", n, 1, floats=True)
    B.memory_budget("n", 8.0 * n * L * (d + 1), f"{n:,} samples of {L:,} tokens in R^{d} held at once")
    seed = V.integer("seed", seed, 0)
    parts = [draw_multi_full(generators(seed, STREAM_FULL, b), min(BLOCK, n - b * BLOCK), K_star, V_star, gamma, eps, L)
             for b in range(-(-n // BLOCK))]
    return tuple(np.concatenate(x) for x in zip(*parts))


@keywords_checked
def random_locations(K: int, d: int, rng) -> tuple[np.ndarray, np.ndarray]:
    """K pairs (k*_j, v*_j), independent, each uniform on the sphere with v*_j uniform among the
    unit vectors orthogonal to k*_j (the paper's draw, `docs/MATH.md` §15). K >= 1; d >= 2 (v*_j orthogonal to k*_j)."""
    K, d = V.integer("K", K, 1), V.integer("d", d, 2)
    ks = rng.standard_normal((K, d))
    ks /= np.linalg.norm(ks, axis=1, keepdims=True)
    vs = rng.standard_normal((K, d))
    vs -= np.einsum("jd,jd->j", vs, ks)[:, None] * ks
    vs /= np.linalg.norm(vs, axis=1, keepdims=True)
    return ks, vs


@keywords_checked
def random_heads(H: int, d: int, rng) -> tuple[np.ndarray, np.ndarray]:
    """H heads (k_h, v_h), all independent and uniform on the sphere of R^d (H >= 1, d >= 1). `docs/MATH.md` §15."""
    H, d = V.integer("H", H, 1), V.integer("d", d, 1)
    x = rng.standard_normal((2, H, d))
    x /= np.linalg.norm(x, axis=2, keepdims=True)
    return x[0], x[1]


@keywords_checked
def random_instance(rng):
    """A random multi-head instance for comparing routes (`docs/MATH.md` §15): H, K in 1..3, d in [2K + 2, 60),
    targets from :func:`random_locations`, heads from :func:`random_heads` each pulled towards location h mod K
    (k_h + u k*_{h mod K}, v_h + u' v*_{h mod K}, u, u' uniform in [0, 2], renormalised: partly aligned, where the
    cross terms are not small), and the setting: lam = 10^U(-1.5, 0.5), gamma = 10^U(-0.6, 0.2), eps = 0.1,
    L = K + U{0..5}. Draws from ``rng`` (a NumPy Generator) in a fixed order. Returns (Kh, Vh, Ks, Vs, setting)."""
    H, K = int(rng.integers(1, 4)), int(rng.integers(1, 4))
    d = int(rng.integers(2 * K + 2, 60))
    Kh, Vh = random_heads(H, d, rng)
    Ks, Vs = random_locations(K, d, rng)
    for h in range(H):
        Kh[h] += rng.uniform(0, 2) * Ks[h % K]
        Vh[h] += rng.uniform(0, 2) * Vs[h % K]
    Kh /= np.linalg.norm(Kh, axis=1, keepdims=True)
    Vh /= np.linalg.norm(Vh, axis=1, keepdims=True)
    p = dict(lam=10 ** rng.uniform(-1.5, 0.5), gamma=10 ** rng.uniform(-0.6, 0.2), eps=0.1, L=K + int(rng.integers(0, 6)))
    return Kh, Vh, Ks, Vs, p
