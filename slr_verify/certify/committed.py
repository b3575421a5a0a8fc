"""The committed certificates (`slr_verify/certificates/`, `docs/certificates.md`), by name, and their replay."""
from __future__ import annotations

from importlib import resources

from ..model.params import keywords_checked
from .replay import Replay, load, replay

__all__ = ["names", "load_committed", "replay_committed"]


@keywords_checked
def names(prefix="") -> list:
    """The committed certificates' file names starting with ``prefix``, sorted."""
    folder = resources.files("slr_verify.certificates")
    return sorted(p.name for p in folder.iterdir() if p.name.startswith(prefix) and p.name.endswith(".json.gz"))


@keywords_checked
def load_committed(name) -> dict:
    """The document of the committed certificate ``name``; ``ValueError`` if there is none."""
    if name not in names():
        raise ValueError(f"name must be a committed certificate ({', '.join(names())}), got {name!r}")
    with resources.as_file(resources.files("slr_verify.certificates").joinpath(name)) as p:
        return load(p)


def replay_committed(name, **kw) -> Replay:
    """:func:`~.replay.replay` of the committed certificate ``name`` (its ``values`` carry the file name)."""
    r = replay(load_committed(name), **kw)
    r.values["file"] = name
    return r
