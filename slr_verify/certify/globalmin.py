r"""Certified global minimisation of R_lam through the profile (`docs/MATH.md` §§14 and 17).

The profile m(kappa, eta; lam) = min over unit v of R_lam(k, v) carries the global minimum of R_lam on
S^{d-1} x S^{d-1}; the quarter disk kappa, eta >= 0 carries everything. Every coefficient of the TRS
depends on k through kappa only (p_theta, p_rho through a factor eta), and the dual bound has a closed
form (:func:`slr_verify.symbolic.profile_dual.dual_bound`, Woodbury on H - mu I = beta I + P M P^T,
P = [k*, k]): for any mu with beta = a0 - mu > 0, Delta > 0, T > 0 (then H - mu I is positive definite),

    LB_mu(kappa, eta) = c + mu - g^T (H - mu I)^{-1} g <= m(kappa, eta)      (weak duality).

Ball arithmetic runs in two stages on first-order Taylor models (:class:`slr_verify.kernels.taylor.TaylorModel`):
over a (kappa, lam) box each coefficient is its value and gradient at the box's centre (Taylor arithmetic at a point,
python-flint ``arb_series``: sharp) plus a remainder 1/2 h^T (d^2 c)(xi) h enclosed by one series of length 3 along the
segment c + s h (the checker's :meth:`~slr_verify.certify.replay_profile.SettingBalls.coefficient_models`, so that
a box the search passes is a box the checker passes); the algebra of the dual bound then runs on the models, so the
first-order parts of the near-cancellations (a_tt a_rr ~ a_tr^2, 1e3-fold at lam ~ 0.85, d = 400) cancel exactly
and only second-order terms widen the enclosure.
No derivative is typed or generated separately: the series run through the same generated kernels.

**The valley certificate** (inside W). At fixed kappa and mu, LB_mu is *exactly* quadratic in eta
(SymPy, :func:`slr_verify.symbolic.profile_dual.dual_proofs`): LB = A_0 + Q eta^2. With mu = mu_v(kappa) =
a0 + p_nu/2 (the multiplier of v* on eta = 0), LB(kappa, 0) = m(kappa, 0) = R(kappa, 1, 0, 0, 0), which
decreases strictly in kappa (:func:`slr_verify.kernels.profile.valley_proofs`). So wherever
Q(kappa, lam) > 0 and beta, Delta, T > 0 at mu_v, **every** point of the line {kappa} x [0, sqrt(1 - kappa^2)]
has m >= R(kappa, 1, 0, 0, 0) >= R(k*, v*), with equality only at k = k*. A one-dimensional branch and
bound over kappa in [kappa0, 1] x lam (Taylor models of Q) certifies it; no value bound ever enters
the flat valley (m - R(k*, v*) is 1e-15 .. 1e-44 there).

**The value test** (the rest, kappa <= kappa0). Along the line at kappa write t = eta^2 / (1 - kappa^2) in [0, 1]
(t = 0: eta = 0; t = 1: the circle r = 0). Splitting g into its part in span(k*, k) and the rest gives the bound as
an affine function of t, LB = (1 - t) L0 + t L1, L0 = c + a0 - beta - p_nu^2/(4 beta),
L1 = c + a0 - beta - u'^T adj(N) u' / Delta, N = beta G_P + G_P M G_P
(:func:`slr_verify.symbolic.profile_dual.dual_line_algebra`, SymPy-proved): both terms sign-structured, with none of the
O(1) -> O(beta) cancellation of the single fraction over beta Delta (near kappa = 0 the line needs beta ~ 1e-4 ..
1e-7: the hard case at k = v*). On a box K x [t0, t1] x Lam one float beta serves, so mu = a0(kappa, lam) - beta
follows a0 over the box (weak duality holds pointwise for any multiplier; beta carries no enclosure width). Delta, T > 0
and F_j = (1 - t_j) L0 + t_j L1 - U(lam) > 0 at the two ends are certified on the Taylor models over the (kappa, lam)
box (U as a model in lam: value, slope, and the slope's variation over the box). Affine in t, the two ends cover the
box. beta maximises a float estimate of the centred bound (:func:`_choose_beta`) over a fixed grid and candidates from
the float TRS at the box's centre (:func:`_trs_betas`: the dual function peaks within a few per cent of the optimal
multiplier, narrower than any fixed grid). Boxes split in kappa or lam (for the end that fails, the axis with the
larger linear term, or the wider one where the second-order remainder dominates) or in t (when one beta cannot serve
both ends, or when the bound fails at the box's centre already). The split kappa0 between the two certificates is
chosen per lam piece (:func:`_kappa0`) 0.035 above the float edge of the valley test.
U is the oracle's risk (inside W) or the certified risk of an explicit witness pair (outside W).

Inside W the two prove that (k*, v*) is the unique global minimiser up to the symmetries for every lam
of the interval. Outside W (a point lam) the value test against the witness leaves small boxes around
the global minimiser: their union encloses it, and their lower bounds with the witness's risk enclose
the global minimum.

**Certificates.** Every proof writes a certificate (`docs/certificates.md`): the split tree, each leaf's test and
multiplier, the premises. :func:`global_minimiser` has it replayed by the independent checker
(:func:`slr_verify.certify.replay.replay`), and what it reports proved is what the checker accepted. Measured box counts
and times: `docs/findings.md`, `benchmarks/results/`.
"""
from __future__ import annotations

import math
import os
import sys
import time
from dataclasses import dataclass, field
from typing import NamedTuple

import numpy as np
from flint import arb, ctx

