r"""The multi-head landscape (`docs/MATH.md` §19; paper Appendix E, Figure 9): the aligned
configuration "head j = (k*_j, v*_j)", its Riemannian gradient and Hessian, and a sampled search
for the global minimum of the multi-head risk over every head on the sphere.

**d-free realisation.** The risk depends on the Gram matrix of (k_1..k_H, v_1..v_H, k*_1..k*_K,
v*_1..v*_K) and on d only as a parameter (sqrt(d/2) in the token means), and it is invariant under
the rotations fixing every k*_j and v*_j. So every configuration is realised in R^D with
D = 2K + 2H: the targets in an orthonormal basis of their span (the first 2K coordinates) and the
2H head vectors in the span plus 2H further directions. A configuration found there is put back in
R^d by mapping those directions to an orthonormal complement of the targets' span (needs
d >= 2K + 2H).

**Gradient.** With P the partial derivatives of R in the off-diagonal Gram entries (the generated
kernels of :mod:`slr_verify.kernels.multihead_fused`, or the NumPy one), the extension
R(offdiag(W W^T)) has Euclidean gradient g_i = sum_j P_ij w_j in each head row; the Riemannian
gradient is its projection (I - w_i w_i^T) g_i.

**Hessian at the aligned configuration** (H = K). All heads lie in the targets' span, so the
reflection of each direction orthogonal to the span is a symmetry fixing the point: the Riemannian
Hessian splits into the block of the tangent directions inside the span (2K(2K - 1) of them) and
d - 2K identical 2H x 2H blocks, one per orthogonal direction (the coefficients of the 2H head
vectors along it). It is computed in R^{2K+1} as
:math:`\mathrm{Hess} = B^\top(\nabla^2 \tilde R - \mathrm{diag}_i((w_i\cdot g_i) I))B` (B the
tangent bases), the Euclidean Hessian of the extension by a fourth-order central difference of the
exact gradient (numeric: about 1e-10 relative). The index counts the orthogonal block's negative
eigenvalues d - 2K times. For non-orthogonal targets (the paper's independent draws) the aligned
configuration is in general *not* stationary: the gradient is reported with it.

**Global minimum (sampled).** :func:`multihead_global_minimum` runs BFGS on the product of
spheres in R^D (then Riemannian Newton steps to a gradient near rounding) from seeded random
starts, from every assignment of heads to locations (the aligned configuration and its
permutations; sign flips are symmetries), and from "cancelling" starts (two heads with opposite values on a shared key); the
smallest end point is returned. Nothing global is proved: the result is the best of the sampled
starts, and says so.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from itertools import permutations

import numpy as np
from scipy import optimize

from ..kernels import fused as FK
from ..kernels import multihead as KM
from ..model import validation as VAL
from ..model.multilocation import validate_locations
from ..model.params import accepts_gamma2, keywords_checked, scalars


class RiskOnSpheres:
    """The multi-head risk of heads ``W`` (2H, D) (rows k_1..k_H, v_1..v_H, unit) against fixed
    targets ``T`` (2K, D) (rows k*_1..k*_K, v*_1..v*_K), with d a parameter: risk, Euclidean
    gradient of the extension (module docstring), Riemannian gradient."""

    def __init__(self, T, H, K, *, lam, gamma, eps, d, L, backend="auto"):
        self.T, self.H, self.K = np.asarray(T, float), int(H), int(K)
        self.p = (float(lam), float(gamma), float(eps), float(d), float(L))
        if backend == "auto":
            backend = "fused" if FK.available() else "numpy"
        if backend == "fused":
            from ..kernels.multihead_fused import fused_multihead_kernel

            mod = fused_multihead_kernel(self.H, self.K)
            buf = np.empty(1 + len(mod.PAIRS))
            self.pairs = np.asarray(mod.PAIRS)

            def partials(G):
                mod.risk_grad(G, *self.p, buf)
                return buf

        else:
            fn, self.pairs = KM.risk_gradient_kernel(self.H, self.K)

            def partials(G):
                return np.array([float(x) for x in fn(*G[self.pairs[:, 0], self.pairs[:, 1]], *self.p)])

        self._partials = partials

    def gram(self, W):
        A = np.concatenate([W, self.T])
        return A @ A.T

    def value_and_partials(self, W):
        """(R, P) with P the symmetric matrix of partials in the Gram entries (zero diagonal)."""
        out = self._partials(np.ascontiguousarray(self.gram(W)))
        n = 2 * self.H + 2 * self.K
        P = np.zeros((n, n))
        P[self.pairs[:, 0], self.pairs[:, 1]] = out[1:]
        P[self.pairs[:, 1], self.pairs[:, 0]] = out[1:]
        return float(out[0]), P

    def euclidean_gradient(self, W):
        R, P = self.value_and_partials(W)
        A = np.concatenate([W, self.T])
        return R, P[:2 * self.H] @ A

    def riemannian_gradient(self, W):
        R, g = self.euclidean_gradient(W)
        return R, g - np.einsum("ij,ij->i", g, W)[:, None] * W

    def objective(self, x):
        """For BFGS on unnormalised rows: R(rows / |rows|) and its gradient."""
        Y = x.reshape(2 * self.H, -1)
        n = np.linalg.norm(Y, axis=1, keepdims=True)
        R, rg = self.riemannian_gradient(Y / n)
        return R, (rg / n).ravel()


def _frame(K_star, V_star, extra):
    """An orthonormal basis Q (d, 2K + extra) whose first 2K columns span the targets, and the
    targets' coordinates T (2K, 2K + extra) in it."""
    Tfull = np.concatenate([K_star, V_star])
    d, m = Tfull.shape[1], Tfull.shape[0]
    if d < m + extra:
        raise ValueError(f"d must be >= {m + extra} (2K + {extra}) for this realisation, got d={d}")
    Q, Rr = np.linalg.qr(np.concatenate([Tfull.T, np.eye(d)], axis=1))
    if np.min(np.abs(np.diag(Rr)[:m])) < 1e-10:
        raise ValueError("K_star, V_star must be linearly independent")
    Q = Q[:, :m + extra]
    return Q, Tfull @ Q


