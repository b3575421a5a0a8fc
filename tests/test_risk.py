"""Theorem 1, its specialisations and its generated kernels.

References, by test:
* SymPy identities (exact): oracle risk = `docs/MATH.md` §5, Lemma 6 = `docs/MATH.md` §9, Bayes gap complement form,
  independence from the law of J0;
* the same SymPy expressions evaluated by mpmath at 30 digits (exact derivative by SymPy,
  then high precision): the float64 kernels must not lose accuracy to cancellation;
* central differences of the 30-digit risk: the generated gradient is the derivative;
* the model's symmetry (k, v, k*, v*) -> (-k, -v, -k*, -v*) ... realised on overlaps as
  (kappa, nu, theta, eta, rho) -> (-kappa, -nu, -theta, -eta, rho) (flip k and v only).
"""
import math

import mpmath
import numpy as np
import pytest
import sympy as sp
from hypothesis import assume, given
from hypothesis import strategies as st
from strategies import params, realisable_overlaps

import slr_verify
from slr_verify.kernels import special
from slr_verify.symbolic import risk as R
from slr_verify.symbolic.zeta import zeta, zetac

ARGS = R.OVERLAPS + R.PARAMS
# Plain lambdify with names chosen here (not the project's printer): zeta and zetac are replaced by
# placeholders bound to the mpmath closed forms, so a wrong name cannot fall back to mpmath.zeta.
_Z, _ZC = sp.Function("mp_zeta"), sp.Function("mp_zetac")
MP_NAMESPACE = {
    "mp_zeta": lambda t, g: special.zeta_mp(t, g, dps=mpmath.mp.dps),
    "mp_zetac": lambda t, g: special.zetac_mp(t, g, dps=mpmath.mp.dps),
}


def mp_function(expr, args=ARGS):
    expr = expr.replace(zeta, _Z).replace(zetac, _ZC)
    return sp.lambdify(args, expr, modules=[MP_NAMESPACE, "mpmath"])


MP_RISK = mp_function(R.theorem1_risk())
MP_GRAD = [mp_function(g) for g in R.theorem1_gradient()]
NAMES = ("kappa", "nu", "theta", "eta", "rho")


def as_mp(ov, pr):
    return [mpmath.mpf(x) for x in (*ov, pr["lam"], pr["gamma"], pr["eps"], pr["d"], pr["L"])]


# ----------------------------------------------------------------- symbolic proofs
def test_bayes_gap_complement_form():
    lhs = R.bayes_gap_expr().replace(zetac, lambda t, g: zetac(t, g).rewrite(zeta)).rewrite(sp.asin)
    rhs = (R.oracle_risk_spec() - R.S.eps**2).rewrite(sp.asin)
    assert sp.simplify(lhs - rhs) == 0


def test_lemma4_prerequisite_gradient_vanishes_off_M_directions():
    """On M the partials in theta, eta, rho vanish (what makes M invariant, Lemma 4)."""
    g = R.theorem1_gradient()
    for i in (2, 3, 4):
        assert sp.simplify(g[i].subs(R.manifold_point())) == 0


# ----------------------------------------------------------------- kernels vs 30 digits
@given(ov=realisable_overlaps(), pr=params)
def test_risk_kernel_against_30_digits(ov, pr):
    """Error relative to the risk plus gamma^2, the size of the terms that cancel near the
    oracle (where R - eps^2 is tiny: there the Bayes-gap kernel is the accurate route)."""
    with mpmath.workdps(30):
        ref = MP_RISK(*as_mp(ov, pr))
    got = slr_verify.risk(*ov, **pr)
    assert abs(got - ref) <= 1e-12 * (abs(ref) + pr["gamma"] ** 2)


@given(ov=realisable_overlaps(), pr=params)
def test_gradient_kernel_against_exact_derivative(ov, pr):
    """Generated gradient vs SymPy's exact derivative at 30 digits; error relative to the
    gradient's size (a partial can vanish)."""
    with mpmath.workdps(30):
        ref = [g(*as_mp(ov, pr)) for g in MP_GRAD]
    got = slr_verify.risk_gradient(*ov, **pr)
    scale = max(abs(x) for x in ref) + 1e-300
    for name, r in zip(NAMES, ref):
        assert abs(got[name] - r) <= 1e-11 * scale, name


@given(ov=realisable_overlaps(), pr=params)
def test_gradient_is_the_derivative_central_differences(ov, pr):
    """Central differences of the 30-digit risk (step 1e-8, error O(h^2) ~ 1e-16 relative)."""
    got = slr_verify.risk_gradient(*ov, **pr)
    with mpmath.workdps(30):
        x = as_mp(ov, pr)
        h = mpmath.mpf("1e-8")
        fd = []
        for i in range(5):
            xp, xm = list(x), list(x)
            xp[i] += h
            xm[i] -= h
            fd.append((MP_RISK(*xp) - MP_RISK(*xm)) / (2 * h))
    scale = max(abs(v) for v in fd) + 1e-300
    for name, r in zip(NAMES, fd):
        assert abs(got[name] - r) <= 1e-9 * scale, name