from ..kernels.balls import outward, uniform_pieces
from ..kernels.profile import oracle_arb, oracle_f64, valley_proofs
from ..landscape.float_minimiser import angle_chart, minimise_profile
from ..landscape.trs import profile
from ..model import tiers as T
from ..model import validation as V
from ..model.params import Params, accepts_gamma2
from . import certificate as C
from .replay import replay
from .replay_base import Rejected
from .replay_profile import SettingBalls, centre_radius, edge_bound, pair_risk

__all__ = ["GlobalCertificate", "global_minimiser"]

@dataclass
class GlobalCertificate:
    """The outcome: ``proved``; ``reason``; ``risk``: (lo, hi) enclosing the global minimum of R_lam for
    every lam of the interval; ``overlaps``: per lam piece, enclosures ((lo, hi)) of the minimiser's
    kappa, eta (kappa, eta >= 0 representative) and the angles, with the float minimiser's five overlaps;
    ``boxes``: boxes evaluated; ``seconds``; ``oracle``: True if the certificate is that the oracle is
    the unique global minimiser; ``details``; ``certificate``: the proof's document (`docs/certificates.md`, None
    unless proved); ``replay``: the checker's verdict on it (:func:`slr_verify.certify.replay.replay`), whose
    conclusion and values are what ``proved``, ``risk`` and ``overlaps`` report."""

    proved: bool
    reason: str
    risk: tuple
    overlaps: list
    boxes: int
    seconds: float
    lam: tuple
    oracle: bool
    details: dict = field(default_factory=dict)
    certificate: dict | None = None
    replay: object = None

    @property
    def tier(self) -> str:
        """What ``proved`` rests on (`slr_verify.model.tiers`)."""
        return T.certified(self.proved)


class _Evaluator:
    """The parameters (gamma, eps, d, L) as balls and the kernels of the dual bound
    (:func:`slr_verify.kernels.profile.dual_kernels`)."""

    def __init__(self, gamma, eps, d, L):
        self.gamma, self.eps, self.d, self.L = float(gamma), float(eps), int(d), int(L)
        self.S = SettingBalls(gamma, eps, d, L)
        self.P = self.S.P
        self.G, self.E, self.D, self.Lb = self.P
        self.kw = {"gamma": self.gamma, "eps": self.eps, "d": self.d, "L": self.L}
        self.K = self.S.K
        self.count = 0


class _Box:
    """A box (kappa, t, lam) of the search; ``node``: its id in the :class:`~.certificate.SplitTree` ``tree``."""

    __slots__ = ("x", "y", "lam", "node", "tree")

    def __init__(self, x, y, lam, node=None, tree=None):
        self.x, self.y, self.lam, self.node, self.tree = x, y, lam, node, tree

    @classmethod
    def of(cls, tree, i):
        return cls(*tree.boxes[i], node=i, tree=tree)

    def ivs(self):
        return [self.x, self.y, self.lam]

    def split(self, i):
        if self.tree is not None:
            return [_Box.of(self.tree, j) for j in self.tree.split(self.node, i)]
        iv = self.ivs()[i]
        m = 0.5 * (iv[0] + iv[1])
        out = []
        for part in ((iv[0], m), (m, iv[1])):
            ivs = self.ivs()
            ivs[i] = part
            out.append(_Box(*ivs))
        return out

    def close(self, data):
        """Record the box as a leaf of its tree (``data``: the test and its multiplier)."""
        if self.tree is not None:
            self.tree.leaf(self.node, data)

    def centre(self):
        return tuple(0.5 * (x[0] + x[1]) for x in self.ivs())

    def rad(self):
        return tuple(0.5 * (x[1] - x[0]) for x in self.ivs())

    def width(self):
        return max(self.x[1] - self.x[0], self.y[1] - self.y[0])


def _choose_beta(ev, box, u):
    """:func:`_choose_beta_float` with float64's warnings off: its probes step off the box (kappa - h < 0 at the
    disk's centre), where a coefficient is NaN; a NaN estimate fails the positive-definiteness screen and is never
    chosen (a float choice only: nothing rigorous rests on it)."""
    with np.errstate(invalid="ignore", divide="ignore", over="ignore"):
        return _choose_beta_float(ev, box, u)


