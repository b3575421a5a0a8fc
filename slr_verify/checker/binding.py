r"""Binding (`docs/certificates.md`, "Binding": the rules, and what each kind binds): does a replayed certificate prove
the statement a claim reports? A kind binds the setting parameters its statement is about (:attr:`.registry.Kind.about`)
and the quantities :data:`QUANTITIES` lists for it; any other quantity a claim names does not bind.
"""
from __future__ import annotations

import math
from fractions import Fraction

from . import balls
from .fields import Rejected, interval, number
from .registry import KINDS as _REGISTRY

#: kind -> {quantity a claim may bind: how}, from the registry (lam, and ``Kind.binds``). "domain": inside the
#: certificate's domain interval; "ulp": inside the one-ulp ball of its point (``Kind.widened``); "alpha_5": Theorem 5's
#: step, in (0, alpha_5] of every lam piece meeting the claim's lam (the tiling's [0, A] is not bindable); "ends": an
#: oracle-window's ends inside the claim's enclosures; "tube": an oracle tube's D and Euclidean radius hold the claim's.
#: A new kind's quantity is its entry's, with its rule in _bind.
QUANTITIES = {n: {"lam": "ulp" if "lam" in k.widened else "domain", **k.binds} for n, k in _REGISTRY.items()}


def proves(rep, *, kind, setting, lam=None, domain=None, ends=None) -> tuple:
    """Whether the replay ``rep`` proves the claim's statement: (True, what bound) or (False, the first mismatch).
    ``kind``: one or several; ``setting``: d, L, eps, gamma or gamma2; ``lam`` and ``domain`` {quantity: x}: x a point
    or (lo, hi); ``ends``: {"lo": (lo, hi), "hi": (lo, hi)}, the claim's enclosures of an ``oracle-window``'s ends."""
    if not getattr(rep, "accepted", False):
        return False, f"not accepted by the checker ({getattr(rep, 'reason', 'no replay')})"
    return binds(getattr(rep, "values", None) or {}, kind=kind, setting=setting, lam=lam, domain=domain, ends=ends)


def binds(values, *, kind, setting, lam=None, domain=None, ends=None) -> tuple:
    """:func:`proves` on a certificate's fields (a :class:`Replay`'s values, or the same fields read off a document),
    without the replay's verdict. A malformed field does not bind (no exception); a malformed claim raises ValueError."""
    kinds = (kind,) if isinstance(kind, str) else tuple(kind)
    if not kinds or any(k not in QUANTITIES for k in kinds):
        raise ValueError(f"kind must be one or more of {sorted(QUANTITIES)}, got {kind!r}")
    claim = {**(domain or {}), **({} if lam is None else {"lam": lam}), **({} if ends is None else {"ends": ends})}
    try:
        return True, "binds the claim: " + _bind(values, kinds, _claim_setting(setting), claim)
    except Rejected as e:
        return False, str(e)


def _claim_setting(s) -> dict:
    """The claim's setting checked: d, L integers; eps; exactly one of gamma, gamma2 (ValueError: a claim's bug)."""
    keys = set(s)
    if not ({"d", "L", "eps"} <= keys and len(keys & {"gamma", "gamma2"}) == 1 and keys <= {"d", "L", "eps", "gamma", "gamma2"}):
        raise ValueError(f"setting must give d, L, eps and one of gamma, gamma2, got {sorted(keys)}")
    for k in keys:
        if not (type(s[k]) is int if k in ("d", "L") else _is_real(s[k])):
            raise ValueError(f"setting {k} must be an int (d, L) or a float, an int or a Fraction, got {s[k]!r}")
    return dict(s)


def _is_real(x) -> bool:
    return not isinstance(x, bool) and isinstance(x, (int, float, Fraction)) and (not isinstance(x, float) or math.isfinite(x))


def _show(x) -> str:
    """A number of the claim as it reads: a float's repr, a small fraction as p/q, a long one as its float (exactly)."""
    if isinstance(x, float):
        return repr(x)
    x = Fraction(x)
    return str(x) if x.denominator <= 10**6 else f"{float(x)!r} (exactly {x.numerator}/{x.denominator})"


