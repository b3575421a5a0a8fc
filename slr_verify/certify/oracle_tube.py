r"""Theorem 5 in a tube around M near the oracle, by ball arithmetic (`docs/MATH.md` §13, "A tube around M"): beyond
the paper, for initialisations off M.

Write a state of PGD on the spheres as (x, y), x = (kappa, nu) on M and y = (theta, eta, rho) across it, and the
five-overlap map G = (K, N, Y) (`docs/MATH.md` §12). Take D = [k0, 1] x [n0, 1], a margin m > 0 with k0 - m, n0 - m > 0,
D_m = [k0 - m, 1] x [n0 - m, 1], an invertible 3 x 3 matrix T, ||y|| = |T^{-1} y|_2, and a radius r. Suppose that on
every box b of a tiling of D_m, on arb balls over b x {||y|| <= r}:

* (contraction) ||T^{-1} D_y Y T||_2 < q with q < 1, decided as q^2 I - M^T M positive definite (its leading minors,
  M the interval matrix T^{-1} D_y Y T);
* (drift) C >= the dual norms of the rows D_y K T and D_y N T (how far y moves kappa and nu);
* (progress on M) g_kappa < 0 and g_nu < 0 on b x {0}, and alpha |g_kappa| (2 kappa^2 - 1) < 2 kappa and
  alpha |g_nu| (2 nu^2 - 1) < 2 nu.

**Theorem.** Every realisable start (x_0, y_0) with x_0 in D and ||y_0|| <= r_0 = min(r, m (1 - q) / C) converges
under PGD (constant lam, step alpha) to the oracle (1, 1, 0, 0, 0), and ||y_t|| <= q^t ||y_0||.

*Proof.* M is invariant (Y(x, 0) = 0, Lemma 4), so while the run is in D_m x {||y|| <= r} the mean-value inequality
on the segment {(x, s y)} gives ||y_{t+1}|| <= q ||y_t||, and K(x, y) >= K(x, 0) - C ||y||, N(x, y) >= N(x, 0) - C ||y||.
On M, K(x, 0) = (kappa + a) / sqrt(1 + a^2 / (1 - kappa^2)) with a = alpha (1 - kappa^2) |g_kappa| (the reduced map,
`docs/MATH.md` §9; the valley tube's SymPy facts, :func:`slr_verify.kernels.landscape.valley_tube_proofs`), so the
progress test gives h_k(x) = K(x, 0) - kappa >= 0, > 0 for kappa < 1 (square both sides); the same for nu. Hence
kappa_t >= kappa_0 - C sum_s ||y_s|| >= k0 - C r_0 / (1 - q) >= k0 - m, and nu_t >= n0 - m: the run never leaves D_m x
{||y|| <= r} (kappa, nu <= 1: it is realisable). Then u_t = kappa_t - C sum_{s < t} ||y_s|| is nondecreasing and at
most 1, so kappa_t converges, and sum_t h_k(x_t) is finite: h_k(x_t) -> 0, so the limit has kappa = 1 (h_k > 0 below);
likewise nu -> 1, and y_t -> 0.

Tier: ball arithmetic, with an ``oracle-tube`` certificate the independent checker replays (its leaves: the boxes of
D_m, or of D_m x a lam interval; the checker derives the statement and evaluates every test again). Not shown: the
images of the tube under the symmetries (they hold by equivariance:
:func:`slr_verify.kernels.landscape.sigma_equivariance_proofs`), a D reaching the saddle's level.
"""
from __future__ import annotations

import dataclasses
import math
import time
from dataclasses import dataclass, field
from fractions import Fraction

import numpy as np
from flint import arb, arb_mat, ctx

from ..checker import replay
from ..checker.balls import outward, param_balls, widened
from ..checker.contraction import norm_below, oracle_box_bounds, pgd_jacobian, square, upper
from ..kernels.balls import midpoint
from ..kernels.landscape import valley_tube_proofs
from ..landscape.overlap_map import pgd_map, real_eigenbasis, realisable_states
from ..model import tiers as T
from ..model import validation as V
from ..model.params import Params, accepts_gamma2
from . import bisection as B
from .args import setting
from .certificate import SplitTree, document


