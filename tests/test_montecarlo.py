"""Monte Carlo route: samplers, predictors, and agreement with exact values.

Every expected value comes from a reference independent of slr_verify's closed forms: a 1-D
``scipy.integrate.quad`` integral derived in the test, a formula typed from the paper
(Proposition 3), or the other sampler. Monte Carlo comparisons use fixed seeds and a 4.5
standard-error tolerance (two-sided false-alarm rate 7e-6 per comparison).
"""
import math

import numpy as np
import pytest
from scipy import integrate, special

from slr_verify.model.validation import gram_matrix
from slr_verify.routes import montecarlo as mc

Z_TOL = 4.5
GAMMA = math.sqrt(0.5)  # the paper's gamma^2 = 1/2 (Section 5)


def gauss_mean(f):
    """E[f(Z)], Z ~ N(0, 1), by adaptive quadrature (the reference, not the code under test)."""
    val, err = integrate.quad(lambda z: f(z) * math.exp(-z * z / 2) / math.sqrt(2 * math.pi), -np.inf, np.inf,
                              epsabs=1e-13, epsrel=1e-12, limit=200)
    return val


def zeta_quad(g, t):
    """zeta_g(t) = E[erf(t + g Z)^2] (`docs/MATH.md` §4), by quadrature."""
    return gauss_mean(lambda z: special.erf(t + g * z) ** 2)


def zscore(est, se, ref):
    return (est - ref) / se


def overlaps_of(k, v, ks, vs):
    return (k @ ks, v @ vs, v @ ks, k @ vs, k @ v)


def unit(x):
    return x / np.linalg.norm(x)


# ----------------------------------------------------------------------------------------------
# the two samplers agree, and the risk of T does not depend on the law of J0 (`docs/MATH.md` §2)

LAWS = {
    "uniform": None,
    "skewed": np.array([0.55, 0.25, 0.15, 0.05]),
    "point-mass": np.array([0.0, 0.0, 1.0, 0.0]),
}


@pytest.mark.parametrize("predictor", ["erf", pytest.param("softmax", marks=pytest.mark.slow)])
def test_full_sampler_matches_dfree_for_every_law_of_J0(predictor):
    d, L, lam, eps = 20, 4, 0.6, 0.2
    ks, vs = mc.random_instance(d, 11)
    points = [
        (mc.random_unit(d, 12), mc.random_unit(d, 13)),
        (mc.random_unit(d, 14), mc.random_unit(d, 15)),
        (unit(0.8 * ks + 0.3 * vs + 0.2 * mc.random_unit(d, 16)), unit(0.9 * vs - 0.3 * ks + 0.1 * mc.random_unit(d, 17))),
    ]
    worst = 0.0
    for i, (k, v) in enumerate(points):
        ref = mc.mc_risk_overlaps(*overlaps_of(k, v, ks, vs), lam=lam, gamma=GAMMA, eps=eps, d=d, L=L,
                                  n=400_000, seed=100 + i, predictor=predictor)
        for j, (name, p) in enumerate(LAWS.items()):
            est = mc.mc_risk(k, v, ks, vs, lam=lam, gamma=GAMMA, eps=eps, L=L, n=60_000, seed=200 + 10 * i + j,
                             p=p, predictor=predictor)
            z = (est.estimate - ref.estimate) / math.hypot(est.standard_error, ref.standard_error)
            worst = max(worst, abs(z))
            assert abs(z) < Z_TOL, (predictor, i, name, est, ref, z)
    print(f"{predictor}: worst |z| full vs d-free over laws of J0 = {worst:.2f}")


def test_law_of_J0_does_move_a_non_symmetric_predictor():
    """Power check for the test above: the linear predictor of Proposition 3 is not symmetric in
    the tokens, and its risk does change with p, by far more than 4.5 standard errors."""
    d, L = 20, 4
    ks, vs = mc.random_instance(d, 11)
    a = mc.mc_risk(None, None, ks, vs, lam=1.0, gamma=GAMMA, eps=0.2, L=L, n=60_000, seed=1, predictor="linear")
    b = mc.mc_risk(None, None, ks, vs, lam=1.0, gamma=GAMMA, eps=0.2, L=L, n=60_000, seed=2, predictor="linear",
                   p=LAWS["skewed"])
    z = (a.estimate - b.estimate) / math.hypot(a.standard_error, b.standard_error)
    assert abs(z) > 2 * Z_TOL, z  # measured |z| ~ 14


