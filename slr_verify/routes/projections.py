"""The d-free sampler (`docs/MATH.md` §§1, 3): every predictor of the model reads a token only through its
projections on span(k, v, k*, v*), jointly Gaussian with covariance G (a null token) or gamma^2 G (the relevant one,
mean sqrt(d/2) (kappa, theta, 1, 0)), G the Gram matrix of (k, v, k*, v*); sampling them costs O(1) per token
whatever d. Used by :func:`.montecarlo.mc_risk_overlaps` and the Bayes routes (:mod:`.bayes`)."""
from __future__ import annotations

import math

import numpy as np

from slr_verify.model import budgets as B
from slr_verify.model import validation as V
from slr_verify.model.params import scalars
from slr_verify.model.sampling import BLOCK
from slr_verify.model.sampling import STREAM_PROJ as _STREAM_PROJ
from slr_verify.model.sampling import draw_locations as _draw_locations
from slr_verify.model.sampling import generators as _generators
from slr_verify.model.sampling import law as _law

from ..model.params import accepts_gamma2, keywords_checked
from .mc_engine import run_blocks


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
    d = float(scalars(d=d)[0])
    vals = V.overlaps(kappa, nu, theta, eta, rho, d=d)
    if any(x.ndim != 0 for x in vals):
        raise ValueError("kappa, nu, theta, eta, rho must be scalars")
    kappa, nu, theta, eta, rho = (float(x) for x in vals)
    G = V.gram_matrix(kappa, nu, theta, eta, rho)
    mean = math.sqrt(d / 2.0) * np.array([kappa, theta, 1.0, 0.0])
    return d, G, mean


@keywords_checked
def run_projections(n, seed, sampler, memory, values):
    """:func:`~.mc_engine.run_blocks` on the projection sampler's stream and pieces; ``ValueError`` naming ``memory``
    when one piece does not fit in it."""
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
    ``P[arange(n), J0, 3]``. Cost O(n L), independent of d. Held in memory at once: an n (or L) whose projections
    would not fit is refused naming it.
    """
    gamma, L = scalars(gamma=gamma, L=L)
    _, cdf = _law(p, L)
    n = V.integer("n", n, 1, floats=True)
    B.memory_budget("n", 40.0 * n * L, f"the projections of {n:,} samples of {L:,} tokens held at once")
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