@dataclass(frozen=True)
class OracleTube:
    """A tube of the module's theorem: ``D`` ((k0, 1), (n0, 1)), ``margin`` m, ``T`` (the norm |T^{-1} y|_2 on y),
    ``radius`` r (where the tests hold), ``entry`` r_0 (the theorem's radius), ``q``, ``C`` (floats rounded up),
    ``boxes``, ``proved``, ``reason``, ``params``, ``seconds``."""

    D: tuple
    margin: float
    T: np.ndarray
    radius: float
    entry: float
    q: float
    C: float
    boxes: int
    proved: bool
    reason: str
    params: dict
    seconds: float
    extra: dict = field(default_factory=dict)
    #: the ``oracle-tube`` certificate the independent checker accepted (None for a tube not proved)
    certificate: dict | None = None

    #: what the conclusion rests on (`slr_verify.model.tiers`): a certificate the independent checker replays
    tier = T.BALL

    @classmethod
    def from_replay(cls, rep, doc) -> "OracleTube":
        """The tube an accepted ``oracle-tube`` replay ``rep`` of the document ``doc`` proves (D's corner c + m rounded
        up to a float, so that D lies inside the certificate's); ``ValueError`` for a replay not accepted."""
        if not (getattr(rep, "accepted", False) and rep.values.get("kind") == "oracle-tube"):
            raise ValueError(f"rep must be an accepted oracle-tube replay, got {getattr(rep, 'reason', rep)!r}")
        t, dom = rep.values["tube"], rep.values["domain"]
        D = tuple((math.nextafter(t[c] + t["margin"], math.inf), 1.0) for c in ("kappa", "nu"))
        lam = dom["lam"] if dom["lam"][0] < dom["lam"][1] else dom["lam"][0]
        prm = {"lam": lam, "alpha": dom["alpha"][0], "prec": doc["prec"], **{k: doc["setting"][k] for k in ("gamma", "d", "L")}}
        return cls(D, t["margin"], np.array(doc["T"]), doc["radius"], t["entry"], t["q"], rep.values["C"],
                   len(doc["leaves"]), True, "", prm, rep.seconds, {"euclidean": t["euclidean"]}, doc)

    def contains(self, ov) -> np.ndarray:
        """Which of the realisable points ``ov`` ((5,) or (5, n)) satisfy the theorem's entry condition (decided on
        arb balls; False everywhere for an unproved tube). ``ValueError`` naming ``ov`` for a point of no model."""
        X = realisable_states(ov, self.params["d"])
        out = np.zeros(X.shape[1], dtype=bool)
        if not self.proved:
            return out
        (k0, _), (n0, _) = self.D
        with ctx.workprec(128):
            Tinv = arb_mat(self.T.tolist()).inv()
            for i in np.flatnonzero((X[0] >= k0) & (X[1] >= n0)):
                y = Tinv * arb_mat([[arb(float(X[k, i]))] for k in (2, 3, 4)])
                out[i] = bool(_norm(y.transpose()) <= self.entry)
        return out

    def euclidean_entry(self) -> float:
        """A radius in |y|_2 inside the entry condition: r_0 / s, rounded down, with ||T^{-1}||_2 < s proved on arb balls
        (s NumPy's norm raised by 1e-9 relative, decided by the checker's ``norm_below``); 0 for an unproved tube."""
        if not self.proved:
            return 0.0
        if "euclidean" in self.extra:  # a replayed certificate's, which the checker proved
            return self.extra["euclidean"]
        s = float(np.linalg.norm(np.linalg.inv(self.T), 2)) * (1 + 1e-9)
        with ctx.workprec(128):
            if not norm_below(arb_mat(self.T.tolist()).inv(), arb(s)):
                raise ArithmeticError(f"||T^-1||_2 < {s!r} is not proved: no Euclidean radius")
            return outward(arb(self.entry) / arb(s))[0]


