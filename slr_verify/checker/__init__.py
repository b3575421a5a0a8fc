"""The independent checker of proof certificates (`docs/certificates.md`, `docs/MATH.md` §20): its own package,
importing only the standard library, python-flint and itself (an import-linter contract; a test inspects
``sys.modules`` after a replay in a fresh interpreter).

* :func:`replay`: a path or a document -> :class:`Replay` (accepted or rejected with the reason, the conclusion);
* :func:`statement`: what a document proves if accepted;
* :class:`Unreadable`: what the bounded reader (``reader.load``) raises on any unreadable input; :class:`Rejected`:
  a certificate that does not prove its statement;
* :func:`proves`: whether a replay proves a claim's statement (kind, the whole setting, the domain covered).
"""
from .binding import proves
from .fields import Rejected
from .reader import Unreadable, load  # noqa: F401  (load: the reader, used by the searches)
from .replay import FORMAT as _FORMAT
from .replay import Replay, replay, statement

#: the format every certificate declares, and the one this checker reads (`docs/certificates.md`)
FORMAT = _FORMAT

__all__ = ["replay", "Replay", "statement", "proves", "Rejected", "Unreadable", "FORMAT"]
