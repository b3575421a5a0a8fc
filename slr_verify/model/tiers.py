"""The tiers of evidence (`docs/claims.md`), named once: what an answer of the suite rests on. The claims' report,
the command line and the result objects (``.tier``) use these strings."""
from __future__ import annotations

#: an identity or a sign proved by SymPy
SYMBOLIC = "proved (symbolic)"
#: an inequality or an enclosure proved on arb balls
BALL = "proved (ball arithmetic)"
#: a conclusion drawn from ball-arithmetic proofs through theorems of the literature, which the suite cites and does not
#: check (each record names them)
CITED = "proved (ball arithmetic) with cited theorems"
#: an enclosure or an inequality computed on arb balls in the suite's own process, with no certificate for the independent
#: checker to replay: rigorous arithmetic, but nothing separate from the code that computed it has checked it
ENCLOSED = "enclosed (ball arithmetic, no certificate)"
#: a float computation with stated digits
NUMERIC = "numeric"
#: a Monte Carlo estimate with its z-score or confidence interval
STATISTICAL = "statistical"
#: a "for all" checked at sampled points only
SAMPLED = "sampled"
#: a proof that was tried and did not close
NOT_PROVED = "not proved"

#: the tiers of a claim's evidence, strongest first
TIERS = (SYMBOLIC, BALL, CITED, ENCLOSED, NUMERIC, STATISTICAL)


def certified(proved: bool) -> str:
    """The tier of a ball-arithmetic search's outcome: its certificate replayed and accepted, or not proved."""
    return f"{BALL}: certificate replayed" if proved else NOT_PROVED
