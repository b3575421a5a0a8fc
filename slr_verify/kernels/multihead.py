r"""Float64 kernels of the multi-head risk (reference section 15), generated from
:mod:`slr_verify.symbolic.multihead`.

* :func:`functional_kernels`: the four token functionals (head_mean, head_target, head_square,
  head_pair), vectorised; :func:`risk_from_gram` evaluates them on every (token type, head) and
  (token type, head, head) combination and combines them with the *same* ``assemble`` as the
  symbolic derivation. Any H and K.
* :func:`risk_gradient_kernel`: for one explicit (H, K), the risk and its partial derivatives in
  the Gram entries as one generated function (the d-free multi-head PGD runner uses it).
* :func:`multihead_risk`: the public entry point on direction arrays.
"""
from __future__ import annotations

import math
from functools import lru_cache

import numpy as np
import sympy as sp

from ..model import validation as VAL
from ..model.multilocation import validate_heads
from ..symbolic import multihead as SM
from ..symbolic.risk import PARAMS, S
from .codegen import generate, generate_mp

__all__ = ["functional_kernels", "functional_kernels_mp", "gram_of", "risk_from_gram", "risk_gradient_kernel",
           "multihead_risk", "validate_heads"]


@lru_cache(maxsize=None)
def functional_kernels() -> dict:
    """name -> float64 function of ``FUNCTIONAL_ARGS[name]`` (broadcasting)."""
    return {name: generate(SM.FUNCTIONAL_ARGS[name], expr) for name, expr in SM.functionals().items()}


@lru_cache(maxsize=None)
def functional_kernels_mp() -> dict:
    """The same functionals at mpmath precision (zeta2 by quadrature)."""
    return {name: generate_mp(SM.FUNCTIONAL_ARGS[name], expr) for name, expr in SM.functionals().items()}


def gram_of(K, V_, K_star, V_star) -> np.ndarray:
    """Gram matrix of the rows of (K, V, K_star, V_star) stacked in that order."""
    W = np.concatenate([K, V_, K_star, V_star])
    return W @ W.T


def risk_from_gram(Gm, H, K, *, lam, gamma, eps, d, L, kernels=None) -> float:
    """The multi-head risk from the Gram matrix of (k_1..k_H, v_1..v_H, k*_1..k*_K, v*_1..v*_K)
    (reference section 15), through the token functionals and ``symbolic.multihead.assemble``.
    ``kernels`` defaults to the float64 ones (:func:`functional_kernels_mp` for mpmath, with
    ``Gm`` an mpmath matrix or nested lists)."""
    f = functional_kernels() if kernels is None else kernels
    mp = kernels is not None and kernels is not functional_kernels()
    g = (lambda i, j: Gm[i, j]) if not isinstance(Gm, list) else (lambda i, j: Gm[i][j])
    kk, vv, ks, vs = (lambda h: h), (lambda h: H + h), (lambda j: 2 * H + j), (lambda j: 2 * H + K + j)
    shift = (d / 2) ** 0.5 if not mp else __import__("mpmath").sqrt(__import__("mpmath").mpf(d) / 2)
    tokens = list(range(K)) + [None]  # K relevant token types, then the null one

    def mean(t, idx):
        return 0 * shift if t is None else shift * g(ks(t), idx)

    m, q, c = [], [], []
    for t in tokens:
        s2 = 1 + 0 * shift if t is None else gamma**2
        mt, qt = 0, 0
        for h in range(H):
            ma, mb, r = mean(t, kk(h)), mean(t, vv(h)), g(kk(h), vv(h))
            mt += f["head_mean"](lam, ma, mb, s2, r)
            qt += f["head_square"](lam, ma, mb, s2, r)
            for h2 in range(H):
                if h2 != h:
                    qt += f["head_pair"](lam, ma, mb, mean(t, kk(h2)), mean(t, vv(h2)), s2, r, g(kk(h), kk(h2)),
                                         g(kk(h), vv(h2)), g(vv(h), kk(h2)), g(vv(h), vv(h2)), g(kk(h2), vv(h2)))
        m.append(mt)
        q.append(qt)
        if t is not None:
            ct = 0
            for h in range(H):
                ct += f["head_target"](lam, mean(t, kk(h)), mean(t, vv(h)), mean(t, vs(t)), s2, g(kk(h), vv(h)),
                                       g(kk(h), vs(t)), g(vv(h), vs(t)))
            c.append(ct)
    e_mean = [mean(j, vs(j)) for j in range(K)]
    e_sq = [gamma**2 + x**2 for x in e_mean]
    return SM.assemble(eps=eps, L=L, e_mean=e_mean, e_sq=e_sq, m_rel=m[:K], q_rel=q[:K], c_rel=c, m_null=m[K], q_null=q[K])


@lru_cache(maxsize=None)
def risk_gradient_kernel(H: int, K: int):
    """For explicit (H, K): ``fn(g, lam, gamma, eps, d, L) -> [R, dR/dg_1, ...]`` with g the
    free Gram entries in the order of ``symbolic.multihead.gram_symbols(H, K).free`` (the
    entries k*_j . v*_j are fixed at 0 and have zero partials). Generated once per (H, K)."""
    expr, G = SM.multihead_risk_expr(H, K)
    free = G.free
    grads = [sp.diff(expr, x) for x in free]
    fn = generate(free + PARAMS, [expr, *grads])
    names = G.names
    index = {}
    for i, x in enumerate(names):
        for j, y in enumerate(names):
            if j > i:
                index[G.g[(x, y)]] = (i, j)
    pairs = np.array([index[x] for x in free])
    return fn, pairs


def multihead_risk(K, V, K_star, V_star, *, lam, gamma, eps, L):
    r"""The risk :math:`\mathbb E(Y - T)^2` of the multi-head erf predictor
    :math:`T = \sum_h\sum_l \operatorname{erf}(\lambda X_l^\top k_h) X_l^\top v_h` on multiple-location
    regression (paper eqs. 30-31; reference section 15), in closed form.

    K, V: heads, shape (H, d), unit rows. K_star, V_star: locations, shape (K, d), unit rows,
    each k*_j orthogonal to v*_j. L >= K tokens. For H = K = 1 this is Theorem 1
    (:func:`slr_verify.risk` at the overlaps of (k, v, k*, v*))."""
    K, V_, K_star, V_star = validate_heads(K, V, K_star, V_star)
    lam = float(_scalar(VAL.positive, "lam", lam))
    gamma = float(_scalar(VAL.positive, "gamma", gamma))
    eps = float(_scalar(VAL.nonnegative, "eps", eps))
    L_arr = _scalar(lambda n, x: VAL.integer_at_least(n, x, K_star.shape[0]), "L", L)
    H, Kloc, d = K.shape[0], K_star.shape[0], K.shape[1]
    return float(risk_from_gram(gram_of(K, V_, K_star, V_star), H, Kloc, lam=lam, gamma=gamma, eps=eps, d=d,
                                L=int(L_arr)))


def _scalar(check, name, value):
    arr = check(name, value)
    if np.ndim(arr) != 0:
        raise ValueError(f"{name} must be a scalar, got shape {np.shape(arr)}")
    return arr
