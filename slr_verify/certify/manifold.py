r"""Proposition 9 by ball arithmetic, for a whole interval of lam at once.

On M the tangent gradient of the risk is :math:`F = ((1-\kappa^2) g_\kappa, (1-\nu^2) g_\nu)`
(`docs/MATH.md` §10), and F = 0 iff one factor of each component vanishes:

1. :math:`\kappa = \pm1` and :math:`\nu = \pm1`: the four corners (exact zeros);
2. :math:`\kappa = \pm1` and :math:`g_\nu = 0`: excluded by enclosures of :math:`g_\nu(\pm1; \lambda)`;
3. :math:`g_\kappa = 0` and :math:`\nu = \pm1`: excluded by enclosures of :math:`g_\kappa(\kappa, \pm1; \lambda)` on [-1, 1];
4. :math:`g_\kappa = g_\nu = 0`: a Krawczyk box X around (0, 0) proves, for every lam of each
   piece of the interval, exactly one zero in X; branch and bound excludes the rest of the square
   (every box where an enclosure of g_kappa or g_nu excludes 0).

lam is a coordinate of the boxes, never a sample. SymPy proves, for all lam, gamma, d > 0, that
g_kappa = P(kappa) H_0 and g_nu = c_n H_1 with P > 0, c_n < 0, H_0 = erf(c2 kappa) - nu, H_1 = erf(c1 kappa);
the ball arithmetic runs on H (the same zeros; P is as small as 1e-20 and would only widen the
enclosures). H and its Jacobian are generated from the derivation by :mod:`slr_verify.kernels.arb`.
The parameters are taken as balls one ulp wide around the floats given, so gamma = sqrt(0.5)
covers gamma^2 = 1/2 exactly.
"""
from __future__ import annotations

import time
from dataclasses import dataclass, field

import numpy as np
from flint import arb, arb_mat, ctx

from ..checker.balls import param_balls
from ..kernels.balls import ball, geometric_pieces, midpoint
from ..kernels.certified import manifold_sign_system_arb
from ..model.params import accepts_gamma2
from . import args as A
from . import bisection as B
from . import certificate as C
from .replay import replay


@dataclass
class Certificate:
    """A proof's outcome: ``proved`` and, per stationary point, a certified box
    ((kappa_lo, kappa_hi), (nu_lo, nu_hi)) holding exactly one zero for every lam of ``lam``."""

    proved: bool
    points: list
    boxes: list
    lam: tuple
    prec: int
    n_boxes: int
    seconds: float
    steps: dict = field(default_factory=dict)
    failure: str | None = None
    certificate: dict | None = None
    replay: object = None


def _excludes_zero(x: arb) -> bool:
    return not x.contains(0)


def _exclude(fn, box, *, min_width, budget, tree=None, node=None, leaves=None):
    """Branch and bound over the box's coordinates: every sub-box must get a truthy ``fn(box)`` (excluded, or
    claimed by a Krawczyk box: the leaf's test name); returns (ok, boxes examined). With a
    :class:`~.certificate.SplitTree` ``tree``, the boxes are recorded under ``node`` (the box's first coordinates are
    the tree's); ``leaves`` collects the passed boxes."""
    if tree is None:
        tree, node = C.SplitTree(box, names=tuple(f"x{i}" for i in range(len(box)))), None
    k = len(box)

    def step(i, b):
        test = fn(b[:k])
        if test:
            if leaves is not None:
                leaves.append(b[:k])
            return B.Leaf({"test": test if isinstance(test, str) else "exclude"})
        if max(hi - lo for lo, hi in b[:k]) < min_width:
            return B.Fail("a box narrower than min_width is not excluded")
        return B.Split(B.widest(b[:k]))

    run = B.run(tree, step, roots=None if node is None else [node], budget=budget)
    return run.proved, run.boxes


