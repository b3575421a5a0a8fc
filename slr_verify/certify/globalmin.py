r"""Certified global minimisation of R_lam through the profile (`docs/MATH.md` §§14 and 17).

The profile m(a, b; lam) = min over unit v of R_lam(k, v) in the angle chart kappa = cos(b) cos(a),
eta = cos(b) sin(a), r = sin(b), (a, b) in [0, pi/2]^2 (:mod:`slr_verify.landscape.trs`), carries the
global minimum of R_lam on S^{d-1} x S^{d-1}. Two rigorous tools, both on arb balls from the generated
TRS kernels (:mod:`slr_verify.kernels.profile`):

**Weak duality** (the value test). For any mu with D = H - mu I positive definite (Sylvester minors
> 0) and a0 - mu > 0, LB_mu = c + mu - g^T D^{-1} g <= m. On a box X of (a, b, lam), with mu fixed
(from the float TRS at the centre, lowered below the smallest eigenvalue's variation over the box),
F = LB_mu - U(lam) is enclosed in the centred (mean-value) form F(x_c) + sum_s dF/ds(X) [-rad_s, rad_s],
dF/ds = c_s - 2 g_s^T y + y^T H_s y - U_s, y = D^{-1} g. F > 0 excludes the box: no point of it is
below U. U is the oracle's risk (inside W) or the risk of an explicit witness pair (outside W).

**The strip around the valley** (inside W: the local certificate). On a = 0 (eta = 0) p_theta =
p_rho = 0 (SymPy: both carry the factor eta), so v* solves the TRS exactly with mu(b) = a0 - g2 as
soon as D(mu(b)) is positive definite, and m(0, b) = R(cos b, 1, 0, 0, 0), the risk on M's edge nu = 1,
which decreases strictly in kappa (the factorisation of Proposition 9: dR/dkappa = P (erf(c2 kappa) - nu)
with P > 0, proved by SymPy for all parameters): m(0, b) > R(k*, v*) for b > 0. With mu(b) (constant
in a) the dual bound G(a, b) = LB_{mu(b)} is even in a (eta -> -eta is the reflection x2 -> -x2 of the
TRS), so G(a, b) - G(0, b) is a^2/2 times d^2G/da^2 at an intermediate point: where d^2G/da^2 > 0 on
the whole strip [0, a1] x [0, b_max] x lam (enclosed on arb balls, second partials generated from
SymPy), m(a, b) >= G(a, b) >= G(0, b) >= R(k*, v*) with equality only at a = b = 0. This replaces
value bounds in the flat valley, where m - R(k*, v*) is 1e-15 to 1e-44.

Inside W the strip and the value test on the rest of the quarter disk prove that (k*, v*) is the
unique global minimiser up to the symmetries for every lam of the interval. Outside W, the value test
against a witness leaves the boxes that may hold the global minimiser: their union encloses it, and
their lower bounds with the witness's risk enclose the global minimum.

**Status** (measured at gamma^2 = 1/2, d = 400, L = 10; see the tests and the report): every piece is
rigorous where it answers, but the proof does not close within a practical budget. The enclosures
are first-order in the box width and the TRS data carry large entries (a_rr ~ 300) whose Schur
complement cancels: at lam = 0.3, d^2G/da^2 = 0.5923 at a point box but its enclosure on a 1e-3 box
is [-0.4, 1.6]; the value test needs boxes of ~1e-3 near the oracle's valley. A chart adapted to k
(the frame (k, dk/da, dk/db), in which those entries decouple) and second-order (Taylor) forms are
the next steps.
"""
from __future__ import annotations

import math
import time
from dataclasses import dataclass, field

import numpy as np
from flint import arb, arb_mat, ctx

from ..kernels.profile import (
    oracle_arb,
    trs_kernels,
    trs_partials_kernels,
    trs_second_partials_arb,
    valley_proofs,
)
from ..landscape.trs import profile
from ..landscape.window import angle_chart, minimise_profile
from ..model.params import Params

