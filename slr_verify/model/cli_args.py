"""Command-line conventions every subcommand shares: the variance of the relevant token's noise is ``--gamma2`` (the
paper's gamma^2, :data:`.params.GAMMA2_MEANING`: one wording for every command's help), and
``--gamma`` is refused with a message naming it (argparse's abbreviations are off, so ``--gamma`` never abbreviates
``--gamma2``); an integer option is checked by :func:`integer_option`.

A model setting is given the same way everywhere: ``--gamma2 --eps --d --L`` (:func:`add_model_options`: each with
help, none with a default), or for ``slr-verify check`` as one ``--setting gamma2=0.8,eps=0.1,d=200,L=6``
(:func:`parse_setting`); either is checked by :func:`check_setting` (all four keys, each value validated, a one-line
``ValueError`` naming it)."""
from __future__ import annotations

import argparse

import numpy as np

from . import validation as V
from .params import GAMMA2_MEANING, ModelSetting

#: the keys of a model setting, as the paper states them (gamma^2, not gamma)
SETTING_KEYS = ("gamma2", "eps", "d", "L")
#: each model option's help, the one wording of every command (``--gamma2``: :data:`.params.GAMMA2_MEANING`)
MODEL_HELP = {"gamma2": f"{GAMMA2_MEANING} (Figure 4b: 0.5)",
         "eps": "the label noise's standard deviation (Figure 4b: 0)",
         "d": "the token dimension (Figure 4b: 400)",
         "L": "the number of tokens (Figure 4b: 10)"}


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


def add_model_options(parser, note: str = "", extra: dict | None = None):
    """Add ``--gamma2 --eps --d --L`` (each with its :data:`MODEL_HELP`, then ``note`` and the option's ``extra`` text;
    no default: None when not given) and the refused ``--gamma``."""
    extra = extra or {}

    def text(k):
        return "; ".join(x for x in (MODEL_HELP[k], note, extra.get(k, "")) if x)

    parser.add_argument("--gamma2", type=float, help=text("gamma2"))
    refuse_gamma(parser)
    parser.add_argument("--eps", type=float, help=text("eps"))
    parser.add_argument("--d", type=int, help=text("d"))
    parser.add_argument("--L", type=int, help=text("L"))


def parse_setting(text: str) -> dict:
    """``"gamma2=0.8,eps=0.1,d=200,L=6"`` as ``{"gamma2": 0.8, "eps": 0.1, "d": 200, "L": 6}``, checked by
    :func:`check_setting`. ``ValueError`` (one line, naming ``--setting`` and the key) for an item without ``=``, an
    unknown or repeated key (``gamma`` names ``gamma2``), a value that is not a number, a missing key or a value out
    of its range."""
    if not isinstance(text, str) or not text.strip():
        raise ValueError(f"--setting must be gamma2=G,eps=E,d=D,L=N (e.g. gamma2=0.8,eps=0.1,d=200,L=6), got {text!r}")
    values = {}
    for item in text.split(","):
        key, sep, raw = (x.strip() for x in item.partition("="))
        if not sep or not key:
            raise ValueError(f"--setting: {item.strip()!r} is not key=value (give gamma2=G,eps=E,d=D,L=N)")
        if key == "gamma":
            raise ValueError("--setting: gamma is not a key: give gamma2, the variance gamma^2 (the paper's parameter; "
                             "Figure 4b: gamma2=0.5)")
        if key not in SETTING_KEYS:
            raise ValueError(f"--setting: unknown key {key!r} (the keys are {', '.join(SETTING_KEYS)})")
        if key in values:
            raise ValueError(f"--setting: {key} is given twice")
        try:
            values[key] = int(raw) if raw.lstrip("+-").isdigit() else float(raw)
        except ValueError:
            raise ValueError(f"--setting: {key} must be a number, got {raw!r}") from None
    return check_setting(values, "--setting: ")


