"""Evidence as data: the records a check returns, the declared vocabulary that builds them, and
the verdict they earn.

A check never builds an :class:`Evidence` record by hand: it declares what it compared, in one of
the forms below (as SciPy's ``MpmathData`` declares a comparison), and the form computes the
figure, the tolerance and the tier:

* :func:`Identities`      SymPy identities or sign arguments            ``proved (symbolic)``
* :func:`Proof`           a computer-assisted proof on arb balls         ``proved (ball arithmetic)``
* :func:`Replayed`        certificates accepted by the independent checker ``proved (ball arithmetic)``
* :func:`Cited`           replayed certificates and theorems of the literature ``proved (ball arithmetic) with cited theorems``
* :class:`Agreement`      a fast function against a reference on points  ``numeric``
* :func:`Measured`        a numeric figure against a stated tolerance    ``numeric``
* :func:`MonteCarlo`      estimates against exact values, in |z|         ``statistical``
* :func:`Rate`            a proportion, with its 95% Clopper-Pearson interval ``statistical``
* :func:`EveryRun`        a per-run statement checked on every run       ``statistical``
* :func:`Counterexample`  a reproducible point that contradicts the statement

Every form takes ``corroborates=True`` for evidence that supports the statement without being
what establishes it: a claim's displayed tier is the weakest tier among the records that
*establish* it (see :attr:`slr_verify.claims.base.Result.tier`).

:func:`verdict` is the one place where a verdict is computed:

* ``pending``  no evidence (the check is missing or could not run its routes);
* ``refuted``  some record carries a counterexample to the statement;
* ``fail``     some record misses its tolerance, or the check crashed;
* ``pass``     every record meets its tolerance.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Callable, Iterable

from scipy import stats

from ..model import tiers as T
from ..model.intervals import clopper_pearson
from ..model.params import keywords_checked

TIERS = T.TIERS
#: ``not run``: the claim needs an optional extra that is not installed (never a failure)
VERDICTS = ("pass", "fail", "refuted", "pending", "not run")
#: |z| above which a Monte Carlo comparison fails: two-sided false alarm 6.8e-6 per comparison
Z_MAX = 4.5


@dataclass
class Evidence:
    """One route's evidence. ``figure <= tolerance`` is what 'holds' means (``figure`` is the
    worst error, the worst |z|, the number of identities that failed, ...). A record with a
    ``counterexample`` contradicts the claim's statement. ``corroborates``: the record supports
    the statement but is not what establishes it."""

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
    corroborates: bool = False

    def __post_init__(self):
        if self.tier not in TIERS:
            raise ValueError(f"tier must be one of {TIERS}, got {self.tier!r}")

    @property
    def holds(self) -> bool:
        if self.counterexample is not None or self.figure is None or self.tolerance is None:
            return False
        f = float(self.figure)
        return not math.isnan(f) and f <= self.tolerance

    @property
    def role(self) -> str:
        return "corroborates" if self.corroborates else "establishes"

    def as_dict(self) -> dict:
        return dict(
            route=self.route,
            reference=self.reference,
            tier=self.tier,
            role=self.role,
            figure=self.figure,
            unit=self.unit,
            tolerance=self.tolerance,
            why=self.why,
            holds=self.holds,
            size=self.size,
            details=self.details,
            counterexample=self.counterexample,
        )


@keywords_checked
def verdict(evidence, error=None) -> str:
    """The verdict the evidence earns (see the module docstring)."""
    if error is not None:
        return "fail"
    if not evidence:
        return "pending"
    if any(e.counterexample is not None for e in evidence):
        return "refuted"
    return "pass" if all(e.holds for e in evidence) else "fail"


# --------------------------------------------------------------------------- the vocabulary
def Identities(route, reference, checks: dict, *, why="an exact identity holds or it does not", **kw) -> Evidence:
    """SymPy identities: ``checks`` maps each identity's name to the bool SymPy returned."""
    failed = [k for k, ok in checks.items() if not bool(ok)]
    details = {"failed": failed, **kw.pop("details", {})}
    return Evidence(
        route,
        reference,
        T.SYMBOLIC,
        float(len(failed)),
        "identities failing",
        0.0,
        why,
        size={"identities": len(checks), **kw.pop("size", {})},
        details=details,
        **kw,
    )


