"""The independent checker of proof certificates (`docs/certificates.md`, "The checker, module by module"): it
imports only the standard library, python-flint and itself. :func:`replay`, :func:`statement`, :func:`proves`,
:class:`Unreadable`, :class:`Rejected`.
"""
from .binding import proves
from .fields import Rejected
from .reader import Unreadable, load  # noqa: F401  (load: the reader, used by the searches)
from .replay import FORMAT as _FORMAT
from .replay import Replay, replay, statement

#: the format every certificate declares, and the one this checker reads (`docs/certificates.md`)
FORMAT = _FORMAT

__all__ = ["replay", "Replay", "statement", "proves", "Rejected", "Unreadable", "FORMAT"]
