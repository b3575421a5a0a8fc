"""Proposition 3 (best linear predictor).

References: SymPy (the full 3L x 3L normal equations built from the model's law by the Gaussian
engine, with every cross-token moment, and solved for explicit L; the uniform form and its limit),
and exact hand-checkable special cases (L = 1 and a constant J0 give eps^2).
The Monte Carlo least-squares check lives in test_montecarlo.py.
"""
import math

import numpy as np
import pytest
import sympy as sp
from hypothesis import given
from hypothesis import strategies as st

import slr_verify
from slr_verify.symbolic import linear
from slr_verify.symbolic.risk import S


def test_weights_are_proportional_to_vstar():
    w = linear.token_weight()
    pl = sp.Symbol("p_l", nonnegative=True)
    assert w[0] == 0 and w[2] == 0
    assert sp.simplify(w[1] - pl * S.gamma**2 / (1 - pl + pl * S.gamma**2)) == 0


@pytest.mark.parametrize("L", [1, 2, pytest.param(3, marks=pytest.mark.slow)])
def test_full_normal_equations_agree_with_block_formula(L):
    ps = sp.symbols(f"q0:{L - 1}", positive=True)
    probs = [*ps, 1 - sum(ps)]
    _, risk_full = linear.solve_full_system(probs)
    blockwise = linear.linear_risk_expr().subs(S.L, L).doit().subs({linear.p[i]: probs[i] for i in range(L)})
    assert sp.simplify(risk_full - blockwise) == 0


@pytest.mark.parametrize("L", [2, 3])
def test_block_step_of_the_normal_equations(L):
    """The block step itself: the full system built from the model's law (the Gaussian engine, all
    cross-token moments) has zero off-diagonal blocks and the diagonal blocks and right-hand side
    of ``token_blocks``."""
    ps = sp.symbols(f"q0:{L - 1}", positive=True)
    probs = [*ps, 1 - sum(ps)]
    A, b, EY2 = linear.normal_equations(probs)
    for i in range(L):
        diag, xy = linear.token_blocks(probs[i])
        for j in range(L):
            blk = A[3 * i:3 * i + 3, 3 * j:3 * j + 3]
            assert sp.simplify(blk - (diag if i == j else sp.zeros(3, 3))) == sp.zeros(3, 3)
        assert sp.simplify(b[3 * i:3 * i + 3, 0] - xy) == sp.zeros(3, 1)
    assert sp.simplify(EY2 - S.gamma**2 - S.eps**2) == 0


def test_nonnegative_form_is_the_same_risk():
    assert linear.nonneg_form_identity() == 0
    for L in (1, 2, 3):
        ps = sp.symbols(f"q0:{L - 1}", positive=True)
        sub = {linear.p[i]: v for i, v in enumerate([*ps, 1 - sum(ps)])}
        a = linear.linear_risk_expr().subs(S.L, L).doit().subs(sub)
        b = linear.linear_risk_nonneg_expr().subs(S.L, L).doit().subs(sub)
        assert sp.simplify(a - b) == 0


def test_uniform_form_and_limit():
    uni = linear.linear_risk_uniform()
    assert sp.simplify(uni - (S.eps**2 + S.gamma**2 * (S.L - 1) / (S.L - 1 + S.gamma**2))) == 0
    assert sp.simplify(sp.limit(uni, S.L, sp.oo) - (S.eps**2 + S.gamma**2)) == 0
    assert sp.simplify(uni.subs(S.L, 1) - S.eps**2) == 0


@given(gamma=st.floats(0.05, 3), eps=st.floats(0, 2), L=st.integers(1, 60))
def test_numeric_uniform_matches_explicit_p(gamma, eps, L):
    a = slr_verify.linear_risk(gamma=gamma, eps=eps, L=L)
    b = slr_verify.linear_risk(gamma=gamma, eps=eps, L=L, p=np.full(L, 1.0 / L))
    assert math.isclose(a, b, rel_tol=1e-13, abs_tol=1e-15 * gamma**2)
    assert eps**2 - 1e-15 <= a <= eps**2 + gamma**2 + 1e-15


@given(gamma=st.floats(0.05, 3), eps=st.floats(0, 2), L=st.integers(1, 20), j=st.integers(0, 19))
def test_constant_J0_gives_noise_level(gamma, eps, L, j):
    p = np.zeros(L)
    p[j % L] = 1.0
    assert math.isclose(slr_verify.linear_risk(gamma=gamma, eps=eps, L=L, p=p), eps**2, rel_tol=1e-13, abs_tol=1e-15)


def test_large_L_tends_to_null_predictor():
    gamma, eps = 0.7, 0.1
    vals = [slr_verify.linear_risk(gamma=gamma, eps=eps, L=L) for L in (10, 10**3, 10**6, 10**9)]
    gaps = [eps**2 + gamma**2 - v for v in vals]
    assert all(a > b > 0 for a, b in zip(gaps, gaps[1:]))
    assert gaps[-1] < 1e-9


@pytest.mark.parametrize(
    "kw,name",
    [(dict(gamma=0, eps=0, L=3), "gamma"), (dict(gamma=1, eps=-1, L=3), "eps"), (dict(gamma=1, eps=0, L=0), "L"),
     (dict(gamma=1, eps=0, L=3, p=[0.5, 0.5]), "p"), (dict(gamma=1, eps=0, L=2, p=[1.5, -0.5]), "p"),
     (dict(gamma=1, eps=0, L=2, p=[0.4, 0.4]), "p"), (dict(gamma=np.nan, eps=0, L=2), "gamma")],
)
def test_invalid_input(kw, name):
    with pytest.raises(ValueError, match=name):
        slr_verify.linear_risk(**kw)
