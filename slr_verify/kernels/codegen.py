r"""The code generator: SymPy expressions -> float64 (NumPy/SciPy) and mpmath functions.

Everything numeric that comes from a formula is generated here, from the live expressions of
:mod:`slr_verify.symbolic`; nothing is typed by hand.

* :func:`generate` (float64, vectorised, shared subexpressions) and :func:`generate_mp` (mpmath,
  any precision) lambdify with one printer each, :class:`KernelPrinter` / :class:`MpKernelPrinter`,
  which print zeta, its complement, the log of the complement and the absolute-accuracy zeta
  of the step kernels as calls to :mod:`slr_verify.kernels.special`.
* :func:`hoisted` splits expressions into a parameter-only coefficient kernel and a per-step
  kernel (for runs with fixed parameters).
* :class:`PolyKernel` evaluates polynomials with parameter-dependent coefficients as
  *coefficient matrix @ monomial basis* (the PGD step kernels, :mod:`.steps`).
"""
from __future__ import annotations

from typing import Callable, NamedTuple

import numpy as np
import sympy as sp
from scipy import special as sc
from sympy.printing.numpy import NumPyPrinter
from sympy.printing.pycode import MpmathPrinter, PythonCodePrinter

from ..symbolic.zeta import zeta
from . import special


class KernelForms(NamedTuple):
    """One set of expressions as kernels in the forms generated for it (None where a form is not): ``f64`` (NumPy),
    ``mp`` (mpmath), ``arb`` (arb balls), ``series`` (arb_series), and ``proofs`` (the SymPy statements they rest
    on)."""

    f64: Callable | None = None
    mp: Callable | None = None
    arb: Callable | None = None
    series: Callable | None = None
    proofs: dict | None = None


class LogZetac(sp.Function):
    """log zetac(t, g), evaluated by the log-domain kernel (finite where zetac underflows)."""

    nargs = 2


class ZetaAbs(sp.Function):
    """zeta(t, g) evaluated by the one-call Owen-T form (absolute accuracy; step kernels only)."""

    nargs = 2


def call_printer(name):
    """A SymPy printer method (``_print_<Function>``) that prints an application of the function as the
    call ``name(arg, ...)``, each argument printed by the same printer: how the generated code names a kernel."""

    def method(self, expr):
        return "%s(%s)" % (name, ", ".join(self._print(a) for a in expr.args))

    return method


class KernelPrinter(NumPyPrinter):
    """NumPy/SciPy code, with the project's special functions printed as kernel calls."""

    _print_zeta = call_printer("slr_zeta")
    _print_zetac = call_printer("slr_zetac")
    _print_zeta2 = call_printer("slr_zeta2")
    _print_LogZetac = call_printer("slr_log_zetac")
    _print_ZetaAbs = call_printer("slr_zeta_abs")
    _print_erf = call_printer("erf")  # scipy.special ufuncs from NAMESPACE, not math.erf
    _print_erfc = call_printer("erfc")


class ScalarPrinter(PythonCodePrinter):
    """Python ``math`` code for one set of float arguments, the special functions printed as the
    scalar kernels."""

    _print_zeta = call_printer("slr_zeta")
    _print_zetac = call_printer("slr_zetac")


class MpKernelPrinter(MpmathPrinter):
    """mpmath code, zeta and zetac printed as calls to the mpmath closed forms (zeta2: quadrature)."""

    _print_zeta = call_printer("slr_zeta")
    _print_zetac = call_printer("slr_zetac")
    _print_zeta2 = call_printer("slr_zeta2")


def _zeta2(t1, t2, s11, s22, s12):
    """The bivariate zeta on arrays (:func:`.numba_special.zeta2_array`, compiled on first use)."""
    from .numba_special import zeta2_array

    return zeta2_array(t1, t2, s11, s22, s12)


#: What the generated float64 code calls.
NAMESPACE = {
    "slr_zeta": special.zeta,
    "slr_zetac": special.zetac,
    "slr_log_zetac": special.log_zetac,
    "slr_zeta_abs": special.zeta_abs,
    "slr_zeta2": _zeta2,
    "erf": sc.erf,
    "erfc": sc.erfc,
}


_SETTINGS = {"fully_qualified_modules": False, "inline": True, "allow_unknown_functions": True, "user_functions": {}}


def generate(args, exprs, cse=True):
    """Float64 function of ``args`` computing ``exprs`` (an expression or a list), subexpressions
    shared (``cse=False`` for expressions holding a Sum: cse would hoist the summand out of it)."""
    return sp.lambdify(args, exprs, modules=[NAMESPACE, "numpy"], cse=cse, printer=KernelPrinter(dict(_SETTINGS)))


#: What the generated scalar code calls.
SCALAR_NAMESPACE = {"slr_zeta": special.zeta_scalar, "slr_zetac": special.zetac_scalar}


def generate_scalar(args, exprs, cse=True):
    """Python-float function of ``args`` computing ``exprs`` with the ``math`` module (the public
    API's scalar path: no array is built)."""
    return sp.lambdify(args, exprs, modules=[SCALAR_NAMESPACE, "math"], cse=cse, printer=ScalarPrinter(dict(_SETTINGS)))


