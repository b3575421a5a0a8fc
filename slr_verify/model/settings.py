"""The paper's experiment settings (Section 5 and Appendix E; `docs/MATH.md` §11), defined once.

Each :class:`Setting` carries the initialisation (``"sphere"`` or ``"M"``), the model's setting (a
:class:`~.params.ModelSetting`: gamma^2, eps, d, L), the inverse-temperature schedule (constant, or
lam_t = lam0 / (1 + 1e-4 t)), the step size alpha, the number of steps and repetitions, and for Figure 5 the SGD batch.
The paper's model settings are named instances: :data:`FIGURE_4B` (gamma^2 = 1/2, eps = 0, d = 400, L = 10; also
Figures 4a, 7a, 7b) and :data:`FIGURE_5` (gamma^2 = 1/2, eps = 0.1, d = 80, L = 10).
"""
from __future__ import annotations

from dataclasses import dataclass

from .params import ModelSetting, Params

#: gamma^2 = 1/2, the relevant token's variance in every experiment of the paper (Section 5, Appendix E)
PAPER_GAMMA2 = 0.5
#: Figure 4b's model (Section 5; Figures 4a, 7a and 7b share it): gamma^2 = 1/2, eps = 0, d = 400, L = 10
FIGURE_4B = ModelSetting(gamma2=PAPER_GAMMA2, eps=0.0, d=400, L=10)
#: Figure 5's model (Appendix E): gamma^2 = 1/2, eps = 0.1, d = 80, L = 10
FIGURE_5 = ModelSetting(gamma2=PAPER_GAMMA2, eps=0.1, d=80, L=10)
#: gamma = sqrt(1/2), as a float 0.7071067811865476
PAPER_GAMMA = FIGURE_4B.gamma

#: the decay rate of the paper's schedule lam_t = lam0 / (1 + DECAY t)
DECAY = 1e-4


class decreasing:
    """lam_t = lam0 / (1 + 1e-4 t), the schedule of Figures 4a and 5 (a picklable callable); with
    ``until``, lam_t stays at its value at t = until afterwards (Figure 9: until = 25k)."""

    def __init__(self, lam0, until=None):
        self.lam0 = float(lam0)
        self.until = None if until is None else int(until)

    def __call__(self, t):
        if self.until is not None:
            t = min(t, self.until)
        return self.lam0 / (1.0 + DECAY * t)

    def __repr__(self):
        t = "t" if self.until is None else f"min(t, {self.until})"
        return f"{self.lam0:g}/(1+1e-4 {t})"


@dataclass(frozen=True)
class Setting:
    """One experiment of the paper (Section 5, Appendix E; `docs/MATH.md` §11): runs of PGD (or SGD on batches of
    ``batch`` samples) from random (k*, v*, k0, v0), initialised on the sphere or on M, in dimension ``d`` with ``L``
    tokens, gamma^2 = ``gamma2``, label noise ``eps``, step ``alpha`` for ``steps`` steps; lam constant or decreasing
    from ``lam0`` (lam_t = lam0 / (1 + 1e-4 t)). The figures' settings are :data:`FIGURES`."""

    figure: str
    init: str          # "sphere" or "M"
    model: ModelSetting
    lam0: float
    schedule: str      # "constant" or "decreasing"
    alpha: float
    steps: int
    runs: int = 30
    batch: int | None = None  # SGD on sampled batches (Figure 5)

    def __post_init__(self):
        if not isinstance(self.model, ModelSetting):
            raise ValueError(f"model must be a ModelSetting, got {self.model!r}")

    gamma = property(lambda self: self.model.gamma, doc="the model's gamma")
    gamma2 = property(lambda self: self.model.gamma2, doc="the model's gamma^2")
    eps = property(lambda self: self.model.eps, doc="the model's eps")
    d = property(lambda self: self.model.d, doc="the model's d")
    L = property(lambda self: self.model.L, doc="the model's L")

    @property
    def lam(self):
        """A number (constant lam) or a callable t -> lam_t."""
        return self.lam0 if self.schedule == "constant" else decreasing(self.lam0)

    @property
    def lam_text(self) -> str:
        return f"{self.lam0:g}" if self.schedule == "constant" else repr(decreasing(self.lam0))

    def lam_at(self, t) -> float:
        return self.lam0 if self.schedule == "constant" else decreasing(self.lam0)(t)

    def params(self, t=0) -> Params:
        """The model parameters at step t (lam = lam_t)."""
        return self.model.at(self.lam_at(t))

    @property
    def model_text(self) -> str:
        """The model's parameters as text: ``gamma^2 = 1/2, d = 400, L = 10`` (eps when nonzero)."""
        g2 = "1/2" if self.gamma2 == 0.5 else f"{self.gamma2:g}"
        eps = f", eps = {self.eps:g}" if self.eps else ""
        return f"gamma^2 = {g2}{eps}, d = {self.d}, L = {self.L}"

    @property
    def text(self) -> str:
        """The whole setting as text, for the domains of the claims (never retyped by hand)."""
        batch = f", SGD batch {self.batch}" if self.batch else ""
        return (f"Figure {self.figure}: {self.model_text}, lam = {self.lam_text}, alpha = {self.alpha:g}{batch}, "
                f"{_count(self.steps)} steps, {self.init} init")

    def describe(self) -> dict:
        return dict(figure=self.figure, init=self.init, d=self.d, L=self.L, gamma2=self.gamma2, lam=self.lam_text,
                    alpha=self.alpha, steps=self.steps, runs=self.runs, eps=self.eps, batch=self.batch)


def _count(n) -> str:
    """120000 -> '120k'."""
    return f"{n // 1000}k" if n >= 1000 and n % 1000 == 0 else str(n)


#: Section 5 and Appendix E: 30 repetitions each, k*, v*, k0, v0 drawn at random.
FIGURES = {
    "4a": Setting("4a", "sphere", FIGURE_4B, 1.0, "decreasing", 4e-3, 120_000),
    "4b": Setting("4b", "M", FIGURE_4B, 0.1, "constant", 4e-3, 20_000),
    "5": Setting("5", "sphere", FIGURE_5, 2.0, "decreasing", 1e-3, 200_000, batch=5),
    "7a": Setting("7a", "sphere", FIGURE_4B, 0.9, "constant", 1e-3, 120_000),
    "7b": Setting("7b", "sphere", FIGURE_4B, 0.1, "constant", 4e-3, 20_000),
}