@given(ov=realisable_overlaps(), pr=params)
def test_sign_symmetry(ov, pr):
    kappa, nu, theta, eta, rho = ov
    a = slr_verify.risk(kappa, nu, theta, eta, rho, **pr)
    b = slr_verify.risk(-kappa, -nu, -theta, -eta, rho, **pr)
    assert abs(a - b) <= 1e-13 * abs(a)


@given(kappa=st.floats(-1, 1), nu=st.floats(-1, 1), pr=params)
def test_manifold_risk_is_risk_on_M(kappa, nu, pr):
    assert math.isclose(slr_verify.manifold_risk(kappa, nu, **pr), slr_verify.risk(kappa, nu, 0, 0, 0, **pr), rel_tol=1e-13)


@given(pr=params)
def test_oracle_risk_against_section5_at_80_digits(pr):
    """`docs/MATH.md` §5 typed as printed, evaluated by mpmath (1 - 2 erf + zeta cancels down to
    the Bayes gap, which can be 1e-20 of the terms: 30 digits would leave 10). At 80 digits the
    reference itself is wrong where the gap is below ~1e-64 (with eps = 0 and L = 1: 4e-14 at
    d = 761, 1.4e-2 at d = 900, no digit at d = 1200, lam = gamma = 1), so the working precision
    grows by the digits the cancellation can lose: the gamma^2 term is at least erfc(A)^2-small,
    about 10^(-0.87 A^2), with A = lam sqrt(d/2).

    Tolerance: the kernels' documented accuracy, 1e-13, and for tiny gaps the condition number of
    the gap in its arguments, |log gap| ulps (kernels.special.zetac: measured against arb)."""
    A2 = pr["lam"] ** 2 * pr["d"] / 2
    rest = pr["eps"] ** 2 + (pr["L"] - 1) * pr["lam"] ** 2  # the terms that do not cancel (zeta_lam(0) ~ lam^2)
    dps = 80 if rest > 1e-60 else 80 + int(0.9 * A2)
    assume(dps <= 400)  # beyond, the gap is below ~1e-300: the log-domain test below covers it
    with mpmath.workdps(dps):
        lam, gamma, eps, d, L = (mpmath.mpf(pr[k]) for k in ("lam", "gamma", "eps", "d", "L"))
        A = lam * mpmath.sqrt(d / 2)
        ref = eps**2 + gamma**2 * (
            1 - 2 * mpmath.erf(A / mpmath.sqrt(1 + 2 * lam**2 * gamma**2)) + special.zeta_mp(A, lam * gamma, dps)
        ) + (L - 1) * 2 / mpmath.pi * mpmath.asin(2 * lam**2 / (1 + 2 * lam**2))
        tol = 1e-13 + 4 * abs(float(mpmath.log(ref))) * 2.0**-52
    assert abs(slr_verify.oracle_risk(**pr) - ref) <= tol * ref
    if pr["eps"] == 0:  # then the oracle risk is the Bayes gap, to the same accuracy
        assert abs(slr_verify.oracle_risk(**pr) - slr_verify.bayes_gap(**pr)) <= tol * ref


@pytest.mark.parametrize(
    "lam,gamma,d,L",
    [(0.1, 0.7071, 400, 1), (0.05, 0.7071, 1e4, 1), (1e-2, 0.5, 1e8, 1), (1e-3, 0.7071, 1e12, 1), (1e-3, 0.7071, 1e12, 10),
     (0.9, 0.7071, 400, 10)],
)
def test_bayes_gap_full_relative_accuracy(lam, gamma, d, L):
    """Corollary 2's gap against mpmath (`docs/MATH.md` §6 form gamma^2 E erfc^2 + (L-1) zeta_lam(0)),
    in the log domain: at d = 1e12 the gap is exp(-1e6), far below float64."""
    with mpmath.workdps(40):
        lam_, gamma_ = mpmath.mpf(lam), mpmath.mpf(gamma)
        A = lam_ * mpmath.sqrt(mpmath.mpf(d) / 2)
        ref = gamma_**2 * special.zetac_mp(A, lam_ * gamma_, 40) + (L - 1) * 2 / mpmath.pi * mpmath.asin(
            2 * lam_**2 / (1 + 2 * lam_**2)
        )
        ref_log = float(mpmath.log(ref))
    got = slr_verify.log_bayes_gap(lam=lam, gamma=gamma, eps=0.0, d=d, L=L)
    assert abs(got - ref_log) <= 1e-14 * max(1.0, abs(ref_log))


