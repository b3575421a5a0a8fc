"""Four predictors of single-location regression at one setting, and the split of Corollary 2's gap (`docs/MATH.md` §18).

At (lam, gamma, eps, d, L), every risk is held as the logarithm of its excess over eps^2 (the part that can be
tiny), with a relative standard error (0 where the value is exact):

* ``erf``: the paper's predictor at (k*, v*), R_lam(k*, v*) - eps^2 (Theorem 1's generated kernel, exact);
* ``softmax``: softmax attention at (k*, v*), same lam (:func:`slr_verify.routes.bayes.softmax_excess`);
* ``linear``: the best linear predictor, Proposition 3 (kernel, exact);
* ``bayes``: the Bayes predictor E[Y | X] (:func:`slr_verify.routes.bayes.bayes_excess`).

Corollary 2's gap splits as R_lam(k*, v*) - eps^2 = [R_lam(k*, v*) - R_B] + [R_B - eps^2]: what the erf
predictor loses against the best predictor, and what no predictor can recover.
"""
from __future__ import annotations

import math
from typing import NamedTuple

import numpy as np
from scipy.optimize import minimize_scalar

from ..kernels import api
from ..model import tiers as T
from ..model import validation as V
from ..model.params import Params, accepts_gamma2, keywords_checked, scalars
from ..model.sampling import scalar
from ..model.settings import FIGURES, PAPER_GAMMA
from ..routes.bayes import (
    DEFAULT_N,
    LogMCResult,
    bayes_excess,
    log_chernoff,
    softmax_excess,
)

LAW_NAMES = ("erf", "softmax", "linear", "bayes")


class Comparison(NamedTuple):
    """One setting: per predictor the log excess over eps^2 and its relative error (:class:`LogMCResult`), and
    the two parts of the erf predictor's gap (``erf_loss`` = R_lam(k*, v*) - R_B, ``irreducible`` = R_B - eps^2).
    `docs/MATH.md` §18."""

    lam: float
    gamma: float
    eps: float
    d: int
    L: int
    erf: LogMCResult
    softmax: LogMCResult
    linear: LogMCResult
    bayes: LogMCResult
    erf_loss: LogMCResult
    irreducible: LogMCResult

    @property
    def tiers(self) -> dict:
        """Per predictor, what its number rests on (`slr_verify.model.tiers`): the closed forms are exact kernels,
        the Monte Carlo estimates statistical (their ``relative_error`` gives the interval)."""
        return {name: T.STATISTICAL if getattr(self, name).relative_error > 0 else f"{T.NUMERIC}: closed form"
                for name in LAW_NAMES}

    def row(self) -> dict:
        """log10 of each excess and its relative error, for tables."""
        out = {"lam": self.lam, "gamma2": self.gamma**2, "eps": self.eps, "d": self.d, "L": self.L}
        for name in LAW_NAMES + ("erf_loss", "irreducible"):
            r = getattr(self, name)
            out[f"log10_{name}"] = r.log_estimate / math.log(10)
            out[f"rel_{name}"] = r.relative_error
        return out


def _difference(big: LogMCResult, small: LogMCResult) -> LogMCResult:
    """log(b - s) for b > s > 0 held as logs, relative error from both (independent) errors."""
    r = math.exp(small.log_estimate - big.log_estimate)
    if not r < 1.0:
        raise ValueError("the Bayes excess is not below the erf predictor's: increase n")
    rel = math.hypot(big.relative_error, r * small.relative_error) / (1.0 - r)
    return LogMCResult(big.log_estimate + math.log1p(-r), rel)


@accepts_gamma2
def compare_predictors(*, lam, gamma, eps=0.0, d, L, n=DEFAULT_N, seed=0) -> Comparison:
    """The four predictors at one setting (module docstring), the Monte Carlo ones with n samples (seeded).
    `docs/MATH.md` §18."""
    p = Params(lam, gamma, eps, d, L)  # lam and the model's setting, one validated value
    lam, gamma, eps, d, L = p.lam, p.gamma, p.eps, p.d, p.L
    seed = V.integer("seed", seed, 0)
    erf = LogMCResult(float(api.log_bayes_gap(lam=lam, gamma=gamma, eps=eps, d=d, L=L)), 0.0)
    lin = float(api.linear_risk(gamma=gamma, eps=0.0, L=L))
    linear = LogMCResult(math.log(lin) if lin > 0 else -math.inf, 0.0)
    soft = softmax_excess(lam=lam, gamma=gamma, d=d, L=L, n=n, seed=seed)
    bay = bayes_excess(gamma=gamma, d=d, L=L, n=n, seed=seed)
    loss = erf if bay.log_estimate == -math.inf else _difference(erf, bay)
    return Comparison(lam, gamma, eps, d, L, erf, soft, linear, bay, loss, bay)


@accepts_gamma2
def corollary2_path(*, a, gamma, L, ds, eps=0.0, n=DEFAULT_N, seed=0, progress=False) -> list[Comparison]:
    """:func:`compare_predictors` along Corollary 2's path lam = d^-a (0 < a < 1/2), L fixed, for each d in ``ds``."""
    a = scalar(V.positive, "a", a)
    if not a < 0.5:
        raise ValueError(f"a must be in (0, 1/2) (Corollary 2: lam sqrt(d) -> oo), got {a!r}")
    it = ds
    if progress:
        from tqdm.auto import tqdm

        it = tqdm(ds, desc=f"lam = d^-{a:g}")
    return [compare_predictors(lam=float(d) ** -a, gamma=gamma, eps=eps, d=int(d), L=L, n=n, seed=seed + i)
            for i, d in enumerate(it)]


