"""The landscape of R_lam beyond the manifold M (`docs/MATH.md` §13): all stationary points on
the product of spheres and their Riemannian Hessians, the profile risk (§17), the global minimiser as a
function of lam,
the oracle's window, and the basins of sphere-initialised PGD with every run accounted for (certified capture
regions: contraction balls, the valley tube; §13); the multi-head landscape (§19)."""
from .basins import Classification, basin_rates, classify_runs, label_ends, sample_basins, stable_at
from .capture import CaptureBall, contraction_ball
from .cycle import cycle_residual
from .float_minimiser import GlobalMinimiser, float_global_minimum, minimise_profile, minimiser_diagram, oracle_is_global
from .hessian import orbit_dimension, partials, realise, riemannian_spectrum
from .mechanisms import ends_change_sign, mechanism_values, phase_diagram, window_scaling
from .multihead import AlignedPoint, multihead_aligned, multihead_global_minimum, multihead_minima, pgd_map_spectrum
from .multihead_runs import aligned_gram, aligned_risks, realise_targets, run_ends
from .stationary import SYMMETRIES, StationaryPoint, canonical, classify, refine, stationary_points
from .trs import Profile, profile, profile_mp
from .valley import ValleyTube, valley_tube
from .window import MECHANISMS, Window, diagram_against_window, float_window, oracle_beaten_inside

__all__ = ["basin_rates", "label_ends", "sample_basins", "classify_runs", "Classification", "stable_at", "CaptureBall",
           "contraction_ball", "ValleyTube", "valley_tube", "float_global_minimum", "float_window", "phase_diagram", "Window",
           "MECHANISMS", "mechanism_values", "StationaryPoint", "stationary_points", "canonical", "classify", "refine",
           "SYMMETRIES", "realise", "orbit_dimension", "partials", "riemannian_spectrum", "Profile", "profile", "profile_mp",
           "minimise_profile", "minimiser_diagram", "oracle_is_global", "GlobalMinimiser", "AlignedPoint",
           "multihead_aligned", "multihead_global_minimum", "multihead_minima", "pgd_map_spectrum", "cycle_residual",
           "ends_change_sign", "window_scaling", "diagram_against_window", "oracle_beaten_inside", "aligned_gram",
           "aligned_risks", "realise_targets", "run_ends"]
