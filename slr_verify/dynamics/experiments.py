"""The paper's PGD experiments (SPEC 11): settings and a runner for Figures 4a, 4b, 7a, 7b."""
from __future__ import annotations

import numpy as np

from .claims import draw_problem
from .runners import pgd
from .sgd import sgd

__all__ = ["SETTINGS", "run_figure"]


def _sched(lam0):
    return lambda t: lam0 / (1 + 1e-4 * t)


#: SPEC 11. Figure 5 is SGD on sampled batches (batch 5, eps = 0.1).
SETTINGS = {
    "4a": dict(init="sphere", d=400, L=10, gamma2=0.5, lam=_sched(1.0), lam_text="1/(1+1e-4 t)", alpha=4e-3, steps=120_000),
    "4b": dict(init="M", d=400, L=10, gamma2=0.5, lam=0.1, lam_text="0.1", alpha=4e-3, steps=20_000),
    "5": dict(init="sphere", d=80, L=10, gamma2=0.5, lam=_sched(2.0), lam_text="2/(1+1e-4 t)", alpha=1e-3, steps=200_000,
              sgd=dict(batch=5, eps=0.1)),
    "7a": dict(init="sphere", d=400, L=10, gamma2=0.5, lam=0.9, lam_text="0.9", alpha=1e-3, steps=120_000),
    "7b": dict(init="sphere", d=400, L=10, gamma2=0.5, lam=0.1, lam_text="0.1", alpha=4e-3, steps=20_000),
}


def run_figure(figure, *, repeats=30, steps=None, seed=0, every=None):
    """Run a figure's setting with the full-dimensional runner (Figure 5: SGD); returns (trajectory, parameters)."""
    if figure not in SETTINGS:
        raise ValueError(f"figure must be one of {sorted(SETTINGS)}, got {figure!r}")
    s = SETTINGS[figure]
    steps = s["steps"] if steps is None else int(steps)
    every = every or max(1, steps // 1000)
    rng = np.random.default_rng(seed)
    k, v, ks, vs = draw_problem(rng, int(repeats), s["d"], s["init"] == "M")
    common = dict(lam=s["lam"], gamma=float(np.sqrt(s["gamma2"])), L=s["L"], alpha=s["alpha"], steps=steps, every=every)
    if "sgd" in s:
        tr = sgd(k, v, ks, vs, seed=seed, **s["sgd"], **common)
    else:
        tr = pgd(k, v, ks, vs, **common)
    params = dict(figure=figure, init=s["init"], d=s["d"], L=s["L"], gamma2=s["gamma2"], lam=s["lam_text"], alpha=s["alpha"],
                  steps=steps, every=every, repeats=int(repeats), seed=seed)
    return tr, params
