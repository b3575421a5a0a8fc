"""Throughput of the generated kernels vs a quadrature baseline.

Prints points per second of ``slr_verify.risk`` and ``slr_verify.risk_gradient`` at 10^6
realisable points (validation included), side by side with a baseline that evaluates the same
closed form but computes zeta by adaptive quadrature (scipy.integrate.quad) per point, the way
the paper's own code does. The baseline is timed on a subsample and extrapolated per point.
Run on one core: ``OMP_NUM_THREADS=1 python benchmarks/bench_risk.py``.
"""
import time

import numpy as np
from scipy import integrate, special

import slr_verify
from slr_verify.kernels import generated

N = 10**6
N_BASE = 2000
KW = dict(lam=0.5, gamma=0.7071067811865476, eps=0.1, d=400, L=10)


def realisable(n, seed=0):
    rng = np.random.default_rng(seed)
    k = rng.standard_normal((n, 4))
    v = rng.standard_normal((n, 4))
    k /= np.linalg.norm(k, axis=1, keepdims=True)
    v /= np.linalg.norm(v, axis=1, keepdims=True)
    return k[:, 0], v[:, 1], v[:, 0], k[:, 1], np.einsum("ij,ij->i", k, v)


def zeta_by_quad(t, g):
    """E[erf(t + gZ)^2] by adaptive quadrature, one point at a time."""
    f = lambda z: special.erf(t + g * z) ** 2 * np.exp(-z * z / 2) / np.sqrt(2 * np.pi)
    return integrate.quad(f, -np.inf, np.inf)[0]


def baseline_risk(ov, kw):
    """The same generated closed form with zeta computed by quadrature per evaluation."""
    import sympy as sp

    from slr_verify.kernels.codegen import _SETTINGS, KernelPrinter
    from slr_verify.symbolic import risk as srisk

    f = sp.lambdify(srisk.OVERLAPS + srisk.PARAMS, srisk.theorem1_risk(), printer=KernelPrinter(dict(_SETTINGS)),
                    modules=[dict(generated.NAMESPACE, slr_zeta=np.vectorize(zeta_by_quad)), "numpy"], cse=True)
    return f(*ov, kw["lam"], kw["gamma"], kw["eps"], kw["d"], kw["L"])


def rate(fn, n):
    fn()  # warm-up (kernel generation happens here)
    t = time.perf_counter()
    fn()
    return n / (time.perf_counter() - t)


def main():
    ov = realisable(N)
    r_risk = rate(lambda: slr_verify.risk(*ov, **KW), N)
    r_grad = rate(lambda: slr_verify.risk_gradient(*ov, **KW), N)
    sub = tuple(x[:N_BASE] for x in ov)
    r_base = rate(lambda: baseline_risk(sub, KW), N_BASE)
    print(f"{'route':<44}{'points/s':>14}")
    print(f"{'risk (generated kernel, validated)':<44}{r_risk:>14.3e}")
    print(f"{'risk + gradient (generated kernel)':<44}{r_grad:>14.3e}")
    print(f"{'risk, zeta by adaptive quadrature':<44}{r_base:>14.3e}")
    print(f"speed-up of the kernel over the quadrature baseline: {r_risk / r_base:.0f}x")
    scalar_latency()


def scalar_latency(n=20000):
    """One scalar call of each public function, beside one scalar scipy.special.owens_t call (the
    same machine, the same run): the target is at most 30 owens_t calls."""
    import timeit

    kw = dict(lam=0.1, gamma=0.5**0.5, eps=0.0, d=400, L=10)
    calls = {
        "owens_t(0.3, 0.5) (scipy, reference)": lambda: special.owens_t(0.3, 0.5),
        "risk(0.3, 0.2, 0, 0.1, 0.05)": lambda: slr_verify.risk(0.3, 0.2, 0.0, 0.1, 0.05, **kw),
        "risk_gradient(...)": lambda: slr_verify.risk_gradient(0.3, 0.2, 0.0, 0.1, 0.05, **kw),
        "oracle_risk()": lambda: slr_verify.oracle_risk(**kw),
        "manifold_risk(0.3, 0.2)": lambda: slr_verify.manifold_risk(0.3, 0.2, **kw),
    }
    times = {}
    for name, f in calls.items():
        f()
        times[name] = min(timeit.repeat(f, number=n, repeat=3)) / n
    ref = times["owens_t(0.3, 0.5) (scipy, reference)"]
    print(f"{'scalar call':<44}{'microseconds':>14}{'x owens_t':>11}")
    for name, t in times.items():
        print(f"{name:<44}{t * 1e6:>14.2f}{t / ref:>11.1f}")


if __name__ == "__main__":
    main()
