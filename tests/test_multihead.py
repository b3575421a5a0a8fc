"""Multiple-location regression and the multi-head erf predictor (`docs/MATH.md` §15).

References, by test:
* E[erf(A) E[erf(B) | A]] over A (no Owen's T): enclosed by arb's rigorous quadrature for the kernel, by
  ``zeta2_mp`` (arb's rigorous quadrature over A) and its numerical derivatives (mpmath.diff) for the derivative rules;
* zeta (`docs/MATH.md` §4) and products of erf means for zeta2's special cases;
* a tensor Gauss-Hermite rule over (a, a') for the two-head cross term (no Stein, no zeta2);
* Theorem 1 (SymPy, and ``slr_verify.risk``) for H = K = 1;
* the Monte Carlo route (both samplers) with 4.5 standard errors.
"""
import math

import flint
import mpmath
import numpy as np
import pytest
import sympy as sp
from flint import arb

import slr_verify
from slr_verify.kernels import multihead as KM
from slr_verify.kernels import special
from slr_verify.kernels.numba_special import zeta2_array
from slr_verify.model.multilocation import random_heads, random_locations, sample_multi
from slr_verify.routes.multilocation import mc_multihead_risk, quad_head_pair
from slr_verify.symbolic import multihead as SM
from slr_verify.symbolic import risk as SR
from slr_verify.symbolic.zeta import zeta as szeta
from slr_verify.symbolic.zeta2 import zeta2 as szeta2


def _zeta2_cases():
    """(t1, t2, s11, s22, s12) spanning magnitudes, both signs, the axes and the origin (the
    switches of the Owen-T kernel), and correlations up to +-0.999 of the maximum."""
    rng = np.random.default_rng(20261121)
    cases = []
    for _ in range(60):
        t1, t2 = rng.choice([-1, 1], 2) * 10 ** rng.uniform(-4, 1.3, 2)
        s11, s22 = 10 ** rng.uniform(-4, 2, 2)
        s12 = rng.uniform(-0.999, 0.999) * math.sqrt(s11 * s22)
        cases.append((t1, t2, s11, s22, s12))
    cases += [(0.0, 0.0, 1.0, 1.0, 0.5), (0.0, 0.0, 2.0, 0.3, -0.7), (0.0, 1.3, 1.0, 2.0, 0.3), (0.0, -1.3, 1.0, 2.0, 0.3),
              (-0.4, 0.0, 0.5, 0.5, 0.2), (1e-300, 1.0, 1.0, 1.0, 0.2), (-1e-12, 1e-12, 1.0, 1.0, 0.999),
              (25.0, -25.0, 0.1, 0.1, 0.05), (0.3, 0.3, 0.09, 0.09, 0.09), (3.0, 0.5, 1e-8, 4.0, 0.0)]
    return cases


@pytest.mark.parametrize("args", _zeta2_cases())
def test_zeta2_kernel_against_arb_quadrature(args):
    """The true zeta2 lies in the ball; the float64 kernel within 1e-15 of all of it (absolute: measured worst 2.3e-16)."""
    assert float(abs(special.zeta2_ball(*args) - arb(float(zeta2_array(*args)))).upper()) <= 1e-15


@pytest.mark.parametrize("t,g", [(0.0, 0.3), (0.7, 0.2), (-2.0, 1.5), (1e-3, 10.0)])
def test_zeta2_on_the_diagonal_is_zeta(t, g):
    assert abs(zeta2_array(t, t, g * g, g * g, g * g) - float(special.zeta_mp(t, g, dps=30))) <= 1e-15
    assert szeta2(sp.Symbol("t"), sp.Symbol("t"), sp.Symbol("s"), sp.Symbol("s"), sp.Symbol("s")).func is szeta


@pytest.mark.parametrize("t,g", [(0.7, 0.2), (-2.0, 1.5), (1e-3, 10.0)])
def test_zeta2_ball_on_the_diagonal_holds_zeta(t, g):
    """zeta2(t, t; s, s, s) = zeta_sqrt(s)(t): the quadrature's ball holds zeta's closed form (Owen's T and D by arb,
    30 digits), and is narrower than 1e-30."""
    s = g * g  # a float: zeta's g is its exact square root
    ball = special.zeta2_ball(t, t, s, s, s)
    assert ball.rad() < 1e-30
    with mpmath.workdps(50), flint.ctx.workprec(200):
        assert ball.contains(arb(mpmath.nstr(special.zeta_mp(t, mpmath.sqrt(s), dps=40), 40)) + arb(0, 1e-38))


