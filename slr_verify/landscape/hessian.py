r"""The Riemannian gradient and Hessian of R_lam on S^{d-1} x S^{d-1}, from the five overlaps
(`docs/MATH.md` §13).

R(k, v) = R~(o(k, v)) with o = (k.k*, v.v*, v.k*, k.v*, k.v). Every configuration is realised in
R^4 with k* = e1, v* = e2:

.. math::

    k = (\kappa, \eta, a, 0),\quad v = (\theta, \nu, b, c),\qquad a = \sqrt{1 - \kappa^2 - \eta^2},\;
    ab = \rho - \kappa\theta - \eta\nu,\; c = \sqrt{1 - \theta^2 - \nu^2 - b^2}.

The Riemannian gradient and Hessian come from SymPy (:func:`slr_verify.symbolic.landscape.generic_riemannian`):
in the retraction chart k = P(k + Tk x), v = P(v + Tv y) (Tk, Tv orthonormal tangent bases) the
pulled-back risk has gradient sum_i R_i do_i and Hessian sum_ij R_ij do_i do_j + sum_i R_i d^2 o_i
(do, d^2 o derived from the chart), which at a stationary point is the Riemannian Hessian. The
realisation is padded to R^5: e5 stands for each of the d - 4 directions orthogonal to R^4, which by
the symmetry all carry the same 2 x 2 block (moving k along e5, moving v along e5).

**Flat directions.** Rotations fixing k* and v* leave R invariant, so at a stationary point their
orbit directions are eigenvectors with eigenvalue 0 that are not instabilities. With k_perp, v_perp
the components orthogonal to span(k*, v*), the orbit of O(d - 2) has dimension 2d - 7 if k_perp, v_perp
are independent, d - 3 if they span a line, 0 if both vanish (:func:`orbit_dimension`).

Everything here runs in mpmath at the working precision (``mpmath.mp.dps``) with the partials
from the generated mpmath kernel, or from float64 partials when the overlaps are floats.
"""
from __future__ import annotations

from types import SimpleNamespace

import mpmath
import numpy as np

from ..kernels.landscape import fixed_point_kernels, riemannian_kernels
from ..model import validation as V
from ..model.params import D_MINIMUMS, Params, accepts_gamma2, keywords_checked, require_d

#: squared lengths below this are taken as 0 when a tuple is realised (a boundary point found by
#: a float64 root finder sits within round-off of the boundary, on either side)
SNAP = 1e-12


def _is_mp(ov):
    return any(isinstance(x, mpmath.mpf) for x in ov)


@keywords_checked
def realise(ov, snap=None):
    """k*, v*, k, v in R^4 (rows of an mpmath 4 x 4 matrix) with the five overlaps ``ov``.
    Squared lengths within ``snap`` of 0 (default :data:`SNAP` for floats, 10^-(dps-5) for
    mpmath numbers) are set to 0. Raises ``ValueError`` if the tuple is not realisable."""
    mp = mpmath.mp
    kappa, nu, theta, eta, rho = (mpmath.mpf(x) for x in ov)
    if snap is None:
        snap = mpmath.mpf(10) ** (5 - mp.dps) if _is_mp(ov) else SNAP
    a2 = 1 - kappa**2 - eta**2
    if a2 < -snap:
        raise ValueError(f"overlaps: kappa^2 + eta^2 must be <= 1, got {float(kappa**2 + eta**2)!r}")
    a = mpmath.sqrt(a2) if a2 > snap else mpmath.mpf(0)
    p = rho - kappa * theta - eta * nu  # = a b
    r2 = 1 - theta**2 - nu**2           # = b^2 + c^2
    if a > 0:
        b = p / a
    else:
        if abs(p) > mpmath.sqrt(snap):
            raise ValueError(f"overlaps: rho must equal kappa theta + eta nu when k is in span(k*, v*), got {float(p)!r}")
        b = mpmath.sqrt(max(r2, 0))
    c2 = r2 - b**2
    if c2 < -mpmath.sqrt(snap):
        raise ValueError(f"overlaps: not realisable (Gram matrix not positive semidefinite, deficit {float(c2)!r})")
    c = mpmath.sqrt(c2) if c2 > snap else mpmath.mpf(0)
    k = mpmath.matrix([kappa, eta, a, 0])
    v = mpmath.matrix([theta, nu, b, c])
    k, v = k / mpmath.norm(k), v / mpmath.norm(v)  # snapping may leave |.| = 1 - O(snap)
    return mpmath.matrix([[1, 0, 0, 0], [0, 1, 0, 0], list(k), list(v)])


