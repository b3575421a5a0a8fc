r"""Ball bounds of the five-overlap PGD map's tests (contraction balls, the transverse block, the oracle tube),
shared by the searches and the checker (`docs/MATH.md` §13; `docs/certificates.md`, "The checker, module by module").
"""
from __future__ import annotations

from functools import reduce

from flint import arb, arb_mat

from .decide import below, positive
from .premises import kernels


def upper(x: arb) -> arb:
    """A ball every point of which is >= every point of ``x`` (x's upper end)."""
    return x.upper()


def max_bound(balls) -> arb:
    """A ball whose points include max of the upper ends (the union: its upper end is the largest)."""
    return reduce(lambda a, b: a.union(b), balls)


def square(x: arb) -> arb:
    """x^2 as a nonnegative ball (arb's product of a ball around 0 with itself dips below 0)."""
    lo, hi = arb(x.abs_lower()), arb(x.abs_upper())
    return (lo * lo).union(hi * hi)


def block_norm(M, I, J) -> arb:
    """An upper bound of the spectral norm of the block M[I, J] (sizes 1 or 2): ||M_c||_2 + ||M - M_c||_F, M_c the
    midpoints (exact). For a 2 x 2 M_c, sqrt((t + sqrt(t^2 - 4 det^2)) / 2) with t = |M_c|_F^2: a rotation-scaling
    block keeps its modulus, and the discriminant is not widened by the entries' radii."""
    ent = [[M[i, j] for j in J] for i in I]
    mid = [[arb(x.mid()) for x in row] for row in ent]
    rad = upper(sum((square(arb(x.rad())) for row in ent for x in row), arb(0))).sqrt()
    t = upper(sum((x * x for row in mid for x in row), arb(0)))
    if len(I) == 1 or len(J) == 1:
        core = t.sqrt()
    else:
        (a, b), (c, e) = mid
        disc = upper(t * t - 4 * square(a * e - b * c))
        core = ((t + abs(disc).sqrt()) / 2).sqrt()
    return upper(core + rad)


def group_norm(y, groups) -> arb:
    """An upper bound of max over groups I of |y_I|_2 for an arb column ``y``."""
    return max_bound([upper(sum((square(y[i, 0]) for i in g), arb(0))).sqrt() for g in groups])


def operator_bound(M, groups_out, groups_in) -> arb:
    """An upper bound of the operator norm of M from the group norm of ``groups_in`` to that of ``groups_out``."""
    return max_bound([upper(sum((block_norm(M, I, J) for J in groups_in), arb(0))) for I in groups_out])


def finite(M, rows, cols) -> bool:
    return all(M[i, j].is_finite() for i in range(rows) for j in range(cols))


def pgd_jacobian(X, par, A):
    """DPhi = dF/do + dF/dR . Hess R over the overlap balls X (a 5 x 5 arb matrix)."""
    K = kernels("pgd-map")
    gh = K.grad_hess(*X, **par)
    P, H = gh[:5], arb_mat(5, 5, gh[5:])
    m = K.pgd_map(*X, *P, A)
    Do = arb_mat([[m[5 + 10 * i + j] for j in range(5)] for i in range(5)])
    Dp = arb_mat([[m[10 + 10 * i + j] for j in range(5)] for i in range(5)])
    return Do + Dp * H


def transverse_block(box, par, A) -> arb_mat:
    """T over the box (kappa, nu) x ``par``'s lam of M: the (theta, eta, rho) block of DG at (kappa, nu, 0, 0, 0)
    (premise ``pgd-map``: on M, DG = diag(D Phi_alpha, T); `docs/MATH.md` §13, "The transverse linearisation")."""
    X = [arb(box[0][0]).union(arb(box[0][1])), arb(box[1][0]).union(arb(box[1][1])), arb(0), arb(0), arb(0)]
    D = pgd_jacobian(X, par, A)
    return arb_mat([[D[i, j] for j in range(2, 5)] for i in range(2, 5)])