__all__ = ["GlobalCertificate", "global_minimiser"]

HALF_PI = math.pi / 2


@dataclass
class GlobalCertificate:
    """The outcome: ``proved``; ``reason``; ``risk``: (lo, hi) enclosing the global minimum of R_lam for
    every lam of the interval; ``overlaps``: per lam piece, enclosures ((lo, hi) per overlap
    kappa, nu, theta, eta, rho) of the minimiser's overlaps (kappa, eta >= 0 representative; nu, theta,
    rho of the TRS solution at the boxes' float centres, with the boxes' extent); ``boxes``: boxes
    evaluated; ``seconds``; ``oracle``: True if the certificate is that the oracle is the unique global
    minimiser; ``details``."""

    proved: bool
    reason: str
    risk: tuple
    overlaps: list
    boxes: int
    seconds: float
    lam: tuple
    oracle: bool
    details: dict = field(default_factory=dict)


class _Evaluator:
    """Ball evaluations of the TRS data over boxes (a, b, lam) at fixed (gamma, eps, d, L)."""

    def __init__(self, gamma, eps, d, L):
        self.gamma, self.eps, self.d, self.L = float(gamma), float(eps), int(d), int(L)
        g = float(gamma)
        self.G = arb(g, math.ulp(g))
        self.E = arb(float(eps), math.ulp(float(eps))) if eps else arb(0)
        self.D, self.Lb = arb(self.d), arb(self.L)
        self.kw = {"gamma": self.gamma, "eps": self.eps, "d": self.d, "L": self.L}
        self.count = 0

    @staticmethod
    def ball(lo, hi):
        lo, hi = float(lo), float(hi)
        return arb(lo).union(arb(hi)) if hi > lo else arb(lo)

    def chart(self, A, B):
        ca, sa, cb, sb = A.cos(), A.sin(), B.cos(), B.sin()
        return cb * ca, cb * sa, sb, (ca, sa, cb, sb)

    def entries(self, A, B, lam):
        kappa, eta, r, _ = self.chart(A, B)
        return trs_kernels().arb(kappa, eta, r, lam, self.G, self.E, self.D, self.Lb)

    def partials(self, A, B, lam):
        """d/da, d/db, d/dlam of the 11 entries (lists)."""
        kappa, eta, r, (ca, sa, cb, sb) = self.chart(A, B)
        P = trs_partials_kernels().arb(kappa, eta, r, lam, self.G, self.E, self.D, self.Lb)
        Ek, Ee, Er, El = P[0:11], P[11:22], P[22:33], P[33:44]
        ka, ea = -cb * sa, cb * ca
        kb, eb, rb = -sb * ca, -sb * sa, cb
        da = [Ek[i] * ka + Ee[i] * ea for i in range(11)]
        db = [Ek[i] * kb + Ee[i] * eb + Er[i] * rb for i in range(11)]
        return da, db, El

    def second_a(self, A, B, lam):
        """(d/da, d^2/da^2) of the 11 entries."""
        kappa, eta, r, (ca, sa, cb, _sb) = self.chart(A, B)
        P = trs_partials_kernels().arb(kappa, eta, r, lam, self.G, self.E, self.D, self.Lb)
        Q = trs_second_partials_arb()(kappa, eta, r, lam, self.G, self.E, self.D, self.Lb)
        Ek, Ee = P[0:11], P[11:22]
        Ekk, Eke, Eee = Q[0:11], Q[11:22], Q[22:33]
        ka, ea = -cb * sa, cb * ca
        da = [Ek[i] * ka + Ee[i] * ea for i in range(11)]
        daa = [Ekk[i] * ka * ka + 2 * Eke[i] * ka * ea + Eee[i] * ea * ea - Ek[i] * kappa - Ee[i] * eta for i in range(11)]
        return da, daa


