"""The five-overlap PGD map G = sigma o Phi in float64 (`docs/MATH.md` §§12-13): its value and Jacobian at a point,
Newton's method for its fixed points and 2-cycles, a real eigenvector basis of a Jacobian, and the realisability of
run states. The float side of the capture regions proved in :mod:`slr_verify.certify.capture` and
:mod:`slr_verify.certify.valley`, and of the basins' classification (:mod:`.basins`)."""
from __future__ import annotations

import numpy as np

from ..kernels.landscape import fixed_point_kernels
from ..model import validation as V
from ..model.params import keywords_checked


@keywords_checked
def pgd_map(o, sigma, *, lam, gamma, d, L, alpha):
    """(G(o), DG(o)) in float64 for one point o (5,): G = sigma o Phi (Phi the five-overlap map)."""
    K = fixed_point_kernels()
    r = np.array(K.risk_f64(*o, lam, gamma, 0.0, d, L), dtype=float)
    p, H = r[1:6], r[6:].reshape(5, 5)
    m = np.array(K.map_f64(*o, *p, alpha), dtype=float)
    F, dF = m[:5], m[5:].reshape(5, 10)
    s = np.asarray(sigma, dtype=float)
    return s * F, s[:, None] * (dF[:, :5] + dF[:, 5:] @ H)


@keywords_checked
def cycle_point(o0, sigma, *, lam, gamma, d, L, alpha, iters=60, tol=1e-15):
    """Newton's method on sigma Phi(o) = o from o0 (float64): the root, or None if it does not converge."""
    o = np.array(o0, dtype=float)
    for _ in range(iters):
        G, J = pgd_map(o, sigma, lam=lam, gamma=gamma, d=d, L=L, alpha=alpha)
        try:
            step = np.linalg.solve(J - np.eye(5), G - o)
        except np.linalg.LinAlgError:
            return None
        if not np.all(np.isfinite(step)):
            return None
        o = o - step
        if np.max(np.abs(step)) < tol:
            return o
    G, _ = pgd_map(o, sigma, lam=lam, gamma=gamma, d=d, L=L, alpha=alpha)
    return o if np.max(np.abs(G - o)) < 1e-13 else None


@keywords_checked
def real_eigenbasis(J):
    """Columns of a real eigenvector basis of J and its groups (a complex pair: (Re u, Im u))."""
    w, U = np.linalg.eig(J)
    cols, groups, used = [], [], set()
    for i in np.argsort(-np.abs(w)):
        if i in used:
            continue
        used.add(int(i))
        if abs(w[i].imag) > 1e-14 * max(1.0, abs(w[i])):
            j = min((k for k in range(len(w)) if k not in used), key=lambda k: abs(w[k] - np.conj(w[i])))
            used.add(int(j))
            groups.append((len(cols), len(cols) + 1))
            # one common scale for the pair: in the coordinates (Re u, Im u) J acts as [[a, b], [-b, a]], whose
            # spectral norm is the modulus |a + ib|; separate scales would shear it
            u = U[:, i] / np.linalg.norm(U[:, i])
            cols += [u.real, u.imag]
        else:
            groups.append((len(cols),))
            cols.append(U[:, i].real / np.linalg.norm(U[:, i].real))
    return np.array(cols).T, tuple(groups), w


@keywords_checked
def realisable_states(ov, d) -> np.ndarray:
    """The points ``ov`` (shape (5,) or (5, n): columns (kappa, nu, theta, eta, rho)) as a float array (5, n),
    each column checked to be a realisable overlap tuple in R^d (:func:`slr_verify.model.validation.overlaps`:
    entries in [-1, 1], the Gram matrix of (k, v, k*, v*) positive semidefinite and of rank <= d, to
    :data:`~slr_verify.model.validation.GRAM_TOL`); ``ValueError`` naming ``ov`` otherwise."""
    if isinstance(ov, np.ndarray) and ov.shape == (5, 0):
        return np.zeros((5, 0))
    X = V.as_finite("ov", ov)
    if X.shape == (5,):
        X = X[:, None]
    if X.ndim != 2 or X.shape[0] != 5:
        raise ValueError(f"ov must be overlap tuples (kappa, nu, theta, eta, rho): an array of shape (5,) or (5, n), "
                         f"got shape {X.shape}")
    try:
        V.overlaps(*X, d=d)
    except ValueError as exc:
        raise ValueError(f"ov must be realisable overlap tuples (unit k, v in R^d with these overlaps with orthonormal "
                         f"k*, v*): {exc}") from None
    return X
