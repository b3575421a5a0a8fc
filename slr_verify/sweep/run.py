"""Running a sweep on Dask and storing it in Zarr (`docs/MATH.md` §13).

* **One grid point** (:func:`run_point`): ``runs`` sphere initialisations drawn d-free from the
  exact law (:func:`~slr_verify.model.sampling.initial_overlaps_exact`) with the grid point's own
  seed, five-overlap PGD, optional continuation to convergence; end overlaps, risk, tangent-gradient
  norm, steps, converged flag.
* **Chunks**: consecutive grid points; a chunk is a task. The driver writes each finished chunk's
  region of the Zarr store and then sets its ``done`` flag (so a killed sweep never leaves a chunk
  marked done without its data); rerun with the same arguments, a sweep computes only the chunks
  not marked done.
* **Schedulers**: those of the suite's engine (:mod:`slr_verify.model.engine`): "local" -- a
  ``distributed.LocalCluster`` (one process per worker); "sync" -- in this process, no Dask; ``None`` -- "local" when
  ``workers`` > 1, else "sync" (the default: in this process; ``slr-verify sweep`` uses every core); any other string
  -- the address of a running scheduler. A script that starts a local cluster must make its calls under
  ``if __name__ == "__main__":`` (:mod:`slr_verify.model.processes`).

The store holds dims (point, run): variables kappa, nu, theta, eta, rho, risk, tangent_norm, steps
(per run: ``steps`` plus the continuation steps at which that run first met the tolerance, to
:data:`CONVERGE_CHUNK`), converged; coordinates lam, d, L, gamma2, alpha per point; the grid as JSON in the attributes.
``xarray.open_zarr(path)`` reads it; ``ds.set_index(point=[...]).unstack("point")`` gives the grid.
"""
from __future__ import annotations

import pathlib
import shutil

import numpy as np

from ..dynamics.convergence import converge, tangent_norm
from ..dynamics.runners import overlap_pgd
from ..kernels.api import risk
from ..model import validation as V
from ..model.engine import Engine
from ..model.outputs import check_output_path, reopen_store
from ..model.params import ModelSetting, keywords_checked
from ..model.sampling import initial_overlaps_exact
from ..model.settings import decreasing
from .grid import AXES, Grid

#: continuation steps between two convergence checks: a run's ``steps`` is exact to this many
CONVERGE_CHUNK = 1000

VARIABLES = ("kappa", "nu", "theta", "eta", "rho", "risk", "tangent_norm", "steps", "converged")
_NAMES = ("kappa", "nu", "theta", "eta", "rho")


@keywords_checked
def run_point(grid: Grid, i: int) -> dict:
    """The runs of grid point i (see the module's docstring): arrays of shape (runs,). `docs/MATH.md` §13."""
    p = grid.point(i)
    model = ModelSetting(gamma2=p["gamma2"], eps=grid.eps, d=p["d"], L=p["L"])
    gamma, d, L, lam0, alpha = model.gamma, int(model.d), int(model.L), float(p["lam"]), float(p["alpha"])
    ov0 = initial_overlaps_exact(grid.seed_sequence(i), grid.runs, d)
    lam = lam0 if grid.schedule == "constant" else decreasing(lam0)
    tr = overlap_pgd(tuple(ov0), lam=lam, gamma=gamma, d=d, L=L, alpha=alpha, steps=grid.steps, every=grid.steps,
                     eps=grid.eps)
    ov = [np.asarray(tr[f][-1], dtype=float) for f in _NAMES]
    lam_T = lam0 if grid.schedule == "constant" else decreasing(lam0)(grid.steps)
    steps = np.full(grid.runs, grid.steps, dtype=np.int64)
    if grid.converge_tol > 0 and grid.max_steps > 0:
        out, norm, extra, ok = converge(ov, lam=lam_T, gamma=gamma, d=d, L=L, alpha=alpha, tol=grid.converge_tol,
                                        max_steps=grid.max_steps, chunk=CONVERGE_CHUNK, per_run=True)
        ov = [np.asarray(x, dtype=float) for x in out]
        steps += extra
    norm, res = tangent_norm(ov, lam=lam_T, gamma=gamma, d=d, L=L, resolution=True)
    r = risk(*ov, lam=lam_T, gamma=gamma, eps=grid.eps, d=d, L=L)
    # the stopping rule of converge(): below the tolerance or below float64's resolution there
    conv = norm <= np.maximum(grid.converge_tol, res) if grid.converge_tol > 0 else np.zeros(grid.runs, bool)
    return dict(zip(_NAMES, ov), risk=np.asarray(r, dtype=float), tangent_norm=np.asarray(norm, dtype=float),
                steps=steps, converged=np.asarray(conv, dtype=bool))


@keywords_checked
def run_chunk(grid_json: str, c: int, chunk: int) -> tuple:
    """Chunk c (grid points c*chunk .. ): (c, {variable: array (points, runs)})."""
    grid = Grid.from_json(grid_json)
    pts = range(c * chunk, min((c + 1) * chunk, grid.size))
    res = [run_point(grid, i) for i in pts]
    return c, {v: np.stack([r[v] for r in res]) for v in VARIABLES}


