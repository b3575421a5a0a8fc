"""Worker processes only when asked for: the library computes in the calling process by default (a plain script,
without ``if __name__ == "__main__":``, gets its result), the command line uses the cores, and a script that asks for
workers without the guard gets an error naming it (Python re-imports the script in each spawned worker)."""
from __future__ import annotations

import multiprocessing as mp
import os
import subprocess
import sys
import textwrap
from concurrent.futures.process import BrokenProcessPool
from pathlib import Path

import pytest

from slr_verify.model.processes import refuse_in_bootstrap, spawn_guard

ROOT = Path(__file__).resolve().parents[1]
GUARD = 'if __name__ == "__main__":'


def _script(tmp_path, body, timeout=600):
    """Run ``body`` as a plain script file (no guard: the way spawn re-imports it), with the checker's workers unset."""
    path = tmp_path / "plain_script.py"
    path.write_text(textwrap.dedent(body))
    env = {k: v for k, v in os.environ.items() if k != "SLR_VERIFY_CHECKER_WORKERS"}
    env["PYTHONPATH"] = os.pathsep.join([str(ROOT), env.get("PYTHONPATH", "")])
    return subprocess.run([sys.executable, str(path)], capture_output=True, text=True, timeout=timeout, env=env,
                          cwd=tmp_path)


@pytest.mark.slow  # a fresh interpreter importing the claims: seconds, not the default run's
def test_an_unguarded_script_gets_its_result_in_process(tmp_path):
    """run_claims and the checker's replay at their defaults, from a plain script: the results, and no child process
    was started (the checker would test a million leaves in this process)."""
    run = _script(tmp_path, """
        import multiprocessing
        from slr_verify.checker import parallel
        from slr_verify.claims import run_claims
        r = run_claims(mode="fast", only={"lemma-16"})
        print("RESULT", r[0].claim.id, r[0].verdict, len(multiprocessing.active_children()), parallel.workers(10**6))
    """)
    assert run.returncode == 0, run.stderr[-2000:]
    assert run.stdout.split("RESULT", 1)[1].split() == ["lemma-16", "pass", "0", "1"]


def test_a_broken_pool_names_the_guard():
    """The pool's failure (what the parent of workers that re-ran an unguarded script sees) becomes one RuntimeError
    that names the guard and the parameter; another error passes through unchanged."""
    with pytest.raises(RuntimeError, match="jobs=2") as exc, spawn_guard("run_claims", "jobs", 2):
        raise BrokenProcessPool("A process in the process pool was terminated abruptly")
    assert GUARD in str(exc.value) and "jobs=1" in str(exc.value)
    with pytest.raises(ValueError, match="unrelated"), spawn_guard("run_claims", "jobs", 2):
        raise ValueError("unrelated")


def test_a_worker_importing_its_parents_script_refuses_at_once(monkeypatch, capsys):
    """In a spawned worker still importing the parent's script (Python's flag), a call asking for workers ends the
    worker before any work, quietly (exit 1, nothing printed: the parent's one error names the guard); asking for none,
    or outside that phase, is not refused."""
    refuse_in_bootstrap("oracle_window", "workers", 2)
    monkeypatch.setattr(mp.current_process(), "_inheriting", True, raising=False)
    refuse_in_bootstrap("oracle_window", "workers", 1)
    with pytest.raises(SystemExit) as exc:
        refuse_in_bootstrap("oracle_window", "workers", 2)
    assert exc.value.code == 1 and capsys.readouterr() == ("", "")


def test_the_checker_runs_in_process_unless_asked(monkeypatch):
    """The checker's replays: one process unless SLR_VERIFY_CHECKER_WORKERS asks for more; the command line asks for one
    per core while it runs and leaves the caller's environment as it was."""
    from slr_verify.checker import parallel
    from slr_verify.cli import main

    monkeypatch.delenv("SLR_VERIFY_CHECKER_WORKERS", raising=False)
    assert parallel.workers(10**6) == 1
    with pytest.raises(SystemExit):
        main(["--version"])
    assert "SLR_VERIFY_CHECKER_WORKERS" not in os.environ


