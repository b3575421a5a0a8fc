r"""The PGD maps of Definition 1, derived: the five-overlap map, the reduced map on M, Lemma 4.

**Five-overlap map (`docs/MATH.md` §12).** In the basis (k, v, k*, v*) with Gram matrix
``[[1, rho, kappa, eta], [rho, 1, theta, nu], [kappa, theta, 1, 0], [eta, nu, 0, 1]]`` a vector is
its coefficient column and inner products are ``a^T G b``. By the chain rule through the
overlaps, with the partials :math:`R_\kappa, \dots, R_\rho` kept as *symbols*,

.. math::

    \nabla_k R = R_\kappa k^* + R_\eta v^* + R_\rho v, \qquad
    \nabla_v R = R_\nu v^* + R_\theta k^* + R_\rho k .

The update :math:`k' = P(k - \alpha (I - k k^\top)\nabla_k R)` (and the same for v, both from
(k_t, v_t)) is computed on coefficient columns and the new overlaps are inner products: a map
:math:`F(\kappa, \dots, \rho;\ R_\kappa, \dots, R_\rho;\ \alpha)` that no longer mentions d.

**Reduced map (`docs/MATH.md` §9).** :func:`reduced_map` substitutes theta = eta = rho = 0 and
:math:`R_\theta = R_\eta = R_\rho = 0` (which hold on M, :func:`lemma4_identities`) and keeps the
(kappa, nu) components.

Identities are *returned* (``{name: bool}``) by :func:`pgd_identities` and
:func:`lemma4_identities`, never asserted: the claims and the tests check them, also under
``python -O``.
"""
from __future__ import annotations

from functools import lru_cache
from types import SimpleNamespace

import sympy as sp

from . import risk as srisk

__all__ = [
    "A",
    "PARTIALS",
    "gram",
    "inner",
    "update_vectors",
    "overlap_map",
    "overlap_map_numerators",
    "on_M",
    "manifold_gradient",
    "reduced_map",
    "reduced_map_numerators",
    "reduced_map_spec",
    "lemma4_identities",
    "pgd_identities",
    "tangent_norms_sq",
    "overlap_map_jacobian",
]

S = srisk.S
#: the step size
A = sp.Symbol("alpha", positive=True)
#: the partial derivatives of R in the overlaps, as symbols (R_kappa, R_nu, R_theta, R_eta, R_rho)
PARTIALS = sp.symbols("R_kappa R_nu R_theta R_eta R_rho", real=True)


@lru_cache(maxsize=None)
def gram():
    """Gram matrix of (k, v, k*, v*) in the overlap symbols."""
    k, n, t, e, r = S.kappa, S.nu, S.theta, S.eta, S.rho
    return sp.Matrix([[1, r, k, e], [r, 1, t, n], [k, t, 1, 0], [e, n, 0, 1]])


def inner(a, b):
    """<a, b> of two coefficient columns in the basis (k, v, k*, v*)."""
    return sp.expand((a.T * gram() * b)[0, 0])


@lru_cache(maxsize=None)
def update_vectors():
    """Unnormalised k', v' (coefficient columns), their tangent directions, and their squared
    norms in two forms: <u, u> and 1 + alpha^2 |tangent|^2 (equal: :func:`pgd_identities`)."""
    Rk, Rn, Rt, Re, Rr = PARTIALS
    e = [sp.Matrix([int(i == j) for j in range(4)]) for i in range(4)]
    k, v, ks, vs = e
    grad_k = Rk * ks + Re * vs + Rr * v
    grad_v = Rn * vs + Rt * ks + Rr * k
    tan_k = grad_k - inner(k, grad_k) * k      # (I - k k^T) grad_k R
    tan_v = grad_v - inner(v, grad_v) * v      # (I - v v^T) grad_v R
    uk = k - A * tan_k
    uv = v - A * tan_v
    return SimpleNamespace(uk=uk, uv=uv, grad_k=grad_k, grad_v=grad_v, tan_k=tan_k, tan_v=tan_v, basis=e,
                           nk2=1 + A**2 * inner(tan_k, tan_k), nv2=1 + A**2 * inner(tan_v, tan_v),
                           nk2_direct=inner(uk, uk), nv2_direct=inner(uv, uv))


@lru_cache(maxsize=None)
def overlap_map_numerators():
    """The five-overlap map as numerators over norms: (N_kappa, N_nu, N_theta, N_eta, N_rho,
    |k'|^2, |v'|^2), polynomials in the overlaps, the partials and alpha. The map is
    (N_kappa/|k'|, N_nu/|v'|, N_theta/|v'|, N_eta/|k'|, N_rho/(|k'||v'|))."""
    u = update_vectors()
    k, v, ks, vs = u.basis
    return (inner(u.uk, ks), inner(u.uv, vs), inner(u.uv, ks), inner(u.uk, vs), inner(u.uk, u.uv), u.nk2, u.nv2)


#: the norms dividing each numerator of :func:`overlap_map_numerators` (0: |k'|, 1: |v'|)
NORMS = ((0,), (1,), (1,), (0,), (0, 1))


