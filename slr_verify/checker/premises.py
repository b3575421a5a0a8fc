"""The premises the checker rests on, each a committed module of :mod:`.generated` named by the sha256 of its file:
the bytes hashed are the bytes run, and every evaluated premise is named (`docs/certificates.md`, "Premises" and
"The checker, module by module").
"""
from __future__ import annotations

import hashlib
import types
from contextlib import contextmanager
from functools import cache
from pathlib import Path

from .fields import Rejected
from .work import meter

#: the premises a certificate may name (each the module ``generated/<name with - as _, lower case>.py``); the one list
#: (``slr_verify.kernels.premises`` generates one module for each, and a test holds the two equal)
NAMES = ("quadratic-in-v", "dual-bound", "pd-criterion", "valley", "oracle-risk", "valley-edge", "circle",
         "oracle-curvature", "manifold-sign", "manifold-hessians", "reduced-map", "off-M-family", "pgd-map",
         "edge-invariance", "descent", "lojasiewicz", "zeta-partials", "coefficient-hessians")

#: premise -> the premises its kernels evaluate in turn (a kernel calling the runtime's ``ball_zeta``, which on a Taylor
#: series evaluates ``zeta-partials``); a test derives the same from the generated sources
DEPENDS = {n: ("zeta-partials",) for n in ("quadratic-in-v", "oracle-curvature", "off-M-family", "pgd-map", "lojasiewicz")}

_FOLDER = Path(__file__).resolve().parent / "generated"
_PACKAGE = f"{__package__}.generated"


def module_of(name) -> str:
    return name.replace("-", "_").lower()


def closure(names) -> tuple:
    """``names`` followed by the premises they depend on (:data:`DEPENDS`), each once, in order."""
    out = list(dict.fromkeys(names))
    for n in out:  # grows while it is read: the closure
        out += [m for m in DEPENDS.get(n, ()) if m not in out]
    return tuple(out)


@cache
def _loaded(name) -> tuple:
    """(hash, module) of the premise: its file's bytes read once, hashed, and those bytes compiled and executed."""
    path = _FOLDER / f"{module_of(name)}.py"
    source = path.read_bytes()
    digest = hashlib.sha256(source).hexdigest()[:32]
    mod = types.ModuleType(f"{_PACKAGE}.{module_of(name)}")
    mod.__file__, mod.__package__ = str(path), _PACKAGE
    exec(compile(source, str(path), "exec", dont_inherit=True), mod.__dict__)  # noqa: S102  (the hashed bytes)
    if getattr(mod, "PREMISE", None) != name:
        raise Rejected(f"the file of premise {name!r} declares PREMISE = {getattr(mod, 'PREMISE', None)!r}")
    meter(mod, _SESSIONS.__len__)  # its calls inside a replay counted (:mod:`.work`)
    return digest, mod


def premise_hash(name) -> str:
    """sha256 (32 hex digits) of the bytes of the premise's committed module, as this process reads and runs them."""
    return _loaded(name)[0]


_SESSIONS: list = []  # the open replays' (premises admitted, premises served), innermost last


@contextmanager
def session(names):
    """Within it :func:`kernels` serves only the premises ``names`` and records those it serves (the yielded set)."""
    served: set = set()
    _SESSIONS.append((frozenset(names), served))
    try:
        yield served
    finally:
        _SESSIONS.pop()


def kernels(name):
    """The premise's module (its kernels): the code of the bytes :func:`premise_hash` hashed. Inside a replay's
    :func:`session`, Rejected unless the certificate names it."""
    if _SESSIONS:
        admitted, served = _SESSIONS[-1]
        if name not in admitted:
            raise Rejected(f"the replay evaluates premise {name!r}, which the certificate does not name")
        served.add(name)
    return _loaded(name)[1]


def check_named(named, needed) -> None:
    """``named`` (a list of {name, hash}) is exactly the premises ``needed``, each named once with the hash of the
    bytes this checker runs: none missing, none unknown, none unneeded."""
    if not isinstance(named, list):
        raise Rejected(f"premises must be a list, got {type(named).__name__}")
    seen = {}
    for p in named:
        if not (isinstance(p, dict) and set(p) == {"name", "hash"}) or p["name"] not in NAMES or p["name"] in seen:
            raise Rejected(f"premise entry {p!r} is not a {{name, hash}} of a known premise named once")
        seen[p["name"]] = p["hash"]
    extra = [n for n in seen if n not in needed]
    if extra:
        raise Rejected(f"premise(s) {extra} named but not evaluated by this certificate (it needs {list(needed)})")
    for name in needed:
        if name not in seen:
            raise Rejected(f"premise {name!r} is missing")
        if seen[name] != premise_hash(name):
            raise Rejected(f"premise {name!r}: hash {seen[name]!r} is not that of the file the checker runs "
                           f"({premise_hash(name)})")