def _claim(c, x) -> tuple:
    """The claim's point or (lo, hi) pair ``x`` of ``c``, exactly: (lo, hi, as it reads)."""
    if isinstance(x, (tuple, list)) and len(x) == 2 and all(_is_real(v) for v in x) and x[0] <= x[1]:
        return Fraction(x[0]), Fraction(x[1]), f"[{_show(x[0])}, {_show(x[1])}]"
    if _is_real(x):
        return Fraction(x), Fraction(x), _show(x)
    raise ValueError(f"the claim's {c} must be a point or a (lo, hi) pair, got {x!r}")


def _pair(x, what) -> tuple:  # a [lo, hi] pair of the certificate (a replay's values hold tuples)
    return interval(list(x) if isinstance(x, tuple) else x, what)


def _ball(b) -> tuple:
    """The ends of the ball b the checker evaluates (:func:`.balls.param_ball`, :func:`.balls.widened`), exactly."""
    (m, e), (r, f) = b.mid().man_exp(), b.rad().man_exp()
    mid, rad = Fraction(int(m)) * Fraction(2) ** int(e), Fraction(int(r)) * Fraction(2) ** int(f)
    return mid - rad, mid + rad


def _bind(values, kinds, want, claim) -> str:
    if not isinstance(values, dict):
        raise Rejected(f"the certificate has no values: {values!r}")
    k = values.get("kind")
    if k not in kinds:
        raise Rejected(f"kind {k!r} is not the claim's {' or '.join(kinds)}")
    table, got, dom = QUANTITIES[k], values.get("setting"), values.get("domain")
    if extra := [c for c in claim if c not in table]:
        raise Rejected(f"the claim binds {', '.join(extra)}, which a {k} certificate does not state (it binds the "
                       f"setting and {', '.join(table)})")
    for what, x in (("setting", got), ("domain", dom)):
        if not isinstance(x, dict):
            raise Rejected(f"the certificate has no {what}: {x!r}")
    said = [_parameter(name, got, want) for name in _REGISTRY[k].about]
    for c, how in ((c, how) for c, how in table.items() if c in claim):  # the table's order: lam first
        if how == "ends":
            said.append(_ends(values, _pair(dom.get("lam"), "domain lam"), claim[c]))
        elif how == "tube":
            said.append(_tube(values.get("tube"), claim[c]))
        elif how == "alpha_5":
            said.append(_alpha_5(values.get("pieces"), claim[c], claim.get("lam")))
        else:
            said.append(_coordinate(c, _pair(dom.get(c), f"domain {c}"), claim[c], how == "ulp"))
    return f"kind {k}; " + ", ".join(said)


def _parameter(name, got, want) -> str:
    """One setting parameter of the certificate against the claim's (`docs/certificates.md`, "Binding")."""
    if name not in got:
        raise Rejected(f"the certificate's setting has no {name}")
    if name in ("d", "L"):
        if type(got[name]) is not int or got[name] != want[name]:
            raise Rejected(f"{name} {got[name]!r} is not the claim's {name} = {want[name]}")
        return f"{name} = {got[name]}"
    g = number(got[name], f"setting {name}")
    lo, hi = _ball(balls.param_ball(name, g))
    if name == "gamma" and "gamma2" in want:
        if not max(lo, Fraction(0)) ** 2 <= Fraction(want["gamma2"]) <= hi**2:
            raise Rejected(f"gamma {g!r} is not within one ulp of the claim's gamma^2 = {_show(want['gamma2'])}")
        return f"gamma {g!r} within one ulp of gamma^2 = {_show(want['gamma2'])}"
    c = want[name]
    if isinstance(c, float) and c != g:
        raise Rejected(f"{name} {g!r} is not the claim's {name} = {c!r} (a float: equal exactly)")
    if not lo <= Fraction(c) <= hi:
        raise Rejected(f"{name} {g!r} is not within one ulp of the claim's {name} = {_show(c)}")
    return f"{name} = {g!r}" if isinstance(c, float) else f"{name} {g!r} within one ulp of {_show(c)}"


