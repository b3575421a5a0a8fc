r"""Monte Carlo route for multiple-location regression and the multi-head erf predictor
(paper eqs. 30-31; `docs/MATH.md` §15).

:func:`mc_multihead_risk` averages :math:`(Y - T)^2` over fresh samples, with
:math:`T = \sum_h\sum_l \operatorname{erf}(\lambda X_l^\top k_h)\,X_l^\top v_h`, by either sampler
of :mod:`slr_verify.model.multilocation`: ``route='full'`` draws the d-dimensional tokens,
``route='projected'`` only their projections on (k_h, v_h, v*_j) (cost free of d). Both are
chunked under a memory budget, seeded per block, and return an estimate with its standard error.
It shares nothing with the closed form but the model's definition.
"""
from __future__ import annotations

import math

import numpy as np
from scipy.special import erf

from slr_verify.model import budgets
from slr_verify.model import validation as V
from slr_verify.model.multilocation import draw_multi_full, draw_multi_projected, validate_heads
from slr_verify.model.sampling import STREAM_FULL, STREAM_PROJ
from slr_verify.routes.mc_engine import DEFAULT_MEMORY, MCResult, check_memory, run_blocks, samples_per_chunk
from slr_verify.routes.montecarlo import SECONDS_PER_TOKEN, SECONDS_PER_TOKEN_DIM
from slr_verify.routes.projections import projection_factor

from ..model.params import accepts_gamma2, keywords_checked, scalars

ROUTES = ("full", "projected")


def _multihead_prediction(lam, a, b):
    """T from per-token, per-head projections a = X_l . k_h, b = X_l . v_h (shape (m, L, H))."""
    return np.einsum("mlh,mlh->m", erf(lam * a), b)


@accepts_gamma2
def mc_multihead_risk(K, V_, K_star, V_star, *, lam, gamma, eps=0.0, L, n, seed, route="projected",
                      memory=DEFAULT_MEMORY) -> MCResult:
    """Monte Carlo estimate of the multi-head risk (`docs/MATH.md` §15) and its standard error.

    Heads ``K``, ``V_`` (H, d); locations ``K_star``, ``V_star`` (K, d); unit rows; k*_j
    orthogonal to v*_j. Deterministic in (arguments, seed, route); independent of ``memory``."""
    K, V_, K_star, V_star = validate_heads(K, V_, K_star, V_star)
    if route not in ROUTES:
        raise ValueError(f"route must be one of {ROUTES}, got {route!r}")
    lam, gamma, eps = scalars(lam=lam, gamma=gamma, eps=eps)
    H, Kloc, d = K.shape[0], K_star.shape[0], K.shape[1]
    L = V.integer("L", L, Kloc, floats=True)
    budgets.memory_budget("L", 8.0 * L * (d if route == "full" else 2 * H + Kloc), f"one sample of {L:,} tokens")
    n = V.integer("n", n, 1, floats=True)
    per_sample = SECONDS_PER_TOKEN_DIM * L * d if route == "full" else SECONDS_PER_TOKEN * L * (2 * H + Kloc)
    budgets.time_budget("n", n * per_sample, f"{n:,} Monte Carlo samples")
    seed, memory = V.integer("seed", seed, 0), check_memory(memory)
    if route == "full":
        B = np.concatenate([K, V_]).T  # (d, 2H)

        def values(gens, m):
            X, J, Y = draw_multi_full(gens, m, K_star, V_star, gamma, eps, L)
            P = X @ B
            return ((Y - _multihead_prediction(lam, P[..., :H], P[..., H:])) ** 2)[None]

        piece = samples_per_chunk(8.0 * (L * d * 2 + L * 4 * H + 16), memory)
        return run_blocks(n, seed, STREAM_FULL, piece, values)[0]
    W = np.concatenate([K, V_, V_star])  # directions: heads, then targets
    factor = projection_factor(W @ W.T)
    rel_means = math.sqrt(d / 2.0) * (K_star @ W.T)
    target_index = 2 * H + np.arange(Kloc)

    def values(gens, m):
        P, J, Y = draw_multi_projected(gens, m, factor, rel_means, target_index, gamma, eps, L)
        return ((Y - _multihead_prediction(lam, P[..., :H], P[..., H:2 * H])) ** 2)[None]

    piece = samples_per_chunk(8.0 * (L * W.shape[0] * 3 + 16), memory)
    return run_blocks(n, seed, STREAM_PROJ, piece, values)[0]


@keywords_checked
def quad_head_pair(lam, mean, cov, nodes: int = 160) -> float:
    r""":math:`\mathbb E[\operatorname{erf}(\lambda a)\operatorname{erf}(\lambda a')\,b\,b']` for
    :math:`(a, b, a', b') \sim N(\text{mean}, \text{cov})` by a tensor Gauss-Hermite rule over
    (a, a') and the exact conditional moments of (b, b') given them: a quadrature route that
    uses neither zeta2 nor Stein's lemma (`docs/MATH.md` §15's cross term of two heads)."""
    mean, cov = np.asarray(mean, float), np.asarray(cov, float)
    ia, ib = [0, 2], [1, 3]
    Saa, Sba, Sbb = cov[np.ix_(ia, ia)], cov[np.ix_(ib, ia)], cov[np.ix_(ib, ib)]
    C = np.linalg.cholesky(Saa)
    x, w = np.polynomial.hermite_e.hermegauss(nodes)
    w = w / math.sqrt(2 * math.pi)
    Z = np.stack(np.meshgrid(x, x, indexing="ij"), -1).reshape(-1, 2)
    Wt = np.outer(w, w).ravel()
    A = mean[ia] + Z @ C.T  # (n^2, 2)
    reg = Sba @ np.linalg.inv(Saa)
    mb = mean[ib] + (A - mean[ia]) @ reg.T  # conditional means of (b, b')
    cond = Sbb - reg @ Sba.T
    Ebb = cond[0, 1] + mb[:, 0] * mb[:, 1]
    return float(np.sum(Wt * erf(lam * A[:, 0]) * erf(lam * A[:, 1]) * Ebb))
