"""The one parallel engine of the suite, on Dask (`docs/usage.md`, "Worker processes"; `docs/architecture.md`).

Its users: the sweep (a chunk of grid points per task, `docs/MATH.md` §13), the branch and bound of the oracle's
global minimality (a lam piece per task, §17) and the window grid (a setting per task, or a setting's lam pieces;
§§13, 17).

* **Schedulers**: ``"sync"`` -- in this process, no Dask; ``"local"`` -- a ``distributed.LocalCluster`` of
  ``workers`` single-threaded processes; ``None`` -- ``"local"`` when ``workers`` > 1, else ``"sync"``; any other
  string -- the address of a running scheduler (``dask scheduler``, with ``dask worker ADDRESS`` processes),
  refused with a ``ValueError`` naming ``scheduler`` when unreachable within :data:`CONNECT_TIMEOUT` seconds.
* **Tasks** (:meth:`Engine.run`): at most :attr:`Engine.threads` in flight, so that a task submitted is a task
  running; results as they complete (in order, one at a time, in ``"sync"`` mode); closing the iterator cancels the
  tasks in flight and starts no other.
* A local cluster's processes never see Ctrl-C: this process handles it and shuts them down, also when it comes
  while the cluster starts. A script that starts one must make its calls under ``if __name__ == "__main__":``
  (:mod:`.processes`): otherwise one ``RuntimeError`` says so (:func:`.processes.guard_message`).
"""
from __future__ import annotations

import os
import threading
import time

from .processes import guard_message, refuse_in_bootstrap

#: seconds to wait for a scheduler given by address (and for its first worker) before saying it is unreachable
CONNECT_TIMEOUT = 10


def resolve(scheduler, workers: int) -> str:
    """The scheduler's mode: "sync", "local" or an address (``None``: "local" when ``workers`` > 1, else "sync");
    ``ValueError`` naming ``scheduler`` for anything but a string or None."""
    if scheduler is not None and not isinstance(scheduler, str):
        raise ValueError(f"scheduler must be None, 'local', 'sync' or a scheduler address, got {scheduler!r}")
    if scheduler is None:
        return "local" if workers > 1 else "sync"
    if not scheduler.strip():
        raise ValueError("scheduler must be None, 'local', 'sync' or a scheduler address, got ''")
    return scheduler


class Engine:
    """Tasks run in this process or on Dask workers (see the module). ``name``: the caller, as the guard's error names
    it. Use as a context manager, or call :meth:`close`."""

    def __init__(self, scheduler=None, workers: int = 1, name: str = "slr_verify"):
        self.mode = resolve(scheduler, workers)
        self.name, self.workers = name, int(workers)
        self.client = self.cluster = None
        if self.mode == "local":
            refuse_in_bootstrap(name, "workers", self.workers)
        if self.mode != "sync":
            self.client, self.cluster = connect(self.mode, self.workers, name)
        #: {task index: start time} of the tasks in flight (the progress line's "slowest running")
        self.running: dict = {}

    @property
    def threads(self) -> int:
        """Worker processes: what a unit of work is sized by (1 in this process). A worker started with several
        threads still runs one of these tasks at a time (:func:`_one_at_a_time`)."""
        if self.client is None:
            return 1
        return max(1, len(self.client.nthreads()))

    def run(self, fn, args, tick=None, tick_seconds=1.0):
        """``fn(*args[i])`` for each i: yields (i, result) as they complete. ``tick()`` is called every
        ``tick_seconds`` while waiting (Dask only). Closing the iterator (``break``, an error) cancels the tasks in
        flight; the others are never started. A task's error is raised here."""
        args = list(args)
        if self.client is None:
            for i, a in enumerate(args):
                self.running = {i: time.time()}
                try:
                    out = fn(*a)
                finally:
                    self.running = {}
                yield i, out
            return
        from distributed import wait

        pending = iter(enumerate(args))
        flight = {}  # future -> index

        def submit():
            for i, a in pending:
                f = self.client.submit(_one_at_a_time, fn, *a, pure=False)
                flight[f], self.running[i] = i, time.time()
                return

        try:
            for _ in range(self.threads):
                submit()
            while flight:
                try:
                    done = wait(list(flight), timeout=tick_seconds, return_when="FIRST_COMPLETED").done
                except TimeoutError:
                    done = ()
                if not done:
                    if tick is not None:
                        tick()
                    continue
                for f in [f for f in flight if f in done]:
                    i = flight.pop(f)
                    out = f.result()
                    self.running.pop(i, None)
                    yield i, out
                    submit()  # after the caller has seen the result: a caller that stops here starts nothing new
        finally:
            if flight:
                self.client.cancel(list(flight))
            self.running = {}

    def close(self) -> None:
        disconnect(self.client, self.cluster)
        self.client = self.cluster = None

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()


