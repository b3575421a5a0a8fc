"""Worker processes, only when asked for (`docs/usage.md`, "Worker processes").

The library computes in the calling process unless a function is given ``workers`` (or ``jobs``) above 1; the command
line asks for one per core. Python starts such workers by *spawning* fresh interpreters, and each one imports the
calling script again: a script that asks for workers must make its calls under ``if __name__ == "__main__":``, or
every worker re-runs the script's top level, asks for workers itself, and Python refuses (its bootstrapping
``RuntimeError``; the pool then breaks). Such a worker leaves quietly (:func:`refuse_in_bootstrap`), and
:func:`spawn_guard` (the Dask engine likewise) turns the parent's failure into one error that says so.
"""
from __future__ import annotations

import multiprocessing as mp
import os
from concurrent.futures.process import BrokenProcessPool
from contextlib import contextmanager


def cores() -> int:
    """The machine's cores, at most 64 (what the command line asks for)."""
    return min(os.cpu_count() or 1, 64)


def guard_message(name: str, param: str, n: int, worker: bool = False) -> str:
    """The error that names Python's requirement (``worker``: as raised in a worker re-running the script)."""
    what = ("asked for from a worker process that is still importing the script that started it" if worker else
            "a worker process could not start or ended abruptly")
    return (f"{name} with {param}={n}: {what}. Python starts each worker by importing the calling script again: a "
            f'script that asks for workers must make its calls under `if __name__ == "__main__":` (otherwise each worker '
            f"re-runs the script and dies starting); or pass {param}=1 (in this process, the default)")


def refuse_in_bootstrap(name: str, param: str, n: int) -> None:
    """Leave this process quietly (``SystemExit(1)``, no traceback) when ``n`` > 1 workers are asked for by code that
    runs while this process is itself a worker still importing its parent's script (an unguarded script's top level):
    at once, before the work the parent is doing is repeated here. The parent's pool or cluster then fails to start,
    and the parent raises the one ``RuntimeError`` of :func:`guard_message` (each worker printing its own traceback
    made ~120 lines of them, two workers' and Dask's, before that message)."""
    # the flag Python's own check reads (multiprocessing.spawn._check_not_importing_main)
    if n > 1 and getattr(mp.current_process(), "_inheriting", False):
        raise SystemExit(1)


@contextmanager
def spawn_guard(name: str, param: str, n: int):
    """Around a pool of ``n`` spawned workers: a pool broken while its workers start (:class:`BrokenProcessPool`, or
    the bootstrapping ``RuntimeError``) becomes the ``RuntimeError`` of :func:`guard_message`."""
    refuse_in_bootstrap(name, param, n)
    try:
        yield
    except BrokenProcessPool:
        raise RuntimeError(guard_message(name, param, n)) from None  # one message, not the pool's traceback
    except RuntimeError as exc:
        if "bootstrapping phase" not in str(exc):
            raise
        raise RuntimeError(guard_message(name, param, n)) from None


def end_with_parent(poll: float = 1.0) -> None:
    """In a worker process: leave (``os._exit``) once the process that started it has ended, checked every ``poll``
    seconds by a daemon thread. A parent ended by a signal it does not handle (SIGTERM, SIGKILL) runs no cleanup, and
    a pool's workers would otherwise compute on, orphans, until their task ends."""
    import threading
    import time

    started_by = mp.parent_process()  # the pid recorded at the spawn: right even if the parent has ended already
    parent = started_by.pid if started_by is not None else os.getppid()

    def watch():
        while os.getppid() == parent:
            time.sleep(poll)
        os._exit(1)

    threading.Thread(target=watch, daemon=True, name="end-with-parent").start()