def _mats(e):
    """(c, a0, H as arb_mat, g as arb_mat column) from the 11 entries."""
    c, a0, h11, h12, h13, h22, h23, h33, g1, g2, g3 = e
    H = arb_mat([[h11, h12, h13], [h12, h22, h23], [h13, h23, h33]])
    return c, a0, H, arb_mat([[g1], [g2], [g3]])


def _pd(H, mu, a0):
    """Certified: H - mu I positive definite (leading minors > 0) and a0 - mu > 0."""
    D = H - mu * arb_mat([[1, 0, 0], [0, 1, 0], [0, 0, 1]])
    m1 = D[0, 0]
    m2 = D[0, 0] * D[1, 1] - D[0, 1] * D[1, 0]
    return bool(m1 > 0 and m2 > 0 and D.det() > 0 and (a0 - mu) > 0), D


def _quad(x, M, y):
    return (x.transpose() * M * y)[0, 0]


def _dmat(d):
    """(H_s as arb_mat, g_s as column, c_s, a0_s) from 11 derivative entries."""
    c, a0, h11, h12, h13, h22, h23, h33, g1, g2, g3 = d
    return arb_mat([[h11, h12, h13], [h12, h22, h23], [h13, h23, h33]]), arb_mat([[g1], [g2], [g3]]), c, a0


class _Box:
    __slots__ = ("a", "b", "lam")

    def __init__(self, a, b, lam):
        self.a, self.b, self.lam = a, b, lam

    def split(self, scale):
        w = [(self.a[1] - self.a[0]) * scale[0], (self.b[1] - self.b[0]) * scale[1], (self.lam[1] - self.lam[0]) * scale[2]]
        i = int(np.argmax(w))
        iv = [self.a, self.b, self.lam][i]
        m = 0.5 * (iv[0] + iv[1])
        out = []
        for part in ((iv[0], m), (m, iv[1])):
            ivs = [self.a, self.b, self.lam]
            ivs[i] = part
            out.append(_Box(*ivs))
        return out

    def centre(self):
        return tuple(0.5 * (x[0] + x[1]) for x in (self.a, self.b, self.lam))

    def rad(self):
        return tuple(0.5 * (x[1] - x[0]) for x in (self.a, self.b, self.lam))


def _float_mu(ev, a, b, lam, rads):
    """The TRS multiplier at (a, b, lam), lowered below the smallest eigenvalue's variation over the box."""
    kappa, eta = angle_chart(a, b)
    p = profile(kappa, eta, lam=lam, **ev.kw)
    from ..landscape.trs import trs_matrices

    r = math.sqrt(max(0.0, 1 - kappa**2 - eta**2))
    _, H, _ = trs_matrices(kappa, eta, r, lam, ev.gamma, ev.eps, ev.d, ev.L)
    lmin = float(np.linalg.eigvalsh(H[..., :3, :3])[0])
    var = 0.0
    for s, h in enumerate((1e-7, 1e-7, 1e-7 * lam)):
        z = [a, b, lam]
        z[s] += h
        kk, ee = angle_chart(z[0], z[1])
        rr = math.sqrt(max(0.0, 1 - kk**2 - ee**2))
        _, H2, _ = trs_matrices(kk, ee, rr, z[2], ev.gamma, ev.eps, ev.d, ev.L)
        var += abs(float(np.linalg.eigvalsh(H2[..., :3, :3])[0]) - lmin) / h * rads[s]
    return min(float(p.mu), lmin - 2 * var - 1e-12 * max(1.0, abs(lmin)))


