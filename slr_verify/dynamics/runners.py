"""The three PGD runners (Definition 1; `docs/MATH.md` §8): full-dimensional, five-overlap, reduced on M.

All three use lam_t for the update from step t to t + 1, record steps 0, every, 2 every, ...
and the last step, and compute the risk at the recorded points with Theorem 1's kernel (eps
changes the risk value only, never the gradients). ``steps`` is an integer >= 0: ``steps = 0`` is the run of no
step, one record (the initial point); ``every`` an integer >= 1 (above ``steps``: the first and last steps only).
"""
from __future__ import annotations

import numpy as np

from ..kernels import fused as FK
from ..kernels import steps as PK
from ..model import validation as V
from ..model.params import accepts_gamma2
from .trajectory import (
    SECONDS_PER_RUN_STEP,
    Trajectory,
    check_cost,
    check_finite,
    check_run_args,
    coefficient_table,
    lam_schedule,
    progress_bar,
    progress_range,
    record_steps,
    risk_at_records,
    trajectory_from_records,
)

#: x . y over the last axis (np.vecdot from NumPy 2; einsum otherwise)
_vecdot = getattr(np, "vecdot", None) or (lambda a, b: np.einsum("...i,...i->...", a, b))

#: above this batch size the reduced runner uses the hoisted closed-form kernel
_BIG_BATCH = 1000

#: with a lam schedule, "auto" uses the fused kernel from this many runs on (see overlap_pgd)
_FUSED_MIN_BATCH_SCHEDULE = 200

#: steps per block of per-step gradient coefficients (a lam schedule): bounds the memory
_CHUNK = 2048


class _GradCoefs:
    """Per-step coefficients of the fast gradient kernel: computed once for a constant lam, in
    blocks of ``_CHUNK`` steps for a schedule. ``at(t)`` -> (C, atoms) for the update t -> t + 1."""

    def __init__(self, lams, const, gamma, d, L, gk=None):
        self.gk = PK.gradient_poly_kernel() if gk is None else gk
        self.lams, self.const, self.p = lams, const, (gamma, d, L)
        self.start = None
        if const:
            C, ac = self.gk.coefficients(float(lams[0]), gamma, d, L)
            self.fixed = (C, self.gk.split_atoms(ac))

    def at(self, t):
        if self.const:
            return self.fixed
        if self.start is None or not self.start <= t < self.start + _CHUNK:
            self.start = t
            C, ac = self.gk.coefficients(self.lams[t:t + _CHUNK], *self.p)
            self.C, self.atoms = C, self.gk.split_atoms(ac)
        i = t - self.start
        return self.C[i], tuple(a[i] for a in self.atoms)


def _iterate(step, coefs, steps, rec, progress=None):
    """Advance a stateful step (``PK.OverlapStep`` / ``PK.ReducedStep``) ``steps`` times with the
    per-step gradient coefficients; return the states at the recorded steps, (records, nvar, batch)."""
    out = np.empty((len(rec),) + step.state.shape)
    out[0] = step.state
    want = {int(r): i for i, r in enumerate(rec)}
    with np.errstate(all="ignore"):
        advance, state, at = step.advance, step.state, coefs.at
        for t in progress_range(steps, progress, "pgd (overlaps)"):
            advance(*at(t))
            i = want.get(t + 1)
            if i is not None:
                out[i] = state
    return out


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


def _iterate_fused(x0, lams, const, a, rec, progress=None):
    """The fused kernel (:mod:`slr_verify.kernels.fused`) over blocks of ``_CHUNK`` steps: returns
    the states at the recorded steps, (records, 5, batch)."""
    run = FK.fused_kernel()
    coefs = FK.FusedCoefficients(a["gamma"], a["d"], a["L"])
    EM = FK.map_coefficients(a["alpha"])
    X = np.array(x0, dtype=float, order="C")
    out = np.empty((len(rec), 5, X.shape[1]))
    out[0] = X
    slot = np.full(a["steps"], -1, dtype=np.int64)
    slot[rec[1:] - 1] = np.arange(1, len(rec))  # after the update t -> t + 1
    fixed = coefs.block(lams[:1]) if const else None
    bar = progress_bar(a["steps"], progress, "pgd (overlaps, fused)")
    for t0 in range(0, a["steps"], _CHUNK):
        t1 = min(t0 + _CHUNK, a["steps"])
        EG, AC, TAB, GEOM = fixed if const else coefs.block(lams[t0:t1])
        run(X, EG, AC, TAB, GEOM, EM, slot[t0:t1], out, not const)
        if bar is not None:
            bar.update(t1 - t0)
    if bar is not None:
        bar.close()
    return out


