r"""The two mechanisms that bound the oracle's window (`docs/MATH.md` §13), derived.

**The oracle's Hessian** (:func:`oracle_hessian`). At (k, v) = (k*, v*), in the chart k = P(k* + a2 v*
+ a3 e3 + a4 e4), v = P(v* + b1 k* + b3 e3 + b4 e4), the chain rule through the overlaps gives the
Riemannian Hessian exactly. It is block diagonal (:func:`oracle_structure`, proved by SymPy): -R_kappa
twice (a3, a4), -R_nu twice (b3, b4), the orthogonal directions of R^d repeat these two, and the
(a2, b1) block B (k towards v*, v towards k*; eta, theta and rho = sin(a + b) move to first order).
The eigenvalues -R_kappa, -R_nu are positive at the oracle (Proposition 10), so the oracle stops
being a local minimum exactly where an eigenvalue of B crosses 0: where det B changes sign
(:func:`oracle_det`, a closed-form function of (lam, gamma, d, L)) while trace B > 0.

**The family k = +-v*** (:func:`~.family.family_gap`). At kappa = nu = rho = 0, eta = 1 the point is
stationary iff theta = theta*(lam) (closed form, :func:`~.family.off_M_family`); the risk
gap R(0, 0, theta*, 1, 0) - R(1, 1, 0, 0, 0) is a closed-form function of (lam, gamma, d, L) (eps
cancels) whose sign change is where this minimum's risk crosses the oracle's.
"""
from __future__ import annotations

from functools import lru_cache
from types import SimpleNamespace

import sympy as sp

from .risk import S, oracle_point, theorem1_gradient, theorem1_hessian
from .stored import stored

#: the parameters of the mechanism functions (eps cancels in both)
LAM_PARAMS = (S.lam, S.gamma, S.d, S.L)


def _at_oracle(e):
    return e.subs(oracle_point())


def chart_derivatives(k0, v0, Tk, Tv):
    """First and second derivatives at 0 of the overlaps (kappa, nu, theta, eta, rho) in the chart
    k = (k0 + sum_i x_i Tk_i)/sqrt(1 + |x|^2), v likewise with the y_j (k* = e1, v* = e2; k0 unit and
    Tk orthonormal and orthogonal to k0, so this is the normalisation P(k0 + Tk x): a retraction).
    Returns (do[i][p], d2o[i][p][q], the chart symbols)."""
    n, m = len(k0), len(Tk) + len(Tv)
    X = sp.symbols("x0:%d" % m, real=True)
    xs, ys = X[:len(Tk)], X[len(Tk):]
    # Derivatives at 0 up to order 2 see the function's Taylor polynomial of degree 2 only: the
    # normalisation 1/sqrt(1 + s), s = |x|^2, enters through its series to first order in s (SymPy's),
    # the overlaps are then polynomials in the chart variables (sparse Poly arithmetic), and the
    # derivatives are their coefficients of degree 1 and 2 (the same expanded expressions as
    # differentiating the normalised vectors twice, in a fraction of the time).
    s = sp.Dummy("s")
    norm = sp.series(1 / sp.sqrt(1 + s), s, 0, 2).removeO()

    def point(b0, T, zs):
        scale = sp.Poly(norm.subs(s, sum(z**2 for z in zs)), *X)
        return [sp.Poly(b0[i] + sum(z * t[i] for z, t in zip(zs, T)), *X) * scale for i in range(n)]

    k, v = point(k0, Tk, xs), point(v0, Tv, ys)
    o = [k[0], v[1], v[0], k[1], sum((a * b for a, b in zip(k, v)), sp.Poly(0, *X))]  # kappa, nu, theta, eta, rho
    mono = lambda *idx: tuple(idx.count(i) for i in range(m))
    do = [[sp.expand(oi.coeff_monomial(mono(p))) for p in range(m)] for oi in o]
    d2o = [[[sp.expand((2 if p == q else 1) * oi.coeff_monomial(mono(p, q))) for q in range(m)] for p in range(m)] for oi in o]
    return do, d2o, X


def chain_rule(do, d2o, g, h):
    """(gradient, Hessian) of the pulled-back risk at 0: sum_i g_i do_i and
    sum_ij h_ij do_i do_j + sum_i g_i d^2 o_i (g, h: the partials in the overlaps)."""
    m = len(do[0])
    grad = sp.Matrix([sum(g[i] * do[i][p] for i in range(5) if do[i][p] != 0) for p in range(m)])
    M = sp.zeros(m, m)
    for p in range(m):
        for q in range(m):
            M[p, q] = sum(h[i][j] * do[i][p] * do[j][q]
                          for i in range(5) for j in range(5) if do[i][p] != 0 and do[j][q] != 0) + sum(
                g[i] * d2o[i][p][q] for i in range(5) if d2o[i][p][q] != 0)
    return grad, M


