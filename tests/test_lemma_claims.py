"""The claims of Assumption 1, Definition 1, Lemmas 7, 14, 16-18 (`slr_verify/claims/lemma_claims.py`, docs/MATH.md
§§1, 4, 8, 9, 20): each SymPy statement fails when what it states is perturbed, the ball proof of Lemma 16 fails on a
false inequality, and the quadrature route of Lemma 18 agrees with an independent one (NumPy's Gauss-Hermite rule with
SciPy's erf). Each claim's fast-mode verdict and tier are asserted by tests/test_report.py (test_claim_verdict_fast_mode).
"""
from types import SimpleNamespace

import numpy as np
import pytest
import sympy as sp
from scipy.special import erf

from slr_verify.claims.registry import get
from slr_verify.kernels import lemma_balls
from slr_verify.routes.erf_moments import quad_erf_moment
from slr_verify.symbolic import dynamics as sdyn
from slr_verify.symbolic import lemmas as slem
from slr_verify.symbolic import risk as srisk

NEW = ("assumption-1", "definition-1", "lemma-7", "lemma-14", "lemma-16", "lemma-17", "lemma-18")


def test_the_claims_are_registered_with_the_papers_numbering():
    where = {i: get(i).where for i in NEW}
    assert where["lemma-7"].startswith("Lemma 7") and where["lemma-18"].startswith("Lemma 18 (i)-(vi)")
    assert where["assumption-1"] == "Assumption 1" and where["definition-1"] == "Definition 1"
    assert "Proposition 15" in get("theorem-1").where


# ----------------------------------------------------------------- SymPy statements bite
def _perturbed(label):
    (a, b), rhs = slem.lemma18_rhs(label)
    return {"i": rhs.subs(a, 1.000001 * a), "ii": rhs * (1 + sp.Rational(1, 10**6)), "iii": rhs + a * b / 10**6,
            "iv": rhs * (1 + sp.Rational(1, 10**6)), "v": rhs.subs(a, -a), "vi": rhs * b}[label]


@pytest.mark.parametrize("label", list(slem.LEMMA18))
def test_lemma18_statement_fails_when_perturbed(label):
    """A wrong right-hand side (a factor 1 + 1e-6, a sign, a shifted term) fails the identity's statements (its
    boundary value may still hold: a perturbation by a factor keeps a zero)."""
    out = slem.lemma18_proofs(label, _perturbed(label))
    stated = [k for k in out if k.startswith(f"Lemma 18 ({label})")]
    assert len(stated) >= 2 and not all(out[k] for k in stated) and all(slem.lemma18_proofs(label).values()), out


def test_lemma17_statements_fail_for_a_wrong_derivative(monkeypatch):
    x = sp.Symbol("x", real=True)
    monkeypatch.setattr(slem, "ERF_PRIME", 2 / sp.sqrt(sp.pi) * sp.exp(-x**2 / 2))
    slem._lemma17.cache_clear()
    try:
        out = slem.lemma17_proofs()
    finally:
        slem._lemma17.cache_clear()
    assert not out["Lemma 17: erf'(x) = (2/sqrt(pi)) exp(-x^2)"] and not out["Lemma 17: erf''(x) = -2x erf'(x)"]


def test_lemma14_fails_if_a_partial_across_M_survives(monkeypatch):
    g = sdyn.manifold_gradient()
    monkeypatch.setattr(sdyn, "manifold_gradient", lambda: (*g[:3], srisk.S.kappa * srisk.S.nu, g[4]))
    out = sdyn.lemma14_identities()
    assert out["R_theta = 0 on M"] and not out["R_eta = 0 on M"]


def test_lemma7_fails_for_a_wrong_manifold_risk(monkeypatch):
    """Lemma 6's formula with the nu term doubled is no longer the risk whose gradient drives the reduced map."""
    spec = srisk.lemma6_spec()
    monkeypatch.setattr(srisk, "lemma6_spec", lambda: spec.subs(srisk.S.nu, 2 * srisk.S.nu))
    out = sdyn.lemma7_identities()
    assert not out["on M, R_kappa = dR_M/dkappa, R_nu = dR_M/dnu (R_M: Lemma 6's formula)"]


