r"""Fast step kernels: the SymPy expressions recast as *coefficient matrix @ monomial basis*.

Every per-step quantity of the five-overlap PGD is, for fixed parameters, a polynomial in a few
variables whose coefficients depend on the parameters only:

* Theorem 1's five partials are polynomials in (kappa, nu, theta, eta, rho) and a handful of
  *kappa atoms*: erf(c kappa), exp(-b kappa^2) and zeta_g(c kappa) (the only special functions
  of the risk; the kappa-derivative of zeta is elementary, but R_theta contains zeta itself);
* the five-overlap map's numerators and the squared norms |k'|^2, |v'|^2 are polynomials in the
  overlaps and the partials with coefficients polynomial in alpha.

:class:`~.codegen.PolyKernel` takes such expressions, lets SymPy (``Poly``) find the monomials and their
coefficients, generates (lambdify) one function that evaluates all coefficients from the
parameters, and evaluates the polynomials as ``C @ M`` where the monomial rows ``M`` are built
degree by degree (each monomial = a monomial of lower degree times one variable: one gather
and one multiply per degree). A step of the five-overlap runner is then about 25 NumPy calls,
whatever the batch size, instead of several hundred. Nothing is typed by hand: the monomials,
the coefficients and the atom arguments all come from the SymPy expressions.

The kappa atoms are recognised structurally (:func:`kappa_atoms`) and evaluated in one ufunc call
per kind; zeta, which enters the gradient only additively through d theta zeta (so absolute
accuracy is what matters there), is evaluated per step by its one-call Owen's-T form
(:func:`~.special.zeta_abs`, whose arguments come from :func:`~.special.owen_args`; absolute error
~1e-17). The project's relative-accuracy zeta kernel (``slr_zeta``) costs more than the whole step on a
small batch and is used for the recorded risk values.
"""
from __future__ import annotations

from functools import lru_cache
from typing import Callable, NamedTuple

import numpy as np
import sympy as sp
from scipy import special as sc

from ..symbolic import dynamics as sdyn
from ..symbolic import fixed_points as sfix
from ..symbolic import risk as srisk
from ..symbolic.zeta import zeta as Zeta
from . import special
from .codegen import PolyKernel, bind_levels, generate, generate_mp, hoisted

S = srisk.S
#: the five stationary points of Proposition 9 on M (from the symbolic layer)
POINTS = list(sfix.POINTS)


class ReducedMapKernels(NamedTuple):
    """Float64 kernels of Propositions 9-10 (:func:`reduced_map_kernels`); ``H_mp`` the Hessians at mpmath's working
    precision (where float64 cannot resolve the minima's erfc-sized curvature)."""

    F: Callable
    J: Callable
    g: Callable
    H: dict
    bounds: Callable
    H_mp: dict


class TangentNormKernels(NamedTuple):
    """The squared tangent-gradient norms in float64 and mpmath, and the squared full norms (:func:`tangent_norm_kernels`)."""

    f64: Callable
    mp: Callable
    scale: Callable


class ChainRuleTables(NamedTuple):
    """The chain rule's index tables in the basis (k, v, k*, v*) (:func:`chain_rule_tables`)."""

    ov_row: np.ndarray
    ov_col: np.ndarray
    cols: list
    parts: list


# --------------------------------------------------------------------------- kappa atoms
def kappa_atoms(exprs):
    """The special-function factors of Theorem 1's partials, classified: returns
    ``{"erf": [(atom, c)], "exp": [(atom, b)], "zeta": [(atom, c, g)]}`` with erf(c kappa),
    exp(b kappa^2), zeta(c kappa, g), c, b, g free of the overlaps (raises otherwise)."""
    ov = set(srisk.OVERLAPS)
    kap = S.kappa
    out = {"erf": [], "exp": [], "zeta": []}
    for a in sorted(set().union(*[e.atoms(sp.erf, sp.exp, Zeta) for e in exprs]), key=sp.default_sort_key):
        if isinstance(a, sp.erf):
            c = sp.simplify(a.args[0] / kap)
            if c.free_symbols & ov:
                raise ValueError(f"erf atom not of the form erf(c kappa): {a}")
            out["erf"].append((a, c))
        elif isinstance(a, sp.exp):
            b = sp.simplify(a.args[0] / kap**2)
            if b.free_symbols & ov:
                raise ValueError(f"exp atom not of the form exp(b kappa^2): {a}")
            out["exp"].append((a, b))
        else:
            t, g = a.args
            c = sp.simplify(t / kap)
            if (c.free_symbols | g.free_symbols) & ov:
                raise ValueError(f"zeta atom not of the form zeta(c kappa, g): {a}")
            out["zeta"].append((a, c, g))
    return out


