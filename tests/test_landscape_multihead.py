"""The multi-head landscape (slr_verify.landscape.multihead; `docs/MATH.md` §19).

References, by test:
* second differences of the closed-form risk ``slr_verify.multihead_risk`` (risk values only, in
  R^d, along retraction curves) for the Riemannian Hessian at the aligned configuration;
* central differences of the same risk for the Riemannian gradient;
* the Monte Carlo route (``routes.multilocation``, 4.5 standard errors) for the risk of the reported
  minimiser;
* an independent search (the d-free PGD runner from seeded random starts in R^d, run to a small
  gradient) for "no higher": its end points are never below the reported minimum.
"""
import math

import numpy as np
import pytest

import slr_verify
from slr_verify.dynamics.multihead import multihead_pgd
from slr_verify.kernels import multihead as KM
from slr_verify.landscape.multihead import RiskOnSpheres, _frame, multihead_aligned, multihead_global_minimum
from slr_verify.model.multilocation import random_heads, random_locations
from slr_verify.routes.multilocation import mc_multihead_risk

P9 = dict(gamma=math.sqrt(0.5), eps=0.1, L=10)


def _orthogonal_targets(d, K):
    E = np.eye(d)
    return E[:K], E[K:2 * K]


@pytest.mark.slow  # ~5 s of CPU
def test_riemannian_gradient_against_central_differences():
    rng = np.random.default_rng(1)
    d = 30
    Ks, Vs = random_locations(2, d, rng)
    Q, T = _frame(Ks, Vs, 4)
    F = RiskOnSpheres(T, 2, 2, lam=0.6, d=d, **P9)
    W = rng.standard_normal((4, 8))
    W /= np.linalg.norm(W, axis=1, keepdims=True)
    R, rg = F.riemannian_gradient(W)
    X = W @ Q.T
    assert abs(R - slr_verify.multihead_risk(X[:2], X[2:], Ks, Vs, lam=0.6, **P9)) <= 1e-13 * abs(R)
    xi = rng.standard_normal((4, 8))
    xi -= np.einsum("ij,ij->i", xi, W)[:, None] * W

    def f(t):
        Y = W + t * xi
        Y = (Y / np.linalg.norm(Y, axis=1, keepdims=True)) @ Q.T
        return slr_verify.multihead_risk(Y[:2], Y[2:], Ks, Vs, lam=0.6, **P9)

    h = 1e-5
    assert abs((f(h) - f(-h)) / (2 * h) - np.sum(rg * xi)) <= 1e-7 * np.linalg.norm(rg) * np.linalg.norm(xi)


@pytest.mark.parametrize("lam", [2 / 3.5, pytest.param(0.05, marks=pytest.mark.slow), pytest.param(2.0, marks=pytest.mark.slow)])
def test_aligned_hessian_against_second_differences_of_the_risk(lam):
    """Orthogonal targets, where the aligned configuration is stationary (gradient 0 to rounding):
    the Hessian rebuilt from second differences of multihead_risk along the normalisation retraction
    (polarisation over a tangent basis in R^{2K+1}, risk values only) has the reported eigenvalues
    (span block and orthogonal block together), to 1e-5 relative."""
    d, K = 9, 2
    Ks, Vs = _orthogonal_targets(d, K)
    a = multihead_aligned(Ks, Vs, lam=lam, **P9)
    assert a.grad_norm <= 1e-9
    W = np.concatenate([Ks, Vs])
    D = 2 * K + 1
    basis = []
    for i in range(4):
        for c in range(D):
            if c != np.argmax(np.abs(W[i])):
                xi = np.zeros((4, d))
                xi[i, c] = 1.0
                basis.append(xi)

    def f(xi):
        Y = W + xi
        Y /= np.linalg.norm(Y, axis=1, keepdims=True)
        return slr_verify.multihead_risk(Y[:2], Y[2:], Ks, Vs, lam=lam, **P9)

    h = 1e-3
    n = len(basis)
    Hm = np.empty((n, n))
    for i in range(n):
        for j in range(i, n):
            u, v = basis[i], basis[j]
            Hm[i, j] = Hm[j, i] = (f(h * (u + v)) - f(h * (u - v)) - f(h * (v - u)) + f(-h * (u + v))) / (4 * h * h)
    eig = np.sort(np.linalg.eigvalsh(Hm))
    want = np.sort(np.concatenate([a.span_eigs, a.orth_eigs]))
    assert np.max(np.abs(eig - want)) <= 1e-5 * np.max(np.abs(want))


