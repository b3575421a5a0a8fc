"""Where the two-head runs of Figure 9 end on the multi-head landscape (`docs/MATH.md` §§15, 19; paper Appendix E,
Figure 9): the runs' Gram matrices (the d-free runners of :mod:`slr_verify.dynamics.multihead`) read against the
aligned configuration, the local minima the runs converge to and the stability of those minima for PGD. Numeric,
sampled: the statements are about the given runs, not the whole landscape."""
from __future__ import annotations

import numpy as np

from ..kernels import multihead as KM
from ..model import validation as V
from ..model.params import accepts_gamma2, keywords_checked
from .multihead import multihead_aligned, multihead_minima, pgd_map_spectrum


@keywords_checked
def aligned_gram(G, H, K):
    """The Gram matrix of the aligned configuration (head j = (k*_j, v*_j)) of the instance whose Gram matrix of
    (k_1..k_H, v_1..v_H, k*_1..k*_K, v*_1..v*_K) is ``G`` (2H + 2K square): the targets' block, four times."""
    ks, vs = [2 * H + j for j in range(K)], [2 * H + K + j for j in range(K)]
    idx = ks + vs + ks + vs
    return np.asarray(G)[np.ix_(idx, idx)]


@accepts_gamma2
def aligned_risks(grams, H, K, *, lam, gamma, eps=0.0, d, L):
    """The exact multi-head risk (:func:`slr_verify.kernels.multihead.risk_from_gram`, closed form, paper eqs. 30-31)
    of the aligned configuration (K heads, head j = (k*_j, v*_j)) of each instance in ``grams`` (runs, 2H + 2K,
    2H + 2K), an array (runs,)."""
    return np.array([KM.risk_from_gram(aligned_gram(G, H, K), K, K, lam=lam, gamma=gamma, eps=eps, d=d, L=L)
                     for G in grams])


@keywords_checked
def realise_targets(Gt, K, d):
    """Unit vectors (K_star, V_star), each (K, d), with Gram matrix ``Gt`` (2K, 2K; positive definite), by its
    Cholesky factor in the first 2K coordinates (the risk depends on the targets through their Gram matrix only)."""
    C = np.linalg.cholesky(Gt)
    X = np.zeros((2 * K, d))
    X[:, :2 * K] = C
    return X[:K], X[K:]


def _match_targets(G, G0, H):
    """``G`` with its target block copied from ``G0`` (identical up to rounding: the runner never moves the targets)."""
    G = np.array(G)
    G[2 * H:, 2 * H:] = G0[2 * H:, 2 * H:]
    return G


@accepts_gamma2
def run_ends(gram0, gram_end, H, K, *, lam, gamma, eps=0.0, d, L, alpha, seed=0, n_random=2):
    """Each run's instance (targets from its start's Gram matrix ``gram0[r]``) at ``lam``, read on the landscape
    (`docs/MATH.md` §19): the aligned configuration (:func:`~.multihead.multihead_aligned`), and the local minimum its
    end point ``gram_end[r]`` converges to under BFGS and Riemannian Newton (:func:`~.multihead.multihead_minima`
    from that end point, beside ``n_random`` seeded random starts and the standard ones, seed ``seed + r``), with the
    smallest real part of the PGD map's Jacobian there at step ``alpha`` (:func:`~.multihead.pgd_map_spectrum`, ~1e-8
    absolute; below -1: an unstable fixed point of PGD). Returns a dict of arrays (runs,): ``grad_aligned``,
    ``risk_aligned`` (the aligned configuration's Riemannian gradient norm and risk), ``refined``, ``refined_grad``,
    ``refined_eig`` (the refined end point's risk, gradient norm and smallest Hessian eigenvalue over the largest),
    ``best`` (the lowest risk over all the starts) and ``jac_min``."""
    V.integer("n_random", n_random, 0, 10_000, why="one BFGS run each")
    p = dict(gamma=gamma, eps=eps, L=L)
    rows = []
    for r in range(len(gram0)):
        Ks, Vs = realise_targets(gram0[r, 2 * H:, 2 * H:], K, d)
        a = multihead_aligned(Ks, Vs, lam=lam, **p)
        found, _, ends = multihead_minima(Ks, Vs, H=H, lam=lam, n_random=n_random, seed=seed + r,
                                          start_grams=[_match_targets(gram_end[r], gram0[r], H)], **p)
        W = next((m.W for m in found if abs(m.risk - ends[-1, 0]) <= 1e-10 * max(1.0, abs(ends[-1, 0]))), None)
        if W is None:  # the refined end point is one of the minima found, by construction of multihead_minima
            raise RuntimeError(f"run {r}: the refined end point (risk {ends[-1, 0]!r}) is not among the minima found")
        jac = float(pgd_map_spectrum(Ks, Vs, W, lam=lam, alpha=alpha, **p).real.min())
        rows.append((a.grad_norm, a.risk, ends[-1, 0], ends[-1, 1], ends[-1, 2], float(ends[:, 0].min()), jac))
    names = ("grad_aligned", "risk_aligned", "refined", "refined_grad", "refined_eig", "best", "jac_min")
    return {n: np.array(col) for n, col in zip(names, zip(*rows))}
