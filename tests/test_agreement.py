"""Agreement of the three routes: closed form (SymPy -> float64 kernels) vs mpmath
quadrature of the definition vs Monte Carlo simulation of the model.

The quadrature and Monte Carlo routes share no formula with the symbolic route (see
slr_verify/routes). Monte Carlo is asserted within 4.5 standard errors, at fixed seeds.
"""
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from strategies import realisable_overlaps

import slr_verify
from slr_verify import routes
from slr_verify.claims import risk_claims as core
from slr_verify.routes import montecarlo as mc

Z_MAX = 4.5
RTOL = 1e-12

small_params = st.fixed_dictionaries(
    {"lam": st.floats(0.05, 2.0), "gamma": st.floats(0.2, 1.5), "eps": st.floats(0, 0.5),
     "d": st.integers(4, 1000), "L": st.integers(1, 20)}
)


@settings(max_examples=8)
@given(ov=realisable_overlaps(), pr=small_params)
def test_closed_form_vs_quadrature(ov, pr):
    ref = routes.quad_risk(*ov, **pr, dps=20)
    assert abs(slr_verify.risk(*ov, **pr) - float(ref)) <= RTOL * float(ref)


@settings(max_examples=4)
@given(ov=realisable_overlaps(), pr=small_params)
def test_gradient_vs_quadrature(ov, pr):
    ref = routes.quad_risk_gradient(*ov, **pr, dps=20)
    got = slr_verify.risk_gradient(*ov, **pr)
    scale = max(abs(float(x)) for x in ref.values())
    for name in got:
        assert abs(got[name] - float(ref[name])) <= RTOL * scale, name


@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize("p", [None, [0.7, 0.1, 0.1, 0.1], [0.0, 0.0, 1.0, 0.0]])
def test_closed_form_vs_monte_carlo_d_free(seed, p):
    rng = np.random.default_rng(100 + seed)
    (ov,) = core.random_overlaps(rng, 1)
    pr = dict(lam=float(rng.uniform(0.1, 1.5)), gamma=float(rng.uniform(0.3, 1.2)), eps=0.1, d=int(rng.integers(10, 500)), L=4)
    est, se = mc.mc_risk_overlaps(*ov, **pr, n=100_000, seed=seed, p=p)
    assert abs(est - slr_verify.risk(*ov, **pr)) <= Z_MAX * se


@pytest.mark.parametrize("seed", range(3))
def test_closed_form_vs_monte_carlo_full_dimension(seed):
    d = 16
    ks, vs = mc.random_instance(d, seed)
    k, v = mc.random_unit(d, 10 + seed), mc.random_unit(d, 20 + seed)
    # tilt (k, v) towards (k*, v*) so the overlaps are not all ~ 1/sqrt(d)
    k = k + 1.5 * ks
    v = v - 1.0 * vs + 0.5 * ks
    k, v = k / np.linalg.norm(k), v / np.linalg.norm(v)
    pr = dict(lam=0.7, gamma=0.6, eps=0.2, L=3)
    est, se = mc.mc_risk(k, v, ks, vs, **pr, n=60_000, seed=seed, p=[0.5, 0.3, 0.2])
    ref = slr_verify.risk(k @ ks, v @ vs, v @ ks, k @ vs, k @ v, **pr, d=d)
    assert abs(est - ref) <= Z_MAX * se
