r"""Binding (`docs/certificates.md`, "Binding"): does a replayed certificate prove the statement a claim reports?

An accepted certificate at another gamma, eps, d, L or over another lam proves something true, but not the claim.
:func:`proves` is the one comparison every claim makes (a replay), :func:`binds` the same on a certificate's fields
read without replaying. In order (the reason names the first field that does not bind): accepted; the kind; each
setting parameter the kind's statement is about (d, L equal; gamma and eps as the checker's one-ulp balls: a float of
the claim equal, an exact real inside, gamma2 = q inside [max(lo, 0)^2, hi^2], in ``Fraction`` arithmetic); each
coordinate the claim names inside what the certificate proves over it (its domain interval, or the one-ulp ball of a
widened point); an ``oracle-window``'s ends (lo in [a, A], hi in [B, b]) inside the claim's enclosures. What a kind's
statement is about and widens is its registry entry (:data:`.registry.KINDS`).
"""
from __future__ import annotations

import math
from fractions import Fraction

from . import balls
from .fields import Rejected, number
from .registry import KINDS as _REGISTRY

#: kind -> (the setting parameters its statement is about, its coordinates the checker widens to a one-ulp ball)
KINDS = {name: (k.about, k.widened) for name, k in _REGISTRY.items()}


class _Mismatch(Exception):
    """The first field that does not bind (its message is the reason)."""


def proves(rep, *, kind, setting, lam=None, domain=None, ends=None) -> tuple:
    """Whether the replayed certificate ``rep`` (``.accepted``, ``.reason``, ``.values`` with kind, setting, domain
    and, for an ``oracle-window``, lo and hi) proves the claim's statement: (True, what bound) or (False, the first
    mismatch). ``kind``: a kind or a collection of kinds; ``setting``: d, L, eps and one of gamma, gamma2 (see the
    module); ``lam``: a point or a (lo, hi) pair; ``domain``: {coordinate: point or (lo, hi)} for the others;
    ``ends``: {"lo": (lo, hi), "hi": (lo, hi)}, the claim's enclosures of an ``oracle-window``'s ends."""
    if not getattr(rep, "accepted", False):
        return False, f"not accepted by the checker ({getattr(rep, 'reason', 'no replay')})"
    return binds(getattr(rep, "values", None) or {}, kind=kind, setting=setting, lam=lam, domain=domain, ends=ends)


def binds(values, *, kind, setting, lam=None, domain=None, ends=None) -> tuple:
    """:func:`proves` on a certificate's fields (``values``: a :class:`Replay`'s values, or the same fields read off a
    document: kind, setting {gamma, eps, d, L}, domain {coordinate: [lo, hi]}, lo and hi for an ``oracle-window``),
    without the replay's verdict. A malformed field does not bind (no exception)."""
    kinds = (kind,) if isinstance(kind, str) else tuple(kind)
    unknown = [k for k in kinds if k not in KINDS]
    if not kinds or unknown:
        raise ValueError(f"kind must be one or more of {sorted(KINDS)}, got {kind!r}")
    want = _claim_setting(setting)
    coords = dict(domain or {})
    if lam is not None:
        coords["lam"] = lam
    try:
        done = _bind(values, kinds, want, coords, ends)
    except _Mismatch as e:
        return False, str(e)
    return True, "binds the claim: " + done


# --------------------------------------------------------------------------- the claim's side
def _claim_setting(s) -> dict:
    """The claim's setting checked: d, L integers; eps; exactly one of gamma, gamma2 (ValueError: a claim's bug)."""
    keys = set(s)
    if not ({"d", "L", "eps"} <= keys and len(keys & {"gamma", "gamma2"}) == 1 and keys <= {"d", "L", "eps", "gamma", "gamma2"}):
        raise ValueError(f"setting must give d, L, eps and one of gamma, gamma2, got {sorted(keys)}")
    for k in ("d", "L"):
        if type(s[k]) is not int:
            raise ValueError(f"setting {k} must be an int, got {s[k]!r}")
    for k in keys & {"gamma", "gamma2", "eps"}:
        if not _is_real(s[k]):
            raise ValueError(f"setting {k} must be a float, an int or a Fraction, got {s[k]!r}")
    return dict(s)


def _is_real(x) -> bool:
    return not isinstance(x, bool) and isinstance(x, (int, float, Fraction)) and (not isinstance(x, float) or math.isfinite(x))


def _show(x) -> str:
    """A number of the claim as it reads: a float's repr, a small fraction as p/q, a long one as its float (exactly)."""
    if isinstance(x, float):
        return repr(x)
    x = Fraction(x)
    if x.denominator == 1 or x.denominator <= 10**6:
        return str(x)
    return f"{float(x)!r} (exactly {x.numerator}/{x.denominator})"


# --------------------------------------------------------------------------- the certificate's side
def _float(x, what) -> float:
    """A number of the certificate as the checker reads it (:func:`.fields.number`: an exact float), or a mismatch
    naming it."""
    try:
        return number(x, what)
    except Rejected as e:
        raise _Mismatch(str(e)) from None


def _pair(x, what) -> tuple:
    if not (isinstance(x, (list, tuple)) and len(x) == 2):
        raise _Mismatch(f"{what} is not a [lo, hi] pair: {x!r}")
    lo, hi = _float(x[0], what), _float(x[1], what)
    if not lo <= hi:
        raise _Mismatch(f"{what} has lo > hi: {x!r}")
    return lo, hi


def _ball(b) -> tuple:
    """The ends of the ball b the checker evaluates (:func:`.balls.param_ball`, :func:`.balls.widened`), exactly."""
    (m, e), (r, f) = b.mid().man_exp(), b.rad().man_exp()
    mid, rad = (Fraction(int(a)) * Fraction(2) ** int(b) for a, b in ((m, e), (r, f)))
    return mid - rad, mid + rad


