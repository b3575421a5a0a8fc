"""The independent checker of proof certificates (`docs/certificates.md`, `docs/MATH.md` §20): its own package,
importing only the standard library, python-flint and itself (an import-linter contract; a test inspects
``sys.modules`` after a replay in a fresh interpreter).

* :func:`replay`: a path or a document -> :class:`Replay` (accepted or rejected with the reason, the conclusion);
* :func:`statement`: what a document proves if accepted;
* :func:`load`: the bounded reader (:class:`Unreadable` on any unreadable input);
* :func:`proves`: whether a replay proves a claim's statement (kind, the whole setting, the domain covered).
"""
from .binding import proves
from .fields import Rejected
from .reader import Unreadable, load
from .replay import FORMAT, Replay, replay, statement

__all__ = ["FORMAT", "Rejected", "Replay", "Unreadable", "load", "proves", "replay", "statement"]
