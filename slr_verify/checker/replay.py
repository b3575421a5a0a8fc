r"""The checker's entry point: :func:`replay` decides whether a certificate proves the statement :func:`statement`
derives (`docs/certificates.md`, "What the checker does", steps 0-6, and "The checker, module by module").
"""
from __future__ import annotations

import time
from dataclasses import dataclass, field

from flint import ctx

from .balls import outward  # noqa: F401  (the one place a ball becomes floats)
from .coverage import check_coverage
from .fields import Rejected, integer, interval, keys, number
from .premises import check_named, session
from .profile import SettingBalls
from .reader import Unreadable, load
from .registry import COMMON, KINDS, required_premises

FORMAT = "slr-verify-certificate/1"
#: the widest admitted precisions of the ball arithmetic (bits); each kind admits a range inside it (``Kind.prec``)
PREC = (64, 256)
_COUNT_MAX = 2 ** 53


_MINTING: list = []  # non-empty while :func:`_mint` builds an accepted Replay (dataclasses.replace cannot)


@dataclass(frozen=True)
class Replay:
    """``reason``: what failed, or what was checked; ``conclusion``: what an accepted certificate proves (derived here);
    ``values``: its numbers (enclosures as outward-rounded (lo, hi) floats), kind, setting, domain, lam, prec, premises.
    Frozen; an accepted one is made by :func:`replay` only (anyone may state a rejection)."""

    accepted: bool
    reason: str
    conclusion: str | None = None
    leaves: int = 0
    seconds: float = 0.0
    values: dict = field(default_factory=dict)

    def __post_init__(self):
        if self.accepted and not _MINTING:
            raise TypeError("an accepted Replay is made by slr_verify.checker.replay only")


def _mint(*fields) -> Replay:
    _MINTING.append(True)
    out = Replay(True, *fields)
    _MINTING.pop()
    return out


def _setting(doc) -> tuple:
    s = keys(doc["setting"], "setting", ("gamma", "eps", "d", "L"))
    g, e = number(s["gamma"], "setting gamma"), number(s["eps"], "setting eps")
    if not (g > 0 and e >= 0):
        raise Rejected(f"setting outside the model: gamma = {g!r}, eps = {e!r} (gamma > 0, eps >= 0)")
    return g, e, integer(s["d"], "setting d", 4, _COUNT_MAX), integer(s["L"], "setting L", 1, _COUNT_MAX)


def _domain(doc, kind) -> dict:
    dom = keys(doc["domain"], "domain", kind.coordinates)
    box = {c: interval(dom[c], f"domain {c}") for c in kind.coordinates}
    for c, iv in kind.fixed.items():
        if box[c] != iv:
            raise Rejected(f"domain {c} must be {list(iv)} for {kind.name}, got {list(box[c])}")
    for c in kind.points:
        if box[c][0] != box[c][1]:
            raise Rejected(f"domain {c} must be a point for {kind.name}, got {list(box[c])}")
    for c in kind.positive:
        if not box[c][0] > 0:
            raise Rejected(f"domain {c} must be > 0, got {list(box[c])}")
    kind.rule(box)
    return box


def _read(doc):
    """(kind, setting, domain, statement text) of a document: fields, setting, domain and the derived statement."""
    if not isinstance(doc, dict):
        raise Rejected(f"a certificate is a JSON object, got {type(doc).__name__}")
    if doc.get("format") != FORMAT:
        raise Rejected(f"format must be {FORMAT!r}, got {doc.get('format')!r}")
    if doc.get("kind") not in KINDS:
        raise Rejected(f"kind must be one of {sorted(KINDS)}, got {doc.get('kind')!r}")
    kind = KINDS[doc["kind"]]
    keys(doc, f"a {kind.name} certificate", COMMON + kind.fields, ("search",) + kind.optional)
    setting, domain = _setting(doc), _domain(doc, kind)
    return kind, setting, domain, kind.statement(setting, domain, doc)


def statement(document) -> str:
    """What ``document`` proves if :func:`replay` accepts it; Rejected if its kind, setting or domain is malformed."""
    return _read(document)[3]


def embedded(doc, kind, setting, lam, prec) -> dict:
    """The kind's embedded certificates, each checked in full (:func:`_check`), at the outer setting in each parameter
    its statement is about, over a lam interval holding ``lam``; {field: its conclusion}."""
    out = {}
    for name, sub_kind in kind.embedded.items():
        sub = doc.get(name)
        if not isinstance(sub, dict) or sub.get("kind") != sub_kind:
            raise Rejected(f"{name} must be a {sub_kind} certificate")
        try:
            text, values = _check(sub, prec)
        except Rejected as e:
            raise Rejected(f"{name}: {e}") from None
        want = dict(zip(("gamma", "eps", "d", "L"), setting))
        if any(values["setting"][k] != want[k] for k in kind.about):
            raise Rejected(f"{name}: its setting {values['setting']} is not the certificate's {want}")
        a, b = values["domain"]["lam"]
        if not (a <= lam[0] and lam[1] <= b):
            raise Rejected(f"{name}: its lam interval [{a!r}, {b!r}] does not hold the certificate's {list(lam)}")
        out[name] = text
    return out


