r"""Float64 kernels of the multi-head risk (`docs/MATH.md` §15), generated from
:mod:`slr_verify.symbolic.multihead`.

* :func:`functional_kernels`: the four token functionals (head_mean, head_target, head_square,
  head_pair); :func:`risk_from_gram` evaluates the risk through the *same* code as the symbolic
  derivation (``symbolic.multihead.risk_from_overlaps``), with these kernels. Any H and K.
* :func:`risk_gradient_kernel`: for one explicit (H, K), the risk and its partial derivatives in
  the Gram entries as one generated function (the d-free multi-head PGD runner uses it).
* :func:`multihead_risk`: the public entry point on direction arrays.
"""
from __future__ import annotations

from functools import lru_cache

import numpy as np

from ..model import validation as VAL
from ..model.multilocation import validate_heads
from ..model.params import Params, accepts_gamma2, check_params, keywords_checked
from ..symbolic import multihead as SM
from ..symbolic.risk import PARAMS
from .codegen import generate, generate_mp


@keywords_checked
@lru_cache(maxsize=None)
def functional_kernels() -> dict:
    """name -> float64 function of ``FUNCTIONAL_ARGS[name]`` (broadcasting)."""
    return {name: generate(SM.FUNCTIONAL_ARGS[name], expr) for name, expr in SM.functionals().items()}


@keywords_checked
@lru_cache(maxsize=None)
def functional_kernels_mp() -> dict:
    """The same functionals at mpmath precision (zeta2 by quadrature)."""
    return {name: generate_mp(SM.FUNCTIONAL_ARGS[name], expr) for name, expr in SM.functionals().items()}


@keywords_checked
def gram_of(K, V_, K_star, V_star) -> np.ndarray:
    """Gram matrix of the rows of (K, V, K_star, V_star) stacked in that order."""
    W = np.concatenate([K, V_, K_star, V_star])
    return W @ W.T


@accepts_gamma2
def risk_from_gram(Gm, H, K, *, lam, gamma, eps=0.0, d, L, kernels=None):
    """The multi-head risk from the Gram matrix of (k_1..k_H, v_1..v_H, k*_1..k*_K, v*_1..v*_K)
    (`docs/MATH.md` §15): ``symbolic.multihead.risk_from_overlaps`` with the generated
    functionals (``kernels``: the float64 ones by default, or :func:`functional_kernels_mp` with
    mpmath numbers in ``Gm`` and the parameters). H, K in [1, 64]; ``Gm`` of shape (2H + 2K, 2H + 2K); the
    parameters single numbers in the model's ranges."""
    H, K = VAL.integer("H", H, 1, 64, why="heads"), VAL.integer("K", K, 1, 64, why="locations")
    Params(lam=lam, gamma=gamma, eps=eps, d=d, L=L)
    n = 2 * H + 2 * K
    if np.shape(Gm) != (n, n):
        raise ValueError(f"Gm must be the ({n}, {n}) Gram matrix of H = {H} heads and K = {K} locations (2H + 2K vectors), "
                         f"got shape {np.shape(Gm)}")
    f = functional_kernels() if kernels is None else kernels
    names = ([f"k{h}" for h in range(H)] + [f"v{h}" for h in range(H)]
             + [f"ks{j}" for j in range(K)] + [f"vs{j}" for j in range(K)])
    index = {x: i for i, x in enumerate(names)}
    g = lambda x, y: Gm[index[x]][index[y]]
    return SM.risk_from_overlaps(H, K, g, f, lam=lam, gamma=gamma, eps=eps, L=L, shift=(d / 2) ** 0.5)


@keywords_checked
@lru_cache(maxsize=None)
def risk_gradient_exprs(H: int, K: int):
    """For explicit (H, K): ``(free, exprs, pairs)`` of :func:`slr_verify.symbolic.multihead.risk_gradient_exprs` with
    ``pairs`` as an integer array; the NumPy kernel (:func:`risk_gradient_kernel`) and the compiled runner
    (:mod:`.multihead_fused`) are both printed from it."""
    free, exprs, pairs = SM.risk_gradient_exprs(int(H), int(K))
    return free, exprs, np.array(pairs)


@keywords_checked
@lru_cache(maxsize=None)
def risk_gradient_kernel(H: int, K: int):
    """For explicit (H, K): ``fn(g, lam, gamma, eps, d, L) -> [R, dR/dg_1, ...]`` with g the
    free Gram entries in the order of ``symbolic.multihead.gram_symbols(H, K).free`` (the
    entries k*_j . v*_j are fixed at 0 and have zero partials). Generated once per (H, K)."""
    free, exprs, pairs = risk_gradient_exprs(H, K)
    return generate(free + PARAMS, exprs), pairs


@accepts_gamma2
def multihead_risk(K, V, K_star, V_star, *, lam, gamma, eps=0.0, L):
    r"""The risk :math:`\mathbb E(Y - T)^2` of the multi-head erf predictor
    :math:`T = \sum_h\sum_l \operatorname{erf}(\lambda X_l^\top k_h) X_l^\top v_h` on multiple-location
    regression (paper eqs. 30-31; `docs/MATH.md` §15), in closed form.

    K, V: heads, shape (H, d), unit rows. K_star, V_star: locations, shape (K, d), unit rows,
    each k*_j orthogonal to v*_j. L >= K tokens. For H = K = 1 this is Theorem 1
    (:func:`slr_verify.risk` at the overlaps of (k, v, k*, v*))."""
    K, V_, K_star, V_star = validate_heads(K, V, K_star, V_star)
    H, Kloc, d = K.shape[0], K_star.shape[0], K.shape[1]
    lam, gamma, eps, _, L = (float(_scalar(lambda n, x: x, n, x)) for n, x in
                             zip(("lam", "gamma", "eps", "d", "L"), check_params(lam, gamma, eps, d, L)))
    if L < Kloc:
        raise ValueError(f"L must be an integer >= K = {Kloc} (one token per location), got {L:g}")
    return float(risk_from_gram(gram_of(K, V_, K_star, V_star), H, Kloc, lam=lam, gamma=gamma, eps=eps, d=d, L=int(L)))


def _scalar(check, name, value):
    arr = check(name, value)
    if np.ndim(arr) != 0:
        raise ValueError(f"{name} must be a scalar, got shape {np.shape(arr)}")
    return arr
