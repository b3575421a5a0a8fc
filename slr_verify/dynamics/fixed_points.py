r"""Propositions 9-10 and Theorem 5 (SPEC 10): fixed points of the reduced PGD map on M.

What is *proved* (SymPy, for all lam, gamma, d > 0) and what is *checked numerically* is stated
in each function's docstring and in the ``details`` of the claim checks.

Structure of the derived manifold gradient (from Theorem 1 by substitution, :func:`structure`):

* :math:`g_\nu = \partial_\nu R = -2\gamma^2\,\mathrm{erf}(c_1\kappa)`, :math:`c_1 > 0`;
* :math:`g_\kappa = \partial_\kappa R = P(\kappa)\,(\mathrm{erf}(c_2\kappa) - \nu)` with
  :math:`P(\kappa) > 0` (SymPy proves the positivity from the symbols' assumptions).

Hence (sign argument, erf(x) = 0 iff x = 0 and |erf| < 1 on the reals): stationary points of
the projected gradient, :math:`(1-\kappa^2) g_\kappa = (1-\nu^2) g_\nu = 0`, are exactly
(0, 0) and the four corners. Fixed points of the map: a coordinate x with gradient g is fixed iff
:math:`(1-x^2) g = 0` or (the projected step overshoots to the mirror point)
:math:`\alpha g\,(2x^2-1) = -2x` with :math:`|x| > 1/\sqrt2`, which needs :math:`\alpha|g| > 2`.
So :math:`\alpha < 2/\max(\sup|g_\kappa|, \sup|g_\nu|)` excludes non-stationary fixed points;
:math:`\sup|g_\nu| = 2\gamma^2\mathrm{erf}(c_1)` and :math:`\sup|g_\kappa| \le P(0)(1 + \mathrm{erf}(c_2))`
give an explicit (closed-form) sufficient bound ``alpha_fixed``.
"""
from __future__ import annotations

from functools import lru_cache
from types import SimpleNamespace

import numpy as np
import sympy as sp

from ..kernels.generated import generate
from . import maps

__all__ = [
    "structure",
    "stationary_points",
    "reduced_map_exprs",
    "jacobian_at",
    "hessian_angle",
    "alpha_fixed_bound",
    "alpha_attract",
    "mirror_fixed_point",
    "alpha_max_diffeo",
    "predicted_rates",
]

S = maps.S
PARAMS4 = (S.lam, S.gamma, S.d, S.L)
CORNERS = [(1, 1), (-1, -1), (1, -1), (-1, 1)]
POINTS = [(0, 0)] + CORNERS


@lru_cache(maxsize=None)
def structure():
    """Extract and prove the structure of g_kappa, g_nu (see the module docstring)."""
    gk, gn = maps.manifold_gradient()[:2]
    erfs_n = [a for a in gn.atoms(sp.erf)]
    (E1,) = erfs_n
    c1 = sp.simplify(E1.args[0] / S.kappa)
    coef_n = sp.simplify(gn / E1)
    erfs_k = list(gk.atoms(sp.erf))
    (E2,) = erfs_k
    c2 = sp.simplify(E2.args[0] / S.kappa)
    P = sp.simplify(gk / (E2 - S.nu))
    proofs = {
        "g_nu = coef * erf(c1 kappa)": sp.simplify(gn - coef_n * E1) == 0 and not coef_n.has(S.kappa, S.nu),
        "coef < 0": bool(coef_n.is_negative),
        "c1 > 0": bool(c1.is_positive),
        "g_kappa = P(kappa) (erf(c2 kappa) - nu)": sp.simplify(gk - P * (E2 - S.nu)) == 0 and not P.has(S.nu),
        "P > 0": bool(P.is_positive),
        "c2 > 0": bool(c2.is_positive),
    }
    return SimpleNamespace(gk=gk, gn=gn, c1=c1, c2=c2, P=P, coef_n=coef_n, proofs=proofs)


def stationary_points():
    """Solve (1 - kappa^2) g_kappa = (1 - nu^2) g_nu = 0 on [-1, 1]^2 by the case analysis of the
    module docstring, each case checked with SymPy: returns the list of points and the proofs."""
    st = structure()
    proofs = dict(st.proofs)
    # case |nu| < 1: g_nu = 0 <=> erf(c1 kappa) = 0 <=> kappa = 0; then |kappa| < 1 so g_kappa = 0
    # <=> nu = erf(0) = 0.
    proofs["kappa=0 => g_kappa=0 iff nu=0"] = sp.simplify(st.gk.subs(S.kappa, 0)).equals(-st.P.subs(S.kappa, 0) * S.nu)
    # case |nu| = 1, |kappa| < 1: g_kappa = 0 would need erf(c2 kappa) = +-1, impossible.
    # case |nu| = |kappa| = 1: the corners.
    ok = all(proofs.values())
    return {"points": list(POINTS), "proved": ok, "proofs": proofs}


@lru_cache(maxsize=None)
def reduced_map_exprs():
    """The reduced map (kappa', nu') composed with the manifold gradient, in kappa, nu, params, alpha."""
    gk, gn = maps.manifold_gradient()[:2]
    sub = {maps.PARTIALS[0]: gk, maps.PARTIALS[1]: gn}
    return tuple(f.xreplace(sub) for f in maps.reduced_map())


@lru_cache(maxsize=None)
def _kernels():
    F = reduced_map_exprs()
    X = (S.kappa, S.nu)
    J = sp.Matrix(F).jacobian(X)
    st = structure()
    args = X + PARAMS4 + (maps.A,)
    return SimpleNamespace(
        F=generate(args, list(F)),
        J=generate(args, list(J)),
        g=generate(X + PARAMS4, [st.gk, st.gn]),
        J_expr=J,
    )


