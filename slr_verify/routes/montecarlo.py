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

from typing import NamedTuple

import numpy as np
from scipy.special import erf

from slr_verify.model import budgets as B
from slr_verify.model import validation as V
from slr_verify.model.params import scalars
from slr_verify.model.sampling import BLOCK, random_instance, random_unit, sample_slr  # noqa: F401  (re-exported)
from slr_verify.model.sampling import (
    STREAM_FULL as _STREAM_FULL,
)
from slr_verify.model.sampling import (
    STREAM_TRAIN as _STREAM_TRAIN,
)
from slr_verify.model.sampling import (
    draw_full as _draw_full,
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

from ..model.params import accepts_gamma2
from .mc_engine import (
    DEFAULT_MEMORY,
    MCResult,  # noqa: F401  (re-exported)
    check_memory,
    run_blocks,
    samples_per_chunk,
)
from .projections import ProjectionSampler, projection_factor, projection_law, run_projections, sample_projections  # noqa: F401  (re-exported)

PREDICTORS = ("erf", "softmax", "oracle", "linear")


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


def _predictor(predictor) -> str:
    if not isinstance(predictor, str) or predictor not in PREDICTORS:
        raise ValueError(f"predictor must be one of {PREDICTORS}, got {predictor!r}")
    return predictor


#: The cost the time budget assumes for one sample (seconds): per token and dimension for the full sampler, per
#: token for the projection sampler. Used to refuse n estimated above an hour.
SECONDS_PER_TOKEN_DIM = 5e-8
SECONDS_PER_TOKEN = 1e-7


def _common(lam, gamma, eps, L, n, p):
    lam, gamma, eps, L = scalars(lam=lam, gamma=gamma, eps=eps, L=L)
    n = V.integer("n", n, 2, floats=True)
    p, cdf = _law(p, L)
    return lam, gamma, eps, L, n, p, cdf


def _cost(n, seconds_per_sample):
    """Refuse an n whose estimated time exceeds an hour (``budgets.time_budget``)."""
    B.time_budget("n", n * seconds_per_sample, f"{n:,} Monte Carlo samples")


def linear_coefficients(p, gamma) -> np.ndarray:
    """c_l = p_l gamma^2 / (1 - p_l + p_l gamma^2) of Proposition 3 (`docs/MATH.md` §7): w_l = c_l v*."""
    p = np.asarray(p, dtype=float)
    g2 = float(gamma) ** 2
    return p * g2 / (1.0 - p + p * g2)


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
    gamma, eps, L = scalars(gamma=gamma, eps=eps, L=L)
    p, cdf = _law(p, L)  # an L too large for memory is refused naming L, before n_train's minimum L d
    n_train = V.integer("n_train", n_train, L * d, floats=True)
    n_test = V.integer("n_test", n_test, 2, floats=True)
    B.time_budget("n_test", n_test * SECONDS_PER_TOKEN_DIM * L * d, f"{n_test:,} held-out samples")
    B.time_budget("n_train", n_train * SECONDS_PER_TOKEN_DIM * L * d * L * d, f"least squares on {n_train:,} samples")
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

    return run_projections(n, seed, sampler, memory, values)[0]