@pytest.mark.slow
def test_oracle_window_from_an_unguarded_script(tmp_path):
    """certify.oracle_window from a plain script returns its result (it used to start two workers,
    which re-ran the script: Python's bootstrapping RuntimeError, then BrokenProcessPool)."""
    run = _script(tmp_path, """
        from slr_verify import certify
        w = certify.oracle_window(gamma2=1.5, d=50, L=20, lam_range=(1e-4, 2.0))
        print("RESULT", w.proved, w.replay.accepted)
    """)
    assert run.returncode == 0, run.stderr[-2000:]
    assert run.stdout.split("RESULT", 1)[1].split() == ["True", "True"]


@pytest.mark.slow
@pytest.mark.parametrize("call, param, name", [
    ('from slr_verify.claims import run_claims\nrun_claims(mode="fast", only={"lemma-16", "lemma-17"}, jobs=2)', "jobs",
     "run_claims"),
    ("from slr_verify.sweep import Grid, sweep\nsweep(Grid(lam=(0.1,), d=(400,), L=(10,), gamma2=(0.5,), "
     "alpha=(4e-3,), runs=2, steps=5), 'store.zarr', workers=2)", "workers", "sweep"),
    ("from slr_verify import certify\ncertify.oracle_window(gamma2=1.5, d=20, L=20, lam_range=(1e-4, 0.5), workers=2)",
     "workers", "certify.oracle_window"),
    ("from slr_verify import certify\ncertify.window_grid(gamma2=1.5, d=20, L=20, lam_max=0.5, out='g.zarr', workers=2)",
     "workers", "certify.window_grid"),
])
def test_workers_asked_for_without_the_guard_name_it(tmp_path, call, param, name):
    """A plain script that asks for two workers: its error is one short traceback (the script's own frames; no worker's
    traceback, no chained pool or Dask error) ending in one RuntimeError naming the function called, the guard and the
    parameter (not BrokenProcessPool, not Dask's "Nanny failed to start"; it was ~120 lines naming
    certify.global_minimiser for oracle_window)."""
    run = _script(tmp_path, call + "\n", timeout=300)
    lines = run.stderr.strip().splitlines()
    last = lines[-1]
    assert run.returncode != 0 and last.startswith("RuntimeError:") and GUARD in last and f"{param}=2" in last, last
    assert name in last and len(lines) <= 40 and run.stderr.count("Traceback") == 1, run.stderr[-3000:]


_ORPHAN = """
    import multiprocessing as mp, sys, time
    from slr_verify.model.processes import end_with_parent

    def child(watch):
        if watch:
            end_with_parent(poll=0.05)
        time.sleep(60)

    if __name__ == "__main__":
        p = mp.get_context("spawn").Process(target=child, args=(sys.argv[1] == "watch",))
        p.start()
        print(p.pid, flush=True)
        time.sleep(60)
"""


@pytest.mark.parametrize("watch", [True, False])
def test_a_worker_ends_with_its_parent_killed_without_cleanup(tmp_path, watch):
    """A parent killed by SIGKILL (no handler, no atexit) leaves its spawned worker an orphan; with end_with_parent the
    worker leaves (waited for up to 5 s: it may still be importing when its parent dies), without it (the control)
    it is still alive a second later."""
    import signal
    import time

    path = tmp_path / "orphan.py"
    path.write_text(textwrap.dedent(_ORPHAN))
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")]))
    parent = subprocess.Popen([sys.executable, str(path), "watch" if watch else "no"], stdout=subprocess.PIPE, text=True,
                              env=env, cwd=tmp_path)
    child = int(parent.stdout.readline())
    time.sleep(0.2)  # killed before or after the child starts its watch: it records the pid it was spawned by
    parent.send_signal(signal.SIGKILL)
    parent.wait(timeout=10)

    def alive():
        try:
            os.kill(child, 0)
        except ProcessLookupError:
            return False
        with open(f"/proc/{child}/stat") as fh:  # a zombie (ended, not yet reaped by init) counts as gone
            return fh.read().split(")")[-1].split()[0] != "Z"

    deadline = time.time() + (5.0 if watch else 1.0)  # the watched child is waited for until it has gone
    while alive() and time.time() < deadline:
        time.sleep(0.05)
    try:
        assert alive() is (not watch)
    finally:
        if alive():
            os.kill(child, signal.SIGKILL)