@accepts_gamma2
def overlap_pgd(overlaps, *, lam, gamma, d, L, alpha, steps, every=1, eps=0.0, progress=None, backend="auto"):
    """PGD on the sphere run as the exact five-overlap map (`docs/MATH.md` §12), d-free and batched.

    ``overlaps`` = (kappa, nu, theta, eta, rho), numbers or broadcastable arrays (one entry per
    initial tuple; each must be realisable, `docs/MATH.md` §3). ``lam`` a positive number or a callable
    t -> lam_t. Returns a :class:`Trajectory` with arrays of shape (records,) + batch shape.
    ``progress``: a stream for a progress bar (None: quiet). ``backend``: ``"fused"`` (one compiled
    loop, :mod:`slr_verify.kernels.fused`), ``"numpy"`` (whole-array passes, :class:`~slr_verify.kernels.steps.OverlapStep`)
    or ``"auto"`` (fused when Numba is importable, except for a lam schedule with fewer than 200
    runs, where the per-step Owen-T tables cost more than they save). Both are generated from the same expressions and
    agree to round-off per step.
    """
    V.choice("backend", backend, ("auto", "fused", "numpy"))
    a = check_run_args(alpha, steps, every, gamma, L, d=d, eps=eps)
    if isinstance(overlaps, (str, bytes)) or not hasattr(overlaps, "__len__") or len(overlaps) != 5:
        raise ValueError(f"overlaps must be (kappa, nu, theta, eta, rho), got {overlaps!r}")
    ov = V.overlaps(*overlaps, d=a["d"])
    check_cost(a["steps"], a["every"], int(np.prod(np.broadcast_shapes(*(np.shape(x) for x in ov)))), runs_name="overlaps")
    lams, const = lam_schedule(lam, a["steps"])
    rec = record_steps(a["steps"], a["every"])
    ov = np.broadcast_arrays(*[np.asarray(x, dtype=float) for x in ov])
    shape = ov[0].shape
    x0 = np.stack([x.reshape(-1) for x in ov])  # (5, batch)
    if backend == "auto":
        # with a schedule the fused kernel builds one Owen-T table per step; below a few hundred runs
        # that costs more than the NumPy passes save (fused against NumPy on Figure 4a's schedule)
        big = const or x0.shape[1] >= _FUSED_MIN_BATCH_SCHEDULE
        backend = "fused" if FK.available() and big else "numpy"
    if backend == "fused":
        out = _iterate_fused(x0, lams, const, a, rec, progress)
    else:
        coefs = _GradCoefs(lams, const, a["gamma"], a["d"], a["L"])
        out = _iterate(PK.OverlapStep(a["alpha"], x0.shape[1:], x0), coefs, a["steps"], rec, progress)
    check_finite(out, rec, a)
    traj = [out[:, i].reshape((len(rec),) + shape) for i in range(5)]
    risk = risk_at_records(lams[rec], traj, a["gamma"], a["eps"], a["d"], a["L"])
    return Trajectory(rec, *traj, risk, lams[rec], dict(a, lam=lam, runner="overlap", backend=backend))


