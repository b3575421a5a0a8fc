"""The premises the checker rests on (`docs/certificates.md`, "Premises"): each a committed module of
:mod:`.generated` (its kernels and the SymPy statements proved about them by ``slr-verify derive --check``), named in a
certificate by the content hash of its file."""
from __future__ import annotations

import hashlib
import importlib
from functools import cache
from pathlib import Path

from .fields import Rejected

#: the premises a certificate may name (each the module ``generated/<name with - as _, lower case>.py``)
NAMES = ("quadratic-in-v", "dual-bound", "pd-criterion", "valley", "oracle-risk", "valley-edge", "circle",
         "oracle-curvature", "manifold-sign", "manifold-hessians", "reduced-map", "off-M-family", "pgd-map",
         "edge-invariance", "descent", "lojasiewicz")


def module_of(name) -> str:
    return name.replace("-", "_").lower()


@cache
def premise_hash(name) -> str:
    """sha256 (32 hex digits) of the bytes of the premise's committed module."""
    path = Path(__file__).resolve().parent / "generated" / f"{module_of(name)}.py"
    return hashlib.sha256(path.read_bytes()).hexdigest()[:32]


@cache
def kernels(name):
    """The premise's module (its kernels), checked to be the premise's."""
    mod = importlib.import_module(f"{__package__}.generated.{module_of(name)}")
    if mod.PREMISE != name:
        raise RuntimeError(f"generated module {mod.__name__} is the premise {mod.PREMISE!r}, not {name!r}")
    return mod


def check_named(named, needed) -> None:
    """Every premise of ``needed`` is in ``named`` (a list of {name, hash}) with the hash of its committed module; no
    premise is named twice or unknown."""
    if not isinstance(named, list):
        raise Rejected(f"premises must be a list, got {type(named).__name__}")
    seen = {}
    for p in named:
        if not (isinstance(p, dict) and set(p) == {"name", "hash"}) or p["name"] not in NAMES or p["name"] in seen:
            raise Rejected(f"premise entry {p!r} is not a {{name, hash}} of a known premise named once")
        seen[p["name"]] = p["hash"]
    for name in needed:
        if name not in seen:
            raise Rejected(f"premise {name!r} is missing")
        if seen[name] != premise_hash(name):
            raise Rejected(f"premise {name!r}: hash {seen[name]!r} is not that of the committed kernels "
                           f"({premise_hash(name)})")
