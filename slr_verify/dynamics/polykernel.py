r"""Fast step kernels: the SymPy expressions recast as *coefficient matrix @ monomial basis*.

Every per-step quantity of the five-overlap PGD is, for fixed parameters, a polynomial in a few
variables whose coefficients depend on the parameters only:

* Theorem 1's five partials are polynomials in (kappa, nu, theta, eta, rho) and a handful of
  *kappa atoms*: erf(c kappa), exp(-b kappa^2) and zeta_g(c kappa) (the only special functions
  of the risk; the kappa-derivative of zeta is elementary, but R_theta contains zeta itself);
* the five-overlap map's numerators and the squared norms |k'|^2, |v'|^2 are polynomials in the
  overlaps and the partials with coefficients polynomial in alpha.

:class:`PolyKernel` takes such expressions, lets SymPy (``Poly``) find the monomials and their
coefficients, generates (lambdify) one function that evaluates all coefficients from the
parameters, and evaluates the polynomials as ``C @ M`` where the monomial rows ``M`` are built
degree by degree (each monomial = a monomial of lower degree times one variable: one gather
and one multiply per degree). A step of the five-overlap runner is then about 25 NumPy calls,
whatever the batch size, instead of several hundred. Nothing is typed by hand: the monomials,
the coefficients and the atom arguments all come from the SymPy expressions.

The kappa atoms are recognised structurally (:func:`kappa_atoms`) and evaluated in one ufunc call
per kind; zeta, which enters the gradient only additively through d theta zeta (so absolute
accuracy is what matters there), is evaluated per step by Owen's T,
:math:`\zeta_g(t) = 1 - 8\,T(\sqrt2\,t/\sqrt{1+2g^2}, 1/\sqrt{1+4g^2})` (absolute error ~1e-17,
one ufunc call). The project's relative-accuracy zeta kernel (``slr_zeta``) costs ~250 us per
call on a batch of 30, more than the whole step, and is used for the recorded risk values.
"""
from __future__ import annotations

from functools import lru_cache

import numpy as np
import sympy as sp
from scipy import special as sc

from ..kernels import generated as G
from ..symbolic import risk as srisk
from ..symbolic.zeta import zeta as Zeta

__all__ = ["PolyKernel", "kappa_atoms", "GradientKernel", "gradient_poly_kernel", "map_poly_kernel", "OverlapStep"]

S = srisk.S