@accepts_gamma2
def reduced_pgd(kappa0, nu0, *, lam, gamma, d, L, alpha, steps, every=1, eps=0.0):
    """PGD on the manifold M as the reduced map on (kappa, nu) (`docs/MATH.md` §9), vectorised over arrays
    of initial points. theta, eta, rho of the result are zero."""
    a = check_run_args(alpha, steps, every, gamma, L, d=d, eps=eps)
    k0, n0 = (V.as_finite(n, x) for n, x in (("kappa0", kappa0), ("nu0", nu0)))
    for n, x in (("kappa0", k0), ("nu0", n0)):
        if np.any(np.abs(x) > 1):
            raise ValueError(f"{n} is an inner product of unit vectors and must lie in [-1, 1], got {x!r}")
    V.broadcast(kappa0=k0, nu0=n0)  # arrays of different lengths: a ValueError naming both, not NumPy's
    k0, n0 = np.broadcast_arrays(k0, n0)
    check_cost(a["steps"], a["every"], k0.size, runs_name="kappa0")
    lams, const = lam_schedule(lam, a["steps"])
    rec = record_steps(a["steps"], a["every"])
    shape = k0.shape
    x0 = np.stack([k0.reshape(-1), n0.reshape(-1)]).astype(float)
    if x0.shape[1] > _BIG_BATCH:
        # large batches are memory-bound: the hoisted closed-form kernel (fewer passes over the
        # arrays) is faster there than the monomial form
        coef_fn, step_fn = PK.reduced_step_kernel()
        table = coefficient_table(coef_fn, lams, const, a["gamma"], a["d"], a["L"], a["alpha"])
        with np.errstate(all="ignore"):
            out = np.stack(_loop(step_fn, [x0[0], x0[1]], table, const, a["steps"], rec), axis=1)
    else:
        coefs = _GradCoefs(lams, const, a["gamma"], a["d"], a["L"], gk=PK.manifold_gradient_poly_kernel())
        out = _iterate(PK.ReducedStep(a["alpha"], x0.shape[1:], x0), coefs, a["steps"], rec)
    kappa, nu = (out[:, i].reshape((len(rec),) + shape) for i in range(2))
    zero = np.zeros_like(kappa)
    risk = risk_at_records(lams[rec], (kappa, nu, zero, zero, zero), a["gamma"], a["eps"], a["d"], a["L"])
    return Trajectory(rec, kappa, nu, zero, zero.copy(), zero.copy(), risk, lams[rec], dict(a, lam=lam, runner="reduced"))


def _pgd_dtype(dtype) -> np.dtype:
    """``dtype`` as a NumPy dtype, float64 or float32, else ValueError."""
    try:
        dtype = np.dtype(dtype)
    except TypeError:
        raise ValueError(f"dtype must be float64 or float32, got {dtype!r}") from None
    if dtype not in (np.dtype(np.float64), np.dtype(np.float32)):
        raise ValueError(f"dtype must be float64 or float32, got {dtype}")
    return dtype


def _pgd_batch(vecs, d):
    """(batched, runs, the four vectors broadcast to (runs, d)), else ValueError naming the shapes required."""
    batched = any(x.ndim == 2 for x in vecs)
    runs = max(x.shape[0] if x.ndim == 2 else 1 for x in vecs)
    try:
        K, Vv, Ks, Vs = (np.broadcast_to(np.atleast_2d(x), (runs, d)) for x in vecs)
    except ValueError:
        raise ValueError("k0, v0, k_star, v_star must have shape (d,) or (runs, d) with the same runs, got "
                         + ", ".join(str(x.shape) for x in vecs)) from None
    return batched, runs, (K, Vv, Ks, Vs)


def _check_orthogonal(Ks, Vs):
    """ValueError unless k_star.v_star is within 1e-8 of 0 for every run (Assumption 1)."""
    ortho = np.abs(np.sum(Ks * Vs, axis=-1))
    if np.any(ortho > 1e-8):
        raise ValueError(f"k_star and v_star must be orthogonal (Assumption 1), got k_star.v_star = {ortho.max()!r}")