def test_bayes_gap_where_literal_formula_fails():
    """`docs/MATH.md` §6: with L = 1, eps = 0 the literal 1 - 2 erf + zeta is round-off noise; the kernel is not."""
    kw = dict(lam=0.2, gamma=0.7071067811865476, eps=0.0, d=8000, L=1)
    gap = slr_verify.bayes_gap(**kw)
    assert 0 < gap < 1e-100
    with mpmath.workdps(50):
        lam, g = mpmath.mpf(0.2), mpmath.mpf(0.2) * mpmath.mpf(0.7071067811865476)
        ref = mpmath.mpf(0.7071067811865476) ** 2 * special.zetac_mp(lam * mpmath.sqrt(4000), g, 50)
    assert abs(gap - ref) <= 1e-13 * ref


# ----------------------------------------------------------------- invalid input
GOOD = dict(lam=0.5, gamma=0.7, eps=0.1, d=400, L=10)
BAD_PARAMS = [
    ("lam", 0.0), ("lam", -1.0), ("lam", np.nan), ("gamma", 0.0), ("gamma", np.inf), ("eps", -0.1),
    ("d", 0), ("d", 2.5), ("L", 0), ("L", 1.5), ("L", np.nan), ("d", True),
]


@pytest.mark.parametrize("name,value", BAD_PARAMS)
def test_bad_parameters_raise(name, value):
    kw = dict(GOOD, **{name: value})
    for call in (
        lambda: slr_verify.risk(0.5, 0.5, 0, 0, 0, **kw),
        lambda: slr_verify.risk_gradient(0.5, 0.5, 0, 0, 0, **kw),
        lambda: slr_verify.oracle_risk(**kw),
        lambda: slr_verify.manifold_risk(0.5, 0.5, **kw),
        lambda: slr_verify.bayes_gap(**kw),
    ):
        with pytest.raises(ValueError, match=name):
            call()


@pytest.mark.parametrize(
    "ov,what",
    [((1, 1, 1, 0, 0), "not realisable"), ((0.8, 0.8, 0.6, 0.6, 0.0), "not realisable"), ((1.5, 0, 0, 0, 0), "kappa"),
     ((np.nan, 0, 0, 0, 0), "kappa"), ((0, 0, 0, 0, 2), "rho"), ((0.6, 0.6, 0.0, 0.0, 0.8), "not realisable")],
)
def test_unrealisable_overlaps_raise(ov, what):
    with pytest.raises(ValueError, match=what):
        slr_verify.risk(*ov, **GOOD)
    with pytest.raises(ValueError, match=what):
        slr_verify.risk_gradient(*ov, **GOOD)


def test_rank_larger_than_d_raises():
    with pytest.raises(ValueError, match="dimension d=3"):
        slr_verify.risk(0.5, 0.5, 0.1, 0.1, 0.1, **dict(GOOD, d=3))


def test_boundary_of_realisable_set_is_accepted():
    """k = v = k* (rank 2 Gram matrix) is realisable, down to d = 2."""
    assert np.isfinite(slr_verify.risk(1.0, 0.0, 1.0, 0.0, 1.0, **dict(GOOD, d=2)))


def test_broadcasting():
    kappa = np.linspace(-1, 1, 7)
    out = slr_verify.risk(kappa[:, None], 0.3, 0.0, 0.0, 0.0, **dict(GOOD, lam=np.array([0.1, 0.5, 1.0])))
    assert out.shape == (7, 3)
    assert out[2, 1] == slr_verify.risk(kappa[2], 0.3, 0, 0, 0, **GOOD)


# ----------------------------------------------------------------- the scalar path
@given(ov=realisable_overlaps(), pr=params)
def test_scalar_path_matches_the_array_path(ov, pr):
    """A call with plain Python floats takes the scalar path (generated ``math`` code, scalar zeta);
    it must agree with the array path (NumPy kernels) to a few ulps, for every function."""
    ov = tuple(float(x) for x in ov)
    arr = {k: np.array([v]) for k, v in pr.items()}
    pairs = [
        (slr_verify.risk(*ov, **pr), slr_verify.risk(*ov, **arr)[0]),
        (slr_verify.oracle_risk(**pr), slr_verify.oracle_risk(**arr)[0]),
        (slr_verify.manifold_risk(ov[0], ov[1], **pr), slr_verify.manifold_risk(ov[0], ov[1], **arr)[0]),
    ]
    g1, g2 = slr_verify.risk_gradient(*ov, **pr), slr_verify.risk_gradient(*ov, **arr)
    scale = max(abs(x) for x in g1.values()) + 1e-300
    for n in NAMES:
        assert abs(g1[n] - g2[n][0]) <= 1e-13 * scale
    for a, b in pairs:
        assert type(a) is float or isinstance(a, float)
        assert abs(a - b) <= 1e-14 * abs(b) + 1e-300