# ----------------------------------------------------------------------------------------------
# exactly computable cases


@pytest.mark.parametrize(
    "d, lam, sampler",
    [(20, 0.2, "full"), (20, 0.2, "dfree"), (400, 0.05, "dfree"), (10**12, 1e-6, "dfree")],
)
def test_oracle_L1_eps0_matches_quadrature(d, lam, sampler):
    """L = 1, eps = 0, (k, v) = (k*, v*): Y - T = s erfc(lam a) with s = X^T v* ~ N(0, gamma^2)
    independent of a = X^T k* ~ N(sqrt(d/2), gamma^2), so R = gamma^2 E[erfc(lam sqrt(d/2) +
    lam gamma Z)^2] (`docs/MATH.md` §6), evaluated by quadrature."""
    gamma = GAMMA
    a = lam * math.sqrt(d / 2)
    ref = gamma**2 * gauss_mean(lambda z: special.erfc(a + lam * gamma * z) ** 2)
    if sampler == "full":
        ks, vs = mc.random_instance(d, 3)
        est = mc.mc_risk(None, None, ks, vs, lam=lam, gamma=gamma, eps=0.0, L=1, n=200_000, seed=4, predictor="oracle")
    else:
        est = mc.mc_risk_overlaps(0.3, 0.2, 0.1, 0.1, 0.1, lam=lam, gamma=gamma, eps=0.0, d=d, L=1, n=400_000,
                                  seed=5, predictor="oracle")
    z = zscore(*est, ref)
    print(f"oracle L=1 d={d} ({sampler}): MC {est.estimate:.6g} +- {est.standard_error:.2g}, quad {ref:.6g}, z={z:.2f}")
    assert abs(z) < Z_TOL
    assert est.standard_error < 0.02 * ref  # the comparison is sharp


@pytest.mark.parametrize("L, lam, eps", [(1, 0.3, 0.1), (5, 0.7, 0.0), (10, 0.15, 0.3)])
def test_null_value_vector_matches_exact_risk(L, lam, eps):
    """v orthogonal to k, k* and v* (so nu = theta = rho = 0, eta free): u_l = X_l^T v is
    independent of (X_l^T k, Y) and of the other tokens, centred, with variance 1 (null token)
    or gamma^2 (relevant token), so E[Y T] = 0 and the cross terms of E[T^2] vanish:
        R = eps^2 + gamma^2 + (L - 1) zeta_lam(0) + gamma^2 zeta_{lam gamma}(lam sqrt(d/2) kappa),
    with zeta_g(t) = E[erf(t + g Z)^2] by quadrature (zeta_lam(0) also checked against the
    arcsine form of `docs/MATH.md` §4)."""
    d, gamma = 20, GAMMA
    ks, vs = mc.random_instance(d, 21)
    k = mc.random_unit(d, 22)
    basis, _ = np.linalg.qr(np.stack([k, ks, vs], axis=1))
    v = mc.random_unit(d, 23)
    v = unit(v - basis @ (basis.T @ v))
    kappa = float(k @ ks)
    z0 = zeta_quad(lam, 0.0)
    assert z0 == pytest.approx(2 / math.pi * math.asin(2 * lam**2 / (1 + 2 * lam**2)), rel=1e-9)
    ref = eps**2 + gamma**2 + (L - 1) * z0 + gamma**2 * zeta_quad(lam * gamma, lam * math.sqrt(d / 2) * kappa)
    full = mc.mc_risk(k, v, ks, vs, lam=lam, gamma=gamma, eps=eps, L=L, n=100_000, seed=24)
    dfree = mc.mc_risk_overlaps(*overlaps_of(k, v, ks, vs), lam=lam, gamma=gamma, eps=eps, d=d, L=L,
                                n=400_000, seed=25)
    for est in (full, dfree):
        print(f"null v, L={L}: MC {est.estimate:.6g} +- {est.standard_error:.2g}, exact {ref:.6g}, z={zscore(*est, ref):.2f}")
        assert abs(zscore(*est, ref)) < Z_TOL


