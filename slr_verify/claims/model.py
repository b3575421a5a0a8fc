"""Claims as data: what is claimed, the evidence gathered for it, and the verdict it earns.

A :class:`Claim` names a statement (the paper's, or a *finding* of this suite beyond the paper),
its location in the paper, the domain of parameters it covers, and the check that gathers
:class:`Evidence`. Each evidence record says which route produced it and against which
independent reference, the measured figure with its unit, the tolerance and why, the sample
sizes and seeds, and its tier:

* ``proved (symbolic)``         a SymPy identity or sign argument, exact;
* ``proved (ball arithmetic)``  rigorous enclosures;
* ``numeric``                   float or high-precision comparisons, stated digits and tolerance;
* ``statistical``               Monte Carlo or repeated runs: z-scores, rates with intervals.

:func:`verdict` is the one place where a verdict is computed from the evidence:

* ``pending``  no evidence (the check is missing or could not run its routes);
* ``refuted``  some evidence contradicts the statement and carries the counterexample;
* ``fail``     some evidence misses its tolerance, or the check crashed;
* ``pass``     every record meets its tolerance.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Callable

from scipy import stats

from ..model.intervals import clopper_pearson

__all__ = ["TIERS", "VERDICTS", "KINDS", "Claim", "Evidence", "Result", "Context", "verdict", "clopper_pearson",
           "identities", "numeric", "statistical", "rate", "counterexample"]

TIERS = ("proved (symbolic)", "proved (ball arithmetic)", "numeric", "statistical")
VERDICTS = ("pass", "fail", "refuted", "pending")
#: a claim of the paper, or a finding of this suite beyond the paper
KINDS = ("paper", "finding")


@dataclass
class Evidence:
    """One route's evidence. ``figure <= tolerance`` is what 'holds' means (``figure`` is the
    worst error, the worst |z|, the number of identities that failed, ...). A record with a
    ``counterexample`` contradicts the claim's statement."""

    route: str
    reference: str
    tier: str
    figure: float | None
    unit: str
    tolerance: float | None
    why: str
    size: dict = field(default_factory=dict)
    details: dict = field(default_factory=dict)
    counterexample: dict | None = None

    def __post_init__(self):
        if self.tier not in TIERS:
            raise ValueError(f"tier must be one of {TIERS}, got {self.tier!r}")

    @property
    def holds(self) -> bool:
        if self.counterexample is not None:
            return False
        if self.figure is None or self.tolerance is None:
            return False
        f = float(self.figure)
        return not math.isnan(f) and f <= self.tolerance

    def as_dict(self) -> dict:
        return dict(route=self.route, reference=self.reference, tier=self.tier, figure=self.figure, unit=self.unit,
                    tolerance=self.tolerance, why=self.why, holds=self.holds, size=self.size, details=self.details,
                    counterexample=self.counterexample)


def verdict(evidence, error=None) -> str:
    """The verdict the evidence earns (see the module docstring)."""
    if error is not None:
        return "fail"
    if not evidence:
        return "pending"
    if any(e.counterexample is not None for e in evidence):
        return "refuted"
    return "pass" if all(e.holds for e in evidence) else "fail"


class Context:
    """What a check is given: the mode (``fast`` for the tests, ``default``, ``thorough``) and a
    progress reporter for the work inside the check."""

    MODES = ("fast", "default", "thorough")

    def __init__(self, mode="default", progress=None):
        if mode not in self.MODES:
            raise ValueError(f"mode must be one of {self.MODES}, got {mode!r}")
        self.mode = mode
        self._progress = progress

    @property
    def stream(self):
        """Where progress bars of long runs go (None: quiet)."""
        return self._progress

    def pick(self, fast, default, thorough):
        """The value for the current mode."""
        return {"fast": fast, "default": default, "thorough": thorough}[self.mode]

    def steps(self, iterable, desc, total=None):
        """Iterate with a progress bar on the report's stream (none when progress is off)."""
        if self._progress is None:
            return iterable
        from tqdm.auto import tqdm

        return tqdm(iterable, desc=f"  {desc}", total=total, file=self._progress, leave=False, mininterval=0.5)