def _value_test(ev, box, U):
    """Lower bound of min over the box of (LB_mu - U(lam)) by the centred form; None if the PD check
    fails. ``U(lam_ball) -> (value, d/dlam)`` as balls."""
    ac, bc, lc = box.centre()
    ra, rb, rl = box.rad()
    ev.count += 1
    mu = _float_mu(ev, ac, bc, lc, (ra, rb, rl))
    mu_b = arb(mu)
    A, B, Lm = ev.ball(*box.a), ev.ball(*box.b), ev.ball(*box.lam)
    # value at the centre (exact point balls)
    c, a0, H, g = _mats(ev.entries(arb(ac), arb(bc), arb(lc)))
    ok, D = _pd(H, mu_b, a0)
    if not ok:
        return None
    y = D.solve(g)
    u0, _ = U(arb(lc))
    F0 = c + mu_b - _quad(g, arb_mat([[1, 0, 0], [0, 1, 0], [0, 0, 1]]), y) - u0
    # derivatives over the box
    c, a0, H, g = _mats(ev.entries(A, B, Lm))
    ok, D = _pd(H, mu_b, a0)
    if not ok:
        return None
    y = D.solve(g)
    da, db, dl = ev.partials(A, B, Lm)
    _, ul = U(Lm)
    F = F0
    for dv, rad, extra in ((da, ra, 0), (db, rb, 0), (dl, rl, ul)):
        if rad == 0:
            continue
        Hs, gs, cs, _ = _dmat(dv)
        slope = cs - 2 * (gs.transpose() * y)[0, 0] + _quad(y, Hs, y) - extra
        F = F + slope * arb(0, rad)
    return F


def _strip_test(ev, box):
    """Certified d^2 G/da^2 > 0 and D(mu(b)) positive definite on the box (see the module)."""
    ev.count += 1
    A, B, Lm = ev.ball(*box.a), ev.ball(*box.b), ev.ball(*box.lam)
    e0 = ev.entries(arb(0), B, Lm)  # at a = 0: mu(b) = a0 - g2
    mu = e0[1] - e0[9]
    _c, a0, H, g = _mats(ev.entries(A, B, Lm))
    ok, D = _pd(H, mu, a0)
    if not ok:
        return False
    y = D.solve(g)
    da, daa = ev.second_a(A, B, Lm)
    Ha, ga, _ca, _ = _dmat(da)
    Haa, gaa, caa, _ = _dmat(daa)
    z = ga - Ha * y
    eye = arb_mat([[1, 0, 0], [0, 1, 0], [0, 0, 1]])
    G2 = caa - 2 * (gaa.transpose() * y)[0, 0] + _quad(y, Haa, y) - 2 * _quad(z, eye, D.solve(z))
    return bool(G2 > 0)


def _bisect(boxes, test, scale, max_boxes, min_width, deadline):
    """Process boxes until every one passes ``test`` (True) or a box narrower than ``min_width``
    fails, or the budget runs out. Returns (failed boxes, evaluated count)."""
    stack, failed, n = list(boxes), [], 0
    while stack:
        if n >= max_boxes or time.time() > deadline:
            return stack + failed, n, "budget"
        box = stack.pop()
        n += 1
        if test(box):
            continue
        if max(box.a[1] - box.a[0], box.b[1] - box.b[0]) < min_width:
            failed.append(box)
            continue
        stack.extend(box.split(scale))
    return failed, n, "done"


def _oracle_U(ev):
    def U(lam):
        v, dv = oracle_arb()(lam, ev.G, ev.E, ev.D, ev.Lb)
        return v, dv
    return U


def global_minimiser(*, lam, gamma, eps=0.0, d, L, strip=0.1, b_max=1.3, prec=128, max_boxes=200_000,
                     min_width=1e-7, time_limit=900.0, lam_pieces=None, progress=None) -> GlobalCertificate:
    """Certified global minimisation of R_lam over S^{d-1} x S^{d-1} for every lam of ``lam = (lo, hi)``
    (see the module). ``strip``: the half-width a1 of the strip around the valley (inside W);
    ``b_max``: its extent in b; ``max_boxes``, ``time_limit`` (seconds), ``min_width``: the budget."""
    lo, hi = (float(x) for x in lam)
    Params(lam=lo, gamma=gamma, eps=eps, d=d, L=L)
    Params(lam=hi, gamma=gamma, eps=eps, d=d, L=L)
    if hi < lo:
        raise ValueError(f"lam must be (lo, hi) with lo <= hi, got {lam!r}")
    t0 = time.time()
    deadline = t0 + float(time_limit)
    old = ctx.prec
    ctx.prec = int(prec)
    try:
        ev = _Evaluator(gamma, eps, d, L)
        mids = [lo, hi, 0.5 * (lo + hi)]
        at = [minimise_profile(lam=x, **ev.kw) for x in mids]
        if all(g.is_oracle for g in at):
            return _prove_oracle(ev, lo, hi, strip, b_max, max_boxes, min_width, deadline, t0)
        return _enclose(ev, lo, hi, at, max_boxes, min_width, deadline, t0, lam_pieces)
    finally:
        ctx.prec = old


