r"""The PGD maps, derived by SymPy from Definition 1 (SPEC 8), and the kernels generated from them.

**Five-overlap map (SPEC 12).** Work in the basis (k, v, k*, v*) with Gram matrix
``[[1, rho, kappa, eta], [rho, 1, theta, nu], [kappa, theta, 1, 0], [eta, nu, 0, 1]]``; a vector
is its coefficient column and inner products are ``a^T G b``. By the chain rule through the
overlaps, with the partials :math:`R_\kappa, \dots, R_\rho` kept as *symbols*,

.. math::

    \nabla_k R = R_\kappa k^* + R_\eta v^* + R_\rho v, \qquad
    \nabla_v R = R_\nu v^* + R_\theta k^* + R_\rho k .

The update :math:`k' = P(k - \alpha (I - k k^\top)\nabla_k R)` (and the same for v, both from
(k_t, v_t)) is computed on coefficient columns and the new overlaps are inner products: a map
:math:`F(\kappa, \nu, \theta, \eta, \rho;\ R_\kappa, \dots, R_\rho;\ \alpha)` that no longer
mentions d. Composing with Theorem 1's gradient gives the exact d-free PGD.

**Reduced map (SPEC 9).** ``reduced_map()`` substitutes theta = eta = rho = 0 and
:math:`R_\theta = R_\eta = R_\rho = 0` (which hold on M: :func:`lemma4_symbolic`) and keeps the
(kappa, nu) components; :func:`reduced_map_matches_spec` shows it equals SPEC 9's formula.

**Kernels.** The step kernels are lambdified (shared subexpressions, the float64 namespace of
:mod:`slr_verify.kernels.generated`) with two changes that only affect speed:

* subexpressions that depend only on the parameters (lam, gamma, d, L, alpha) are *hoisted*
  into a separate coefficient kernel, evaluated once per run (or once per step of a lam
  schedule, vectorised over all steps before the loop); the per-step kernel takes them as
  arguments;
* :math:`\zeta_g(t)` (it enters only :math:`R_\theta`, through :math:`d\,\theta\,\zeta`) is
  rewritten by the identity :math:`\zeta_g(t) = 1 - 8\,T(\sqrt2\,t/\sqrt{1+2g^2}, 1/\sqrt{1+4g^2})`
  with Owen's T (the closed form in :mod:`slr_verify.kernels.special`: erf(s)^2 plus
  (1 + erf s) erfc s - 8T, and erf^2 + (1 + erf)(1 - erf) = 1), absolute error ~1e-17, one
  ufunc call; it is checked against ``special.zeta`` in the tests.
"""
from __future__ import annotations

from functools import lru_cache
from types import SimpleNamespace

import numpy as np
import sympy as sp
from scipy import special as sc

from ..kernels import generated as G
from ..symbolic import risk as srisk
from ..symbolic.zeta import zeta as Zeta

__all__ = [
    "A",
    "PARTIALS",
    "overlap_map",
    "reduced_map",
    "reduced_map_spec",
    "reduced_map_matches_spec",
    "lemma4_symbolic",
    "manifold_gradient",
    "zeta_owen",
    "step_kernel",
    "reduced_step_kernel",
    "gradient_kernel",
    "risk_kernel",
]

S = srisk.S
#: the step size
A = sp.Symbol("alpha", positive=True)
#: the partial derivatives of R in the overlaps, as symbols (R_kappa, R_nu, R_theta, R_eta, R_rho)
PARTIALS = sp.symbols("R_kappa R_nu R_theta R_eta R_rho", real=True)


@lru_cache(maxsize=None)
def _gram():
    k, n, t, e, r = S.kappa, S.nu, S.theta, S.eta, S.rho
    return sp.Matrix([[1, r, k, e], [r, 1, t, n], [k, t, 1, 0], [e, n, 0, 1]])


def _ip(a, b):
    return sp.expand((a.T * _gram() * b)[0, 0])


