"""Sweeps (`docs/MATH.md` §13): identical Zarr contents whatever the scheduler and chunking,
resumption after a kill, input validation. The reference for each grid point is the five-overlap
runner called directly with that point's seed (not through the sweep)."""
import subprocess
import sys

import numpy as np
import pytest

from slr_verify.dynamics import overlap_pgd
from slr_verify.model.sampling import initial_overlaps_exact
from slr_verify.sweep import VARIABLES, Grid, open_sweep, sweep

GRID = Grid(lam=(0.1, 0.9), d=(80, 400), L=(10,), gamma2=(0.5,), alpha=(4e-3,), runs=6, steps=300, seed=7)


def _values(path):
    ds = open_sweep(path)
    return {v: ds[v].values for v in VARIABLES}


@pytest.fixture(scope="module")
def sync_store(tmp_path_factory):
    p = tmp_path_factory.mktemp("sw") / "sync.zarr"
    assert sweep(GRID, p, chunk=1, scheduler="sync") == GRID.size
    return p


def test_point_matches_direct_runner(sync_store):
    vals = _values(sync_store)
    i = 3
    pt = GRID.point(i)
    ov0 = initial_overlaps_exact(np.random.SeedSequence(7, spawn_key=(i,)), 6, int(pt["d"]))
    tr = overlap_pgd(tuple(ov0), lam=pt["lam"], gamma=np.sqrt(pt["gamma2"]), d=int(pt["d"]), L=10, alpha=4e-3, steps=300,
                     every=300)
    assert np.array_equal(vals["kappa"][i], tr.kappa[-1])
    ds = open_sweep(sync_store)
    assert float(ds["lam"][i]) == pt["lam"] and float(ds["d"][i]) == pt["d"]


@pytest.mark.slow  # a Dask local cluster: ~9 s of CPU to start
def test_local_cluster_and_chunking_give_identical_contents(sync_store, tmp_path):
    p = tmp_path / "dask.zarr"
    sweep(GRID, p, chunk=3, scheduler=None, workers=2)
    a, b = _values(sync_store), _values(p)
    for v in VARIABLES:
        assert np.array_equal(a[v], b[v], equal_nan=v not in ("steps", "converged")), v


@pytest.mark.slow  # a sweep killed in a fresh interpreter and resumed: the CI's slow stage
def test_killed_sweep_resumes(sync_store, tmp_path):
    """Killed after its first chunk (a subprocess stopped by SIGKILL once the first chunk is marked
    done), then rerun with the same arguments: completes and matches."""
    p = tmp_path / "killed.zarr"
    code = ("import sys, time; from slr_verify.sweep import Grid, sweep; import slr_verify.sweep.run as R; "
            f"g = Grid.from_json({GRID.to_json()!r}); w = R._write\n"
            "def write(*a):\n    w(*a); sys.stdout.write('chunk\\n'); sys.stdout.flush(); time.sleep(60)\n"
            f"R._write = write; sweep(g, {str(p)!r}, chunk=1, scheduler='sync')")
    proc = subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE, text=True)
    assert proc.stdout.readline().strip() == "chunk"
    proc.kill()
    proc.wait()
    ds = open_sweep(p)
    assert int(ds["chunk_done"].values.sum()) == 1
    assert sweep(GRID, p, chunk=1, scheduler="sync") == GRID.size - 1
    a, b = _values(sync_store), _values(p)
    for v in VARIABLES:
        assert np.array_equal(a[v], b[v], equal_nan=v not in ("steps", "converged")), v


def test_bad_input(tmp_path, sync_store):
    with pytest.raises(ValueError, match="gamma2"):
        Grid(lam=(0.1,), d=(400,), L=(10,), gamma2=(-1,), alpha=(1e-3,), runs=2, steps=2)
    with pytest.raises(ValueError, match="lam"):
        Grid(lam=(-0.1,), d=(400,), L=(10,), gamma2=(0.5,), alpha=(1e-3,), runs=2, steps=2)
    with pytest.raises(ValueError, match="out"):
        sweep(GRID, tmp_path / "no" / "such" / "dir.zarr", scheduler="sync")
    other = Grid(lam=(0.2,), d=(400,), L=(10,), gamma2=(0.5,), alpha=(1e-3,), runs=2, steps=2)
    with pytest.raises(ValueError, match="different sweep"):
        sweep(other, sync_store, scheduler="sync")


@pytest.mark.slow  # two fresh interpreters: the CI's slow stage
def test_cli_sweep(tmp_path):
    out = subprocess.run([sys.executable, "-m", "slr_verify", "sweep", "--lam", "0.1,0.2", "--runs", "3", "--steps", "50",
                          "--scheduler", "sync", "--out", str(tmp_path / "c.zarr"), "--quiet"], capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    assert open_sweep(tmp_path / "c.zarr")["risk"].shape == (2, 3)
    bad = subprocess.run([sys.executable, "-m", "slr_verify", "sweep", "--lam", "x", "--out", str(tmp_path / "d.zarr")],
                         capture_output=True, text=True)
    assert bad.returncode == 2 and "--lam" in bad.stderr


def test_sweep_rejects_non_integer_chunk(tmp_path):
    for kw in (dict(chunk=1.5), dict(chunk=0), dict(workers=0), dict(scheduler=3)):
        with pytest.raises(ValueError, match=list(kw)[0]):
            sweep(GRID, tmp_path / "x.zarr", **{"scheduler": "sync", **kw})
