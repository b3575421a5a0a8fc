r"""R1's tests (`docs/certificates.md`, "Theorem 5's rate field", the tests and the area fraction; `docs/MATH.md`, "R1"):
|Pg(x)|^2 >= mu (R(x) - R*) on S_delta = {x in Q : R(x) <= R(0, 0) - delta}, for every lam of each piece; leaves with
kappa <= 0 tested at their mirror (-kappa, -nu), enclosures natural intersected with mean-value (:func:`bound`).
"""
from __future__ import annotations

import bisect

from flint import arb

from .balls import ball, outward
from .coverage import check_coverage
from .decide import at_most, negative, positive
from .fields import Rejected, interval, keys
from .parallel import map_leaves
from .premises import kernels

TESTS = ("above", "ratio", "corner")
NAMES = ("kappa", "nu", "lam")


def mirrored(box):
    """The (kappa, nu) box moved to kappa >= 0: itself, or its mirror (-kappa, -nu); None if it crosses kappa = 0."""
    (k0, k1), (n0, n1) = box[0], box[1]
    if k0 >= 0:
        return (k0, k1), (n0, n1)
    if k1 <= 0:
        return (-k1, -k0), (-n1, -n0)
    return None


def _mean_value(fn, box, args):
    """[f] on the box: natural enclosure intersected with f(m) + grad f(box).(box - m); fn gives [f, f_k, f_n, f_lam].
    Also returns the natural enclosures of the three partials."""
    B = [ball(*iv) for iv in box]
    M = [arb(b.mid()) for b in B]
    nat, mid = fn(*B, **args), fn(*M, **args)
    mv = mid[0] + sum(nat[i + 1] * (B[i] - M[i]) for i in range(3))
    return (nat[0].intersection(mv) if nat[0].is_finite() else mv), nat[1:]


def bound(fn, box, args, side):
    """A ball enclosing f on a face of the box on which f attains its least value over the box (side = +1) or its
    greatest (side = -1): positive(bound(.., 1)) proves f > 0 on the box, at_most(bound(.., -1), 0) proves f <= 0.
    Where a partial of f has a certified sign on the box, f is least (greatest) at the corresponding end of that
    coordinate (the mean-value theorem along it, the box being convex). Enclosures as in :func:`_mean_value`."""
    f, grad = _mean_value(fn, box, args)
    face = list(box)
    for i, g in enumerate(grad):
        if positive(g) or negative(g):
            up = negative(g) if side > 0 else positive(g)
            face[i] = (box[i][1], box[i][1]) if up else (box[i][0], box[i][0])
    return f if face == list(box) else _mean_value(fn, face, args)[0]


def leaf_enclosures(box, par, mu=None):
    """Over a box with kappa >= 0: (G_low, G_high, F_low), balls holding a least value of G = R - R(0, 0), a greatest
    value of G, and a least value of F = |Pg|^2 - mu (R - R*) on the box (:func:`bound`; F_low is None without mu)."""
    K = kernels("lojasiewicz")
    F = None if mu is None else bound(K.ratio, box, dict(par, mu=arb(mu)), 1)
    return bound(K.saddle, box, par, 1), bound(K.saddle, box, par, -1), F


def corner_matrix(box, par, mu):
    """(q11, q12, q22): the interval matrix H1^2 - mu H2 / 2 over the angle box of the corner box (kappa >= 0)."""
    (k0, _), (n0, _) = box[0], box[1]
    P, S = (outward(arb(x).acos())[1] for x in (k0, n0))
    a, c, e = kernels("lojasiewicz").corner_hessian(ball(-P, P), ball(-S, S), ball(*box[2]), **par)
    m = arb(mu)
    return a * a + c * c - m * a / 2, c * (a + e) - m * c / 2, c * c + e * e - m * e / 2


def _corner(box, par, mu, name):
    (k0, k1), (n0, n1) = box[0], box[1]
    if not (k1 == 1.0 and n1 == 1.0 and k0 > 0 and n0 > 0):
        raise Rejected(f"{name}: a corner leaf must be [k0, 1] x [n0, 1] (or its mirror) with k0, n0 > 0")
    q11, q12, q22 = corner_matrix(box, par, mu)
    lo11, lo22 = arb(q11.lower()), arb(q22.lower())
    if not (positive(lo11) and positive(lo22) and at_most(q12 * q12, lo11 * lo22)):
        raise Rejected(f"{name}: corner test fails (H1^2 - mu H2/2 is not certified positive semidefinite)")


