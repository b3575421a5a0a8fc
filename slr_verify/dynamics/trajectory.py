"""The trajectory object returned by the PGD runners, and the input handling they share."""
from __future__ import annotations

import numpy as np

from ..kernels import generated as G
from ..kernels.codegen import coefficient_array
from ..model import budgets as B
from ..model import validation as V
from ..model.overlaps import NAMES
from ..model.params import SUPPORTED_MAX, checked

FIELDS = ("step", "kappa", "nu", "theta", "eta", "rho", "risk")


class Trajectory:
    """Recorded PGD iterates: ``step`` (shape (n,), 0 included) and ``kappa``, ``nu``, ``theta``,
    ``eta``, ``rho``, ``risk`` (first axis the record index, then the batch shape), by attribute
    or by key (``traj["kappa"]``). ``lam`` holds lam_t at the recorded steps, ``params`` the run's
    parameters. ``distance_to_M`` is sqrt(theta^2 + eta^2 + rho^2); ``ends`` the five overlaps at the last record.
    Definition 1, `docs/MATH.md` §8."""

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

    @property
    def ends(self):
        """The five overlaps (kappa, nu, theta, eta, rho) at the last record, a list of arrays of the batch shape."""
        return [getattr(self, f)[-1] for f in NAMES]

    def as_dict(self):
        out = {k: np.asarray(getattr(self, k)) for k in FIELDS}
        out["lam"] = np.asarray(self.lam)
        return out

    def __repr__(self):
        return "Trajectory(records=%d, batch=%s, final kappa=%s)" % (
            len(self.step), np.shape(self.kappa)[1:], np.array2string(np.asarray(self.kappa[-1]), precision=4, threshold=6)
        )


#: The step size's supported range: alpha |grad R| must stay far inside float64 (the paper uses
#: 1e-3 to 4e-3; beyond 1e8 the update x - alpha grad overflows for large risks).
ALPHA_MAX = 1e8

#: The cost the time budget assumes for one PGD step of one run (seconds): the five-overlap runner's; the
#: full-dimensional runner costs ~d times more. Used only to refuse calls estimated above an hour
#: (``budgets.time_budget``).
SECONDS_PER_RUN_STEP = 1e-7


def lam_schedule(lam, steps):
    """lam_t for t = 0..steps as a float array (lam a positive number or a callable t -> lam_t),
    each value a finite real in (0, SUPPORTED_MAX["lam"]] (a bool, string, array, None returned by
    the schedule is refused with the step where it happened); a table too large for memory is refused naming steps."""
    B.memory_budget("steps", 8.0 * (steps + 1), f"the lam table of {steps:,} steps")
    if callable(lam):
        return V.schedule_values("lam", lam, steps, maximum=SUPPORTED_MAX["lam"], why="float64 overflows beyond it"), False
    if isinstance(lam, (str, bytes, bool, np.bool_)) or lam is None or np.ndim(lam) != 0:
        raise ValueError(f"lam must be a positive number or a callable t -> lam_t, got {lam!r}")
    val = V.real("lam", lam, minimum=0.0, strict_min=True, maximum=SUPPORTED_MAX["lam"], why="float64 overflows beyond it")
    return np.full(steps + 1, val), True


def record_steps(steps, every):
    """Recorded steps: 0, every, 2 every, ..., and the last step."""
    rec = np.arange(0, steps + 1, every)
    if rec[-1] != steps:
        rec = np.append(rec, steps)
    return rec


def check_cost(steps, every, runs, *, per_run_step=SECONDS_PER_RUN_STEP, runs_name="runs"):
    """Refuse, before anything is allocated, a run whose lam table and records would exceed the
    available memory or whose estimated time exceeds an hour: ``ValueError`` naming ``steps`` when one run of that
    many steps would not fit, else ``runs_name`` (the parameter that sets the number of runs)."""
    records = steps // every + 2
    for name, n in (("steps", 1), (runs_name, runs)):
        B.memory_budget(name, 8.0 * (steps + 1) + 8.0 * 6 * records * n, f"{steps:,} steps x {n:,} runs (every={every})")
        B.time_budget(name, per_run_step * steps * n, f"{steps:,} steps x {n:,} runs")