def jacobian_at(point, *, lam, gamma, d, L, alpha):
    """The 2x2 Jacobian of the reduced map at ``point`` (the SymPy Jacobian; at the corners the
    1/sqrt factors are smooth since 1 - x^2 enters polynomially), and its eigenvalues."""
    J = np.array(_kernels().J(point[0], point[1], lam, gamma, d, L, alpha), dtype=float).reshape(2, 2)
    return J, np.linalg.eigvals(J)


def hessian_angle(point, *, lam, gamma, d, L):
    """Hessian of the manifold risk at a stationary point. Corners: in angle coordinates
    kappa = x cos(phi), nu = y cos(psi) (x, y = +-1) it is diag(-x g_kappa, -y g_nu) (SymPy);
    (0, 0): the plain Hessian in (kappa, nu)."""
    st = structure()
    phi, psi = sp.symbols("phi psi", real=True)
    x, y = point
    R = sp.Function("R")
    if point == (0, 0):
        H = sp.Matrix([[sp.diff(st.gk, S.kappa), sp.diff(st.gk, S.nu)], [sp.diff(st.gn, S.kappa), sp.diff(st.gn, S.nu)]])
        H = H.subs({S.kappa: 0, S.nu: 0})
    else:
        # R(x cos phi, y cos psi): second derivatives at phi = psi = 0 through the chain rule
        sub = {S.kappa: x * sp.cos(phi), S.nu: y * sp.cos(psi)}
        gk, gn = st.gk.subs(sub), st.gn.subs(sub)
        dphi = -x * sp.sin(phi) * gk  # d/dphi R
        dpsi = -y * sp.sin(psi) * gn
        H = sp.Matrix([[sp.diff(dphi, phi), sp.diff(dphi, psi)], [sp.diff(dpsi, phi), sp.diff(dpsi, psi)]])
        H = H.subs({phi: 0, psi: 0})
    Hn = np.array(H.subs({S.lam: lam, S.gamma: gamma, S.d: d, S.L: L}).evalf(30).tolist(), dtype=float)
    return H, Hn, np.linalg.eigvalsh(0.5 * (Hn + Hn.T))


def _gmax(lam, gamma, d, L):
    """Closed-form bounds: sup|g_nu| = 2 gamma^2 erf(c1); sup|g_kappa| <= P(0) (1 + erf(c2))."""
    st = structure()
    vals = {S.lam: lam, S.gamma: gamma, S.d: d, S.L: L}
    gnu = float((-st.coef_n * sp.erf(st.c1)).subs(vals).evalf(30))
    gka = float((st.P.subs(S.kappa, 0) * (1 + sp.erf(st.c2))).subs(vals).evalf(30))
    return gka, gnu


def alpha_fixed_bound(*, lam, gamma, d, L):
    """alpha below which the map's fixed points are exactly the five stationary points:
    2 / max(sup|g_kappa|, sup|g_nu|), with the closed-form upper bounds of sup (a proved,
    sufficient bound)."""
    return 2.0 / max(_gmax(lam, gamma, d, L))


def alpha_attract(*, lam, gamma, d, L):
    """At the minima (+-1, +-1) the Jacobian is diag((1 - alpha|g_kappa|)^2, (1 - alpha|g_nu|)^2)
    (derived: see tests); they attract iff alpha |g| < 2 for both: alpha < 2 / max|g| there."""
    g = np.abs(np.array(_kernels().g(1.0, 1.0, lam, gamma, d, L), dtype=float))
    return 2.0 / g.max(), g


def predicted_rates(*, lam, gamma, d, L, alpha):
    """Linear rates of 1 - kappa_t and 1 - nu_t at (1, 1): the Jacobian eigenvalues
    (1 - alpha |g|)^2 (in the angles: 1 - alpha |g|)."""
    J, ev = jacobian_at((1.0, 1.0), lam=lam, gamma=gamma, d=d, L=L, alpha=alpha)
    return float(J[0, 0]), float(J[1, 1])


def mirror_fixed_point(kappa, *, lam, gamma, d, L):
    """For nu = 1 and 1/sqrt2 < kappa < 1, the alpha at which (kappa, 1) is a fixed point of the
    map though not a stationary point: alpha g_kappa (2 kappa^2 - 1) = -2 kappa."""
    gk, _ = _kernels().g(kappa, 1.0, lam, gamma, d, L)
    return float(-2 * kappa / (float(gk) * (2 * kappa**2 - 1)))


def map_numeric(kappa, nu, *, lam, gamma, d, L, alpha):
    return np.array(_kernels().F(kappa, nu, lam, gamma, d, L, alpha), dtype=float)


def det_jacobian(kappa, nu, *, lam, gamma, d, L, alpha):
    J = _kernels().J(kappa, nu, lam, gamma, d, L, alpha)
    return J[0] * J[3] - J[1] * J[2]


def alpha_max_diffeo(*, lam, gamma, d, L, n=121, alphas=None):
    """Numeric (not certified) alpha_max: the smallest alpha on a log grid (refined by bisection)
    at which det J vanishes somewhere on an n x n grid of the square [-1, 1]^2."""
    k, v = np.meshgrid(np.linspace(-1, 1, n), np.linspace(-1, 1, n))
    if alphas is None:
        alphas = np.geomspace(1e-2, 1e4, 241)

    def bad(a):
        det = det_jacobian(k, v, lam=lam, gamma=gamma, d=d, L=L, alpha=a)
        return bool(np.any(det <= 0))

    prev = None
    for a in alphas:
        if bad(a):
            lo, hi = (prev if prev is not None else 0.0), a
            for _ in range(40):
                mid = 0.5 * (lo + hi)
                lo, hi = (lo, mid) if bad(mid) else (mid, hi)
            return lo
        prev = a
    return float("inf")
