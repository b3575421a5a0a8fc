r"""R1's search (`docs/MATH.md`, "R1: a certified rate below the saddle's level"): a certified Lojasiewicz (Polyak)
constant mu with |Pg(x)|^2 >= mu (R(x) - R*) on S_delta = {x in Q : R(x) <= R(0, 0) - delta}, for every lam of each
piece, by branch and bound over (kappa, nu, lam) boxes with the leaf tests of :mod:`slr_verify.checker.rate`.

Per piece: delta is ``delta_fraction`` times a lower bound of R(0, 0) - R* over the piece; mu is a float estimate of
the best constant (the least ratio on a grid of S_delta and twice min(a, e) of the angle Hessian at the corner), scaled
down by the factors of ``mu_factors`` until the branch and bound closes. The half kappa >= 0 is searched; the half
kappa <= 0 is its mirror (the tree mirrored: the checker tests a leaf with kappa <= 0 at (-kappa, -nu)). Before
returning proved=True the search replays its field with :func:`slr_verify.checker.rate.check_rate`.
"""
from __future__ import annotations

import math
import time

from flint import arb, ctx

from ..checker.decide import at_most, negative, positive
from ..checker.fields import Rejected
from ..checker.premises import kernels
from ..checker.profile import SettingBalls
from ..checker.rate import check_rate, corner_matrix, leaf_enclosures
from ..kernels.balls import ball, midpoint, outward
from ..model.params import accepts_gamma2
from . import bisection as B
from .certificate import SplitTree, halves

_MIN_WIDTH = 2.0**-50


class _Fail(Exception):
    pass


class _Search:
    def __init__(self, par, mu, delta, budget, progress, area_width):
        self.par, self.mu, self.delta, self.budget, self.progress = par, mu, delta, budget, progress
        self.area_width = area_width
        self.boxes = 0

    def corner_ok(self, box):
        q11, q12, q22 = corner_matrix(box, self.par, self.mu)
        lo11, lo22 = arb(q11.lower()), arb(q22.lower())
        return positive(lo11) and positive(lo22) and at_most(q12 * q12, lo11 * lo22)

    def axis(self, box, G):
        """The axis to split: of those at least ``_MIN_WIDTH`` wide (None if none), the one whose mean-value term is
        widest (of F where the box may meet S_delta, else of G); an axis along which the function is monotone (a
        partial of certified sign, which the checker's face evaluation uses) counts 0."""
        K = kernels("lojasiewicz")
        B = [ball(*iv) for iv in box]
        if at_most(G.lower() + self.delta, 0) or not positive(G + self.delta):
            out = K.ratio(*B, **self.par, mu=arb(self.mu))
        else:
            out = K.saddle(*B, **self.par)
        wide = [i for i in range(3) if box[i][1] - box[i][0] >= _MIN_WIDTH * max(1.0, abs(box[i][0]))]
        term = lambda i: (0.0 if positive(out[i + 1]) or negative(out[i + 1]) else
                          outward(abs(out[i + 1]))[1] * (box[i][1] - box[i][0]) if out[i + 1].is_finite() else math.inf)
        return max(wide, key=lambda i: (term(i), box[i][1] - box[i][0])) if wide else None

    def corner_axis(self, box):
        """At a corner box that fails: the axis whose split gives the corner child (both children for lam) the best
        least diagonal entry of the corner test's interval matrix."""
        def score(b):
            q11, _, q22 = corner_matrix(b, self.par, self.mu)
            if not (q11.is_finite() and q22.is_finite()):
                return -math.inf
            return min(midpoint(arb(q11.lower())), midpoint(arb(q22.lower())))  # a heuristic score, not a bound

        wide = [i for i in range(3) if box[i][1] - box[i][0] >= _MIN_WIDTH * max(1.0, abs(box[i][0]))]
        best = {i: (min(map(score, halves(box, i))) if i == 2 else score(halves(box, i)[1])) for i in wide}
        return max(wide, key=lambda i: best[i]) if wide else None

    def step(self, i, box):
        """The engine's decision on ``box`` (node i of ``self.tree``): a corner, above or ratio leaf, or a split."""
        self.boxes += 1
        if self.progress and self.boxes % 500 == 0:
            self.progress(self.boxes)
        (k0, k1), (n0, n1) = box[0], box[1]
        corner = k1 == 1.0 and n1 == 1.0 and k0 > 0 and n0 > 0
        if corner and self.corner_ok(box):
            return B.Leaf({"test": "corner"})
        G, G_high, F = leaf_enclosures(box, self.par, self.mu)
        if positive(G + self.delta):
            return B.Leaf({"test": "above"})
        if positive(F):
            if self.area_width and not at_most(G_high + self.delta, 0) and max(k1 - k0, n1 - n0) > self.area_width:
                axis = 0 if k1 - k0 >= n1 - n0 else 1  # across S_delta's edge: refined for the area bound only
                sub = self.run(self.tree.split(i, axis))
                return B.Grown() if sub.proved else B.Leaf({"test": "ratio"})  # a ratio leaf: its subtree is dropped
            return B.Leaf({"test": "ratio"})
        axis = self.corner_axis(box) if corner and not positive(F) else self.axis(box, G)
        if axis is None:
            return B.Fail(f"no test closes on the box {box} (mu = {self.mu!r}, delta = {self.delta!r})")
        return B.Split(axis)

    def run(self, roots):
        stop = lambda: f"budget of {self.budget} boxes exhausted" if self.boxes >= self.budget else None
        return B.run(self.tree, self.step, roots=roots, stop=stop)

    def solve(self, box):
        """The serialised tree (nodes, leaves) of ``box``; ``_Fail`` when it does not close."""
        self.tree = SplitTree(box, names=("kappa", "nu", "lam"))
        run = self.run([self.tree.root])
        if not run.proved:
            raise _Fail(run.failure)
        return self.tree.serialise()