def _choose_beta_float(ev, box, u):
    """A float beta = a0 - mu for the box (kappa, t, lam) (a choice only: the certificate checks Delta, T > 0 on the
    box). Among the betas of a grid with Delta, T > 0 at the box's corners and the points below (and at 0.9 beta, a
    margin), it maximises a float estimate of the centred form's lower bound, min over the ends t_j of
    F_j(c) - |dF_j/dkappa| r_kappa - |dF_j/dlam| r_lam, the slopes by central differences at the box's centre and
    edges (``u``: U(lam) in float64). The best beta at the centre alone can be ~1e-7 near kappa = 0, where
    p_nu^2 / (4 beta) then varies too fast over any box. Also returns whether one beta cannot serve both ends
    though each end alone has a beta with a positive estimate (then split t)."""
    (k0, k1), (t0, t1), (l0, l1) = box.ivs()
    kc, lc, rk, rl = 0.5 * (k0 + k1), 0.5 * (l0 + l1), 0.5 * (k1 - k0), 0.5 * (l1 - l0)
    hk, hl = 1e-6 * max(kc, 1e-3), 1e-6 * lc
    # the centre, central differences in kappa at k0, kc, k1 and in lam at l0, lc, l1 (slopes at the box's edges
    # too: near kappa = 0 the slope of p_nu^2/(4 beta) vanishes at the centre's side only), the four corners
    kp = np.array([kc] + [k + e * hk for k in (k0, kc, k1) for e in (1, -1)] + [kc] * 6 + [k0, k0, k1, k1])[:, None]
    lp = np.array([lc] * 7 + [x + e * hl for x in (l0, lc, l1) for e in (1, -1)] + [l0, l1, l0, l1])[:, None]
    co = [np.asarray(x, float) for x in ev.K.coef_f64(kp, lp, ev.gamma, ev.eps, ev.d, ev.L)]
    co.append(np.asarray(ev.K.det_m_f64(*co)[0], float))
    u = np.broadcast_to(np.asarray(u(lp), float), lp.shape)
    ts = np.array([t0, t1])
    y = np.concatenate([np.geomspace(1e-14, 1e2, 97), _trs_betas(ev, kc, lc, ts, co[0][0, 0])])

    def pd(b):
        _, _, Delta, T = (np.asarray(x, float) for x in ev.K.dual_line_f64(*co, kp, b[None, :]))
        return np.all((Delta > 0) & (T > 0), axis=0)

    def estimates(y):
        L0, L1 = (np.asarray(x, float) for x in ev.K.dual_line_f64(*co, kp, y[None, :])[:2])
        est = []
        for t in ts:
            F = (1 - t) * L0 + t * L1 - u
            dk = np.max(np.abs(F[1:7:2] - F[2:7:2]), axis=0) / (2 * hk)
            dl = np.max(np.abs(F[7:13:2] - F[8:13:2]), axis=0) / (2 * hl)
            est.append(F[0] - dk * rk - dl * rl)
        return np.where(pd(y) & pd(0.9 * y), np.array(est), -np.inf)

    est = estimates(y)
    joint = np.min(est, axis=0)
    b = float(y[int(np.argmax(joint))])
    split_t = bool(np.max(joint) <= 0 and np.all(np.max(est, axis=1) > 0))
    # refine around the best candidate (geometric grids, 10 times finer each round): near the hard case the dual
    # function peaks within ~1e-6 relative of its maximiser
    best, rho = float(np.max(joint)), 1.05
    for _ in range(6):
        z = b * rho ** np.linspace(-1, 1, 21)
        jz = np.min(estimates(z), axis=0)
        if np.max(jz) > best:
            best, b = float(np.max(jz)), float(z[int(np.argmax(jz))])
        rho = rho ** 0.1
    return b, split_t


class _Outcome(NamedTuple):
    """A box's value test: ``passed``; ``F``: the enclosures of F_j over the box (or None); ``axis`` to split;
    ``beta``: the multiplier tried; ``pd``: beta, Delta, T > 0 certified (H - mu I positive definite: only then is
    the dual bound a lower bound); ``ends``: the enclosures of LB at the two ends (the bound itself)."""

    passed: bool
    F: list | None
    axis: int | None
    beta: float = math.nan
    pd: bool = False
    ends: list | None = None


def _value_test(ev, box, U, tol=0.0):
    """The value test on a box (kappa, t, lam), eta^2 = t (1 - kappa^2) (t in [0, 1] spans the quarter disk's
    line at kappa): with one float beta (mu = a0(kappa, lam) - beta follows a0 over the box; weak duality holds
    pointwise), certify Delta, T > 0 on the (kappa, lam) box and F_j = (1 - t_j) L0 + t_j L1 - U(lam) > 0 at both
    ends t_j, on Taylor models of the coefficients over the box (the checker's coefficient models). LB is affine in t, so the two
    ends cover the box. Returns an :class:`_Outcome` (the axis to split: t where the failing end's bound is below
    -``tol`` at the box's centre, where no split in kappa or lam can help). The models are the checker's
    (:meth:`slr_verify.certify.replay.SettingBalls.coefficient_models`): a passed box replays."""
    ev.count += 1
    (k0, k1), (t0, t1), (l0, l1) = box.ivs()
    (_kc, rk), (lc, rl) = centre_radius(k0, k1), centre_radius(l0, l1)
    b = math.nan
    try:
        b, split_t = _choose_beta(ev, box, U.f64)
        K, Lam = (k0, k1), (l0, l1)
        co = ev.S.coefficient_models(K, Lam)
        L0, L1, Delta, T = ev.K.dual_line(*co, ev.S.kappa_model(K, Lam), arb(b))
        ends = [(1 - arb(t)) * L0 + arb(t) * L1 for t in (t0, t1)]
        F = [e - U.model(Lam, co[0].r) for e in ends]
    except (ValueError, ZeroDivisionError):
        return _Outcome(False, None, 0 if rk >= rl else 2, b)
    Fs = [f.range() for f in F]
    pd = bool(b > 0 and Delta.range() > 0 and T.range() > 0)
    out = dict(beta=b, pd=pd, ends=[e.range() for e in ends])
    if pd and all(f > 0 for f in Fs):
        return _Outcome(True, Fs, None, **out)
    if (split_t and t1 - t0 > 1e-9) or (rk == 0 and rl == 0):
        return _Outcome(False, Fs, 1, **out)  # one multiplier cannot serve both ends
    worst = F[int(np.argmin([float(f.lower()) for f in Fs]))]  # split for the end that fails
    if float(worst.v.upper()) < -tol and t1 - t0 > 1e-6:
        # the bound fails at the box's centre already: no split in kappa or lam helps this multiplier, a shorter
        # line in t gets its own
        return _Outcome(False, Fs, 1, **out)
    return _Outcome(False, Fs, _split_axis(worst, rk, rl, lc), **out)