def _best_axis(box, spread, scale, axes) -> int:
    """The axis whose halving most narrows the transverse block's balls (the largest ``spread``, the summed radii of
    T^-1 D_y Y T, over the two halves), the widest (``scale``) on a tie: the leaves are the certificate's replay cost,
    and the side that widens the balls (near the oracle, lam) is often not the widest."""
    def after(axis):
        lo, hi = box[axis]
        mid = 0.5 * (lo + hi)
        return max(spread(tuple((a, b) if k == axis else iv for k, iv in enumerate(box))) for a, b in ((lo, mid), (mid, hi)))
    got = {a: after(a) for a in axes}
    best = [a for a in axes if got[a] == min(got.values())]
    return B.widest(box, scale=scale, axes=best)


def _below_by(c, m) -> float:
    """The largest float x with x + m <= c exactly (D_m's lower end: the checker's statement reads D as x + m <= kappa)."""
    x = c - m
    while Fraction(x) + Fraction(m) > Fraction(c):
        x = math.nextafter(x, -math.inf)
    return x


def _norm(row) -> arb:
    """An upper bound of the 2-norm of a 1 x 3 arb row."""
    return upper(sum((square(row[0, j]) for j in range(3)), arb(0))).sqrt()


@accepts_gamma2
def oracle_tube(*, lam, gamma, d, L, alpha, D=((0.8, 1.0), (0.8, 1.0)), margin=0.01, radii=(1e-2, 3e-3, 1e-3, 3e-4, 1e-4),
                min_width=2.0**-12, budget=20_000, prec=128) -> OracleTube:
    """The module's theorem at a step alpha and a lam, or every lam of an interval (lo, hi) (then the boxes are
    (kappa, nu, lam) boxes and lam's ball enters every test): the largest radius of ``radii`` for which every box of a
    tiling of D_m (split at the widest side, lam's width counted against its interval's, until the tests hold, down to
    ``min_width`` of D's sides) passes, with T the real eigenbasis of the transverse block at the oracle at the middle
    lam. An :class:`OracleTube` (``proved`` False with the reason when no radius works)."""
    if np.ndim(lam) == 1:
        lo_l, hi_l = V.interval("lam", lam, minimum=0.0, strict_min=True, degenerate=True)
    else:
        lo_l = hi_l = V.real("lam", lam, minimum=0.0, strict_min=True)
    p = Params(lam=hi_l, gamma=gamma, eps=0.0, d=d, L=L)
    Params(lam=lo_l, gamma=gamma, eps=0.0, d=d, L=L)
    alpha = V.real("alpha", alpha, minimum=0.0, strict_min=True)
    (k0, k1), (n0, n1) = D = tuple(V.interval(f"D[{i}]", x, minimum=0.0, maximum=1.0) for i, x in enumerate(D))
    if k1 != 1 or n1 != 1:
        raise ValueError(f"D must be [k0, 1] x [n0, 1] (the oracle's corner of M), got {D!r}")
    margin = V.real("margin", margin, minimum=0.0, strict_min=True)
    if not (k0 - margin > 0 and n0 - margin > 0):
        raise ValueError(f"margin must keep D_m inside kappa, nu > 0: k0 - margin, n0 - margin > 0, got {D!r}, {margin!r}")
    budget = V.integer("budget", budget, 1, 10**6, why="boxes of D_m")
    kw = {"lam": 0.5 * (lo_l + hi_l), "gamma": p.gamma, "d": p.d, "L": p.L}
    prm = dict(kw, lam=(lo_l, hi_l) if lo_l < hi_l else lo_l, alpha=alpha, prec=int(prec))
    t0 = time.perf_counter()
    _, J = pgd_map(np.array([1.0, 1.0, 0.0, 0.0, 0.0]), (1,) * 5, alpha=alpha, **kw)
    Tf, _, w = real_eigenbasis(J[2:, 2:])
    rho = max(float(np.max(np.abs(np.linalg.eigvals(pgd_map(np.array([1.0, 1.0, 0, 0, 0]), (1,) * 5, alpha=alpha,
                                                                   **dict(kw, lam=x))[1][2:, 2:]))))
              for x in (lo_l, kw["lam"], hi_l))
    proofs = valley_tube_proofs()  # Lemma 4 (M invariant) and the reduced map's formula, for all parameters
    fail = lambda why, n=0: OracleTube(D, margin, Tf, 0.0, 0.0, math.inf, math.inf, n, False, why, prm,
                                 time.perf_counter() - t0, {"spectral_radius_at_oracle": rho, "proofs": proofs})
    if not all(proofs.values()):
        return fail(f"a SymPy fact is not proved: {proofs}")
    if rho >= 1:
        return fail(f"the transverse block at the oracle has spectral radius {rho:.9f} >= 1: M repels there")
    model = param_balls(p.gamma, 0.0, p.d, p.L).kw()  # PGD does not depend on eps
    scale = (1.0, 1.0, (hi_l - lo_l) / (1.0 - D[0][0] + margin), 1.0)  # lam's width against its interval's, as kappa's
    axes = (0, 1, 2) if lo_l < hi_l else (0, 1)
    q = 1 - 0.25 * (1 - rho)  # as the valley tube: a q only just below 1 makes r_0 = m (1 - q) / C useless
    last, used = "no radius", 0
    with ctx.workprec(int(prec)):
        A, Tm, qb = arb(alpha), arb_mat([[arb(x) for x in row] for row in Tf]), arb(q)
        for r in sorted((float(x) for x in radii), reverse=True):
            sides = (_below_by(k0, margin), 1.0), (_below_by(n0, margin), 1.0), (lo_l, hi_l), (alpha, alpha)
            run, tree, worst = _tiling(sides, Tm, r, model, A, q, scale, axes, min_width, budget)
            used += run.boxes
            if not run.proved:
                last = f"r = {r:g}: {run.failure if run.status != 'budget' else f'more than {budget} boxes'}"
                continue
            C = outward(worst)[1]
            # r_0, rounded down by a relative 2^-30 more: the checker decides r_0 C <= m (1 - q) on balls
            entry = min(r, outward(arb(margin) * (1 - qb) / arb(C) * (1 - arb(2) ** -30))[0]) if C > 0 else r
            t = OracleTube(D, margin, Tf, r, entry, q, C, used, True, "", prm, time.perf_counter() - t0,
                           {"spectral_radius_at_oracle": rho, "leaves": run.boxes, "proofs": proofs})
            return _certified(t, tree, p, t0)
    return fail(f"no radius of {sorted(radii, reverse=True)} closes: last attempt {last}", used)