@lru_cache(maxsize=None)
def _update_vectors():
    """Unnormalised k', v' (coefficient columns in (k, v, k*, v*)) and their squared norms."""
    Rk, Rn, Rt, Re, Rr = PARTIALS
    e = [sp.Matrix([int(i == j) for j in range(4)]) for i in range(4)]
    k, v, ks, vs = e
    grad_k = Rk * ks + Re * vs + Rr * v
    grad_v = Rn * vs + Rt * ks + Rr * k
    tan_k = grad_k - _ip(k, grad_k) * k      # (I - k k^T) grad_k R
    tan_v = grad_v - _ip(v, grad_v) * v      # (I - v v^T) grad_v R
    uk = k - A * tan_k
    uv = v - A * tan_v
    nk2, nv2 = _ip(uk, uk), _ip(uv, uv)
    # |u|^2 = 1 + alpha^2 |tangent|^2 exactly (the tangent is orthogonal to k): shown, then used.
    nk2_short = 1 + A**2 * _ip(tan_k, tan_k)
    nv2_short = 1 + A**2 * _ip(tan_v, tan_v)
    assert sp.expand(nk2 - nk2_short) == 0 and sp.expand(nv2 - nv2_short) == 0
    return SimpleNamespace(uk=uk, uv=uv, nk2=nk2_short, nv2=nv2_short, basis=e)


@lru_cache(maxsize=None)
def overlap_map():
    """The five-overlap PGD map, in the order (kappa', nu', theta', eta', rho'), as SymPy
    expressions of the overlaps, the symbols ``PARTIALS`` and ``A`` (alpha)."""
    u = _update_vectors()
    k, v, ks, vs = u.basis
    nk, nv = sp.sqrt(u.nk2), sp.sqrt(u.nv2)
    return (
        _ip(u.uk, ks) / nk,
        _ip(u.uv, vs) / nv,
        _ip(u.uv, ks) / nv,
        _ip(u.uk, vs) / nk,
        _ip(u.uk, u.uv) / (nk * nv),
    )


def _on_M():
    sub = dict(srisk.manifold_point())
    sub.update({PARTIALS[2]: 0, PARTIALS[3]: 0, PARTIALS[4]: 0})
    return sub


@lru_cache(maxsize=None)
def manifold_gradient():
    """Theorem 1's five partials at theta = eta = rho = 0 (simplified): (R_kappa, R_nu, 0, 0, 0)."""
    return tuple(sp.simplify(g.subs(srisk.manifold_point())) for g in srisk.theorem1_gradient())


def lemma4_symbolic() -> dict:
    """Lemma 4, symbolically: (i) R_theta, R_eta, R_rho vanish on M (from Theorem 1's derived
    gradient); (ii) the five-overlap map sends theta = eta = rho = 0 (with those partials zero) to
    theta' = eta' = rho' = 0, for every alpha, kappa, nu, R_kappa, R_nu."""
    grads = manifold_gradient()
    partials_vanish = [g == 0 for g in grads[2:]]
    F = overlap_map()
    images = [sp.simplify(F[i].subs(_on_M())) for i in (2, 3, 4)]
    return {
        "partials_vanish_on_M": all(partials_vanish),
        "map_preserves_M": all(im == 0 for im in images),
        "theta_eta_rho_images": images,
    }


@lru_cache(maxsize=None)
def reduced_map():
    """(kappa', nu') of the five-overlap map restricted to M, in the symbols kappa, nu,
    R_kappa, R_nu, alpha."""
    F = overlap_map()
    return tuple(sp.simplify(F[i].subs(_on_M())) for i in (0, 1))


def reduced_map_spec():
    """SPEC 9, as printed: x' = (x - alpha (1 - x^2) g) / sqrt(1 + alpha^2 (1 - x^2) g^2)."""
    Rk, Rn = PARTIALS[:2]
    f = lambda x, g: (x - A * (1 - x**2) * g) / sp.sqrt(1 + A**2 * (1 - x**2) * g**2)
    return f(S.kappa, Rk), f(S.nu, Rn)


def reduced_map_matches_spec() -> bool:
    """The derived reduced map equals SPEC 9's formula (symbolic difference simplifies to 0)."""
    return all(sp.simplify(a - b) == 0 for a, b in zip(reduced_map(), reduced_map_spec()))


# --------------------------------------------------------------------------- kernels
_OwenT = sp.Function("slr_owens_t")


def zeta_owen(t, g):
    r""":math:`\zeta_g(t) = 1 - 8\,T(\sqrt2\,t/\sqrt{1+2g^2},\ 1/\sqrt{1+4g^2})` (Owen's T; used in the
    step kernels only)."""
    return 1 - 8 * _OwenT(sp.sqrt(2) * t / sp.sqrt(1 + 2 * g**2), 1 / sp.sqrt(1 + 4 * g**2))


