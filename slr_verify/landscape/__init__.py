"""The landscape of R_lam beyond the manifold M (`docs/MATH.md` §13): all stationary points on
the product of spheres and their Riemannian Hessians, the profile risk (§17), the global minimiser as a
function of lam,
the oracle's window, the end points of sphere-initialised PGD and their basins (the certified capture regions that
account for every run are :mod:`slr_verify.certify`'s; §13); the multi-head landscape (§19)."""
# imported, not exported (internal names, importable from here as before): orbit_dimension, partials, realise,
# aligned_gram, realise_targets, SYMMETRIES, refine
from . import window
from .basins import basin_rates, label_ends, sample_ends, stable_at
from .cycle import cycle_residual
from .ends_mp import ends_mp
from .float_minimiser import (
    GlobalMinimiser,
    float_global_minimum,
    minimise_profile,
    minimise_profiles,
    minimiser_diagram,
    oracle_is_global,
    oracles_are_global,
)
from .hessian import orbit_dimension, partials, realise, riemannian_spectrum  # noqa: F401
from .mechanisms import ends_change_sign, mechanism_values, phase_diagram, window_scaling
from .multihead import AlignedPoint, multihead_aligned, multihead_global_minimum, multihead_minima, pgd_map_spectrum
from .multihead_runs import aligned_gram, aligned_risks, realise_targets, run_ends  # noqa: F401
from .stationary import SYMMETRIES, StationaryPoint, canonical, classify, refine, stationary_points  # noqa: F401
from .trs import Profile, profile, profile_mp
from .window import Window, diagram_against_window, float_window, oracle_beaten_inside

#: the mechanisms by which the oracle's window ends (:attr:`Window.lo_mechanism`, ``hi_mechanism``; `docs/MATH.md` §13)
MECHANISMS = window.MECHANISMS

__all__ = ["float_global_minimum", "GlobalMinimiser", "oracle_is_global", "oracles_are_global", "minimise_profile",
           "minimise_profiles", "minimiser_diagram",
           "profile", "profile_mp", "Profile", "float_window", "Window", "MECHANISMS", "ends_mp",
           "oracle_beaten_inside", "diagram_against_window", "phase_diagram", "mechanism_values", "ends_change_sign",
           "window_scaling", "stationary_points", "StationaryPoint", "classify", "canonical", "riemannian_spectrum",
           "cycle_residual", "sample_ends", "label_ends", "basin_rates", "stable_at", "multihead_aligned",
           "multihead_global_minimum", "multihead_minima", "AlignedPoint", "pgd_map_spectrum", "aligned_risks",
           "run_ends"]
