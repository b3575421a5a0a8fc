"""Command-line conventions every subcommand shares: the signal's variance is ``--gamma2`` (the paper's gamma^2), and
``--gamma`` is refused with a message naming it (argparse's abbreviations are off, so ``--gamma`` never abbreviates
``--gamma2``); an integer option is checked by :func:`integer_option`."""
from __future__ import annotations

import argparse

from . import validation as V

__all__ = ["RefuseGamma", "refuse_gamma", "integer_option"]


class RefuseGamma(argparse.Action):
    """``--gamma``: refused, naming ``--gamma2``."""

    def __call__(self, parser, namespace, values, option_string=None):
        raise ValueError("--gamma is not an option: give --gamma2, the variance gamma^2 (the paper's parameter; "
                         "Figure 4b: --gamma2 0.5)")


def refuse_gamma(parser):
    """Add the refused ``--gamma`` to ``parser``."""
    parser.add_argument("--gamma", action=RefuseGamma, help="refused: give --gamma2")


def integer_option(minimum: int):
    """An argparse ``type``: the option's text as an integer >= ``minimum``, checked by :func:`.validation.integer`.
    A bad value is a one-line usage error naming the option (argparse prefixes it), exit status 2:
    "argument --steps: must be an integer >= 1, got 0"; "1e3" or "2.5" is "expected an integer"."""

    def parse(text):
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"expected an integer, got {text!r}") from None
        try:
            return V.integer("value", value, minimum)
        except ValueError as exc:  # argparse names the option: the message goes on from "must be ..."
            raise argparse.ArgumentTypeError(str(exc).removeprefix("value ")) from None

    return parse