_GRAD_PARAMS = (S.lam, S.gamma, S.d, S.L)


class GradientKernel:
    """Theorem 1's five partials as ``C @ monomials(overlaps, kappa atoms)``.

    ``coefficients(lam, gamma, d, L)`` -> (C, atom_coefs) (arrays over steps when lam is an array);
    ``__call__(ov, C, ac)`` with ``ov`` of shape (5, batch) -> (5, batch)."""

    def __init__(self, exprs=None, variables=None):
        exprs = list(srisk.theorem1_gradient() if exprs is None else exprs)
        variables = tuple(srisk.OVERLAPS if variables is None else variables)
        if variables[0] != S.kappa:
            raise ValueError("the first variable must be kappa (the atoms are functions of kappa)")
        nvar = self.nvar = len(variables)
        atoms = kappa_atoms(exprs)
        self.atoms = atoms
        syms = {}
        for kind in ("erf", "exp", "zeta"):
            for i, item in enumerate(atoms[kind]):
                syms[item[0]] = sp.Symbol("A_%s_%d" % (kind, i))
        polys = [e.xreplace(syms) for e in exprs]
        self.atom_symbols = [syms[item[0]] for kind in ("erf", "exp", "zeta") for item in atoms[kind]]
        self.poly = PolyKernel(variables + tuple(self.atom_symbols), _GRAD_PARAMS, polys)
        # atom coefficients: erf c's, exp b's, zeta: Owen T arguments h = sqrt2 c / sqrt(1 + 2 g^2), a = 1/sqrt(1 + 4 g^2)
        ac = [c for _, c in atoms["erf"]] + [b for _, b in atoms["exp"]]
        for _, c, g in atoms["zeta"]:
            ac += [c, g]  # turned into Owen's T arguments (h per unit kappa, a) by special.owen_args
        self._ac_fn = generate(_GRAD_PARAMS, ac)
        self.n_erf, self.n_exp, self.n_zeta = len(atoms["erf"]), len(atoms["exp"]), len(atoms["zeta"])
        rows = self.poly.linear_rows()
        self.ov_rows = rows[:nvar]
        self.atom_rows = rows[nvar:]
        for r in (self.ov_rows, self.atom_rows):
            if r != list(range(r[0], r[0] + len(r))):
                raise RuntimeError("variable rows of the monomial buffer must be contiguous")

    def coefficients(self, lam, gamma, d, L):
        """(C, atom coefficients): C of shape (..., 5, nmono) and :meth:`atom_coefficients`."""
        return self.poly.coefficients(lam, gamma, d, L), self.atom_coefficients(lam, gamma, d, L)

    def atom_coefficients(self, lam, gamma, d, L):
        """The atoms' constants, shape (..., n): the erf c's, the exp b's, then (h, a) per zeta atom,
        the arguments of Owen's T in zeta(c kappa, g) = 1 - 8 T(h |kappa|, a)."""
        shape = np.shape(lam)
        ac = np.array([np.broadcast_to(np.asarray(v, dtype=float), shape) for v in self._ac_fn(lam, gamma, d, L)])
        o = self.n_erf + self.n_exp
        for i in range(self.n_zeta):  # (c, g) -> Owen's T arguments (h at kappa = 1, a)
            ac[o + 2 * i], ac[o + 2 * i + 1] = special.owen_args(ac[o + 2 * i], ac[o + 2 * i + 1])
        return np.moveaxis(ac, 0, -1)

    def split_atoms(self, ac):
        """Atom coefficients (..., n) -> (erf c's, exp b's, Owen T h's, Owen T a's), each with a
        trailing axis for the batch."""
        ac = np.asarray(ac, dtype=float)[..., None]
        ne, nx, nz = self.n_erf, self.n_exp, self.n_zeta
        o = ne + nx
        return (np.ascontiguousarray(ac[..., :ne, :]), np.ascontiguousarray(ac[..., ne:o, :]),
                np.ascontiguousarray(ac[..., o:o + 2 * nz:2, :]), np.ascontiguousarray(ac[..., o + 1:o + 2 * nz:2, :]))

    def make(self, batch_shape, out=None):
        """A step-specialised evaluator with preallocated buffers: ``f(ov5, C, atoms) -> (5, batch)``
        where ov5 has shape (5,) + batch_shape (1-d batch) and ``atoms`` comes from
        :meth:`split_atoms`; ``out`` (optional) receives the partials."""
        if len(batch_shape) != 1:
            raise ValueError("the fast gradient kernel takes a 1-d batch")
        B = self.poly.buffer(batch_shape)
        o0 = self.ov_rows[0]
        a0 = self.atom_rows[0]
        ne, nx, nz = self.n_erf, self.n_exp, self.n_zeta
        erf_sl = B[a0:a0 + ne]
        exp_sl = B[a0 + ne:a0 + ne + nx]
        z_sl = B[a0 + ne + nx:a0 + ne + nx + nz]
        ov_sl = B[o0:o0 + self.nvar]
        levels = bind_levels(self.poly.levels, B)
        kap = B[o0]
        erf, exp, owens_t, multiply, dot = sc.erf, np.exp, sc.owens_t, np.multiply, np.dot
        tmp = np.empty((nz,) + tuple(batch_shape))
        k2 = np.empty(tuple(batch_shape))

        def f(ov, C, atoms):
            ce, cx, ch, ca = atoms
            ov_sl[...] = ov
            erf(multiply(ce, kap, out=erf_sl), out=erf_sl)
            exp(multiply(cx, multiply(kap, kap, out=k2), out=exp_sl), out=exp_sl)
            if nz:
                owens_t(multiply(ch, kap, out=tmp), ca, out=tmp)
                multiply(tmp, -8.0, out=z_sl)
                z_sl.__iadd__(1.0)
            for tgt, left, right, lb, rb in levels:
                multiply(B.take(left, 0, out=lb), B.take(right, 0, out=rb), out=tgt)
            return dot(C, B, out=out) if out is not None else dot(C, B)

        return f

    def __call__(self, ov, C, ac):
        """Partials at overlaps ``ov`` (5, batch) with ``coefficients`` (C, ac) for one parameter set."""
        ov = np.asarray(ov, dtype=float)
        flat = ov.reshape(self.nvar, -1)
        return self.make(flat.shape[1:])(flat, C, self.split_atoms(ac)).reshape(ov.shape)


