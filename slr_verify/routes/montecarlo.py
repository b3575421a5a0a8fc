"""Monte Carlo route: simulate single-location regression and estimate risks (`docs/MATH.md` §1, 2, 3, 7).

This route shares no formula code with the symbolic route or the kernels: it draws the model of
`docs/MATH.md` §1 (paper, Section 2) and evaluates predictors on the draws. Two samplers:

* **full dimension** (:func:`sample_slr`, :func:`mc_risk`): tokens X in R^{n x L x d}, latent
  location J0 with any law p on {0..L-1} (0-based here; the reference writes 1..L), relevant token
  X_{J0} ~ N(sqrt(d/2) k*, gamma^2 I_d), the others N(0, I_d), Y = X_{J0}^T v* + xi,
  xi ~ N(0, eps^2).
* **d-free** (:func:`sample_projections`, :func:`mc_risk_overlaps`): every predictor of `docs/MATH.md` §2
  and 7 reads a token only through its projections on span(k, v, k*, v*). For one token
  P = (X^T k, X^T v, X^T k*, X^T v*) is Gaussian with covariance G (null token) or gamma^2 G
  (relevant token, mean sqrt(d/2) (kappa, theta, 1, 0)), G the Gram matrix of (k, v, k*, v*)
  (`docs/MATH.md` §3). Sampling P directly costs O(1) per token whatever d (d = 10^12 is fine).

Predictors (`docs/MATH.md` §2, Proposition 3 / `docs/MATH.md` §7):

* ``'erf'``      T(X)      = sum_l erf(lam X_l^T k) X_l^T v
* ``'softmax'``  T^soft(X) = sum_l softmax_l(lam X k) X_l^T v (max-shifted, no overflow)
* ``'oracle'``   T with (k, v) = (k*, v*) (the paper's oracle, `docs/MATH.md` §5; it does *not* see J0)
* ``'linear'``   the best linear predictor of Proposition 3:
  sum_l c_l X_l^T v*, c_l = p_l gamma^2 / (1 - p_l + p_l gamma^2)

For ``'oracle'`` and ``'linear'`` the arguments k, v (or the overlaps) do not enter the
predictor; :func:`mc_risk` accepts ``k=None, v=None`` for them (if given they are still
validated), and :func:`mc_risk_overlaps` still validates the overlap tuple.

Randomness and memory. Samples are grouped in fixed blocks of ``BLOCK`` samples; block b draws
from its own streams seeded by ``SeedSequence(seed, spawn_key=(stream, b))`` (one stream each for
tokens, J0 and xi). A chunk (what is held in memory at once, sized from ``memory``) is a whole
block or a piece of one; NumPy's generators fill arrays sequentially, so the draws, the
per-sample errors and the per-block statistics are bit-for-bit independent of the memory budget.
Block statistics (count, mean, sum of squared deviations) are merged in block order with Chan's
parallel update. The standard error is the sample standard deviation of the per-sample squared
errors divided by sqrt(n).
"""
from __future__ import annotations

import math
from typing import Callable, NamedTuple

import numpy as np
from scipy.special import erf

from slr_verify.model import validation as V
from slr_verify.model.params import D_MIN, check_params
from slr_verify.model.sampling import (
    BLOCK,
    random_instance,
    random_unit,
    sample_slr,
)
from slr_verify.model.sampling import (
    STREAM_FULL as _STREAM_FULL,
)
from slr_verify.model.sampling import (
    STREAM_PROJ as _STREAM_PROJ,
)
from slr_verify.model.sampling import (
    STREAM_TRAIN as _STREAM_TRAIN,
)
from slr_verify.model.sampling import (
    draw_full as _draw_full,
)
from slr_verify.model.sampling import (
    draw_locations as _draw_locations,
)
from slr_verify.model.sampling import (
    generators as _generators,
)
from slr_verify.model.sampling import (
    instance as _instance,
)
from slr_verify.model.sampling import (
    law as _law,
)
from slr_verify.model.sampling import (
    sample_full as _sample_full,
)
from slr_verify.model.sampling import (
    scalar as _scalar,
)

from ..model.params import accepts_gamma2, keywords_checked

__all__ = [
    "BLOCK",
    "DEFAULT_MEMORY",
    "PREDICTORS",
    "MCResult",
    "LinearFit",
    "mc_risk",
    "mc_risk_overlaps",
    "sample_slr",
    "sample_projections",
    "projection_factor",
    "fit_linear_risk",
    "random_instance",
    "random_unit",
    "ProjectionSampler",
    "projection_law",
    "run_blocks",
    "samples_per_chunk",
    "check_memory",
]