def _tiling(sides, Tm, r, model, A, q, scale, axes, min_width, budget) -> tuple:
    """(run, tree, the largest drift bound C) of the tiling of ``sides`` (kappa, nu, lam, alpha) at radius r: a box is a
    ``tube-box`` leaf when both tests of :func:`~slr_verify.checker.contraction.oracle_box_bounds` hold, else split
    along :func:`_best_axis`'s axis, down to ``min_width`` of kappa and nu."""
    qb, Tinv, worst = arb(q), Tm.inv(), [arb(0)]

    def par(box):  # the checker's balls: lam's interval, or its one-ulp ball at a point
        la = box[2]
        return dict(lam=arb(la[0]).union(arb(la[1])) if la[0] < la[1] else widened(la[0]), **model)

    def spread(box):
        Y = Tm * arb_mat([[arb(0, r)] for _ in range(3)])
        D = pgd_jacobian([*(arb(lo).union(arb(hi)) for lo, hi in box[:2]), Y[0, 0], Y[1, 0], Y[2, 0]], par(box), A)
        M = Tinv * arb_mat([[D[i, j] for j in range(2, 5)] for i in range(2, 5)]) * Tm
        return sum(midpoint(M[i, j].rad()) for i in range(3) for j in range(3))  # an estimate: it ranks the axes

    def decide(i, box):
        contracts, C, ok = oracle_box_bounds(box[:2], Tm, r, par(box), A, qb)
        if ok and contracts:
            worst[0] = max(worst[0], C, key=lambda b: b.upper())
            return B.Leaf({"test": "tube-box"})
        if B.too_small(box[:2], min_width):
            return B.Fail(f"box {box} at {min_width:g} wide: contraction below q = {q:.9g} "
                          f"{'shown' if contracts else 'not shown'}, progress on M {'shown' if ok else 'not shown'}")
        return B.Split(_best_axis(box, spread, scale, axes))

    tree = SplitTree(sides, names=("kappa", "nu", "lam", "alpha"))
    return B.run(tree, decide, budget=budget), tree, worst[0]


