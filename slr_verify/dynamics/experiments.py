"""The paper's PGD experiments (SPEC 11): settings and a runner for Figures 4a, 4b, 7a, 7b."""
from __future__ import annotations

import numpy as np

from .claims import draw_problem
from .runners import pgd

__all__ = ["SETTINGS", "run_figure"]


def _sched(lam0):
    return lambda t: lam0 / (1 + 1e-4 * t)


#: SPEC 11. Figure 5 (SGD on sampled batches) is not implemented here.
SETTINGS = {
    "4a": dict(init="sphere", d=400, L=10, gamma2=0.5, lam=_sched(1.0), lam_text="1/(1+1e-4 t)", alpha=4e-3, steps=120_000),
    "4b": dict(init="M", d=400, L=10, gamma2=0.5, lam=0.1, lam_text="0.1", alpha=4e-3, steps=20_000),
    "7a": dict(init="sphere", d=400, L=10, gamma2=0.5, lam=0.9, lam_text="0.9", alpha=1e-3, steps=120_000),
    "7b": dict(init="sphere", d=400, L=10, gamma2=0.5, lam=0.1, lam_text="0.1", alpha=4e-3, steps=20_000),
}


def run_figure(figure, *, repeats=30, steps=None, seed=0, every=None):
    """Run a figure's setting with the full-dimensional runner; returns (trajectory, parameters)."""
    if figure not in SETTINGS:
        raise ValueError(f"figure must be one of {sorted(SETTINGS)} (Figure 5, SGD, is not implemented), got {figure!r}")
    s = SETTINGS[figure]
    steps = s["steps"] if steps is None else int(steps)
    every = every or max(1, steps // 1000)
    rng = np.random.default_rng(seed)
    k, v, ks, vs = draw_problem(rng, int(repeats), s["d"], s["init"] == "M")
    tr = pgd(k, v, ks, vs, lam=s["lam"], gamma=float(np.sqrt(s["gamma2"])), L=s["L"], alpha=s["alpha"], steps=steps, every=every)
    params = dict(figure=figure, init=s["init"], d=s["d"], L=s["L"], gamma2=s["gamma2"], lam=s["lam_text"], alpha=s["alpha"],
                  steps=steps, every=every, repeats=int(repeats), seed=seed)
    return tr, params