def _check(doc, prec):
    kind, setting, domain, text = _read(doc)
    if doc["statement"] != text:
        raise Rejected(f"statement {doc['statement']!r} is not what the kind, setting and domain prove: {text!r}")
    names = kind.coordinates
    boxes = check_coverage(tuple(domain[c] for c in names), doc["tree"], doc["leaves"], names)
    bad = {leaf.get("test") for leaf in doc["leaves"]} - set(kind.tests)
    if bad:
        raise Rejected(f"leaf tests {sorted(map(str, bad))} are not admitted by {kind.name} ({kind.tests})")
    needed = required_premises(kind.name, doc)
    check_named(doc["premises"], needed)
    bits = integer(doc["prec"], "prec", *kind.prec)
    if prec is not None:
        bits = integer(prec, f"the replay's prec (a {kind.name} certificate)", *kind.prec)
    S = SettingBalls(*setting)
    with ctx.workprec(bits), session(needed) as served:
        values, tail = kind.check(doc, kind.name, S, tuple(domain[c] for c in names), boxes)
    embedded(doc, kind, setting, domain["lam"], prec)
    values.update({"kind": kind.name, "lam": domain["lam"], "domain": domain, "prec": bits,
                   "setting": dict(zip(("gamma", "eps", "d", "L"), setting)),
                   "premises": {"named": tuple(needed), "evaluated": tuple(n for n in needed if n in served)}})
    return text + tail, values


def replay(source=None, **options) -> Replay:
    """Check a certificate (a dict, or a ``.json`` / gzip path, :func:`.reader.load`) and say what it proves. ``prec``:
    bits in the kind's range (default: the certificate's). :class:`~.reader.Unreadable` if a file cannot be read or
    evaluated within the work cap (a dict the reader refuses is rejected, with its reason)."""
    unknown = set(options) - {"prec"}
    if unknown:
        raise ValueError(f"unknown keyword(s) {sorted(unknown)}: replay takes prec only")
    if source is None:
        raise ValueError("source must be a certificate: a dict, or the path of a .json or gzip JSON file")
    prec = options.get("prec")
    if prec is not None and (type(prec) is not int or not PREC[0] <= prec <= PREC[1]):
        raise ValueError(f"prec must be None or an integer in {list(PREC)} (bits of the ball arithmetic), got {prec!r}")
    t_start = time.time()
    try:
        doc = load(source)
    except Unreadable as e:
        if not isinstance(source, dict):
            raise  # a file that cannot be read: unreadable (the command line exits 2)
        return Replay(False, f"rejected: unreadable document: {e}", None, 0, time.time() - t_start)
    n = len(doc["leaves"]) if isinstance(doc.get("leaves"), list) else 0
    try:
        conclusion, values = _check(doc, prec)
    except Rejected as e:
        return Replay(False, f"rejected: {e}", None, n, time.time() - t_start)
    except TimeoutError as e:  # the work meter (:mod:`.work`): as the reader's refusal
        if not isinstance(source, dict):
            raise Unreadable(f"certificate {str(source)!r}: {e}") from None
        return Replay(False, f"rejected: unreadable document: {e}", None, n, time.time() - t_start)
    except Exception as e:  # noqa: BLE001
        # a malformed field the tests did not name, or an evaluation that cannot be carried out: never an acceptance
        return Replay(False, f"rejected: malformed certificate or undefined evaluation ({type(e).__name__}: {e})", None, n,
                      time.time() - t_start)
    return _mint(_accepted(doc, n, values), conclusion, n, time.time() - t_start, values)


def _accepted(doc, n, values) -> str:
    p, emb = values["premises"], [f for f in KINDS[values["kind"]].embedded if f in doc]
    return (f"accepted: the fields and the domain of a {values['kind']} certificate read and in range; its statement the "
            f"one derived here; {n} leaves tile the domain exactly and pass their tests at {values['prec']} bits"
            + (f"; the embedded {', '.join(emb)} checked in full" if emb else "") + f"; premises {', '.join(p['named'])} "
            f"named with the sha256 of the bytes this checker hashed and ran ({len(p['evaluated'])} evaluated in this process)")