def _pieces(pieces, a, b):
    """The pieces inside [a, b] (they must tile it exactly), checked."""
    prev = None
    for i, p in enumerate(pieces):
        lo, hi = p["lam"]
        if not (0 < lo < hi):
            raise Rejected(f"piece {i}: lam = {p['lam']!r} is not an interval in lam > 0")
        for f in ("mu", "delta"):
            if not (isinstance(p[f], float) and 0 < p[f] < float("inf")):
                raise Rejected(f"piece {i}: {f} = {p[f]!r} must be a finite float > 0")
        if prev is not None and lo < prev:
            raise Rejected(f"piece {i}: the pieces are not increasing and disjoint")
        prev = hi
    inside = [p for p in pieces if a <= p["lam"][0] and p["lam"][1] <= b]
    if not inside or inside[0]["lam"][0] != a or inside[-1]["lam"][1] != b or any(
            p["lam"][1] != q["lam"][0] for p, q in zip(inside, inside[1:])):
        raise Rejected(f"rate lam = [{a!r}, {b!r}] is not exactly the union of consecutive pieces")
    return inside


def check_rate(rate, S, pieces) -> list:
    """Every leaf of ``rate`` (module docstring); for each piece inside rate's lam, {"area_fraction": a lower bound of
    the area fraction of Q that S_delta covers at every lam of the piece}. Raises Rejected naming the leaf and test.
    The balls are evaluated at the caller's arb precision (``flint.ctx.prec``: the certificate's ``prec``)."""
    keys(rate, "rate", ("lam", "tree", "leaves"))
    a, b = interval(rate["lam"], "rate lam")
    inside = _pieces(pieces, a, b)
    boxes = check_coverage(((-1.0, 1.0), (-1.0, 1.0), (a, b)), rate["tree"], rate["leaves"], NAMES)
    par = S.P.kw("gamma", "d")
    starts = [p["lam"][0] for p in inside]
    leaves = rate["leaves"]

    def leaf(k):  # (its piece, lam range) if leaf k is certified inside S_delta, else None; Rejected if its test fails
        box, test = boxes[k], keys(leaves[k], f"rate leaf {k}", ("box", "test"))["test"]
        name = f"rate leaf {k} {list(box)} ({test!r})"
        j = bisect.bisect_right(starts, box[2][0]) - 1
        if j < 0 or box[2][1] > inside[j]["lam"][1]:
            raise Rejected(f"{name}: its lam range is not inside one piece")
        mu, delta, half = inside[j]["mu"], inside[j]["delta"], mirrored(box)
        if half is None:
            raise Rejected(f"{name}: the box crosses kappa = 0")
        if test not in TESTS:
            raise Rejected(f"{name}: unknown test")
        mbox = (*half, box[2])
        G_low, G_high, F = leaf_enclosures(mbox, par, mu if test == "ratio" else None)
        if test == "above":
            if not positive(G_low + arb(delta)):
                raise Rejected(f"{name}: above test fails (G + delta > 0 is not certified)")
            return None
        if test == "ratio" and not positive(F):
            raise Rejected(f"{name}: ratio test fails (|Pg|^2 - mu (R - R*) > 0 is not certified)")
        if test == "corner":
            _corner(mbox, par, mu, name)
        return (j, box[2]) if at_most(G_high + arb(delta), 0) else None

    cells = [dict() for _ in inside]  # per piece: {(l0, l1): the areas of its leaves inside S_delta}
    for k, got in enumerate(map_leaves(leaf, len(leaves))):
        if got is not None:
            (k0, k1), (n0, n1) = boxes[k][:2]
            cells[got[0]].setdefault(got[1], []).append((arb(k1) - k0) * (arb(n1) - n0))
    out = []
    for j, p in enumerate(inside):
        ends = sorted({p["lam"][0], p["lam"][1], *(x for iv in cells[j] for x in iv)})
        least = None
        for lo, hi in zip(ends, ends[1:]):
            s = sum((v for iv, vs in cells[j].items() if iv[0] <= lo and hi <= iv[1] for v in vs), arb(0))
            least = s if least is None or s.lower() < least.lower() else least
        frac = outward(least / 4)[0]  # least is set: ends holds the piece's two distinct ends (_pieces: lo < hi)
        if not frac > 0:  # S_delta empty, or no leaf shown inside it
            raise Rejected(f"rate piece lam = {list(p['lam'])}: no leaf is certified inside S_delta (delta = "
                           f"{p['delta']!r}), so its area fraction is not shown > 0: the rate's statement is vacuous")
        out.append({"area_fraction": frac})
    return out
