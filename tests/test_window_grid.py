"""The oracle's window over a grid (slr_verify/certify/window_grid.py, grid_store.py; `slr-verify certify
window-grid`): the axes' parsing and validation, the dataset written setting by setting and read back by xarray, the
resume rule (a setting is kept iff done, proved, its certificate file present with the stored sha256 and accepted by
the checker again), with a stand-in prover; end to end (slow) on a local cluster, killed and resumed, and through a
`dask scheduler` started here, against the float window and the checker."""
from __future__ import annotations

import gzip
import hashlib
import io
import json
import math
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest

from slr_verify.certify import committed, open_window_grid, window_grid
from slr_verify.certify import grid_run as G
from slr_verify.certify import grid_store as S
from slr_verify.checker import load, replay

ROOT = Path(__file__).resolve().parents[1]
#: a small committed certificate (38 leaves) the stand-in prover returns: the checker accepts it
SMALL = "oracle_d80_lam0.316717.json.gz"


def _doc():
    return json.loads(gzip.decompress((ROOT / "slr_verify" / "certificates" / SMALL).read_bytes()))


def _stub(calls, proved=lambda s: True):
    """A prover standing in for oracle_window: a row from the setting's numbers, the small certificate."""

    def prove(g2, d, L, eps, lam_max, time_limit, half_width, engine=None):
        calls.append((g2, d, L, eps))
        ok = proved((g2, d, L, eps))
        row = {"lo_lower": g2 / 10, "lo_upper": g2 / 10 + 8e-13, "hi_lower": math.nan, "hi_upper": math.nan,
               "mechanism_lo": "crossing", "mechanism_hi": "none", "unique_lo": g2 / 10 + 8e-13, "unique_hi": lam_max,
               "proved": ok, "reason": "" if ok else "the branch and bound did not close: λ ∉ W?",
               "statement": f"W ∋ λ for d = {d}" if ok else "", "leaves": d, "boxes": 7 * d, "seconds": 0.25}
        return row, _doc()

    return prove


def _run(out, prove, **kw):
    axes = G.axes_of(kw.pop("gamma2", "0.5,1.5"), kw.pop("d", "50,400"), kw.pop("L", "10"), kw.pop("eps", 0.0))
    opts = dict(lam_max=2.0, time_limit=60.0, half_width=4e-13, scheduler="sync", workers=1, progress=None)
    opts.update(kw)
    return G.run_grid(axes, str(out), prove=prove, **opts)


# ------------------------------------------------------------------------------------------ parsing and validation
def test_axes_lists_and_ranges():
    axes = G.axes_of("0.3:1.5:5", "50,80,400,1000", "3,10,20", 0)
    assert axes["gamma2"] == pytest.approx((0.3, 0.6, 0.9, 1.2, 1.5)) and axes["d"] == (50, 80, 400, 1000)
    assert axes["L"] == (3, 10, 20) and axes["eps"] == (0.0,)
    assert G.axes_of([0.5], 400, (10,), "0,0.1")["eps"] == (0.0, 0.1)
    assert G.axis("d", "20:2000:3:log", integer=True, minimum=4) == (20, 200, 2000)


@pytest.mark.parametrize("kw, message", [
    (dict(d="3,50"), "--d must be integers >= 4"),
    (dict(d="50.5"), "--d must be integers"),
    (dict(L="0"), "--L must be integers >= 1"),
    (dict(gamma2="0,0.5"), "--gamma2 must be numbers > 0"),
    (dict(gamma2="nan"), "--gamma2 must be finite"),
    (dict(eps="-0.1"), "--eps must be numbers >= 0"),
    (dict(d="50:100"), "--d must be a comma-separated list or start:stop:num"),
    (dict(d="50,50"), "--d must not repeat"),
])
def test_a_bad_axis_names_the_option(kw, message):
    args = dict(gamma2="0.5", d="400", L="10", eps="0") | kw
    with pytest.raises(ValueError, match=message):
        G.axes_of(args["gamma2"], args["d"], args["L"], args["eps"], prefix="--")