_NAMESPACE = dict(G.NAMESPACE, slr_owens_t=sc.owens_t)


def _lambdify(args, exprs):
    return sp.lambdify(args, exprs, modules=[_NAMESPACE, "numpy"], cse=True)


def _hoisted(array_args, param_args, exprs):
    """Split ``exprs`` into a parameter-only coefficient kernel and a per-step kernel.

    Returns ``(coef_fn, step_fn)``: ``coef_fn(*params)`` gives the list of coefficients,
    ``step_fn(*arrays, *coefs)`` the outputs. Every maximal parameter-only subexpression (and
    every parameter-only group of terms of a sum or factors of a product) becomes a coefficient
    symbol; the expressions are otherwise unchanged.
    """
    exprs = [e.replace(Zeta, zeta_owen) for e in exprs]
    pset = set(param_args)
    coefs = {}
    memo = {}

    def coef(e):
        if e.is_Number:
            return e
        if e not in coefs:
            coefs[e] = sp.Symbol("c_%d" % len(coefs))
        return coefs[e]

    def hoist(e):
        if e in memo:
            return memo[e]
        if e.free_symbols <= pset:
            out = coef(e)
        elif e.is_Atom:
            out = e
        elif e.is_Add or e.is_Mul:
            par = [a for a in e.args if a.free_symbols <= pset]
            rest = [hoist(a) for a in e.args if not a.free_symbols <= pset]
            out = e.func(*([coef(e.func(*par))] if par else []), *rest)
        else:
            out = e.func(*[hoist(a) for a in e.args])
        memo[e] = out
        return out

    outs = [hoist(e) for e in exprs]
    coef_exprs = list(coefs)
    coef_fn = _lambdify(param_args, coef_exprs)
    step_fn = _lambdify(tuple(array_args) + tuple(coefs.values()), outs)
    step_fn.ncoef = len(coef_exprs)
    return coef_fn, step_fn


_GRAD_PARAMS = (S.lam, S.gamma, S.d, S.L)


@lru_cache(maxsize=None)
def step_kernel():
    """The five-overlap PGD step composed with Theorem 1's gradient.

    ``coef(lam, gamma, d, L, alpha)`` -> coefficients; ``step(kappa, nu, theta, eta, rho, *coefs)``
    -> [kappa', nu', theta', eta', rho'].
    """
    grads = srisk.theorem1_gradient()
    sub = dict(zip(PARTIALS, grads))
    exprs = [f.xreplace(sub) for f in overlap_map()]
    return _hoisted(srisk.OVERLAPS, _GRAD_PARAMS + (A,), exprs)


@lru_cache(maxsize=None)
def reduced_step_kernel():
    """The reduced map on M composed with the manifold gradient: ``coef(lam, gamma, d, L, alpha)``,
    ``step(kappa, nu, *coefs)`` -> [kappa', nu']."""
    grads = manifold_gradient()
    sub = {PARTIALS[0]: grads[0], PARTIALS[1]: grads[1]}
    exprs = [f.xreplace(sub) for f in reduced_map()]
    return _hoisted((S.kappa, S.nu), _GRAD_PARAMS + (A,), exprs)


@lru_cache(maxsize=None)
def gradient_kernel():
    """Theorem 1's five partials (no risk value): ``coef(lam, gamma, d, L)``,
    ``grad(kappa, nu, theta, eta, rho, *coefs)`` -> [R_kappa, ..., R_rho]."""
    return _hoisted(srisk.OVERLAPS, _GRAD_PARAMS, list(srisk.theorem1_gradient()))


def risk_kernel():
    """Theorem 1's risk R(kappa, nu, theta, eta, rho, lam, gamma, eps, d, L) (the shared kernel)."""
    return G.risk_kernel()


def coefficients(coef_fn, lam, gamma, d, L, *extra):
    """Evaluate a coefficient kernel; lam may be an array (one value per step): returns an array
    of shape (ncoef,) or (ncoef, len(lam))."""
    vals = coef_fn(lam, gamma, d, L, *extra)
    lam = np.asarray(lam, dtype=float)
    return np.array([np.broadcast_to(np.asarray(v, dtype=float), lam.shape) for v in vals], dtype=float)