@pytest.mark.parametrize("nu, theta", [(0.3, 0.2), (-0.5, 0.1), (1.0, 0.0)])
def test_softmax_L1_is_linear_with_weight_v(nu, theta):
    """L = 1: softmax weights are 1, T^soft = X^T v, so Y - T = X^T (v* - v) + xi with mean
    -sqrt(d/2) theta and variance gamma^2 |v* - v|^2: R = eps^2 + gamma^2 (2 - 2 nu) + (d/2) theta^2."""
    d, gamma, eps = 30, GAMMA, 0.2
    kappa, eta, rho = 0.1, -0.2, 0.3  # with nu = 1 (v = v*) realisability forces rho = eta
    ref = eps**2 + gamma**2 * (2 - 2 * nu) + d / 2 * theta**2
    est = mc.mc_risk_overlaps(kappa, nu, theta, eta, rho if nu != 1.0 else eta, lam=2.0, gamma=gamma, eps=eps, d=d,
                              L=1, n=400_000, seed=31, predictor="softmax")
    assert abs(zscore(*est, ref)) < Z_TOL, (est, ref)


def test_softmax_is_stable_for_huge_lam():
    d = 10
    ks, vs = mc.random_instance(d, 41)
    k, v = mc.random_unit(d, 42), mc.random_unit(d, 43)
    for lam in (1e3, 1e8):
        r = mc.mc_risk(k, v, ks, vs, lam=lam, gamma=GAMMA, eps=0.1, L=6, n=5000, seed=44, predictor="softmax")
        assert np.isfinite(r.estimate) and np.isfinite(r.standard_error)
        r2 = mc.mc_risk_overlaps(*overlaps_of(k, v, ks, vs), lam=lam, gamma=GAMMA, eps=0.1, d=d, L=6, n=5000,
                                 seed=45, predictor="softmax")
        assert np.isfinite(r2.estimate)


@pytest.mark.parametrize("kappa, nu", [(0.0, 0.0), (0.6, -0.4), (-0.9, 0.8), (1.0, 1.0)])
def test_manifold_risk_lemma6_and_oracle_formula(kappa, nu):
    """Claim check (`docs/MATH.md` §9, Lemma 6; at (1, 1) the oracle risk of `docs/MATH.md` §5): on M the risk is
    eps^2 + gamma^2 + (L-1) zeta_lam(0) + gamma^2 [zeta_{lam gamma}(c kappa) - 2 nu erf(c kappa /
    sqrt(1 + 2 lam^2 gamma^2))], c = lam sqrt(d/2); zeta by quadrature, the risk by simulation
    at the paper's d = 400, L = 10, lam = 0.1 (Figure 4b)."""
    d, L, lam, gamma, eps = 400, 10, 0.1, GAMMA, 0.1
    c = lam * math.sqrt(d / 2)
    ref = (eps**2 + gamma**2 + (L - 1) * zeta_quad(lam, 0.0)
           + gamma**2 * (zeta_quad(lam * gamma, c * kappa)
                         - 2 * nu * special.erf(c * kappa / math.sqrt(1 + 2 * lam**2 * gamma**2))))
    est = mc.mc_risk_overlaps(kappa, nu, 0.0, 0.0, 0.0, lam=lam, gamma=gamma, eps=eps, d=d, L=L, n=400_000, seed=51)
    print(f"Lemma 6 at ({kappa}, {nu}): MC {est.estimate:.6g} +- {est.standard_error:.2g}, formula {ref:.6g}, "
          f"z={zscore(*est, ref):.2f}")
    assert abs(zscore(*est, ref)) < Z_TOL


# ----------------------------------------------------------------------------------------------
# Proposition 3: least squares on samples vs the best linear risk


def r_lin_paper(p, gamma, eps):
    """Proposition 3 as printed (`docs/MATH.md` §7): R_lin = eps^2 + gamma^2 - sum p_l^2 gamma^4 / (1 - p_l + p_l gamma^2)."""
    p = np.asarray(p, dtype=float)
    return eps**2 + gamma**2 - float(np.sum(p**2 * gamma**4 / (1 - p + p * gamma**2)))