def test_zeta2_mp_refuses_a_non_covariance_and_keeps_signs():
    with pytest.raises(ValueError, match="must be a covariance"):
        special.zeta2_mp(0.1, 0.2, 1.0, 1.0, 1.0 + 1e-9)
    # erf is odd: zeta2(-t1, t2; s12) = -zeta2(t1, t2; -s12), a sign lost on the way into arb would show
    a, b = special.zeta2_mp(-0.4, 0.3, 0.5, 2.0, 0.6, dps=30), special.zeta2_mp(0.4, 0.3, 0.5, 2.0, -0.6, dps=30)
    assert abs(a) > 0.1 and abs(a + b) < 1e-29


def test_zeta2_independent_and_origin_cases():
    t1, t2, s11, s22 = 0.4, -1.1, 0.3, 2.0
    prod = math.erf(t1 / math.sqrt(1 + 2 * s11)) * math.erf(t2 / math.sqrt(1 + 2 * s22))
    assert abs(zeta2_array(t1, t2, s11, s22, 0.0) - prod) <= 1e-16
    assert abs(float(special.zeta2_mp(t1, t2, s11, s22, 0.0)) - prod) <= 1e-15
    r = 2 * 0.3 / math.sqrt(3 * 5)
    assert abs(zeta2_array(0.0, 0.0, 1.0, 2.0, 0.3) - 2 / math.pi * math.asin(r)) <= 1e-16


@pytest.mark.parametrize("index", range(5))
@pytest.mark.parametrize("args", [(0.3, -0.8, 0.5, 1.2, 0.4), pytest.param((1.5, 0.2, 0.1, 0.05, -0.06), marks=pytest.mark.slow),
                                  pytest.param((-0.1, 2.0, 3.0, 0.7, 1.1), marks=pytest.mark.slow)])
def test_zeta2_derivative_rules_against_numerical_derivatives(index, args):
    x = sp.symbols("x0:5", real=True)
    rule = sp.diff(szeta2(*x), x[index])
    got = float(rule.subs(dict(zip(x, args))).evalf(30))
    with mpmath.workdps(20):  # mpmath.diff raises the precision for its differences: 20 digits, 7 above the tolerance
        f = lambda u: special.zeta2_mp(*[u if i == index else a for i, a in enumerate(args)], dps=mpmath.mp.dps)
        ref = float(mpmath.diff(f, args[index]))
    assert abs(got - ref) <= 1e-13 * max(1.0, abs(ref))


def test_theorem1_is_the_one_head_one_location_case_symbolically():
    expr, _ = SM.multihead_risk_expr(1, 1)
    assert sp.simplify(sp.expand(expr.subs(SM.theorem1_substitution()) - SR.theorem1_risk())) == 0


def test_assemble_does_not_depend_on_positions_by_explicit_token_sums():
    """For explicit L and K, summing E[(Y - T)^2] token pair by token pair (positions 0..K-1)
    gives the assembled formula (generic per-token moments as symbols)."""
    Lv, Kv = 4, 2
    e = sp.symbols("e0:2")
    m = sp.symbols("m0:2")
    q = sp.symbols("q0:2")
    gam = sp.Symbol("gamma")
    c = sp.symbols("c0:2")
    m0, q0, eps = sp.symbols("m_0 q_0 eps")
    tot = eps**2 + sum(gam**2 + x**2 for x in e) + 2 * e[0] * e[1]  # E e_j^2 = gamma^2 + ebar_j^2
    mean = lambda l: m[l] if l < Kv else m0
    for j in range(Kv):
        for l in range(Lv):
            tot -= 2 * (c[j] if l == j else e[j] * mean(l))
    for l in range(Lv):
        for l2 in range(Lv):
            tot += (q[l] if l < Kv else q0) if l == l2 else mean(l) * mean(l2)
    got = SM.assemble(eps=eps, gamma=gam, L=Lv, e_mean=list(e), m_rel=list(m), q_rel=list(q), c_rel=list(c),
                      m_null=m0, q_null=q0)
    assert sp.expand(got - tot) == 0


