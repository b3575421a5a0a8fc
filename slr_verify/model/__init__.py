"""The model's vocabulary, below every other layer: the model's setting (:class:`ModelSetting`, one validated value;
the figures' as :data:`FIGURE_4B`, :data:`FIGURE_5`), a setting at one lam (:class:`Params`), the five overlaps
(:class:`Overlaps`), the paper's experiment settings (:data:`FIGURES`), and the law of the data (:func:`sample_slr`,
`docs/MATH.md` §1). NumPy only: no SymPy, no kernels.

The public names are those of ``__all__`` (the API reference's page); the modules below (``params``,
``validation``, ``sampling``, ...) are the suite's internals, importable but not promised."""
# imported, not exported (internal names, importable from here as before): check_params (the validator), D_MIN
from . import overlaps, settings
from .intervals import clopper_pearson
from .multilocation import random_heads, random_locations, sample_multi
from .overlaps import Overlaps
from .params import D_MIN, ModelSetting, ParamBox, Params, check_params  # noqa: F401
from .sampling import draw_problem, initial_overlaps, random_instance, random_unit, sample_slr
from .settings import Setting

#: the five overlaps' names, in the order every function takes them (`docs/MATH.md` §3): kappa = <k, k*>,
#: nu = <v, v*>, theta = <k, v*>, eta = <v, k*>, rho = <k, v>
OVERLAP_NAMES = overlaps.NAMES
#: the paper's experiment settings by figure ('4a', '4b', '5', '7a', '7b', ...): :class:`Setting` values, defined once
#: (Section 5 and Appendix E; `docs/MATH.md` §11)
FIGURES = settings.FIGURES
#: Figure 4b's model (Section 5; Figures 4a, 7a, 7b share it): gamma^2 = 1/2, eps = 0, d = 400, L = 10
FIGURE_4B = settings.FIGURE_4B
#: Figure 5's model (Appendix E): gamma^2 = 1/2, eps = 0.1, d = 80, L = 10
FIGURE_5 = settings.FIGURE_5
#: gamma^2 = 1/2, the relevant token's variance in every experiment of the paper (Section 5, Appendix E)
PAPER_GAMMA2 = settings.PAPER_GAMMA2

__all__ = ["ModelSetting", "FIGURE_4B", "FIGURE_5", "Params", "ParamBox", "Overlaps", "OVERLAP_NAMES", "Setting", "FIGURES",
           "PAPER_GAMMA2", "sample_slr", "random_instance", "random_unit", "draw_problem", "initial_overlaps", "sample_multi",
           "random_heads", "random_locations", "clopper_pearson"]
