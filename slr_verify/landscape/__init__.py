"""The landscape of R_lam beyond the manifold M (`docs/MATH.md` §13): all stationary points on
the product of spheres and their Riemannian Hessians, the profile risk (§17), the global minimiser as a
function of lam,
the oracle's window, the end points of sphere-initialised PGD and their basins (the certified capture regions that
account for every run are :mod:`slr_verify.certify`'s; §13); the multi-head landscape (§19)."""
from .basins import basin_rates, label_ends, sample_ends, stable_at
from .cycle import cycle_residual
from .float_minimiser import GlobalMinimiser, float_global_minimum, minimise_profile, minimiser_diagram, oracle_is_global
from .hessian import orbit_dimension, partials, realise, riemannian_spectrum
from .mechanisms import ends_change_sign, mechanism_values, phase_diagram, window_scaling
from .multihead import AlignedPoint, multihead_aligned, multihead_global_minimum, multihead_minima, pgd_map_spectrum
from .multihead_runs import aligned_gram, aligned_risks, realise_targets, run_ends
from .stationary import SYMMETRIES, StationaryPoint, canonical, classify, refine, stationary_points
from .trs import Profile, profile, profile_mp
from .window import MECHANISMS, Window, diagram_against_window, float_window, oracle_beaten_inside

__all__ = ["basin_rates", "label_ends", "sample_ends", "stable_at", "float_global_minimum", "float_window", "phase_diagram",
           "Window",
           "MECHANISMS", "mechanism_values", "StationaryPoint", "stationary_points", "canonical", "classify", "refine",
           "SYMMETRIES", "realise", "orbit_dimension", "partials", "riemannian_spectrum", "Profile", "profile", "profile_mp",
           "minimise_profile", "minimiser_diagram", "oracle_is_global", "GlobalMinimiser", "AlignedPoint",
           "multihead_aligned", "multihead_global_minimum", "multihead_minima", "pgd_map_spectrum", "cycle_residual",
           "ends_change_sign", "window_scaling", "diagram_against_window", "oracle_beaten_inside", "aligned_gram",
           "aligned_risks", "realise_targets", "run_ends"]