def _coordinate(c, box, x, widened) -> str:
    """The claim's ``x`` of ``c`` inside ``box`` or, ``widened``, the one-ulp ball of its point (a float: equal to it)."""
    a, b, text = _claim(c, x)
    lo, hi, proved = Fraction(box[0]), Fraction(box[1]), f"{c} in [{box[0]!r}, {box[1]!r}]"
    if widened:
        if box[0] != box[1]:
            raise Rejected(f"domain {c} {list(box)} is not a point (the kind's {c} is one)")
        if isinstance(x, float) and x != box[0]:
            raise Rejected(f"{c} {box[0]!r} is not the claim's {c} = {x!r} (a float: equal exactly)")
        (lo, hi), proved = _ball(balls.widened(box[0])), f"the one-ulp ball of {c} = {box[0]!r}"
    if not (lo <= a and b <= hi):
        raise Rejected(f"{c}: the claim's {c} = {text} is not inside {proved}, what the certificate proves")
    return f"{c} = {text}" if widened and isinstance(x, float) else f"{c} = {text} inside {proved}"


def _alpha_5(pieces, x, lam) -> str:
    """Theorem 5's step: alpha in (0, alpha_5] of every lam piece meeting the claim's lam (of every piece if none)."""
    a, b, text = _claim("alpha", x)
    l0, l1, where = _claim("lam", lam) if lam is not None else (-math.inf, math.inf, "any lam")
    if not (isinstance(pieces, list) and all(isinstance(p, dict) for p in pieces)):
        raise Rejected("alpha: the certificate states no lam pieces with their alpha_5")
    a5 = [number(p.get("alpha_5"), f"piece {i} alpha_5") for i, p in enumerate(pieces)
          if (iv := _pair(p.get("lam"), f"piece {i} lam"))[0] <= l1 and l0 <= iv[1]]
    if not a5:
        raise Rejected(f"alpha: no lam piece of the certificate meets the claim's lam = {where}")
    if not (0 < a and b <= min(a5)):
        raise Rejected(f"alpha: the claim's alpha = {text} is not inside (0, {min(a5)!r}], (0, alpha_5] on the "
                       f"{len(a5)} lam pieces meeting lam = {where}, what the certificate proves")
    return f"alpha = {text} inside (0, alpha_5 = {min(a5)!r}] on the {len(a5)} lam pieces meeting lam = {where}"


def _tube(t, x) -> str:
    """The claim's tube {"corner": c, "radius": r} (D = [c, 1]^2, |y|_2 <= r) inside the oracle tube's, exactly."""
    if not (isinstance(x, dict) and set(x) == {"corner", "radius"} and all(_is_real(v) for v in x.values())):
        raise ValueError(f"tube must be {{'corner': c, 'radius': r}}, got {x!r}")
    t = t if isinstance(t, dict) else {}
    k, n, m, r = (Fraction(number(t.get(f), f"the certificate's tube {f}")) for f in ("kappa", "nu", "margin", "euclidean"))
    if not (max(k, n) + m <= Fraction(x["corner"]) and 0 < Fraction(x["radius"]) <= r):
        raise Rejected(f"tube: the claim's D = [{_show(x['corner'])}, 1]^2, |y|_2 <= {_show(x['radius'])} is not inside "
                       f"the certificate's (kappa_0 >= {float(k)!r} + m, nu_0 >= {float(n)!r} + m, m = {float(m)!r}, "
                       f"|y_0|_2 <= {float(r)!r})")
    return f"tube D = [{_show(x['corner'])}, 1]^2, |y|_2 <= {_show(x['radius'])} inside the certificate's"


def _ends(values, lam, ends) -> str:
    """An oracle-window's ends: lo in [a, A] and hi in [B, b] inside the claim's enclosures."""
    if not (isinstance(ends, dict) and set(ends) <= {"lo", "hi"}):
        raise ValueError(f"ends must be {{'lo': (lo, hi), 'hi': (lo, hi)}}, got {ends!r}")
    said = []
    for side, (c_lo, c_hi) in ends.items():
        if values.get(side) is None:
            raise Rejected(f"ends: the certificate states no {side} end of W (the claim's is in [{c_lo!r}, {c_hi!r}])")
        a, b = _pair(values[side], f"end {side}")
        stated = (a, lam[0]) if side == "lo" else (lam[1], b)
        if not (Fraction(c_lo) <= Fraction(stated[0]) and Fraction(stated[1]) <= Fraction(c_hi)):
            raise Rejected(f"ends: the certificate's {side} in [{stated[0]!r}, {stated[1]!r}] is not inside the claim's "
                           f"[{c_lo!r}, {c_hi!r}]")
        said.append(f"{side} in [{stated[0]!r}, {stated[1]!r}] inside [{c_lo!r}, {c_hi!r}]")
    return "; ".join(said)