def test_bad_arguments_are_refused_before_any_work(tmp_path):
    with pytest.raises(ValueError, match="lam_max"):
        window_grid(gamma2=0.5, d=400, L=10, out=tmp_path / "g", lam_max=2e4)
    with pytest.raises(ValueError, match="time_limit"):
        window_grid(gamma2=0.5, d=400, L=10, out=tmp_path / "g", time_limit=0)
    with pytest.raises(ValueError, match="no keyword 'gamma'"):
        window_grid(gamma=0.5, d=400, L=10, out=tmp_path / "g")
    with pytest.raises(ValueError, match="out"):
        window_grid(gamma2=0.5, d=400, L=10, out=tmp_path / "missing" / "g")
    (tmp_path / "file").write_text("mine")
    with pytest.raises(ValueError, match="out: .* not a window-grid store"):
        window_grid(gamma2=0.5, d=400, L=10, out=tmp_path / "file")
    with pytest.raises(ValueError, match="scheduler"):
        window_grid(gamma2=0.5, d=400, L=10, out=tmp_path / "g", scheduler=7)
    assert sorted(os.listdir(tmp_path)) == ["file"]


def test_the_command_line_names_its_options(tmp_path, capsys):
    from slr_verify.cli import main

    assert main(["certify", "window-grid", "--gamma2", "0.5", "--d", "3", "--L", "10", "--out",
                 str(tmp_path / "g")]) == 2
    assert "--d must be integers >= 4" in capsys.readouterr().err
    assert main(["certify", "window-grid", "--gamma2", "0.5", "--d", "400", "--L", "10", "--lam-max", "1e5", "--out",
                 str(tmp_path / "g")]) == 2
    assert "--lam-max" in capsys.readouterr().err
    assert not (tmp_path / "g").exists()


# ------------------------------------------------------------------------------------------ the dataset
@pytest.mark.slow  # Zarr stores written and read back (the README run's budget)
def test_the_dataset_is_written_and_read_back(tmp_path):
    calls = []
    out = tmp_path / "grid.zarr"
    assert _run(out, _stub(calls, proved=lambda s: s[1] != 400)) == {"computed": 4, "skipped": 0}
    assert sorted(calls) == [(0.5, 50, 10, 0.0), (0.5, 400, 10, 0.0), (1.5, 50, 10, 0.0), (1.5, 400, 10, 0.0)]
    import xarray as xr

    ds = xr.open_zarr(str(out))
    assert ds.sizes == {"gamma2": 2, "d": 2, "L": 1, "eps": 1}
    assert list(ds["d"].values) == [50, 400] and ds["d"].dtype == np.int64 and ds["gamma2"].dtype == np.float64
    at = ds.sel(gamma2=1.5, d=50, L=10, eps=0.0)
    assert float(at["lo_lower"]) == 0.15 and math.isnan(float(at["hi_upper"])) and float(at["unique_hi"]) == 2.0
    assert str(at["mechanism_hi"].values) == "none" and str(at["statement"].values) == "W ∋ λ for d = 50"
    assert bool(at["proved"]) and bool(at["done"]) and int(at["boxes"]) == 350 and at["boxes"].dtype == np.int64
    off = ds.sel(gamma2=0.5, d=400, L=10, eps=0.0)
    assert not bool(off["proved"]) and str(off["reason"].values).endswith("λ ∉ W?") and bool(off["done"])
    # the certificate beside the data, named and hashed as certificate.write serialises it
    name = str(at["certificate_file"].values)
    raw = gzip.decompress((out / "certificates" / name).read_bytes())
    assert str(at["certificate"].values) == hashlib.sha256(raw).hexdigest()
    assert raw == json.dumps(_doc(), separators=(",", ":")).encode()
    assert ds.attrs["lam_range"] == [1e-4, 2.0] and ds.attrs["format"] == S.FORMAT and ds.attrs["half_width"] == 4e-13
    assert set(open_window_grid(out).data_vars) == set(S.VARIABLES)


def test_a_setting_not_reached_stays_empty_and_not_done(tmp_path):
    out = tmp_path / "grid.zarr"
    assert _run(out, _stub([]), stop_after=1)["computed"] == 1
    ds = open_window_grid(out)
    assert int(ds["done"].sum()) == 1
    empty = ds.isel(gamma2=1, d=1, L=0, eps=0)
    assert not bool(empty["done"]) and str(empty["mechanism_lo"].values) == "" and math.isnan(float(empty["lo_lower"]))


