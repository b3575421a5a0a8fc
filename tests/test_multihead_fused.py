"""The compiled multi-head PGD runner (slr_verify.kernels.multihead_fused) against the NumPy one.

References, by test:
* for the compiled scalar zeta (``special.zeta_scalar`` compiled): the vectorised array form
  ``special.zeta`` (itself tested against 60-digit mpmath), at every regime switch; for the compiled
  zeta2 (``special.zeta2_one`` compiled, also the body of the vectorised ``numba_special.zeta2_array``): the
  arb's quadrature ``special.zeta2_mp`` at 30 digits (no Owen's T);
* the NumPy runner ``gram_step`` (itself tested against the full-dimensional projected step with a
  finite-difference gradient) for the compiled runner's trajectories: equal to 1e-12.
"""
import math

import numpy as np
import pytest

from slr_verify.dynamics.multihead import FIGURE9, figure9_lam, multihead_pgd
from slr_verify.kernels import multihead as KM
from slr_verify.kernels import special
from slr_verify.model.multilocation import random_heads, random_locations

numba_special = pytest.importorskip("slr_verify.kernels.numba_special")


def _zeta_cases():
    """(t, g) across the tetrachoric/Owen switch (r = 1/4 at g^2 = 1/6, s = 1/2) and magnitudes."""
    g_switch = math.sqrt(1 / 6)
    cases = [(t, g) for g in (1e-3, 0.2, g_switch * (1 - 1e-9), g_switch * (1 + 1e-9), 0.6, 1.4, 30.0)
             for t in (0.0, 1e-8, -0.3, 0.5 * math.sqrt(1 + 2 * g * g) * (1 - 1e-9), 0.5 * math.sqrt(1 + 2 * g * g) * (1 + 1e-9),
                       2.0, -7.5, 40.0)]
    return cases


def test_compiled_zeta_equals_the_vectorised_kernel():
    """Same regimes and formulas: agreement to 4e-16 absolute (values are in [0, 1])."""
    for t, g in _zeta_cases():
        assert abs(numba_special.zeta(t, g) - float(special.zeta(t, g))) <= 4e-16, (t, g)


def test_compiled_zeta2_against_quadrature():
    """The axes (h_i = 0), the origin (Sheppard), near-singular correlations and magnitudes: within
    1e-15 absolute of 30-digit quadrature (values in [-1, 1]; measured worst 2.9e-16)."""
    rng = np.random.default_rng(20261122)
    cases = [(0.0, 0.0, 1.0, 1.0, 0.5), (0.0, 0.0, 2.0, 0.3, -0.7), (0.0, 1.3, 1.0, 2.0, 0.3), (0.0, -1.3, 1.0, 2.0, 0.3),
             (-0.4, 0.0, 0.5, 0.5, 0.2), (-1e-12, 1e-12, 1.0, 1.0, 0.999), (25.0, -25.0, 0.1, 0.1, 0.05)]
    for _ in range(5):
        t1, t2 = rng.choice([-1, 1], 2) * 10 ** rng.uniform(-4, 1.3, 2)
        s11, s22 = 10 ** rng.uniform(-4, 2, 2)
        cases.append((t1, t2, s11, s22, rng.uniform(-0.999, 0.999) * math.sqrt(s11 * s22)))
    for c in cases:
        assert abs(numba_special.zeta2(*c) - float(special.zeta2_mp(*c, dps=30))) <= 1e-15, c


def test_compiled_runner_gives_the_numpy_trajectories():
    """Figure 9's settings, 20 runs from the paper's starts, 150 steps of its lam schedule: the
    recorded Gram matrices and risks of the two backends agree to 1e-12."""
    rng = np.random.default_rng(3)
    H, K, d = FIGURE9["H"], FIGURE9["K"], FIGURE9["d"]
    G0 = np.stack([KM.gram_of(*random_heads(H, d, rng), *random_locations(K, d, rng)) for _ in range(20)])
    p = dict(lam=figure9_lam, gamma=FIGURE9["gamma"], eps=FIGURE9["eps"], d=d, L=FIGURE9["L"], alpha=FIGURE9["alpha"],
             steps=150, every=50)
    fused = multihead_pgd(G0, H, K, backend="fused", **p)
    ref = multihead_pgd(G0, H, K, backend="numpy", **p)
    assert fused.settings["backend"] == "fused"
    assert np.max(np.abs(fused.gram - ref.gram)) <= 1e-12
    assert np.max(np.abs(fused.risk - ref.risk)) <= 1e-12 * np.max(np.abs(ref.risk))
    assert np.max(np.abs(fused.gram[-1] - G0)) > 1e-3  # the runs did move


def test_backend_must_be_named():
    G0 = KM.gram_of(*random_heads(2, 6, np.random.default_rng(0)), *random_locations(2, 6, np.random.default_rng(1)))
    with pytest.raises(ValueError, match="backend"):
        multihead_pgd(G0, 2, 2, lam=1.0, gamma=0.7, eps=0.1, d=6, L=4, alpha=1e-3, steps=1, backend="jax")
