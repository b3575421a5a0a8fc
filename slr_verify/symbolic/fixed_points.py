r"""Propositions 9-10 (`docs/MATH.md` §10): the structure of the manifold gradient, the
stationary points on M, the Hessians at them and the Jacobian of the reduced PGD map, derived.

From Theorem 1 restricted to M (Lemma 6), :func:`structure` extracts and proves

* :math:`g_\nu = \partial_\nu R = c_n\,\mathrm{erf}(c_1\kappa)` with :math:`c_n < 0`, :math:`c_1 > 0`;
* :math:`g_\kappa = \partial_\kappa R = P(\kappa)\,(\mathrm{erf}(c_2\kappa) - \nu)` with
  :math:`P(\kappa) > 0`, :math:`c_2 > 0` (SymPy decides the signs from the symbols' assumptions).

Sign argument (erf(x) = 0 iff x = 0, |erf| < 1): :math:`(1-\kappa^2) g_\kappa = (1-\nu^2) g_\nu = 0`
on [-1, 1]^2 exactly at (0, 0) and the four corners. A coordinate x with gradient g is a fixed
point of the projected step iff :math:`(1-x^2) g = 0` or (overshoot to the mirror point)
:math:`\alpha g (2x^2 - 1) = -2x`, |x| > 1/sqrt 2, which needs :math:`\alpha |g| > 2`; so
:math:`\alpha < 2/\max(\sup|g_\kappa|, \sup|g_\nu|)` excludes non-stationary fixed points, with
:math:`\sup|g_\nu| = -c_n\,\mathrm{erf}(c_1)` and :math:`\sup|g_\kappa| \le P(0)(1 + \mathrm{erf}(c_2))`.
"""
from __future__ import annotations

from functools import lru_cache
from types import SimpleNamespace

import sympy as sp

from . import dynamics as sdyn
from .risk import S
from .stored import stored

CORNERS = [(1, 1), (-1, -1), (1, -1), (-1, 1)]
#: the five stationary points of Proposition 9
POINTS = [(0, 0)] + CORNERS


@lru_cache(maxsize=None)
def structure():
    """g_kappa, g_nu and their factors c1, c2, P, c_n, with the proofs of the factorisation and
    of the signs (``proofs``: {name: bool})."""
    gk, gn = sdyn.manifold_gradient()[:2]
    (E1,) = gn.atoms(sp.erf)
    c1 = sp.simplify(E1.args[0] / S.kappa)
    coef_n = sp.simplify(gn / E1)
    (E2,) = gk.atoms(sp.erf)
    c2 = sp.simplify(E2.args[0] / S.kappa)
    P = sp.simplify(gk / (E2 - S.nu))
    proofs = {
        "g_nu = c_n erf(c1 kappa)": sp.simplify(gn - coef_n * E1) == 0 and not coef_n.has(S.kappa, S.nu),
        "c_n < 0": bool(coef_n.is_negative),
        "c1 > 0": bool(c1.is_positive),
        "g_kappa = P(kappa) (erf(c2 kappa) - nu)": sp.simplify(gk - P * (E2 - S.nu)) == 0 and not P.has(S.nu),
        "P > 0": bool(P.is_positive),
        "c2 > 0": bool(c2.is_positive),
    }
    return SimpleNamespace(gk=gk, gn=gn, c1=c1, c2=c2, P=P, coef_n=coef_n, proofs=proofs)


def stationary_point_proofs() -> dict:
    """Every step of the sign argument that the stationary points on M are exactly ``POINTS``:
    the factorisation and signs of :func:`structure`, and at kappa = 0, g_kappa = -P(0) nu."""
    st = structure()
    proofs = dict(st.proofs)
    proofs["kappa = 0 => g_kappa = -P(0) nu"] = bool(sp.simplify(st.gk.subs(S.kappa, 0) + st.P.subs(S.kappa, 0) * S.nu) == 0)
    return proofs


@lru_cache(maxsize=None)
def reduced_map_exprs():
    """The reduced map (kappa', nu') composed with the manifold gradient: kappa, nu, params, alpha."""
    gk, gn = sdyn.manifold_gradient()[:2]
    sub = {sdyn.PARTIALS[0]: gk, sdyn.PARTIALS[1]: gn}
    return tuple(f.xreplace(sub) for f in sdyn.reduced_map())


@lru_cache(maxsize=None)
def reduced_jacobian():
    """The 2x2 Jacobian of the reduced map in (kappa, nu)."""
    return sp.Matrix(reduced_map_exprs()).jacobian((S.kappa, S.nu))


@stored
def manifold_hessian(point):
    """The Hessian of the manifold risk at a stationary point, in the parameters.

    (0, 0): the Hessian in (kappa, nu). A corner (x, y): in the angle coordinates
    kappa = x cos(phi), nu = y cos(psi) at phi = psi = 0 (the square's boundary is not a
    boundary of the sphere), which is diag(-x g_kappa, -y g_nu) there."""
    st = structure()
    x, y = point
    if point == (0, 0):
        H = sp.Matrix([[sp.diff(st.gk, S.kappa), sp.diff(st.gk, S.nu)], [sp.diff(st.gn, S.kappa), sp.diff(st.gn, S.nu)]])
        return sp.simplify(H.subs({S.kappa: 0, S.nu: 0}))
    phi, psi = sp.symbols("phi psi", real=True)
    sub = {S.kappa: x * sp.cos(phi), S.nu: y * sp.cos(psi)}
    dphi = -x * sp.sin(phi) * st.gk.subs(sub)  # d/dphi R(x cos phi, y cos psi)
    dpsi = -y * sp.sin(psi) * st.gn.subs(sub)
    H = sp.Matrix([[sp.diff(dphi, phi), sp.diff(dphi, psi)], [sp.diff(dpsi, phi), sp.diff(dpsi, psi)]])
    return sp.simplify(H.subs({phi: 0, psi: 0}))


def gradient_bounds():
    """Closed-form (sup|g_kappa| upper bound, sup|g_nu|) over the square."""
    st = structure()
    return st.P.subs(S.kappa, 0) * (1 + sp.erf(st.c2)), -st.coef_n * sp.erf(st.c1)
