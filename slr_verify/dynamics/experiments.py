"""The paper's PGD experiments (`docs/MATH.md` §11): run one of the settings of
:data:`slr_verify.model.settings.FIGURES` with the full-dimensional runner (Figure 5: SGD)."""
from __future__ import annotations

import numpy as np

from ..model import budgets as B
from ..model import validation as V
from ..model.params import keywords_checked
from ..model.sampling import draw_problem
from ..model.settings import FIGURES
from .runners import pgd
from .sgd import sgd
from .trajectory import SECONDS_PER_RUN_STEP, check_cost


@keywords_checked
def run_figure(figure, *, repeats=30, steps=None, seed=0, every=None, progress=None):
    """Run a figure's setting; returns (trajectory, parameters). ``progress``: a stream for a
    progress bar (None: quiet)."""
    V.choice("figure", figure, tuple(sorted(FIGURES)))
    return run_setting(FIGURES[figure], repeats=repeats, steps=steps, seed=seed, every=every, progress=progress)


@keywords_checked
def run_setting(S, *, repeats=30, steps=None, seed=0, every=None, progress=None):
    """Run a :class:`~slr_verify.model.settings.Setting` (a figure's, or one of the user's); returns (trajectory,
    parameters)."""
    S, repeats, steps, every = check_setting(S, repeats=repeats, steps=steps, seed=seed, every=every)
    k, v, ks, vs = draw_problem(np.random.default_rng(seed), repeats, S.d, S.init == "M")
    common = dict(lam=S.lam, gamma=S.gamma, L=S.L, alpha=S.alpha, steps=steps, every=every, progress=progress)
    if S.batch:
        tr = sgd(k, v, ks, vs, seed=seed, batch=S.batch, eps=S.eps, **common)
    else:
        tr = pgd(k, v, ks, vs, **common)
    params = dict(S.describe(), steps=steps, every=every, repeats=int(repeats), seed=seed)
    return tr, params


@keywords_checked
def check_figure(figure, *, repeats=30, steps=None, seed=0, every=None):
    """Validate :func:`run_figure`'s arguments and estimate its memory and time (``ValueError``
    with the figure when it would not fit); returns (setting, repeats, steps, every)."""
    V.choice("figure", figure, tuple(sorted(FIGURES)))
    return check_setting(FIGURES[figure], repeats=repeats, steps=steps, seed=seed, every=every)


@keywords_checked
def check_setting(S, *, repeats=30, steps=None, seed=0, every=None):
    """:func:`check_figure` for any :class:`~slr_verify.model.settings.Setting`."""
    repeats = V.integer("repeats", repeats, 1)
    steps = S.steps if steps is None else V.integer("steps", steps, 1)
    every = max(1, steps // 1000) if every is None else V.integer("every", every, 1)
    V.integer("seed", seed, 0)
    # one run's steps first (what steps alone would cost is refused naming steps), then the repetitions: the vectors
    # (4 x repeats x d), the iterate and the update buffers, and the records; before any allocation
    check_cost(steps, every, repeats, per_run_step=SECONDS_PER_RUN_STEP * S.d * (S.batch or 1) * (S.L if S.batch else 1),
               runs_name="repeats")
    B.memory_budget("repeats", 8.0 * repeats * S.d * 8 + 8.0 * 6 * (steps // every + 2) * repeats,
                    f"{repeats:,} repetitions in d = {S.d}")
    return S, repeats, steps, every
