"""The model's vocabulary, below every other layer: validated parameters (:class:`Params`), the five
overlaps (:class:`Overlaps`), the paper's experiment settings (:mod:`.settings`), and the law of the
data (:mod:`.sampling`). NumPy only: no SymPy, no kernels."""
from . import validation
from .overlaps import NAMES as OVERLAP_NAMES
from .overlaps import Overlaps
from .params import D_MIN, Params, check_params

__all__ = ["validation", "Overlaps", "OVERLAP_NAMES", "Params", "check_params", "D_MIN"]