def chart_hessian(k0, v0, Tk, Tv, point):
    """The Riemannian Hessian of R at the stationary point (k0, v0) (unit SymPy columns of R^4)
    in the chart of :func:`chart_derivatives` (a retraction, so at a stationary point the Hessian of
    the pulled-back risk is the Riemannian Hessian), with Theorem 1's partials substituted by
    ``point`` (a dict of overlap values). Returns (6 x 6 matrix, the chart symbols)."""
    do, d2o, X = chart_derivatives(k0, v0, Tk, Tv)
    do = [[sp.simplify(x) for x in row] for row in do]
    d2o = [[[sp.simplify(x) for x in r] for r in row] for row in d2o]
    g = [x.subs(point) for x in theorem1_gradient()]
    H = theorem1_hessian()
    h = [[H[5 * i + j].subs(point) for j in range(5)] for i in range(5)]
    return chain_rule(do, d2o, g, h)[1], X


#: symbols of the generic Riemannian gradient and Hessian (:func:`generic_riemannian`)
GENERIC = SimpleNamespace(
    k0=sp.Matrix(sp.symbols("k0_0:5", real=True)), v0=sp.Matrix(sp.symbols("v0_0:5", real=True)),
    Tk=[sp.Matrix(sp.symbols("tk%d_0:5" % i, real=True)) for i in range(4)],
    Tv=[sp.Matrix(sp.symbols("tv%d_0:5" % i, real=True)) for i in range(4)],
    g=sp.symbols("g0:5", real=True), h=sp.symbols("h0:25", real=True))


@stored
def generic_riemannian():
    """The Riemannian gradient (8) and Hessian (8 x 8, row-major) of R at any point, in the chart
    of :func:`chart_derivatives` realised in R^5 (k* = e1, v* = e2, the point in span(e1..e4); e5
    stands for every direction orthogonal to the span, which by symmetry all carry the same block),
    with the vectors, tangent bases and partials as symbols (:data:`GENERIC`). At a stationary
    point the Hessian is the Riemannian Hessian; the gradient is the tangent gradient in the bases."""
    G = GENERIC
    do, d2o, _ = chart_derivatives(G.k0, G.v0, G.Tk, G.Tv)
    h = [[G.h[5 * i + j] for j in range(5)] for i in range(5)]
    grad, M = chain_rule(do, d2o, G.g, h)
    return list(grad), list(M)


def basis(i):
    """The i-th unit vector of the frame (k*, v*, e3, e4) (0-based)."""
    return sp.Matrix([int(j == i) for j in range(4)])


@lru_cache(maxsize=None)
def oracle_hessian():
    """:func:`chart_hessian` at the oracle, coordinates (a2, a3, a4, b1, b3, b4): k moves along v*,
    e3, e4 and v along k*, e3, e4."""
    return chart_hessian(basis(0), basis(1), (basis(1), basis(2), basis(3)), (basis(0), basis(2), basis(3)), oracle_point())


@lru_cache(maxsize=None)
def oracle_offM_block():
    """The (a1, b1) block of :func:`oracle_hessian` (k towards v*, v towards k*: eta, theta and rho
    move to first order); the other entries decouple (:func:`oracle_structure`)."""
    M, _ = oracle_hessian()
    return M.extract([0, 3], [0, 3])


def oracle_structure() -> dict:
    """The block structure of the oracle's Hessian, each a bool: it is diag(B, -R_kappa, -R_kappa,
    -R_nu, -R_nu) up to the order of the coordinates, and R_theta = R_eta = R_rho = 0 there."""
    M, _ = oracle_hessian()
    g = [_at_oracle(x) for x in theorem1_gradient()]
    rest = [1, 2, 4, 5]
    off = [M[i, j] for i in range(6) for j in range(6) if i != j and not {i, j} <= {0, 3}]
    return {
        "off-block entries vanish": all(sp.simplify(x) == 0 for x in off),
        "a3, a4 entries = -R_kappa": all(sp.simplify(M[i, i] + g[0]) == 0 for i in (1, 2)),
        "b3, b4 entries = -R_nu": all(sp.simplify(M[i, i] + g[1]) == 0 for i in (4, 5)),
        "R_theta = R_eta = R_rho = 0 at the oracle": all(sp.simplify(x) == 0 for x in g[2:]),
        "rest is diagonal": all(sp.simplify(M[i, j]) == 0 for i in rest for j in rest if i != j),
    }


@lru_cache(maxsize=None)
def oracle_det():
    """det B at the oracle: the oracle is a local minimum while det B > 0 (and trace B > 0)."""
    B = oracle_offM_block()
    return B[0, 0] * B[1, 1] - B[0, 1] * B[1, 0]
