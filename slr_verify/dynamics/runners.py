"""The three PGD runners (Definition 1, SPEC 8): full-dimensional, five-overlap, reduced on M.

All three use lam_t for the update from step t to t + 1, record steps 0, every, 2 every, ...
and the last step, and compute the risk at the recorded points with Theorem 1's kernel (eps
changes the risk value only, never the gradients).
"""
from __future__ import annotations

import numpy as np

from .. import validation as V
from . import maps
from .trajectory import (
    Trajectory,
    check_run_args,
    coefficient_table,
    lam_schedule,
    record_steps,
    risk_at_records,
)

__all__ = ["pgd", "overlap_pgd", "reduced_pgd"]


def _loop(step_fn, state, coefs, const, steps, rec):
    """Iterate ``state = step_fn(*state, *coefs_t)``, recording at the steps in ``rec``."""
    out = [[np.array(x, copy=True)] for x in state]
    want = set(int(r) for r in rec[1:])
    if const:
        for t in range(steps):
            state = step_fn(*state, *coefs)
            if t + 1 in want:
                for o, x in zip(out, state):
                    o.append(np.array(x, copy=True))
    else:
        table = coefs.T.tolist()
        for t in range(steps):
            state = step_fn(*state, *table[t])
            if t + 1 in want:
                for o, x in zip(out, state):
                    o.append(np.array(x, copy=True))
    return [np.stack(o) for o in out]


def overlap_pgd(overlaps, *, lam, gamma, d, L, alpha, steps, every=1, eps=0.0):
    """PGD on the sphere run as the exact five-overlap map (SPEC 12), d-free and batched.

    ``overlaps`` = (kappa, nu, theta, eta, rho), numbers or broadcastable arrays (one entry per
    initial tuple; each must be realisable, SPEC 3). ``lam`` a positive number or a callable
    t -> lam_t. Returns a :class:`Trajectory` with arrays of shape (records,) + batch shape.
    """
    a = check_run_args(alpha, steps, every, gamma, L, d=d, eps=eps)
    if len(overlaps) != 5:
        raise ValueError(f"overlaps must be (kappa, nu, theta, eta, rho), got {len(overlaps)} values")
    ov = V.overlaps(*overlaps, d=a["d"])
    lams, const = lam_schedule(lam, a["steps"])
    coef_fn, step_fn = maps.step_kernel()
    coefs = coefficient_table(coef_fn, lams, const, a["gamma"], a["d"], a["L"], a["alpha"])
    rec = record_steps(a["steps"], a["every"])
    with np.errstate(all="ignore"):
        traj = _loop(step_fn, [np.asarray(x, dtype=float) for x in ov], coefs, const, a["steps"], rec)
    risk = risk_at_records(lams[rec], traj, a["gamma"], a["eps"], a["d"], a["L"])
    return Trajectory(rec, *traj, risk, lams[rec], dict(a, lam=lam, runner="overlap"))


def reduced_pgd(kappa0, nu0, *, lam, gamma, d, L, alpha, steps, every=1, eps=0.0):
    """PGD on the manifold M as the reduced map on (kappa, nu) (SPEC 9), vectorised over arrays
    of initial points. theta, eta, rho of the result are zero."""
    a = check_run_args(alpha, steps, every, gamma, L, d=d, eps=eps)
    k0, n0 = (V.as_finite(n, x) for n, x in (("kappa0", kappa0), ("nu0", nu0)))
    for n, x in (("kappa0", k0), ("nu0", n0)):
        if np.any(np.abs(x) > 1):
            raise ValueError(f"{n} is an inner product of unit vectors and must lie in [-1, 1], got {x!r}")
    k0, n0 = np.broadcast_arrays(k0, n0)
    lams, const = lam_schedule(lam, a["steps"])
    coef_fn, step_fn = maps.reduced_step_kernel()
    coefs = coefficient_table(coef_fn, lams, const, a["gamma"], a["d"], a["L"], a["alpha"])
    rec = record_steps(a["steps"], a["every"])
    with np.errstate(all="ignore"):
        kappa, nu = _loop(step_fn, [k0.astype(float), n0.astype(float)], coefs, const, a["steps"], rec)
    zero = np.zeros_like(kappa)
    risk = risk_at_records(lams[rec], (kappa, nu, zero, zero, zero), a["gamma"], a["eps"], a["d"], a["L"])
    return Trajectory(rec, kappa, nu, zero, zero.copy(), zero.copy(), risk, lams[rec], dict(a, lam=lam, runner="reduced"))


