r"""The checker's profile tests (`docs/MATH.md` §17; `docs/certificates.md`): the leaves of the global-minimiser
certificates over boxes of (kappa, t, lam), t = eta^2 / (1 - kappa^2).

Part of the checker (:mod:`.replay`): it imports none of the searches. Each test runs on first-order Taylor models of
the dual bound's coefficients over the leaf's (kappa, lam) box (:meth:`SettingBalls.coefficient_models`):

* ``valley``: Q > 0, beta > 0, Delta > 0, T > 0 at mu_v(kappa); then m >= R(kappa, 1, 0, 0, 0) >= R(k*, v*) on the
  whole line at kappa, with equality only at kappa = 1 (premise ``valley``).
* ``valley-edge``: beta, Delta, T > 0 at mu_v and Q + min over [kappa_0, 1] of P erfc(c2 s) / (1 + kappa_1) > 0
  (premise ``valley-edge``): R(kappa, 1, 0, 0, 0) - R(k*, v*) >= (1 - kappa) min P erfc(c2 s), so the bound
  A_0 + Q eta^2, affine in eta^2, is above R(k*, v*) at both ends of the line even where Q < 0 (near k* when the
  curvature along e is not negligible: at d = 80 it is 2.4e-12 at W's upper end).
* ``value``: beta, Delta, T > 0 (H - mu I positive definite, mu = a0 - beta: premise ``pd-criterion``) and
  F_j = (1 - t_j) L0 + t_j L1 - U > 0 at both ends t_j (LB is affine in t: premise ``dual-bound``), so m >= LB > U.
* ``bound``: beta, Delta, T > 0; the leaf's lower bound of m is min_j of (1 - t_j) L0 + t_j L1.
* ``circle`` (an enclosure's optional field): pieces {kappa, beta = [beta_s, beta_b]} covering the bound leaves'
  kappa; on each, H - mu I positive definite at beta_s, dL1/dbeta > 0 at beta_s and < 0 at beta_b, and L0 - L1 > 0 for
  every beta of the bracket (premise ``circle``): then m(kappa, t) > m(kappa, 1) for t < 1, so every global
  minimiser has t = 1, r = 0 (`docs/MATH.md` §17).
"""
from __future__ import annotations

import math

from flint import arb, arb_series

from ..kernels.balls import centre_radius, widened
from ..kernels.profile import dual_kernels, oracle_arb, trs_kernels, valley_edge_kernels
from ..kernels.taylor import TaylorModel
from .replay_base import Rejected, hull, interval, number, outward

__all__ = ["SettingBalls", "centre_radius", "pair_risk", "leaf_test", "enclosure_values", "PROFILE_KINDS"]

#: kind -> (premises, admitted leaf tests)
PROFILE_KINDS = {
    "oracle-global-minimiser": (("quadratic-in-v", "dual-bound", "pd-criterion", "valley", "oracle-risk"),
                                ("valley", "valley-edge", "value")),
    "global-minimum-enclosure": (("quadratic-in-v", "dual-bound", "pd-criterion"), ("value", "bound")),
    "oracle-window": (("quadratic-in-v", "dual-bound", "pd-criterion", "valley", "oracle-risk", "oracle-curvature"),
                      ("valley", "valley-edge", "value")),
}


