"""Throughput of the generated kernels vs a quadrature baseline (issue 2, item 8).

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
    from slr_verify.symbolic import risk as srisk

    f = sp.lambdify(srisk.OVERLAPS + srisk.PARAMS, srisk.theorem1_risk(),
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


if __name__ == "__main__":
    main()
