r"""The checker's Proposition 9 tests (`docs/MATH.md` §10; `docs/certificates.md`): the stationary points of the
risk on M, for every lam of an interval.

Part of the checker (:mod:`.replay`): it imports none of the searches. The tangent gradient on M is
F = ((1 - kappa^2) g_kappa, (1 - nu^2) g_nu), with g_kappa = P H_0, g_nu = c_n H_1, P > 0, c_n < 0,
H_0 = erf(c2 kappa) - nu, H_1 = erf(c1 kappa) (premise ``manifold-sign``). On each lam piece of the certificate:

* the edges kappa = +-1: H_1(+-1) excludes 0, so F = 0 there only where nu = +-1 (the corners);
* the edges nu = +-1: a tiling of [-1, 1] in kappa (``edges``: breakpoints) on which H_0(kappa, +-1) excludes 0
  (mean-value form), so F = 0 there only at the corners;
* the Krawczyk test on X = [-r, r]^2 with the preconditioner ``Y`` of the piece:
  K(X) = -Y H(0) + (I - Y JH(X)) X inside the interior of X, for every lam of the piece: exactly one zero of H
  in X, and H(0, 0) = 0;
* every leaf of the piece (a box of the open square's tiling): ``in-X`` (inside X) or ``exclude`` (H_0 or H_1
  excludes 0 on the box, mean-value form intersected with the natural one: F has no zero in its interior part).

Conclusion: for every lam, F vanishes on [-1, 1]^2 exactly at (0, 0) and the four corners.
"""
from __future__ import annotations

from flint import arb, arb_mat

from ..kernels.balls import widened
from ..kernels.certified import manifold_sign_system_arb
from .replay_base import Rejected, hull, interval, number

__all__ = ["MANIFOLD_KINDS", "check_manifold"]

MANIFOLD_KINDS = {"manifold-stationary-points": (("manifold-sign",), ("exclude", "in-X"))}


def _mean_value(H, JH, K, N, lam, par):
    """Enclosures of (H_0, H_1) on K x N: the natural one intersected with H(m) + JH(box) (box - m)."""
    mk, mn = arb(K.mid()), arb(N.mid())
    g, gm, Jb = H(K, N, lam, *par), H(mk, mn, lam, *par), JH(K, N, lam, *par)
    mv = [gm[0] + Jb[0] * (K - mk) + Jb[1] * (N - mn), gm[1] + Jb[2] * (K - mk) + Jb[3] * (N - mn)]
    return [g[i].intersection(mv[i]) if g[i].is_finite() else mv[i] for i in range(2)]


def _nonzero(x) -> bool:
    return not x.contains(0)


def _piece(H, JH, par, lam, p, r):
    """The edges and the Krawczyk box of one lam piece; raises Rejected."""
    Lb, one, zero = hull(*lam), arb(1), arb(0)
    if not all(_nonzero(H(s * one, zero, Lb, *par)[1]) for s in (1, -1)):
        raise Rejected(f"lam piece {lam}: H_1(+-1) does not exclude 0 (an edge kappa = +-1)")
    for s in (1, -1):
        xs = [number(x, f"edge nu = {s} of lam piece {lam}") for x in p.get("edges", {}).get(str(s), [])]
        if len(xs) < 2 or xs[0] != -1.0 or xs[-1] != 1.0 or any(a >= b for a, b in zip(xs, xs[1:])):
            raise Rejected(f"lam piece {lam}: the edge nu = {s} is not tiled by increasing breakpoints from -1 to 1")
        for a, b in zip(xs, xs[1:]):
            if not _nonzero(_mean_value(H, JH, hull(a, b), s * one, Lb, par)[0]):
                raise Rejected(f"lam piece {lam}: H_0 on the edge nu = {s} does not exclude 0 on kappa in [{a}, {b}]")
    Y = p.get("Y")
    if not (isinstance(Y, list) and len(Y) == 2 and all(isinstance(row, list) and len(row) == 2 for row in Y)):
        raise Rejected(f"lam piece {lam}: Y must be a 2 x 2 list, got {Y!r}")
    Ya = arb_mat([[arb(number(y, "Y")) for y in row] for row in Y])
    X = hull(-r, r)
    F0, Jx = H(zero, zero, Lb, *par), JH(X, X, Lb, *par)
    K = -(Ya * arb_mat([[F0[0]], [F0[1]]])) + (arb_mat([[1, 0], [0, 1]]) - Ya * arb_mat([[Jx[0], Jx[1]], [Jx[2], Jx[3]]])) \
        * arb_mat([[X], [X]])
    if not all(K[i, 0].lower() > -r and K[i, 0].upper() < r for i in range(2)):
        raise Rejected(f"lam piece {lam}: the Krawczyk image of X = [-{r}, {r}]^2 is not inside X")
    if not all(v == 0 for v in H(zero, zero, Lb, *par)):
        raise Rejected(f"lam piece {lam}: H(0, 0) is not exactly 0")


def check_manifold(doc, setting, domain, leaves):
    """Every piece and leaf of a Proposition 9 certificate; returns (values, the conclusion's tail)."""
    H, JH, _ = manifold_sign_system_arb()
    g, _, d, L = setting
    par = (widened(g), arb(d), arb(L))
    r = number(doc.get("r"), "r")
    if not 0 < r < 0.5:
        raise Rejected(f"r must be in (0, 0.5), got {r!r}")
    pieces = {interval(p.get("lam"), "piece lam"): p for p in doc.get("pieces", []) if isinstance(p, dict)}
    used = {interval(leaf["box"]["lam"], "leaf lam") for leaf in leaves}
    if not used <= set(pieces):
        raise Rejected(f"leaves on lam intervals with no piece: {sorted(used - set(pieces))[:3]}")
    for lam in sorted(used):
        _piece(H, JH, par, lam, pieces[lam], r)
    for leaf in leaves:
        (k0, k1), (n0, n1), lam = ((number(leaf["box"][c][0], c), number(leaf["box"][c][1], c)) for c in ("kappa", "nu", "lam"))
        if leaf.get("test") == "in-X":
            if not (-r <= k0 and k1 <= r and -r <= n0 and n1 <= r):
                raise Rejected(f"in-X leaf {leaf['box']} is not inside X = [-{r}, {r}]^2")
            continue
        h = _mean_value(H, JH, hull(k0, k1), hull(n0, n1), hull(*lam), par)
        if not (_nonzero(h[0]) or _nonzero(h[1])):
            raise Rejected(f"exclude leaf {leaf['box']}: neither H_0 nor H_1 excludes 0")
    return {"pieces": len(used), "r": r}, f" (lam pieces: {len(used)}; (0, 0) is the only zero in [-{r}, {r}]^2)"