def _trs_betas(ev, kappa, lam, ts, a0):
    """Candidate betas from the float TRS at the box's centre: beta_j = a0 - mu_j at the two ends t_j (the optimal
    multipliers there), points between them, and a fine geometric neighbourhood of each (the dual function can peak
    within a few per cent of beta_j, narrower than any fixed grid)."""
    eta = np.sqrt(np.clip(ts * (1 - kappa**2), 0.0, None))
    mu = profile(np.full(2, kappa), eta, lam=lam, **ev.kw).mu
    b = a0 - np.asarray(mu, float)
    b = b[np.isfinite(b) & (b > 0)]
    if b.size == 0:
        return np.empty(0)
    near = b[:, None] * (1 + np.array([-3e-2, -1e-2, -3e-3, -1e-3, 0.0, 1e-3, 3e-3, 1e-2, 3e-2]))[None, :]
    return np.concatenate([near.ravel(), np.linspace(b.min(), b.max(), 9)])


def _split_axis(tm, rk, rl, lc):
    """The axis to split (0: kappa, 2: lam; a point axis never): the one with the larger linear term |g_i| r_i of
    ``tm``, or, where the second-order remainder dominates, the one wider relative to its scale (1 for kappa, lam
    for lam)."""
    if rl == 0 or rk == 0:
        return 0 if rl == 0 else 2
    (tk, tl), R = tm.terms()
    if R > tk + tl:
        return 0 if rk >= rl / lc else 2
    return 0 if tk >= tl else 2


def _strip_test(ev, box):
    """The valley certificate on a box of (kappa, -, lam): Q > 0 and beta, Delta, T > 0 at mu = mu_v(kappa), on
    Taylor models of the coefficients over the box (the checker's). Returns (passed, the axis to split)."""
    ev.count += 1
    (k0, k1), _, (l0, l1) = box.ivs()
    (_kc, rk), (lc, rl) = centre_radius(k0, k1), centre_radius(l0, l1)
    try:
        co = ev.S.coefficient_models((k0, k1), (l0, l1))
        out = ev.K.valley(*co[:-1], ev.S.kappa_model((k0, k1), (l0, l1)))
    except (ValueError, ZeroDivisionError):
        return False, 0 if rk >= rl else 2
    ok = [o.range() > 0 for o in out]
    if all(ok):
        box.close({"test": "valley"})
        return True, None
    if all(ok[1:]) and k1 > 0.5 and out[0].range() + edge_bound(ev.S, (k0, k1), (l0, l1)) > 0:
        box.close({"test": "valley-edge"})  # Q < 0 near k*, compensated by the slope of R along the edge nu = 1
        return True, None
    return False, _split_axis(out[ok.index(False)], rk, rl, lc)


class _Progress:
    def __init__(self, progress, desc):
        self.bar = None
        if progress is not None:
            from tqdm.auto import tqdm

            self.bar = tqdm(desc=desc, file=progress if progress is not True else sys.stderr, mininterval=1.0, unit="box")

    def update(self, n=1):
        if self.bar is not None:
            self.bar.update(n)

    def close(self):
        if self.bar is not None:
            self.bar.close()


def _bisect(boxes, test, min_width, deadline, max_boxes, bar, skip=None, axes=(0, 1, 2)):
    """Process boxes until each passes ``test`` (-> (passed, axis to split)) or is skipped, or a box
    narrower than ``min_width`` along ``axes`` (the axes the test splits: the valley's boxes never split in t)
    fails, or the budget runs out. Returns (failed boxes, count, status)."""
    stack, failed, n = list(boxes), [], 0
    while stack:
        if n >= max_boxes or time.time() > deadline:
            return stack + failed, n, "budget"
        box = stack.pop()
        if skip is not None and skip(box):
            continue
        n += 1
        bar.update()
        ok, axis = test(box)
        if ok:
            continue
        rad = box.rad()
        if max(rad[i] for i in axes) * 2 < min_width:
            failed.append(box)
            continue
        try:
            stack.extend(box.split(axis))
        except ValueError:  # the box is one ulp wide along that axis: it cannot be split
            failed.append(box)
    return failed, n, "done"


class _Risk:
    """U(lam) -> (value, d/dlam) as balls; ``f64``: the value in float64 (for choices only); ``model(Lam, r)``: U over
    the lam box as the checker evaluates it (a Taylor model, or a ball for a constant witness)."""

    def __init__(self, arb_fn, f64, model):
        self.arb_fn, self.f64, self.model, self.memo = arb_fn, f64, model, {}

    def __call__(self, lam):
        key = (lam.mid().man_exp(), lam.rad().man_exp())  # exact; many boxes share a lam interval
        if key not in self.memo:
            self.memo[key] = self.arb_fn(lam)
        return self.memo[key]


def _oracle_U(ev):
    """The oracle's risk R(k*, v*)(lam) and its slope."""
    return _Risk(lambda lam: tuple(oracle_arb()(lam, ev.G, ev.E, ev.D, ev.Lb)),
                 lambda lam: oracle_f64()(lam, ev.gamma, ev.eps, ev.d, ev.L)[0], ev.S.oracle_model)


