"""The landscape of R_lam beyond the manifold M (`docs/MATH.md` §13): all stationary points on
the product of spheres and their Riemannian Hessians, the profile risk (§17), the global minimiser as a
function of lam,
the oracle's window, the end points of sphere-initialised PGD and their basins (the certified capture regions that
account for every run are :mod:`slr_verify.certify`'s; §13); the multi-head landscape (§19)."""
from .basins import basin_rates, label_ends, sample_ends, stable_at
from .float_minimiser import GlobalMinimiser, global_minimum, minimise_profile, minimiser_diagram, oracle_is_global
from .hessian import orbit_dimension, partials, realise, riemannian_spectrum
from .mechanisms import mechanism_values, phase_diagram
from .multihead import AlignedPoint, multihead_aligned, multihead_global_minimum, multihead_minima, pgd_map_spectrum
from .stationary import SYMMETRIES, StationaryPoint, canonical, classify, refine, stationary_points
from .trs import Profile, profile, profile_mp
from .window import MECHANISMS, Window, oracle_window

__all__ = ["basin_rates", "label_ends", "sample_ends", "stable_at", "global_minimum", "oracle_window", "phase_diagram", "Window",
           "MECHANISMS", "mechanism_values", "StationaryPoint", "stationary_points", "canonical", "classify", "refine",
           "SYMMETRIES", "realise", "orbit_dimension", "partials", "riemannian_spectrum", "Profile", "profile", "profile_mp",
           "minimise_profile", "minimiser_diagram", "oracle_is_global", "GlobalMinimiser", "AlignedPoint",
           "multihead_aligned", "multihead_global_minimum", "multihead_minima", "pgd_map_spectrum"]
