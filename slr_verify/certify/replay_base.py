"""The checker's base (`docs/certificates.md`): reading a certificate, exact numbers, the verdict record.

Part of the checker (:mod:`.replay`): it imports none of the searches.
"""
from __future__ import annotations

import gzip
import json
import math
from dataclasses import dataclass, field
from pathlib import Path

from ..kernels.balls import ball, outward

__all__ = ["FORMAT", "Rejected", "Replay", "hull", "interval", "load", "number", "outward"]

FORMAT = "slr-verify-certificate/1"


@dataclass
class Replay:
    """``accepted``; ``reason`` (what failed, or what was checked); ``conclusion`` (what an accepted certificate
    proves, derived here); ``leaves``; ``seconds``; ``values``: the numbers of the conclusion (enclosures as
    (lo, hi) floats rounded outward)."""

    accepted: bool
    reason: str
    conclusion: str | None = None
    leaves: int = 0
    seconds: float = 0.0
    values: dict = field(default_factory=dict)


class Rejected(Exception):
    """A certificate that does not prove its statement (the message says which part and how)."""


def load(source) -> dict:
    """The document from a dict, a ``.json`` or ``.json.gz`` path; ``ValueError`` if unreadable."""
    if isinstance(source, dict):
        return source
    p = Path(source)
    try:
        raw = p.read_bytes()
        text = gzip.decompress(raw) if raw[:2] == b"\x1f\x8b" else raw
        doc = json.loads(text)
    except (OSError, ValueError, EOFError) as e:
        raise ValueError(f"certificate {str(p)!r} is unreadable: {e}") from e
    if not isinstance(doc, dict):
        raise ValueError(f"certificate {str(p)!r} is not a JSON object")
    return doc


def number(x, what) -> float:
    """x as a float (a JSON number: exact binary), or Rejected naming ``what``."""
    if isinstance(x, bool) or not isinstance(x, (int, float)):
        raise Rejected(f"{what} is not a number: {x!r}")
    try:
        f = float(x)
    except OverflowError:
        raise Rejected(f"{what} is not a finite float: {x!r}") from None
    if not math.isfinite(f) or f != x:
        raise Rejected(f"{what} is not a finite float (exactly): {x!r}")
    return f


def interval(iv, what) -> tuple:
    """A [lo, hi] pair of exact floats with lo <= hi, or Rejected naming ``what``."""
    if not (isinstance(iv, list) and len(iv) == 2):
        raise Rejected(f"{what} is not a [lo, hi] pair: {iv!r}")
    lo, hi = number(iv[0], what), number(iv[1], what)
    if not lo <= hi:
        raise Rejected(f"{what} has lo > hi: {iv!r}")
    return lo, hi


hull = ball  # the ball [lo, hi] of two exact floats (the conventions: :mod:`slr_verify.kernels.balls`)