def _validate(K_star, V_star, lam, gamma, eps, L):
    K_star, V_star = validate_locations(K_star, V_star)
    lam, gamma, eps = scalars(lam=lam, gamma=gamma, eps=eps)  # single numbers: an array is refused naming it
    L = VAL.integer("L", L, K_star.shape[0], floats=True)  # the multi-location model: a token per location at least
    return K_star, V_star, dict(lam=lam, gamma=gamma, eps=eps, d=K_star.shape[1], L=L)


@dataclass
class AlignedPoint:
    """The aligned configuration k_h = k*_h, v_h = v*_h (H = K) at one lam.

    ``risk``; ``grad_norm`` (Riemannian gradient, 0 iff stationary); ``span_eigs`` (the Hessian
    on the 2K(2K-1) tangent directions inside the targets' span) and ``orth_eigs`` (the 2H x 2H
    block repeated for each of the d - 2K orthogonal directions); ``index`` (negative eigenvalues,
    with multiplicity), ``flat`` (|eigenvalue| <= ``tol`` times the largest, with multiplicity). `docs/MATH.md` §19."""

    risk: float
    grad_norm: float
    span_eigs: np.ndarray
    orth_eigs: np.ndarray
    index: int
    flat: int
    settings: dict = field(default_factory=dict)


def _hessian(F, W, h=1e-4):
    """Riemannian Hessian of F on the product of spheres at W (2H, D), in orthonormal tangent
    bases, and those bases (module docstring: fourth-order central differences of the exact
    Euclidean gradient)."""
    nh, D = W.shape
    x0 = W.ravel()
    n = x0.size

    def grad(x):
        return F.euclidean_gradient(x.reshape(nh, D))[1].ravel()

    HE = np.empty((n, n))
    for a in range(n):
        e = np.zeros(n)
        e[a] = h
        HE[:, a] = (8 * (grad(x0 + e) - grad(x0 - e)) - (grad(x0 + 2 * e) - grad(x0 - 2 * e))) / (12 * h)
    HE = 0.5 * (HE + HE.T)
    _, g = F.euclidean_gradient(W)
    radial = np.einsum("ij,ij->i", g, W)
    HE -= np.diag(np.repeat(radial, D))
    bases = []
    for i in range(nh):
        Qi, _ = np.linalg.qr(np.concatenate([W[i][:, None], np.eye(D)], axis=1))
        bases.append(Qi[:, 1:D])
    B = np.zeros((n, nh * (D - 1)))
    for i, Bi in enumerate(bases):
        B[i * D:(i + 1) * D, i * (D - 1):(i + 1) * (D - 1)] = Bi
    return B.T @ HE @ B, B


