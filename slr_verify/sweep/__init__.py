"""Sweeps at scale (`docs/MATH.md` §13): a grid of settings (lam, d, L, gamma^2, alpha) x runs of
sphere-initialised PGD, chunked on Dask, stored in Zarr, resumable, identical whatever the
scheduler, the workers and the chunking."""
# imported, not exported (internal names, importable from here as before): parse_values, run_chunk
from . import grid, run
from .grid import (
    Grid,
    parse_values,  # noqa: F401
)
from .run import (
    open_sweep,
    run_chunk,  # noqa: F401
    run_point,
    sweep,
)

#: the grid's axes, in the order a point's settings are listed: lam, d, L, gamma^2 and the step alpha
AXES = grid.AXES
#: what the store holds per point and run: the five overlaps at the end, the risk, the tangent gradient norm, the steps
#: taken and whether the run converged
VARIABLES = run.VARIABLES

__all__ = ["Grid", "AXES", "sweep", "open_sweep", "run_point", "VARIABLES"]
