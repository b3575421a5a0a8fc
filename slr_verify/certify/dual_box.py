r"""The weak-duality bound of the profile on boxes of the quarter disk x lam (`docs/MATH.md` §§14 and 17), the
tests of :func:`slr_verify.certify.global_minimiser`'s branch and bound.

The profile m(kappa, eta; lam) = min over unit v of R_lam(k, v) carries the global minimum of R_lam on
S^{d-1} x S^{d-1}; the quarter disk kappa, eta >= 0 carries everything. Every coefficient of the TRS
depends on k through kappa only (p_theta, p_rho through a factor eta), and the dual bound has a closed
form (:func:`slr_verify.symbolic.profile_dual.dual_bound`, Woodbury on H - mu I = beta I + P M P^T,
P = [k*, k]): for any mu with beta = a0 - mu > 0, Delta > 0, T > 0 (then H - mu I is positive definite),

    LB_mu(kappa, eta) = c + mu - g^T (H - mu I)^{-1} g <= m(kappa, eta)      (weak duality).

Ball arithmetic runs in two stages on first-order Taylor models (:class:`slr_verify.kernels.taylor.TaylorModel`):
over a (kappa, lam) box each coefficient is its value and gradient at the box's centre (Taylor arithmetic at a point,
python-flint ``arb_series``: sharp) plus a remainder 1/2 h^T (d^2 c)(xi) h enclosed by one series of length 3 along the
segment c + s h (the checker's :meth:`~slr_verify.checker.profile.SettingBalls.coefficient_models`, so that
a box the search passes is a box the checker passes); the algebra of the dual bound then runs on the models, so the
first-order parts of the near-cancellations (a_tt a_rr ~ a_tr^2, 1e3-fold at lam ~ 0.85, d = 400) cancel exactly
and only second-order terms widen the enclosure.
No derivative is typed or generated separately: the series run through the same generated kernels.

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
box. beta maximises a float estimate of the centred bound (:func:`choose_beta`) over a fixed grid and candidates from
the float TRS at the box's centre (:func:`_trs_betas`: the dual function peaks within a few per cent of the optimal
multiplier, narrower than any fixed grid). Boxes split in kappa or lam (for the end that fails, the axis with the
larger linear term, or the wider one where the second-order remainder dominates) or in t (when one beta cannot serve
both ends, or when the bound fails at the box's centre already). The split kappa0 between the two certificates is
chosen per lam piece (:func:`slr_verify.certify.oracle_proof._kappa0`) 0.035 above the float edge of the valley test.
U is the oracle's risk (inside W) or the certified risk of an explicit witness pair (outside W).
"""
from __future__ import annotations

import math
from typing import NamedTuple

import numpy as np
from flint import arb

from ..checker.balls import centre_radius
from ..checker.profile import SettingBalls, edge_bound
from ..kernels.balls import midpoint, outward
from ..kernels.profile import dual_kernels, oracle_arb, oracle_f64
from ..kernels.taylor import terms
from ..landscape.trs import profile
from ..model.params import ModelSetting


class Evaluator:
    """The parameters (gamma, eps, d, L) as balls and the kernels of the dual bound
    (:func:`slr_verify.kernels.profile.dual_kernels`)."""

    def __init__(self, gamma, eps, d, L):
        self.gamma, self.eps, self.d, self.L = float(gamma), float(eps), int(d), int(L)
        self.S = SettingBalls(gamma, eps, d, L)
        self.P = self.S.P  # the setting's balls (ParamBalls: gamma, eps, d, L)
        self.kw = {"gamma": self.gamma, "eps": self.eps, "d": self.d, "L": self.L}
        self.setting = ModelSetting(**self.kw)  # the certificates' setting
        self.K = dual_kernels()
        self.count = 0


class Box:
    """A box (kappa, t, lam) of the search; ``node``: its id in the :class:`~.certificate.SplitTree` ``tree``."""

    __slots__ = ("x", "y", "lam", "node", "tree")

    def __init__(self, x, y, lam, node=None, tree=None):
        self.x, self.y, self.lam, self.node, self.tree = x, y, lam, node, tree

    @classmethod
    def of(cls, tree, i):
        return cls(*tree.boxes[i], node=i, tree=tree)

    def ivs(self):
        return [self.x, self.y, self.lam]

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


def choose_beta(ev, box, u):
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


class Outcome(NamedTuple):
    """A box's value test: ``passed``; ``F``: the enclosures of F_j over the box (or None); ``axis`` to split;
    ``beta``: the multiplier tried; ``pd``: beta, Delta, T > 0 certified (H - mu I positive definite: only then is
    the dual bound a lower bound); ``ends``: the enclosures of LB at the two ends (the bound itself)."""

    passed: bool
    F: list | None
    axis: int | None
    beta: float = math.nan
    pd: bool = False
    ends: list | None = None


