r"""The flat valley nu = 1 of M as a certified capture region (`docs/MATH.md` §13, "Where PGD goes").

On the edge E = {nu = 1, theta = eta = rho = 0} of M the risk depends on kappa only through erfc-sized
terms (`docs/MATH.md` §17): PGD creeps along it and a float64 run stops anywhere there, unconverged.
A contraction ball cannot cover it (the eigenvalue 1 - alpha mu along E is 1 to float precision). The
*valley tube* classifies such runs by Theorem 5's mechanism made quantitative.

Write a point as (kappa, z), z = (nu - 1, theta, eta, rho), and Phi(kappa, z) = (K(kappa, z), Z(kappa, z)).

**Facts (SymPy, for all parameters; :func:`slr_verify.kernels.landscape.valley_tube_proofs`).** Lemma 4 and
the reduced map of `docs/MATH.md` §9 give Z(kappa, 0) = 0: E is invariant. On E, g_kappa = P (erf(c2 kappa) - 1)
with P > 0, so g_kappa < 0, and the reduced map's kappa' = (kappa + a) / sqrt(1 + a^2 / (1 - kappa^2)),
a = alpha (1 - kappa^2) |g_kappa|, satisfies kappa' > kappa for 0 < kappa < 1 as soon as
alpha |g_kappa| (2 kappa^2 - 1) < 2 kappa (square both sides): h(kappa) = K(kappa, 0) - kappa > 0, continuous.

**Certificate (ball arithmetic).** [kappa_a, 1] is cut into pieces P_j = [a_j, b_j] (bisected where
needed). Piece j has its own norm ||z||_j = max over groups of |(T_j^{-1} z)_I|_2 (T_j: the real eigenbasis
of the transverse Jacobian at the piece's centre on E) and is checked on the box
B_j = [a_j - m, b_j + m] x {||z||_j <= delta} (a margin m > 0 on both sides, capped at kappa = 1). On arb balls:

* q_j >= ||T_j^{-1} D_z Z T_j|| on B_j, q_j < 1 (transverse contraction); q = max q_j;
* C_j >= the dual norm of D_z K T_j on B_j (how far the transverse part can move kappa); C = max C_j;
* h > 0 on E over B_j's kappa range: alpha |g_kappa| (2 kappa^2 - 1) < 2 kappa, with g_kappa < 0 (SymPy);
* the largest kappa step, alpha |g_kappa| + C_j delta, is at most m/2, and every piece is at least m wide;
* the change of norm from piece j to j + 1, c_j >= ||T_{j+1}^{-1} T_j||; Gamma = prod max(c_j, 1).

**Theorem.** If a run's state (kappa_0, z_0) has kappa_0 in P_j0 with Gamma ||z_0||_j0 <= delta and
B = C Gamma ||z_0||_j0 / (1 - q) <= m and kappa_0 - B >= kappa_a, PGD converges to the oracle (1, 1, 0, 0, 0).
Proof: index the run by a piece with hysteresis, moving from j to j + 1 the first time kappa >= b_j + m/2
(never backwards). Since Z(kappa, 0) = 0, the mean-value inequality on the segment {(kappa, s z)} of B_j gives
||z_{t+1}||_j <= q ||z_t||_j, and K(kappa, z) >= K(kappa, 0) - C ||z||_j >= kappa - C ||z||_j. A switch costs at
most the factor c_j, so ||z_t||_j(t) <= Gamma q^t ||z_0||_j0 <= delta, and kappa_t >= kappa_0 - B: kappa never drops
by more than B <= m after any time, so it stays within B_j(t)'s margins (kappa_t <= 1: the run is realisable;
a switch happens below b_j + m/2 + m/2 since the step is at most m/2). So the run stays in the tube and
z_t -> 0 geometrically. Then kappa_{t+1} - kappa_t >= h(kappa_t) - C ||z_t||, with sum_t C ||z_t|| finite: kappa_t
is bounded and decreases in total by at most the tail of a convergent series, so it converges, to some
kappa_inf; if kappa_inf < 1 the increments would tend to h(kappa_inf) > 0, impossible. So kappa_t -> 1, z_t -> 0.
The images of the tube under the symmetries (:data:`slr_verify.landscape.stationary.SYMMETRIES`) cover the valleys of the
other images of the oracle (Phi commutes with them: :func:`slr_verify.kernels.landscape.sigma_equivariance_proofs`).

**When it fails.** If the transverse Jacobian at the oracle has spectral radius >= 1 (alpha above
2 / the largest Riemannian Hessian eigenvalue there: at gamma^2 = 1/2, d = 400, L = 10 and alpha = 4e-3 from
lam ~ 0.17 on), the edge repels: no tube exists, and runs that float64 leaves exactly on M are an
artefact of underflow.
"""
from __future__ import annotations

