"""A sweep's grid: the settings (lam, d, L, gamma^2, alpha) crossed, the runs per setting, the
seeds (`docs/MATH.md` §13).

Grid point i (flattened, C order over the axes ``AXES``) draws its initial overlaps from
``SeedSequence(seed, spawn_key=(i,))``: its result depends on the grid point only, never on the
chunking, the scheduler or the number of workers.
"""
from __future__ import annotations

import itertools
import json
from dataclasses import asdict, dataclass

import numpy as np

from ..dynamics.trajectory import check_cost, check_run_args
from ..model import validation as V
from ..model.cli_args import parse_values  # noqa: F401  (its home is the model layer; the sweep's name for it)
from ..model.params import ModelSetting

AXES = ("lam", "d", "L", "gamma2", "alpha")
SCHEDULES = ("constant", "decreasing")


@dataclass(frozen=True)
class Grid:
    """The settings crossed (each axis a tuple), ``runs`` per setting, ``steps`` of PGD (lam constant,
    or lam_t = lam/(1 + 1e-4 t) with ``schedule="decreasing"``), then, if ``converge_tol`` > 0,
    constant-lam continuation (at the last lam) until the tangent gradient is below it or
    ``max_steps`` more steps; ``seed`` of the SeedSequence; ``eps`` (risk values only). `docs/MATH.md` §13."""

    lam: tuple
    d: tuple
    L: tuple
    gamma2: tuple
    alpha: tuple
    runs: int
    steps: int
    seed: int = 0
    schedule: str = "constant"
    eps: float = 0.0
    converge_tol: float = 0.0
    max_steps: int = 0

    def __post_init__(self):
        for ax in AXES:
            vals = tuple(getattr(self, ax))
            if not vals:
                raise ValueError(f"{ax} must have at least one value")
            object.__setattr__(self, ax, vals)
        # every value is checked by the runner's own checks (the same ranges as overlap_pgd), before
        # anything is created or computed
        for name in ("lam", "gamma2", "alpha"):
            for x in getattr(self, name):
                V.real(name, x, minimum=0.0, strict_min=True)
        V.real("eps", self.eps, minimum=0.0)
        V.integer("runs", self.runs, 1)
        V.integer("steps", self.steps, 1)
        V.integer("seed", self.seed, 0)
        V.integer("max_steps", self.max_steps, 0)
        V.real("converge_tol", self.converge_tol, minimum=0.0)
        V.choice("schedule", self.schedule, SCHEDULES)
        for lam, d, L, g2, a in itertools.product(*(getattr(self, ax) for ax in AXES)):
            model = ModelSetting(gamma2=g2, eps=self.eps, d=d, L=L).require_d("sphere-sweep")
            model.at(lam)
            check_run_args(a, self.steps, self.steps, model.gamma, L, d=d, eps=self.eps)
        if (self.converge_tol > 0) != (self.max_steps > 0):
            raise ValueError("converge_tol and max_steps go together: the continuation runs at most max_steps steps "
                             f"until the tangent gradient is below converge_tol; got converge_tol={self.converge_tol!r}, "
                             f"max_steps={self.max_steps!r}")
        check_cost(self.steps + self.max_steps, self.steps, self.size * self.runs, runs_name="runs")

    @property
    def shape(self):
        return tuple(len(getattr(self, ax)) for ax in AXES)

    @property
    def size(self):
        return int(np.prod(self.shape))

    def point(self, i):
        """The settings of flattened grid point i (dict over ``AXES``)."""
        idx = np.unravel_index(int(i), self.shape)
        return {ax: getattr(self, ax)[j] for ax, j in zip(AXES, idx)}

    def seed_sequence(self, i):
        return np.random.SeedSequence(self.seed, spawn_key=(int(i),))

    def to_json(self):
        return json.dumps(asdict(self), sort_keys=True)

    @classmethod
    def from_json(cls, text):
        return cls(**json.loads(text))
