r"""The window's ends of an ``oracle-window`` certificate: ``crossing``, ``pitchfork`` or ``none`` (`docs/MATH.md` §17;
`docs/certificates.md`, "The ends of an ``oracle-window``" and "The checker, module by module").
"""
from __future__ import annotations

from flint import arb, arb_series, ctx

from .decide import below, negative, positive
from .fields import Rejected, interval, keys
from .premises import kernels
from .profile import check_profile, witness_risk
from .taylor import series_coef

#: the two directions of the chart around k* (`docs/MATH.md` §17): their index in the closed form
DIRECTIONS = {"v*": 0, "e": 1}
_FIELDS = {"crossing": ("witness",), "pitchfork": ("direction",), "none": ()}


def ends_of(doc, lam) -> dict:
    """The ends' fields, read and checked against the proved interval ``lam`` = (A, B): {"lo": (a, A), "hi": (B, b)
    or None, "mechanism_lo", "mechanism_hi"}."""
    ends = keys(doc.get("ends"), "ends", ("lo", "hi"))
    A, B = lam
    out = {}
    for side, inner in (("lo", A), ("hi", B)):
        e = keys(ends[side], f"end {side}", ("mechanism",), ("enclosure", "witness", "direction"))
        mech = e["mechanism"]
        if mech not in _FIELDS or (mech == "none" and side == "lo"):
            raise Rejected(f"end {side}: mechanism must be 'crossing' or 'pitchfork'{' or none' if side == 'hi' else ''}, "
                           f"got {mech!r}")
        keys(e, f"end {side} ({mech})", ("mechanism",) + (("enclosure",) if mech != "none" else ()) + _FIELDS[mech])
        out[f"mechanism_{side}"] = mech
        if mech == "none":
            out[side] = None
            continue
        a, b = interval(e["enclosure"], f"end {side} enclosure")
        if (b if side == "lo" else a) != inner or not a < b or not a > 0:
            raise Rejected(f"end {side}'s enclosure {[a, b]} must be a proper interval of lam > 0 and must end at the "
                           f"proved interval's {side} end {inner!r}")
        out[side] = (a, b)
    return out


def curvature_at(S, lam, direction):
    """The profile's second derivative at k* along ``direction`` and the two gaps at the float ``lam``, as balls: the
    closed form at the float setting plus its gradient in (gamma, eps) over their balls S.P times S.P - the floats (a
    centred form: on the balls directly the closed form's cancellations widen it 1e4-fold). 128 bits at least."""
    f = kernels("oracle-curvature").oracle_curvature
    with ctx.workprec(max(128, ctx.prec)):
        P, lam_b, g, e = S.P, arb(lam), arb(S.gamma), arb(S.eps)
        point = f(lam_b, gamma=g, eps=e, d=P.d, L=P.L)
        dg = f(lam_b, gamma=arb_series([P.gamma, 1], prec=2), eps=P.eps if S.eps else e, d=P.d, L=P.L)
        de = f(lam_b, gamma=P.gamma, eps=arb_series([P.eps, 1], prec=2), d=P.d, L=P.L) if S.eps else None
        w = [series_coef(dg[i], 1) * (P.gamma - g) + (0 if de is None else series_coef(de[i], 1) * (P.eps - e))
             for i in range(len(point))]
        out = [v + x for v, x in zip(point, w)]
    return out[DIRECTIONS[direction]], out[2], out[3]


def check_ends(doc, S, lam) -> dict:
    """The ends of an ``oracle-window`` certificate over the proved interval ``lam``: the values (enclosures,
    mechanisms, the certified numbers); raises Rejected."""
    from .balls import outward

    values = ends_of(doc, lam)
    for side in ("lo", "hi"):
        if values[side] is None:
            continue
        e = doc["ends"][side]
        out = values[side][0] if side == "lo" else values[side][1]
        if values[f"mechanism_{side}"] == "crossing":
            R = witness_risk(S, out, e["witness"], f"end {side}'s witness")
            U = kernels("oracle-risk").oracle(arb(out), **S.P.kw())[0]
            if not below(R, U):
                raise Rejected(f"end {side}: the witness's risk {R} is not below the oracle's {U} at lam = {out!r}")
            values[f"witness_{side}"] = {"risk": outward(R), "oracle_risk": outward(U)}
            continue
        direction = e["direction"]
        if direction not in DIRECTIONS:
            raise Rejected(f"end {side}: direction must be one of {sorted(DIRECTIONS)}, got {direction!r}")
        c2, g1, g3 = curvature_at(S, out, direction)
        if not (positive(g1) and positive(g3)):
            raise Rejected(f"end {side}: the closed-form curvature needs H11 - mu0, H33 - mu0 > 0 at lam = {out!r}, "
                           f"got {g1}, {g3}")
        if not negative(c2):
            raise Rejected(f"end {side}: the curvature along {direction} at k* is not < 0 at lam = {out!r}: {c2}")
        values[f"curvature_{side}"] = {"direction": direction, "lam": out, "value": outward(c2)}
    return values


def ends_text(values) -> str:
    """The conclusion's tail for the ends (from the checker's values)."""
    lo, hi = values["lo"], values["hi"]
    out = f"; W's end lo is in [{lo[0]!r}, {lo[1]!r}] (width {lo[1] - lo[0]:.2g}: {values['mechanism_lo']}"
    if hi is None:
        return out + "); no upper end of W below the proved interval's end"
    return out + f"), its end hi in [{hi[0]!r}, {hi[1]!r}] (width {hi[1] - hi[0]:.2g}: {values['mechanism_hi']})"


def check_window(doc, kind, S, domain, boxes):
    """An ``oracle-window``: its ends first (two evaluations, before the leaves' thousands), then the profile's leaves."""
    ends = check_ends(doc, S, domain[2])
    return {**check_profile(doc, kind, S, domain, boxes)[0], **ends}, ends_text(ends)