def test_aligned_is_not_stationary_for_the_papers_draws():
    """Figure 9's draw (independent pairs, so k*_0 . k*_1 != 0): the Riemannian gradient at the
    aligned configuration is far from 0 (checked by central differences in the gradient test)."""
    Ks, Vs = random_locations(2, 80, np.random.default_rng(0))
    a = multihead_aligned(Ks, Vs, lam=2 / 3.5, **P9)
    assert a.grad_norm > 0.1


def test_global_minimum_small_instance():
    """H = 2, K = 1, d = 10: the reported (K, V) give the reported risk through multihead_risk and
    Monte Carlo (4.5 SE); an independent search (d-free PGD from 6 seeded random starts in R^d, 3000
    steps) never ends below it (relative 1e-9)."""
    rng = np.random.default_rng(4)
    d, lam = 10, 0.6
    Ks, Vs = random_locations(1, d, rng)
    p = dict(lam=lam, gamma=0.7, eps=0.1, L=4)
    risk, Kh, Vh = multihead_global_minimum(Ks, Vs, H=2, n_random=6, seed=1, **p)
    assert Kh.shape == (2, d) and Vh.shape == (2, d)
    assert abs(risk - slr_verify.multihead_risk(Kh, Vh, Ks, Vs, **p)) <= 1e-12 * abs(risk)
    mc = mc_multihead_risk(Kh, Vh, Ks, Vs, n=100_000, seed=3, **p)
    assert abs(mc.estimate - risk) <= 4.5 * mc.standard_error
    G0 = np.stack([KM.gram_of(*random_heads(2, d, rng), Ks, Vs) for _ in range(6)])
    tr = multihead_pgd(G0, 2, 1, d=d, alpha=0.05, steps=3000, every=3000, gamma=p["gamma"], eps=p["eps"], L=p["L"], lam=lam)
    assert np.all(tr.risk[-1] >= risk * (1 - 1e-9))


@pytest.mark.slow
def test_global_minimum_at_figure9_against_converged_pgd():
    """Figure 9's setting (d = 80, lam_T = 2/3.5), one draw: 20 runs of the d-free PGD from
    uniform starts, 100k steps at alpha = 1e-2, never end below the reported minimum."""
    rng = np.random.default_rng(11)
    Ks, Vs = random_locations(2, 80, rng)
    lam = 2 / 3.5
    risk, Kh, Vh = multihead_global_minimum(Ks, Vs, H=2, lam=lam, n_random=20, seed=2, **P9)
    G0 = np.stack([KM.gram_of(*random_heads(2, 80, rng), Ks, Vs) for _ in range(20)])
    tr = multihead_pgd(G0, 2, 2, d=80, alpha=1e-2, steps=100_000, every=100_000, lam=lam, **P9)
    assert np.all(tr.risk[-1] >= risk * (1 - 1e-9))


@pytest.mark.slow
@pytest.mark.parametrize("lam", [0.1, 2 / 3.5, 3.0])
def test_one_head_aligned_is_the_oracle_of_the_five_overlap_landscape(lam):
    """H = K = 1: the aligned configuration is the oracle (k*, v*); its risk and Riemannian Hessian
    equal those of the five-overlap landscape (SymPy-derived Hessian of Theorem 1's risk, section 13),
    an independent route: the R^4 core holds the span block and two copies of the orthogonal block,
    the d - 4 block is the orthogonal block; to 1e-8 relative."""
    from slr_verify.landscape.hessian import riemannian_spectrum

    d = 20
    Ks, Vs = _orthogonal_targets(d, 1)
    a = multihead_aligned(Ks, Vs, lam=lam, **P9)
    ref = riemannian_spectrum((1.0, 1.0, 0.0, 0.0, 0.0), lam=lam, d=d, **P9)
    scale = max(abs(float(x)) for x in ref.core)
    assert abs(a.risk - float(ref.risk)) <= 1e-12 * abs(a.risk)
    assert a.grad_norm <= 1e-9 and float(ref.tangent_norm) <= 1e-9
    mine = np.sort(np.concatenate([a.span_eigs, a.orth_eigs, a.orth_eigs]))
    assert np.max(np.abs(mine - np.array([float(x) for x in ref.core]))) <= 1e-8 * scale
    assert np.max(np.abs(np.sort(a.orth_eigs) - np.array([float(x) for x in ref.block]))) <= 1e-8 * scale


