"""What the dynamics on M depend on (slr_verify.symbolic.setting_dependence; `docs/MATH.md` §21).

References, by test:
* the risk on M as printed in `docs/MATH.md` §9 (``symbolic.risk.lemma6_spec``, typed from the paper's Lemma 6, not
  derived) for F;
* mpmath quadrature of the risk from its definition (``routes.quadrature.quad_risk``, 20 digits) for the gradient
  on M not seeing eps and L, and for L entering off M;
* the proofs' own machinery applied where the statement is false (off M), so that it can answer False.
"""
import mpmath
import pytest
import sympy as sp

from slr_verify import derive
from slr_verify.routes.quadrature import quad_risk
from slr_verify.symbolic import risk as srisk
from slr_verify.symbolic import setting_dependence as ssd

S = srisk.S
BASE = dict(lam=0.1, gamma=0.5**0.5, d=400)


def test_every_step_of_the_dependence_proof_holds():
    proofs = {**ssd.dependence_proofs(), **ssd.off_manifold_proofs()}
    assert len(proofs) == 17 and all(proofs.values()), [k for k, v in proofs.items() if not v]


def test_f_is_lemma6_as_printed_minus_the_constants():
    """F (derived from Theorem 1) against MATH.md §9's printed Lemma 6, with a = lam sqrt(d/2) put back."""
    F = ssd.reduced_risk().subs(ssd.A_SHIFT, S.lam * sp.sqrt(S.d / 2))
    assert sp.simplify(F + ssd.constants_on_m() - srisk.lemma6_spec()) == 0


def test_the_check_can_fail_off_m():
    """The same test on Theorem 1's gradient at a general point: it depends on L (and so must answer False)."""
    assert not ssd._free_of(srisk.theorem1_gradient(), S.L)
    assert ssd._free_of(srisk.theorem1_gradient(), S.eps)  # the noise is additive everywhere


@pytest.mark.parametrize("point,same", [((0.4, -0.3, 0, 0, 0), True), ((0.4, -0.3, 0, 0, 0.5), False)])
def test_the_gradient_sees_eps_and_l_only_off_m(point, same):
    """Central differences (h = 1e-6) of the quadrature risk at two settings differing in (eps, L): along kappa on M,
    equal to 1e-9 relative (the 20-digit quadrature differences are good to ~1e-12); along rho at rho = 1/2 off M,
    different by more than 1e-3 (dR/drho depends on L there)."""
    h = mpmath.mpf("1e-6")

    def partial(eps, L, axis):
        x = [mpmath.mpf(v) for v in point]
        up, dn = list(x), list(x)
        up[axis] += h
        dn[axis] -= h
        f = lambda y: quad_risk(*y, eps=eps, L=L, dps=20, **BASE)  # noqa: E731
        return (f(up) - f(dn)) / (2 * h)

    axis = 0 if same else 4
    a, b = partial(0.1, 10, axis), partial(0.6, 3, axis)
    rel = abs(a - b) / abs(a)
    assert (rel < 1e-9) if same else (rel > 1e-3), float(rel)


def test_derive_refuses_when_a_step_fails(monkeypatch):
    monkeypatch.setattr(ssd, "dependence_proofs", lambda: {"a step": False})
    with pytest.raises(RuntimeError, match="a step"):
        derive.derive("settings")