#: Default memory budget for one chunk, in bytes (1 GiB).
DEFAULT_MEMORY = 1 << 30
PREDICTORS = ("erf", "softmax", "oracle", "linear")



class MCResult(NamedTuple):
    """A Monte Carlo estimate and its standard error (std of per-sample values / sqrt(n))."""

    estimate: float
    standard_error: float


class LinearFit(NamedTuple):
    """Result of :func:`fit_linear_risk`.

    ``estimate``/``standard_error``: held-out empirical risk of the least-squares predictor;
    ``weights``: fitted w, shape (L, d); ``excess``/``excess_se``: paired estimate (same held-out
    samples) of risk(fitted) - risk(Proposition 3 predictor).
    """

    estimate: float
    standard_error: float
    weights: np.ndarray
    excess: float
    excess_se: float


# ----------------------------------------------------------------------------------------------
# validation helpers


@keywords_checked
def check_memory(memory) -> int:
    """The memory budget of one chunk in bytes: a Python or NumPy integer >= 1, returned as an int
    (``ValueError`` naming ``memory`` otherwise)."""
    return V.integer("memory (bytes)", memory, 1)


def _predictor(predictor) -> str:
    if not isinstance(predictor, str) or predictor not in PREDICTORS:
        raise ValueError(f"predictor must be one of {PREDICTORS}, got {predictor!r}")
    return predictor


#: The cost the time budget assumes for one sample (seconds): per token and dimension for the full sampler, per
#: token for the projection sampler. Used to refuse n estimated above an hour.
SECONDS_PER_TOKEN_DIM = 5e-8
SECONDS_PER_TOKEN = 1e-7


def _common(lam, gamma, eps, L, n, p):
    lam = _scalar(V.positive, "lam", lam)
    gamma = _scalar(V.positive, "gamma", gamma)
    eps = _scalar(V.nonnegative, "eps", eps)
    L = V.integer("L", L, 1, floats=True)
    check_params(lam, gamma, eps, 2, L)  # the supported ranges
    n = V.integer("n", n, 2, floats=True)
    p, cdf = _law(p, L)
    return lam, gamma, eps, L, n, p, cdf


def _cost(n, seconds_per_sample):
    """Refuse an n whose estimated time exceeds an hour (``validation.time_budget``)."""
    V.time_budget("n", n * seconds_per_sample, f"{n:,} Monte Carlo samples")


def linear_coefficients(p, gamma) -> np.ndarray:
    """c_l = p_l gamma^2 / (1 - p_l + p_l gamma^2) of Proposition 3 (`docs/MATH.md` §7): w_l = c_l v*."""
    p = np.asarray(p, dtype=float)
    g2 = float(gamma) ** 2
    return p * g2 / (1.0 - p + p * g2)


# ----------------------------------------------------------------------------------------------
# statistics and the chunked driver


class _Welford:
    """Running count / mean / sum of squared deviations, merged block by block (Chan et al.)."""

    def __init__(self):
        self.n = 0
        self.mean = 0.0
        self.m2 = 0.0

    def add(self, x: np.ndarray) -> None:
        nb = x.size
        if nb == 0:
            return
        mb = float(np.mean(x))
        m2b = float(np.sum((x - mb) ** 2))  # two-pass within the block
        if self.n == 0:
            self.n, self.mean, self.m2 = nb, mb, m2b
            return
        n = self.n + nb
        delta = mb - self.mean
        self.mean += delta * nb / n
        self.m2 += m2b + delta * delta * self.n * nb / n
        self.n = n

    def result(self) -> MCResult:
        var = self.m2 / (self.n - 1)
        return MCResult(float(self.mean), float(math.sqrt(var / self.n)))


