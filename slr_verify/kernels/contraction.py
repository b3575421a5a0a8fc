r"""Ball evaluations of the five-overlap PGD map's contraction tests (`docs/MATH.md` §13, "Where PGD goes").

One body for the searches (:mod:`slr_verify.certify.capture`, :mod:`slr_verify.certify.valley`) and the
certificates' checker (:mod:`slr_verify.certify.replay_dynamics`): each function evaluates, on arb balls and from
the generated kernels (:func:`.landscape.capture_kernels`), the numbers a test compares, for a centre, a basis and
a radius the caller chose. Nothing here chooses; nothing here decides.

* :func:`ball_bounds`: for the ball B = {x : ||T^{-1}(x - c)|| <= s} (the norm max over groups I of |y_I|_2) and
  G = sigma o Phi, r0 >= ||T^{-1}(G(c) - c)|| / s and q >= sup over B of ||T^{-1} DG T|| (Banach: r0 + q < 1 proves
  a contraction of B into itself).
* :func:`tube_piece_bounds`: on the box [a - m, min(b + m, 1)] x {||z|| <= delta} of the valley nu = 1, the
  transverse contraction q, the kappa coupling C, the sign condition of h on the edge, the largest kappa step.
* :func:`transition_bound`: an upper bound of ||T1^{-1} T0|| between two pieces' norms.

Upper bounds come out as floats (:func:`upper`), widened by :data:`MARGIN` so that the few float sums, products and
comparisons made with them afterwards stay upper bounds.
"""
from __future__ import annotations

import math

from flint import arb, arb_mat

from .landscape import capture_kernels

__all__ = ["MARGIN", "upper", "square", "block_norm_upper", "group_norm_upper", "ball_bounds", "tube_piece_bounds",
           "transition_bound"]

#: relative widening of a float upper bound: it covers the conversion from arb (half an ulp) and the few nonnegative
#: float sums, products, divisions and comparisons made with it afterwards (each within 1.1e-16 relative)
MARGIN = 1e-12


def upper(x: arb) -> float:
    """A float >= every point of the ball ``x`` (its upper end, widened by :data:`MARGIN`)."""
    f = float(x.upper())
    return math.nextafter(f + MARGIN * abs(f), math.inf)


def square(x: arb) -> arb:
    """x^2 as a nonnegative ball (arb's product of a ball around 0 with itself dips below 0)."""
    lo, hi = arb(x.abs_lower()), arb(x.abs_upper())
    return (lo * lo).union(hi * hi)


def block_norm_upper(M, I, J) -> float:
    """An upper bound of the spectral norm of the block M[I, J] (sizes 1 or 2) of an arb matrix:
    ||M_c||_2 + ||M - M_c||_F with M_c the matrix of midpoints (exact floats). For a 2 x 2 M_c the norm is the root of
    the largest eigenvalue of M_c^T M_c, (t + sqrt(t^2 - 4 det^2)) / 2 with t = |M_c|_F^2, on exact inputs: a
    rotation-scaling block keeps its modulus (not |a| + |b|), and the discriminant, 0 for a scaled rotation, is not
    widened by the entries' radii (their square root would be)."""
    ent = [[M[i, j] for j in J] for i in I]
    mid = [[arb(x.mid()) for x in row] for row in ent]
    rad = arb(sum((arb(x.rad()) ** 2 for row in ent for x in row), arb(0)).upper()).sqrt()
    t = sum((x * x for row in mid for x in row), arb(0))
    if len(I) == 1 or len(J) == 1:
        core = arb(t.upper()).sqrt()
    else:
        (a, b), (c, e) = mid
        det = a * e - b * c
        disc = t * t - 4 * det * det
        core = ((arb(t.upper()) + arb(max(upper(disc), 0.0)).sqrt()) / 2).sqrt()
    return upper(core + rad)


def group_norm_upper(y, groups) -> float:
    """An upper bound of max over groups I of |y_I|_2 for an arb column ``y``."""
    return max(upper(arb(sum((square(y[i, 0]) for i in g), arb(0)).upper()).sqrt()) for g in groups)


def _operator_upper(M, groups_out, groups_in) -> float:
    """Upper bound of the operator norm of M from the group norm of ``groups_in`` to that of ``groups_out``."""
    return max(sum(block_norm_upper(M, I, J) for J in groups_in) for I in groups_out)