_TASK_LOCK = threading.Lock()


def _one_at_a_time(fn, *args):
    """A task on a Dask worker, one at a time per worker process: arb's working precision (python-flint's ``ctx``) is
    one global of the process, which tasks on two threads of one worker (``dask worker`` starts one per core by
    default) would change under each other."""
    with _TASK_LOCK:
        return fn(*args)


def connect(scheduler: str, workers: int, name: str = "slr_verify"):
    """(client, cluster): a Dask client on a new local cluster ("local"; the cluster is None otherwise) or on the
    scheduler at an address (waiting for one worker)."""
    import logging
    import signal

    from distributed import Client, LocalCluster

    logging.getLogger("distributed").setLevel(logging.ERROR)
    if scheduler == "local":
        # the workers inherit the environment: their Dask loggers say errors only (no warnings about tasks cancelled)
        os.environ.setdefault("DASK_LOGGING__DISTRIBUTED", "critical")
        # Ctrl-C blocked, not ignored, while the cluster starts: the workers inherit the mask (Ctrl-C is this
        # process's to handle), and one pressed meanwhile stays pending here instead of being discarded
        signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})
        cluster = None
        try:
            # the scheduler's HTTP server on a free port: ":8787" taken by another cluster means a warning on stderr
            cluster = LocalCluster(n_workers=workers, threads_per_worker=1, processes=True, dashboard_address=":0")
            client = Client(cluster)
        except RuntimeError:  # "Nanny failed to start": e.g. a script without the guard, re-run by each
            raise RuntimeError(guard_message(name, "workers", workers)) from None  # one message, not Dask's chain
        finally:
            interrupted = signal.SIGINT in signal.sigpending()
            if interrupted:
                signal.sigwait({signal.SIGINT})  # consumed here; the interrupt is raised below, the cluster closed first
                if cluster is not None:
                    cluster.close()
            signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT})
        if interrupted:
            raise KeyboardInterrupt
        return client, cluster
    why = f"not 'sync', 'local' or the address of a scheduler reachable within {CONNECT_TIMEOUT} s (host:port, e.g. " \
          "tcp://127.0.0.1:8786)"
    try:
        client = Client(scheduler, timeout=CONNECT_TIMEOUT)
    except (OSError, ValueError, TypeError) as exc:
        raise ValueError(f"scheduler {scheduler!r} is {why}: {' '.join(str(exc).split())}") from None
    try:
        client.wait_for_workers(1, timeout=CONNECT_TIMEOUT)
    except (OSError, TimeoutError) as exc:
        disconnect(client, None)
        raise ValueError(f"scheduler {scheduler!r} has no worker within {CONNECT_TIMEOUT} s (start one with `dask worker "
                         f"{scheduler}`): {' '.join(str(exc).split())}") from None
    return client, None


def disconnect(client, cluster) -> None:
    """Close the client and the local cluster quietly (no Dask warnings after a Ctrl-C)."""
    import contextlib
    import io
    import logging

    if client is None:
        return
    for name in ("distributed", "tornado", "asyncio"):
        logging.getLogger(name).setLevel(logging.CRITICAL)
    with contextlib.redirect_stderr(io.StringIO()):
        with contextlib.suppress(Exception):
            client.close()
        if cluster is not None:
            with contextlib.suppress(Exception):
                cluster.close()