@accepts_gamma2
def global_minimiser(*, lam, gamma, eps=0.0, d, L, kappa0=None, prec=64, max_boxes=2_000_000, min_width=1e-9,
                     time_limit=900.0, risk_tol=1e-13, progress=None, check=True, workers=1) -> GlobalCertificate:
    """Certified global minimisation of R_lam over S^{d-1} x S^{d-1} for every lam of ``lam = (lo, hi)``
    (see the module). ``kappa0``: the valley certificate covers kappa in [kappa0, 1], the value test the rest (None:
    chosen per lam piece by :func:`_kappa0`); ``max_boxes``, ``time_limit`` (seconds), ``min_width``: the budget;
    ``risk_tol``: outside W, a box around the minimiser is kept once its lower bound is within ``risk_tol`` of the witness
    (a first pass at max(risk_tol, 1e-10), then the kept boxes at ``risk_tol``: see :func:`_enclose`);
    ``progress``: a file (or True for stderr) for a tqdm progress line; ``check``: replay the certificate with the
    independent checker (:func:`slr_verify.certify.replay.replay`); ``proved`` then requires its acceptance and the
    enclosures reported are the checker's; ``workers``: processes sharing the lam pieces of an oracle proof (the
    certificate is the same tree whatever the number)."""
    lo, hi = V.interval("lam", lam, minimum=0.0, strict_min=True, degenerate=True)
    Params(lam=lo, gamma=gamma, eps=eps, d=d, L=L)
    Params(lam=hi, gamma=gamma, eps=eps, d=d, L=L)
    if kappa0 is not None:
        kappa0 = V.real("kappa0", kappa0, minimum=0.0, strict_min=True, maximum=1.0)
        if kappa0 == 1.0:
            raise ValueError("kappa0 must be < 1 (the valley certificate covers [kappa0, 1]), got 1.0")
    if not (int(prec) >= 53):
        raise ValueError(f"prec must be an integer >= 53 (bits), got {prec!r}")
    max_boxes = V.integer("max_boxes", max_boxes, 1)
    time_limit = V.real("time_limit", time_limit, minimum=0.0, strict_min=True)
    min_width = V.real("min_width", min_width, minimum=0.0, strict_min=True)
    risk_tol = V.real("risk_tol", risk_tol, minimum=0.0, strict_min=True)
    if int(d) < 4:
        raise ValueError(f"d must be >= 4 for the profile's four-dimensional TRS, got {d!r}")
    if not isinstance(check, bool):
        raise ValueError(f"check must be True or False, got {check!r}")
    workers = V.integer("workers", workers, 1, 64, why="processes sharing the lam pieces")
    t0 = time.time()
    deadline = t0 + float(time_limit)
    old = ctx.prec
    ctx.prec = int(prec)
    bar = _Progress(progress, "global minimiser")
    try:
        ev = _Evaluator(gamma, eps, d, L)
        mids = [lo, hi, 0.5 * (lo + hi)]
        at = [minimise_profile(lam=x, **ev.kw) for x in mids]
        if all(g.is_oracle for g in at):
            out = _prove_oracle(ev, lo, hi, kappa0, int(max_boxes), float(min_width), deadline, t0, bar, workers)
        else:
            out = _enclose(ev, lo, hi, at, int(max_boxes), float(min_width), float(risk_tol), deadline, t0, bar)
        if check and out.certificate is not None:
            _replayed(out)
        return out
    finally:
        ctx.prec = old
        bar.close()


def _replayed(out):
    """Replace the search's verdict and enclosures by the checker's."""
    r = out.replay = replay(out.certificate)
    out.proved = bool(out.proved and r.accepted)
    if not r.accepted:
        out.reason = f"the search closed but its certificate was {r.reason}"
    elif "risk" in r.values:
        out.risk = r.values["risk"]
        out.overlaps[0]["overlaps"].update({k: r.values[k] for k in ("kappa", "eta", "t", "r")})


def _kappa0(ev, lo, hi, margin=0.035):
    """A float choice of the split between the valley certificate and the value test over lam in [lo, hi]: ``margin``
    above the largest kappa at which the float valley test (Q > 0, beta, Delta, T > 0 at mu_v) fails on a grid (the
    edge moves from kappa ~ 0.14 at lam = 0.1 to ~ 0.07 at lam = 0.9 at Figure 4b's setting). Close to the edge Q is
    small and the valley needs small boxes; far above it the value test meets the flat valley (m - R(k*, v*) ~ 6e-4 at
    kappa = 0.2, lam = 0.85)."""
    ks = np.linspace(0.0, 1.0, 2001)
    edge = 0.0
    with np.errstate(invalid="ignore", divide="ignore", over="ignore"):
        for lam in np.linspace(lo, hi, 9):
            co = [np.broadcast_to(np.asarray(x, float), ks.shape) for x in ev.K.coef_f64(ks, lam, ev.gamma, ev.eps, ev.d, ev.L)]
            ok = np.all([np.asarray(x, float) > 0 for x in ev.K.valley_f64(*co, ks)], axis=0)
            # the edge of the failures from kappa = 0; near kappa = 1 the float test fails at a pitchfork's end of W
            # (Q -> 0 at k*), where the valley's boxes split finely instead
            bad = ks[~ok & (ks < 0.5)]
            edge = max(edge, float(bad.max()) if bad.size else 0.0)
    return min(0.5, edge + margin)