def test_values_are_written_before_the_done_flag(tmp_path):
    order = []

    class Recorder(dict):
        def __getitem__(self, name):
            return type("A", (), {"__setitem__": lambda s, i, v: order.append(name)})()

    S.write_setting(Recorder(), (0, 0, 0, 0), {v: 0 for v in S.ROW})
    assert order[-1] == "done" and set(order[:-1]) == set(S.ROW)
    with pytest.raises(ValueError, match="row lacks"):
        S.write_setting(Recorder(), (0, 0, 0, 0), {})


# ------------------------------------------------------------------------------------------ resume
@pytest.mark.slow  # four Zarr writes and replays (the README run's budget)
def test_resume_keeps_exactly_the_settings_still_proved(tmp_path):
    out = tmp_path / "grid.zarr"
    first = []
    _run(out, _stub(first, proved=lambda s: s != (1.5, 400, 10, 0.0)))
    assert len(first) == 4
    # rerun: only the one not proved
    again = []
    assert _run(out, _stub(again)) == {"computed": 1, "skipped": 3}
    assert again == [(1.5, 400, 10, 0.0)]
    # a certificate changed on disk (hash), one removed, one that the checker rejects (hash updated to match)
    certs = out / "certificates"
    ds = open_window_grid(out)
    f = {s: certs / str(ds["certificate_file"].sel(gamma2=s[0], d=s[1], L=10, eps=0.0).values)
         for s in ((0.5, 50), (0.5, 400), (1.5, 50))}
    doc = _doc()
    doc["leaves"][0]["data"] = {"test": "value", "beta": 1e9}
    bad = json.dumps(doc, separators=(",", ":")).encode()
    f[(0.5, 50)].write_bytes(gzip.compress(b" " + json.dumps(_doc(), separators=(",", ":")).encode()))
    f[(0.5, 400)].unlink()
    f[(1.5, 50)].write_bytes(gzip.compress(bad))
    import zarr

    zarr.open_group(str(out), mode="r+")["certificate"][1, 0, 0, 0] = hashlib.sha256(bad).hexdigest()
    assert not replay(load(str(f[(1.5, 50)]))).accepted
    third = []
    assert _run(out, _stub(third)) == {"computed": 3, "skipped": 1}
    assert sorted(third) == [(0.5, 50, 10, 0.0), (0.5, 400, 10, 0.0), (1.5, 50, 10, 0.0)]
    assert _run(out, _stub([])) == {"computed": 0, "skipped": 4}


def test_a_different_grid_is_refused_naming_out(tmp_path):
    out = tmp_path / "grid.zarr"
    _run(out, _stub([]), stop_after=0)
    for kw in (dict(d="50,80"), dict(lam_max=3.0), dict(time_limit=61.0)):
        with pytest.raises(ValueError, match="out: .* holds a different window grid"):
            _run(out, _stub([]), **kw)


@pytest.mark.slow  # two Zarr stores (the README run's budget)
def test_progress_shows_settings_done_of_total(tmp_path):
    stream = io.StringIO()
    _run(tmp_path / "grid.zarr", _stub([]), progress=stream)
    text = stream.getvalue()
    assert "window grid (settings)" in text and "4/4" in text
    quiet = io.StringIO()
    _run(tmp_path / "grid2.zarr", _stub([]), progress=None)
    assert quiet.getvalue() == ""


def test_the_label_is_a_file_name_per_setting():
    names = {G.label(g2, d, L, e) for g2 in (0.3, 0.30000000000000004) for d in (50, 400) for L in (3,) for e in (0.0,)}
    assert len(names) == 4 and all("/" not in n and " " not in n for n in names)
    assert committed  # the committed certificates' module: the stand-in's certificate is one of them


# ------------------------------------------------------------------------------------------ end to end (slow)
#: two cheap settings (no upper end of W below lam = 0.5: the branch and bound runs to the scan's end)
CHEAP = ["--gamma2", "1.5", "--d", "20,50", "--L", "20", "--eps", "0", "--lam-max", "0.5"]


def _env():
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([str(ROOT), env.get("PYTHONPATH", "")])
    return env


def _cli(args, **kw):
    return subprocess.run([sys.executable, "-m", "slr_verify", "certify", "window-grid", *args], capture_output=True,
                          text=True, env=_env(), timeout=kw.pop("timeout", 600), **kw)


