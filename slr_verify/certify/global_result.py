"""The outcome of :func:`slr_verify.certify.global_minimiser` (`docs/MATH.md` §17): what is proved, on which lam
interval, with the certificate and the checker's verdict on it."""
from __future__ import annotations

from dataclasses import dataclass, field

from ..model import tiers as T


@dataclass
class GlobalCertificate:
    """The outcome: ``proved``; ``reason``; ``risk``: (lo, hi) enclosing the global minimum of R_lam for
    every lam of the interval; ``overlaps``: per lam piece, enclosures ((lo, hi)) of the minimiser's
    kappa, eta (kappa, eta >= 0 representative) and the angles, with the float minimiser's five overlaps;
    ``boxes``: boxes evaluated; ``seconds``; ``oracle``: True if the certificate is that the oracle is
    the unique global minimiser; ``details``; ``certificate``: the proof's document (`docs/certificates.md`, None
    unless proved); ``replay``: the checker's verdict on it (:func:`slr_verify.certify.replay.replay`), whose
    conclusion and values are what ``proved``, ``risk`` and ``overlaps`` report."""

    proved: bool
    reason: str
    risk: tuple
    overlaps: list
    boxes: int
    seconds: float
    lam: tuple
    oracle: bool
    details: dict = field(default_factory=dict)
    certificate: dict | None = None
    replay: object = None

    @property
    def tier(self) -> str:
        """What ``proved`` rests on (`slr_verify.model.tiers`)."""
        return T.certified(self.proved)
