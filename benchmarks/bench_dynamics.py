"""Timings of the PGD runners (prints a small table)."""
import os
import time

import numpy as np
from scipy.special import erf

from slr_verify.dynamics import overlap_pgd, pgd, reduced_pgd
from slr_verify.kernels import steps
from slr_verify.model.sampling import draw_problem, initial_overlaps_exact


def timed(f):
    """(result, wall seconds, CPU seconds of this process): on a shared machine the CPU time is
    the better measure of the code (the wall time includes waiting for other processes)."""
    w, c = time.perf_counter(), time.process_time()
    r = f()
    return r, time.perf_counter() - w, time.process_time() - c


def erf_rate(n=10**6, repeats=7):
    """scipy.special.erf evaluations per CPU second on an array of n doubles (best of ``repeats``)."""
    x = np.random.default_rng(2).uniform(-3, 3, n)
    out = np.empty_like(x)
    best = min(timed(lambda: erf(x, out=out))[2] for _ in range(repeats))
    return n / best


def overlap_rate(backend, runs=10_000, steps=2000, repeats=3):
    """Five-overlap run-steps per CPU second: ``runs`` starts from the exact law of sphere-initialised
    overlaps at d = 400, Figure 4b's lam, gamma, L and alpha (best of ``repeats``, after a warm-up)."""
    ov = initial_overlaps_exact(3, runs, 400)
    ov0 = tuple(getattr(ov, f) for f in ("kappa", "nu", "theta", "eta", "rho"))
    p = dict(lam=0.1, gamma=float(np.sqrt(0.5)), d=400, L=10, alpha=4e-3, every=steps, backend=backend)
    overlap_pgd(ov0, steps=2, **p)  # compile / load the kernels
    best = min(timed(lambda: overlap_pgd(ov0, steps=steps, **p))[2] for _ in range(repeats))
    return runs * steps / best


def main():
    steps.gradient_poly_kernel(), steps.map_poly_kernel(), steps.reduced_step_kernel()  # generate once
    p = dict(lam=0.1, gamma=float(np.sqrt(0.5)), L=10, alpha=4e-3, steps=20000, every=100)
    k, v, ks, vs = draw_problem(np.random.default_rng(0), 30, 400, True)
    full, t_full, c_full = timed(lambda: pgd(k, v, ks, vs, **p))
    ov0 = tuple(full[f][0] for f in ("kappa", "nu", "theta", "eta", "rho"))
    overlap_pgd(ov0, d=400, **dict(p, steps=2))  # load the compiled kernel
    ov, t_ov, c_ov = timed(lambda: overlap_pgd(ov0, d=400, **p))
    rng = np.random.default_rng(1)
    k0, n0 = rng.uniform(-1, 1, (2, 10_000))
    _, t_red, c_red = timed(lambda: reduced_pgd(k0, n0, d=400, **dict(p, steps=10_000, every=1000)))
    err = max(float(np.max(np.abs(full[f] - ov[f]))) for f in ("kappa", "nu", "theta", "eta", "rho", "risk"))
    print("%-52s %7s %7s %7s" % ("benchmark", "wall s", "CPU s", "target"))
    print("%-52s %7.2f %7.2f %7.1f" % ("Figure 4b, full runner (30 runs x 20k steps, d=400)", t_full, c_full, 5))
    print("%-52s %7.2f %7.2f %7.1f" % ("Figure 4b, five-overlap runner", t_ov, c_ov, 1))
    print("%-52s %7.2f %7.2f %7.1f" % ("reduced runner, 1e4 trajectories x 1e4 steps", t_red, c_red, 10))
    print("load average: %.2f %.2f %.2f on %d cores" % (*os.getloadavg(), os.cpu_count()))
    print("full vs five-overlap max difference: %.2e (target 1e-9)" % err)
    e = erf_rate()
    print()
    print("%-52s %12s %9s" % ("throughput (one core, CPU time)", "per second", "x erf"))
    print("%-52s %12.3g %9s" % ("scipy.special.erf evaluations (1e6 doubles)", e, ""))
    for backend in ("fused", "numpy"):
        r = overlap_rate(backend)
        print("%-52s %12.3g %9.3f" % ("five-overlap run-steps, 1e4 runs, backend=%s" % backend, r, r / e))
    print("target: five-overlap (fused) >= 0.2 x erf evaluations per second")


if __name__ == "__main__":
    main()