def _pgd_jacobian(X, par, A):
    """DPhi = dF/do + dF/dR . Hess R over the overlap balls X (5 x 5 arb matrix), and the map's value F."""
    K = capture_kernels()
    gh = K.grad_hess(*X, *par)
    P, H = gh[:5], arb_mat(5, 5, gh[5:])
    m = K.map(*X, *P, A)
    Do = arb_mat([[m[5 + 10 * i + j] for j in range(5)] for i in range(5)])
    Dp = arb_mat([[m[10 + 10 * i + j] for j in range(5)] for i in range(5)])
    return Do + Dp * H, m[:5]


def ball_bounds(c, sigma, T, groups, s, par, alpha):
    """(q, r0) for the ball of radius ``s`` around the exact float point ``c`` in the coordinates y = T^{-1}(x - c)
    (``T``: 5 x 5 floats, ``groups``: tuples of coordinates), G = sigma o Phi (``sigma``: five signs), ``par``: the
    balls (lam, gamma, eps, d, L), ``alpha``: the step (an exact float). q is inf where a Jacobian entry is not
    finite."""
    K = capture_kernels()
    A = arb(alpha)
    Tm = arb_mat([[float(x) for x in row] for row in T])
    Tinv = Tm.inv()
    sg = [int(x) for x in sigma]
    cb = [arb(float(x)) for x in c]
    gh = K.grad_hess(*cb, *par)
    m = K.map(*cb, *gh[:5], A)
    r0 = group_norm_upper(Tinv * arb_mat([[sg[i] * m[i] - cb[i]] for i in range(5)]), groups) / s
    X = Tm * arb_mat([[arb(0, s)] for _ in range(5)])
    D, _ = _pgd_jacobian([cb[i] + X[i, 0] for i in range(5)], par, A)
    M = Tinv * arb_mat([[sg[i] * D[i, j] for j in range(5)] for i in range(5)]) * Tm
    if not all(M[i, j].is_finite() for i in range(5) for j in range(5)):
        return math.inf, r0
    return _operator_upper(M, groups, groups), r0


def tube_piece_bounds(a, b, m, T, groups, delta, par, alpha):
    """(q, C, edge_ok, step) on the box [a - m, min(b + m, 1)] x {||T^{-1} z|| <= delta}, z = (nu - 1, theta, eta,
    rho) (`docs/MATH.md` §13): q >= ||T^{-1} D_z Z T||, C >= the dual norm of D_z K T, ``edge_ok``: h > 0 on the edge
    over the kappa range (alpha |g_kappa| (2 kappa^2 - 1) < 2 kappa; g_kappa < 0 is the SymPy factorisation), and
    ``step`` >= the largest kappa step alpha |g_kappa| + C delta. q, C, step are inf where an entry is not finite."""
    K = capture_kernels()
    A = arb(alpha)
    Tm = arb_mat([[float(x) for x in row] for row in T])
    Zb = Tm * arb_mat([[arb(0, delta)] for _ in range(4)])
    kap = arb(a - m).union(arb(min(b + m, 1.0)))
    D, _ = _pgd_jacobian([kap, 1 + Zb[0, 0], Zb[1, 0], Zb[2, 0], Zb[3, 0]], par, A)
    M = Tm.inv() * arb_mat([[D[i, j] for j in range(1, 5)] for i in range(1, 5)]) * Tm
    R = arb_mat([[D[0, j] for j in range(1, 5)]]) * Tm
    if not all(M[i, j].is_finite() for i in range(4) for j in range(4)) or not all(R[0, j].is_finite() for j in range(4)):
        return math.inf, math.inf, False, math.inf
    q = _operator_upper(M, groups, groups)
    C = _operator_upper(R, ((0,),), groups)
    gk = K.grad_hess(kap, arb(1), arb(0), arb(0), arb(0), *par)[0]
    sgn = 2 * kap * kap - 1
    edge_ok = bool(sgn.upper() <= 0) or bool(A * abs(gk) * sgn < 2 * arb(a - m))
    return q, C, edge_ok, upper(A * abs(gk)) + C * delta


def transition_bound(T0, groups0, T1, groups1) -> float:
    """max(1, an upper bound of the operator norm of T1^{-1} T0 from the groups0 norm to the groups1 norm): the
    factor by which a vector's norm can grow when the norm changes from one piece's basis to the next."""
    Mt = arb_mat([[float(x) for x in row] for row in T1]).solve(arb_mat([[float(x) for x in row] for row in T0]))
    return max(1.0, _operator_upper(Mt, groups1, groups0))