import math
import time
from dataclasses import dataclass, field

import numpy as np
from flint import arb, arb_mat, ctx

from ..checker.balls import outward, param_balls
from ..checker.contraction import finite, group_norm, max_bound, operator_bound, pgd_jacobian, upper
from ..checker.decide import at_most, below
from ..checker.premises import kernels
from ..kernels.balls import widened
from ..kernels.landscape import fixed_point_kernels, valley_tube_proofs
from ..landscape.overlap_map import pgd_map, real_eigenbasis, realisable_states
from ..model import tiers as T
from ..model import validation as V
from ..model.params import Params, accepts_gamma2
from . import bisection as B
from .certificate import SplitTree

#: transverse radii tried, largest first
DELTAS = tuple(10.0 ** -k for k in np.arange(2.0, 9.5, 0.5))


@dataclass
class ValleyTube:
    """The valley tube (see the module): ``kappa_a``, ``delta``, ``margin`` (m), the pieces ``edges`` (a_j,
    b_j), their bases ``bases`` ((T_j, groups_j)), ``q``, ``C``, ``Gamma``, ``proved``, ``proofs`` (the SymPy
    facts), ``params``, ``seconds``, ``reason``."""

    kappa_a: float
    delta: float
    margin: float
    edges: list
    bases: list
    q: float
    C: float
    Gamma: float
    proved: bool
    proofs: dict
    params: dict
    seconds: float
    reason: str = ""
    extra: dict = field(default_factory=dict)

    def contains(self, ov) -> np.ndarray:
        """Which of the points ``ov`` (5,) or (5, n) satisfy the theorem's entry condition, on arb balls (the float
        states are exact points). ``ValueError`` (naming ``ov``) for a point that is not a realisable overlap tuple
        in R^d (:func:`~.capture._states`): the theorem is about runs of the model, and such a point is none."""
        X = realisable_states(ov, self.params["d"])
        out = np.zeros(X.shape[1], dtype=bool)
        if not self.proved:
            return out
        lo = np.array([a for a, _ in self.edges])
        with ctx.workprec(self.params.get("prec", 128)):
            q, C, G = arb(self.q), arb(self.C), arb(self.Gamma)
            for i in np.flatnonzero((X[0] >= self.kappa_a) & (X[0] <= 1) & (np.abs(X[1] - 1) < 1e-2)):
                j = int(np.searchsorted(lo, X[0, i], side="right") - 1)
                T, groups = self.bases[j]
                z = arb_mat([[arb(float(X[1, i])) - 1]] + [[arb(float(X[k, i]))] for k in (2, 3, 4)])
                n = group_norm(arb_mat(T.tolist()).solve(z), groups)
                B = C * G * n / (1 - q)
                out[i] = bool(G * n <= self.delta) and bool(B <= self.margin) and bool(arb(float(X[0, i])) - B >= self.kappa_a)
        return out

    def as_dict(self) -> dict:
        return {"kind": "valley tube of the edge nu = 1 of M (Theorem 5 made quantitative)",
                "tier": T.ENCLOSED if self.proved else T.NOT_PROVED, "kappa_a": self.kappa_a, "delta": self.delta,
                "margin": self.margin, "q": self.q, "C": self.C, "Gamma": self.Gamma, "pieces": len(self.edges),
                "symbolic_facts": all(self.proofs.values()), "seconds": self.seconds, "reason": self.reason}