@accepts_gamma2
def pgd(k0, v0, k_star, v_star, *, lam, gamma, L, alpha, steps, every=1, eps=0.0, dtype=np.float64, progress=None):
    """Full-dimensional projected gradient descent (Definition 1) on unit vectors in R^d.

    ``k0, v0, k_star, v_star``: unit vectors of shape (d,) or (runs, d) (batched repetitions;
    shapes broadcast), k_star orthogonal to v_star. Each step computes the overlaps from the
    vectors, the partials of Theorem 1's risk (generated kernel), the gradients
    grad_k R = R_kappa k* + R_eta v* + R_rho v, grad_v R = R_nu v* + R_theta k* + R_rho k, their
    tangent projections (I - k k^T) grad, the step and the normalisation, all in R^d and in
    ``dtype`` (float64, or float32 to measure round-off). Both updates use (k_t, v_t).
    ``progress``: a stream for a progress bar (None: quiet).
    """
    dtype = _pgd_dtype(dtype)
    vecs = [V.unit_vectors(n, x) for n, x in (("k0", k0), ("v0", v0), ("k_star", k_star), ("v_star", v_star))]
    shapes = {x.shape[-1] for x in vecs}
    if len(shapes) != 1:
        raise ValueError(f"k0, v0, k_star, v_star must have the same length d, got {[x.shape for x in vecs]}")
    d = shapes.pop()
    a = check_run_args(alpha, steps, every, gamma, L, d=d, eps=eps)
    batched, runs, (K, Vv, Ks, Vs) = _pgd_batch(vecs, d)
    check_cost(a["steps"], a["every"], runs, per_run_step=SECONDS_PER_RUN_STEP * d, runs_name="k0")
    _check_orthogonal(Ks, Vs)
    lams, const = lam_schedule(lam, a["steps"])
    coefs = _GradCoefs(lams, const, a["gamma"], d, a["L"])
    grad_fn = coefs.gk.make((runs,))
    rec = record_steps(a["steps"], a["every"])
    want = set(int(r) for r in rec)
    alpha = a["alpha"]

    X = np.empty((runs, 4, d), dtype=dtype)  # rows k, v, k*, v*
    X[:, 0], X[:, 1], X[:, 2], X[:, 3] = K, Vv, Ks, Vs
    C = np.zeros((runs, 2, 4), dtype=dtype)  # update coefficients (rows k', v'; columns k, v, k*, v*)
    out = []
    # the overlaps are entries of the rows k, v of the Gram matrix, and grad_k R, grad_v R have the
    # partials as coefficients in the basis (k, v, k*, v*): tables read off the symbolic map
    T = PK.chain_rule_tables()
    OV_ROW, OV_COL = T.ov_row, T.ov_col
    (K_COLS, V_COLS), (K_PART, V_PART) = T.cols, T.parts
    Xk, Xa = X[:, :2, None, :], X[:, None, :, :]
    ov64 = np.empty((5, runs))
    with np.errstate(all="ignore"):
        for t in progress_range(a["steps"] + 1, progress, "pgd", total=a["steps"]):
            Gm = _vecdot(Xk, Xa)  # inner products of (k, v) with (k, v, k*, v*), from the vectors
            ov64[...] = Gm[:, OV_ROW, OV_COL].T
            if t in want:
                out.append(ov64.copy())
            if t == a["steps"]:
                break
            mR = (-alpha) * grad_fn(ov64, *coefs.at(t))  # -alpha (R_kappa, R_nu, R_theta, R_eta, R_rho)
            C[:, 0, K_COLS] = mR[K_PART].T
            C[:, 1, V_COLS] = mR[V_PART].T
            # x - alpha (grad - (x.grad) x): the coefficient of x itself is 1 + alpha x.grad
            # = 1 - sum_j C[x, j] <x, e_j> over the other basis vectors e_j (C's diagonal is 0 here)
            C[:, 0, 0] = 0
            C[:, 1, 1] = 0
            diag = 1 - np.einsum("rij,rij->ri", C, Gm)
            C[:, 0, 0] = diag[:, 0]
            C[:, 1, 1] = diag[:, 1]
            Y = C @ X  # (runs, 2, d): the unnormalised k_{t+1}, v_{t+1}
            Y /= np.sqrt(_vecdot(Y, Y))[..., None]  # P(x) = x / |x|
            X[:, :2] = Y
    return trajectory_from_records(out, batched, rec, lams, a, d, dict(a, lam=lam, dtype=str(dtype), runner="full"))