def generate_mp(args, exprs, cse=False):
    """mpmath function of ``args`` computing ``exprs`` at the working precision ``mpmath.mp.dps``
    (``cse=True`` shares subexpressions: for long lists such as Hessians)."""
    import mpmath

    ns = {"slr_zeta": lambda t, g: special.zeta_mp(t, g, dps=mpmath.mp.dps),
          "slr_zetac": lambda t, g: special.zetac_mp(t, g, dps=mpmath.mp.dps),
          "slr_zeta2": lambda *a: special.zeta2_mp(*a, dps=mpmath.mp.dps)}
    fn = sp.lambdify(args, exprs, modules=[ns, "mpmath"], cse=cse, printer=MpKernelPrinter(dict(_SETTINGS)))

    # Python floats and ints become mpf first (exactly): float arithmetic between two arguments (x**2,
    # x*y) would otherwise round to 53 bits before any mpf enters the expression
    def kernel(*values):
        return fn(*(mpmath.mpmathify(v) for v in values))

    kernel.__doc__ = fn.__doc__
    return kernel


def hoisted(array_args, param_args, exprs):
    """Split ``exprs`` into a parameter-only coefficient kernel and a per-step kernel.

    Returns ``(coef_fn, step_fn)``: ``coef_fn(*params)`` gives the list of coefficients,
    ``step_fn(*arrays, *coefs)`` the outputs. Every maximal parameter-only subexpression (and
    every parameter-only group of terms of a sum or factors of a product) becomes a coefficient
    symbol. zeta is evaluated by its one-call absolute-accuracy form (:class:`ZetaAbs`).
    """
    exprs = [e.replace(zeta, ZetaAbs) for e in exprs]
    pset = set(param_args)
    coefs, memo = {}, {}

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
    coef_fn = generate(param_args, list(coefs))
    step_fn = generate(tuple(array_args) + tuple(coefs.values()), outs)
    step_fn.ncoef = len(coefs)
    return coef_fn, step_fn


def coefficient_array(coef_fn, *params):
    """Evaluate a coefficient kernel; the first parameter may be an array (one value per step):
    returns an array of shape (ncoef,) or (ncoef, n)."""
    vals = coef_fn(*params)
    shape = np.shape(params[0])
    return np.array([np.broadcast_to(np.asarray(v, dtype=float), shape) for v in vals], dtype=float)


class PolyKernel:
    """Polynomials ``exprs`` in ``variables`` with coefficients depending on ``params`` only.

    ``coefficients(*params)`` -> array (nout, nmono) (or (n, nout, nmono) when the parameters are
    arrays of length n); ``evaluate(X, C)`` with X of shape (nvars, batch) -> (nout, batch).

    The monomial basis is closed under a halving split: a monomial of degree n >= 2 is the product
    of its first ceil(n/2) variable factors (in variable order) and the rest, both in the basis
    (intermediates get zero coefficients). Monomials are grouped by depth (0 for degree <= 1,
    1 + the larger depth of the two halves otherwise), so degree n needs ceil(log2 n) levels, each
    one ``B[level] = B[left] * B[right]``.

    What the fused kernels print from (:mod:`.fused`): ``entry_positions`` (nentries, 2), the (output,
    monomial) of each structurally non-zero coefficient; ``coefficient_values(*params)``, their values in that
    order; ``constant_rows``, the buffer rows of the constant monomial; ``variable_rows``, (row, variable) of the
    degree-one monomials; ``levels``, the halving splits.
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
        self.entry_positions = np.array(where, dtype=int).reshape(-1, 2)
        self.coefficient_values = generate(self.params, entries)
        self.constant_rows = [index[m] for m in monos if sum(m) == 0]
        self.variable_rows = [(index[m], m.index(1)) for m in monos if sum(m) == 1]
        self.levels = []
        for lv in range(1, max(depth.values()) + 1):
            rows = [index[m] for m in monos if depth[m] == lv]
            if rows != list(range(rows[0], rows[-1] + 1)):  # sorted by depth, so contiguous
                raise RuntimeError("monomial levels are not contiguous")
            left = np.array([index[split[monos[r]][0]] for r in rows])
            right = np.array([index[split[monos[r]][1]] for r in rows])
            self.levels.append((slice(rows[0], rows[-1] + 1), left, right))

    def coefficients(self, *params):
        """The coefficient matrix (nout, nmono); with array parameters of length n, (n, nout, nmono)."""
        vals = self.coefficient_values(*params)
        shape = np.broadcast_shapes(*[np.shape(p) for p in params])
        C = np.zeros(shape + (self.nout, self.nmono))
        for (i, j), v in zip(self.entry_positions, vals):
            C[..., i, j] += v
        return C

    def buffer(self, batch_shape):
        """Monomial buffer (nmono,) + batch_shape with the constant rows set."""
        B = np.empty((self.nmono,) + tuple(batch_shape))
        for r in self.constant_rows:
            B[r] = 1.0
        return B

    def linear_rows(self):
        """For each variable, its row in the monomial buffer."""
        rows = [None] * len(self.variables)
        for r, j in self.variable_rows:
            rows[j] = r
        return rows

    def contiguous_rows(self, count):
        """The first row of the ``count`` variables' rows, which must be consecutive."""
        rows = self.linear_rows()[:count]
        if rows != list(range(rows[0], rows[0] + count)):
            raise RuntimeError("variable rows of the monomial buffer must be contiguous")
        return rows[0]

    def evaluate(self, X, C):
        X = np.asarray(X, dtype=float)
        B = self.buffer(X.shape[1:])
        for r, j in self.variable_rows:
            B[r] = X[j]
        for sl, left, right in self.levels:
            np.multiply(B[left], B[right], out=B[sl])
        return np.tensordot(C, B, axes=1)


def bind_levels(levels, B):
    """Per-level (target view, left rows, right rows, left buffer, right buffer) for the buffer B,
    so that a step fills the monomials with ``B.take(left, 0, out=lb) * B.take(right, 0, out=rb)``
    and no slicing or allocation happens inside the loop."""
    out = []
    for sl, left, right in levels:
        shape = (len(left),) + B.shape[1:]
        out.append((B[sl], left, right, np.empty(shape), np.empty(shape)))
    return out