def test_least_squares_fit_matches_proposition_3_for_nonuniform_p():
    """Held-out risk of the least-squares linear predictor fitted on n_train samples equals
    R_lin + excess, excess >= 0 (Proposition 3: nothing linear does better) and, for OLS with a
    dim = L d dimensional design, E[excess] ~ R_lin dim / (n_train - dim); we allow 5 times that.
    The paired excess (same held-out samples for the fitted and the Proposition 3 predictors) has
    a tiny standard error, so 'fitted beats Proposition 3' would be detected sharply."""
    d, L, gamma, eps = 6, 3, GAMMA, 0.3
    p = np.array([0.6, 0.3, 0.1])
    ks, vs = mc.random_instance(d, 61)
    n_train, n_test = 20_000, 300_000
    fit = mc.fit_linear_risk(ks, vs, gamma=gamma, eps=eps, L=L, n_train=n_train, n_test=n_test, seed=62, p=p)
    ref = r_lin_paper(p, gamma, eps)
    dim = L * d
    bound = 5 * ref * dim / (n_train - dim)
    print(f"Prop 3: fitted held-out {fit.estimate:.6g} +- {fit.standard_error:.2g}, R_lin {ref:.6g}, "
          f"paired excess {fit.excess:.3g} +- {fit.excess_se:.2g}, bound {bound:.3g}")
    assert ref - Z_TOL * fit.standard_error <= fit.estimate <= ref + bound + Z_TOL * fit.standard_error
    assert -Z_TOL * fit.excess_se <= fit.excess <= bound + Z_TOL * fit.excess_se
    # the Proposition 3 predictor itself, on the same held-out samples
    opt = mc.mc_risk(None, None, ks, vs, lam=1.0, gamma=gamma, eps=eps, L=L, n=n_test, seed=62, p=p, predictor="linear")
    assert abs(zscore(*opt, ref)) < Z_TOL
    assert opt.estimate + fit.excess == pytest.approx(fit.estimate, rel=1e-9)
    # fitted weights ~ c_l v* with c_l = p_l gamma^2 / (1 - p_l + p_l gamma^2)
    c = p * gamma**2 / (1 - p + p * gamma**2)
    assert np.max(np.abs(fit.weights - np.outer(c, vs))) < 0.05
    # power: the uniform-p value of Proposition 3 is rejected by the same comparison
    wrong = r_lin_paper(np.full(L, 1 / L), gamma, eps)
    assert abs(zscore(*opt, wrong)) > 4 * Z_TOL  # measured |z| ~ 43


# ----------------------------------------------------------------------------------------------
# exact law of the projections


@pytest.mark.parametrize(
    "ov",
    [(0.3, 0.2, 0.1, 0.1, 0.1), (1.0, 1.0, 0.0, 0.0, 0.0), (0.6, 0.8, 0.0, 0.0, 0.6 * 0.8), (0.0, 0.0, 0.0, 1.0, 0.0)],
    ids=["rank4", "oracle-rank2", "rank3", "k=v*"],
)
def test_projection_sampler_has_the_exact_moments(ov):
    """Null tokens ~ N(0, G), relevant token ~ N(sqrt(d/2)(kappa, theta, 1, 0), gamma^2 G) (`docs/MATH.md` §1, 3),
    including singular G. Each empirical mean / second moment (around the true mean) is compared
    with the truth within 4.5 of its own standard error: Var(x_i x_j) = S_ii S_jj + S_ij^2."""
    d, L, gamma, n = 50, 4, 0.8, 60_000
    G = gram_matrix(*ov)
    P, J0 = mc.sample_projections(*ov, gamma=gamma, d=d, L=L, n=n, seed=71, p=[0.1, 0.2, 0.3, 0.4])
    rows = np.arange(n)
    rel = P[rows, J0]
    mask = np.ones((n, L), bool)
    mask[rows, J0] = False
    null = P[mask]
    # J0 follows p
    freq = np.bincount(J0, minlength=L) / n
    assert np.all(np.abs(freq - [0.1, 0.2, 0.3, 0.4]) < Z_TOL * np.sqrt(np.array([0.1, 0.2, 0.3, 0.4]) * 0.9 / n) + 1e-12)
    mu = math.sqrt(d / 2) * np.array([ov[0], ov[2], 1.0, 0.0])
    for X, S, m in ((null, G, np.zeros(4)), (rel, gamma**2 * G, mu)):
        N = X.shape[0]
        se_mean = np.sqrt(np.diag(S) / N)
        assert np.all(np.abs(X.mean(0) - m) <= Z_TOL * se_mean + 1e-9)
        C = (X - m).T @ (X - m) / N
        se_cov = np.sqrt((np.outer(np.diag(S), np.diag(S)) + S**2) / N)
        assert np.all(np.abs(C - S) <= Z_TOL * se_cov + 1e-9), np.abs(C - S) / (se_cov + 1e-300)
    # the label X_{J0}^T v* has variance gamma^2 and is exactly the last projection of the relevant token
    assert np.allclose(rel[:, 3].var(), gamma**2, rtol=0.03)