def _mean_value(G, J, K, N, lam, par):
    """Enclosures of (g_kappa, g_nu) on the box K x N: the natural one intersected with the
    mean-value form g(m) + J(box) (box - m)."""
    mk, mn = arb(K.mid()), arb(N.mid())
    g = G(K, N, lam, **par)
    gm = G(mk, mn, lam, **par)
    Jb = J(K, N, lam, **par)
    mv = [gm[0] + Jb[0] * (K - mk) + Jb[1] * (N - mn), gm[1] + Jb[2] * (K - mk) + Jb[3] * (N - mn)]
    return [g[i].intersection(mv[i]) if g[i].is_finite() else mv[i] for i in range(2)]


def _krawczyk(G, J, r, lam, par):
    """Krawczyk test on X = [-r, r]^2 around (0, 0) for every lam in the ball ``lam``; returns (passed, the
    preconditioner Y as nested float lists)."""
    X = [ball(-r, r), ball(-r, r)]
    zero = arb(0)
    F0 = G(zero, zero, lam, **par)
    Jx = J(X[0], X[1], lam, **par)
    Jm = J(zero, zero, arb(lam.mid()), **par)
    M = np.array([[midpoint(Jm[0]), midpoint(Jm[1])], [midpoint(Jm[2]), midpoint(Jm[3])]])  # a preconditioner: estimates
    Y = np.linalg.inv(M)
    Ya = arb_mat([[arb(Y[0, 0]), arb(Y[0, 1])], [arb(Y[1, 0]), arb(Y[1, 1])]])
    Jb = arb_mat([[Jx[0], Jx[1]], [Jx[2], Jx[3]]])
    K = -(Ya * arb_mat([[F0[0]], [F0[1]]])) + (arb_mat([[1, 0], [0, 1]]) - Ya * Jb) * arb_mat([[X[0]], [X[1]]])
    return all(K[i, 0].lower() > -r and K[i, 0].upper() < r for i in range(2)), Y.tolist()


def _prove_lam_piece(G, J, L_, par, r, budget, tree, node, counts):
    """Cases 2-4 on the lam ball ``L_``: (ok2, ok3, ok4k, ok4, Y, edges); grows ``tree`` at ``node``, adds to ``counts``."""
    one, zero = arb(1), arb(0)
    # case 2: kappa = +-1 and g_nu(+-1; lam) = 0 is impossible
    ok2 = all(_excludes_zero(G(s * one, zero, L_, **par)[1]) for s in (1, -1))
    # case 3: nu = +-1 and g_kappa(kappa, +-1; lam) = 0 is impossible on [-1, 1]
    ok3, edges = True, {}
    for s in (1, -1):
        cells = []
        ok, n = _exclude(lambda bx: _excludes_zero(_mean_value(G, J, ball(*bx[0]), s * one, L_, par)[0]),
                         ((-1.0, 1.0),), min_width=1e-9, budget=budget, leaves=cells)
        counts["nu=+-1, g_kappa != 0"] += n
        ok3 &= ok
        edges[str(s)] = [-1.0] + sorted(c[0][1] for c in cells)
    # case 4: exactly one zero of (g_kappa, g_nu) in X (Krawczyk), none elsewhere
    ok4k, Y = _krawczyk(G, J, r, L_, par)

    def excluded(bx):
        (k0, k1), (n0, n1) = bx
        if k0 >= -r and k1 <= r and n0 >= -r and n1 <= r:
            return "in-X"  # inside X: the Krawczyk box holds exactly one zero
        g = _mean_value(G, J, ball(k0, k1), ball(n0, n1), L_, par)
        return _excludes_zero(g[0]) or _excludes_zero(g[1])

    ok4, n4 = (_exclude(excluded, ((-1.0, 1.0), (-1.0, 1.0)), min_width=r / 64, budget=budget, tree=tree,
                        node=node) if ok4k else (False, 0))
    counts["kappa=+-1, g_nu != 0"] += 2
    counts["Krawczyk (0, 0)"] += 1
    counts["g_kappa = g_nu = 0 only in X"] += n4
    return ok2, ok3, ok4k, ok4, Y, edges


