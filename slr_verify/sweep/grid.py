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

from ..model import validation as V
from ..model.params import Params
from ..model.sampling import count_at_least

__all__ = ["AXES", "Grid", "parse_values"]

AXES = ("lam", "d", "L", "gamma2", "alpha")
SCHEDULES = ("constant", "decreasing")


def parse_values(name, text, integer=False):
    """'0.1,0.2' or 'start:stop:num' (linear) or 'start:stop:num:log' -> list of numbers."""
    try:
        if ":" in text:
            parts = text.split(":")
            a, b, n = float(parts[0]), float(parts[1]), int(parts[2])
            log = len(parts) == 4 and parts[3] == "log"
            if len(parts) not in (3, 4) or (len(parts) == 4 and not log):
                raise ValueError
            vals = np.geomspace(a, b, n) if log else np.linspace(a, b, n)
            vals = [float(x) for x in vals]
        else:
            vals = [float(x) for x in text.split(",")]
    except ValueError:
        raise ValueError(f"{name} must be a comma-separated list or start:stop:num[:log], got {text!r}") from None
    if integer:
        if any(x != int(x) for x in vals):
            raise ValueError(f"{name} must be integers, got {text!r}")
        vals = [int(x) for x in vals]
    return vals


@dataclass(frozen=True)
class Grid:
    """The settings crossed (each axis a tuple), ``runs`` per setting, ``steps`` of PGD (lam constant,
    or lam_t = lam/(1 + 1e-4 t) with ``schedule="decreasing"``), then, if ``converge_tol`` > 0,
    constant-lam continuation (at the last lam) until the tangent gradient is below it or
    ``max_steps`` more steps; ``seed`` of the SeedSequence; ``eps`` (risk values only)."""

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
        for lam, d, L, g2 in itertools.product(self.lam, self.d, self.L, self.gamma2):
            if g2 <= 0:
                raise ValueError(f"gamma2 must be > 0, got {g2!r}")
            Params(lam=lam, gamma=float(np.sqrt(g2)), eps=self.eps, d=d, L=L)
            if d < 4:
                raise ValueError(f"d must be >= 4 for sphere-initialised sweeps, got {d!r}")
        for a in self.alpha:
            V.as_finite("alpha", a)
            if not a > 0:
                raise ValueError(f"alpha must be > 0, got {a!r}")
        count_at_least("runs", self.runs, 1)
        count_at_least("steps", self.steps, 1)
        count_at_least("seed", self.seed, 0)
        count_at_least("max_steps", self.max_steps, 0)
        if self.schedule not in SCHEDULES:
            raise ValueError(f"schedule must be one of {SCHEDULES}, got {self.schedule!r}")
        if not (self.converge_tol >= 0):
            raise ValueError(f"converge_tol must be >= 0, got {self.converge_tol!r}")

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
