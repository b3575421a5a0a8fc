"""The independent checker of proof certificates (`docs/certificates.md`, `docs/MATH.md` §20).

Public API: :func:`replay` (a path or a document -> :class:`Replay`), :func:`statement` (what a document proves if
accepted), :func:`load` (a bounded reader; :class:`Unreadable` on any unreadable input).

TRANSITIONAL: re-exports the checker of ``slr_verify.certify.replay`` while the package is built.
"""
__all__ = ["Replay", "Rejected", "load", "replay", "statement"]


def __getattr__(name):
    import importlib

    if name in ("Replay", "replay", "Rejected", "load"):
        mod = "replay" if name in ("Replay", "replay") else "replay_base"
        return getattr(importlib.import_module(f"slr_verify.certify.{mod}"), name)
    raise AttributeError(name)


def statement(document) -> str:
    """The statement the checker derives for ``document``: what it proves if accepted."""
    raise NotImplementedError