def tube_piece_bounds(a, b, m, T, groups, delta, par, alpha):
    """(q, C, edge_ok, step) on [a - m, min(b + m, 1)] x {||T^{-1} z|| <= delta}, z = (nu - 1, theta, eta, rho)
    (`docs/MATH.md` §13): q >= ||T^{-1} D_z Z T||, C >= the dual norm of D_z K T, ``edge_ok``: h > 0 on the edge
    (alpha |g_kappa| (2 kappa^2 - 1) < 2 kappa; g_kappa < 0 by the premise ``edge-invariance``), ``step`` >= the
    largest kappa step alpha |g_kappa| + C delta; balls (q, C, step not finite where an entry is not)."""
    A, Tm = arb(alpha), arb_mat([[arb(x) for x in row] for row in T])
    Zb = Tm * arb_mat([[arb(0, delta)] for _ in range(4)])
    lo, top = arb(a) - arb(m), arb(b) + arb(m)
    kap = lo.union(top if below(top, 1) else arb(1))  # kappa <= 1 on the sphere: the box ends at min(b + m, 1)
    D = pgd_jacobian([kap, 1 + Zb[0, 0], Zb[1, 0], Zb[2, 0], Zb[3, 0]], par, A)
    M = Tm.inv() * arb_mat([[D[i, j] for j in range(1, 5)] for i in range(1, 5)]) * Tm
    R = arb_mat([[D[0, j] for j in range(1, 5)]]) * Tm
    if not (finite(M, 4, 4) and finite(R, 1, 4)):
        inf = arb("inf")
        return inf, inf, False, inf
    q, C = operator_bound(M, groups, groups), operator_bound(R, ((0,),), groups)
    gk = kernels("pgd-map").grad_hess(kap, arb(1), arb(0), arb(0), arb(0), **par)[0]
    sgn = 2 * kap * kap - 1
    edge_ok = at_most(sgn, 0) or below(A * abs(gk) * sgn, 2 * lo)
    return q, C, edge_ok, upper(upper(A * abs(gk)) + C * arb(delta))


def transition_bound(T0, groups0, T1, groups1) -> arb:
    """A ball >= max(1, the operator norm of T1^{-1} T0 from the groups0 norm to the groups1 norm): how much a
    vector's norm can grow when the norm changes from one piece's basis to the next."""
    Mt = arb_mat([[arb(x) for x in row] for row in T1]).solve(arb_mat([[arb(x) for x in row] for row in T0]))
    return max_bound([arb(1), operator_bound(Mt, groups1, groups0)])


def _basis(k, kw, alpha):
    _, J = pgd_map(np.array([k, 1.0, 0, 0, 0]), (1,) * 5, alpha=alpha, **kw)
    T, groups, w = real_eigenbasis(J[1:, 1:])
    return T, groups, float(np.max(np.abs(w)))


def _attempt(ka, delta, m, kw, alpha, par, budget):
    """Adaptive pieces of [ka, 1] for one (delta, m): (pieces [(a, b, T, groups, q, C)], None) or (None, reason)."""
    tree, done = SplitTree(((ka, 1.0),), names=("kappa",)), []

    def step(i, box):
        (a, b), = box
        T, groups, rho = _basis(0.5 * (a + b), kw, alpha)
        if rho >= 1:
            return B.Fail(f"the transverse Jacobian at kappa = {0.5 * (a + b):.6g} on the edge has spectral radius "
                          f"{rho:.6g} >= 1")
        q, C, e, kstep = tube_piece_bounds(a, b, m, T, groups, delta, par, alpha)
        # accept within a quarter of the float gap to 1 (a piece that only just has q < 1 would make the entry condition,
        # which divides by 1 - q, useless); narrow pieces accept any q < 1
        target = 1 - 0.25 * (1 - rho) if (b - a) / 2 >= m else 1.0
        if bool(q < target) and e and bool(kstep <= arb(m) / 2):
            done.append((a, b, T, groups, outward(q)[1], outward(C)[1]))
            return B.Leaf({})
        step_up, q_up = outward(kstep)[1], outward(q)[1]
        if step_up > m / 2 and q_up < 1:
            return B.Fail(f"kappa step {step_up:.3g} > m/2 on [{a:.6g}, {b:.6g}]")
        if (b - a) / 2 < m:
            return B.Fail(f"piece [{a:.8g}, {b:.8g}] narrower than 2 m without proof (q = {q_up:.6g}, h > 0 shown: {e})")
        return B.Split(0)

    run = B.run(tree, step, budget=budget)
    if not run.proved:
        return None, run.failure if run.status != "budget" else f"more than {budget} pieces"
    done.sort(key=lambda t: t[0])
    return done, None