# --------------------------------------------------------------------------- the comparison
def _bind(values, kinds, want, coords, ends) -> str:
    if not isinstance(values, dict):
        raise _Mismatch(f"the certificate has no values: {values!r}")
    k = values.get("kind")
    if k not in kinds:
        raise _Mismatch(f"kind {k!r} is not the claim's {' or '.join(kinds)}")
    about, widened = KINDS[k]
    got = values.get("setting")
    if not isinstance(got, dict):
        raise _Mismatch(f"the certificate has no setting: {got!r}")
    said = [_parameter(name, got, want) for name in about]
    dom = values.get("domain")
    if not isinstance(dom, dict):
        raise _Mismatch(f"the certificate has no domain: {dom!r}")
    for c, x in coords.items():
        if c not in dom:
            raise _Mismatch(f"the certificate's domain has no coordinate {c} (it has {sorted(dom)})")
        said.append(_coordinate(c, _pair(dom[c], f"domain {c}"), x, c in widened))
    if ends is not None:
        if k != "oracle-window":
            raise _Mismatch(f"the claim states W's ends, which a {k} certificate does not")
        said.append(_ends(values, _pair(dom.get("lam"), "domain lam"), ends))
    return f"kind {k}; " + ", ".join(said)


def _parameter(name, got, want) -> str:
    """One setting parameter of the certificate against the claim's (module docstring, 3)."""
    if name not in got:
        raise _Mismatch(f"the certificate's setting has no {name}")
    if name in ("d", "L"):
        x = got[name]
        if type(x) is not int or x != want[name]:
            raise _Mismatch(f"{name} {x!r} is not the claim's {name} = {want[name]}")
        return f"{name} = {x}"
    g = _float(got[name], f"setting {name}")
    lo, hi = _ball(balls.param_ball(name, g))
    if name == "gamma" and "gamma2" in want:
        q = Fraction(want["gamma2"])
        if not (max(lo, Fraction(0)) ** 2 <= q <= hi**2):
            raise _Mismatch(f"gamma {g!r} is not within one ulp of the claim's gamma^2 = {_show(want['gamma2'])}")
        return f"gamma {g!r} within one ulp of gamma^2 = {_show(want['gamma2'])}"
    c = want[name]
    if isinstance(c, float):
        if c != g:
            raise _Mismatch(f"{name} {g!r} is not the claim's {name} = {c!r} (a float: equal exactly)")
        return f"{name} = {g!r}"
    if not lo <= Fraction(c) <= hi:
        raise _Mismatch(f"{name} {g!r} is not within one ulp of the claim's {name} = {_show(c)}")
    return f"{name} {g!r} within one ulp of {_show(c)}"


def _coordinate(c, box, x, widened) -> str:
    """The claim's point or interval ``x`` of coordinate ``c`` inside what the certificate proves over it (``box``,
    or, ``widened``, the one-ulp ball of its point)."""
    if widened:
        if box[0] != box[1]:
            raise _Mismatch(f"domain {c} {list(box)} is not a point (the kind's {c} is one)")
        lo, hi = _ball(balls.widened(box[0]))
        proved = f"the one-ulp ball of {c} = {box[0]!r}"
        if isinstance(x, float):
            if x != box[0]:
                raise _Mismatch(f"{c} {box[0]!r} is not the claim's {c} = {x!r} (a float: equal exactly)")
            return f"{c} = {x!r}"
    else:
        lo, hi = Fraction(box[0]), Fraction(box[1])
        proved = f"{c} in [{box[0]!r}, {box[1]!r}]"
    if isinstance(x, (tuple, list)):
        if not (len(x) == 2 and all(_is_real(v) for v in x) and x[0] <= x[1]):
            raise ValueError(f"the claim's {c} must be a point or a (lo, hi) pair, got {x!r}")
        a, b, text = Fraction(x[0]), Fraction(x[1]), f"[{_show(x[0])}, {_show(x[1])}]"
    elif _is_real(x):
        a = b = Fraction(x)
        text = _show(x)
    else:
        raise ValueError(f"the claim's {c} must be a point or a (lo, hi) pair, got {x!r}")
    if not (lo <= a and b <= hi):
        raise _Mismatch(f"{c}: the claim's {c} = {text} is not inside {proved}, what the certificate proves")
    return f"{c} = {text} inside {proved}"


def _ends(values, lam, ends) -> str:
    """An oracle-window's ends (module docstring, 5): lo in [a, A] and hi in [B, b] inside the claim's enclosures."""
    if not (isinstance(ends, dict) and set(ends) <= {"lo", "hi"}):
        raise ValueError(f"ends must be {{'lo': (lo, hi), 'hi': (lo, hi)}}, got {ends!r}")
    said = []
    for side, (c_lo, c_hi) in ends.items():
        enc = values.get(side)
        if enc is None:
            raise _Mismatch(f"ends: the certificate states no {side} end of W (the claim's is in [{c_lo!r}, {c_hi!r}])")
        a, b = _pair(enc, f"end {side}")
        stated = (a, lam[0]) if side == "lo" else (lam[1], b)
        if not (Fraction(c_lo) <= Fraction(stated[0]) and Fraction(stated[1]) <= Fraction(c_hi)):
            raise _Mismatch(f"ends: the certificate's {side} in [{stated[0]!r}, {stated[1]!r}] is not inside the claim's "
                            f"[{c_lo!r}, {c_hi!r}]")
        said.append(f"{side} in [{stated[0]!r}, {stated[1]!r}] inside [{c_lo!r}, {c_hi!r}]")
    return "; ".join(said)