def _newton(F, W, iters=8):
    """Riemannian Newton steps from a BFGS end point (which can stall at gradients ~1e-6 on the flat
    directions of the rotation symmetry): the step solves Hess x = -grad in the least-squares sense
    (the symmetry's zero eigenvalues drop out), retracted by normalisation; kept while the gradient
    norm decreases."""
    best = float(np.linalg.norm(F.riemannian_gradient(W)[1]))
    for _ in range(iters):
        if best <= 1e-13:
            break
        Hm, B = _hessian(F, W)
        _, rg = F.riemannian_gradient(W)
        step, *_ = np.linalg.lstsq(Hm, -(B.T @ rg.ravel()), rcond=1e-10)
        Y = W + (B @ step).reshape(W.shape)
        Y /= np.linalg.norm(Y, axis=1, keepdims=True)
        g = float(np.linalg.norm(F.riemannian_gradient(Y)[1]))
        if not g < best:
            break
        W, best = Y, g
    return W


@accepts_gamma2
def multihead_aligned(K_star, V_star, *, lam, gamma, eps=0.0, L, tol=1e-7):
    """The aligned configuration (head j = (k*_j, v*_j), H = K) at ``lam``: its risk, Riemannian
    gradient norm and Hessian (index and flat directions with their multiplicities in R^d);
    returns an :class:`AlignedPoint` (module docstring). Numeric: the Hessian to about 1e-10
    relative (finite differences of the exact gradient). `docs/MATH.md` §19."""
    K_star, V_star, p = _validate(K_star, V_star, lam, gamma, eps, L)
    K = K_star.shape[0]
    H = K
    Q, T = _frame(K_star, V_star, 1)
    D = 2 * K + 1
    F = RiskOnSpheres(T, H, K, **p)
    W = T.copy()  # k_h = k*_h, v_h = v*_h: the targets' rows, in the same order
    R, rg = F.riemannian_gradient(W)
    Hess, B = _hessian(F, W)
    # split the tangent space: inside the span (last coordinate 0) and along the extra direction e
    along = np.abs(B[np.arange(2 * H) * D + (D - 1)]).sum(axis=0) > 0.5  # basis vectors moving a row along e
    inside = ~along
    span_eigs = np.linalg.eigvalsh(Hess[np.ix_(inside, inside)])
    orth_eigs = np.linalg.eigvalsh(Hess[np.ix_(along, along)])
    mult = p["d"] - 2 * K
    scale = max(np.max(np.abs(span_eigs)), np.max(np.abs(orth_eigs)))
    index = int(np.sum(span_eigs < -tol * scale) + mult * np.sum(orth_eigs < -tol * scale))
    flat = int(np.sum(np.abs(span_eigs) <= tol * scale) + mult * np.sum(np.abs(orth_eigs) <= tol * scale))
    return AlignedPoint(R, float(np.linalg.norm(rg)), span_eigs, orth_eigs, index, flat, dict(p, H=H, K=K))