@dataclass(frozen=True)
class Claim:
    """A statement and how it is checked. ``check(ctx)`` returns a list of :class:`Evidence`."""

    id: str
    where: str        # the paper's numbering, or the suite's for findings
    statement: str
    domain: str       # the parameters the evidence covers
    check: Callable
    kind: str = "paper"
    #: trains models (JAX) or runs long SGD even in fast mode: the default test run leaves it to
    #: the experiment tests and ``tox -e slow``; ``slr-verify check`` always runs it
    heavy: bool = False

    def __post_init__(self):
        if self.kind not in KINDS:
            raise ValueError(f"kind must be one of {KINDS}, got {self.kind!r}")


@dataclass
class Result:
    claim: Claim
    evidence: list
    seconds: float
    error: str | None = None

    @property
    def verdict(self) -> str:
        return verdict(self.evidence, self.error)

    @property
    def tier(self) -> str:
        """The weakest tier among the evidence (what the verdict rests on)."""
        tiers = [e.tier for e in self.evidence]
        return max(tiers, key=TIERS.index) if tiers else "-"

    def worst(self):
        """The evidence record closest to (or beyond) its tolerance."""
        def margin(e):
            if e.counterexample is not None or not e.holds:
                return math.inf
            if not e.tolerance:
                return 0.0
            return float(e.figure) / e.tolerance

        return max(self.evidence, key=margin) if self.evidence else None

    def as_dict(self) -> dict:
        c = self.claim
        return dict(id=c.id, kind=c.kind, where=c.where, statement=c.statement, domain=c.domain, verdict=self.verdict,
                    tier=self.tier, seconds=round(self.seconds, 2), error=self.error,
                    evidence=[e.as_dict() for e in self.evidence])


# --------------------------------------------------------------------------- evidence builders
def identities(route, reference, checks: dict, why="an exact identity holds or it does not", **kw) -> Evidence:
    """Symbolic evidence: ``checks`` maps each identity's name to the bool SymPy returned."""
    failed = [k for k, ok in checks.items() if not bool(ok)]
    return Evidence(route, reference, "proved (symbolic)", float(len(failed)), "identities failing", 0.0, why,
                    size={"identities": len(checks)}, details={"failed": failed, **kw.pop("details", {})}, **kw)


def numeric(route, reference, error, tolerance, why, unit="relative error", **kw) -> Evidence:
    return Evidence(route, reference, "numeric", float(error), unit, float(tolerance), why, **kw)


#: |z| above which a Monte Carlo comparison fails: two-sided false alarm 6.8e-6 per comparison
Z_MAX = 4.5


def statistical(route, reference, z, why=None, zmax=Z_MAX, **kw) -> Evidence:
    why = why or f"|z| <= {zmax}: two-sided false-alarm probability {2 * stats.norm.sf(zmax):.1e} per comparison"
    return Evidence(route, reference, "statistical", float(abs(z)), "|z| (standard errors)", zmax, why, **kw)


def rate(route, reference, k, n, *, minimum, why, **kw) -> Evidence:
    """Statistical evidence on a proportion: holds when the lower end of the 95% Clopper-Pearson
    interval of k/n is at least ``minimum`` (figure: 1 - lower end; tolerance: 1 - minimum)."""
    lo, hi = clopper_pearson(k, n)
    details = {"count": int(k), "runs": int(n), "rate": k / n, "ci95": [lo, hi], **kw.pop("details", {})}
    return Evidence(route, reference, "statistical", 1 - lo, "1 - lower 95% bound of the rate", 1 - minimum, why,
                    details=details, **kw)


def counterexample(route, reference, tier, what: dict, why, **kw) -> Evidence:
    """Evidence that contradicts the claim: ``what`` is the counterexample, reproducible from it."""
    return Evidence(route, reference, tier, None, "counterexample", None, why, counterexample=what, **kw)