def pgd(k0, v0, k_star, v_star, *, lam, gamma, L, alpha, steps, every=1, eps=0.0, dtype=np.float64):
    """Full-dimensional projected gradient descent (Definition 1) on unit vectors in R^d.

    ``k0, v0, k_star, v_star``: unit vectors of shape (d,) or (runs, d) (batched repetitions;
    shapes broadcast), k_star orthogonal to v_star. Each step computes the overlaps from the
    vectors, the partials of Theorem 1's risk (generated kernel), the gradients
    grad_k R = R_kappa k* + R_eta v* + R_rho v, grad_v R = R_nu v* + R_theta k* + R_rho k, their
    tangent projections (I - k k^T) grad, the step and the normalisation, all in R^d and in
    ``dtype`` (float64, or float32 to measure round-off). Both updates use (k_t, v_t).
    """
    dtype = np.dtype(dtype)
    if dtype not in (np.dtype(np.float64), np.dtype(np.float32)):
        raise ValueError(f"dtype must be float64 or float32, got {dtype}")
    vecs = [V.unit_vectors(n, x) for n, x in (("k0", k0), ("v0", v0), ("k_star", k_star), ("v_star", v_star))]
    shapes = {x.shape[-1] for x in vecs}
    if len(shapes) != 1:
        raise ValueError(f"k0, v0, k_star, v_star must have the same length d, got {[x.shape for x in vecs]}")
    d = shapes.pop()
    a = check_run_args(alpha, steps, every, gamma, L, d=d, eps=eps)
    batched = any(x.ndim == 2 for x in vecs)
    runs = max(x.shape[0] if x.ndim == 2 else 1 for x in vecs)
    try:
        K, Vv, Ks, Vs = (np.broadcast_to(np.atleast_2d(x), (runs, d)) for x in vecs)
    except ValueError:
        raise ValueError("k0, v0, k_star, v_star must have shape (d,) or (runs, d) with the same runs") from None
    ortho = np.abs(np.sum(Ks * Vs, axis=-1))
    if np.any(ortho > 1e-8):
        raise ValueError(f"k_star and v_star must be orthogonal (Assumption 1), got k_star.v_star = {ortho.max()!r}")
    lams, const = lam_schedule(lam, a["steps"])
    coef_fn, grad_fn = maps.gradient_kernel()
    if const:
        coefs = tuple(float(c) for c in maps.coefficients(coef_fn, lams[0], a["gamma"], d, a["L"]))
    else:
        table = maps.coefficients(coef_fn, lams, a["gamma"], d, a["L"]).T.tolist()
    rec = record_steps(a["steps"], a["every"])
    want = set(int(r) for r in rec)
    alpha = a["alpha"]

    X = np.empty((runs, 4, d), dtype=dtype)  # rows k, v, k*, v*
    X[:, 0], X[:, 1], X[:, 2], X[:, 3] = K, Vv, Ks, Vs
    C = np.zeros((runs, 2, 4), dtype=dtype)  # update coefficients
    out = []
    one = dtype.type(1)
    with np.errstate(all="ignore"):
        for t in range(a["steps"] + 1):
            Gm = X @ X.transpose(0, 2, 1)  # inner products of (k, v, k*, v*), from the vectors
            kappa, eta, rho = Gm[:, 0, 2], Gm[:, 0, 3], Gm[:, 0, 1]
            theta, nu = Gm[:, 1, 2], Gm[:, 1, 3]
            if t in want:
                out.append(np.stack([kappa, nu, theta, eta, rho]).astype(np.float64))
            if t == a["steps"]:
                break
            Rk, Rn, Rt, Re, Rr = grad_fn(kappa, nu, theta, eta, rho, *(coefs if const else table[t]))
            # grad_k = Rk k* + Re v* + Rr v ;  k.grad_k = Rk kappa + Re eta + Rr rho
            # k - alpha (grad_k - (k.grad_k) k)
            C[:, 0, 0] = one + alpha * (Rk * kappa + Re * eta + Rr * rho)
            C[:, 0, 1] = -alpha * Rr
            C[:, 0, 2] = -alpha * Rk
            C[:, 0, 3] = -alpha * Re
            # grad_v = Rn v* + Rt k* + Rr k ;  v.grad_v = Rn nu + Rt theta + Rr rho
            C[:, 1, 0] = -alpha * Rr
            C[:, 1, 1] = one + alpha * (Rn * nu + Rt * theta + Rr * rho)
            C[:, 1, 2] = -alpha * Rt
            C[:, 1, 3] = -alpha * Rn
            Y = C @ X  # (runs, 2, d): the unnormalised k_{t+1}, v_{t+1}
            Y /= np.sqrt(np.einsum("rid,rid->ri", Y, Y))[..., None]  # P(x) = x / |x|
            X[:, :2] = Y
    arr = np.stack(out)  # (records, 5, runs)
    if not batched:
        arr = arr[..., 0]
    ov = [arr[:, i] for i in range(5)]
    risk = risk_at_records(lams[rec], ov, a["gamma"], a["eps"], d, a["L"])
    return Trajectory(rec, *ov, risk, lams[rec], dict(a, lam=lam, dtype=str(dtype), runner="full"))