@pytest.mark.parametrize("seed", range(4))
def test_head_pair_against_gauss_hermite(seed):
    """(a, b, a', b') with covariance s2 * Gram of four random unit vectors (the functional's form)."""
    rng = np.random.default_rng(seed)
    W = rng.normal(size=(4, 6))
    W /= np.linalg.norm(W, axis=1, keepdims=True)
    Gm = W @ W.T
    s2, lam, mean = rng.uniform(0.3, 1.0), rng.uniform(0.2, 1.0), rng.normal(size=4)
    ref = quad_head_pair(lam, mean, s2 * Gm)
    got = KM.functional_kernels()["head_pair"](lam, *mean, s2, Gm[0, 1], Gm[0, 2], Gm[0, 3], Gm[1, 2], Gm[1, 3], Gm[2, 3])
    assert abs(got - ref) <= 1e-12 * max(1.0, abs(ref))


def _instance(rng, H, K, d, pull=2.0):
    Kh, Vh = random_heads(H, d, rng)
    Ks, Vs = random_locations(K, d, rng)
    for h in range(H):  # heads partly aligned with the targets: away from the trivial regime
        Kh[h] += rng.uniform(0, pull) * Ks[h % K]
        Vh[h] += rng.uniform(0, pull) * Vs[h % K]
    Kh /= np.linalg.norm(Kh, axis=1, keepdims=True)
    Vh /= np.linalg.norm(Vh, axis=1, keepdims=True)
    return Kh, Vh, Ks, Vs


@pytest.mark.parametrize("seed", range(6))
def test_one_head_one_location_equals_theorem1(seed):
    rng = np.random.default_rng(100 + seed)
    d = int(rng.integers(3, 200))
    Kh, Vh, Ks, Vs = _instance(rng, 1, 1, d)
    p = dict(lam=10 ** rng.uniform(-2, 1), gamma=10 ** rng.uniform(-1, 0.5), eps=rng.uniform(0, 1), L=int(rng.integers(1, 30)))
    k, v, ks, vs = Kh[0], Vh[0], Ks[0], Vs[0]
    ref = slr_verify.risk(float(k @ ks), float(v @ vs), float(v @ ks), float(k @ vs), float(k @ v), d=d, **p)
    assert abs(slr_verify.multihead_risk(Kh, Vh, Ks, Vs, **p) - ref) <= 1e-13 * max(1.0, abs(ref))


@pytest.mark.parametrize("seed", [0, 1, 2] + [pytest.param(s, marks=pytest.mark.slow) for s in range(3, 12)])
def test_multihead_risk_against_monte_carlo(seed):
    rng = np.random.default_rng(200 + seed)
    H, K = int(rng.integers(1, 4)), int(rng.integers(1, 4))
    d = int(rng.integers(2 * K + 2, 60))
    Kh, Vh, Ks, Vs = _instance(rng, H, K, d)
    p = dict(lam=10 ** rng.uniform(-1.5, 0.5), gamma=10 ** rng.uniform(-0.6, 0.2), eps=0.1, L=K + int(rng.integers(0, 6)))
    exact = slr_verify.multihead_risk(Kh, Vh, Ks, Vs, **p)
    route = "full" if seed % 2 else "projected"
    mc = mc_multihead_risk(Kh, Vh, Ks, Vs, n=200_000, seed=seed, route=route, **p)
    assert abs(mc.estimate - exact) <= 4.5 * mc.standard_error, (exact, mc)


@pytest.mark.slow  # generates the explicit H = K = 2 kernel: ~5 s of CPU
def test_explicit_kernel_equals_functional_route():
    rng = np.random.default_rng(7)
    Kh, Vh, Ks, Vs = _instance(rng, 2, 2, 30)
    fn, pairs = KM.risk_gradient_kernel(2, 2)
    Gm = KM.gram_of(Kh, Vh, Ks, Vs)
    p = dict(lam=0.4, gamma=0.7, eps=0.1, L=6)
    got = fn(*Gm[pairs[:, 0], pairs[:, 1]], p["lam"], p["gamma"], p["eps"], 30, p["L"])[0]
    assert abs(got - slr_verify.multihead_risk(Kh, Vh, Ks, Vs, **p)) <= 1e-12