@accepts_gamma2
def bayes_rate(gamma) -> float:
    """The exponential rate of R_B - eps^2 in d: -log(R_B - eps^2)/d -> 1/(4(1 + gamma^2)) + log((1 + gamma^2)/(2 gamma))
    (twice the per-token Bhattacharyya distance; the pair estimator's expectation is only polynomial in d).
    `docs/MATH.md` §18."""
    (gamma,) = scalars(gamma=gamma)
    return -2.0 * log_chernoff(gamma, 1.0)


class BestLam(NamedTuple):
    """A minimising lam with its standard error (0 for an exact objective) and the log excess at it."""

    lam: float
    standard_error: float
    excess: LogMCResult


@accepts_gamma2
def erf_best_lam(*, gamma, d, L, bounds=(1e-4, 50.0)) -> BestLam:
    """argmin over lam of R_lam(k*, v*) (Theorem 1's kernel, exact): a log-spaced grid, then Brent's method on
    log lam to xtol 1e-10 in the neighbouring bracket. ``standard_error`` is 0 (deterministic objective)."""
    (gamma,) = scalars(gamma=gamma)

    def f(t):
        return float(api.log_bayes_gap(lam=math.exp(t), gamma=gamma, eps=0.0, d=d, L=L))

    t, val = _grid_brent(f, bounds)
    return BestLam(math.exp(t), 0.0, LogMCResult(val, 0.0))


def _grid_brent(f, bounds, points=41):
    ts = np.linspace(math.log(bounds[0]), math.log(bounds[1]), points)
    vals = [f(t) for t in ts]
    i = int(np.argmin(vals))
    lo, hi = ts[max(i - 1, 0)], ts[min(i + 1, points - 1)]
    res = minimize_scalar(f, bounds=(lo, hi), method="bounded", options={"xatol": 1e-10})
    return (res.x, res.fun) if res.fun <= vals[i] else (ts[i], vals[i])


@accepts_gamma2
def softmax_best_lam(*, gamma, d, L, n=1 << 15, seed=0, batches=8, bounds=None) -> BestLam:
    """argmin over lam of softmax attention's risk at (k*, v*), with its uncertainty.

    Each of ``batches`` independent batches (n samples each, common random numbers across lam inside a batch, so
    the objective is a smooth function of lam) is minimised (grid + Brent on log lam); the reported lam is the
    mean of the batch minimisers and its standard error their standard deviation / sqrt(batches). The excess at
    that lam is re-estimated on fresh samples (batches x n), so it carries no selection bias.
    `docs/MATH.md` §18.
    """
    gamma, d = scalars(gamma=gamma, d=d)
    batches = V.integer("batches", batches, 2, 10_000, floats=True, why="independent minimisations, each of n samples")
    seed = V.integer("seed", seed, 0)
    mu = math.sqrt(d / 2.0)
    bounds = bounds or (1e-2, 4.0 * mu / min(gamma * gamma, 1.0))
    lams = []
    for b in range(batches):
        def f(t, b=b):
            return softmax_excess(lam=math.exp(t), gamma=gamma, d=d, L=L, n=n, seed=seed * 1000 + b).log_estimate

        lams.append(math.exp(_grid_brent(f, bounds, points=17)[0]))
    lam = float(np.mean(lams))
    se = float(np.std(lams, ddof=1) / math.sqrt(batches))
    return BestLam(lam, se, softmax_excess(lam=lam, gamma=gamma, d=d, L=L, n=n * batches, seed=seed * 1000 + batches))


#: the paper's figures whose settings are compared (`docs/MATH.md` §11)
PAPER_FIGURES = ("4a", "4b", "5", "7a", "7b")


@keywords_checked
def paper_settings(*, n=DEFAULT_N, seed=0, figures=PAPER_FIGURES) -> dict:
    """:func:`compare_predictors` at each figure's setting (``model.settings.FIGURES``), lam at the end of the
    figure's schedule (Figures 4a and 5 decrease lam), keyed by figure."""
    out = {}
    for fig in figures:
        S = FIGURES[fig]
        out[fig] = compare_predictors(lam=S.lam_at(S.steps), gamma=S.gamma, eps=S.eps, d=S.d, L=S.L, n=n, seed=seed)
    return out


@keywords_checked
def paper_record(*, n=1 << 20, seed=11, best_n=1 << 14, best_batches=8, dims=(80, 400)) -> dict:
    """A JSON-able record of :func:`paper_settings` (log10 of each excess over eps^2 and its relative standard error)
    and of each tunable predictor at its best lam at gamma^2 = 1/2, L = 10 and the given dimensions."""
    from ..routes.bayes import log_bayes_excess_bound

    ln10 = math.log(10)
    rec = {"samples": n, "seed": seed, "figures": {}, "best_lam": {}, "bayes_rate_c": {}}
    for fig, c in paper_settings(n=n, seed=seed).items():
        row = c.row()
        row["log10_bayes_bound"] = log_bayes_excess_bound(gamma=c.gamma, d=c.d, L=c.L) / ln10
        rec["figures"][fig] = row
    g = PAPER_GAMMA
    for d in dims:
        e = erf_best_lam(gamma=g, d=d, L=10)
        s = softmax_best_lam(gamma=g, d=d, L=10, n=best_n, batches=best_batches, seed=d)
        rec["best_lam"][str(d)] = {
            "erf": {"lam": e.lam, "log10_excess": e.excess.log_estimate / ln10},
            "softmax": {"lam": s.lam, "lam_se": s.standard_error, "log10_excess": s.excess.log_estimate / ln10,
                        "relative_se": s.excess.relative_error, "batches": best_batches, "samples_per_batch": best_n},
        }
    rec["bayes_rate_c"] = {"gamma2=1/2": bayes_rate(g), "gamma=1": bayes_rate(1.0)}
    return rec