def transverse_tests(T, S=None, groups=None):
    """(q, p): q >= ||S^-1 T S|| in the groups' norm (None without S); p: det(I - T) or det(I - T^2), the ball lying lower;
    p < 0: an odd number of real eigenvalues above 1 of T or T^2 (complex pairs add |1 - z|^2 > 0): one of |.| > 1 of T."""
    q = None
    if S is not None:
        Sm = arb_mat([[arb(x) for x in row] for row in S])
        M = Sm.solve(T * Sm)
        q = operator_bound(M, groups, groups) if finite(M, 3, 3) else arb("inf")
    I = arb_mat([[int(i == j) for j in range(3)] for i in range(3)])
    return q, min((I - T).det(), (I - T * T).det(), key=arb.upper)


def ball_bounds(c, sigma, T, groups, s, par, alpha):
    """(q, r0), balls, for the ball of radius ``s`` around the exact float point ``c`` in y = T^{-1}(x - c) (``T``:
    5 x 5 floats, ``groups``: tuples of coordinates), G = sigma o Phi (``sigma``: five signs), ``par``: the balls
    {lam, gamma, eps, d, L} (keywords), ``alpha``: the step. q is not finite where a Jacobian entry is not."""
    K = kernels("pgd-map")
    A, Tm = arb(alpha), arb_mat([[arb(x) for x in row] for row in T])
    Tinv = Tm.inv()
    cb = [arb(x) for x in c]
    m = K.pgd_map(*cb, *K.grad_hess(*cb, **par)[:5], A)
    r0 = group_norm(Tinv * arb_mat([[sigma[i] * m[i] - cb[i]] for i in range(5)]), groups) / arb(s)
    X = Tm * arb_mat([[arb(0, s)] for _ in range(5)])
    D = pgd_jacobian([cb[i] + X[i, 0] for i in range(5)], par, A)
    M = Tinv * arb_mat([[sigma[i] * D[i, j] for j in range(5)] for i in range(5)]) * Tm
    return (operator_bound(M, groups, groups) if finite(M, 5, 5) else arb("inf")), upper(r0)


def norm_below(M, q) -> bool:
    """||M||_2 < q for every matrix of the 3 x 3 interval matrix M: q^2 I - M^T M positive definite (leading minors)."""
    S = arb_mat([[int(i == j) * q * q for j in range(3)] for i in range(3)]) - M.transpose() * M
    return positive(S[0, 0]) and positive(S[0, 0] * S[1, 1] - S[0, 1] * S[1, 0]) and positive(S.det())


def oracle_box_bounds(box, Tm, r, par, A, q):
    """(contracts, C, progress) on the box (kappa, nu) x {|T^{-1} y|_2 <= r}, y = (theta, eta, rho) (`docs/MATH.md` §13,
    "A tube around M"): ||T^{-1} D_y Y T||_2 < q, C >= the 2-norms of the rows D_y K T and D_y N T (not finite where an
    entry is not), and on M g_kappa, g_nu < 0 with alpha |g_x| (2 x^2 - 1) < 2 x for x = kappa, nu (progress)."""
    Y = Tm * arb_mat([[arb(0, r)] for _ in range(3)])  # holds every y with |T^{-1} y|_2 <= r
    kap, nu = (arb(lo).union(arb(hi)) for lo, hi in box)
    D = pgd_jacobian([kap, nu, Y[0, 0], Y[1, 0], Y[2, 0]], par, A)
    M = Tm.inv() * arb_mat([[D[i, j] for j in range(2, 5)] for i in range(2, 5)]) * Tm
    R = arb_mat([[D[i, j] for j in range(2, 5)] for i in (0, 1)]) * Tm
    if not (finite(M, 3, 3) and finite(R, 2, 3)):
        return False, arb("inf"), False
    g = kernels("pgd-map").grad_hess(kap, nu, arb(0), arb(0), arb(0), **par)
    ok = all(below(gx, 0) and below(A * abs(gx) * (2 * x * x - 1), 2 * x) for x, gx in ((kap, g[0]), (nu, g[1])))
    C = max_bound([upper(sum((square(R[i, j]) for j in range(3)), arb(0))).sqrt() for i in (0, 1)])
    return norm_below(M, q), upper(C), ok