class PolyKernel:
    """Polynomials ``exprs`` in ``variables`` with coefficients depending on ``params`` only.

    ``coefficients(*params)`` -> array (nout, nmono) (or (n, nout, nmono) when the parameters are
    arrays of length n); ``evaluate(X, C)`` with X of shape (nvars, batch) -> (nout, batch).

    The monomial basis is closed under a halving split: a monomial of degree n >= 2 is the product
    of its first ceil(n/2) variable factors (in variable order) and the rest, both in the basis
    (intermediates get zero coefficients). Monomials are grouped by depth (0 for degree <= 1,
    1 + the larger depth of the two halves otherwise), so degree n needs ceil(log2 n) levels, each
    one ``B[level] = B[left] * B[right]``.
    """

    def __init__(self, variables, params, exprs):
        variables = tuple(variables)
        nv = len(variables)
        polys = [sp.Poly(sp.expand(e), *variables) for e in exprs]
        split, depth = {}, {}

        def add(m):
            if m in depth:
                return depth[m]
            if sum(m) <= 1:
                depth[m] = 0
                return 0
            units = [j for j in range(nv) for _ in range(m[j])]
            h = (len(units) + 1) // 2
            left = tuple(units[:h].count(j) for j in range(nv))
            right = tuple(m[j] - left[j] for j in range(nv))
            depth[m] = 1 + max(add(left), add(right))
            split[m] = (left, right)
            return depth[m]

        for p in polys:
            for m in p.monoms():
                add(tuple(m))
        for j in range(nv):
            add(tuple(int(i == j) for i in range(nv)))
        self.variables, self.params = variables, tuple(params)
        monos = sorted(depth, key=lambda m: (depth[m], sum(m), tuple(-x for x in m)))
        self.monomials = monos
        index = {m: i for i, m in enumerate(monos)}
        entries, where = [], []
        for i, p in enumerate(polys):
            for m, c in p.terms():
                c = sp.sympify(c)
                if c.free_symbols - set(self.params):
                    raise ValueError(f"coefficient {c} depends on more than the parameters")
                entries.append(c)
                where.append((i, index[m]))
        self.nout, self.nmono = len(polys), len(monos)
        self._where = np.array(where, dtype=int).reshape(-1, 2)
        self._coef_fn = G.generate(self.params, entries)
        self._const = [index[m] for m in monos if sum(m) == 0]
        self._linear = [(index[m], m.index(1)) for m in monos if sum(m) == 1]
        self.levels = []
        for lv in range(1, max(depth.values()) + 1):
            rows = [index[m] for m in monos if depth[m] == lv]
            assert rows == list(range(rows[0], rows[-1] + 1))  # contiguous (sorted by depth)
            left = np.array([index[split[monos[r]][0]] for r in rows])
            right = np.array([index[split[monos[r]][1]] for r in rows])
            self.levels.append((slice(rows[0], rows[-1] + 1), left, right))

    def coefficients(self, *params):
        """The coefficient matrix (nout, nmono); with array parameters of length n, (n, nout, nmono)."""
        vals = self._coef_fn(*params)
        shape = np.broadcast_shapes(*[np.shape(p) for p in params])
        C = np.zeros(shape + (self.nout, self.nmono))
        for (i, j), v in zip(self._where, vals):
            C[..., i, j] += v
        return C

    def buffer(self, batch_shape):
        """Monomial buffer (nmono,) + batch_shape with the constant rows set."""
        B = np.empty((self.nmono,) + tuple(batch_shape))
        for r in self._const:
            B[r] = 1.0
        return B

    def fill(self, B):
        """Fill the monomial rows of degree >= 2 of ``B`` (degree-1 rows hold the variables)."""
        for sl, par, var in self.levels:
            np.multiply(B[par], B[var], out=B[sl])
        return B

    def linear_rows(self):
        """For each variable, its row in the monomial buffer."""
        rows = [None] * len(self.variables)
        for r, j in self._linear:
            rows[j] = r
        return rows

    def evaluate(self, X, C):
        X = np.asarray(X, dtype=float)
        B = self.buffer(X.shape[1:])
        for r, j in self._linear:
            B[r] = X[j]
        self.fill(B)
        return np.tensordot(C, B, axes=1)


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
        assert variables[0] == S.kappa
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
            ac += [sp.sqrt(2) * c / sp.sqrt(1 + 2 * g**2), 1 / sp.sqrt(1 + 4 * g**2)]
        self._ac_fn = G.generate(_GRAD_PARAMS, ac)
        self.n_erf, self.n_exp, self.n_zeta = len(atoms["erf"]), len(atoms["exp"]), len(atoms["zeta"])
        rows = self.poly.linear_rows()
        self.ov_rows = rows[:nvar]
        self.atom_rows = rows[nvar:]
        assert self.ov_rows == list(range(self.ov_rows[0], self.ov_rows[0] + nvar)), "variable rows must be contiguous"
        assert self.atom_rows == list(range(self.atom_rows[0], self.atom_rows[0] + len(self.atom_rows)))

    def coefficients(self, lam, gamma, d, L):
        C = self.poly.coefficients(lam, gamma, d, L)
        shape = np.shape(lam)
        ac = np.array([np.broadcast_to(np.asarray(v, dtype=float), shape) for v in self._ac_fn(lam, gamma, d, L)])
        return C, np.moveaxis(ac, 0, -1)  # (..., 5, nmono), (..., n_atom_coefs)

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


def bind_levels(levels, B):
    """Per-level (target view, left rows, right rows, left buffer, right buffer) for the buffer B,
    so that a step fills the monomials with ``B.take(left, 0, out=lb) * B.take(right, 0, out=rb)``
    and no slicing or allocation happens inside the loop."""
    out = []
    for sl, left, right in levels:
        shape = (len(left),) + B.shape[1:]
        out.append((B[sl], left, right, np.empty(shape), np.empty(shape)))
    return out


@lru_cache(maxsize=None)
def gradient_poly_kernel():
    return GradientKernel()


@lru_cache(maxsize=None)
def manifold_gradient_poly_kernel():
    """(R_kappa, R_nu) on M (Lemma 6, from Theorem 1 by substitution) over (kappa, nu)."""
    from . import maps

    return GradientKernel(maps.manifold_gradient()[:2], (S.kappa, S.nu))


@lru_cache(maxsize=None)
def reduced_map_poly_kernel():
    """The reduced map's numerators and squared norms, polynomials in (kappa, nu, R_kappa, R_nu)
    with coefficients in alpha: the five-overlap ones restricted to M (checked equal to
    ``maps.reduced_map()``)."""
    from . import maps

    u = maps._update_vectors()
    k, v, ks, vs = u.basis
    ip = maps._ip
    sub = maps._on_M()
    nums = [sp.expand(e.subs(sub)) for e in (ip(u.uk, ks), ip(u.uv, vs), u.nk2, u.nv2)]
    red = maps.reduced_map()
    assert sp.simplify(nums[0] / sp.sqrt(nums[2]) - red[0]) == 0 and sp.simplify(nums[1] / sp.sqrt(nums[3]) - red[1]) == 0
    return PolyKernel((S.kappa, S.nu) + tuple(maps.PARTIALS[:2]), (maps.A,), nums)


