r"""The checker's test of the window's ends (`docs/MATH.md` §17; `docs/certificates.md`, kind ``oracle-window``).

Part of the checker (:mod:`.replay`): it imports none of the searches. An ``oracle-window`` certificate is an
``oracle-global-minimiser`` certificate over [A, B] (its leaves: (k*, v*) is the unique global minimiser of R_lam for
every lam of [A, B]) with ``ends``: each end an enclosure [a, A] (lower) or [B, b] (upper) whose outer point is shown
to be **outside** W = {lam : (k*, v*) is a global minimiser of R_lam}:

* ``crossing``: an explicit pair (k, v) (``witness``: a, b, x as in :func:`.replay_profile.pair_risk`) whose certified
  risk at the outer point is below the oracle's (premises ``quadratic-in-v``, ``oracle-risk``);
* ``pitchfork``: the profile's second derivative at k* along ``direction`` (``v*`` or ``e``) is < 0 at the outer point
  (the closed form of the implicit-function theorem, premise ``oracle-curvature``, valid where the two gaps
  H11 - mu0, H33 - mu0 are > 0, checked here): k* is not a local minimiser of the profile, so some pair near
  (k*, v*) has lower risk.

W is closed (R_lam is continuous in lam uniformly on the compact S^{d-1} x S^{d-1}), so the connected component of W
that contains [A, B] is a closed interval [lo, hi] with lo in (a, A] and hi in [B, b): the oracle is a global
minimiser for every lam of [lo, hi], the unique one up to the symmetries on [A, B]. An upper end ``none`` says that
[A, B] reaches the scanned range's end B with no end of W found below it.
"""
from __future__ import annotations

import math

from flint import arb, arb_series, ctx

from ..kernels.profile import oracle_arb, oracle_curvature_kernels
from .replay_base import Rejected, interval, number, outward
from .replay_profile import pair_risk

__all__ = ["DIRECTIONS", "check_ends", "ends_text", "curvature_at"]

#: the two directions of the chart around k* (`docs/MATH.md` §17): their index in the closed form
DIRECTIONS = {"v*": 0, "e": 1}


def curvature_at(S, lam, direction):
    """The profile's second derivative at k* along ``direction`` and the two gaps at the point ``lam`` (a float), as
    balls: the closed form at the float setting (gamma, eps exact) plus its gradient in (gamma, eps) over their
    one-ulp balls times the ulp (a centred form: evaluated on the balls directly, the closed form's cancellations
    widen it 1e4-fold). 128 bits at least."""
    with ctx.workprec(max(128, ctx.prec)):
        lam_b, g, e, d, L = arb(lam), arb(S.gamma), arb(S.eps), arb(S.d), arb(S.L)
        point = oracle_curvature_kernels().arb(lam_b, g, e, d, L)
        series = oracle_curvature_kernels().series
        dg = series(lam_b, arb_series([S.P[0], 1], prec=2), e if not S.eps else S.P[1], d, L)
        de = series(lam_b, S.P[0], arb_series([S.P[1], 1], prec=2), d, L) if S.eps else None
        out = []
        for i, v in enumerate(point):
            w = _c1(dg[i]) * arb(0, math.ulp(S.gamma))
            if de is not None:
                w += _c1(de[i]) * arb(0, math.ulp(S.eps))
            out.append(v + w)
    return out[DIRECTIONS[direction]], out[2], out[3]


def _c1(s):
    if not isinstance(s, arb_series):
        return arb(0)
    c = s.coeffs()
    return c[1] if len(c) > 1 else arb(0)


def _oracle(S, lam):
    return oracle_arb()(arb(lam), *S.P)[0]


def check_ends(doc, S, domain) -> dict:
    """The ends of an ``oracle-window`` certificate over ``domain``'s lam = [A, B]: returns the values (enclosures,
    mechanisms, the certified numbers); raises Rejected."""
    ends = doc.get("ends")
    if not isinstance(ends, dict) or set(ends) != {"lo", "hi"}:
        raise Rejected(f"an oracle-window certificate needs ends {{lo, hi}}, got {ends!r}")
    A, B = domain[2]
    values = {}
    for side, inner in (("lo", A), ("hi", B)):
        e = ends[side]
        if not isinstance(e, dict):
            raise Rejected(f"end {side} must be an object, got {e!r}")
        mech = e.get("mechanism")
        if side == "hi" and mech == "none":
            values["hi"] = None
            values["mechanism_hi"] = "none"
            continue
        a, b = interval(e.get("enclosure"), f"end {side} enclosure")
        if (b if side == "lo" else a) != inner or not a < b:
            raise Rejected(f"end {side}'s enclosure {[a, b]} must end at the proved interval's {side} end {inner!r}")
        out = a if side == "lo" else b
        if mech == "crossing":
            w = e.get("witness")
            if not isinstance(w, dict) or not isinstance(w.get("x"), list) or len(w["x"]) != 4:
                raise Rejected(f"end {side}: a crossing needs a witness {{a, b, x (4 numbers)}}, got {w!r}")
            xs = [number(x, f"end {side} witness x") for x in w["x"]]
            if not any(xs):
                raise Rejected(f"end {side}: the witness's x must not be zero (v = x / |x|)")
            R = pair_risk(S, arb(out), number(w.get("a"), "witness a"), number(w.get("b"), "witness b"), xs)
            U = _oracle(S, out)
            if not R < U:
                raise Rejected(f"end {side}: the witness's risk {R} is not below the oracle's {U} at lam = {out!r}")
            values[f"witness_{side}"] = {"risk": outward(R), "oracle_risk": outward(U)}
        elif mech == "pitchfork":
            direction = e.get("direction")
            if direction not in DIRECTIONS:
                raise Rejected(f"end {side}: direction must be one of {sorted(DIRECTIONS)}, got {direction!r}")
            c2, g1, g3 = curvature_at(S, out, direction)
            if not (g1 > 0 and g3 > 0):
                raise Rejected(f"end {side}: the closed-form curvature needs H11 - mu0, H33 - mu0 > 0 at lam = {out!r}, "
                               f"got {g1}, {g3}")
            if not c2 < 0:
                raise Rejected(f"end {side}: the curvature along {direction} at k* is not < 0 at lam = {out!r}: {c2}")
            values[f"curvature_{side}"] = {"direction": direction, "lam": out, "value": outward(c2)}
        else:
            raise Rejected(f"end {side}: mechanism must be 'crossing' or 'pitchfork'{' or none' if side == 'hi' else ''}, "
                           f"got {mech!r}")
        values[side] = (a, b)
        values[f"mechanism_{side}"] = mech
    return values


def ends_text(values) -> str:
    """The conclusion's tail for the ends (from the checker's values)."""
    lo, hi = values["lo"], values["hi"]
    w_lo = f"{lo[1] - lo[0]:.2g}"
    out = f"; W's end lo is in [{lo[0]!r}, {lo[1]!r}] (width {w_lo}: {values['mechanism_lo']}"
    if hi is None:
        return out + "); no upper end of W below the proved interval's end"
    return out + f"), its end hi in [{hi[0]!r}, {hi[1]!r}] (width {hi[1] - hi[0]:.2g}: {values['mechanism_hi']})"