def test_full_sampler_law():
    """sample_slr: relevant token mean sqrt(d/2) k*, covariance gamma^2 I; Y = X_{J0}^T v* + xi."""
    d, L, gamma, eps, n = 8, 3, 0.6, 0.25, 40_000
    ks, vs = mc.random_instance(d, 81)
    X, J0, Y = mc.sample_slr(ks, vs, gamma=gamma, eps=eps, L=L, n=n, seed=82, p=[0.2, 0.0, 0.8])
    assert set(np.unique(J0)) == {0, 2}
    rel = X[np.arange(n), J0]
    assert np.all(np.abs(rel.mean(0) - math.sqrt(d / 2) * ks) < Z_TOL * gamma / math.sqrt(n))
    assert np.allclose(np.cov(rel.T), gamma**2 * np.eye(d), atol=Z_TOL * gamma**2 * math.sqrt(2 / n))
    xi = Y - rel @ vs
    assert abs(xi.std() - eps) < Z_TOL * eps / math.sqrt(2 * n)
    other = X[:, 1]  # location 1 is never relevant
    assert np.allclose(np.cov(other.T), np.eye(d), atol=Z_TOL * math.sqrt(2 / n))


# ----------------------------------------------------------------------------------------------
# reproducibility, chunking, standard errors


def test_reproducible_and_independent_of_memory_budget():
    d, L = 12, 5
    ks, vs = mc.random_instance(d, 91)
    k, v = mc.random_unit(d, 92), mc.random_unit(d, 93)
    kw = dict(lam=0.5, gamma=GAMMA, eps=0.1, L=L, n=70_000)
    a = mc.mc_risk(k, v, ks, vs, seed=7, **kw)
    assert mc.mc_risk(k, v, ks, vs, seed=7, **kw) == a
    assert mc.mc_risk(k, v, ks, vs, seed=7, memory=50_000, **kw) == a  # many small chunks
    assert mc.mc_risk(k, v, ks, vs, seed=8, **kw) != a
    ov = overlaps_of(k, v, ks, vs)
    b = mc.mc_risk_overlaps(*ov, d=d, seed=7, **kw)
    assert mc.mc_risk_overlaps(*ov, d=d, seed=7, memory=2**23, **kw) == b
    assert mc.mc_risk_overlaps(*ov, d=d, seed=9, **kw) != b
    # the estimate and its standard error are those of the samples sample_slr returns (3 blocks
    # merged by Chan's update vs a plain two-pass computation)
    X, J0, Y = mc.sample_slr(ks, vs, gamma=GAMMA, eps=0.1, L=L, n=70_000, seed=7)
    err = (Y - np.sum(special.erf(0.5 * X @ k) * (X @ v), axis=1)) ** 2
    assert a.estimate == pytest.approx(err.mean(), rel=1e-12)
    assert a.standard_error == pytest.approx(err.std(ddof=1) / math.sqrt(err.size), rel=1e-10)


def test_standard_error_scales_like_inverse_sqrt_n():
    kw = dict(lam=0.3, gamma=GAMMA, eps=0.1, d=100, L=8, seed=3)
    small = mc.mc_risk_overlaps(0.5, 0.4, 0.1, -0.1, 0.2, n=40_000, **kw)
    large = mc.mc_risk_overlaps(0.5, 0.4, 0.1, -0.1, 0.2, n=640_000, **kw)
    assert large.standard_error / small.standard_error == pytest.approx(0.25, rel=0.1)
    z = (large.estimate - small.estimate) / math.hypot(large.standard_error, small.standard_error)
    assert abs(z) < Z_TOL


def test_random_instance_and_unit():
    ks, vs = mc.random_instance(7, 1)
    assert abs(ks @ vs) < 1e-14 and abs(ks @ ks - 1) < 1e-14 and abs(vs @ vs - 1) < 1e-14
    u = mc.random_unit(7, 2)
    assert abs(u @ u - 1) < 1e-14
    assert np.array_equal(mc.random_unit(7, 2), u) and not np.array_equal(mc.random_unit(7, 3), u)


# ----------------------------------------------------------------------------------------------
# validation

_D = 6
_KS, _VS = mc.random_instance(_D, 5)
_K, _V = mc.random_unit(_D, 6), mc.random_unit(_D, 7)
_GOOD = dict(lam=0.5, gamma=GAMMA, eps=0.1, L=3, n=100, seed=0)


