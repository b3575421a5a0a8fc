"""The trajectory object returned by the PGD runners, and the input handling they share."""
from __future__ import annotations

import numbers

import numpy as np

from ..kernels import generated as G
from ..kernels.codegen import coefficient_array
from ..model import validation as V
from ..model.params import D_MIN

__all__ = ["Trajectory", "lam_schedule", "record_steps", "check_run_args", "progress_range", "trajectory_from_records"]

FIELDS = ("step", "kappa", "nu", "theta", "eta", "rho", "risk")


class Trajectory:
    """Recorded PGD iterates: ``step`` (shape (n,), 0 included) and ``kappa``, ``nu``, ``theta``,
    ``eta``, ``rho``, ``risk`` (first axis the record index, then the batch shape), by attribute
    or by key (``traj["kappa"]``). ``lam`` holds lam_t at the recorded steps, ``params`` the run's
    parameters. ``distance_to_M`` is sqrt(theta^2 + eta^2 + rho^2)."""

    def __init__(self, step, kappa, nu, theta, eta, rho, risk, lam, params):
        self.step = np.asarray(step)
        self.kappa, self.nu, self.theta, self.eta, self.rho = kappa, nu, theta, eta, rho
        self.risk = risk
        self.lam = lam
        self.params = dict(params)

    def __getitem__(self, key):
        if key not in FIELDS and key not in ("lam", "distance_to_M"):
            raise KeyError(key)
        return getattr(self, key)

    def keys(self):
        return FIELDS

    def __contains__(self, key):
        return key in FIELDS

    @property
    def distance_to_M(self):
        return np.sqrt(self.theta**2 + self.eta**2 + self.rho**2)

    def as_dict(self):
        out = {k: np.asarray(getattr(self, k)) for k in FIELDS}
        out["lam"] = np.asarray(self.lam)
        return out

    def __repr__(self):
        return "Trajectory(records=%d, batch=%s, final kappa=%s)" % (
            len(self.step), np.shape(self.kappa)[1:], np.array2string(np.asarray(self.kappa[-1]), precision=4, threshold=6)
        )


def lam_schedule(lam, steps):
    """lam_t for t = 0..steps as a float array (lam a positive number or a callable t -> lam_t)."""
    if callable(lam):
        vals = np.array([lam(t) for t in range(steps + 1)], dtype=float)
        if not np.all(np.isfinite(vals)) or np.any(vals <= 0):
            bad = int(np.argmax(~np.isfinite(vals) | (vals <= 0)))
            raise ValueError(f"lam must be > 0 at every step, got lam({bad}) = {vals[bad]!r}")
        return vals, False
    if isinstance(lam, numbers.Real) or np.ndim(lam) == 0:
        val = float(V.positive("lam", lam))
        return np.full(steps + 1, val), True
    raise ValueError(f"lam must be a positive number or a callable t -> lam_t, got {lam!r}")


def record_steps(steps, every):
    """Recorded steps: 0, every, 2 every, ..., and the last step."""
    rec = np.arange(0, steps + 1, every)
    if rec[-1] != steps:
        rec = np.append(rec, steps)
    return rec


def check_run_args(alpha, steps, every, gamma, L, d=None, eps=0.0):
    alpha = float(V.positive("alpha", alpha))
    if isinstance(steps, (bool, np.bool_)) or not float(V.as_finite("steps", steps)).is_integer():
        raise ValueError(f"steps must be an integer >= 0, got {steps!r}")
    steps = int(V.integer_at_least("steps", steps, 0))
    every = int(V.integer_at_least("every", every, 1))
    gamma = V.positive("gamma", gamma)
    L = V.integer_at_least("L", L, 1)
    eps = V.nonnegative("eps", eps)
    for name, x in (("gamma", gamma), ("L", L), ("eps", eps)):
        if np.ndim(x) != 0:
            raise ValueError(f"{name} must be a single number, got shape {np.shape(x)}")
    out = dict(alpha=alpha, steps=steps, every=every, gamma=float(gamma), L=int(L), eps=float(eps))
    if d is not None:
        d = V.integer_at_least("d", d, D_MIN)
        if np.ndim(d) != 0:
            raise ValueError(f"d must be a single integer, got shape {np.shape(d)}")
        out["d"] = int(d)
    return out


def coefficient_table(coef_fn, lams, const, gamma, d, L, alpha):
    """Coefficients of a hoisted kernel: a tuple of floats (constant lam) or an array
    (ncoef, steps + 1) (one column per step)."""
    if const:
        return tuple(float(c) for c in coefficient_array(coef_fn, lams[0], gamma, d, L, alpha))
    return coefficient_array(coef_fn, lams, gamma, d, L, alpha)


def risk_at_records(rec_lams, ov, gamma, eps, d, L):
    """Theorem 1's risk at the recorded overlaps (one vectorised call)."""
    lam = np.asarray(rec_lams, dtype=float).reshape((-1,) + (1,) * (np.ndim(ov[0]) - 1))
    with np.errstate(all="ignore"):
        return np.asarray(G.risk_kernel()(*[np.asarray(x, dtype=float) for x in ov], lam, gamma, eps, d, L), dtype=float)


def trajectory_from_records(out, batched, rec, lams, a, d, settings):
    """The :class:`Trajectory` of a runner on vectors (full-dimensional PGD, SGD): ``out`` the
    overlaps recorded at the steps ``rec`` (each (5, runs)), ``batched`` False for one run given
    as vectors of shape (d,); the risk is Theorem 1's at lam_t (``lams``) with ``a``'s gamma, eps, L."""
    arr = np.stack(out)  # (records, 5, runs)
    if not batched:
        arr = arr[..., 0]
    ov = [arr[:, i] for i in range(5)]
    risk = risk_at_records(lams[rec], ov, a["gamma"], a["eps"], d, a["L"])
    return Trajectory(rec, *ov, risk, lams[rec], settings)


def progress_range(n, progress, desc):
    """range(n), with a progress bar on the stream ``progress`` (None: a plain range)."""
    if progress is None:
        return range(n)
    from tqdm.auto import tqdm

    return tqdm(range(n), desc=desc, file=progress, mininterval=0.5, unit="step")