@lru_cache(maxsize=None)
def gradient_poly_kernel():
    return GradientKernel()


@lru_cache(maxsize=None)
def manifold_gradient_poly_kernel():
    """(R_kappa, R_nu) on M (Lemma 6, from Theorem 1 by substitution) over (kappa, nu)."""
    return GradientKernel(sdyn.manifold_gradient()[:2], (S.kappa, S.nu))


@lru_cache(maxsize=None)
def reduced_map_poly_kernel():
    """The reduced map's numerators and squared norms, polynomials in (kappa, nu, R_kappa, R_nu)
    with coefficients in alpha (:func:`slr_verify.symbolic.dynamics.reduced_map_numerators`)."""
    return PolyKernel((S.kappa, S.nu) + tuple(sdyn.PARTIALS[:2]), (sdyn.A,), sdyn.reduced_map_numerators())


def _poly_step(mk, gk, alpha, batch_shape, x0, n):
    """The shared set-up of a stateful step: the map's coefficients at alpha, the monomial buffer B
    whose n state rows are followed by the n partials' rows (written by the gradient kernel ``gk``),
    the state view (initialised to ``x0``) and ``monomials()``, which fills B's higher monomials
    degree by degree. Returns (Cm, B, state, grad, monomials)."""
    Cm = mk.coefficients(alpha)
    B = mk.buffer(batch_shape)
    r0 = mk.contiguous_rows(2 * n)
    state = B[r0:r0 + n]
    state[...] = x0
    grad = gk.make(batch_shape, out=B[r0 + n:r0 + 2 * n])
    levels, multiply = bind_levels(mk.levels, B), np.multiply

    def monomials():
        for tgt, left, right, lb, rb in levels:
            multiply(B.take(left, 0, out=lb), B.take(right, 0, out=rb), out=tgt)

    return Cm, B, state, grad, monomials


