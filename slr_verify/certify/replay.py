"""The checker of certificates, as the certify package names it: :mod:`slr_verify.checker` (its own package, importing
only the standard library, python-flint and itself). ``certify.replay`` and ``slr-verify certify replay`` route
through it."""
from ..checker import FORMAT, Rejected, Replay, Unreadable, load, replay, statement  # noqa: F401  (the searches' names for them)

