"""Drawing the model: instances (k*, v*), initial points, and samples of SLR(k*, v*).

The law of the data (`docs/MATH.md` §1; paper, Section 2): given J0 (law p on {0..L-1}, 0-based
here), X_{J0} ~ N(sqrt(d/2) k*, gamma^2 I_d), the other tokens N(0, I_d), Y = X_{J0}^T v* + xi,
xi ~ N(0, eps^2). The Monte Carlo route (:mod:`slr_verify.routes.montecarlo`) and the SGD runner
(:mod:`slr_verify.dynamics.sgd`) both draw from here.

Randomness: samples come in blocks of ``BLOCK``; block b of stream s draws from three generators
seeded by ``SeedSequence(seed, spawn_key=(s, b))`` (tokens, J0, xi), so a draw does not depend on
how it is chunked in memory.
"""
from __future__ import annotations

import math

import numpy as np

from . import budgets as B
from . import validation as V
from .overlaps import Overlaps
from .params import accepts_gamma2, keywords_checked, scalars

#: Samples per independently seeded block (the unit of reproducibility).
BLOCK = 1 << 15
# stream ids inside the seed tree: distinct purposes never share random numbers
STREAM_FULL = 0
STREAM_PROJ = 1
STREAM_TRAIN = 2
STREAM_TILTED = 3  # importance-sampling draws of the Bayes and softmax routes (`docs/MATH.md` §18)


def scalar(check, name, value) -> float:
    """``check(name, value)`` (a validator of :mod:`.validation`) for a single number: returned as a float,
    ``ValueError`` naming ``name`` for an array."""
    arr = check(name, value)
    if arr.ndim != 0:
        raise ValueError(f"{name} must be a scalar, got shape {arr.shape}")
    return float(arr)


def law(p, L: int) -> tuple[np.ndarray, np.ndarray]:
    """Validated law of J0 and the cumulative table used to draw it (exactly 1 at the end); an L whose table would not
    fit in memory is refused naming L."""
    B.memory_budget("L", 16.0 * L, f"the law of J0 over L = {L:,} locations")
    p = np.full(L, 1.0 / L) if p is None else V.probability_vector("p", p, L)
    cdf = np.cumsum(p) / p.sum()
    last = int(np.flatnonzero(p > 0)[-1])
    cdf[last:] = 1.0  # zero-probability trailing locations are never drawn
    return p, cdf


def instance(k_star, v_star):
    k_star = V.unit_vectors("k_star", k_star)
    v_star = V.unit_vectors("v_star", v_star)
    if k_star.ndim != 1:
        raise ValueError(f"k_star must have shape (d,), got {k_star.shape}")
    if v_star.shape != k_star.shape:
        raise ValueError(f"v_star must have the shape of k_star {k_star.shape}, got {v_star.shape}")
    if abs(float(k_star @ v_star)) > 1e-8:
        raise ValueError(
            f"k_star and v_star must be orthogonal (Assumption 1), got k_star^T v_star = {float(k_star @ v_star)!r}"
        )
    return k_star, v_star


def generators(seed: int, stream: int, block: int):
    ss = np.random.SeedSequence(entropy=seed, spawn_key=(stream, block))
    return [np.random.Generator(np.random.SFC64(s)) for s in ss.spawn(3)]


def draw_locations(gen, cdf, m):
    """J0 for m samples by inversion of one uniform each (0-based locations)."""
    u = gen.random(m)
    if cdf.size == 1:
        return np.zeros(m, dtype=np.intp)
    return np.searchsorted(cdf, u, side="right")


def draw_full(gens, m, k_star, v_star, gamma, eps, cdf, L):
    g_tok, g_loc, g_xi = gens
    d = k_star.shape[0]
    J0 = draw_locations(g_loc, cdf, m)
    X = g_tok.standard_normal((m, L, d))
    rows = np.arange(m)
    X[rows, J0] = gamma * X[rows, J0] + math.sqrt(d / 2.0) * k_star
    xi = g_xi.standard_normal(m)
    xi *= eps
    return X, J0, xi


@accepts_gamma2
def sample_slr(k_star, v_star, *, gamma, eps=0.0, L, n, seed, p=None):
    """Draw n samples of SLR(k*, v*) in full dimension (`docs/MATH.md` §1; paper, Section 2).

    Returns ``(X, J0, Y)`` with X of shape (n, L, d), J0 in {0..L-1} of shape (n,) drawn from p
    (uniform by default), Y = X_{J0}^T v* + xi of shape (n,). These are exactly the samples
    the Monte Carlo route's full-dimensional sampler uses for the same seed. Everything is held in memory at once: an
    n (or L) whose samples would not fit is refused naming it.
    """
    k_star, v_star = instance(k_star, v_star)
    gamma, eps, L = scalars(gamma=gamma, eps=eps, L=L)
    _, cdf = law(p, L)
    n = V.integer("n", n, 1, floats=True)
    d = k_star.shape[0]
    B.memory_budget("n", 8.0 * n * L * (d + 1), f"{n:,} samples of {L:,} tokens in R^{d} held at once")
    return sample_full(k_star, v_star, gamma, eps, L, n, V.integer("seed", seed, 0), cdf, STREAM_FULL)


