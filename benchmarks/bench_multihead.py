"""Timings of the d-free multi-head PGD runner (Figure 9's settings, H = K = 2): the compiled
backend against the NumPy one, side by side, and their largest difference (prints a small table).

CPU time of this process is the measure (the machine is shared); each timing is the best of
``repeats`` after a warm-up run that generates and compiles the kernels."""
import os
import time

import numpy as np

from slr_verify.dynamics.multihead import FIGURE9, figure9_lam, multihead_pgd
from slr_verify.kernels import multihead as KM
from slr_verify.model.multilocation import random_heads, random_locations


def timed(f):
    """(result, wall seconds, CPU seconds of this process)."""
    w, c = time.perf_counter(), time.process_time()
    r = f()
    return r, time.perf_counter() - w, time.process_time() - c


def main(runs=20, steps_numpy=200, steps_fused=5000, repeats=3):
    S = FIGURE9
    H, K, d = S["H"], S["K"], S["d"]
    rng = np.random.default_rng(0)
    G0 = np.stack([KM.gram_of(*random_heads(H, d, rng), *random_locations(K, d, rng)) for _ in range(runs)])
    p = dict(lam=figure9_lam, gamma=S["gamma"], eps=S["eps"], d=d, L=S["L"], alpha=S["alpha"])
    for backend in ("numpy", "fused"):  # warm-up: generate, compile / load the cached kernels
        multihead_pgd(G0, H, K, steps=2, every=2, backend=backend, **p)
    rows = {}
    for backend, steps in (("numpy", steps_numpy), ("fused", steps_fused)):
        best = None
        for _ in range(repeats):
            tr, wall, cpu = timed(lambda: multihead_pgd(G0, H, K, steps=steps, every=steps, backend=backend, **p))
            best = (wall, cpu) if best is None or cpu < best[1] else best
        rows[backend] = (steps, *best)
    a = multihead_pgd(G0, H, K, steps=steps_numpy, every=steps_numpy // 4, backend="numpy", **p)
    b = multihead_pgd(G0, H, K, steps=steps_numpy, every=steps_numpy // 4, backend="fused", **p)
    err = float(np.max(np.abs(a.gram - b.gram)))
    print("%-46s %7s %9s %9s %14s" % ("multi-head PGD, %d runs, H = K = 2, d = %d" % (runs, d), "steps", "wall s", "CPU s",
                                      "CPU ms / step"))
    per = {}
    for backend, (steps, wall, cpu) in rows.items():
        per[backend] = 1e3 * cpu / steps
        print("%-46s %7d %9.3f %9.3f %14.4f" % ("backend=" + backend, steps, wall, cpu, per[backend]))
    print("speed-up (CPU per step, numpy / fused): %.0f x (target >= 20 x)" % (per["numpy"] / per["fused"]))
    print("largest Gram difference after %d steps: %.2e (target 1e-12)" % (steps_numpy, err))
    print("load average: %.2f %.2f %.2f on %d cores" % (*os.getloadavg(), os.cpu_count()))


if __name__ == "__main__":
    main()