def check_setting(values: dict, prefix: str = "", *, options: bool = False) -> dict:
    """The four values of a setting (gamma2, eps, d, L) checked (:func:`model_setting`) and returned as
    ``{"gamma2": float, "eps": float, "d": int, "L": int}``."""
    m = model_setting(values, prefix, options=options)
    return {"gamma2": m.gamma2, "eps": m.eps, "d": m.d, "L": m.L}


def model_setting(values: dict, prefix: str = "", *, options: bool = False) -> ModelSetting:
    """The :class:`~.params.ModelSetting` of the four values (gamma2, eps, d, L) a command line gave: all four present
    (no silent default), each checked by the setting's constructor (gamma2 > 0, eps >= 0, d an integer >= 2, L an
    integer >= 1, each within the supported range). A ``ValueError`` names the first bad or missing key, after
    ``prefix`` (the option it came from); with ``options`` the keys are named as the options ``--gamma2 --eps --d
    --L``."""
    dash = "--" if options else ""
    missing = [dash + k for k in SETTING_KEYS if values.get(k) is None]
    if missing:
        example = "--gamma2 0.5 --eps 0 --d 400 --L 10" if options else "gamma2=0.5,eps=0,d=400,L=10"
        raise ValueError(f"{prefix}{', '.join(missing)} missing: a setting needs all of "
                         f"{', '.join(dash + k for k in SETTING_KEYS)} (no silent default; the paper's Figure 4b is "
                         f"{example})")
    try:
        return ModelSetting(**{k: values[k] for k in SETTING_KEYS})
    except ValueError as exc:
        raise ValueError(f"{prefix}{dash}{exc}") from None


def setting_from_args(args):
    """The setting of a command that takes one optionally (``slr-verify check``): ``--setting`` or all four of
    ``--gamma2 --eps --d --L`` (:func:`check_setting`), or None when neither is given. Both at once, or some of the
    four options without the others, is a ``ValueError`` naming them."""
    given = {k: getattr(args, k, None) for k in SETTING_KEYS}
    text = getattr(args, "setting", None)
    if text is not None:
        options = [f"--{k}" for k, v in given.items() if v is not None]
        if options:
            raise ValueError(f"give the setting once: --setting or {' '.join(f'--{k}' for k in SETTING_KEYS)}, not both "
                             f"(got --setting and {', '.join(options)})")
        return parse_setting(text)
    if all(v is None for v in given.values()):
        return None
    return check_setting(given, options=True)


def parse_values(name, text, integer=False):
    """'0.1,0.2' or 'start:stop:num' (linear) or 'start:stop:num:log' -> list of numbers (``integer``: integers, a
    range's values within 1e-9 of one rounded to it); a ``ValueError`` naming ``name`` otherwise. The sweep's and the
    window grid's axes."""
    try:
        if ":" in text:
            parts = text.split(":")
            if len(parts) not in (3, 4):
                raise ValueError
            a, b, n = float(parts[0]), float(parts[1]), int(parts[2])
            if not 1 <= n <= 1_000_000:
                raise ValueError
            log = len(parts) == 4 and parts[3] == "log"
            if len(parts) not in (3, 4) or (len(parts) == 4 and not log):
                raise ValueError
            vals = np.geomspace(a, b, n) if log else np.linspace(a, b, n)
            vals = [float(x) for x in vals]
        else:
            vals = [float(x) for x in text.split(",")]
    except ValueError:
        raise ValueError(f"{name} must be a comma-separated list or start:stop:num[:log] (1 <= num <= 1e6), "
                         f"got {text!r}") from None
    if not all(np.isfinite(vals)):
        raise ValueError(f"{name} must be finite numbers, got {text!r}")
    if integer:
        if ":" in text:  # a range's values rounded where float arithmetic missed an integer (20:2000:3:log)
            vals = [float(round(x)) if abs(x - round(x)) <= 1e-9 * abs(x) else x for x in vals]
        if any(x != int(x) for x in vals):
            raise ValueError(f"{name} must be integers, got {text!r}")
        vals = [int(x) for x in vals]
    return vals
