"""The chunked Monte Carlo driver shared by the simulation routes (:mod:`.montecarlo`, :mod:`.bayes`,
:mod:`~slr_verify.routes.multilocation`, named in full: the model has a ``multilocation`` too; `docs/MATH.md` §1):
samples drawn in fixed blocks from their own seeded streams, held in memory in chunks sized from a budget, block
statistics merged in block order (Chan's update), so that the estimate and its standard error are bit-for-bit
independent of the memory budget."""
from __future__ import annotations

import math
from typing import Callable, NamedTuple

import numpy as np

from slr_verify.model import validation as V
from slr_verify.model.sampling import BLOCK
from slr_verify.model.sampling import generators as _generators

from ..model.params import keywords_checked

#: Default memory budget for one chunk, in bytes (1 GiB).
DEFAULT_MEMORY = 1 << 30


class MCResult(NamedTuple):
    """A Monte Carlo estimate and its standard error (std of per-sample values / sqrt(n))."""

    estimate: float
    standard_error: float


@keywords_checked
def check_memory(memory) -> int:
    """The memory budget of one chunk in bytes: a Python or NumPy integer >= 1, returned as an int
    (``ValueError`` naming ``memory`` otherwise)."""
    return V.integer("memory (bytes)", memory, 1)


class _Welford:
    """Running count / mean / sum of squared deviations, merged block by block (Chan et al.)."""

    def __init__(self):
        self.n = 0
        self.mean = 0.0
        self.m2 = 0.0

    def add(self, x: np.ndarray) -> None:
        nb = x.size
        if nb == 0:
            return
        mb = float(np.mean(x))
        m2b = float(np.sum((x - mb) ** 2))  # two-pass within the block
        if self.n == 0:
            self.n, self.mean, self.m2 = nb, mb, m2b
            return
        n = self.n + nb
        delta = mb - self.mean
        self.mean += delta * nb / n
        self.m2 += m2b + delta * delta * self.n * nb / n
        self.n = n

    def result(self) -> MCResult:
        var = self.m2 / (self.n - 1)
        return MCResult(float(self.mean), float(math.sqrt(var / self.n)))


@keywords_checked
def samples_per_chunk(bytes_per_sample: float, memory: int) -> int:
    """How many samples one chunk holds: ``memory // bytes_per_sample``, at most ``BLOCK`` (a chunk never
    spans two blocks). ``ValueError`` naming ``memory`` when it cannot hold a single sample."""
    m = int(memory // max(bytes_per_sample, 1.0))
    if m < 1:
        raise ValueError(
            f"memory={memory} bytes cannot hold one sample (about {int(bytes_per_sample)} bytes needed)"
        )
    return min(m, BLOCK)


@keywords_checked
def run_blocks(n: int, seed: int, stream: int, piece: int, values: Callable, nvalues: int = 1):
    """The chunked Monte Carlo driver of every route: mean and standard error of per-sample values over n samples.

    Samples are drawn in blocks of ``BLOCK`` seeded by ``generators(seed, stream, b)`` and, inside a block, in
    chunks of at most ``piece`` samples: ``values(gens, m)`` draws the next m samples from the block's generators
    and returns an array of shape (nvalues, m). Block statistics are merged in block order (Chan's update), so the
    result is bit-for-bit independent of ``piece``. Returns one :class:`MCResult` per value (standard error: the
    sample standard deviation / sqrt(n); n >= 2).
    """
    acc = [_Welford() for _ in range(nvalues)]
    nblocks = -(-n // BLOCK)
    for b in range(nblocks):
        nb = min(BLOCK, n - b * BLOCK)
        gens = _generators(seed, stream, b)
        if piece >= nb:
            vals = values(gens, nb)
        else:
            vals = np.empty((nvalues, nb))
            for s in range(0, nb, piece):
                m = min(piece, nb - s)
                vals[:, s : s + m] = values(gens, m)
        for a, row in zip(acc, vals):
            a.add(row)
    return [a.result() for a in acc]
