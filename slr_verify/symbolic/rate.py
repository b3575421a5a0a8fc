r"""R1, a certified Lojasiewicz (Polyak) constant below the saddle's level (`docs/MATH.md`, "R1: a certified rate
below the saddle's level"): the SymPy side of premise ``lojasiewicz``.

On M (Lemma 6) the risk R(kappa, nu) is Theorem 1 at theta = eta = rho = 0; R* = R(1, 1). Derived here:

* the gap :math:`R - R^*` in the complement form :math:`\gamma^2[\bar\zeta_{\lambda\gamma}(A\kappa) -
  \bar\zeta_{\lambda\gamma}(A) + 2(1 - \nu)\operatorname{erf}(b\kappa)]` (A = lam sqrt(d/2), b = A / sqrt(1 + 2 lam^2
  gamma^2)), whose ball evaluation keeps relative accuracy near the minimum (it has no difference of numbers close to
  1), valid as printed for kappa >= 0 (the runtime's zetac takes t >= 0);
* the saddle gap :math:`G = R - R(0, 0)`;
* :math:`|Pg|^2 = (1 - \kappa^2) g_\kappa^2 + (1 - \nu^2) g_\nu^2` and the ratio test's
  :math:`F = |Pg|^2 - \mu (R - R^*)`, with its gradient in (kappa, nu, lam) (the mean-value form);
* in angle coordinates kappa = cos(phi), nu = cos(psi) at the corner (1, 1): the angle gradient of R is
  (-sin(phi) g_kappa, -sin(psi) g_nu), so its squared norm is |Pg|^2 exactly, and the angle Hessian [[a, c], [c, e]];
* the symmetry R(-kappa, -nu) = R(kappa, nu), |Pg|^2(-kappa, -nu) = |Pg|^2(kappa, nu) (zeta even, erf odd), which
  carries every test to kappa >= 0 and the corner (-1, -1) to (1, 1); R(-1, -1) = R(1, 1) = R*.
"""
from __future__ import annotations

from functools import lru_cache
from types import SimpleNamespace

import sympy as sp

from . import fixed_points as sfix
from .risk import S, manifold_point, theorem1_risk
from .zeta import erf_mean, zeta, zetac

#: the Lojasiewicz constant of the ratio test, and the corner's angle coordinates
MU = sp.Symbol("mu", positive=True)
PHI, PSI = sp.symbols("phi psi", real=True)

_CORNER = {S.kappa: 1, S.nu: 1}
_SADDLE = {S.kappa: 0, S.nu: 0}
_MIRROR = {S.kappa: -S.kappa, S.nu: -S.nu}


def _complement(expr):
    """Every zeta(t, g) with t != 0 written as zetac(t, g) - 1 + 2 erf(t / sqrt(1 + 2 g^2)) (MATH.md §4)."""
    return expr.replace(lambda e: isinstance(e, zeta) and not e.args[0].is_zero,
                        lambda e: zetac(*e.args) - 1 + 2 * erf_mean(*e.args))


@lru_cache(maxsize=None)
def rate_algebra() -> SimpleNamespace:
    """The expressions of premise ``lojasiewicz``: R on M, the gaps, |Pg|^2, F and its gradient, the corner's angle
    gradient and Hessian."""
    st = sfix.structure()
    R = sp.simplify(theorem1_risk().subs(manifold_point()))
    gap = R - R.subs(_CORNER)
    gap_c = sp.expand(_complement(gap))
    saddle = sp.expand(R - R.subs(_SADDLE))
    pg2 = (1 - S.kappa**2) * st.gk**2 + (1 - S.nu**2) * st.gn**2
    F = pg2 - MU * gap_c
    grad = [sp.diff(F, x) for x in (S.kappa, S.nu, S.lam)]
    sgrad = [sp.diff(saddle, x) for x in (S.kappa, S.nu, S.lam)]
    angle = {S.kappa: sp.cos(PHI), S.nu: sp.cos(PSI)}
    dphi, dpsi = -sp.sin(PHI) * st.gk.subs(angle), -sp.sin(PSI) * st.gn.subs(angle)
    hess = [sp.diff(dphi, PHI), sp.diff(dphi, PSI), sp.diff(dpsi, PSI)]
    return SimpleNamespace(R=R, gap=gap, gap_c=gap_c, saddle=saddle, pg2=pg2, F=F, grad=grad, sgrad=sgrad,
                           angle=angle, dphi=dphi, dpsi=dpsi, hess=hess, st=st)