def _prove_piece(setting, a, b, kappa0, max_boxes, min_width, seconds, prec):
    """One lam piece [a, b] of :func:`_prove_oracle` on its own split tree (run in this process or in a worker):
    {"ok", "reason", "nodes", "leaves" (the serialised subtree), "boxes", "strip_boxes", "value_boxes", "kappa0"}."""
    old = ctx.prec
    ctx.prec = int(prec)
    try:
        ev = _Evaluator(*setting)
        k = kappa0 if kappa0 is not None else _kappa0(ev, a, b)
        deadline, bar = time.time() + seconds, _Progress(None, "")

        tree = C.SplitTree(((0.0, 1.0), (0.0, 1.0), (a, b)))
        low, high = tree.split(tree.root, 0, k)
        strip = [_Box.of(tree, i) for i in tree.grid(high, 0, np.linspace(k, 1, 9)[1:-1])]
        rest = [_Box.of(tree, j) for i in tree.grid(low, 0, np.linspace(0, k, 5)[1:-1])
                for j in tree.grid(i, 1, np.linspace(0, 1, 5)[1:-1])]
        out = {"ok": False, "kappa0": (a, b, k), "nodes": None, "leaves": None}
        # 1. the valley certificate on kappa in [kappa0, 1] (it covers the whole line at kappa: every t)
        failed, n1, st = _bisect(strip, lambda bx: _strip_test(ev, bx), min_width, deadline, max_boxes, bar, axes=(0, 2))
        out.update(strip_boxes=n1, value_boxes=0, boxes=ev.count)
        if failed:
            f = failed[0]
            out["reason"] = (f"valley certificate not proved ({st}; {len(failed)} boxes left, e.g. kappa {f.x}, "
                             f"lam {f.lam})")
            return out
        # 2. kappa <= kappa0: the value test against the oracle's risk, on the lines t = eta^2 / (1 - kappa^2)
        U = _oracle_U(ev)
        failed, n2, st = _bisect(rest, lambda bx: _value_ok(ev, bx, U), min_width, deadline, max_boxes - n1, bar)
        out.update(value_boxes=n2, boxes=ev.count)
        if failed:
            f = failed[0]
            out["reason"] = (f"value test failed ({st}; {len(failed)} boxes left, e.g. kappa {f.x}, "
                             f"t = eta^2/(1 - kappa^2) {f.y}, lam {f.lam})")
            return out
        out["nodes"], out["leaves"] = tree.serialise()
        out.update(ok=True, reason="")
        return out
    finally:
        ctx.prec = old


def _watch_parent():
    """A pool worker's initializer: a daemon thread that ends the worker once its parent is gone (killed: the worker
    is re-parented), busy or idle, rather than leave it computing for nobody."""
    import threading

    parent = os.getppid()

    def watch():
        while os.getppid() == parent:
            time.sleep(1.0)
        os._exit(1)

    threading.Thread(target=watch, daemon=True).start()


def _run_pieces(ev, pieces, kappa0, max_boxes, min_width, deadline, bar, workers):
    """:func:`_prove_piece` on every piece, in ``workers`` processes (spawned: the parent may hold JAX's threads);
    stops at the first failure. Returns the pieces' outcomes in order."""
    args = [((ev.gamma, ev.eps, ev.d, ev.L), a, b, kappa0, max_boxes, min_width, max(1.0, deadline - time.time()),
             ctx.prec) for a, b in pieces]
    if workers <= 1 or len(pieces) == 1:
        out = []
        for x in args:
            out.append(_prove_piece(*x[:-2], max(1.0, deadline - time.time()), x[-1]))
            bar.update(out[-1]["boxes"])
            if not out[-1]["ok"]:
                break
        return out
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor

    with ProcessPoolExecutor(max_workers=workers, mp_context=multiprocessing.get_context("spawn"),
                             initializer=_watch_parent) as pool:
        futures = [pool.submit(_prove_piece, *x) for x in args]
        out = []
        for f in futures:
            out.append(f.result())
            bar.update(out[-1]["boxes"])
            if not out[-1]["ok"]:
                for g in futures:
                    g.cancel()
                break
        return out


def _prove_oracle(ev, lo, hi, kappa0, max_boxes, min_width, deadline, t0, bar, workers=1):
    proofs = valley_proofs()
    if not all(proofs.values()):
        return GlobalCertificate(False, f"the valley facts are not proved: {proofs}", (math.nan, math.nan), [], 0,
                                 time.time() - t0, (lo, hi), True)
    pieces = uniform_pieces(lo, hi)  # near a window's end the boxes split in lam themselves, to 1e-12
    res = _run_pieces(ev, pieces, kappa0, max_boxes, min_width, deadline, bar, workers)
    n1, n2 = sum(r["strip_boxes"] for r in res), sum(r["value_boxes"] for r in res)
    ev.count = sum(r["boxes"] for r in res)
    details = {"strip_boxes": n1, "value_boxes": n2, "kappa0": [r["kappa0"] for r in res], "pieces": len(pieces),
               "workers": workers}
    bad = [r for r in res if not r["ok"]]
    if bad or len(res) < len(pieces):
        return GlobalCertificate(False, bad[0]["reason"] if bad else "stopped", (math.nan, math.nan), [], ev.count,
                                 time.time() - t0, (lo, hi), True, details)
    tree = C.SplitTree(((0.0, 1.0), (0.0, 1.0), (lo, hi)))
    for node, r in zip(tree.grid(tree.root, 2, [a for a, _ in pieces[1:]]), res):
        tree.graft(node, r["nodes"], r["leaves"])
    R = _range_over(_oracle_U(ev), lo, hi)
    ks = [k for *_, k in details["kappa0"]]
    reason = ("(k*, v*) is the unique global minimiser up to the symmetries for every lam of the interval: the valley "
              f"certificate on kappa in [kappa0, 1] (kappa0 in [{min(ks):.3g}, {max(ks):.3g}] by lam piece) (Q > 0: the "
              "line through each kappa is above M's edge, which decreases to the oracle) and weak-duality bounds above "
              "the oracle's risk for kappa <= kappa0")
    ov = [{"lam": (lo, hi), "overlaps": ((1, 1), (1, 1), (0, 0), (0, 0), (0, 0))}]
    doc = C.document("oracle-global-minimiser", (ev.gamma, ev.eps, ev.d, ev.L), tree, prec=ctx.prec,
                     search={"boxes": ev.count, "seconds": time.time() - t0, "workers": workers})
    return GlobalCertificate(True, reason, R, ov, ev.count, time.time() - t0, (lo, hi), True, details, doc)