@pytest.mark.slow  # ~2 s; the figure-9 claim (default tests) uses it at every run
def test_pgd_map_spectrum_is_the_rescaled_hessian_at_a_minimum():
    """At a stationary point with radial components c_i = w_i . grad_i R, a tangent perturbation of row
    i maps to ((1 - alpha c_i) delta_i - alpha (Hess delta)_i) / (1 - alpha c_i) (linearising the
    normalisation): J = I - alpha D^{-1} Hess, D = diag(1 - alpha c_i). Reference: that formula with the
    Riemannian Hessian of ``_hessian`` (fourth-order differences of the gradient, not of the map); the
    finite-difference Jacobian of the map agrees to 1e-6. Also: the minimum turns unstable (an
    eigenvalue < -1) exactly when alpha passes 2 / (the largest of D^{-1} Hess's eigenvalues)."""
    from slr_verify.landscape.multihead import multihead_minima, pgd_map_spectrum

    Ks, Vs = random_locations(2, 80, np.random.default_rng(0))
    found, _, _ = multihead_minima(Ks, Vs, H=2, lam=2 / 3.5, n_random=2, seed=0, **P9)
    W = found[0].W
    _, T = _frame(Ks, Vs, W.shape[1] - 4)
    F = RiskOnSpheres(T, 2, 2, lam=2 / 3.5, d=80, **P9)
    from slr_verify.landscape.multihead import _hessian

    Hm, B = _hessian(F, W)
    _, g = F.euclidean_gradient(W)
    c = np.einsum("ij,ij->i", g, W)
    n = W.shape[1] - 1
    for alpha in (1e-4, 1e-3):
        Dinv = np.repeat(1.0 / (1.0 - alpha * c), n)
        want = np.sort(np.linalg.eigvals(np.eye(len(Dinv)) - alpha * Dinv[:, None] * Hm).real)
        got = np.sort(pgd_map_spectrum(Ks, Vs, W, lam=2 / 3.5, alpha=alpha, **P9).real)
        assert np.max(np.abs(got - want)) <= 1e-6
    lam_max = np.max(np.linalg.eigvals(np.repeat(1.0 / (1.0 - 1e-3 * c), n)[:, None] * Hm).real)
    for alpha, unstable in ((0.99 * 2 / lam_max, False), (1.01 * 2 / lam_max, True)):
        assert (pgd_map_spectrum(Ks, Vs, W, lam=2 / 3.5, alpha=alpha, **P9).real.min() < -1) == unstable


def test_the_aligned_configuration_and_the_targets_from_a_gram_matrix():
    """aligned_gram is the Gram matrix of (K*, V*, K*, V*), aligned_risks its closed-form risk (against the risk of
    those heads in R^d), and realise_targets realises the targets' Gram matrix (a random instance of random_instance)."""
    from slr_verify.landscape.multihead_runs import aligned_gram, aligned_risks, realise_targets
    from slr_verify.model.multilocation import random_instance

    Kh, Vh, Ks, Vs, p = random_instance(np.random.default_rng(3))
    H, K, d = len(Kh), len(Ks), Ks.shape[1]
    X = np.concatenate([Kh, Vh, Ks, Vs])
    G = X @ X.T
    Y = np.concatenate([Ks, Vs, Ks, Vs])
    assert np.array_equal(aligned_gram(G, H, K), G[2 * H:, 2 * H:][np.ix_([*range(2 * K)] * 2, [*range(2 * K)] * 2)])
    assert np.allclose(aligned_gram(G, H, K), Y @ Y.T, atol=1e-14)
    (r,) = aligned_risks(G[None], H, K, d=d, **p)
    assert math.isclose(r, KM.multihead_risk(Ks, Vs, Ks, Vs, **p), rel_tol=1e-12)
    Kt, Vt = realise_targets(G[2 * H:, 2 * H:], K, d)
    Z = np.concatenate([Kt, Vt])
    assert Z.shape == (2 * K, d) and np.allclose(Z @ Z.T, G[2 * H:, 2 * H:], atol=1e-13)