def sample_full(k_star, v_star, gamma, eps, L, n, seed, cdf, stream):
    d = k_star.shape[0]
    X = np.empty((n, L, d))
    J0 = np.empty(n, dtype=np.intp)
    Y = np.empty(n)
    for b in range(-(-n // BLOCK)):
        s = b * BLOCK
        m = min(BLOCK, n - s)
        Xb, Jb, xib = draw_full(generators(seed, stream, b), m, k_star, v_star, gamma, eps, cdf, L)
        X[s : s + m], J0[s : s + m] = Xb, Jb
        Y[s : s + m] = Xb[np.arange(m), Jb] @ v_star + xib
    return X, J0, Y


# ----------------------------------------------------------------------------------------------
# random instances


@keywords_checked
def random_unit(d, seed) -> np.ndarray:
    """A uniformly distributed unit vector of R^d (normalised Gaussian). `docs/MATH.md` §1."""
    d = V.integer("d", d, 1, floats=True)
    B.memory_budget("d", 8.0 * d, f"a vector of R^{d}")
    g = np.random.default_rng(V.integer("seed", seed, 0))
    while True:
        x = g.standard_normal(d)
        nrm = np.linalg.norm(x)
        if nrm > 0:
            return x / nrm


@keywords_checked
def random_instance(d, seed) -> tuple[np.ndarray, np.ndarray]:
    """(k*, v*) orthonormal in R^d, uniformly distributed (Gram-Schmidt of two Gaussians), d >= 2.
    The paper's Section 2, `docs/MATH.md` §1."""
    (d,) = scalars(d=d)
    B.memory_budget("d", 32.0 * d, f"two vectors of R^{d} and their QR factorisation")
    g = np.random.default_rng(V.integer("seed", seed, 0))
    Q, R = np.linalg.qr(g.standard_normal((d, 2)))
    Q = Q * np.sign(np.diag(R))  # Haar-distributed frame
    k_star, v_star = Q[:, 0].copy(), Q[:, 1].copy()
    v_star -= (k_star @ v_star) * k_star
    v_star /= np.linalg.norm(v_star)
    return k_star, v_star


@keywords_checked
def draw_problem(rng, runs, d, on_M):
    """Per run: k* orthogonal to v* (uniform), and (k0, v0) uniform on the sphere, or uniform on
    M (k0 in span(k*, w1), v0 in span(v*, w2), w1, w2 orthogonal to everything else).
    Returns an array (4, runs, d): k0, v0, k*, v*. The paper's Section 5, `docs/MATH.md` §11."""
    out = np.zeros((4, runs, d))
    for r in range(runs):
        q, _ = np.linalg.qr(rng.standard_normal((d, 4)))
        ks, vs = q[:, 0], q[:, 1]
        if on_M:
            a, b = rng.uniform(0, 2 * np.pi, 2)
            k, v = np.cos(a) * ks + np.sin(a) * q[:, 2], np.cos(b) * vs + np.sin(b) * q[:, 3]
        else:
            x = rng.standard_normal((2, d))
            k, v = x / np.linalg.norm(x, axis=1, keepdims=True)
        out[:, r] = k, v, ks, vs
    return out


@keywords_checked
def initial_overlaps(seed, runs, d, on_M=False) -> Overlaps:
    """The overlaps of :func:`draw_problem`'s initial points (seeded), arrays of shape (runs,).
    The paper's Section 5, `docs/MATH.md` §11."""
    return Overlaps.from_vectors(*draw_problem(np.random.default_rng(seed), runs, d, on_M))


def initial_overlaps_exact(seed, runs, d) -> Overlaps:
    r"""The overlaps of k, v independent and uniform on S^{d-1}, drawn d-free from their exact law
    (`docs/MATH.md` §13), arrays of shape (runs,).

    With k = g/|g|, g ~ N(0, I_d): (kappa, eta) = (g_1, g_2)/|g| and |g|^2 = g_1^2 + g_2^2 + C_k,
    C_k ~ chi^2_{d-2}; likewise (theta, nu) from h; and k_perp . v_perp = |k_perp| |v_perp| c, where
    the cosine c of two independent uniform directions of R^{d-2} is the first coordinate of a
    uniform point of S^{d-3}: c = z / sqrt(z^2 + chi^2_{d-3}) (d >= 4), a random sign (d = 3), and
    k_perp = v_perp = 0 (d = 2). ``seed``: an integer or a ``numpy.random.SeedSequence``.
    """
    runs = V.integer("runs", runs, 1)
    d = V.count_value(scalars(d=d)[0])  # beyond int64 a float (chi^2 of huge df)
    rng = np.random.default_rng(seed)
    g = rng.standard_normal((2, runs))
    h = rng.standard_normal((2, runs))
    ck = rng.chisquare(d - 2, runs) if d > 2 else np.zeros(runs)
    cv = rng.chisquare(d - 2, runs) if d > 2 else np.zeros(runs)
    if d >= 4:
        z = rng.standard_normal(runs)
        c = z / np.sqrt(z**2 + rng.chisquare(d - 3, runs))
    elif d == 3:
        c = rng.choice([-1.0, 1.0], runs)
    else:
        c = np.zeros(runs)
    nk = np.sqrt(g[0] ** 2 + g[1] ** 2 + ck)
    nv = np.sqrt(h[0] ** 2 + h[1] ** 2 + cv)
    kappa, eta = g[0] / nk, g[1] / nk
    theta, nu = h[0] / nv, h[1] / nv
    rho = kappa * theta + eta * nu + np.sqrt(ck * cv) / (nk * nv) * c
    return Overlaps(kappa, nu, theta, eta, rho)