def test_definition1_fails_without_the_tangent_projection(monkeypatch):
    u = sdyn.update_vectors()
    monkeypatch.setattr(sdyn, "update_vectors", lambda: SimpleNamespace(**{**vars(u), "tan_k": u.grad_k}))
    out = sdyn.definition1_identities()
    assert not out["<k, (I - k k^T) grad_k R> = 0"] and out["<v, (I - v v^T) grad_v R> = 0"]


# ----------------------------------------------------------------- Lemma 16 on balls
def test_lemma16_ball_proves_and_fails_on_a_false_constant(monkeypatch):
    """u/2 is sharp at 0 (1/sqrt(1 + u) - 1 = -u/2 + O(u^2)): with u/2.2 the Taylor piece must not close."""
    assert lemma_balls.lemma16_ball()["proved"]
    u = slem.U
    w = 1 / sp.sqrt(1 + u) - 1
    monkeypatch.setattr(lemma_balls, "lemma16_sides", lambda: (u / sp.Rational(22, 10) - w, u / sp.Rational(22, 10) + w))
    assert not lemma_balls.lemma16_ball()["proved"]


# ----------------------------------------------------------------- Lemma 18's quadrature against Gauss-Hermite
def _hermite(a, b, j, p, n, nodes=120):
    """E[Z^j erf(a + bZ)^p] by NumPy's probabilists' Gauss-Hermite rule and SciPy's erf; n = 1: a central difference in
    a (h = 1e-5). An independent route (neither mpmath nor the suite)."""
    z, w = np.polynomial.hermite_e.hermegauss(nodes)
    w = w / np.sqrt(2 * np.pi)
    mean = lambda aa: float(np.sum(w * z**j * erf(aa + b * z) ** p))
    return mean(a) if n == 0 else (mean(a + 1e-5) - mean(a - 1e-5)) / 2e-5


def test_quadrature_route_matches_gauss_hermite():
    rng = np.random.default_rng(7)
    for label, (j, p, n, _) in slem.LEMMA18.items():
        a, b = rng.uniform(-2, 2), rng.uniform(0.1, 1.0)  # b <= 1: the rule resolves erf(a + bz) to ~1e-12
        ref = _hermite(a, b, j, p, n)
        assert abs(quad_erf_moment(a, b, z_power=j, erf_power=p, derivative=n, dps=20) - ref) < 1e-8, label


@pytest.mark.parametrize("call,name", [
    (lambda: quad_erf_moment(float("nan"), 1.0, z_power=0, erf_power=1), "a"),
    (lambda: quad_erf_moment(0.1, 1.0, z_power=5, erf_power=1), "z_power"),
    (lambda: quad_erf_moment(0.1, 1.0, z_power=0, erf_power=3), "erf_power"),
    (lambda: quad_erf_moment(0.1, 1.0, z_power=0, erf_power=1, derivative=2), "derivative"),
    (lambda: quad_erf_moment(0.1, 1.0, z_power=0, erf_power=1, dps=5), "dps"),
    (lambda: lemma_balls.lemma16_ball(upper=1.0), "upper"),
    (lambda: lemma_balls.lemma16_ball(delta=0.0), "delta"),
    (lambda: lemma_balls.lemma16_ball(prec=10), "prec"),
    (lambda: slem.lemma18_rhs("vii"), "label"),
    (lambda: slem.lemma18_proofs("vii"), "label"),
    (lambda: slem.lemma18_proofs(rhs=sp.Integer(1)), "rhs"),
])
def test_bad_input_names_the_parameter(call, name):
    with pytest.raises(ValueError, match=name):
        call()


def test_assumption1_check_bites_when_pgd_accepts_non_orthogonal_targets(monkeypatch):
    from slr_verify.claims import lemma_claims
    from slr_verify.dynamics import runners

    assert lemma_claims._refusals()[0] == []
    monkeypatch.setattr(runners, "_check_orthogonal", lambda Ks, Vs: None)
    assert lemma_claims._refusals()[0] == ["pgd with k*.v* = 0.6"]


def test_lemma16_sympy_argument_fails_for_a_smaller_constant(monkeypatch):
    """The sign argument with u/2.2 in place of u/2 (false near 0: 1 - 1/sqrt(1 + u) = u/2 + O(u^2)) does not close."""
    monkeypatch.setattr(slem, "LEMMA16_C", sp.Rational(10, 22))
    out = slem.lemma16_proofs()
    assert not all(out.values())
    monkeypatch.undo()
    assert all(slem.lemma16_proofs().values())
