"""The landscape of R_lam beyond the manifold M (reference section 13): all stationary points on
the product of spheres and their Riemannian Hessians, the global minimiser as a function of lam,
the oracle's window, and the basins of sphere-initialised PGD; the multi-head landscape (section 19)."""
from .hessian import orbit_dimension, partials, realise, riemannian_spectrum
from .basins import basin_rates, label_ends, sample_basins
from .window import MECHANISMS, Window, global_minimum, mechanism_values, oracle_window, phase_diagram
from .stationary import StationaryPoint, canonical, classify, refine, stationary_points, SYMMETRIES
from .multihead import AlignedPoint, multihead_aligned, multihead_global_minimum, multihead_minima

__all__ = ["basin_rates", "label_ends", "sample_basins", "global_minimum", "oracle_window", "phase_diagram", "Window", "MECHANISMS", "mechanism_values", "StationaryPoint", "stationary_points", "canonical", "classify", "refine", "SYMMETRIES", "realise", "orbit_dimension",
           "partials", "riemannian_spectrum", "AlignedPoint", "multihead_aligned", "multihead_global_minimum", "multihead_minima"]
