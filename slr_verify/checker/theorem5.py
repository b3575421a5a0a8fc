r"""Theorem 5's explicit step: the ``theorem-5`` kind's test (`docs/certificates.md`, "theorem-5" and "The checker,
module by module"; `docs/MATH.md` §20).
"""
from __future__ import annotations

import math

from flint import arb

from .balls import ball, outward
from .decide import at_most, below, negative
from .fields import Rejected, interval, keys, number
from .parallel import map_leaves
from .premises import kernels

#: the fields of a lam piece (mu and delta: both numbers, or both null when the piece has no rate)
PIECE_FIELDS = ("lam", "alpha_8", "alpha_12", "alpha_5", "mu", "delta")


def read_pieces(doc, lam, A) -> list:
    """The certificate's lam pieces, read and checked: consecutive, tiling ``lam`` exactly; 0 < alpha_5 <= alpha_8,
    alpha_5 <= alpha_12 <= A; mu and delta both > 0 or both null."""
    raw = doc.get("pieces")
    if not (isinstance(raw, list) and raw):
        raise Rejected("pieces must be a non-empty list of lam pieces")
    out, at = [], lam[0]
    for i, p in enumerate(raw):
        p = keys(p, f"piece {i}", PIECE_FIELDS)
        lo, hi = interval(p["lam"], f"piece {i} lam")
        if lo != at:
            raise Rejected(f"piece {i} starts at lam = {lo!r}, not at {at!r}: the pieces must tile {list(lam)} in order")
        at = hi
        a8, a12, a5 = (number(p[k], f"piece {i} {k}", positive=True) for k in ("alpha_8", "alpha_12", "alpha_5"))
        if not (a5 <= a8 and a5 <= a12 <= A):
            raise Rejected(f"piece {i}: alpha_5 = {a5!r} must be <= alpha_8 = {a8!r} and <= alpha_12 = {a12!r} <= A = {A!r}")
        if (p["mu"] is None) != (p["delta"] is None):
            raise Rejected(f"piece {i}: mu and delta are both numbers or both null")
        mu, delta = ((None, None) if p["mu"] is None else
                     (number(p["mu"], f"piece {i} mu", True), number(p["delta"], f"piece {i} delta", True)))
        out.append({"lam": (lo, hi), "alpha_8": a8, "alpha_12": a12, "alpha_5": a5, "mu": mu, "delta": delta})
    if at != lam[1]:
        raise Rejected(f"the pieces end at lam = {at!r}, not at the domain's {lam[1]!r}")
    return out


def norm_upper(entries) -> arb:
    """An upper bound of ||A||_2 over the balls ``entries`` of A (row-major): ``norm2`` at the exact upper bounds of
    |a_ij| (no ball around 0 under a root); ||A||_2 <= || |A| ||_2, which increases with non-negative entries."""
    return kernels("descent").norm2(*(arb(abs(e).upper()) for e in entries))[0]


def _piece_of(pieces, lo, hi) -> int:
    """The index of the piece whose lam interval holds [lo, hi]; Rejected if none does."""
    for i, p in enumerate(pieces):
        if p["lam"][0] <= lo and hi <= p["lam"][1]:
            return i
    raise Rejected(f"leaf lam [{lo!r}, {hi!r}] lies in no single piece")


def _upper(x) -> float:
    """A float upper bound of the ball x (inf if x is not finite)."""
    return outward(x)[1] if x.is_finite() else math.inf


def check_theorem5(doc, kind, S, domain, boxes):
    K = kernels("descent")
    pieces = read_pieces(doc, domain[3], domain[2][1])
    par = S.P.kw("gamma", "d", "L")
    got = []  # R1 first (the cheaper tree): a piece stating a rate the rate field does not decide is rejected early
    if doc.get("rate") is not None:
        from .rate import check_rate

        with_rate = [p for p in pieces if p["mu"] is not None]
        if len(got := check_rate(doc["rate"], S, with_rate)) != len(with_rate):  # it decides those in its interval
            raise Rejected(f"{len(with_rate)} pieces state a rate, the rate field covers {len(got)} of them")
    elif any(p["mu"] is not None for p in pieces):
        raise Rejected("a piece states a rate (mu, delta) but the certificate has no rate field")
    leaves, pieces_of = doc["leaves"], [_piece_of(pieces, *box[3]) for box in boxes]

    def leaf(j):  # (its piece, float upper bounds of |g_kappa|, |g_nu|, ||hess R||, ||D K|| or None) on leaf j
        keys(leaves[j], "bounds leaf", ("box", "test"))
        (k, n, a, lam), i = boxes[j], pieces_of[j]
        kb, nb, lb, ab = ball(*k), ball(*n), ball(*lam), ball(*a)
        D = norm_upper(K.dk(kb, nb, lb, alpha=ab, **par)) if a[0] < pieces[i]["alpha_12"] else None
        if D is not None and not below(ab * D, 1):
            raise Rejected(f"bounds leaf {j} {leaves[j]['box']}: alpha ||D K_alpha|| < 1 is not shown (alpha_12 = "
                           f"{pieces[i]['alpha_12']!r})")
        gk, gn = K.gradient(kb, nb, lb, **par)
        H = norm_upper(K.hessian(kb, nb, lb, **par))
        return i, _upper(abs(gk)), _upper(abs(gn)), _upper(H), None if D is None else _upper(D)

    acc = [[None] * 4 for _ in pieces]
    for i, *x in map_leaves(leaf, len(boxes)):
        acc[i] = [v if u is None else u if v is None else max(u, v) for u, v in zip(acc[i], x)]
    rows = []
    for i, (p, (gk, gn, h, m)) in enumerate(zip(pieces, acc)):
        if gk is None or not all(map(math.isfinite, (gk, gn, h))):
            raise Rejected(f"piece {i}: its leaves do not bound G and H")
        Gk, Gn, H = arb(gk), arb(gn), arb(h)
        a8 = arb(p["alpha_8"])
        if not all(at_most(arb(1) / 2, K.bracket(a8, G, H)[0]) for G in (Gk, Gn)):
            raise Rejected(f"piece {i}: B(alpha_8 = {p['alpha_8']!r}, G, H) >= 1/2 is not shown (G_kappa <= {Gk}, "
                           f"G_nu <= {Gn}, H <= {H})")
        mu_plus, det = K.saddle(ball(*p["lam"]), **par)
        if not (negative(det) and below(arb(p["alpha_5"]) * mu_plus, 1)):
            raise Rejected(f"piece {i}: det hess R(0, 0) < 0 and alpha_5 mu_+ < 1 are not shown (mu_+ in {mu_plus})")
        rows.append({**p, "G_kappa": gk, "G_nu": gn, "H": h, "area_fraction": None, "M": m, "mu_plus": outward(mu_plus)})
    for row, res in zip((r for r in rows if r["mu"] is not None), got):
        row["area_fraction"] = res["area_fraction"]
    a5 = min(r["alpha_5"] for r in rows)
    return ({"pieces": rows, "alpha_5_min": a5},
            f" (alpha_5 >= {a5!r} on every piece; {len(rows)} pieces, {len(boxes)} leaves)")