@accepts_gamma2
def stationary_points_on_M(lam=(0.01, 1.0), *, gamma, eps=0.0, d, L, prec=192, r=1e-3, ratio=0.05, budget=20_000,
                           check=True):
    """Certify Proposition 9 for every lam in ``lam = (lo, hi)`` at once (see the module
    docstring). Returns a :class:`Certificate`; ``boxes`` holds five certified boxes, each a pair of
    (lo, hi) intervals containing exactly one of (0, 0), (1, 1), (-1, -1), (1, -1), (-1, 1); ``certificate``: the
    proof's document (`docs/certificates.md`), replayed by the independent checker when ``check``."""
    if not isinstance(check, bool):
        raise ValueError(f"check must be True or False, got {check!r}")
    lo, hi = A.lam_interval(lam)
    _, gamma, eps, d, L = A.model(lo, gamma, eps, d, L)
    prec, r, ratio, budget = A.precision(prec), A.radius(r), A.ratio(ratio), A.budget(budget)
    t0 = time.perf_counter()
    with ctx.workprec(int(prec)):
        G, J, sign_proofs = manifold_sign_system_arb()
        if not all(sign_proofs.values()):
            return Certificate(False, [], [], (lo, hi), prec, 0, time.perf_counter() - t0, {"symbolic": sign_proofs},
                               failure="the factorisation g_kappa = P H_0, g_nu = c_n H_1 (P > 0, c_n < 0) is not proved")
        par = param_balls(gamma, 0.0, d, L).kw("gamma", "d", "L")
        counts = {"kappa=+-1, g_nu != 0": 0, "nu=+-1, g_kappa != 0": 0, "Krawczyk (0, 0)": 0, "g_kappa = g_nu = 0 only in X": 0}
        tree = C.SplitTree(((-1.0, 1.0), (-1.0, 1.0), (lo, hi)), names=("kappa", "nu", "lam"))
        pieces = geometric_pieces(lo, hi, ratio)
        records = []

        def step(node, box):
            a, b = box[2]
            ok2, ok3, ok4k, ok4, Y, edges = _prove_lam_piece(G, J, ball(a, b), par, r, budget, tree, node, counts)
            if ok2 and ok3 and ok4k and ok4:
                records.append({"lam": [a, b], "Y": Y, "edges": edges})
                return B.Grown()
            if b - a > 1e-6 * b:  # refine the lam piece and try again (its (kappa, nu) tree is dropped)
                return B.Split(2)
            return B.Fail(f"no proof for lam in [{a}, {b}] (cases 2, 3, Krawczyk, 4: {ok2}, {ok3}, {ok4k}, {ok4})")

        ids = tree.grid(tree.root, 2, [a for a, _ in pieces[1:]])
        run = B.run(tree, step, roots=ids[::-1], upper_first=True)  # the pieces' records in the order they were proved
        failure, n_pieces = run.failure, len(records)
        proved = failure is None
        points = [(0, 0), (1, 1), (-1, -1), (1, -1), (-1, 1)]
        boxes = [((-r, r), (-r, r))] + [((float(k), float(k)), (float(n), float(n))) for k, n in points[1:]]
        steps = {k: {"boxes": v} for k, v in counts.items()}
        steps["symbolic: g_kappa = P H_0, g_nu = c_n H_1, P > 0, c_n < 0"] = sign_proofs
        steps["lam pieces"] = n_pieces
        out = Certificate(proved, points if proved else [], boxes if proved else [], (lo, hi), prec, sum(counts.values()),
                          time.perf_counter() - t0, steps, failure)
        if proved:
            out.certificate = C.document("manifold-stationary-points", A.setting(gamma=gamma, eps=eps, d=d, L=L), tree, prec=prec,
                                         extra={"r": r, "pieces": records}, search={"boxes": out.n_boxes})
    if proved and check:
        out.replay = replay(out.certificate)
        out.proved = bool(out.replay.accepted)
        out.failure = None if out.proved else f"the certificate was {out.replay.reason}"
    return out
