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

**Symmetries (`docs/MATH.md` §13).** :func:`sigma_equivariance_proofs` proves that the four sign
patterns :data:`SIGN_PATTERNS` of the risk's discrete symmetries commute with the five-overlap PGD map
composed with Theorem 1's gradient: Phi(sigma o) = sigma Phi(o) for all parameters.
:func:`transverse_block_proofs` proves the consequence on M, the fixed set of sigma = (+, +, -, -, -): the Jacobian
of the map in the overlaps is block diagonal there, diag(D Phi_alpha, T) (`docs/MATH.md` §13, "The transverse
linearisation").

Identities are *returned* (``{name: bool}``) by :func:`pgd_identities`, :func:`lemma4_identities`,
:func:`sigma_equivariance_proofs` and :func:`transverse_block_proofs`, never asserted: the claims and the tests
check them, also under ``python -O``.
"""
from __future__ import annotations

from functools import cache, lru_cache
from types import SimpleNamespace

import sympy as sp

from . import risk as srisk
from .lemmas import is_zero
from .stored import stored

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


@stored
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


def lemma14_identities() -> dict:
    """Lemma 14 (`docs/MATH.md` §9): on M (theta = eta = rho = 0) the partials R_theta, R_eta, R_rho of Theorem 1's
    derived risk vanish, for every kappa, nu and every parameter (each exactly 0 after substitution and simplify)."""
    grads = manifold_gradient()
    return {f"R_{n} = 0 on M": bool(g == 0) for n, g in zip(("theta", "eta", "rho"), grads[2:])}


def lemma4_identities() -> dict:
    """Lemma 4, symbolically: R_theta, R_eta, R_rho vanish on M (Theorem 1's derived gradient, :func:`lemma14_identities`),
    and the five-overlap map sends theta = eta = rho = 0 to theta' = eta' = rho' = 0 for every
    alpha, kappa, nu, R_kappa, R_nu."""
    F = overlap_map()
    out = lemma14_identities()
    for n, i in (("theta", 2), ("eta", 3), ("rho", 4)):
        out[f"{n}' = 0 on M"] = bool(sp.simplify(F[i].subs(on_M())) == 0)
    return out


def lemma7_identities() -> dict:
    """Lemma 7 (`docs/MATH.md` §9), the statements beyond Lemma 4 and :func:`pgd_identities` (the claim shows those
    too): on M the new (kappa', nu') of the five-overlap map are the reduced map, a function of (kappa, nu, R_kappa,
    R_nu, alpha) only; Theorem 1's (R_kappa, R_nu) on M are functions of (kappa, nu) and the parameters only, and
    they are the gradient of Lemma 6's manifold risk. So, started on M, PGD is the autonomous map
    Phi_alpha(kappa, nu) = reduced_map(kappa, nu, grad R_M(kappa, nu), alpha) (for a constant lam)."""
    red, grads = reduced_map(), manifold_gradient()
    allowed_map = {srisk.S.kappa, srisk.S.nu, A, *PARTIALS[:2]}
    allowed_grad = {srisk.S.kappa, srisk.S.nu, *srisk.PARAMS}
    phi = [r.subs({PARTIALS[0]: grads[0], PARTIALS[1]: grads[1]}) for r in red]
    spec = srisk.lemma6_spec()
    return {
        "on M, (kappa', nu') depend only on (kappa, nu, R_kappa, R_nu, alpha)": all(r.free_symbols <= allowed_map for r in red),
        "on M, Theorem 1's R_kappa, R_nu depend only on (kappa, nu) and (lam, gamma, eps, d, L)":
            all(g.free_symbols <= allowed_grad for g in grads[:2]),
        "on M, R_kappa = dR_M/dkappa, R_nu = dR_M/dnu (R_M: Lemma 6's formula)":
            all(is_zero(g - sp.diff(spec, x)) for g, x in zip(grads[:2], (srisk.S.kappa, srisk.S.nu))),
        "Phi_alpha (the reduced map at Theorem 1's gradient on M) depends only on (kappa, nu), alpha and the parameters":
            all(f.free_symbols <= allowed_grad | {A} for f in phi),
    }


def definition1_identities() -> dict:
    """Definition 1 (`docs/MATH.md` §8): the step directions are tangent, <k, (I - k k^T) grad_k R> = 0 and
    <v, (I - v v^T) grad_v R> = 0, for every overlap tuple and partials (inner products in the Gram matrix of
    (k, v, k*, v*), unit diagonal); with :func:`step_norm_identities`' |k'|^2 = 1 + alpha^2 |tan_k|^2 >= 1 the projection
    P(x) = x/|x| is always defined and puts k_{t+1}, v_{t+1} back on the unit spheres."""
    u = update_vectors()
    k, v = u.basis[:2]
    return {"<k, (I - k k^T) grad_k R> = 0": inner(k, u.tan_k) == 0,
            "<v, (I - v v^T) grad_v R> = 0": inner(v, u.tan_v) == 0}


def step_norm_identities() -> dict:
    """The squared norm of the unnormalised step, <u, u> = 1 + alpha^2 |tangent|^2 (the tangent is orthogonal to k,
    resp. v), for k' and v' (part of :func:`pgd_identities`; Definition 1's claim uses these alone)."""
    u = update_vectors()
    return {"|k'|^2 = 1 + alpha^2 |tan_k|^2": sp.expand(u.nk2_direct - u.nk2) == 0,
            "|v'|^2 = 1 + alpha^2 |tan_v|^2": sp.expand(u.nv2_direct - u.nv2) == 0}


@cache
def _reduced_map_identities() -> tuple:
    red, spec = reduced_map(), reduced_map_spec()
    num = reduced_map_numerators()
    return (("reduced map = section 9 formula (kappa)", sp.simplify(red[0] - spec[0]) == 0),
            ("reduced map = section 9 formula (nu)", sp.simplify(red[1] - spec[1]) == 0),
            ("reduced numerators / norms = reduced map",
             all(sp.simplify(n / sp.sqrt(q) - r) == 0 for n, q, r in zip(num[:2], num[2:], red))))


def pgd_identities() -> dict:
    """The identities the map's derivation relies on, each a bool: the squared norm of the step
    is 1 + alpha^2 |tangent|^2 (the tangent is orthogonal to k, :func:`step_norm_identities`); the reduced map equals
    the formula of `docs/MATH.md` §9 (those proofs computed once per process)."""
    return {**step_norm_identities(), **{k: bool(v) for k, v in _reduced_map_identities()}}


#: the sign patterns on (kappa, nu, theta, eta, rho) of the discrete symmetries of R (`docs/MATH.md` §13): the
#: identity, (k, v) -> (-k, -v), (k, v) -> (Sk, -Sv) (S the reflection fixing k* and reversing v*) and their product
SIGN_PATTERNS = ((1, 1, 1, 1, 1), (-1, -1, -1, -1, 1), (1, 1, -1, -1, -1), (-1, -1, 1, 1, -1))


def _pattern_label(sigma) -> str:
    return "(" + ", ".join("+" if s > 0 else "-" for s in sigma) + ")"


def sigma_equivariance_proofs(sigma=None) -> dict:
    r"""Phi(sigma o) = sigma Phi(o) for a sign pattern sigma, proved as exact SymPy identities ({statement: bool}).

    Phi is the five-overlap PGD map at step alpha (`docs/MATH.md` §12): Phi(o) = F(o, grad R(o), alpha), with
    F = :func:`overlap_map` (partials as symbols) and grad R = Theorem 1's gradient
    (:func:`slr_verify.symbolic.risk.theorem1_gradient`), the very expressions the float64 and arb kernels are
    generated from. sigma acts diagonally, sigma o = (s_1 kappa, ..., s_5 rho), s_i = +-1. For all parameters
    (lam, gamma, d, L > 0, eps >= 0, alpha > 0: the symbols' assumptions) and all overlaps and partials (real
    symbols), every statement being ``expand(lhs - rhs) == 0``, an exact identity, it proves

    * R(sigma o) = R(o) (the symmetry of `docs/MATH.md` §13, on Theorem 1's closed form; zeta_g(t) is even in t
      because erf is odd and Z ~ -Z, which :class:`~slr_verify.symbolic.zeta.zeta` applies on construction);
    * the gradient is equivariant, R_i(sigma o) = s_i R_i(o) for each of the five partials (checked on the
      derived partials themselves, not only inferred from the line above by the chain rule);
    * the normalisation is invariant: |k'|^2 and |v'|^2 (:func:`overlap_map_numerators`) are unchanged when the
      overlaps and the partials are both replaced by their sigma images;
    * the numerators are equivariant, N_i(sigma o, sigma p) = s_i N_i(o, p), and so is the map itself,
      F_i(sigma o, sigma p, alpha) = s_i F_i(o, p, alpha) (on :func:`overlap_map`, square roots included);
    * composition: Phi(sigma o) = F(sigma o, grad R(sigma o)) = F(sigma o, sigma grad R(o)) = sigma F(o, grad R(o))
      = sigma Phi(o): the conjunction of the gradient's and the map's equivariance (no further computation).

    With sigma^2 = id this gives (sigma o Phi)^n = sigma^n o Phi^n, the step of the 2-cycle argument of the
    contraction balls (`docs/MATH.md` §13, "Where PGD goes"; :mod:`slr_verify.certify.capture`).

    ``sigma``: a tuple of five +-1 (any pattern, so that a pattern that is *not* a symmetry can be shown to fail);
    None: every non-identity pattern of :data:`SIGN_PATTERNS`, the statements of each prefixed by its pattern.
    True is a proof; False only means the difference did not expand to 0 (not proved, not by itself refuted).
    """
    if sigma is None:
        out = {}
        for pat in SIGN_PATTERNS[1:]:
            out.update(_equivariance(pat))
        return out
    try:
        ok = len(sigma) == 5 and all(not isinstance(s, (bool, str)) and s in (1, -1) for s in sigma)
    except TypeError:
        ok = False
    if not ok:
        raise ValueError(f"sigma must be five signs +1 or -1 (on kappa, nu, theta, eta, rho), got {sigma!r}")
    return dict(_equivariance(tuple(int(s) for s in sigma)))


@cache
def _equivariance(sigma: tuple) -> dict:
    """The statements of :func:`sigma_equivariance_proofs` for one validated pattern (cached)."""
    lab = _pattern_label(sigma)
    on_o = {x: s * x for x, s in zip(srisk.OVERLAPS, sigma)}
    on_op = {**on_o, **{p: s * p for p, s in zip(PARTIALS, sigma)}}

    def zero(expr) -> bool:
        return bool(sp.expand(expr) == 0)

    R = srisk.theorem1_risk()
    grad = srisk.theorem1_gradient()
    *num, nk2, nv2 = overlap_map_numerators()
    F = overlap_map()
    names = ("kappa", "nu", "theta", "eta", "rho")
    out = {f"sigma = {lab}: R(sigma o) = R(o)": zero(R.xreplace(on_o) - R)}
    g_ok = out[f"sigma = {lab}: grad R(sigma o) = sigma grad R(o)"] = all(
        zero(g.xreplace(on_o) - s * g) for g, s in zip(grad, sigma))
    out[f"sigma = {lab}: |k'|^2, |v'|^2 invariant under (o, p) -> (sigma o, sigma p)"] = (
        zero(nk2.xreplace(on_op) - nk2) and zero(nv2.xreplace(on_op) - nv2))
    out[f"sigma = {lab}: numerators N(sigma o, sigma p) = sigma N(o, p)"] = all(
        zero(n.xreplace(on_op) - s * n) for n, s in zip(num, sigma))
    f_ok = True
    for f, s, n in zip(F, sigma, names):
        ok = out[f"sigma = {lab}: F_{n}(sigma o, sigma p, alpha) = {'+' if s > 0 else '-'}F_{n}(o, p, alpha)"] = \
            zero(f.xreplace(on_op) - s * f)
        f_ok = f_ok and ok
    out[f"sigma = {lab}: Phi(sigma o) = sigma Phi(o) (composition of grad R's and F's equivariance)"] = g_ok and f_ok
    return out


#: the symmetry of M (`docs/MATH.md` §13, "The transverse linearisation"): (k, v) -> (Sk, -Sv), fixing M pointwise
SIGMA_M = SIGN_PATTERNS[2]


def transverse_block_proofs() -> dict:
    r"""DG on M is block diagonal and its (kappa, nu) block is D Phi_alpha (`docs/MATH.md` §13, "The transverse
    linearisation"), as exact SymPy statements ({statement: bool}; True is a proof).

    G(o) = F(o, grad R(o), alpha) is the five-overlap PGD map (Definition 1) and DG = dF/do + dF/dP . H its Jacobian
    in the overlaps, H the 5 x 5 matrix of Theorem 1's second partials (row-major: H[j, c] = d R_j / d o_c). With
    x = (kappa, nu), y = (theta, eta, rho) and M = {y = 0}:

    * (a) sigma = (+, +, -, -, -) is a symmetry of Theorem 1's risk and of its Hessian (H_ij(sigma o) = s_i s_j
      H_ij(o)); substituted at y = 0 the derived R_theta, R_eta, R_rho and the twelve mixed second partials R_xy,
      R_yx expand to 0 (no parity of zeta is needed: zeta enters Theorem 1's risk only as
      zeta_{lam gamma}(lam sqrt(d/2) kappa) and zeta_lam(0), free of theta, eta, rho, and so do its derivatives);
    * (b) at y = 0 and R_theta = R_eta = R_rho = 0 (the substitution :func:`on_M`, legitimate by (a)) the entries
      dF_x/dy, dF_x/dR_y, dF_y/dx and dF_y/dR_x of :func:`overlap_map_jacobian` are 0; hence, with H a matrix of free
      symbols whose mixed entries are 0 (by (a)), both off-diagonal blocks of dF/do + dF/dP . H are identically 0;
    * (c) on M the (x, x) block of dF/do and the (x, (R_kappa, R_nu)) block of dF/dP are the Jacobians of
      :func:`reduced_map` in (kappa, nu) and in (R_kappa, R_nu); Theorem 1's (R_kappa, R_nu) and their (x, x)
      second partials at y = 0 are the gradient and the Hessian of Lemma 6's R_M (:func:`~.risk.lemma6_spec`); and
      the chain rule, with g = (g_kappa, g_nu) two undefined functions of (kappa, nu): DG's (x, x) block at
      (R_kappa, R_nu) = g, H's (x, x) block = Dg equals D[reduced_map(kappa, nu, g(kappa, nu), alpha)]. With
      g = grad R_M this is D Phi_alpha (Lemma 7's Phi_alpha = reduced_map at grad R_M).

    The conclusion (by composition, no further computation): at every point of M, for all parameters and alpha,
    DG = diag(D Phi_alpha, T) with T the 3 x 3 (y, y) block, the transverse linearisation.
    """
    return {k: bool(v) for k, v in _transverse_block()}


@cache
def _transverse_block() -> tuple:
    x_idx, y_idx = (0, 1), (2, 3, 4)
    names = ("kappa", "nu", "theta", "eta", "rho")
    R, grad, hess = srisk.theorem1_risk(), srisk.theorem1_gradient(), srisk.theorem1_hessian()
    on_o = {x: s * x for x, s in zip(srisk.OVERLAPS, SIGMA_M)}
    zero_M = srisk.manifold_point()

    def zero(e) -> bool:
        return bool(sp.expand(e) == 0)

    out = [
        ("transverse (a): R(kappa, nu, -theta, -eta, -rho) = R(kappa, nu, theta, eta, rho) (Theorem 1's risk, "
         "sigma = (+, +, -, -, -))", zero(R.xreplace(on_o) - R)),
        ("transverse (a): R_ij(sigma o) = s_i s_j R_ij(o) for the 25 second partials of Theorem 1's risk",
         all(zero(hess[5 * i + j].xreplace(on_o) - SIGMA_M[i] * SIGMA_M[j] * hess[5 * i + j])
             for i in range(5) for j in range(5))),
        ("transverse (a): on M (theta = eta = rho = 0) Theorem 1's R_theta, R_eta, R_rho are 0",
         all(zero(grad[j].subs(zero_M)) for j in y_idx)),
        ("transverse (a): on M the mixed second partials R_xy, R_yx (x in kappa, nu; y in theta, eta, rho) of "
         "Theorem 1's risk are 0", all(zero(hess[5 * i + j].subs(zero_M)) and zero(hess[5 * j + i].subs(zero_M))
                                       for i in x_idx for j in y_idx)),
    ]
    J = overlap_map_jacobian().subs(on_M())          # columns: the 5 overlaps, then the 5 partials
    p_col = lambda j: 5 + j
    out.append(("transverse (b): on M (theta = eta = rho = 0, R_theta = R_eta = R_rho = 0) dF_x/dy = dF_x/dR_y = 0 "
                "for x in (kappa, nu), y in (theta, eta, rho)",
                all(zero(J[i, j]) and zero(J[i, p_col(j)]) for i in x_idx for j in y_idx)))
    out.append(("transverse (b): on M dF_y/dx = dF_y/dR_x = 0 for y in (theta, eta, rho), x in (kappa, nu)",
                all(zero(J[j, i]) and zero(J[j, p_col(i)]) for i in x_idx for j in y_idx)))
    h = sp.Matrix(5, 5, lambda j, c: sp.Symbol(f"H_{names[j]}_{names[c]}", real=True))
    h0 = sp.Matrix(5, 5, lambda j, c: 0 if (j in x_idx) != (c in x_idx) else h[j, c])
    DG = J[:, :5] + J[:, 5:] * h0
    out.append(("transverse (b): on M, DG = dF/do + dF/dP . H (H symbolic, its mixed entries 0) has zero "
                "(kappa, nu) x (theta, eta, rho) and (theta, eta, rho) x (kappa, nu) blocks: DG is block diagonal",
                all(zero(DG[i, j]) and zero(DG[j, i]) for i in x_idx for j in y_idx)))
    X, P2 = (S.kappa, S.nu), PARTIALS[:2]
    red = sp.Matrix(reduced_map())
    Jred = red.jacobian([*X, *P2])
    out.append(("transverse (c): on M the (kappa, nu) blocks of dF/do and dF/d(R_kappa, R_nu) are the Jacobians of "
                "the reduced map in (kappa, nu) and in (R_kappa, R_nu)",
                all(sp.simplify(e) == 0 for e in J.extract(list(x_idx), [0, 1, 5, 6]) - Jred)))
    spec = srisk.lemma6_spec()
    out.append(("transverse (c): on M Theorem 1's (R_kappa, R_nu) and (R_kappa_kappa, R_kappa_nu, R_nu_kappa, "
                "R_nu_nu) are the gradient and the Hessian of Lemma 6's R_M",
                all(is_zero(grad[i].subs(zero_M) - sp.diff(spec, X[i])) for i in x_idx)
                and all(is_zero(hess[5 * i + j].subs(zero_M) - sp.diff(spec, X[i], X[j])) for i in x_idx for j in x_idx)))
    g = [sp.Function(f"g_{n}")(*X) for n in ("kappa", "nu")]
    at_g = {P2[0]: g[0], P2[1]: g[1], **{h[j, c]: sp.diff(g[j], X[c]) for j in x_idx for c in x_idx}}
    phi_g = red.xreplace({P2[0]: g[0], P2[1]: g[1]})
    out.append(("transverse (c): chain rule, g = (g_kappa, g_nu)(kappa, nu) any smooth functions: DG's (kappa, nu) "
                "block on M at (R_kappa, R_nu) = g, H's (kappa, nu) block = Dg equals D[reduced map(kappa, nu, g, alpha)]; "
                "with g = grad R_M (above) it is D Phi_alpha",
                all(sp.simplify(e) == 0 for e in DG.extract(list(x_idx), list(x_idx)).xreplace(at_g)
                    - phi_g.jacobian(list(X)))))
    return tuple(out)