def value_test(ev, box, U, tol=0.0):
    """The value test on a box (kappa, t, lam), eta^2 = t (1 - kappa^2) (t in [0, 1] spans the quarter disk's
    line at kappa): with one float beta (mu = a0(kappa, lam) - beta follows a0 over the box; weak duality holds
    pointwise), certify Delta, T > 0 on the (kappa, lam) box and F_j = (1 - t_j) L0 + t_j L1 - U(lam) > 0 at both
    ends t_j, on Taylor models of the coefficients over the box (the checker's coefficient models). LB is affine in t, so the two
    ends cover the box. Returns an :class:`Outcome` (the axis to split: t where the failing end's bound is below
    -``tol`` at the box's centre, where no split in kappa or lam can help). The models are the checker's
    (:meth:`slr_verify.checker.profile.SettingBalls.coefficient_models`): a passed box replays."""
    ev.count += 1
    (k0, k1), (t0, t1), (l0, l1) = box.ivs()
    (_kc, rk), (lc, rl) = centre_radius(k0, k1), centre_radius(l0, l1)
    b = math.nan
    try:
        b, split_t = choose_beta(ev, box, U.f64)
        K, Lam = (k0, k1), (l0, l1)
        co = ev.S.coefficient_models(K, Lam)
        L0, L1, Delta, T = ev.K.dual_line(*co, ev.S.kappa_model(K, Lam), arb(b))
        ends = [(1 - arb(t)) * L0 + arb(t) * L1 for t in (t0, t1)]
        F = [e - U.model(Lam, co[0].r) for e in ends]
    except (ValueError, ZeroDivisionError):
        return Outcome(False, None, 0 if rk >= rl else 2, b)
    Fs = [f.range() for f in F]
    pd = bool(b > 0 and Delta.range() > 0 and T.range() > 0)
    out = dict(beta=b, pd=pd, ends=[e.range() for e in ends])
    if pd and all(f > 0 for f in Fs):
        return Outcome(True, Fs, None, **out)
    if (split_t and t1 - t0 > 1e-9) or (rk == 0 and rl == 0):
        return Outcome(False, Fs, 1, **out)  # one multiplier cannot serve both ends
    worst = F[int(np.argmin([outward(f)[0] for f in Fs]))]  # split for the end that fails
    if outward(worst.v)[1] < -tol and t1 - t0 > 1e-6:
        # the bound fails at the box's centre already: no split in kappa or lam helps this multiplier, a shorter
        # line in t gets its own
        return Outcome(False, Fs, 1, **out)
    return Outcome(False, Fs, _split_axis(worst, rk, rl, lc), **out)


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
    (tk, tl), R = terms(tm)
    if R > tk + tl:
        return 0 if rk >= rl / lc else 2
    return 0 if tk >= tl else 2


def strip_test(ev, box):
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
    if all(ok[1:]) and k1 > 0.5:
        if out[0].range() + edge_bound(ev.S, (k0, k1), (l0, l1)) > 0:
            box.close({"test": "valley-edge"})  # Q < 0 near k*, compensated by the slope of R along the edge nu = 1
            return True, None
        if rk <= rl:  # Q + E ~ c2/2 near (1, a pitchfork end): Q's own kappa-slope would split kappa down to an ulp
            return False, 2
    return False, _split_axis(out[ok.index(False)], rk, rl, lc)


class Risk:
    """U(lam) -> (value, d/dlam) as balls; ``f64``: the value in float64 (for choices only); ``model(Lam, r)``: U over
    the lam box as the checker evaluates it (a Taylor model, or a ball for a constant witness)."""

    def __init__(self, arb_fn, f64, model):
        self.arb_fn, self.f64, self.model, self.memo = arb_fn, f64, model, {}

    def __call__(self, lam):
        key = (lam.mid().man_exp(), lam.rad().man_exp())  # exact; many boxes share a lam interval
        if key not in self.memo:
            self.memo[key] = self.arb_fn(lam)
        return self.memo[key]


def oracle_U(ev):
    """The oracle's risk R(k*, v*)(lam) and its slope."""
    return Risk(lambda lam: tuple(oracle_arb()(lam, **ev.P.kw())),
                 lambda lam: oracle_f64()(lam, ev.gamma, ev.eps, ev.d, ev.L)[0], ev.S.oracle_model)


def constant_U(W):
    """The witness's certified risk as U (constant in lam)."""
    return Risk(lambda lam: (W, arb(0)), lambda lam: midpoint(W), lambda Lam, r: W)


def range_over(U, lo, hi, pieces=128):
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