class SettingBalls:
    """The setting (gamma, eps, d, L) as balls: gamma and eps one ulp wide either side (gamma = sqrt(0.5) in
    float64 then covers gamma^2 = 1/2 exactly), d and L exact."""

    def __init__(self, gamma, eps, d, L):
        self.gamma, self.eps, self.d, self.L = float(gamma), float(eps), int(d), int(L)
        self.P = (widened(self.gamma), widened(self.eps), arb(self.d), arb(self.L))
        self.K = dual_kernels()

    def coefficient_models(self, K, Lam) -> list:
        """Taylor models over the box K x Lam of the eight coefficients of
        :func:`~slr_verify.kernels.profile.dual_kernels` and det M: value and gradient at the centre (Taylor
        arithmetic at a point), remainder 1/2 h^T f''(xi) h from one series of length 3 along c + s h with the
        box's hull as the point and the radii as h (it holds every xi of the box)."""
        (kc, rk), (lc, rl) = centre_radius(*K), centre_radius(*Lam)
        Kc, Lc = arb(kc), arb(lc)
        at_k = self.K.coef(arb_series([Kc, 1], prec=2), Lc, *self.P)
        at_l = self.K.coef(Kc, arb_series([Lc, 1], prec=2), *self.P) if rl else None
        seg = self.K.coef(arb_series([hull(*K), arb(0, rk)], prec=3), arb_series([hull(*Lam), arb(0, rl)], prec=3),
                          *self.P)
        out = []
        for i, (a, s) in enumerate(zip(at_k, seg)):
            gl = _coef(at_l[i], 1) if at_l is not None else arb(0)
            out.append(TaylorModel(_coef(a, 0), (_coef(a, 1), gl), _coef(s, 2), (rk, rl)))
        return out + [self.K.det_m(*out)[0]]

    def kappa_model(self, K, Lam) -> TaylorModel:
        (kc, rk), (_, rl) = centre_radius(*K), centre_radius(*Lam)
        return TaylorModel.variable(arb(kc), 0, (rk, rl))

    def oracle_model(self, Lam, r) -> TaylorModel:
        """R(k*, v*) over Lam as a model in lam (mean-value form at Lam's centre; premise ``oracle-risk``)."""
        lc, rl = centre_radius(*Lam)
        u, du = oracle_arb()(arb(lc), *self.P)
        rem = (oracle_arb()(hull(*Lam), *self.P)[1] - du) * arb(0, rl) if rl else arb(0)
        return TaylorModel(u, (arb(0), du), rem, r)


def _coef(s, k):
    if not isinstance(s, arb_series):
        return s if k == 0 else arb(0)
    c = s.coeffs()
    return c[k] if k < len(c) else arb(0)


def pair_risk(setting, lam, a, b, x) -> arb:
    """R_lam at the explicit pair k = cos b cos a k* + cos b sin a v* + sin b e (a unit vector for any reals a, b)
    and v = x / |x| on (k*, v*, e, e'), through the quadratic in v (premise ``quadratic-in-v``)."""
    A, B = arb(a), arb(b)
    xs = [arb(t) for t in x]
    nx = sum((t * t for t in xs), arb(0)).sqrt()
    x1, x2, x3, x4 = (t / nx for t in xs)
    c, a0, h11, h12, h13, h22, h23, h33, g1, g2, g3 = trs_kernels().arb(
        B.cos() * A.cos(), B.cos() * A.sin(), B.sin(), lam, *setting.P)
    quad = h11 * x1 * x1 + h22 * x2 * x2 + h33 * x3 * x3 + 2 * (h12 * x1 * x2 + h13 * x1 * x3 + h23 * x2 * x3) + a0 * x4 * x4
    return c + quad - 2 * (g1 * x1 + g2 * x2 + g3 * x3)


def edge_bound(S, K, Lam) -> arb:
    """min over s in [kappa_0, 1], lam in Lam of P(s) erfc(c2 s), divided by 1 + kappa_1 (a ball whose lower end is
    what the valley-edge test uses)."""
    v = valley_edge_kernels().arb(hull(K[0], 1.0), hull(*Lam), S.P[0], S.P[2])[0]
    return arb(v.lower()) / (1 + arb(K[1]))


