#!/usr/bin/env python3
"""Machine calibration: a fixed single-thread workload of the suite's kinds (NumPy/SciPy vector code, pure Python,
python-flint ball arithmetic). Prints its time in seconds (the minimum of three runs).

Timings on shared machines differ by 2x and more from one machine to the next, so the suite states its budgets as
ratios: the time of a job divided by this script's figure, both measured on the same machine in one sitting
(calibration units; the README's budgets, docs/results-generated.md). The workload is the one the figures recorded
in benchmarks/results/ were divided by (the development machines' shared calibration script): the same functions,
statement for statement, so that a clone's figures compare with them (tests/test_calibrate.py checks it wherever
that script is present).

    python benchmarks/calibrate.py
"""
import os

for var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ[var] = "1"
import time  # noqa: E402

import numpy as np  # noqa: E402
from scipy.special import erf  # noqa: E402


def numeric():
    """Vector code: erf over a million points, 24 times; 60 products of 300 x 300 matrices through tanh."""
    x = np.linspace(-5.0, 5.0, 1_000_000)
    s = 0.0
    for _ in range(24):
        s += float(erf(x * 0.7).sum())
    a = np.random.default_rng(0).standard_normal((300, 300))
    for _ in range(60):
        a = np.tanh(a @ a.T / 300.0)
    return s + float(a.sum())


def python_loop():
    """Pure Python: 4.5 million iterations of float arithmetic."""
    s, x = 0.0, 0.5
    for i in range(4_500_000):
        x = (x * 1.0000001 + 0.3) % 7.0
        s += x if i & 1 else -x
    return s


def balls():
    """Ball arithmetic at 128 bits: 45,000 terms of sqrt, exp and erfc on arb balls."""
    from flint import arb, ctx

    old = ctx.prec
    ctx.prec = 128
    try:
        s = arb(0)
        for i in range(1, 45_001):
            t = arb(i) / 997
            s += (t * t + 1).sqrt() * (-t).exp() + t.erfc()
        return float(s.mid())
    finally:
        ctx.prec = old


def once():
    """One run of the three parts, in seconds."""
    t0 = time.perf_counter()
    numeric(), python_loop(), balls()
    return time.perf_counter() - t0


if __name__ == "__main__":
    print(f"{min(once() for _ in range(3)):.2f}")