def _zero(e) -> bool:
    e = sp.expand(e)
    return e == 0 or sp.simplify(e) == 0


def rate_proofs() -> dict:
    """{statement: bool}: every identity the rate check (`slr_verify.checker.rate`) relies on."""
    a = rate_algebra()
    R_angle = a.R.subs(a.angle)
    return {
        "R - R* = gamma^2 [zetac(A kappa) - zetac(A) + 2 (1 - nu) erf(b kappa)] (complement form)":
            _zero(a.gap_c.rewrite(zeta) - a.gap)
            and _zero(a.gap_c - S.gamma**2 * (zetac(S.lam * sp.sqrt(S.d / 2) * S.kappa, S.lam * S.gamma)
                                              - zetac(S.lam * sp.sqrt(S.d / 2), S.lam * S.gamma)
                                              + 2 * (1 - S.nu) * erf_mean(S.lam * sp.sqrt(S.d / 2) * S.kappa,
                                                                          S.lam * S.gamma))),
        "g_kappa, g_nu are dR/dkappa, dR/dnu": _zero(sp.diff(a.R, S.kappa) - a.st.gk) and _zero(sp.diff(a.R, S.nu) - a.st.gn),
        "R(-kappa, -nu) = R(kappa, nu)": _zero(a.R.subs(_MIRROR, simultaneous=True) - a.R),
        "|Pg|^2(-kappa, -nu) = |Pg|^2(kappa, nu)": _zero(a.pg2.subs(_MIRROR, simultaneous=True) - a.pg2),
        "R(-1, -1) = R(1, 1)": _zero(a.R.subs({S.kappa: -1, S.nu: -1}) - a.R.subs(_CORNER)),
        "d/dphi R(cos phi, cos psi) = -sin(phi) g_kappa, d/dpsi = -sin(psi) g_nu":
            _zero(sp.diff(R_angle, PHI) - a.dphi) and _zero(sp.diff(R_angle, PSI) - a.dpsi),
        "(dR/dphi)^2 + (dR/dpsi)^2 = |Pg|^2 at kappa = cos(phi), nu = cos(psi)":
            _zero((a.dphi**2 + a.dpsi**2 - a.pg2.subs(a.angle)).subs(sp.sin(PHI)**2, 1 - sp.cos(PHI)**2)
                  .subs(sp.sin(PSI)**2, 1 - sp.cos(PSI)**2)),
        "the angle Hessian is [[a, c], [c, e]] (d^2R/dphi dpsi = d^2R/dpsi dphi)": _zero(sp.diff(a.dpsi, PHI) - a.hess[1]),
        "at phi = psi = 0 the angle gradient vanishes": a.dphi.subs(PHI, 0) == 0 and a.dpsi.subs(PSI, 0) == 0,
    }


def rate_kernels() -> list:
    """The kernels of premise ``lojasiewicz`` ((name, args, exprs, doc) each; `slr_verify.kernels.premises`)."""
    a = rate_algebra()
    box = (S.kappa, S.nu, S.lam, S.gamma, S.d)
    return [("ratio", (*box, MU), [a.F, *a.grad],
             "[F, dF/dkappa, dF/dnu, dF/dlam], F = |Pg|^2 - mu (R - R*) in the complement form (kappa >= 0)"),
            ("saddle", box, [a.saddle, *a.sgrad], "[G, dG/dkappa, dG/dnu, dG/dlam], G = R - R(0, 0)"),
            ("corner_hessian", (PHI, PSI, S.lam, S.gamma, S.d), a.hess,
             "[a, c, e]: the Hessian [[a, c], [c, e]] of R(cos phi, cos psi) (the corner (1, 1) at phi = psi = 0)")]