def test_functionals_float64_against_mpmath():
    f64, fmp = KM.functional_kernels(), KM.functional_kernels_mp()
    rng = np.random.default_rng(3)
    for name, args in SM.FUNCTIONAL_ARGS.items():
        for _ in range(3):
            vals = [rng.uniform(0.1, 1.5)] + list(rng.uniform(-1.5, 1.5, len(args) - 1))
            vals[args.index(SM.F.s2)] = rng.uniform(0.2, 1.5)
            # a valid covariance: correlations from a random Gram matrix
            W = rng.normal(size=(5, 8))
            W /= np.linalg.norm(W, axis=1, keepdims=True)
            Gm = W @ W.T
            corr = {SM.F.r_ab: Gm[0, 1], SM.F.r_ae: Gm[0, 4], SM.F.r_be: Gm[1, 4], SM.F.r_aa2: Gm[0, 2],
                    SM.F.r_ab2: Gm[0, 3], SM.F.r_ba2: Gm[1, 2], SM.F.r_bb2: Gm[1, 3], SM.F.r_a2b2: Gm[2, 3]}
            for i, a in enumerate(args):
                if a in corr:
                    vals[i] = corr[a]
            with mpmath.workdps(30):
                ref = float(fmp[name](*[mpmath.mpf(float(v)) for v in vals]))
            assert abs(f64[name](*vals) - ref) <= 1e-14 * max(1.0, abs(ref)), name


def test_sampler_moments():
    """E Y = 0 and Var Y = K gamma^2 + eps^2 (k*_j orthogonal to v*_j), within 4.5 SE; positions distinct."""
    rng = np.random.default_rng(11)
    Ks, Vs = random_locations(3, 12, rng)
    X, J, Y = sample_multi(Ks, Vs, gamma=0.8, eps=0.3, L=5, n=100_000, seed=4)
    assert all(len(set(row)) == 3 for row in J[:1000])
    var = 3 * 0.64 + 0.09
    assert abs(Y.mean()) <= 4.5 * math.sqrt(var / Y.size)
    se_var = math.sqrt(2 * var**2 / Y.size)
    assert abs(Y.var() - var) <= 4.5 * se_var


@pytest.mark.parametrize("kw,match", [
    (dict(lam=-1.0), "lam"), (dict(gamma=0.0), "gamma"), (dict(eps=-0.1), "eps"), (dict(L=1), "L"), (dict(L=2.5), "L"),
])
def test_bad_parameters_raise(kw, match):
    rng = np.random.default_rng(0)
    Kh, Vh, Ks, Vs = _instance(rng, 2, 2, 10)
    p = dict(lam=0.5, gamma=0.7, eps=0.1, L=4) | kw
    with pytest.raises(ValueError, match=match):
        slr_verify.multihead_risk(Kh, Vh, Ks, Vs, **p)


def test_bad_directions_raise():
    rng = np.random.default_rng(0)
    Kh, Vh, Ks, Vs = _instance(rng, 2, 2, 10)
    p = dict(lam=0.5, gamma=0.7, eps=0.1, L=4)
    with pytest.raises(ValueError, match="unit rows"):
        slr_verify.multihead_risk(2 * Kh, Vh, Ks, Vs, **p)
    with pytest.raises(ValueError, match="orthogonal"):
        slr_verify.multihead_risk(Kh, Vh, Ks, Ks, **p)
    with pytest.raises(ValueError, match="shape"):
        slr_verify.multihead_risk(Kh, Vh[:1], Ks, Vs, **p)
    with pytest.raises(ValueError, match="K_star"):
        slr_verify.multihead_risk(Kh, Vh, Ks[:, :5], Vs[:, :5], **p)


# ------------------------------------------------------------------ dynamics
from slr_verify.dynamics.multihead import batch_gradient_heads, gram_step, multihead_pgd, multihead_sgd  # noqa: E402


def test_gram_step_is_the_full_dimensional_projected_step():
    """One d-free step equals the projected step on the vectors with the gradient taken by
    central finite differences of the closed-form risk along each coordinate (an independent
    route to the gradient), to 1e-8."""
    rng = np.random.default_rng(5)
    H, K, d = 2, 2, 9
    Kh, Vh, Ks, Vs = _instance(rng, H, K, d)
    p = dict(lam=0.7, gamma=0.6, eps=0.1, L=5)
    alpha = 0.05

    def R(Kx, Vx):  # the risk at unnormalised heads, through the unit-norm formula on normalised rows
        return slr_verify.multihead_risk(Kx, Vx, Ks, Vs, **p)

    h = 1e-6
    new = []
    for which, M in (("k", Kh), ("v", Vh)):
        out = M.copy()
        for i in range(H):
            g = np.zeros(d)
            for c in range(d):
                Mp, Mm = M.copy(), M.copy()
                Mp[i, c] += h
                Mm[i, c] -= h
                Mp[i] /= np.linalg.norm(Mp[i])
                Mm[i] /= np.linalg.norm(Mm[i])
                args_p = (Mp, Vh) if which == "k" else (Kh, Mp)
                args_m = (Mm, Vh) if which == "k" else (Kh, Mm)
                g[c] = (R(*args_p) - R(*args_m)) / (2 * h)  # the tangent gradient (radial part removed by normalising)
            y = M[i] - alpha * (g - (g @ M[i]) * M[i])
            out[i] = y / np.linalg.norm(y)
        new.append(out)
    G_ref = KM.gram_of(new[0], new[1], Ks, Vs)
    G = gram_step(KM.gram_of(Kh, Vh, Ks, Vs)[None], H, K, d=d, alpha=alpha, **p)[0]
    assert np.max(np.abs(G - G_ref)) <= 1e-8