def _dtype(v):
    return {"steps": "int64", "converged": "bool"}.get(v, "float64")


def _create(path, grid, chunk):
    import zarr

    root = zarr.open_group(str(path), mode="w")
    n, r = grid.size, grid.runs
    for v in VARIABLES:
        fill = {"steps": -1, "converged": False}.get(v, np.nan)
        a = root.create_array(v, shape=(n, r), chunks=(chunk, r), dtype=_dtype(v), fill_value=fill,
                              dimension_names=("point", "run"))
        a.attrs["_ARRAY_DIMENSIONS"] = ["point", "run"]
    for ax in AXES:
        vals = np.array([grid.point(i)[ax] for i in range(n)], dtype="float64")
        a = root.create_array(ax, shape=(n,), chunks=(n,), dtype="float64", dimension_names=("point",))
        a[:] = vals
        a.attrs["_ARRAY_DIMENSIONS"] = ["point"]
    a = root.create_array("run", shape=(r,), chunks=(r,), dtype="int64", dimension_names=("run",))
    a[:] = np.arange(r)
    a.attrs["_ARRAY_DIMENSIONS"] = ["run"]
    nchunks = -(-n // chunk)
    done = root.create_array("chunk_done", shape=(nchunks,), chunks=(1,), dtype="bool", fill_value=False,
                             dimension_names=("chunk",))
    done.attrs["_ARRAY_DIMENSIONS"] = ["chunk"]
    root.attrs.update({"grid": grid.to_json(), "chunk": int(chunk), "format": "slr-verify sweep 1"})
    return root


def _open_or_create(path, grid, chunk):

    path = pathlib.Path(path)
    if path.exists():
        root, attrs = reopen_store(path, "slr-verify sweep 1", "sweep store")
        if attrs.get("grid") != grid.to_json() or attrs.get("chunk") != int(chunk):
            raise ValueError(f"out: {str(path)!r} holds a different sweep (grid or chunk differ); choose another path")
        return root
    check_output_path(str(path), name="out")
    return _create(path, grid, chunk)


def _write(root, c, chunk, data):
    sl = slice(c * chunk, c * chunk + len(data["risk"]))
    for v in VARIABLES:
        root[v][sl] = data[v]
    root["chunk_done"][c] = True  # after the data: a chunk marked done is complete


@keywords_checked
def sweep(grid: Grid, out, *, chunk=1, scheduler=None, workers=1, progress=None, stop_after=None):
    """Run the sweep into the Zarr store ``out`` (created, or resumed if it holds the same sweep).
    Returns the number of chunks computed in this call. ``scheduler``, ``workers``: see the module (the default: in
    this process). ``stop_after``: stop after that many chunks (tests of resumption). ``progress``: a stream for the
    progress bar (None: quiet). `docs/MATH.md` §13."""
    from tqdm import tqdm

    if not isinstance(grid, Grid):
        raise ValueError("grid must be a slr_verify.sweep.Grid")
    chunk = V.integer("chunk", chunk, 1)
    workers = V.integer("workers", workers, 1)
    if stop_after is not None:
        stop_after = V.integer("stop_after", stop_after, 0)
    gj = grid.to_json()
    existed = pathlib.Path(out).exists()
    # connect first: an unreachable scheduler must not leave a store behind
    engine = Engine(scheduler, workers, name="slr_verify.sweep.sweep")
    computed = 0
    bar = None
    try:
        root = _open_or_create(out, grid, chunk)
        done = np.asarray(root["chunk_done"][:])
        todo = [int(c) for c in np.flatnonzero(~done)]
        if stop_after is not None:
            todo = todo[: int(stop_after)]
        bar = tqdm(total=len(done), initial=int(done.sum()), desc="sweep (chunks)", file=progress, disable=progress is None)
        for _, (c, data) in engine.run(run_chunk, [(gj, c, chunk) for c in todo]):
            _write(root, c, chunk, data)
            computed += 1
            _tick(bar, computed == len(todo))
    except BaseException:
        if not existed and computed == 0:  # a store this call created and never filled: leave no trace
            shutil.rmtree(out, ignore_errors=True)
        raise
    finally:
        if bar is not None:
            bar.close()
        engine.close()
    return computed


def _tick(bar, last):
    """One chunk done; the last one is shown by ``bar.close()`` only (an update would print the
    100% line, and close() print it again)."""
    if last:
        bar.n += 1
    else:
        bar.update(1)



@keywords_checked
def open_sweep(path):
    """The sweep store as an ``xarray.Dataset`` (dims point, run; the grid axes as coordinates). `docs/MATH.md` §13."""
    import xarray as xr

    ds = xr.open_zarr(str(path), consolidated=False)
    return ds.set_coords(list(AXES))
