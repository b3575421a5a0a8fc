"""The landscape of R_lam beyond the manifold M (reference section 13): all stationary points on
the product of spheres and their Riemannian Hessians, the profile risk (reference section 17), the global minimiser as a function of lam,
the oracle's window, and the basins of sphere-initialised PGD."""
from .hessian import orbit_dimension, partials, realise, riemannian_spectrum
from .basins import basin_rates, label_ends, sample_basins
from .trs import Profile, profile, profile_mp
from .window import MECHANISMS, GlobalMinimiser, Window, global_minimum, mechanism_values, minimise_profile, minimiser_diagram, oracle_window, phase_diagram
from .stationary import StationaryPoint, canonical, classify, refine, stationary_points, SYMMETRIES

__all__ = ["Profile", "profile", "profile_mp", "minimise_profile", "minimiser_diagram", "GlobalMinimiser", "basin_rates", "label_ends", "sample_basins", "global_minimum", "oracle_window", "phase_diagram", "Window", "MECHANISMS", "mechanism_values", "StationaryPoint", "stationary_points", "canonical", "classify", "refine", "SYMMETRIES", "realise", "orbit_dimension",
           "partials", "riemannian_spectrum"]
