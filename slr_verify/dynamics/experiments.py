"""The paper's PGD experiments (`docs/MATH.md` §11): run one of the settings of
:data:`slr_verify.model.settings.FIGURES` with the full-dimensional runner (Figure 5: SGD)."""
from __future__ import annotations

import numpy as np

from ..model.sampling import draw_problem
from ..model.settings import FIGURES
from .runners import pgd
from .sgd import sgd

__all__ = ["run_figure"]


def run_figure(figure, *, repeats=30, steps=None, seed=0, every=None, progress=None):
    """Run a figure's setting; returns (trajectory, parameters). ``progress``: a stream for a
    progress bar (None: quiet)."""
    if figure not in FIGURES:
        raise ValueError(f"figure must be one of {sorted(FIGURES)}, got {figure!r}")
    S = FIGURES[figure]
    steps = S.steps if steps is None else int(steps)
    every = every or max(1, steps // 1000)
    k, v, ks, vs = draw_problem(np.random.default_rng(seed), int(repeats), S.d, S.init == "M")
    common = dict(lam=S.lam, gamma=S.gamma, L=S.L, alpha=S.alpha, steps=steps, every=every, progress=progress)
    if S.batch:
        tr = sgd(k, v, ks, vs, seed=seed, batch=S.batch, eps=S.eps, **common)
    else:
        tr = pgd(k, v, ks, vs, **common)
    params = dict(S.describe(), steps=steps, every=every, repeats=int(repeats), seed=seed)
    return tr, params