def _check_against_independent_routes(out, settings):
    """Each stored setting against the float window (the profile route, to 1e-9) and the checker's replay of its file."""
    from slr_verify.landscape import float_window

    ds = open_window_grid(out)
    for g2, d, L in settings:
        at = ds.sel(gamma2=g2, d=d, L=L, eps=0.0)
        assert bool(at["done"]) and bool(at["proved"]), str(at["reason"].values)
        w = float_window(gamma=math.sqrt(g2), d=d, L=L, lam_range=(1e-4, 0.5))
        lo = (float(at["lo_lower"]), float(at["lo_upper"]))
        assert lo[0] - 1e-9 <= w.lo <= lo[1] + 1e-9 and lo[1] - lo[0] <= 1e-12
        assert str(at["mechanism_lo"].values) == w.mechanism_lo == "crossing"
        assert str(at["mechanism_hi"].values) == "none" and w.mechanism_hi is None
        assert math.isnan(float(at["hi_lower"])) and float(at["unique_lo"]) == lo[1] and float(at["unique_hi"]) == 0.5
        path = Path(out) / "certificates" / str(at["certificate_file"].values)
        assert G.file_digest(path) == str(at["certificate"].values)
        r = replay(load(str(path)))
        assert r.accepted and r.conclusion == str(at["statement"].values) and r.leaves == int(at["leaves"])


@pytest.mark.slow  # a local cluster of two workers proving two settings
def test_a_local_cluster_proves_two_settings(tmp_path):
    out = tmp_path / "grid.zarr"
    run = _cli([*CHEAP, "--workers", "2", "--out", str(out)])
    assert run.returncode == 0, run.stderr[-3000:]
    assert "2 of 2 settings proved (2 computed now, 0 kept)" in run.stdout
    assert "window grid (settings)" in run.stderr and "2/2" in run.stderr
    _check_against_independent_routes(out, [(1.5, 20, 20), (1.5, 50, 20)])
    rerun = _cli([*CHEAP, "--workers", "2", "--out", str(out), "--quiet"])
    assert rerun.returncode == 0 and "(0 computed now, 2 kept)" in rerun.stdout and rerun.stderr == ""