def leaf_test(S, leaf, box, U, memo):
    """Evaluate one leaf on its box ((kappa), (t), (lam)); returns its lower bound of m (``bound`` leaves) or None;
    raises Rejected. ``U``: the oracle's model (a function of the lam box) or the witness's risk (a ball)."""
    (K, (t0, t1), Lam), test = box, leaf.get("test")
    if (K, Lam) not in memo:
        memo[K, Lam] = S.coefficient_models(K, Lam)
    co, kap = memo[K, Lam], S.kappa_model(K, Lam)
    if test == "valley":
        out = S.K.valley(*co[:-1], kap)
        if not all(o.range() > 0 for o in out):
            raise Rejected(f"valley leaf {box}: Q, beta, Delta, T > 0 not proved: {[str(o.range()) for o in out]}")
        return None
    if test == "valley-edge":
        Q, *rest = S.K.valley(*co[:-1], kap)
        E = edge_bound(S, K, Lam)
        if not (all(o.range() > 0 for o in rest) and Q.range() + E > 0):
            raise Rejected(f"valley-edge leaf {box}: beta, Delta, T > 0 and Q + E > 0 not proved: "
                           f"{[str(o.range()) for o in rest]}, Q {Q.range()}, E {E}")
        return None
    beta = number(leaf.get("beta"), f"beta of leaf {box}")
    L0, L1, Delta, T = S.K.dual_line(*co, kap, arb(beta))
    if not (beta > 0 and Delta.range() > 0 and T.range() > 0):
        raise Rejected(f"{test} leaf {box}: H - mu I positive definite not proved at beta = {beta!r} "
                       f"(Delta {Delta.range()}, T {T.range()})")
    ends = [(1 - arb(t)) * L0 + arb(t) * L1 for t in (t0, t1)]
    if test == "bound":
        return min(arb(e.range().lower()) for e in ends)
    if callable(U):
        if ("U", Lam) not in memo:
            memo["U", Lam] = U(Lam, co[0].r)
        U = memo["U", Lam]
    F = [(e - U).range() for e in ends]
    if not all(f > 0 for f in F):
        raise Rejected(f"value leaf {box}: F > 0 not proved at beta = {beta!r}: {[str(f) for f in F]}")
    return None


def enclosure_values(W, lows, kept):
    """The conclusion of an enclosure: min R in [min(kept lows, W), W] (a global minimiser lies in a bound leaf:
    every value leaf has m > W >= the minimum); |kappa| over the bound leaves; eta^2 = t (1 - kappa^2) and
    r^2 = (1 - t)(1 - kappa^2) are monotone in (t, kappa) on [0, 1]^2, so their extremes sit at the corners of the
    bound leaves' hull, evaluated at exact points."""
    lo = min(min(lows), arb(W.lower()))
    k_lo, k_hi = min(b[0][0] for b in kept), max(b[0][1] for b in kept)
    t_lo, t_hi = min(b[1][0] for b in kept), max(b[1][1] for b in kept)
    eta_lo = (arb(t_lo) * (1 - arb(k_hi) ** 2)).sqrt().lower()
    eta_hi = (arb(t_hi) * (1 - arb(k_lo) ** 2)).sqrt().upper()
    r_hi = ((1 - arb(t_lo)) * (1 - arb(k_lo) ** 2)).sqrt().upper()
    up = lambda x: math.nextafter(float(x), math.inf)
    return {"risk": (outward(lo)[0], outward(W)[1]), "kappa": (k_lo, k_hi), "t": (t_lo, t_hi),
            "eta": (math.nextafter(float(eta_lo), -math.inf), up(eta_hi)), "r": (0.0, up(r_hi))}