@lru_cache(maxsize=None)
def overlap_map():
    """The five-overlap PGD map (kappa', nu', theta', eta', rho') in the overlaps, ``PARTIALS``, ``A``."""
    *num, nk2, nv2 = overlap_map_numerators()
    norm = (sp.sqrt(nk2), sp.sqrt(nv2))
    return tuple(N / sp.Mul(*[norm[j] for j in js]) for N, js in zip(num, NORMS))


@lru_cache(maxsize=None)
def tangent_norms_sq():
    """(|(I - k k^T) grad_k R|^2, |(I - v v^T) grad_v R|^2) in the overlaps and ``PARTIALS``: the
    Riemannian gradient's size, the stopping rule of runs and the stationarity test off M."""
    u = update_vectors()
    return inner(u.tan_k, u.tan_k), inner(u.tan_v, u.tan_v)


@lru_cache(maxsize=None)
def gradient_norms_sq():
    """(|grad_k R|^2, |grad_v R|^2) in the overlaps and ``PARTIALS``: the scale of the rounding error
    of :func:`tangent_norms_sq` (a difference |grad|^2 - <k, grad>^2 in float64)."""
    u = update_vectors()
    return inner(u.grad_k, u.grad_k), inner(u.grad_v, u.grad_v)


@lru_cache(maxsize=None)
def overlap_map_jacobian():
    """The derivatives of the five-overlap map in the overlaps and in the partials: a 5 x 10
    matrix (columns kappa, ..., rho, R_kappa, ..., R_rho). Composed with Theorem 1's Hessian it
    gives the Jacobian of one PGD step in the overlaps (Newton on the fixed points)."""
    F = sp.Matrix(overlap_map())
    return F.jacobian(list(srisk.OVERLAPS) + list(PARTIALS))


def on_M():
    """The substitution theta = eta = rho = 0 and R_theta = R_eta = R_rho = 0."""
    sub = dict(srisk.manifold_point())
    sub.update({PARTIALS[2]: 0, PARTIALS[3]: 0, PARTIALS[4]: 0})
    return sub


@lru_cache(maxsize=None)
def manifold_gradient():
    """Theorem 1's five partials at theta = eta = rho = 0, simplified: (R_kappa, R_nu, 0, 0, 0)."""
    return tuple(sp.simplify(g.subs(srisk.manifold_point())) for g in srisk.theorem1_gradient())


@lru_cache(maxsize=None)
def reduced_map_numerators():
    """(N_kappa, N_nu, |k'|^2, |v'|^2) of the five-overlap map restricted to M."""
    num = overlap_map_numerators()
    sub = on_M()
    return tuple(sp.expand(num[i].subs(sub)) for i in (0, 1, 5, 6))


@lru_cache(maxsize=None)
def reduced_map():
    """(kappa', nu') of the five-overlap map on M, in kappa, nu, R_kappa, R_nu, alpha."""
    F = overlap_map()
    return tuple(sp.simplify(F[i].subs(on_M())) for i in (0, 1))


def reduced_map_spec():
    """The reduced map as stated in `docs/MATH.md` §9: x' = (x - alpha (1 - x^2) g) / sqrt(1 + alpha^2 (1 - x^2) g^2)."""
    Rk, Rn = PARTIALS[:2]
    f = lambda x, g: (x - A * (1 - x**2) * g) / sp.sqrt(1 + A**2 * (1 - x**2) * g**2)
    return f(S.kappa, Rk), f(S.nu, Rn)


def lemma4_identities() -> dict:
    """Lemma 4, symbolically: R_theta, R_eta, R_rho vanish on M (Theorem 1's derived gradient),
    and the five-overlap map sends theta = eta = rho = 0 to theta' = eta' = rho' = 0 for every
    alpha, kappa, nu, R_kappa, R_nu."""
    grads = manifold_gradient()
    F = overlap_map()
    out = {f"R_{n} = 0 on M": bool(g == 0) for n, g in zip(("theta", "eta", "rho"), grads[2:])}
    for n, i in (("theta", 2), ("eta", 3), ("rho", 4)):
        out[f"{n}' = 0 on M"] = bool(sp.simplify(F[i].subs(on_M())) == 0)
    return out


def pgd_identities() -> dict:
    """The identities the map's derivation relies on, each a bool: the squared norm of the step
    is 1 + alpha^2 |tangent|^2 (the tangent is orthogonal to k); the reduced map equals the
    formula of `docs/MATH.md` §9."""
    u = update_vectors()
    red, spec = reduced_map(), reduced_map_spec()
    return {
        "|k'|^2 = 1 + alpha^2 |tan_k|^2": sp.expand(u.nk2_direct - u.nk2) == 0,
        "|v'|^2 = 1 + alpha^2 |tan_v|^2": sp.expand(u.nv2_direct - u.nv2) == 0,
        "reduced map = section 9 formula (kappa)": sp.simplify(red[0] - spec[0]) == 0,
        "reduced map = section 9 formula (nu)": sp.simplify(red[1] - spec[1]) == 0,
        "reduced numerators / norms = reduced map": all(
            sp.simplify(n / sp.sqrt(q) - r) == 0
            for n, q, r in zip(reduced_map_numerators()[:2], reduced_map_numerators()[2:], red)),
    }
