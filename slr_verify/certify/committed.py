"""The committed certificates (`slr_verify/certificates/`, `docs/certificates.md`), found by what they state (kind,
setting, domain: :func:`find_committed`) or by name, and their replay."""
from __future__ import annotations

import sys
from functools import lru_cache, partial
from importlib import resources
from pathlib import Path

from ..checker.binding import binds
from ..model.params import keywords_checked
from .replay import Replay, load, replay


def _folder(folder):
    """The committed certificates' folder (a Traversable), or ``folder`` (a path: a test's copy)."""
    return resources.files("slr_verify.certificates") if folder is None else Path(folder)


@keywords_checked
def names(prefix="", *, folder=None) -> list:
    """The committed certificates' file names starting with ``prefix``, sorted (``folder``: another folder of them)."""
    return sorted(p.name for p in _folder(folder).iterdir() if p.name.startswith(prefix) and p.name.endswith(".json.gz"))


@keywords_checked
def load_committed(name, *, folder=None) -> dict:
    """The document of the committed certificate ``name``; ``ValueError`` if there is none."""
    if name not in names(folder=folder):
        raise ValueError(f"name must be a committed certificate ({', '.join(names(folder=folder))}), got {name!r}")
    with resources.as_file(_folder(folder).joinpath(name)) as p:
        return load(p)


def replay_committed(name, *, folder=None, **kw) -> Replay:
    """:func:`~.replay.replay` of the committed certificate ``name`` (its ``values`` carry the file name)."""
    if name not in names(folder=folder):
        load_committed(name, folder=folder)  # its ValueError
    with resources.as_file(_folder(folder).joinpath(name)) as p:
        r = replay(p, **kw)  # the file, read once by the checker
    r.values["file"] = name
    return r


#: a committed file of at least this many bytes is replayed on its own, its leaves split across the checker's workers
_LARGE_BYTES = 60_000


def _replay_one(name, folder=None) -> tuple:
    """(name, its Replay); a file the checker cannot read is a rejection saying so (the others go on)."""
    from ..checker.reader import Unreadable

    try:
        return name, replay_committed(name, folder=folder)
    except Unreadable as e:
        return name, Replay(False, f"rejected: unreadable: {e}")


@keywords_checked
def replay_every(*, folder=None, progress=None) -> list:
    """[(name, Replay)] of every committed certificate, by name: the large files (``_LARGE_BYTES``) one after
    another, each testing its leaves in the checker's workers (:mod:`slr_verify.checker.parallel`); then the rest at
    once, one file to each of as many forked processes as the checker would use. Each file is replayed by
    :func:`replay_committed` exactly as alone: the verdicts do not depend on the schedule (a file the checker cannot
    read is a rejection saying so). ``progress``: a progress bar on stderr (True) or a stream."""
    import multiprocessing as mp

    from tqdm.auto import tqdm

    from ..checker.parallel import MIN_LEAVES, workers

    if not (progress is None or isinstance(progress, bool) or hasattr(progress, "write")):
        raise ValueError(f"progress must be None, True, False or a writable stream, got {progress!r}")
    base, todo = _folder(folder), names(folder=folder)
    large = [n for n in todo if len(base.joinpath(n).read_bytes()) >= _LARGE_BYTES]
    small = [n for n in todo if n not in large]
    stream = sys.stderr if progress is True else progress or None
    bar = tqdm(total=len(todo), desc="replay", file=stream, unit="file") if stream is not None else None
    out = {}

    def done(n, r):
        out[n] = r
        if bar is not None:
            bar.update()

    for n in large:
        done(*_replay_one(n, folder))
    k = workers(MIN_LEAVES)
    if k > 1 and small:
        with mp.get_context("fork").Pool(k) as pool:
            for n, r in pool.imap_unordered(partial(_replay_one, folder=folder), small):
                done(n, r)
    for n in small:
        if n not in out:  # one process: here, one after the other
            done(*_replay_one(n, folder))
    if bar is not None:
        bar.close()
    return [(n, out[n]) for n in todo]


def _fields(doc) -> dict:
    """What a document states, as the checker's values name it (kind, setting, domain; an oracle-window's ends as lo,
    hi), read without checking: :func:`~slr_verify.checker.binding.binds` treats a malformed field as not binding."""
    if not isinstance(doc, dict):
        return {}
    out = {k: doc.get(k) for k in ("kind", "setting", "domain")}
    if doc.get("kind") == "theorem-5":  # its step binds as alpha_5 of the lam pieces (binding.QUANTITIES)
        out["pieces"] = doc.get("pieces")
    ends = doc.get("ends")
    if doc.get("kind") == "oracle-window" and isinstance(ends, dict):
        lo, hi = (ends.get(s) if isinstance(ends.get(s), dict) else {} for s in ("lo", "hi"))
        out["lo"] = lo.get("enclosure")
        out["hi"] = None if hi.get("mechanism") == "none" else hi.get("enclosure")
    return out


#: what :func:`_fields` reads, as a prefix of the on-disk cache's keys: a new version reads every file anew
_FIELDS_VERSION = "2:"


def _fields_cache() -> Path:
    from ..model.cache import cache_dir

    return cache_dir() / "certificate-fields.json"


@lru_cache(maxsize=8)
def _index(folder) -> tuple:
    """(name, fields) of every certificate of the folder (``folder``: None or a path as a string), read once per
    process. A document's fields are kept on disk by the sha256 of its bytes (hashing a file is far cheaper than
    parsing it): a file is read anew only when its bytes are new. The fields only find candidates; the
    replay decides, and the claim binds the replay's own values (an unreadable file states nothing)."""
    import hashlib
    import json

    from ..model import outputs

    base = _folder(folder)
    try:
        known = json.loads(_fields_cache().read_text())
    except (OSError, ValueError):
        known = {}
    out, new = [], {}
    for name in names(folder=folder):
        with resources.as_file(base.joinpath(name)) as p:
            key = _FIELDS_VERSION + hashlib.sha256(Path(p).read_bytes()).hexdigest()
            if key not in known:
                try:
                    doc = load(p)  # the checker's bounded reader: any fault is Unreadable (a ValueError)
                except ValueError:
                    doc = None
                new[key] = _fields(doc)
        out.append((name, known.get(key, new.get(key))))
    if new:
        raw = json.dumps({**known, **new}).encode()
        try:
            outputs.write_atomic(str(_fields_cache()), lambda fh: fh.write(raw))
        except OSError:
            pass  # the cache only saves time
    return tuple(out)


@keywords_checked
def find_committed(kind, *, setting, lam=None, domain=None, ends=None, folder=None) -> list:
    """The file names (sorted) of the committed certificates whose kind, setting and domain bind a claim's statement:
    :func:`slr_verify.checker.binding.binds` (the same arguments: ``kind`` one or several, ``setting`` d, L, eps and
    gamma or gamma2, ``lam``, ``domain``, ``ends``) on each document's fields, read without replaying them. Found by
    content, not by name; the replay decides, and the claim binds the replay again
    (:func:`~slr_verify.checker.binding.proves`). ``folder``: another folder of certificates (a test's)."""
    return [name for name, fields in _index(None if folder is None else str(folder))
            if binds(fields, kind=kind, setting=setting, lam=lam, domain=domain, ends=ends)[0]]