def _proved(certificate) -> bool:
    if isinstance(certificate, bool):
        raise ValueError("certificate must be a search's outcome (a dict with 'proved', or an object with .proved), not "
                         "a bare bool: an arb computation with no certificate is an Enclosure")
    if isinstance(certificate, dict):
        return bool(certificate["proved"])
    return bool(certificate.proved)


def _ball(route, reference, ok, tier, why, details, **kw) -> Evidence:
    return Evidence(route, reference, tier, 0.0 if ok else 1.0, "certification failures", 0.0, why, details=details, **kw)


def Proof(route, reference, certificate, *, why="a computer-assisted proof closes or it does not", **kw) -> Evidence:
    """A computer-assisted proof: ``certificate`` is a dict with ``proved``, or an object with ``.proved`` (the outcomes
    of :mod:`slr_verify.certify`, whose certificates the independent checker has replayed); a bare bool is refused (see
    :func:`Enclosure`)."""
    ok = _proved(certificate)
    details = dict(kw.pop("details", {}))
    if isinstance(certificate, dict):
        details.update({k: v for k, v in certificate.items() if k not in ("proved",)})
    return _ball(route, reference, ok, T.BALL, why, details, **kw)


def Enclosure(route, reference, ok: bool, *, why="an enclosure excludes or it does not", **kw) -> Evidence:
    """An enclosure or inequality computed on arb balls in this process (``ok``: whether it holds) with no certificate
    for the checker: tier ``enclosed (ball arithmetic, no certificate)``, below the replayed proofs."""
    if not isinstance(ok, bool):
        raise ValueError(f"ok must be True or False, got {ok!r}")
    return _ball(route, reference, ok, T.ENCLOSED, why, dict(kw.pop("details", {})), **kw)


def Replayed(route, reference, replays, *, binding, holds=True, why="the independent checker replays every leaf of "
             "the certificate in arb and derives the conclusion itself (docs/certificates.md)", **kw) -> Evidence:
    """Certificates replayed by :func:`slr_verify.certify.replay` (``replays``: its results), each bound to the claim's
    statement (``binding``: one :func:`slr_verify.checker.binding.proves` per replay, in order): proved when every one
    is accepted and binds, and ``holds`` (what the claim reads off their conclusions) is True. A certificate that does
    not bind (another setting, kind or domain than the claim's) fails the record as a rejected one does."""
    binding = list(binding)
    if len(binding) != len(replays):
        raise ValueError(f"binding must give one (bound, reason) per replay: {len(binding)} for {len(replays)}")
    details = dict(kw.pop("details", {}))
    details["certificates"] = [{"file": r.values.get("file"), "accepted": r.accepted, "reason": r.reason,
                                "conclusion": r.conclusion, "leaves": r.leaves, "seconds": round(r.seconds, 2),
                                "binds": bool(b[0]), "binding": b[1]}
                               for r, b in zip(replays, binding)]
    size = dict(kw.pop("size", {}))
    size.update({"certificates": len(replays), "leaves": sum(r.leaves for r in replays)})
    ok = bool(replays) and all(r.accepted for r in replays) and all(b[0] for b in binding) and bool(holds)
    return _ball(route, reference, ok, T.BALL, why, details, size=size, **kw)


def Cited(theorems, route, reference, replays, *, binding, holds=True, **kw) -> Evidence:
    """A conclusion drawn from certificates (as :func:`Replayed`) through ``theorems`` of the literature (a list of
    references, e.g. "Shub 1987, Thm III.7"), which the suite cites and does not check: tier ``proved (ball
    arithmetic) with cited theorems``."""
    theorems = list(theorems)
    if not theorems or not all(isinstance(t, str) and t for t in theorems):
        raise ValueError(f"theorems must name at least one cited theorem, got {theorems!r}")
    details = dict(kw.pop("details", {}), cited=theorems)
    ev = Replayed(f"{route}; cited: {'; '.join(theorems)}", reference, replays, binding=binding, holds=holds,
                  details=details, **kw)
    ev.tier = T.CITED
    return ev


def claim_setting(s, **over) -> dict:
    """The setting a claim states, for :func:`slr_verify.checker.binding.proves`: gamma^2 as the exact real
    (``Fraction``) of its float (gamma^2 = 1/2 exactly at the paper's settings), eps (a float: equal exactly), d, L;
    ``over`` replaces some (``eps=0.0`` where the claim reduces its setting to eps = 0). ``s``: a
    :class:`~.base.ClaimSetting` or a figure's :class:`~slr_verify.model.settings.Setting`."""
    return {"gamma2": Fraction(s.gamma2), "eps": float(s.eps), "d": int(s.d), "L": int(s.L), **over}