class ReducedStep:
    """The reduced PGD step on M for a 1-d batch, stateful like :class:`OverlapStep`."""

    def __init__(self, alpha, batch_shape, x0):
        Cm, B, state, grad, monomials = _poly_step(reduced_map_poly_kernel(), manifold_gradient_poly_kernel(), alpha,
                                                   batch_shape, x0, 2)
        self.Cm, self.B, self.state = Cm, B, state
        dot, sqrt, divide = np.dot, np.sqrt, np.divide
        P = np.empty((4,) + tuple(batch_shape))

        def advance(Cg, atoms):
            grad(state, Cg, atoms)
            monomials()
            dot(Cm, B, out=P)
            divide(P[:2], sqrt(P[2:4], out=P[2:4]), out=state)

        self.advance = advance


@lru_cache(maxsize=None)
def map_poly_kernel():
    """The five-overlap map's numerators and |k'|^2, |v'|^2 as polynomials in (overlaps, partials)
    with coefficients in alpha (:func:`slr_verify.symbolic.dynamics.overlap_map_numerators`)."""
    return PolyKernel(tuple(srisk.OVERLAPS) + tuple(sdyn.PARTIALS), (sdyn.A,), sdyn.overlap_map_numerators())


#: the norms dividing each numerator of the five-overlap map (0: |k'|, 1: |v'|), from the symbolic layer
NORMS = sdyn.NORMS


class OverlapStep:
    """The five-overlap PGD step for a 1-d batch, stateful: ``state`` (5, batch) holds the
    overlaps; ``advance(Cg, atoms)`` replaces them by their image under one step (gradient
    coefficients ``Cg`` and ``atoms`` from :class:`GradientKernel` for the current lam; the map's
    coefficients are fixed by alpha)."""

    _SCALE = np.array([norms[0] for norms in NORMS])  # the first norm of each overlap (rho' also / |v'|)

    def __init__(self, alpha, batch_shape, ov0):
        Cm, B, state, grad, monomials = _poly_step(map_poly_kernel(), gradient_poly_kernel(), alpha, batch_shape, ov0, 5)
        self.Cm, self.B, self.state, idx = Cm, B, state, self._SCALE
        multiply, dot, sqrt, divide = np.multiply, np.dot, np.sqrt, np.divide
        P = np.empty((7,) + tuple(batch_shape))
        norms, num = P[5:7], P[:5]  # |k'|^2, |v'|^2 rows, then the five unnormalised overlaps
        den = np.empty((5,) + tuple(batch_shape))

        def advance(Cg, atoms):
            grad(state, Cg, atoms)
            monomials()
            dot(Cm, B, out=P)
            sqrt(norms, out=norms)
            norms.take(idx, 0, out=den)  # |k'|, |v'|, |v'|, |k'|, |k'|
            multiply(den[4], norms[1], out=den[4])  # rho' / (|k'| |v'|)
            divide(num, den, out=state)

        self.advance = advance


_GRAD_PARAMS4 = (S.lam, S.gamma, S.d, S.L)


@lru_cache(maxsize=None)
def reduced_step_kernel():
    """The reduced map on M composed with the manifold gradient, hoisted (large batches):
    ``coef(lam, gamma, d, L, alpha)``, ``step(kappa, nu, *coefs)`` -> [kappa', nu']."""
    return hoisted((S.kappa, S.nu), _GRAD_PARAMS4 + (sdyn.A,), list(sfix.reduced_map_exprs()))


@lru_cache(maxsize=None)
def reduced_map_kernels():
    """Float64 kernels of Propositions 9-10 (:mod:`slr_verify.symbolic.fixed_points`): ``F`` the
    reduced map, ``J`` its Jacobian (4 entries, row-major), ``g`` (g_kappa, g_nu), all of
    (kappa, nu, lam, gamma, d, L[, alpha]); ``H[point]`` the Hessian at a stationary point and
    ``bounds`` (sup|g_kappa| bound, sup|g_nu|), of (lam, gamma, d, L)."""
    st = sfix.structure()
    X = (S.kappa, S.nu)
    args = X + _GRAD_PARAMS4 + (sdyn.A,)
    return ReducedMapKernels(
        F=generate(args, list(sfix.reduced_map_exprs())),
        J=generate(args, list(sfix.reduced_jacobian())),
        g=generate(X + _GRAD_PARAMS4, [st.gk, st.gn]),
        H={pt: generate(_GRAD_PARAMS4, list(sfix.manifold_hessian(pt))) for pt in sfix.POINTS},
        bounds=generate(_GRAD_PARAMS4, list(sfix.gradient_bounds())),
        H_mp={pt: generate_mp(_GRAD_PARAMS4, list(sfix.manifold_hessian(pt))) for pt in sfix.POINTS},
    )