@keywords_checked
def orbit_dimension(ov, d):
    """Dimension of the orbit of (k, v) under the rotations fixing k* and v*: 2d - 7, d - 3 or 0
    as k_perp, v_perp span a plane, a line or nothing. d an integer >= 4 (k*, v* and the realisation's two further
    directions)."""
    d = V.count_value(V.integer("d", d, D_MINIMUMS["landscape"][0], floats=True))
    X = realise(ov)
    a, b, c = X[2, 2], X[3, 2], X[3, 3]
    tol = mpmath.mpf(10) ** (-mpmath.mp.dps // 2)
    if abs(a * c) > tol:
        r = 2
    elif max(abs(a), abs(b), abs(c)) > tol:
        r = 1
    else:
        r = 0
    return {2: 2 * d - 7, 1: d - 3, 0: 0}[r]


@accepts_gamma2
def partials(ov, *, lam, gamma, eps=0.0, d, L):
    """(R, gradient (5), Hessian (5 x 5)) of Theorem 1 at the overlaps: mpmath numbers at the
    working precision if any input is an mpmath number, float64 otherwise. The parameters are single numbers in the
    model's ranges (:class:`~slr_verify.model.params.Params`: ``ValueError`` naming the one outside)."""
    Params(lam=lam, gamma=gamma, eps=eps, d=d, L=L)
    d, L = (V.count_value(x) if isinstance(x, int) else x for x in (d, L))  # beyond int64: a float, as np.sqrt needs
    K = fixed_point_kernels()
    if _is_mp(ov) or isinstance(lam, mpmath.mpf):
        out = K.risk_mp(*ov, lam, gamma, eps, d, L)
    else:
        out = [float(np.asarray(x)) for x in K.risk_f64(*[float(x) for x in ov], lam, gamma, eps, d, L)]
    return out[0], list(out[1:6]), [list(out[6 + 5 * i:11 + 5 * i]) for i in range(5)]


def _tangent_basis(x):
    """Orthonormal basis (list of columns) of x^perp in R^4 (x a unit mpmath column), by Gram-Schmidt."""
    cols = [x]
    for j in range(4):
        e = mpmath.matrix([int(i == j) for i in range(4)])
        for q in cols:
            e = e - (q.T * e)[0] * q
        n = mpmath.norm(e)
        if n > mpmath.mpf("0.1"):
            cols.append(e / n)
        if len(cols) == 4:
            break
    return cols[1:]


@keywords_checked
def overlaps_of(X):
    """The five overlaps of the rows (k*, v*, k, v) of an mpmath matrix."""
    ks, vs, k, v = (X[i, :] for i in range(4))
    dot = lambda x, y: sum(x[j] * y[j] for j in range(4))
    return (dot(k, ks), dot(v, vs), dot(v, ks), dot(k, vs), dot(k, v))


#: in the 8 chart coordinates: k along its three tangent directions of R^4, then e5; v likewise
CORE, BLOCK = [0, 1, 2, 4, 5, 6], [3, 7]


@keywords_checked
def riemannian_parts(X, *, lam, gamma, eps=0.0, d, L):
    """At the configuration X (rows k*, v*, k, v of an mpmath matrix): the tangent gradient (6-vector,
    the R^4 directions), the Riemannian Hessian of the R^4 part (6 x 6), the tangent bases (Tk, Tv,
    4 x 3) and the orthogonal block (2 x 2), and the risk; generated from SymPy
    (:func:`slr_verify.symbolic.landscape.generic_riemannian`: the chain rule through the overlaps in a
    retraction chart, realised in R^5 with e5 for the directions orthogonal to R^4)."""
    ov = overlaps_of(X)
    R, g, H = partials(ov if mpmath.mp.dps > 20 else [float(x) for x in ov], lam=lam, gamma=gamma, eps=eps, d=d, L=L)
    k, v = X[2, :].T, X[3, :].T
    Tk, Tv = _tangent_basis(k), _tangent_basis(v)
    pad = lambda c: [c[i] for i in range(4)] + [0]
    e5 = [0, 0, 0, 0, 1]
    args = pad(k) + pad(v) + [x for t in Tk for x in pad(t)] + e5 + [x for t in Tv for x in pad(t)] + e5
    out = riemannian_kernels().mp(*args, *g, *[x for row in H for x in row])
    grad, hess = out[:8], mpmath.matrix(8, 8)
    for i in range(8):
        for j in range(8):
            hess[i, j] = out[8 + 8 * i + j]
    hess = (hess + hess.T) / 2
    core = mpmath.matrix([[hess[i, j] for j in CORE] for i in CORE])
    block = mpmath.matrix([[hess[i, j] for j in BLOCK] for i in BLOCK])
    Tkm, Tvm = mpmath.matrix(4, 3), mpmath.matrix(4, 3)
    for j in range(3):
        for i in range(4):
            Tkm[i, j], Tvm[i, j] = Tk[j][i], Tv[j][i]
    return SimpleNamespace(grad=mpmath.matrix([grad[i] for i in CORE]), hess=core, Tk=Tkm, Tv=Tvm, risk=R,
                           block=block, block_grad=[grad[i] for i in BLOCK])


@accepts_gamma2
def riemannian_spectrum(ov, *, lam, gamma, eps=0.0, d, L):
    """Spectrum of the Riemannian Hessian of R_lam on S^{d-1} x S^{d-1} at the overlaps ``ov``
    (floats: float64 partials; mpmath numbers: the working precision).

    Returns a namespace: ``core`` (the 6 eigenvalues of the R^4 part), ``block`` (the 2 eigenvalues
    of the orthogonal block), ``multiplicity`` (d - 4, of each block eigenvalue), ``flat`` (orbit
    dimension), ``tangent_norm`` (|Riemannian gradient|), ``risk``; all
    eigenvalues as mpmath numbers."""
    require_d(Params(lam=float(lam), gamma=float(gamma), eps=float(eps), d=d, L=L).d, "landscape")
    P = riemannian_parts(realise(ov), lam=lam, gamma=gamma, eps=eps, d=d, L=L)
    return SimpleNamespace(core=sorted(mpmath.eigsy(P.hess, eigvals_only=True)),
                           block=sorted(mpmath.eigsy(P.block, eigvals_only=True)), multiplicity=int(d) - 4,
                           flat=orbit_dimension(ov, d), tangent_norm=mpmath.norm(P.grad), risk=P.risk)