def _value_ok(ev, box, U):
    o = _value_test(ev, box, U)
    if o.passed:
        box.close({"test": "value", "beta": o.beta})
    return o.passed, o.axis


def _range_over(U, lo, hi, pieces=128):
    """(lo, hi) floats enclosing U(lam) over [lo, hi]: on each of ``pieces`` equal pieces, the hull of the end values
    where the slope's enclosure has a sign (U monotone there), else the mean-value form at the piece's centre."""
    v = U(arb(lo))[0]
    xs = np.linspace(lo, hi, pieces + 1) if hi > lo else []
    for a, b in zip(xs[:-1], xs[1:]):
        dv = U(arb(a).union(arb(b)))[1]
        if dv > 0 or dv < 0:
            v = v.union(U(arb(a))[0]).union(U(arb(b))[0])
        else:
            v = v.union(U(arb(0.5 * (a + b)))[0] + dv * arb(0, 0.5 * (b - a)))
    return outward(v)


def _enclose(ev, lo, hi, at, max_boxes, min_width, risk_tol, deadline, t0, bar):
    """Outside W (a point lam): boxes that may hold the global minimiser, against a witness (the incumbent); a box is
    kept (a ``bound`` leaf) once its lower bound is within ``risk_tol`` of the witness's risk and H - mu I is certified
    positive definite on it (otherwise the number is no lower bound: the box is split). The witness starts at the float
    minimiser and is replaced whenever the float profile at a small failing box's centre is lower (its risk certified
    on arb balls, :func:`slr_verify.certify.replay.pair_risk`): the float search can miss the minimiser by ~1e-6 near
    the hard case at k = v*, and a box around the true minimiser never comes within ``risk_tol`` of a witness above it.
    The witness's certified upper end only decreases, so a box excluded against an earlier witness is excluded against
    the last one (the checker tests every value leaf against the last)."""
    if hi > lo:
        return GlobalCertificate(False, "outside the oracle's window only a point lam is supported", (math.nan, math.nan), [],
                                 0, time.time() - t0, (lo, hi), False)
    g = min(at, key=lambda x: x.risk)
    W, where = _witness(ev, lo, *angle_chart(*g.chart))
    state = {"W": W, "where": where, "U": _constant_U(W), "updates": 0}
    tree = C.SplitTree(((0.0, 1.0), (0.0, 1.0), (lo, hi)))
    stack = [_Box.of(tree, j) for i in tree.grid(tree.root, 0, np.linspace(0, 1, 9)[1:-1])
             for j in tree.grid(i, 1, np.linspace(0, 1, 5)[1:-1])]
    ctl = (ev, lo, min_width, bar, state)
    # two passes: a tolerance the hard case at k = v* can meet (1e-10), then the kept boxes again at risk_tol (its
    # minimiser's location to ~1e-6 elsewhere); the finer pass replaces the coarser only if it closes
    first = max(risk_tol, 1e-10)
    keep, lows, status = _enclose_pass(ctl, stack, first, deadline, max_boxes)
    if status == "done" and risk_tol < first:
        saved = dict(tree.nodes)
        k2, l2, s2 = _enclose_pass(ctl, [_Box.of(tree, b.node) for b in keep], risk_tol,
                                   min(deadline, time.time() + 60.0), 50_000)
        if s2 == "done" and k2:
            keep, lows = k2, l2
        else:
            tree.nodes = saved
    return _enclosure_result(ev, lo, hi, g, tree, keep, lows, status, state, deadline, t0)


def _witness(ev, lam, kappa, eta):
    """(R, where): the certified risk ball of the pair at (kappa, eta) and lam, and the pair's record with kappa, eta."""
    pair, R = certified_pair(kappa, eta, lam=lam, setting=ev.S)
    return R, dict(pair, kappa=float(kappa), eta=float(eta))


def _improve_witness(ev, lam, bx, tol, state):
    """Replace ``state``'s witness by a pair at the box's centre kappa whose certified risk is lower (the float hint)."""
    kc = 0.5 * (bx.x[0] + bx.x[1])
    for t in bx.y:
        eta = math.sqrt(max(0.0, t * (1 - kc * kc)))
        if float(profile(kc, eta, lam=lam, **ev.kw).risk) < float(state["W"].mid()) - 0.5 * tol:
            Wn, at_n = _witness(ev, lam, kc, eta)
            if Wn.upper() < state["W"].upper():
                state.update(W=Wn, where=at_n, updates=state["updates"] + 1, U=_constant_U(Wn))