def _starts(T, H, K, D, n_random, rng):
    """Starting heads (2H, D): the aligned ones (every assignment of heads to locations, when
    H >= 1), cancelling pairs, and seeded uniform ones."""
    out = []
    ks, vs = T[:K], T[K:]
    for assign in permutations(range(max(H, K)), H):
        W = np.empty((2 * H, D))
        for h, j in enumerate(assign):
            W[h], W[H + h] = ks[j % K], vs[j % K]
        out.append(W)
    for _ in range(n_random):
        W = rng.standard_normal((2 * H, D))
        out.append(W / np.linalg.norm(W, axis=1, keepdims=True))
    if H >= 2:
        for _ in range(max(1, n_random // 4)):  # heads 0 and 1 share a key with opposite values
            W = rng.standard_normal((2 * H, D))
            W[1] = W[0]
            W[H + 1] = -W[H]
            out.append(W / np.linalg.norm(W, axis=1, keepdims=True))
    return out


@dataclass
class Minimum:
    """One end point of the search: ``risk``, heads ``W`` (2H, D) in the frame, ``grad_norm``,
    ``count`` (starts that ended there)."""

    risk: float
    W: np.ndarray
    grad_norm: float
    count: int = 1


@keywords_checked
def heads_from_gram(G, T, H, K):
    """Heads (2H, 2K + 2H) in the frame of targets ``T`` (2K, 2K + 2H) (:func:`_frame`) realising
    the Gram matrix ``G`` of (k_1..k_H, v_1..v_H, k*.., v*..) (e.g. a d-free PGD end point): the
    span part solves W_s T_s^T = G[heads, targets], the rest factors the remaining Gram matrix."""
    G = np.asarray(G, float)
    Ts = T[:, :2 * K]
    Ws = np.linalg.solve(Ts, G[:2 * H, 2 * H:].T).T
    w, U = np.linalg.eigh(G[:2 * H, :2 * H] - Ws @ Ws.T)
    W = np.concatenate([Ws, U * np.sqrt(np.clip(w, 0.0, None))], axis=1)
    return W / np.linalg.norm(W, axis=1, keepdims=True)


@accepts_gamma2
def multihead_minima(K_star, V_star, *, H, lam, gamma, eps=0.0, L, n_random=40, seed=0, starts=None, start_grams=None,
                     gtol=1e-10):
    """Sampled local minima of the multi-head risk over all heads on the sphere (module
    docstring): BFGS from the standard starts, from ``starts`` (extra heads (2H, d) in R^d) and
    from ``start_grams`` (Gram matrices of the d-free runner, e.g. PGD end points); end points
    merged when their risks agree to 1e-10 relative. An end point is stationary (gradient ~1e-13)
    but, from a symmetric start (aligned, cancelling), can be a saddle: the Hessian column of
    ``ends`` says which. Returns ``(minima sorted by risk, Q, ends)``
    with Q the frame (d, 2K + 2H) mapping frame coordinates to R^d and ``ends`` (starts, 3): the
    risk reached from each start, its Riemannian gradient norm and the smallest eigenvalue of its
    Riemannian Hessian over the largest in absolute value (>= 0 up to rounding at a local minimum;
    the rotation symmetry gives exact zeros), in the order: standard starts, ``starts``, ``start_grams``.
    H >= 1 heads with 2K + 2H <= d; n_random in [0, 100000] random starts besides the standard ones.
    `docs/MATH.md` §19."""
    K_star, V_star, p = _validate(K_star, V_star, lam, gamma, eps, L)
    K = K_star.shape[0]
    H = VAL.integer("H", H, 1, max(1, (K_star.shape[1] - 2 * K) // 2),
                    why=f"the heads and the K = {K} targets span 2K + 2H <= d = {K_star.shape[1]} directions")
    n_random = VAL.integer("n_random", n_random, 0, 100_000, why="BFGS starts", floats=True)
    D = 2 * K + 2 * H
    Q, T = _frame(K_star, V_star, 2 * H)
    F = RiskOnSpheres(T, H, K, **p)
    rng = np.random.default_rng(seed)
    init = _starts(T, H, K, D, n_random, rng)
    for W in starts or ():
        W = np.asarray(W, float) @ Q  # project into the frame (exact when W lies in Q's span)
        init.append(W / np.linalg.norm(W, axis=1, keepdims=True))
    for G in start_grams if start_grams is not None else ():
        init.append(heads_from_gram(G, T, H, K))
    found, ends = [], []
    for W0 in init:
        W = W0
        for _ in range(4):  # BFGS can stop on a failed line search: restart it from where it stopped
            # (BFGS, not L-BFGS-B: with 4H(K + H) variables its dense update is cheap, and cheaper per
            # iteration here than SciPy's L-BFGS-B)
            res = optimize.minimize(F.objective, W.ravel(), jac=True, method="BFGS", options=dict(maxiter=20_000, gtol=gtol))
            Y = res.x.reshape(2 * H, D)
            W = _newton(F, Y / np.linalg.norm(Y, axis=1, keepdims=True))
            R, rg = F.riemannian_gradient(W)
            if np.linalg.norm(rg) <= 1e-9:
                break
        eig = np.linalg.eigvalsh(_hessian(F, W)[0])
        ends.append((R, float(np.linalg.norm(rg)), eig[0] / np.max(np.abs(eig))))
        for m in found:
            if abs(m.risk - R) <= 1e-10 * max(1.0, abs(R)):
                m.count += 1
                if R < m.risk:
                    m.risk, m.W, m.grad_norm = R, W, float(np.linalg.norm(rg))
                break
        else:
            found.append(Minimum(R, W, float(np.linalg.norm(rg))))
    found.sort(key=lambda m: m.risk)
    return found, Q, np.array(ends)


@accepts_gamma2
def multihead_global_minimum(K_star, V_star, *, H, lam, gamma, eps=0.0, L, n_random=40, seed=0, starts=None):
    """The smallest multi-head risk found by the sampled search of :func:`multihead_minima`
    (sampled, not proved global): returns ``(risk, K, V)`` with heads K, V of shape (H, d); the
    risk is that of (K, V) through :func:`slr_verify.multihead_risk`. `docs/MATH.md` §19."""
    found, Q, _ = multihead_minima(K_star, V_star, H=H, lam=lam, gamma=gamma, eps=eps, L=L, n_random=n_random, seed=seed,
                                starts=starts)
    W = found[0].W @ Q.T
    W /= np.linalg.norm(W, axis=1, keepdims=True)
    H = W.shape[0] // 2
    Kh, Vh = W[:H], W[H:]
    risk = KM.multihead_risk(Kh, Vh, np.asarray(K_star, float), np.asarray(V_star, float), lam=lam, gamma=gamma, eps=eps,
                             L=L)
    return risk, Kh, Vh


@accepts_gamma2
def pgd_map_spectrum(K_star, V_star, W, *, lam, gamma, eps=0.0, L, alpha, h=1e-6):
    r"""Eigenvalues of the Jacobian of the PGD map :math:`\Phi(W) = \mathrm{normalise}(W - \alpha\nabla R)`
    (row-wise, the d-free runner's step) at the heads ``W`` (2H, D) in the frame of :func:`multihead_minima`
    (its ``Minimum.W``), on the tangent space of the product of spheres (central differences of the exact
    map, step ``h``: numeric, ~1e-8 absolute).

    At a stationary point with radial components :math:`c_i = w_i\cdot\nabla_{w_i}R` the eigenvalues are
    those of :math:`I - \alpha\,\mathrm{Hess}\,R` rescaled row by row by :math:`1/(1 - \alpha c_i)`: the
    rotations fixing the targets give eigenvalue 1, and an eigenvalue below -1 makes a minimum an unstable
    fixed point of PGD at this step size (period doubling: the iterates oscillate around it and the risk
    is not monotone), however close the run comes. `docs/MATH.md` §19."""
    K_star, V_star, p = _validate(K_star, V_star, lam, gamma, eps, L)
    alpha = VAL.positive("alpha", alpha)
    K = K_star.shape[0]
    try:
        W = np.asarray(W, float)
    except (TypeError, ValueError):
        raise ValueError(f"W must be a real array of head rows, got {type(W).__name__}") from None
    if W.ndim != 2 or W.shape[0] % 2 or W.shape[1] != 2 * K + W.shape[0]:
        raise ValueError(f"W must have shape (2H, 2K + 2H) (rows k_1..k_H, v_1..v_H in the frame of multihead_minima, "
                         f"K = {K}), got {W.shape}")
    if not np.all(np.isfinite(W)) or np.min(np.linalg.norm(W, axis=1)) == 0:
        raise ValueError("W must be finite with no zero row")
    H = W.shape[0] // 2
    _, T = _frame(K_star, V_star, W.shape[1] - 2 * K)
    F = RiskOnSpheres(T, H, K, **p)
    _, B = _hessian(F, W)

    def step(X):
        X = X / np.linalg.norm(X, axis=1, keepdims=True)
        Y = X - alpha * F.euclidean_gradient(X)[1]
        return (Y / np.linalg.norm(Y, axis=1, keepdims=True)).ravel()

    J = np.column_stack([B.T @ (step(W + h * B[:, i].reshape(W.shape)) - step(W - h * B[:, i].reshape(W.shape))) / (2 * h)
                         for i in range(B.shape[1])])
    return np.linalg.eigvals(J)