def check_run_args(alpha, steps, every, gamma, L, d=None, eps=0.0):
    alpha = V.real("alpha", alpha, minimum=0.0, strict_min=True, maximum=ALPHA_MAX,
                   why="alpha |grad R| must stay inside float64")
    steps = V.integer("steps", steps, 0, floats=True)
    every = V.integer("every", every, 1, floats=True)
    every = min(every, max(steps, 1))  # every > steps records step 0 and the last step only
    given = dict(gamma=gamma, eps=eps, L=L) if d is None else dict(gamma=gamma, eps=eps, L=L, d=d)
    gamma, eps, L, *d_ok = checked(**given)  # d only where the run has one (no dummy)
    d_ok = d_ok[0] if d_ok else None
    for name, x in (("gamma", gamma), ("L", L), ("eps", eps), ("d", d_ok)):
        if np.ndim(x) != 0:
            raise ValueError(f"{name} must be a single number, got shape {np.shape(x)}")
    out = dict(alpha=alpha, steps=steps, every=every, gamma=float(gamma), L=V.count_value(L), eps=float(eps))
    if d is not None:
        out["d"] = V.count_value(d_ok)
    return out


def check_finite(out, rec, a):
    """``ValueError`` naming alpha when the recorded states ``out`` (records x 5 x runs) leave float64's range, or the last
    ones the realisable overlaps (to :data:`~slr_verify.model.validation.GRAM_TOL`): a step alpha |grad R| far beyond
    1 (the gradient grows like d) sends the projection to +-1, then to inf or NaN, or off the realisable set by
    round-off; a run never returns such a state."""
    bad = ~np.all(np.isfinite(out), axis=tuple(range(1, out.ndim)))
    why = None
    if bad.any():
        why = f"leaves float64's range by step {int(np.asarray(rec)[int(np.argmax(bad))])}"
    else:
        try:
            V.overlaps(*out[-1], d=a["d"])
        except ValueError as exc:
            why = f"ends at states that are not realisable overlaps (round-off of the steps: {exc})"
    if why:
        raise ValueError(f"alpha = {a['alpha']:g} is too large for this model (d = {a['d']:g}, L = {a['L']:g}): the run "
                         f"{why}; the gradient grows like d: reduce alpha")


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


def progress_stream(progress):
    """The stream for a progress bar: ``"auto"`` is stderr when it is a terminal (an interactive
    user sees long runs move; tests, pipes and the claims stay quiet), True is stderr, None and False
    are quiet, any other value a writable stream."""
    import sys

    if progress is True:
        return sys.stderr
    if progress is False:
        return None
    if isinstance(progress, str):
        if progress != "auto":
            raise ValueError(f"progress must be None, True, False, 'auto' or a writable stream, got {progress!r}")
        return sys.stderr if getattr(sys.stderr, "isatty", lambda: False)() else None
    if progress is not None and not hasattr(progress, "write"):
        raise ValueError(f"progress must be None, True, False, 'auto' or a writable stream, got {progress!r}")
    return progress


def progress_bar(total, progress, desc):
    """A tqdm bar of ``total`` steps on the stream ``progress`` (True: stderr), or None (quiet)."""
    progress = progress_stream(progress)
    if progress is None:
        return None
    from tqdm.auto import tqdm

    return tqdm(total=total, desc=desc, file=progress, mininterval=0.5, unit="step")


def progress_range(n, progress, desc, total=None):
    """range(n), with a progress bar on the stream ``progress`` (None: a plain range). ``total``:
    the bar's length when it differs from n (a loop over steps 0..steps that breaks at the last
    one counts ``steps`` steps, not steps + 1). The bar is closed when the loop ends or breaks."""
    progress = progress_stream(progress)
    if progress is None:
        return range(n)
    bar = progress_bar(n if total is None else total, progress, desc)

    def steps():
        try:
            for t in range(n):
                yield t
                if bar.n < bar.total:
                    bar.update(1)
        finally:
            bar.close()

    return steps()
