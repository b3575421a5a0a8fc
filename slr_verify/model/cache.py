"""The suite's on-disk cache folder: generated kernel sources (and Numba's cache), JAX's compiled executables, the
claims' last run times and the stored SymPy derivations all live under it."""
from __future__ import annotations

import os
import tempfile
from pathlib import Path


def cache_dir(sub=None) -> Path:
    """The cache folder: ``$SLR_VERIFY_CACHE``, default ``~/.cache/slr-verify``, created if needed (a per-user folder
    in the system's temporary folder when that one cannot be written); ``sub``: a subfolder of it, created too."""
    d = Path(os.environ.get("SLR_VERIFY_CACHE", Path.home() / ".cache" / "slr-verify"))
    try:
        d.mkdir(parents=True, exist_ok=True)
        probe = d / (".probe-%d" % os.getpid())
        probe.write_text("")
        probe.unlink()
    except OSError:
        d = Path(tempfile.gettempdir()) / ("slr-verify-%d" % os.getuid())
        d.mkdir(parents=True, exist_ok=True)
    if sub is not None:
        d = d / sub
        d.mkdir(parents=True, exist_ok=True)
    return d
