r"""What the dynamics on M depend on (`docs/MATH.md` §21, "Regions of settings"), derived and proved.

On M (theta = eta = rho = 0; Lemma 6) the risk splits as

.. math::

    R(\kappa, \nu) = F(\kappa, \nu;\ \lambda, \gamma, a) + \varepsilon^2 + (L - 1)\,\zeta_\lambda(0),
    \qquad a = \lambda\sqrt{d/2},

with F free of eps and L: the noise and the null tokens add constants. So the gradient (g_kappa, g_nu), the
Hessian, the reduced map Phi_alpha, K_alpha and D K_alpha of Proposition 12, the saddle's mu_+ and every constant
of Theorem 5's proof built from them (the suprema G and H, the bracket B, alpha_8, alpha_12, alpha_5) are functions
of (lam, gamma, d) alone: a statement proved at one (gamma, d) holds for every eps >= 0 and every L >= 1. The
setting's d enters only through a: written in (kappa, nu, lam, gamma, a), the expressions are real-analytic in
a > 0, so d may be a real coordinate of a box (the statement then holds for every integer d in it).

Off M this is false: the null tokens' term depends on rho = k.v, so the five-overlap gradient, and with it the
transverse block and the tube around M (`docs/MATH.md` §13), depend on L (:func:`off_manifold_l_dependence`).
"""
from __future__ import annotations

from functools import cache

import sympy as sp

from . import descent as sdes
from . import dynamics as sdyn
from .risk import OVERLAPS, S, manifold_point, theorem1_gradient, theorem1_risk
from .zeta import zeta

#: a = lam sqrt(d/2), the relevant token's mean times lam (Lemma 6)
A_SHIFT = sp.Symbol("a", positive=True)


def constants_on_m():
    """eps^2 + (L - 1) zeta_lam(0): what the noise and the null tokens add to R on M."""
    return S.eps**2 + (S.L - 1) * zeta(0, S.lam)


def in_a(expr):
    """``expr`` with d replaced by 2 a^2 / lam^2 (a = lam sqrt(d/2); lam, a > 0, so lam sqrt(d/2) becomes a)."""
    return expr.subs(S.d, 2 * A_SHIFT**2 / S.lam**2)


@cache
def reduced_risk():
    """F = R on M - eps^2 - (L - 1) zeta_lam(0), in (kappa, nu, lam, gamma, a)."""
    on_m = theorem1_risk().subs(manifold_point())
    return sp.simplify(in_a(sp.expand(on_m - constants_on_m())))


@cache
def _dynamics_on_m() -> dict:
    """name -> the objects of Theorem 5's proof on M (Lemma 6, Propositions 8, 12; `docs/MATH.md` §20)."""
    gk, gn = sdes.gradient()
    Rk, Rn = sdyn.PARTIALS[:2]
    phi = tuple(e.subs({Rk: gk, Rn: gn}) for e in sdyn.reduced_map_spec())
    return {"the gradient (g_kappa, g_nu)": (gk, gn), "the Hessian": sdes.hessian(), "Phi_alpha": phi,
            "K_alpha (Proposition 12)": sdes.k_map(), "D K_alpha": sdes.dk(), "(mu_+, det) at (0, 0)": sdes.saddle_eigen()}


def _free_of(exprs, *syms) -> bool:
    return not any(e.has(*syms) for e in exprs)


def _only(exprs, allowed) -> bool:
    return all(e.free_symbols <= set(allowed) for e in exprs)


@cache
def dependence_proofs() -> dict:
    """Every step of "the dynamics on M depend on (lam, gamma, d) only, d through a" (module docstring)."""
    on_m = theorem1_risk().subs(manifold_point())
    c = constants_on_m()
    F = reduced_risk()
    allowed = {S.kappa, S.nu, S.lam, S.gamma, A_SHIFT, sdyn.A}
    proofs = {
        "R on M - eps^2 - (L - 1) zeta_lam(0) is free of eps and L": _free_of([F], S.eps, S.L),
        "R on M = F + eps^2 + (L - 1) zeta_lam(0) (F back at a = lam sqrt(d/2))":
            sp.simplify(on_m - c - F.subs(A_SHIFT, S.lam * sp.sqrt(S.d / 2))) == 0,
        "F is a function of (kappa, nu, lam, gamma, a)": _only([F], allowed),
        "dR/deps = 2 eps and dR/dL = zeta_lam(0) on M (no kappa, nu)":
            sp.simplify(sp.diff(on_m, S.eps) - 2 * S.eps) == 0 and sp.simplify(sp.diff(on_m, S.L) - zeta(0, S.lam)) == 0,
    }
    for name, exprs in _dynamics_on_m().items():
        proofs[f"{name} is free of eps and L"] = _free_of(exprs, S.eps, S.L)
        proofs[f"{name} is a function of (kappa, nu, lam, gamma, a, alpha)"] = _only([in_a(e) for e in exprs], allowed)
    return proofs


@cache
def off_manifold_l_dependence():
    """d/dL of Theorem 1's partial dR/drho, at a general point: (L - 1) enters through the null tokens' rho."""
    return sp.simplify(sp.diff(theorem1_gradient()[OVERLAPS.index(S.rho)], S.L))


def off_manifold_proofs() -> dict:
    """Off M, L matters: d/dL of dR/drho is not identically 0 (nonzero at one point and one setting)."""
    at = {S.kappa: 0, S.nu: 0, S.theta: 0, S.eta: 0, S.rho: sp.Rational(1, 2), S.lam: 1, S.gamma: 1, S.d: 2, S.L: 2}
    value = sp.simplify(off_manifold_l_dependence().subs(at))  # 4 (2 sqrt 5 + 15) / (15 pi)
    return {"off M, d/dL of dR/drho is nonzero (kappa = nu = theta = eta = 0, rho = 1/2; lam = gamma = 1, d = L = 2)":
            bool(value.is_nonzero)}