def _prove_oracle(ev, lo, hi, a1, b_max, max_boxes, min_width, deadline, t0):
    proofs = valley_proofs()
    if not all(proofs.values()):
        return GlobalCertificate(False, f"the valley facts are not proved: {proofs}", (math.nan, math.nan), [], 0,
                                 time.time() - t0, (lo, hi), True)
    scale = (1.0, 1.0, 0.0 if hi == lo else 1.0 / max(hi - lo, 1e-300) * 1e-3)
    # 1. the strip [0, a1] x [0, b_max]: d2G/da2 > 0 and D(mu(b)) positive definite
    strip = [_Box((0.0, a1), (b0, b1), (lo, hi)) for b0, b1 in zip(np.linspace(0, b_max, 14)[:-1], np.linspace(0, b_max, 14)[1:])]
    failed, n1, st = _bisect(strip, lambda bx: _strip_test(ev, bx), scale, max_boxes, min_width, deadline)
    if failed:
        return GlobalCertificate(False, f"strip around the valley not certified ({st}; {len(failed)} boxes left, e.g. "
                                 f"a {failed[0].a}, b {failed[0].b}, lam {failed[0].lam})", (math.nan, math.nan), [], ev.count,
                                 time.time() - t0, (lo, hi), True, {"strip_boxes": n1})
    # 2. the rest of the quarter disk: the value test against the oracle's risk
    U = _oracle_U(ev)
    rest = [_Box((a1, HALF_PI), (0.0, HALF_PI), (lo, hi)), _Box((0.0, a1), (b_max, HALF_PI), (lo, hi))]

    def test(bx):
        F = _value_test(ev, bx, U)
        return F is not None and F > 0

    failed, n2, st = _bisect(rest, test, scale, max_boxes - n1, min_width, deadline)
    Rlo, _ = U(arb(lo))
    Rhi, _ = U(arb(hi))
    Rb = Rlo.union(Rhi) if hi > lo else Rlo
    if failed:
        return GlobalCertificate(False, f"value test failed ({st}; {len(failed)} boxes left, e.g. a {failed[0].a}, "
                                 f"b {failed[0].b}, "
                                 f"lam {failed[0].lam})", (math.nan, math.nan), [], ev.count, time.time() - t0, (lo, hi), True,
                                 {"strip_boxes": n1, "value_boxes": n2})
    # the minimum over the interval's lam of R(k*, v*): enclose the oracle risk's range by its slope
    R = _range_over(U, lo, hi)
    reason = ("(k*, v*) is the unique global minimiser up to the symmetries for every lam of the interval: strip (second "
              "derivative in a > 0, v* solves the TRS on a = 0, M's edge decreasing) and weak-duality bounds above the "
              "oracle's risk elsewhere")
    ov = [{"lam": (lo, hi), "overlaps": ((1, 1), (1, 1), (0, 0), (0, 0), (0, 0))}]
    details = {"strip_boxes": n1, "value_boxes": n2, "oracle_risk_at_ends": (str(Rlo), str(Rb))}
    return GlobalCertificate(True, reason, R, ov, ev.count, time.time() - t0, (lo, hi), True, details)