def check_circle(S, circle, kept, lam):
    """The circle test (see the module) on every piece; the pieces must cover the bound leaves' kappa range."""
    if not isinstance(circle, list) or not circle:
        raise Rejected(f"circle must be a non-empty list of pieces, got {circle!r}")
    pieces = sorted((interval(p.get("kappa"), "circle kappa"), interval(p.get("beta"), "circle beta")) for p in circle)
    reach, k_lo, k_hi = pieces[0][0][0], min(b[0][0] for b in kept), max(b[0][1] for b in kept)
    if reach > k_lo:
        raise Rejected(f"the circle pieces start at kappa = {reach!r}, above the bound leaves' {k_lo!r}")
    for (K, (bs, bb)) in pieces:
        if K[0] > reach:
            raise Rejected(f"the circle pieces leave kappa in [{reach!r}, {K[0]!r}] uncovered")
        reach = max(reach, K[1])
        if not 0 < bs < bb:
            raise Rejected(f"circle piece {K}: the bracket must have 0 < beta_s < beta_b, got {[bs, bb]}")
        co, kap = S.coefficient_models(K, (lam, lam)), S.kappa_model(K, (lam, lam))
        _, _, Delta, T = S.K.dual_line(*co, kap, arb(bs))
        lo_slope, hi_slope = S.K.circle(*co, kap, arb(bs))[0], S.K.circle(*co, kap, arb(bb))[0]
        gap = S.K.circle(*co, kap, hull(bs, bb))[1]
        if not (Delta.range() > 0 and T.range() > 0 and lo_slope.range() > 0 and hi_slope.range() < 0
                and gap.range() > 0):
            raise Rejected(f"circle piece {K}, beta in {[bs, bb]}: not proved (Delta {Delta.range()}, T {T.range()}, "
                           f"slopes {lo_slope.range()}, {hi_slope.range()}, L0 - L1 {gap.range()})")
    if reach < k_hi:
        raise Rejected(f"the circle pieces end at kappa = {reach!r}, below the bound leaves' {k_hi!r}")


def check_profile(doc, kind, setting, domain, leaves):
    """Every leaf of a profile certificate; returns (values, the conclusion's tail)."""
    S = SettingBalls(*setting)
    if kind != "global-minimum-enclosure":
        U, values = S.oracle_model, {}
    else:
        w = doc.get("witness")
        if not isinstance(w, dict) or not isinstance(w.get("x"), list) or len(w["x"]) != 4:
            raise Rejected(f"an enclosure needs a witness {{a, b, x (4 numbers)}}, got {w!r}")
        xs = [number(x, "witness x") for x in w["x"]]
        if not any(xs):
            raise Rejected("the witness's x must not be zero (v = x / |x|)")
        U = pair_risk(S, arb(domain[2][0]), number(w.get("a"), "witness a"), number(w.get("b"), "witness b"), xs)
        if not U.is_finite():
            raise Rejected(f"the witness's risk is not finite: {U}")
        values = {"witness_risk": outward(U)}
    memo, lows, kept = {}, [], []
    for leaf in leaves:
        box = tuple((number(leaf["box"][c][0], c), number(leaf["box"][c][1], c)) for c in ("kappa", "t", "lam"))
        low = leaf_test(S, leaf, box, U, memo)
        if low is not None:
            if not low.is_finite():
                raise Rejected(f"bound leaf {box}: its lower bound is not finite ({low})")
            lows.append(low)
            kept.append(box)
    if kind != "global-minimum-enclosure":
        return values, ""
    if not kept:
        raise Rejected("an enclosure needs at least one bound leaf (the minimiser's boxes)")
    values.update(enclosure_values(U, lows, kept))
    r_text = f"r <= {values['r'][1]!r}"
    if doc.get("circle") is not None:
        check_circle(S, doc["circle"], kept, domain[2][0])
        k_lo, k_hi = values["kappa"]
        values.update(r=(0.0, 0.0), t=(1.0, 1.0), eta=(math.nextafter(float((1 - arb(k_hi) ** 2).sqrt().lower()), -math.inf),
                                                       math.nextafter(float((1 - arb(k_lo) ** 2).sqrt().upper()), math.inf)))
        r_text = "r = 0: every global minimiser has k in span(k*, v*)"
    return values, (f": the global minimum in {values['risk']}, |kappa| in {values['kappa']}, |eta| in {values['eta']}, "
                    f"{r_text}")