@accepts_gamma2
def valley_tube(*, lam, gamma, d, L, alpha, kappa_a=(0.5, 0.8), prec=128, deltas=(1e-6, 1e-9), budget=3000) -> ValleyTube:
    """The valley tube of the oracle's edge (see the module): the first (``kappa_a``, ``delta``) pair, lowest
    kappa_a first and largest delta first, for which the certificate holds with at most ``budget`` pieces.
    ``proved`` False with the reason otherwise."""
    p = Params(lam=lam, gamma=gamma, eps=0.0, d=d, L=L)
    alpha = V.real("alpha", alpha, minimum=0.0, strict_min=True)
    budget = V.integer("budget", budget, 1, 10**6, why="kappa pieces of the tube")
    kw = {"lam": p.lam, "gamma": p.gamma, "d": p.d, "L": p.L}
    prm = dict(kw, alpha=alpha, prec=int(prec))
    t0 = time.perf_counter()
    proofs = valley_tube_proofs()

    def fail(why):
        return ValleyTube(math.nan, 0.0, 0.0, [], [], math.inf, math.inf, math.inf, False, proofs, prm, time.perf_counter() - t0,
                          why)

    if not all(proofs.values()):
        return fail(f"a SymPy fact is not proved: {proofs}")
    rho = _basis(1.0, kw, alpha)[2]
    if rho >= 1:
        return fail(f"the edge repels: the transverse Jacobian at the oracle has spectral radius {rho:.6g} >= 1 "
                    f"(alpha above 2 / the largest Riemannian Hessian eigenvalue there)")
    par = dict(lam=widened(p.lam), **param_balls(p.gamma, 0.0, p.d, p.L).kw())  # PGD does not depend on eps: 0
    K = fixed_point_kernels()
    last = "no kappa_a"
    with ctx.workprec(int(prec)):
        for ka in sorted(float(x) for x in kappa_a):
            if not 0 < ka < 1:
                raise ValueError(f"kappa_a must lie in (0, 1), got {ka!r}")
            # the margin: four times the largest float kappa step on the edge from ka - 1% on (at least 1e-12)
            ks = np.linspace(0.99 * ka, 1.0, 2001)
            gk = np.array(K.risk_f64(ks, 1.0, 0.0, 0.0, 0.0, p.lam, p.gamma, 0.0, p.d, p.L)[1], dtype=float)
            for delta in sorted((float(x) for x in deltas), reverse=True):
                # the margin: the float kappa step on the edge from 0.99 ka on, and delta (C is small), with room
                m = min(max(4 * alpha * float(np.max(np.abs(gk))), 8 * delta, 1e-12), 0.01 * ka)
                pieces, why = _attempt(ka, delta, m, kw, alpha, par, budget)
                if pieces is None:
                    last = f"kappa_a = {ka}, delta = {delta:g}, m = {m:.3g}: {why}"
                    continue
                Gamma = arb(1)
                for (_, _, T0, g0, _, _), (_, _, T1, g1, _, _) in zip(pieces[:-1], pieces[1:]):
                    Gamma *= transition_bound(T0, g0, T1, g1)
                Gamma = outward(Gamma)[1]
                q = max(t[4] for t in pieces)
                C = max(t[5] for t in pieces)
                return ValleyTube(ka, delta, m, [(t[0], t[1]) for t in pieces], [(t[2], t[3]) for t in pieces], q, C, Gamma,
                                  True, proofs, prm, time.perf_counter() - t0)
    return fail(f"no tube proved; last attempt: {last}")