@keywords_checked
def samples_per_chunk(bytes_per_sample: float, memory: int) -> int:
    """How many samples one chunk holds: ``memory // bytes_per_sample``, at most ``BLOCK`` (a chunk never
    spans two blocks). ``ValueError`` naming ``memory`` when it cannot hold a single sample."""
    m = int(memory // max(bytes_per_sample, 1.0))
    if m < 1:
        raise ValueError(
            f"memory={memory} bytes cannot hold one sample (about {int(bytes_per_sample)} bytes needed)"
        )
    return min(m, BLOCK)


@keywords_checked
def run_blocks(n: int, seed: int, stream: int, piece: int, values: Callable, nvalues: int = 1):
    """The chunked Monte Carlo driver of every route: mean and standard error of per-sample values over n samples.

    Samples are drawn in blocks of ``BLOCK`` seeded by ``generators(seed, stream, b)`` and, inside a block, in
    chunks of at most ``piece`` samples: ``values(gens, m)`` draws the next m samples from the block's generators
    and returns an array of shape (nvalues, m). Block statistics are merged in block order (Chan's update), so the
    result is bit-for-bit independent of ``piece``. Returns one :class:`MCResult` per value (standard error: the
    sample standard deviation / sqrt(n); n >= 2).
    """
    acc = [_Welford() for _ in range(nvalues)]
    nblocks = -(-n // BLOCK)
    for b in range(nblocks):
        nb = min(BLOCK, n - b * BLOCK)
        gens = _generators(seed, stream, b)
        if piece >= nb:
            vals = values(gens, nb)
        else:
            vals = np.empty((nvalues, nb))
            for s in range(0, nb, piece):
                m = min(piece, nb - s)
                vals[:, s : s + m] = values(gens, m)
        for a, row in zip(acc, vals):
            a.add(row)
    return [a.result() for a in acc]


# ----------------------------------------------------------------------------------------------
# predictors on projections


def _predict(predictor, lam, a, b, c_lin, vstar_all):
    """Prediction from per-token projections a = X_l^T k, b = X_l^T v (shape (m, L))."""
    if predictor in ("erf", "oracle"):
        return np.einsum("ml,ml->m", erf(lam * a), b)
    if predictor == "softmax":
        z = lam * a
        z -= z.max(axis=1, keepdims=True)
        w = np.exp(z)
        return np.einsum("ml,ml->m", w, b) / w.sum(axis=1)
    return vstar_all @ c_lin  # 'linear'


# ----------------------------------------------------------------------------------------------
# full-dimensional sampler


@accepts_gamma2
def mc_risk(k, v, k_star, v_star, *, lam, gamma, eps=0.0, L, n, seed, p=None, predictor="erf", memory=DEFAULT_MEMORY):
    """Monte Carlo estimate of the risk E[(Y - T(X))^2] with the full-dimensional sampler.

    `docs/MATH.md` §2 (R_lam(k, v), T and T^soft), `docs/MATH.md` §5 (oracle), `docs/MATH.md` §7 / Proposition 3 (linear).
    k, v, k_star, v_star: unit vectors of shape (d,), k_star orthogonal to v_star (Assumption 1).
    For ``predictor='oracle'`` or ``'linear'`` k and v do not enter and may be None.
    Returns ``MCResult(estimate, standard_error)``; memory per chunk is bounded by ``memory``
    bytes (approximately). Deterministic in (arguments, seed) and independent of ``memory``.
    """
    predictor = _predictor(predictor)
    k_star, v_star = _instance(k_star, v_star)
    d = k_star.shape[0]
    needs_kv = predictor in ("erf", "softmax")
    vecs = {}
    for name, x in (("k", k), ("v", v)):
        if x is None and not needs_kv:
            continue
        if x is None:
            raise ValueError(f"{name} is required for predictor={predictor!r}")
        x = V.unit_vectors(name, x)
        if x.shape != (d,):
            raise ValueError(f"{name} must have shape ({d},) like k_star, got {x.shape}")
        vecs[name] = x
    lam, gamma, eps, L, n, p, cdf = _common(lam, gamma, eps, L, n, p)
    seed, memory = V.integer("seed", seed, 0), check_memory(memory)
    _cost(n, SECONDS_PER_TOKEN_DIM * L * d)
    if predictor == "oracle":
        k, v = k_star, v_star
    elif needs_kv:
        k, v = vecs["k"], vecs["v"]
    else:
        k = v = v_star  # unused directions for 'linear'
    B = np.stack([k, v, v_star], axis=1)  # (d, 3)
    c_lin = linear_coefficients(p, gamma)

    def values(gens, m):
        X, J0, xi = _draw_full(gens, m, k_star, v_star, gamma, eps, cdf, L)
        P = X @ B  # (m, L, 3)
        Y = P[np.arange(m), J0, 2] + xi
        T = _predict(predictor, lam, P[..., 0], P[..., 1], c_lin, P[..., 2])
        return ((Y - T) ** 2)[None]

    piece = samples_per_chunk(8.0 * (L * d * 2 + L * 12 + 16), memory)
    return run_blocks(n, seed, _STREAM_FULL, piece, values)[0]


@accepts_gamma2
def fit_linear_risk(k_star, v_star, *, gamma, eps=0.0, L, n_train, n_test, seed, p=None, memory=DEFAULT_MEMORY):
    """Least-squares linear predictor fitted on samples, and its held-out risk (Proposition 3).

    Fits sum_l w_l^T X_l (no intercept; `docs/MATH.md` §7: it changes nothing) by ``np.linalg.lstsq`` on
    n_train samples (the flattened design, n_train x L d, must fit in ``memory``), then evaluates
    it on n_test fresh samples (the same samples as ``mc_risk(..., predictor='linear', seed)``),
    together with the paired difference to Proposition 3's predictor on those samples.
    """
    k_star, v_star = _instance(k_star, v_star)
    d = k_star.shape[0]
    gamma = _scalar(V.positive, "gamma", gamma)
    eps = _scalar(V.nonnegative, "eps", eps)
    L = V.integer("L", L, 1, floats=True)
    n_train = V.integer("n_train", n_train, L * d, floats=True)
    n_test = V.integer("n_test", n_test, 2, floats=True)
    check_params(1.0, gamma, eps, 2, L)
    V.time_budget("n_test", n_test * SECONDS_PER_TOKEN_DIM * L * d, f"{n_test:,} held-out samples")
    V.time_budget("n_train", n_train * SECONDS_PER_TOKEN_DIM * L * d * L * d, f"least squares on {n_train:,} samples")
    p, cdf = _law(p, L)
    seed, memory = V.integer("seed", seed, 0), check_memory(memory)
    if 8.0 * n_train * L * d * 3 > memory:
        raise ValueError(f"n_train={n_train} with L*d={L * d} does not fit in memory={memory} bytes")
    X, _, Y = _sample_full(k_star, v_star, gamma, eps, L, n_train, seed, cdf, _STREAM_TRAIN)
    w, *_ = np.linalg.lstsq(X.reshape(n_train, L * d), Y, rcond=None)
    del X
    W = w.reshape(L, d)
    c_lin = linear_coefficients(p, gamma)

    def values(gens, m):
        Xt, J0, xi = _draw_full(gens, m, k_star, v_star, gamma, eps, cdf, L)
        s = Xt @ v_star  # (m, L)
        Y = s[np.arange(m), J0] + xi
        e_fit = (Y - np.einsum("mld,ld->m", Xt, W)) ** 2
        e_opt = (Y - s @ c_lin) ** 2
        return np.stack([e_fit, e_fit - e_opt])

    piece = samples_per_chunk(8.0 * (L * d * 2 + L * 4 + 16), memory)
    fit, diff = run_blocks(n_test, seed, _STREAM_FULL, piece, values, nvalues=2)
    return LinearFit(fit.estimate, fit.standard_error, W, diff.estimate, diff.standard_error)


# ----------------------------------------------------------------------------------------------
# d-free sampler of the projections on span(k, v, k*, v*)


@keywords_checked
def projection_factor(G, *, rtol: float = 1e-13) -> np.ndarray:
    """A factor A (q x r) with A A^T = G for a PSD (possibly singular) Gram matrix G.

    Eigendecomposition, tiny negative eigenvalues clipped to zero and directions with
    eigenvalue <= rtol * max eigenvalue dropped, so r = numerical rank of G.
    """
    w, Q = np.linalg.eigh(np.asarray(G, dtype=float))
    w = np.clip(w, 0.0, None)
    keep = w > rtol * max(float(w.max()), 1e-300)
    return Q[:, keep] * np.sqrt(w[keep])


def _triangular_factor(G) -> np.ndarray:
    """Lower-trapezoidal R (q x r) with R R^T = G: the eigen factor A rotated by the QR of A^T.

    Row j of R only involves z_0..z_min(j, r-1), so the first components of a token can be
    drawn with fewer normals than the later ones.
    """
    A = projection_factor(G)
    if A.shape[1] == 0:
        return A
    _, R = np.linalg.qr(A.T)  # A^T = U R  =>  A U = R^T, and (A U)(A U)^T = G
    return np.ascontiguousarray(R.T)


class ProjectionSampler:
    """The d-free sampler (module docstring): draws chosen components of (X^T k, X^T v, X^T k*, X^T v*)
    for the tokens of m samples.

    ``every``: components drawn for every token; ``relevant``: components needed for the
    relevant token only (e.g. X^T v* for the label). The joint law of all of them is exact:
    tokens are z -> R z with R the lower-trapezoidal factor of the sub-Gram matrix, scaled by
    gamma and shifted by the mean for the relevant token (`docs/MATH.md` §1, 3).
    """

    def __init__(self, G, mean, gamma, cdf, L, every, relevant=()):
        idx = list(every) + list(relevant)
        self.R = _triangular_factor(G[np.ix_(idx, idx)])  # (q, r)
        self.mean = np.asarray(mean, dtype=float)[idx]
        self.gamma, self.cdf, self.L = gamma, cdf, L
        self.n_every = len(every)
        self.q, self.r = self.R.shape
        self.r_every = min(self.n_every, self.r)  # normals per token
        # fixed piece (about 2^15 tokens, cache sized): independent of the memory budget
        self.piece = max(1, (1 << 15) // L)
        self._work = self._tmp = None

    def bytes_per_sample(self):
        return 8.0 * self.L * (self.r_every + max(self.n_every - self.r_every, 0) + 6) + 8.0 * (2 * self.q + 8)

    def draw(self, gens, m):
        """Return (every, relevant, J0): list of (m, L) arrays, list of (m,) arrays, locations."""
        g_tok, g_loc, _ = gens
        L, R, re_ = self.L, self.R, self.r_every
        J0 = _draw_locations(g_loc, self.cdf, m)
        rows = np.arange(m)
        # workspace reused across pieces (no page faults); the returned arrays are views of it
        if self._tmp is None or self._tmp.size < m * L:
            self._work = np.empty(re_ * max(m, self.piece) * L)
            self._tmp = np.empty(max(m, self.piece) * L)
        Z = self._work[: re_ * m * L].reshape(re_, m, L)
        g_tok.standard_normal(out=Z)
        tmp = self._tmp[: m * L].reshape(m, L)
        z_rel = np.empty((self.r, m))
        z_rel[:re_] = Z[:, rows, J0]
        z_rel[re_:] = g_tok.standard_normal((self.r - re_, m))
        out = [None] * self.n_every
        for j in range(re_, self.n_every):  # rank-deficient extras, from the raw normals
            c = np.multiply(Z[0], R[j, 0])
            for i in range(1, re_):
                c += np.multiply(Z[i], R[j, i], out=tmp)
            out[j] = c
        for j in range(re_ - 1, -1, -1):  # in place, top row last (rows below read raw Z)
            Z[j] *= R[j, j]
            for i in range(j):
                Z[j] += np.multiply(Z[i], R[j, i], out=tmp)
            out[j] = Z[j]
        rel = self.gamma * (R @ z_rel) + self.mean[:, None]  # (q, m): relevant token, exact law
        for j in range(self.n_every):
            out[j][rows, J0] = rel[j]
        return out, list(rel[self.n_every :]), J0


@keywords_checked
def projection_law(kappa, nu, theta, eta, rho, d):
    """The law of one token's projections on (k, v, k*, v*) for scalar overlaps realisable in dimension d
    (``validation.overlaps``; ``ValueError`` naming the parameter otherwise): returns ``(d, G, mean)``, d as a
    float, G the 4 x 4 Gram matrix (`docs/MATH.md` §3) and ``mean = sqrt(d/2) (kappa, theta, 1, 0)`` the relevant
    token's mean before the gamma scaling. Exact (closed form)."""
    d = float(V.integer("d", d, D_MIN, floats=True))
    vals = V.overlaps(kappa, nu, theta, eta, rho, d=d)
    if any(x.ndim != 0 for x in vals):
        raise ValueError("kappa, nu, theta, eta, rho must be scalars")
    kappa, nu, theta, eta, rho = (float(x) for x in vals)
    G = V.gram_matrix(kappa, nu, theta, eta, rho)
    mean = math.sqrt(d / 2.0) * np.array([kappa, theta, 1.0, 0.0])
    return d, G, mean


def _run_proj(n, seed, sampler, memory, values):
    if sampler.bytes_per_sample() * min(sampler.piece, n) > memory:
        raise ValueError(
            f"memory={memory} bytes is too small for the projection sampler "
            f"(needs about {int(sampler.bytes_per_sample() * min(sampler.piece, n))} bytes)"
        )
    return run_blocks(n, seed, _STREAM_PROJ, sampler.piece, values)


@accepts_gamma2
def sample_projections(kappa, nu, theta, eta, rho, *, gamma, d, L, n, seed, p=None):
    """Draw the projections of n x L tokens on (k, v, k*, v*) with their exact law (`docs/MATH.md` §1, 3).

    Returns ``(P, J0)``: P of shape (n, L, 4) holding (X_l^T k, X_l^T v, X_l^T k*, X_l^T v*);
    null tokens ~ N(0, G), the relevant token J0 (law p) ~ N(sqrt(d/2) (kappa, theta, 1, 0),
    gamma^2 G), G the Gram matrix of `docs/MATH.md` §3 (singular G allowed). The label without noise is
    ``P[arange(n), J0, 3]``. Cost O(n L), independent of d. Held in memory at once.
    """
    gamma = _scalar(V.positive, "gamma", gamma)
    L = V.integer("L", L, 1, floats=True)
    n = V.integer("n", n, 1, floats=True)
    _, cdf = _law(p, L)
    seed = V.integer("seed", seed, 0)
    _, G, mean = projection_law(kappa, nu, theta, eta, rho, d)
    sampler = ProjectionSampler(G, mean, gamma, cdf, L, range(4))
    P = np.empty((n, L, 4))
    J0 = np.empty(n, dtype=np.intp)
    for b in range(-(-n // BLOCK)):
        gens = _generators(seed, _STREAM_PROJ, b)
        s0, nb = b * BLOCK, min(BLOCK, n - b * BLOCK)
        for s in range(s0, s0 + nb, sampler.piece):
            m = min(sampler.piece, s0 + nb - s)
            comps, _, J0[s : s + m] = sampler.draw(gens, m)
            P[s : s + m] = np.stack(comps, axis=-1)
    return P, J0


@accepts_gamma2
def mc_risk_overlaps(
    kappa, nu, theta, eta, rho, *, lam, gamma, eps=0.0, d, L, n, seed, p=None, predictor="erf", memory=DEFAULT_MEMORY
):
    """Monte Carlo risk from the d-free projection sampler (`docs/MATH.md` §2, 3; Theorem 1's setting).

    Same predictors and return value as :func:`mc_risk`, with (k, v) given through their overlaps
    (kappa, nu, theta, eta, rho) = (k^T k*, v^T v*, v^T k*, k^T v*, k^T v); the tuple must be
    realisable in dimension d (``validation.overlaps``) even for 'oracle' and 'linear', where it
    does not enter. Only the components a predictor reads are drawn: (X^T k, X^T v) for every
    token and X^T v* for the relevant one ('erf', 'softmax'), (X^T k*, X^T v*) ('oracle'),
    X^T v* ('linear'), jointly exact. Draws are independent of ``memory``, which must hold at
    least one cache-sized piece (a few MB) or one sample when L is huge.
    """
    predictor = _predictor(predictor)
    lam, gamma, eps, L, n, p, cdf = _common(lam, gamma, eps, L, n, p)
    seed, memory = V.integer("seed", seed, 0), check_memory(memory)
    d, G, mean = projection_law(kappa, nu, theta, eta, rho, d)
    _cost(n, SECONDS_PER_TOKEN * L)
    if predictor in ("erf", "softmax"):
        sampler = ProjectionSampler(G, mean, gamma, cdf, L, (0, 1), (3,))
    elif predictor == "oracle":
        sampler = ProjectionSampler(G, mean, gamma, cdf, L, (2, 3))
    else:
        sampler = ProjectionSampler(G, mean, gamma, cdf, L, (3,))
    c_lin = linear_coefficients(p, gamma)

    def values(gens, m):
        every, rel, J0 = sampler.draw(gens, m)
        xi = gens[2].standard_normal(m)
        if predictor == "linear":
            Y = every[0][np.arange(m), J0]
            T = every[0] @ c_lin
        elif predictor == "oracle":
            Y = every[1][np.arange(m), J0]
            T = _predict("erf", lam, every[0], every[1], None, None)
        else:
            Y = rel[0]
            T = _predict(predictor, lam, every[0], every[1], None, None)
        Y += eps * xi
        return ((Y - T) ** 2)[None]

    return _run_proj(n, seed, sampler, memory, values)[0]