@pytest.mark.slow  # a grid killed after its first setting is stored, then resumed
def test_a_killed_grid_resumes_with_the_unfinished_settings_only(tmp_path):
    import zarr

    out = tmp_path / "grid.zarr"
    cmd = [sys.executable, "-m", "slr_verify", "certify", "window-grid", *CHEAP, "--workers", "1", "--out", str(out),
           "--quiet"]
    proc = subprocess.Popen(cmd, env=_env(), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        t0 = time.time()
        while time.time() - t0 < 300:
            if proc.poll() is not None:
                break
            try:  # the store may be still being created
                if np.asarray(zarr.open_group(str(out), mode="r")["done"][:]).sum() >= 1:
                    break
            except (KeyError, FileNotFoundError, ValueError):
                pass
            time.sleep(0.1)
        proc.send_signal(signal.SIGKILL)
        proc.wait(30)
    finally:
        if proc.poll() is None:
            proc.kill()
    ds = open_window_grid(out)
    assert list(np.asarray(ds["done"].values).ravel()) == [True, False], "killed before or after the first setting"
    first = str(ds["certificate"].values.ravel()[0])
    rerun = _cli([*CHEAP, "--workers", "1", "--out", str(out), "--quiet"])
    assert rerun.returncode == 0, rerun.stderr[-3000:]
    assert "2 of 2 settings proved (1 computed now, 1 kept)" in rerun.stdout
    assert str(open_window_grid(out)["certificate"].values.ravel()[0]) == first
    _check_against_independent_routes(out, [(1.5, 20, 20), (1.5, 50, 20)])


@pytest.mark.slow  # `dask scheduler` and `dask worker` started here, the grid run through --scheduler
def test_a_grid_through_a_running_scheduler(tmp_path):
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    address = f"tcp://127.0.0.1:{port}"
    procs = [subprocess.Popen(["dask", "scheduler", "--host", "127.0.0.1", "--port", str(port), "--no-dashboard"],
                              env=_env(), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)]
    try:
        time.sleep(2)
        # two workers of two threads each (`dask worker`'s default is a thread per core): the tasks still run one at a
        # time per worker process (arb's precision is one global of a process)
        procs.append(subprocess.Popen(["dask", "worker", address, "--nthreads", "2", "--nworkers", "2", "--no-dashboard"],
                                      env=_env(), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL))
        out = tmp_path / "grid.zarr"
        run = _cli(["--gamma2", "1.5", "--d", "20,50", "--L", "20", "--lam-max", "0.5", "--scheduler", address, "--out",
                    str(out)])
        assert run.returncode == 0, run.stderr[-3000:]
        assert "2 of 2 settings proved (2 computed now, 0 kept)" in run.stdout
        _check_against_independent_routes(out, [(1.5, 20, 20), (1.5, 50, 20)])
    finally:
        for p in procs[::-1]:
            p.terminate()
            try:
                p.wait(20)
            except subprocess.TimeoutExpired:
                p.kill()
    # the scheduler gone: the same command names --scheduler's value and leaves no store
    gone = _cli(["--gamma2", "1.5", "--d", "20", "--L", "20", "--lam-max", "0.5", "--scheduler", address, "--out",
                 str(tmp_path / "other.zarr")], timeout=120)
    assert gone.returncode == 2 and f"scheduler {address!r}" in gone.stderr and not (tmp_path / "other.zarr").exists()


def test_a_setting_that_raises_is_recorded_and_the_grid_goes_on(tmp_path, monkeypatch):
    """prove_setting around oracle_window (window_on, replaced here): an error is that setting's reason, not the
    grid's end; the others are stored as computed."""
    from slr_verify.certify.window import WindowEnclosure

    def fake(engine, *, gamma, eps, d, L, lam_range, time_limit, half_width):
        if d == 400:
            raise RuntimeError("no competitor found")
        return WindowEnclosure((0.1, 0.1 + 8e-13), None, False, ("crossing", "none"), (0.1 + 8e-13, lam_range[1]),
                               details={"reason": "the branch and bound did not close"}, boxes=5)

    monkeypatch.setattr(G, "window_on", fake)
    out = tmp_path / "grid.zarr"
    assert _run(out, G.prove_setting, gamma2="0.5") == {"computed": 2, "skipped": 0}
    ds = open_window_grid(out)
    bad, ok = ds.sel(d=400).squeeze(), ds.sel(d=50).squeeze()
    assert str(bad["reason"].values) == "RuntimeError: no competitor found" and not bool(bad["proved"])
    assert str(ok["reason"].values) == "the branch and bound did not close" and int(ok["boxes"]) == 5
    assert float(ok["unique_hi"]) == 2.0 and math.isnan(float(ok["lo_lower"]))  # no certificate: no exact end
    assert str(ok["certificate"].values) == "" and not list((out / "certificates").glob("*.json.gz"))


def test_a_partial_certificate_is_stored_with_its_upper_end_not_reached(monkeypatch):
    """A time-limited window states its upper end as "none" below the end it reached (the checker's form); the
    dataset records that end as not reached (""), the proved interval and the statement; a complete window without an
    upper end keeps "none". (window_on replaced: the row is prove_setting's.)"""
    from types import SimpleNamespace

    from slr_verify.certify.window import WindowEnclosure

    def fake(complete):
        def window_on(engine, *, gamma, eps, d, L, lam_range, time_limit, half_width):
            doc = {"leaves": [0, 0, 0], "ends": {"lo": {"mechanism": "crossing", "enclosure": [0.1, 0.1 + 8e-13]},
                                                 "hi": {"mechanism": "none"}}}
            return WindowEnclosure((0.1, 0.1 + 8e-13), None, complete, ("crossing", "none"), (0.1 + 8e-13, 3.0),
                                   statement="hi >= 3.0", certificate=doc,
                                   replay=SimpleNamespace(accepted=True, conclusion="hi >= 3.0", reason="accepted"),
                                   details={"reason": "" if complete else "W is proved on [0.1, 3.0] only"})
        return window_on

    for complete, mech in ((False, ""), (True, "none")):
        monkeypatch.setattr(G, "window_on", fake(complete))
        row, doc = G.prove_setting(0.5, 50, 10, 0.0, 100.0, 10.0, 4e-13)
        assert row["mechanism_hi"] == mech and row["mechanism_lo"] == "crossing" and row["proved"] is complete
        assert row["unique_hi"] == 3.0 and row["statement"] == "hi >= 3.0" and row["leaves"] == 3 and doc is not None
        assert (row["reason"] == "") is complete
