r"""Proposition 9's tests: the stationary points of the risk on M for every lam of an interval (`docs/MATH.md` §10;
`docs/certificates.md`, "The checker, module by module").
"""
from __future__ import annotations

from flint import arb, arb_mat

from .balls import ball
from .decide import inside, nonzero
from .fields import Rejected, interval, keys, matrix, number
from .parallel import map_leaves
from .premises import kernels


def _mean_value(box_k, box_n, par):
    """Enclosures of (H_0, H_1) on the box: the natural one intersected with H(m) + JH(box) (box - m)."""
    K = kernels("manifold-sign")
    mk, mn = arb(box_k.mid()), arb(box_n.mid())
    g, gm, Jb = K.sign_system(box_k, box_n, **par), K.sign_system(mk, mn, **par), K.sign_jacobian(box_k, box_n, **par)
    mv = [gm[0] + Jb[0] * (box_k - mk) + Jb[1] * (box_n - mn), gm[1] + Jb[2] * (box_k - mk) + Jb[3] * (box_n - mn)]
    return [g[i].intersection(mv[i]) if g[i].is_finite() else mv[i] for i in range(2)]


def _piece(par, lam, p, r):
    """The edges and the Krawczyk box of one lam piece; raises Rejected."""
    K = kernels("manifold-sign")
    keys(p, f"lam piece {lam}", ("lam", "Y", "edges"))
    Lb, one, zero = ball(*lam), arb(1), arb(0)
    edges = keys(p["edges"], f"lam piece {lam} edges", ("1", "-1"))
    for s in (1, -1):
        raw = edges[str(s)]
        xs = [number(x, f"edge nu = {s} of lam piece {lam}") for x in (raw if isinstance(raw, list) else [])]
        if len(xs) < 2 or xs[0] != -1.0 or xs[-1] != 1.0 or any(a >= b for a, b in zip(xs, xs[1:])):
            raise Rejected(f"lam piece {lam}: the edge nu = {s} is not tiled by increasing breakpoints from -1 to 1")
        for a, b in zip(xs, xs[1:]):
            if not nonzero(_mean_value(ball(a, b), s * one, dict(par, lam=Lb))[0]):
                raise Rejected(f"lam piece {lam}: H_0 on the edge nu = {s} does not exclude 0 on kappa in [{a}, {b}]")
    Y = arb_mat([[arb(y) for y in row] for row in matrix(p["Y"], 2, f"lam piece {lam}: Y")])
    X = ball(-r, r)
    F0, Jx = K.sign_system(zero, zero, Lb, **par), K.sign_jacobian(X, X, Lb, **par)
    Kx = -(Y * arb_mat([[F0[0]], [F0[1]]])) + (arb_mat([[1, 0], [0, 1]]) - Y * arb_mat([[Jx[0], Jx[1]], [Jx[2], Jx[3]]])) \
        * arb_mat([[X], [X]])
    if not all(inside(Kx[i, 0], -r, r) for i in range(2)):
        raise Rejected(f"lam piece {lam}: the Krawczyk image of X = [-{r}, {r}]^2 is not inside X")
    if not all(v.is_exact() and v == 0 for v in F0):
        raise Rejected(f"lam piece {lam}: H(0, 0) is not exactly 0")


def check_manifold(doc, kind, S, domain, boxes):
    """Every piece and leaf of a Proposition 9 certificate; returns (values, the conclusion's tail)."""
    par = S.P.kw("gamma", "d", "L")
    r = number(doc["r"], "r")
    if not 0 < r < 0.5:
        raise Rejected(f"r must be in (0, 0.5), got {r!r}")
    if not isinstance(doc["pieces"], list):
        raise Rejected("pieces must be a list")
    pieces = {}
    for p in doc["pieces"]:
        lam = interval(keys(p, "lam piece", ("lam", "Y", "edges"))["lam"], "piece lam")
        if lam in pieces:
            raise Rejected(f"lam piece {lam} is given twice")
        pieces[lam] = p
    used = {box[2] for box in boxes}
    if used != set(pieces):
        raise Rejected(f"the lam pieces {sorted(set(pieces) ^ used)[:3]} have no leaves or the leaves have no piece")
    for lam in sorted(used):
        _piece(par, lam, pieces[lam], r)

    def leaf(j):
        (k0, k1), (n0, n1), lam = boxes[j]
        box = keys(doc["leaves"][j], "Proposition 9 leaf", ("box", "test"))["box"]
        if doc["leaves"][j]["test"] == "in-X":
            if not (-r <= k0 and k1 <= r and -r <= n0 and n1 <= r):
                raise Rejected(f"in-X leaf {box} is not inside X = [-{r}, {r}]^2")
            return
        h = _mean_value(ball(k0, k1), ball(n0, n1), dict(par, lam=ball(*lam)))
        if not (nonzero(h[0]) or nonzero(h[1])):
            raise Rejected(f"exclude leaf {box}: neither H_0 nor H_1 excludes 0")

    map_leaves(leaf, len(boxes))
    return {"pieces": len(used), "r": r}, f" (lam pieces: {len(used)}; (0, 0) is the only zero in [-{r}, {r}]^2)"
