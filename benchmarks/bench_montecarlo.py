"""Throughput of the Monte Carlo route (printed, not asserted).

Target: the d-free sampler draws >= 2e7 token projections per second per
core, a token projection being one token's vector (X^T k, X^T v, X^T k*, X^T v*). BLAS and
OpenMP are pinned to one thread so that the figures are per core.

    python benchmarks/bench_montecarlo.py
"""
import os

for _var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")

import time  # noqa: E402

import numpy as np  # noqa: E402

from slr_verify.model.sampling import STREAM_PROJ, generators, law  # noqa: E402
from slr_verify.model.validation import gram_matrix  # noqa: E402
from slr_verify.routes import montecarlo as mc  # noqa: E402

OV = (0.3, 0.2, 0.1, 0.1, 0.1)  # generic point: Gram matrix of full rank 4


def best_of(f, repeats=5):
    times = []
    for _ in range(repeats):
        t = time.perf_counter()
        f()
        times.append(time.perf_counter() - t)
    return min(times), float(np.median(times))


def main():
    L, d, gamma = 10, 400, 0.5 ** 0.5
    _, cdf = law(None, L)
    mean = np.sqrt(d / 2) * np.array([OV[0], OV[2], 1.0, 0.0])

    # 1. the raw draw of full 4-vectors, one block of 2^15 samples in cache-sized pieces
    sampler = mc.ProjectionSampler(gram_matrix(*OV), mean, gamma, cdf, L, range(4))
    n = mc.BLOCK

    def draw_block():
        gens = generators(0, STREAM_PROJ, 0)
        for s in range(0, n, sampler.piece):
            sampler.draw(gens, min(sampler.piece, n - s))

    tb, tm = best_of(draw_block)
    print(f"d-free draw, all 4 projections, L={L}: {n * L / tb:.3g} token projections/s (best), {n * L / tm:.3g} (median)")

    # 2. public sample_projections (adds the (n, L, 4) stacking)
    n2 = 200_000
    tb, tm = best_of(lambda: mc.sample_projections(*OV, gamma=gamma, d=d, L=L, n=n2, seed=1), 3)
    print(f"sample_projections n={n2}, L={L}: {n2 * L / tb:.3g} token projections/s (best), {n2 * L / tm:.3g} (median)")

    # 3. end-to-end risk estimates from projections
    n3 = 1_000_000
    for pred in ("erf", "softmax", "oracle", "linear"):
        tb, tm = best_of(
            lambda: mc.mc_risk_overlaps(*OV, lam=0.1, gamma=gamma, eps=0.1, d=d, L=L, n=n3, seed=2, predictor=pred), 3
        )
        print(f"mc_risk_overlaps predictor={pred!r} n={n3}, L={L}: {n3 * L / tb:.3g} tokens/s, {n3 / tb:.3g} samples/s (best)")

    # 4. full-dimensional sampler
    ks, vs = mc.random_instance(d, 0)
    k, v = mc.random_unit(d, 1), mc.random_unit(d, 2)
    n4 = 20_000
    tb, tm = best_of(lambda: mc.mc_risk(k, v, ks, vs, lam=0.1, gamma=gamma, eps=0.1, L=L, n=n4, seed=3), 3)
    print(f"mc_risk (full dimension) d={d}, L={L}, n={n4}: {n4 / tb:.3g} samples/s, {n4 * L * d / tb:.3g} normals/s (best)")


if __name__ == "__main__":
    main()