def _enclose_pass(ctl, stack, tol, stop, cap):
    """One pass of :func:`_enclose` at ``tol``: (kept + unresolved boxes, lower bounds, "done"/"budget"/"min_width")."""
    ev, lam, min_width, bar, state = ctl
    keep, lows, status = [], [], "done"
    n0 = ev.count
    while stack:
        if ev.count - n0 >= cap or time.time() > stop:
            return keep + stack, lows, "budget"
        bx = stack.pop()
        bar.update()
        o = _value_test(ev, bx, state["U"], tol=tol)
        if o.passed:
            bx.close({"test": "value", "beta": o.beta})
            continue
        low = -math.inf if o.F is None else min(float(F.lower()) for F in o.F)  # a choice: kept or split
        if low > -tol and o.pd:
            if max(float(F.lower()) for F in o.F) > tol and bx.y[1] - bx.y[0] > max(min_width, 4 * math.ulp(1.0)):
                stack.extend(bx.split(1))  # one end is excluded already: a shorter line localises the minimiser
                continue
            bx.close({"test": "bound", "beta": o.beta})
            keep.append(bx)
            lows.append(min(arb(e.lower()) for e in o.ends))  # m >= LB on the box (H - mu I positive definite)
            continue
        if bx.width() < 1e-3:
            _improve_witness(ev, lam, bx, tol, state)
        try:
            if bx.width() < min_width:
                raise ValueError("narrower than min_width")
            stack.extend(bx.split(o.axis if o.axis is not None else 0))
        except ValueError:  # too narrow, or one ulp wide along the axis to split
            return keep + [bx] + stack, lows, "min_width"
    return keep, lows, status


def _enclosure_result(ev, lo, hi, g, tree, keep, lows, status, state, deadline, t0):
    """:func:`_enclose`'s GlobalCertificate: [kept boxes' bound, witness] and the document (with the circle) if closed."""
    W, where, updates = state["W"], state["where"], state["updates"]
    proved = status == "done" and bool(keep)
    risk = (outward(min(min(lows), arb(W.lower())))[0], outward(W)[1]) if proved else (math.nan, outward(W)[1])
    ov = {"float_minimiser": g.overlaps}
    reason = ("the global minimiser lies in the kept boxes (every other box has a weak-duality bound above the witness); "
              "the global minimum is within [the kept boxes' bound, witness]" if proved else f"not closed ({status})")
    doc = None
    if proved:
        wit = {k: where[k] for k in ("a", "b", "x")}
        circle = _circle(ev, lo, keep, deadline)
        doc = C.document("global-minimum-enclosure", (ev.gamma, ev.eps, ev.d, ev.L), tree, witness=wit, prec=ctx.prec,
                         search={"boxes": ev.count, "seconds": time.time() - t0, "witness_updates": updates},
                         extra={"circle": circle} if circle else None)
    return GlobalCertificate(proved, reason, risk, [{"lam": (lo, hi), "overlaps": ov}], ev.count, time.time() - t0, (lo, hi),
                             False, {"kept_boxes": len(keep), "witness": {"kappa": where["kappa"], "eta": where["eta"]},
                                     "witness_risk": str(W), "witness_updates": updates}, doc)


def _circle(ev, lam, kept, deadline, depth=12):
    """Pieces of the circle test (:func:`slr_verify.certify.replay_profile.check_circle`) over the kept boxes' kappa
    range, or None: per piece a bracket of beta around the float TRS's optimal multiplier at t = 1 at the piece's
    centre (relative widths 1e-6 .. 1e-2 tried), halving a piece that fails, ``depth`` times at most."""
    from .replay_profile import check_circle

    k_lo, k_hi = min(b.x[0] for b in kept), max(b.x[1] for b in kept)
    stack, out = [((k_lo, k_hi), 0)], []
    while stack:
        if time.time() > deadline:
            return None
        K, level = stack.pop()
        kc = 0.5 * (K[0] + K[1])
        mu = float(profile(kc, math.sqrt(max(0.0, 1 - kc * kc)), lam=lam, **ev.kw).mu)
        beta = float(np.asarray(ev.K.coef_f64(kc, lam, ev.gamma, ev.eps, ev.d, ev.L)[0])) - mu
        for rho in (1e-6, 1e-4, 1e-2):
            piece = {"kappa": [K[0], K[1]], "beta": [beta * (1 - rho), beta * (1 + rho)]}
            try:
                if beta > 0:
                    check_circle(ev.S, [piece], [((K[0], K[1]), (1.0, 1.0), (lam, lam))], lam)
                    out.append(piece)
                    break
            except (Rejected, ValueError, ZeroDivisionError):
                continue
        else:
            if level >= depth:
                return None
            m = 0.5 * (K[0] + K[1])
            stack += [((m, K[1]), level + 1), ((K[0], m), level + 1)]
    return sorted(out, key=lambda p: p["kappa"][0])


def certified_pair(kappa, eta, *, lam, setting) -> tuple:
    """The explicit pair at (kappa, eta) of the quarter disk with the float TRS's v there, as exact floats {a, b, x}
    (k = cos b cos a k* + cos b sin a v* + sin b e, v = x / |x|: a witness of a certificate), and its risk at ``lam``
    certified on arb balls (:func:`~.replay_profile.pair_risk`; ``setting``: a
    :class:`~.replay_profile.SettingBalls`)."""
    kappa, eta = float(kappa), float(eta)
    kw = {"gamma": setting.gamma, "eps": setting.eps, "d": setting.d, "L": setting.L}
    x = [float(v) for v in np.asarray(profile(kappa, eta, lam=lam, **kw).x, float).ravel()]
    a = math.atan2(eta, kappa)
    b = math.asin(min(1.0, math.sqrt(max(0.0, 1.0 - kappa**2 - eta**2))))
    return {"a": a, "b": b, "x": x}, pair_risk(setting, arb(lam), a, b, x)


def _constant_U(W):
    """The witness's certified risk as U (constant in lam)."""
    return _Risk(lambda lam: (W, arb(0)), lambda lam: float(W.mid()), lambda Lam, r: W)