def _mirror(nodes, leaves):
    """The serialised subtree of the half kappa <= 0 from that of the half kappa >= 0 (``nodes``, ``leaves``): the
    children of kappa and nu splits swapped (the float midpoint of [-b, -a] is minus that of [a, b]); leaves without
    boxes (:meth:`SplitTree.graft` rebuilds them)."""
    it_n, it_l = iter(nodes), iter(leaves)

    def walk():
        node = next(it_n)
        if node == -1:
            return [-1], [{k: v for k, v in next(it_l).items() if k != "box"}]
        (n1, l1), (n2, l2) = walk(), walk()
        if (node if isinstance(node, int) else node[0]) < 2:
            (n1, l1), (n2, l2) = (n2, l2), (n1, l1)
        return [node] + n1 + n2, l1 + l2

    return walk()


def _estimate(par, lam, delta, n=41):
    """A float estimate of the best mu on the piece: the least |Pg|^2 / (R - R*) on a grid of S_delta's half
    kappa >= 0 at the piece's two ends, and twice min(a, e) of the angle Hessian at the corner."""
    K = kernels("lojasiewicz")
    best = math.inf
    for lm in lam:
        L = arb(lm)
        a, _, e = K.corner_hessian(arb(0), arb(0), L, **par)
        best = min(best, 2 * midpoint(a), 2 * midpoint(e))
        for i in range(n):
            for j in range(n):
                k, v = arb(i / (n - 1)), arb(-1 + 2 * j / (n - 1))
                if midpoint(K.saddle(k, v, L, **par)[0] + delta) > 0:
                    continue
                pg2 = K.ratio(k, v, L, **par, mu=arb(0))[0]
                gap = pg2 - K.ratio(k, v, L, **par, mu=arb(1))[0]
                if midpoint(gap) > 0:
                    best = min(best, midpoint(pg2 / gap))
    return best


def _check_args(pieces, gamma, d, L, prec, budget, delta_fraction):
    if not (isinstance(pieces, (list, tuple)) and pieces):
        raise ValueError(f"pieces must be a non-empty list of (lo, hi) lam intervals, got {pieces!r}")
    out = []
    for i, p in enumerate(pieces):
        lo, hi = (float(x) for x in p)
        if not (0 < lo < hi < math.inf) or (out and lo != out[-1][1]):
            raise ValueError(f"pieces must be increasing contiguous lam intervals in (0, oo), piece {i} is {p!r}")
        out.append((lo, hi))
    if not (isinstance(gamma, float) and gamma > 0 and math.isfinite(gamma)):
        raise ValueError(f"gamma must be a finite float > 0, got {gamma!r}")
    if not (type(d) is int and d >= 1):
        raise ValueError(f"d must be an integer >= 1, got {d!r}")
    if not (type(L) is int and L >= 1):
        raise ValueError(f"L must be an integer >= 1, got {L!r}")
    if not (type(prec) is int and 64 <= prec <= 256):
        raise ValueError(f"prec must be an integer in [64, 256], got {prec!r}")
    if not (type(budget) is int and budget > 0):
        raise ValueError(f"budget must be an integer > 0, got {budget!r}")
    if not 0 < delta_fraction < 1:
        raise ValueError(f"delta_fraction must be in (0, 1), got {delta_fraction!r}")
    return out