@pytest.mark.parametrize(
    "args, kwargs, name",
    [
        ((2 * _K, _V, _KS, _VS), {}, "k"),
        ((_K, _V * 0.9, _KS, _VS), {}, "v"),
        ((_K, _V, _KS, unit(_VS + 0.1 * _KS)), {}, "orthogonal"),
        ((_K, _V, _KS * np.nan, _VS), {}, "k_star"),
        ((_K, _V, _KS, _VS), {"lam": 0.0}, "lam"),
        ((_K, _V, _KS, _VS), {"lam": -1.0}, "lam"),
        ((_K, _V, _KS, _VS), {"gamma": 0.0}, "gamma"),
        ((_K, _V, _KS, _VS), {"eps": -0.1}, "eps"),
        ((_K, _V, _KS, _VS), {"eps": float("nan")}, "eps"),
        ((_K, _V, _KS, _VS), {"L": 0}, "L"),
        ((_K, _V, _KS, _VS), {"L": 2.5}, "L"),
        ((_K, _V, _KS, _VS), {"n": 1}, "n"),
        ((_K, _V, _KS, _VS), {"p": [0.5, 0.5]}, "p"),
        ((_K, _V, _KS, _VS), {"p": [0.5, 0.6, -0.1]}, "p"),
        ((_K, _V, _KS, _VS), {"predictor": "relu"}, "predictor"),
        ((_K, _V, _KS, _VS), {"seed": -1}, "seed"),
        ((_K, _V, _KS, _VS), {"memory": 10}, "memory"),
        ((None, _V, _KS, _VS), {}, "k"),
        ((_K[:4], _V, _KS, _VS), {}, "k"),
    ],
)
def test_mc_risk_rejects_invalid_input(args, kwargs, name):
    with pytest.raises(ValueError, match=name):
        mc.mc_risk(*args, **{**_GOOD, **kwargs})


@pytest.mark.parametrize(
    "ov, kwargs, name",
    [
        ((0.9, 0.9, 0.9, 0.9, 0.9), {}, "realisable"),
        ((1.5, 0.0, 0.0, 0.0, 0.0), {}, "kappa"),
        ((0.1, float("nan"), 0.0, 0.0, 0.0), {}, "nu"),
        ((0.3, 0.2, 0.1, 0.1, 0.1), {"d": 3}, "d=3"),
        ((0.3, 0.2, 0.1, 0.1, 0.1), {"d": 0}, "d"),
        ((0.3, 0.2, 0.1, 0.1, 0.1), {"lam": 0}, "lam"),
        ((0.3, 0.2, 0.1, 0.1, 0.1), {"predictor": "oracle2"}, "predictor"),
        ((0.3, 0.2, 0.1, 0.1, 0.1), {"memory": 1000}, "memory"),
    ],
)
def test_mc_risk_overlaps_rejects_invalid_input(ov, kwargs, name):
    with pytest.raises(ValueError, match=name):
        mc.mc_risk_overlaps(*ov, **{**_GOOD, "d": 50, **kwargs})


def test_oracle_and_linear_accept_missing_k_v():
    r = mc.mc_risk(None, None, _KS, _VS, **_GOOD, predictor="oracle")
    assert r == mc.mc_risk(_KS, _VS, _KS, _VS, **_GOOD, predictor="erf")


# ----------------------------------------------------------------------------------------------
# heavier fuzz (slow)


@pytest.mark.slow
@pytest.mark.parametrize("trial", range(6))
def test_fuzz_full_vs_dfree_slow(trial):
    rng = np.random.default_rng(1000 + trial)
    d = int(rng.integers(3, 40))
    L = int(rng.integers(1, 12))
    lam = float(np.exp(rng.uniform(np.log(0.05), np.log(3.0))))
    eps = float(rng.uniform(0, 0.5))
    ks, vs = mc.random_instance(d, 2000 + trial)
    k, v = mc.random_unit(d, 3000 + trial), mc.random_unit(d, 4000 + trial)
    p = rng.dirichlet(np.ones(L))
    for predictor in ("erf", "softmax", "oracle", "linear"):
        a = mc.mc_risk(k, v, ks, vs, lam=lam, gamma=GAMMA, eps=eps, L=L, n=300_000, seed=trial, p=p, predictor=predictor)
        b = mc.mc_risk_overlaps(*overlaps_of(k, v, ks, vs), lam=lam, gamma=GAMMA, eps=eps, d=d, L=L, n=2_000_000,
                                seed=trial, p=p, predictor=predictor)
        z = (a.estimate - b.estimate) / math.hypot(a.standard_error, b.standard_error)
        assert abs(z) < Z_TOL, (predictor, d, L, lam, z)