def _relative(a, b):
    a, b = float(a), float(b)
    return abs(a - b) / abs(b) if b else abs(a)


@dataclass
class Agreement:
    """A declared comparison: ``fast(*p)`` against ``reference(*p)`` at every point ``p`` (a tuple
    of positional arguments, or a dict of keywords), worst error against ``rtol``.

    ``error``: ``"relative"`` (|f - r| / |r|) or ``"absolute"`` (|f - r|). Call :meth:`evidence`
    to evaluate it (or pass ``measured=`` when the comparison was made elsewhere)."""

    route: str
    reference_name: str
    fast: Callable | None
    reference: Callable | None
    points: Iterable
    rtol: float
    why: str
    error: str = "relative"
    corroborates: bool = False
    size: dict = field(default_factory=dict)
    details: dict = field(default_factory=dict)

    def _err(self, p):
        args, kw = ((), p) if isinstance(p, dict) else (tuple(p), {})
        f, r = self.fast(*args, **kw), self.reference(*args, **kw)
        err = _relative(f, r) if self.error == "relative" else abs(float(f) - float(r))
        return err if math.isfinite(err) else math.inf  # a non-finite value never agrees

    def evidence(self, progress=lambda it: it) -> Evidence:
        pts = list(self.points)
        worst = max((self._err(p) for p in progress(pts)), default=float("nan"))
        unit = "relative error" if self.error == "relative" else "absolute error"
        return Evidence(
            self.route,
            self.reference_name,
            T.NUMERIC,
            worst,
            unit,
            float(self.rtol),
            self.why,
            size={"points": len(pts), **self.size},
            details=self.details,
            corroborates=self.corroborates,
        )


def Measured(route, reference, figure, tolerance, why, *, unit="relative error", **kw) -> Evidence:
    """A numeric figure (an error, a count of violations, a shortfall) against a stated tolerance."""
    return Evidence(route, reference, T.NUMERIC, float(figure), unit, float(tolerance), why, **kw)


def MonteCarlo(route, reference, comparisons, *, zmax=Z_MAX, why=None, **kw) -> Evidence:
    """Monte Carlo estimates against exact values: ``comparisons`` is a list of
    ``(estimate, standard_error, exact)``; the figure is the worst |z|."""
    comparisons = list(comparisons)
    z = max(abs(est - exact) / se for est, se, exact in comparisons)
    why = why or f"|z| <= {zmax}: two-sided false-alarm probability {2 * stats.norm.sf(zmax):.1e} per comparison"
    size = {"comparisons": len(comparisons), **kw.pop("size", {})}
    return Evidence(route, reference, T.STATISTICAL, float(z), "|z| (standard errors)", zmax, why, size=size, **kw)


def Rate(route, reference, successes, trials, *, minimum, why, **kw) -> Evidence:
    """A proportion: holds when the lower end of the 95% Clopper-Pearson interval of
    successes/trials is at least ``minimum`` (figure: 1 - lower end; tolerance: 1 - minimum)."""
    lo, hi = clopper_pearson(int(successes), int(trials))
    details = {
        "count": int(successes),
        "runs": int(trials),
        "rate": successes / trials,
        "ci95": [lo, hi],
        **kw.pop("details", {}),
    }
    return Evidence(
        route, reference, T.STATISTICAL, 1 - lo, "1 - lower 95% bound of the rate", 1 - minimum, why, details=details, **kw
    )


def EveryRun(route, reference, ok, *, why, **kw) -> Evidence:
    """A per-run statement checked on every run: the figure is the number of runs that break it
    (tolerance 0); the rate of runs holding and its 95% interval are in the details."""
    import numpy as np

    ok = np.asarray(ok, bool).ravel()
    lo, hi = clopper_pearson(int(ok.sum()), ok.size)
    details = {
        "runs": int(ok.size),
        "holding": int(ok.sum()),
        "rate": float(ok.mean()),
        "ci95": [lo, hi],
        **kw.pop("details", {}),
    }
    return Evidence(route, reference, T.STATISTICAL, float((~ok).sum()), "runs breaking it", 0.0, why, details=details, **kw)


def Counterexample(route, reference, tier, what: dict, *, why, **kw) -> Evidence:
    """A reproducible point that contradicts the statement (``what`` says how to rebuild it)."""
    return Evidence(route, reference, tier, None, "counterexample", None, why, counterexample=what, **kw)