def _piece(par, ip, lo, hi, delta_fraction, budget, opts):
    """One piece: (node, mu, delta, boxes, failure, facts); node None when it does not close within ``budget``."""
    K = kernels("lojasiewicz")
    gap0 = -K.saddle(arb(1), arb(1), ball(lo, hi), **par)[0]  # R(0, 0) - R* over the piece
    delta = outward(gap0 * delta_fraction)[0]
    if not delta > 0:
        return None, None, None, 0, f"piece {ip}: R(0, 0) - R* is not certified > 0", {}
    est = _estimate(par, (lo, hi), delta, opts["grid"])
    boxes = 0

    def attempt(f):
        """(node or None, failure, boxes) of the branch and bound at mu = est * f; a try that runs out leaves half."""
        prog = opts["progress"]
        s = _Search(par, float(est * f), arb(delta), max(1, (budget - boxes) // 2),
                    (lambda n: prog(ip, n)) if prog else None, opts["area_width"])
        try:
            half = s.solve(((0.0, 1.0), (-1.0, 1.0), (lo, hi)))
            return (_mirror(*half), half), None, s.boxes
        except _Fail as e:
            return None, f"piece {ip} [{lo}, {hi}]: {e}", s.boxes

    node, ok, bad, failure = None, None, 1.0, None
    for f in sorted(opts["mu_factors"]):  # the cheapest first, then up until one fails
        got, why, n = attempt(f)
        boxes += n
        if got is None:
            bad, failure = f, why
            break
        node, ok = got, f
        if boxes >= budget:
            break
    if node is None:
        return None, None, delta, boxes, failure, {"mu_estimate": est}
    for _ in range(opts["bisect"]):  # mu as large as the search proves: bisect between the last success and failure
        f = 0.5 * (ok + bad)
        got, _, n = attempt(f)
        boxes += n
        if got is not None:
            node, ok = got, f
        else:
            bad = f
    return node, float(est * ok), delta, boxes, None, {"mu_estimate": est, "factor": ok}


@accepts_gamma2
def lojasiewicz(pieces, *, gamma, d, L, prec=128, budget=200_000, delta_fraction=0.1,
                mu_factors=(0.02, 0.1, 0.35, 0.7), area_width=1 / 32, grid=41, bisect=2, progress=None) -> dict:
    """R1 on the lam pieces (increasing, contiguous (lo, hi) intervals) at the model (gamma, d, L): {"proved", "rate"
    (the certificate field of :func:`slr_verify.checker.rate.check_rate`, or None), "mu", "delta", "area_fraction",
    "boxes", "seconds", "failure", "pieces" (per piece: boxes, seconds, the float estimate of mu and the factor
    proved)} (lists by piece). ``progress(piece, boxes)`` is called now and then. A ratio leaf across S_delta's edge
    wider than ``area_width`` in kappa or nu is split further (only for the area bound). mu is est * f for the first f
    of ``mu_factors`` (in increasing order) after which the next fails (or the last), then ``bisect`` bisection steps
    between it and the failing one (1 if none failed); each try may use half the budget left;
    est from a grid of ``grid`` points a side (:func:`_estimate`). ``budget`` bounds the boxes of the whole call. L does
    not enter the inequality (it cancels in R - R* and in the gradient) and is checked only."""
    pieces = _check_args(pieces, gamma, d, L, prec, budget, delta_fraction)
    opts = {"mu_factors": mu_factors, "area_width": area_width, "grid": grid, "bisect": bisect, "progress": progress}
    t0, old = time.perf_counter(), ctx.prec
    ctx.prec = prec
    try:
        S = SettingBalls(gamma, 0.0, d, L)  # R1 does not depend on eps (nor on L: it cancels)
        par = S.P.kw("gamma", "d")
        mus, deltas, subtrees, boxes, facts = [], [], [], 0, []
        for ip, (lo, hi) in enumerate(pieces):
            tp = time.perf_counter()
            node, mu, delta, n, failure, fact = _piece(par, ip, lo, hi, delta_fraction, budget - boxes, opts)
            boxes += n
            if node is None:
                return _out(False, None, mus, deltas, [], boxes, t0, failure, facts)
            mus.append(mu)
            deltas.append(delta)
            subtrees.append(node)
            facts.append({"boxes": n, "seconds": time.perf_counter() - tp, **fact})
        field = SplitTree(((-1.0, 1.0), (-1.0, 1.0), (pieces[0][0], pieces[-1][1])), names=("kappa", "nu", "lam"))
        for i, (mirror, half) in zip(field.grid(field.root, 2, [lo for lo, _ in pieces[1:]]), subtrees):
            for j, sub in zip(field.split(i, 0), (mirror, half)):
                field.graft(j, *sub)
        tree, leaves = field.serialise()
        rate = {"lam": [pieces[0][0], pieces[-1][1]], "tree": tree, "leaves": leaves}
        doc = [{"lam": p, "mu": m, "delta": dl} for p, m, dl in zip(pieces, mus, deltas)]
        try:
            area = [a["area_fraction"] for a in check_rate(rate, S, doc)]
        except Rejected as e:  # the search and the checker disagree: not proved
            return _out(False, None, mus, deltas, [], boxes, t0, f"the checker rejects the search's field: {e}", facts)
        return _out(True, rate, mus, deltas, area, boxes, t0, None, facts)
    finally:
        ctx.prec = old


def _out(proved, rate, mus, deltas, area, boxes, t0, failure, per_piece=()):
    return {"proved": proved, "rate": rate, "mu": mus, "delta": deltas, "area_fraction": area, "boxes": boxes,
            "seconds": time.perf_counter() - t0, "failure": failure, "pieces": list(per_piece)}


@accepts_gamma2
def steps_to(pieces, eps, alphas, *, gamma, d, L, prec=128, parts=16) -> list:
    r"""The certified step counts of R1 (`docs/MATH.md`, "R1"): for each piece of ``pieces`` (dicts with ``lam``,
    ``mu``, ``delta``, ``alpha_8``: a proved theorem-5 certificate's pieces; a piece without a rate gives None) and each
    step of ``alphas``, the least integer T such that

    .. math:: R(x_t) - R^* \le (1 - \alpha\mu/2)^t\, E \le \varepsilon \quad \text{for every } t \ge T,

    for every PGD run on M from x_0 in S_delta and every lam of the piece, with E >= R(0, 0) - delta - R* over the piece
    (the upper end of ball enclosures on ``parts`` sub-intervals of lam; R(x_0) <= R(0, 0) - delta on S_delta) and T =
    ceil(log(E/eps) / -log(1 - alpha mu/2)) from upper and lower ends (0 when E <= eps). R1's inequality holds for alpha
    in (0, alpha_8]: a larger step gets None. Returns [{"lam", "excess_bound", "steps": [T or None per alpha]} or None]."""
    if not (isinstance(eps, (int, float)) and not isinstance(eps, bool) and math.isfinite(eps) and eps > 0):
        raise ValueError(f"eps must be a finite number > 0 (the target of R - R*), got {eps!r}")
    for a in alphas:
        if not (isinstance(a, (int, float)) and not isinstance(a, bool) and math.isfinite(a) and a > 0):
            raise ValueError(f"alphas must be finite steps > 0, got {a!r}")
    K, old = kernels("lojasiewicz"), ctx.prec
    ctx.prec = prec
    try:
        par = SettingBalls(gamma, 0.0, d, L).P.kw("gamma", "d")
        out = []
        for p in pieces:
            if p.get("mu") is None:
                out.append(None)
                continue
            lo, hi = p["lam"]
            cuts = [lo + (hi - lo) * i / parts for i in range(parts)] + [hi]
            gap = max(outward(-K.saddle(arb(1), arb(1), ball(a, b), **par)[0])[1] for a, b in zip(cuts, cuts[1:]))
            E = outward(arb(gap) - arb(p["delta"]))[1]  # R(0, 0) - R* - delta, from above: an exact float
            steps = []
            for a in alphas:
                if a > p["alpha_8"]:
                    steps.append(None)
                elif E <= eps:
                    steps.append(0)
                else:
                    rate = -(1 - arb(a) * arb(p["mu"]) / 2).log()
                    steps.append(int(math.ceil(outward((arb(E) / arb(eps)).log() / rate)[1])))
            out.append({"lam": list(p["lam"]), "excess_bound": E, "steps": steps})
        return out
    finally:
        ctx.prec = old
