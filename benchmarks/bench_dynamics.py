"""Timings of the PGD runners against issue 4's targets (prints a small table)."""
import time

import numpy as np

from slr_verify.dynamics import overlap_pgd, pgd, reduced_pgd
from slr_verify.dynamics.claims import draw_problem
from slr_verify.dynamics import maps


def main():
    maps.step_kernel(), maps.gradient_kernel(), maps.reduced_step_kernel()  # generate once
    p = dict(lam=0.1, gamma=float(np.sqrt(0.5)), L=10, alpha=4e-3, steps=20000, every=100)
    k, v, ks, vs = draw_problem(np.random.default_rng(0), 30, 400, True)
    t = time.perf_counter()
    full = pgd(k, v, ks, vs, **p)
    t_full = time.perf_counter() - t
    ov0 = tuple(full[f][0] for f in ("kappa", "nu", "theta", "eta", "rho"))
    t = time.perf_counter()
    ov = overlap_pgd(ov0, d=400, **p)
    t_ov = time.perf_counter() - t
    rng = np.random.default_rng(1)
    t = time.perf_counter()
    reduced_pgd(rng.uniform(-1, 1, 10_000), rng.uniform(-1, 1, 10_000), d=400, **dict(p, steps=10_000, every=1000))
    t_red = time.perf_counter() - t
    err = max(float(np.max(np.abs(full[f] - ov[f]))) for f in ("kappa", "nu", "theta", "eta", "rho", "risk"))
    print("%-55s %8s %8s" % ("benchmark", "seconds", "target"))
    print("%-55s %8.2f %8.1f" % ("Figure 4b, full runner (30 runs x 20k steps, d=400)", t_full, 5))
    print("%-55s %8.2f %8.1f" % ("Figure 4b, five-overlap runner", t_ov, 1))
    print("%-55s %8.2f %8.1f" % ("reduced runner, 1e4 trajectories x 1e4 steps", t_red, 10))
    print("full vs five-overlap max difference: %.2e" % err)


if __name__ == "__main__":
    main()
