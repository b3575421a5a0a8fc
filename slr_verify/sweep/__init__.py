"""Sweeps at scale (`docs/MATH.md` §13): a grid of settings (lam, d, L, gamma^2, alpha) x runs of
sphere-initialised PGD, chunked on Dask, stored in Zarr, resumable, identical whatever the
scheduler, the workers and the chunking."""
from .grid import AXES, Grid, parse_values
from .run import VARIABLES, open_sweep, run_chunk, run_point, sweep

__all__ = ["AXES", "Grid", "parse_values", "VARIABLES", "open_sweep", "run_chunk", "run_point", "sweep"]
