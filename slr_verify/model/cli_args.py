"""Command-line conventions every subcommand shares: the signal's variance is ``--gamma2`` (the paper's gamma^2), and
``--gamma`` is refused with a message naming it (argparse's abbreviations are off, so ``--gamma`` never abbreviates
``--gamma2``)."""
from __future__ import annotations

import argparse

__all__ = ["RefuseGamma", "refuse_gamma"]


class RefuseGamma(argparse.Action):
    """``--gamma``: refused, naming ``--gamma2``."""

    def __call__(self, parser, namespace, values, option_string=None):
        raise ValueError("--gamma is not an option: give --gamma2, the variance gamma^2 (the paper's parameter; "
                         "Figure 4b: --gamma2 0.5)")


def refuse_gamma(parser):
    """Add the refused ``--gamma`` to ``parser``."""
    parser.add_argument("--gamma", action=RefuseGamma, help="refused: give --gamma2")