@lru_cache(maxsize=None)
def overlap_map_kernel():
    """The five-overlap map with the partials as arguments (float64):
    (kappa, ..., rho, R_kappa, ..., R_rho, alpha) -> the five new overlaps."""
    return generate(tuple(srisk.OVERLAPS) + tuple(sdyn.PARTIALS) + (sdyn.A,), list(sdyn.overlap_map()))


@lru_cache(maxsize=None)
def mp_gradient_kernel():
    """Theorem 1's five partials at mpmath precision, of (overlaps, lam, gamma, d, L)."""
    return generate_mp(tuple(srisk.OVERLAPS) + _GRAD_PARAMS4, list(srisk.theorem1_gradient()))


@lru_cache(maxsize=None)
def tangent_norm_kernels():
    """The squared tangent-gradient norms (:func:`slr_verify.symbolic.dynamics.tangent_norms_sq`) of
    (overlaps, partials): ``f64`` (NumPy, broadcasting) and ``mp`` (mpmath, working precision);
    ``scale`` the squared full gradient norms (:func:`~slr_verify.symbolic.dynamics.gradient_norms_sq`, float64)."""
    args = tuple(srisk.OVERLAPS) + tuple(sdyn.PARTIALS)
    exprs = list(sdyn.tangent_norms_sq())
    return TangentNormKernels(f64=generate(args, exprs), mp=generate_mp(args, exprs),
                              scale=generate(args, list(sdyn.gradient_norms_sq())))


@lru_cache(maxsize=None)
def chain_rule_tables():
    """Index tables of the chain rule in R^d, read off the symbolic map (:mod:`slr_verify.symbolic.dynamics`)
    in the basis (k, v, k*, v*) (indices 0..3):

    * ``ov_row``, ``ov_col``: overlap i is the inner product of basis vectors ``ov_row[i]`` (k or v)
      and ``ov_col[i]`` (the entry of :func:`~slr_verify.symbolic.dynamics.gram`);
    * ``cols[x]``, ``parts[x]`` for x = 0 (k), 1 (v): grad_x R = sum_j R_{parts[x][j]} e_{cols[x][j]}
      (:func:`~slr_verify.symbolic.dynamics.update_vectors`' grad_k, grad_v, whose coefficients are
      single partials).

    Returns a :class:`ChainRuleTables` of int arrays."""
    G = sdyn.gram()
    ov = list(srisk.OVERLAPS)
    pos = [next((r, c) for r in (0, 1) for c in range(4) if c != r and G[r, c] == o) for o in ov]
    u = sdyn.update_vectors()
    cols, parts = [], []
    for grad in (u.grad_k, u.grad_v):
        cj, pj = [], []
        for j in range(4):
            if grad[j] == 0:
                continue
            (i,) = [i for i, R in enumerate(sdyn.PARTIALS) if grad[j] == R]  # a single partial, coefficient 1
            cj.append(j)
            pj.append(i)
        cols.append(np.array(cj))
        parts.append(np.array(pj))
    return ChainRuleTables(ov_row=np.array([r for r, _ in pos]), ov_col=np.array([c for _, c in pos]), cols=cols, parts=parts)


def alpha_max_grid(*, lam, gamma, d, L, n=121, alphas=None) -> float:
    """Numeric (not certified) alpha_max of Proposition 10: the smallest alpha of the log grid ``alphas`` (default 241
    points from 1e-2 to 1e4), refined by 40 bisections, at which the float64 det J of the reduced map is <= 0 somewhere
    on an n x n grid of [-1, 1]^2; inf if nowhere. The certified bracket starts from it
    (:func:`slr_verify.certify.alpha_diffeo`)."""
    k, v = np.meshgrid(np.linspace(-1, 1, n), np.linspace(-1, 1, n))
    J = reduced_map_kernels().J

    def bad(a):
        Jk = J(k, v, lam, gamma, d, L, a)
        return bool(np.any(Jk[0] * Jk[3] - Jk[1] * Jk[2] <= 0))

    prev = None
    for a in np.geomspace(1e-2, 1e4, 241) if alphas is None else alphas:
        if bad(a):
            lo, hi = (prev if prev is not None else 0.0), a
            for _ in range(40):
                mid = 0.5 * (lo + hi)
                lo, hi = (lo, mid) if bad(mid) else (mid, hi)
            return lo
        prev = a
    return float("inf")