def test_batch_gradient_is_unbiased_for_the_tangent_gradient():
    """The mean of the SGD batch gradient over 4e5 samples matches the closed form's tangent
    gradient within 4.5 standard errors, component by component (Monte Carlo)."""
    rng = np.random.default_rng(1)
    H, K, d = 2, 2, 8
    Kh, Vh, Ks, Vs = _instance(rng, H, K, d)
    p = dict(lam=0.8, gamma=0.7, eps=0.1, L=5)
    X, J, Y = sample_multi(Ks, Vs, gamma=p["gamma"], eps=p["eps"], L=p["L"], n=200_000, seed=1)
    gk, gv = batch_gradient_heads(Kh[None], Vh[None], X.reshape(1000, 200, p["L"], d), Y.reshape(1000, 200), p["lam"])
    fn, pairs = KM.risk_gradient_kernel(H, K)
    Gm = KM.gram_of(Kh, Vh, Ks, Vs)
    out = fn(*Gm[pairs[:, 0], pairs[:, 1]], p["lam"], p["gamma"], p["eps"], d, p["L"])
    P = np.zeros((2 * H + 2 * K,) * 2)
    for (i, j), g in zip(pairs, out[1:]):
        P[i, j] = P[j, i] = g
    W = np.concatenate([Kh, Vh, Ks, Vs])
    exact = P @ W
    for idx, (samples, u) in enumerate([(gk[:, 0], Kh[0]), (gk[:, 1], Kh[1]), (gv[:, 0], Vh[0]), (gv[:, 1], Vh[1])]):
        tan = samples - (samples @ u)[:, None] * u
        se = tan.std(axis=0, ddof=1) / math.sqrt(tan.shape[0])
        ref = exact[idx] - (exact[idx] @ u) * u
        assert np.all(np.abs(tan.mean(axis=0) - ref) <= 4.5 * se), idx


def test_multihead_pgd_decreases_the_risk_and_keeps_unit_vectors():
    rng = np.random.default_rng(9)
    Kh, Vh, Ks, Vs = _instance(rng, 2, 2, 40, pull=0.0)
    G0 = KM.gram_of(Kh, Vh, Ks, Vs)
    tr = multihead_pgd(G0, 2, 2, lam=1.0, gamma=math.sqrt(0.5), eps=0.1, d=40, L=10, alpha=1e-3, steps=300, every=100)
    assert np.all(np.diff(tr.risk) < 0)
    assert np.allclose(np.diagonal(tr.gram[-1]), 1.0)
    ev = np.linalg.eigvalsh(tr.gram[-1])
    assert ev.min() > -1e-10  # still a Gram matrix


def test_multihead_runners_reject_bad_input():
    rng = np.random.default_rng(0)
    Kh, Vh, Ks, Vs = _instance(rng, 2, 2, 10)
    G0 = KM.gram_of(Kh, Vh, Ks, Vs)
    with pytest.raises(ValueError, match="gram0"):
        multihead_pgd(G0[:6, :6], 2, 2, lam=1.0, gamma=0.7, eps=0.1, d=10, L=4, alpha=1e-3, steps=1)
    with pytest.raises(ValueError, match="H must be"):
        multihead_pgd(G0, 1.5, 2, lam=1.0, gamma=0.7, eps=0.1, d=10, L=4, alpha=1e-3, steps=1)
    with pytest.raises(ValueError, match="alpha"):
        multihead_pgd(G0, 2, 2, lam=1.0, gamma=0.7, eps=0.1, d=10, L=4, alpha=-1.0, steps=1)
    with pytest.raises(ValueError, match="L"):
        multihead_pgd(G0, 2, 2, lam=1.0, gamma=0.7, eps=0.1, d=10, L=1, alpha=1e-3, steps=1)
    with pytest.raises(ValueError, match="batch"):
        multihead_sgd(Kh, Vh, Ks, Vs, lam=1.0, gamma=0.7, eps=0.1, L=4, alpha=1e-3, steps=1, batch=0, seed=0)