def _range_over(U, lo, hi):
    """(lo, hi) floats enclosing U(lam) over [lo, hi] (mean-value form at the centre)."""
    c, r = 0.5 * (lo + hi), 0.5 * (hi - lo)
    v, _ = U(arb(c))
    if r > 0:
        _, dv = U(arb(c).union(arb(hi)).union(arb(lo)))
        v = v + dv * arb(0, r)
    return float(v.lower()), float(v.upper())


def _enclose(ev, lo, hi, at, max_boxes, min_width, deadline, t0, lam_pieces):
    """Outside W: boxes that may hold the global minimiser, against the witness of the float minimiser."""
    from .window import risk_at_arb

    g = min(at, key=lambda x: x.risk) if lo == hi else at[2]
    kappa, eta = angle_chart(*g.chart)
    lam_c = 0.5 * (lo + hi)
    x = profile(kappa, eta, lam=lam_c, **ev.kw).x

    def U(lam):  # the witness pair's risk and its slope in lam
        val = risk_at_arb(kappa, eta, x, lam=lam, gamma=ev.G, eps=ev.E, d=ev.d, L=ev.L)
        if lam.rad() == 0 and lo == hi:
            return val, arb(0)
        A, B = arb(g.chart[0]), arb(g.chart[1])
        _, _, dl = ev.partials(A, B, lam)
        Hs, gs, cs, a0s = _dmat(dl)
        xv = arb_mat([[arb(t)] for t in x[:3]])
        return val, cs - 2 * (gs.transpose() * xv)[0, 0] + _quad(xv, Hs, xv) + a0s * arb(x[3]) ** 2

    scale = (1.0, 1.0, 0.0 if hi == lo else 1e-3 / (hi - lo))
    boxes = [_Box((0.0, HALF_PI), (0.0, HALF_PI), (lo, hi))]
    keep, n = [], 0
    stack = boxes
    lows = []
    while stack:
        if ev.count >= max_boxes or time.time() > deadline:
            keep.extend(stack)
            break
        bx = stack.pop()
        F = _value_test(ev, bx, U)
        n += 1
        if F is not None and F > 0:
            continue
        if max(bx.a[1] - bx.a[0], bx.b[1] - bx.b[0]) < min_width:
            keep.append(bx)
            lows.append(F)
            continue
        stack.extend(bx.split(scale))
    u_lo, u_hi = _range_over(U, lo, hi)
    # lower bound of the global minimum: U + the smallest F lower bound over the kept boxes (F = LB - U)
    if keep and all(F is not None for F in lows) and len(lows) == len(keep):
        fmin = min(float(F.lower()) for F in lows)
        risk = (u_lo + min(fmin, 0.0), u_hi)
        proved = True
    else:
        risk = (math.nan, u_hi)
        proved = False
    a_lo, a_hi = min(b.a[0] for b in keep), max(b.a[1] for b in keep)
    b_lo, b_hi = min(b.b[0] for b in keep), max(b.b[1] for b in keep)
    kap = sorted(float(v) for aa in (a_lo, a_hi) for bb in (b_lo, b_hi) for v in [angle_chart(aa, bb)[0]])
    et = sorted(float(v) for aa in (a_lo, a_hi) for bb in (b_lo, b_hi) for v in [angle_chart(aa, bb)[1]])
    ov = {"kappa": (kap[0], kap[-1]), "eta": (et[0], et[-1]), "a": (a_lo, a_hi), "b": (b_lo, b_hi),
          "float_minimiser": g.overlaps}
    reason = ("the global minimiser lies in the kept boxes (every other box has a weak-duality bound above the witness)"
              if proved else "budget exhausted before the boxes reached min_width")
    return GlobalCertificate(proved, reason, risk, [{"lam": (lo, hi), "overlaps": ov}], ev.count, time.time() - t0, (lo, hi),
                             False,
                             {"kept_boxes": len(keep), "witness": {"kappa": float(kappa), "eta": float(eta)}})