class ReducedStep:
    """The reduced PGD step on M for a 1-d batch, stateful like :class:`OverlapStep`."""

    def __init__(self, alpha, batch_shape, x0):
        mk = reduced_map_poly_kernel()
        self.Cm = Cm = mk.coefficients(alpha)
        self.B = B = mk.buffer(batch_shape)
        rows = mk.linear_rows()
        r0 = rows[0]
        assert rows == list(range(r0, r0 + 4))
        self.state = state = B[r0:r0 + 2]
        state[...] = x0
        grad = manifold_gradient_poly_kernel().make(batch_shape, out=B[r0 + 2:r0 + 4])
        levels = bind_levels(mk.levels, B)
        multiply, dot, sqrt, divide = np.multiply, np.dot, np.sqrt, np.divide
        P = np.empty((4,) + tuple(batch_shape))

        def advance(Cg, atoms):
            grad(state, Cg, atoms)
            for tgt, left, right, lb, rb in levels:
                multiply(B.take(left, 0, out=lb), B.take(right, 0, out=rb), out=tgt)
            dot(Cm, B, out=P)
            divide(P[:2], sqrt(P[2:4], out=P[2:4]), out=state)

        self.advance = advance


@lru_cache(maxsize=None)
def map_poly_kernel():
    """The five-overlap map's numerators (kappa', nu', theta', eta', rho' times the norms) and
    |k'|^2, |v'|^2 as polynomials in (overlaps, partials) with coefficients in alpha."""
    from . import maps

    u = maps._update_vectors()
    k, v, ks, vs = u.basis
    ip = maps._ip
    nums = [ip(u.uk, ks), ip(u.uv, vs), ip(u.uv, ks), ip(u.uk, vs), ip(u.uk, u.uv), u.nk2, u.nv2]
    # check: the map is nums[i] / norms (the same construction as maps.overlap_map)
    F = maps.overlap_map()
    nk, nv = sp.sqrt(u.nk2), sp.sqrt(u.nv2)
    assert all(sp.simplify(a - b) == 0 for a, b in zip(F, [nums[0] / nk, nums[1] / nv, nums[2] / nv, nums[3] / nk, nums[4] / (nk * nv)]))
    return PolyKernel(tuple(srisk.OVERLAPS) + tuple(maps.PARTIALS), (maps.A,), nums)


class OverlapStep:
    """The five-overlap PGD step for a 1-d batch, stateful: ``state`` (5, batch) holds the
    overlaps; ``advance(Cg, atoms)`` replaces them by their image under one step (gradient
    coefficients ``Cg`` and ``atoms`` from :class:`GradientKernel` for the current lam; the map's
    coefficients are fixed by alpha)."""

    _SCALE = np.array([0, 1, 1, 0, 0])  # kappa', eta', rho' / |k'|; nu', theta' / |v'|; rho' also / |v'|

    def __init__(self, alpha, batch_shape, ov0):
        mk = map_poly_kernel()
        self.Cm = mk.coefficients(alpha)
        self.B = B = mk.buffer(batch_shape)
        rows = mk.linear_rows()
        r0 = rows[0]
        assert rows == list(range(r0, r0 + 10))
        self.state = B[r0:r0 + 5]
        self.state[...] = ov0
        grad = gradient_poly_kernel().make(batch_shape, out=B[r0 + 5:r0 + 10])
        levels, Cm, state, idx = bind_levels(mk.levels, B), self.Cm, self.state, self._SCALE
        multiply, dot, sqrt, divide = np.multiply, np.dot, np.sqrt, np.divide
        P = np.empty((7,) + tuple(batch_shape))
        norms, num = P[5:7], P[:5]  # |k'|^2, |v'|^2 rows, then the five unnormalised overlaps
        den = np.empty((5,) + tuple(batch_shape))

        def advance(Cg, atoms):
            grad(state, Cg, atoms)
            for tgt, left, right, lb, rb in levels:
                multiply(B.take(left, 0, out=lb), B.take(right, 0, out=rb), out=tgt)
            dot(Cm, B, out=P)
            sqrt(norms, out=norms)
            norms.take(idx, 0, out=den)  # |k'|, |v'|, |v'|, |k'|, |k'|
            multiply(den[4], norms[1], out=den[4])  # rho' / (|k'| |v'|)
            divide(num, den, out=state)

        self.advance = advance
