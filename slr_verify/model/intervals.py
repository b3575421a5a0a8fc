"""Confidence intervals for counts over random runs (every rate the suite reports comes with one)."""
from __future__ import annotations

from scipy.special import betaincinv  # the beta distribution's quantile (scipy.stats costs ~1 s to import)

from .params import keywords_checked


@keywords_checked
def clopper_pearson(k, n, level=0.95):
    """Exact (Clopper-Pearson) two-sided confidence interval for a binomial proportion k/n.
    The statistical tier, `docs/MATH.md` §14."""
    if not (0 <= k <= n and n >= 1):
        raise ValueError(f"k, n must satisfy 0 <= k <= n, n >= 1, got k={k!r}, n={n!r}")
    a = 1 - level
    lo = 0.0 if k == 0 else float(betaincinv(k, n - k + 1, a / 2))
    hi = 1.0 if k == n else float(betaincinv(k + 1, n - k, 1 - a / 2))
    return lo, hi
