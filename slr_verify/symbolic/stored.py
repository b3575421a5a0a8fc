"""Derivations kept on disk: a SymPy derivation is a pure function of the symbolic layer's source, so its result is
stored (pickled) under the cache folder (:func:`slr_verify.model.cache.cache_dir`, subfolder ``derivations``) and read
back by later processes instead of derived again.

The key of a result is the derivation's qualified name, its arguments' ``repr``, a digest of every source file of
:mod:`slr_verify.symbolic` and SymPy's and Python's versions: any change to the mathematics derives afresh. A file
that cannot be read or unpickled is ignored (and rewritten). ``SLR_VERIFY_DERIVE_FRESH=1`` bypasses the store (every
derivation from scratch, nothing written). The proofs (the identities checked by ``simplify``) are never stored:
they are re-run on the expressions, stored or not.
"""
from __future__ import annotations

import functools
import hashlib
import os
import pickle
import sys
from pathlib import Path

import sympy as sp

from ..model.cache import cache_dir


@functools.cache
def source_digest() -> str:
    """sha256 of the symbolic layer's sources (sorted by name), SymPy's version and Python's major.minor."""
    h = hashlib.sha256(f"{sp.__version__}|{sys.version_info[:2]}".encode())
    for p in sorted(Path(__file__).parent.glob("*.py")):
        h.update(p.name.encode() + b"\0" + p.read_bytes())
    return h.hexdigest()[:20]


def _path(fn, args) -> Path:
    key = hashlib.sha256(f"{fn.__module__}.{fn.__qualname__}|{args!r}|{source_digest()}".encode()).hexdigest()[:24]
    return cache_dir("derivations") / f"{fn.__module__.rsplit('.', 1)[-1]}.{fn.__name__}-{key}.pickle"


def stored(fn):
    """``fn`` (a derivation of positional, hashable arguments with a picklable result) cached in the process and on
    disk (see the module)."""

    @functools.wraps(fn)
    @functools.lru_cache(maxsize=None)
    def wrapper(*args):
        if os.environ.get("SLR_VERIFY_DERIVE_FRESH"):
            return fn(*args)
        path = _path(fn, args)
        try:
            return pickle.loads(path.read_bytes())
        except (OSError, EOFError, pickle.UnpicklingError, AttributeError, ImportError, IndexError, TypeError, ValueError):
            pass
        out = fn(*args)
        tmp = path.with_name(f"{path.name}.{os.getpid()}.tmp")
        try:
            tmp.write_bytes(pickle.dumps(out, protocol=pickle.HIGHEST_PROTOCOL))
            os.replace(tmp, path)
        except (OSError, pickle.PicklingError, TypeError, AttributeError):
            tmp.unlink(missing_ok=True)
        return out

    wrapper.fresh = fn
    return wrapper