def _certified(t, tree, p, t0) -> OracleTube:
    """The proved tube ``t`` with its ``oracle-tube`` certificate (the closed ``tree``), if the checker accepts it; else
    the tube not proved, the checker's reason said."""
    fields = {"T": t.T.tolist(), "radius": t.radius, "margin": t.margin, "q": t.q, "entry": t.entry,
              "euclidean": t.euclidean_entry()}
    doc = document("oracle-tube", setting(gamma=p.gamma, d=p.d, L=p.L), tree, prec=t.params["prec"], extra=fields)
    rep = replay(doc)  # what is proved is what the checker accepts
    if not rep.accepted:
        return dataclasses.replace(t, proved=False, reason=f"the checker rejects the certificate: {rep.reason}")
    return dataclasses.replace(t, certificate=doc, seconds=time.perf_counter() - t0)


@accepts_gamma2
def largest_oracle_tube(*, lam, gamma, d, L, alpha, corners=(0.8, 0.9, 0.95, 0.99), margin=0.01, budget=20_000) -> OracleTube:
    """:func:`oracle_tube` on D = [c, 1]^2 for the corners c of ``corners``, the largest D first: the first proved, else the
    last attempt (its reason)."""
    t = None
    for c in sorted(float(x) for x in corners):
        t = oracle_tube(lam=lam, gamma=gamma, d=d, L=L, alpha=alpha, D=((c, 1.0), (c, 1.0)), margin=margin, budget=budget)
        if t.proved:
            return t
    return t


#: the corners tried by :func:`oracle_tube_cover`, the largest D first
COVER_CORNERS = (0.8, 0.9, 0.95, 0.99, 0.999, 0.9999)


@accepts_gamma2
def oracle_tube_cover(*, lam, gamma, d, L, alpha, ratio=1.05, corners=COVER_CORNERS, margin=0.01,
                      radii=(1e-2, 3e-3, 1e-3, 3e-4, 1e-4, 3e-5, 1e-5), budget=800, narrowest=2e-3, progress=None) -> tuple:
    """Tubes over lam pieces covering ``lam`` = (lo, hi): geometric pieces of ``ratio``, each with the largest D = [c, 1]^2
    of ``corners`` (margin min(``margin``, (1 - c)/2), kappa and nu boxes down to 1/512 of D_m's side) whose tiling
    closes within ``budget`` boxes (the leaves are the replay's cost); a piece no corner closes is halved, down to a
    relative width ``narrowest``. (tubes in lam order, each proved with its certificate; the pieces left uncovered).
    ``progress(tube or None, piece)`` after each piece."""
    lo, hi = V.interval("lam", lam, minimum=0.0, strict_min=True)
    ratio = V.real("ratio", ratio, minimum=1.0, strict_min=True, maximum=2.0)
    edges = [lo]
    while edges[-1] < hi:
        edges.append(min(hi, edges[-1] * ratio))
    todo, tubes, missed = list(zip(edges[:-1], edges[1:]))[::-1], [], []
    while todo:
        a, b = todo.pop()
        t = None
        for c in sorted(float(x) for x in corners):
            m = min(margin, (1 - c) / 2)
            t = oracle_tube(lam=(a, b), gamma=gamma, d=d, L=L, alpha=alpha, D=((c, 1.0), (c, 1.0)), margin=m,
                            min_width=(1 - c + m) / 512, radii=radii, budget=budget)
            if t.proved:
                break
        if t.proved:
            tubes.append(t)
        elif (b - a) / a >= 2 * narrowest:
            todo += [(0.5 * (a + b), b), (a, 0.5 * (a + b))]
        else:
            missed.append((a, b))
        if progress is not None:
            progress(t if t.proved else None, (a, b))
    return tubes, missed
