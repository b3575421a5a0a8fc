"""Running the claims: in this process, or in parallel worker processes (``slr-verify check``: one per core), longest
first by the last run's times, each worker single-threaded, with one progress line per worker on a terminal.

A check that raises is a failed check with the error recorded; nothing is silently pending; a claim whose optional
extra is missing is reported as ``not run``. Given a user's setting (``setting=``), the parameterised claims run there
and the others at the paper's (:mod:`.base`).
"""

from __future__ import annotations

import json
import os
import threading
import time

from ..model import validation as V
from ..model.cache import cache_dir
from ..model.params import keywords_checked
from ..model.processes import cores, end_with_parent, refuse_in_bootstrap, spawn_guard
from .base import Claim, Result
from .registry import CLAIMS, get, ids, user_setting


def _run(claim: Claim, mode: str, progress, setting=None) -> Result:
    at = claim.setting_for(setting)
    why_not = claim.missing()
    if why_not:
        return Result(claim, [], 0.0, None, mode, skipped=why_not, setting=at)
    ctx = claim.context(mode, progress, setting)
    t0 = time.perf_counter()
    try:
        evidence, error = list(claim.check(ctx)), None
    except Exception as exc:  # a check that crashes fails, and says why
        evidence, error = [], f"{type(exc).__name__}: {exc}"
    return Result(claim, evidence, time.perf_counter() - t0, error, mode, setting=at)


# --------------------------------------------------------------------------- worker processes
_SLOT = None
_QUEUE = None


def _init_worker(queue, counter):
    global _SLOT, _QUEUE
    end_with_parent()  # a check ended by SIGTERM leaves no worker computing on
    with counter.get_lock():
        _SLOT = counter.value
        counter.value += 1
    _QUEUE = queue


class _QueueStream:
    """A file-like stream for a worker's progress bars: forwards the bar's latest frame to the
    parent, which draws one line per worker."""

    def __init__(self):
        self._last = 0.0

    def write(self, s):
        frame = s.rsplit("\r", 1)[-1].strip()
        now = time.monotonic()
        if frame and _QUEUE is not None and now - self._last > 0.2:
            self._last = now
            _QUEUE.put(("bar", _SLOT, frame))
        return len(s)

    def flush(self):
        pass


def _worker(claim_id, mode, show, setting=None):
    claim = get(claim_id)
    if _QUEUE is not None:
        _QUEUE.put(("start", _SLOT, claim_id))
    res = _run(claim, mode, _QueueStream() if show else None, setting)
    return res.evidence, res.seconds, res.error, res.skipped


def _group_worker(claim_ids, mode, show, setting=None):
    """The claims of a group (:data:`SHARED_WORK`), one after the other in this worker: [(evidence, seconds, error,
    skipped)] in the order given."""
    return [_worker(i, mode, show, setting) for i in claim_ids]


#: Claims that share work kept in a process's caches, handed to one worker together (in this order) when they run in
#: parallel: the window's two claims read the same float window at d = 400 (window_claims._window_at) and the same index
#: of the committed certificates; the three training claims load JAX and its runtime once instead of in each worker.
#: Each claim still runs in full and is timed alone; only where it runs changes (and a group longer than a worker's share
#: of the run is not kept together: :func:`_tasks`).
SHARED_WORK = (("oracle-window", "global-minimiser"), ("figure-8", "figure-10", "rank-one"))


def _tasks(todo, times, jobs) -> list:
    """The units handed to the ``jobs`` workers, longest first (by the last run's times; heavy claims first when
    unknown): a group of :data:`SHARED_WORK` or of the claims' own ``group`` (its claims among ``todo``, two or more) as
    one unit when it takes no more
    than a worker's share of the whole (else its claims would wait for each other: they go alone), every other claim
    alone."""
    cost = lambda c: times.get(c.id, 1e6 if c.heavy else 0.0)
    share = sum(cost(c) for c in todo) / jobs
    declared = {}  # the claims' own groups (Claim.group: one certificate's replay, cached per process)
    for c in todo:
        if c.group:
            declared.setdefault(c.group, []).append(c.id)
    grouped = [[c for i in g for c in todo if c.id == i] for g in (*SHARED_WORK, *declared.values())]
    grouped = [g for g in grouped if len(g) > 1 and sum(cost(c) for c in g) <= share]
    inside = {c.id for g in grouped for c in g}
    units = grouped + [[c] for c in todo if c.id not in inside]
    return sorted(units, key=lambda u: -sum(cost(c) for c in u))


_SINGLE_THREAD = {
    "OMP_NUM_THREADS": "1",
    "OPENBLAS_NUM_THREADS": "1",
    "MKL_NUM_THREADS": "1",
    "NUMBA_NUM_THREADS": "1",
    "XLA_FLAGS": "--xla_cpu_multi_thread_eigen=false intra_op_parallelism_threads=1",
}


def _times_path():
    return cache_dir() / "claim-seconds.json"


def _load_times(mode):
    try:
        return json.loads(_times_path().read_text()).get(mode, {})
    except (OSError, ValueError):
        return {}


def _save_times(mode, results):
    try:
        path = _times_path()
        data = json.loads(path.read_text()) if path.exists() else {}
        data.setdefault(mode, {}).update({r.claim.id: round(r.seconds, 2) for r in results if not r.skipped})
        path.write_text(json.dumps(data))
    except (OSError, ValueError):
        pass  # the timing cache only orders the work


def _isatty(stream):
    return stream is not None and hasattr(stream, "isatty") and stream.isatty()


def _lines(stream, slots):
    """One status line per worker on a terminal (tqdm bars used as text lines)."""
    from tqdm.auto import tqdm

    return [tqdm(total=0, position=i, bar_format="{desc}", file=stream, leave=False) for i in range(slots)]


@keywords_checked
def run_claims(mode="default", only=None, progress=None, jobs=1, setting=None) -> list:
    """Run every claim (or the ids in ``only``); return one :class:`Result` each, in registry order.

    ``setting``: a user's setting, ``dict(gamma2=0.8, eps=0.1, d=200, L=6)`` (or a user
    :class:`~.base.ClaimSetting`): the parameterised claims (:func:`parameterised`) run there, the others at the
    paper's; each result's ``setting`` says which (``source`` ``"user"`` or ``"paper"``). None: every claim at the
    paper's settings.

    ``jobs``: worker processes (1, the default: in this process; None: one per core, as ``slr-verify check``
    does; a script that asks for several must call this under ``if __name__ == "__main__":``, or the workers cannot
    start: a ``RuntimeError`` says so, :mod:`slr_verify.model.processes`). Claims are
    handed out longest first (times of the last run, cached under ``SLR_VERIFY_CACHE``; heavy
    claims first when unknown), the claims of a group of :data:`SHARED_WORK` to one worker together. ``progress``: a
    stream for per-claim lines; on a terminal each worker also draws its own progress line, elsewhere only one line per
    finished claim is written.
    """
    if only is not None:
        unknown = sorted(set(only) - set(ids()))
        if unknown:
            raise KeyError(f"unknown claim id(s) {', '.join(unknown)}; known ids: {', '.join(ids())}")
    setting = user_setting(setting)
    todo = [c for c in CLAIMS if only is None or c.id in only]
    jobs = cores() if jobs is None else V.integer("jobs", jobs, 1, why="worker processes (None: one per core)")
    refuse_in_bootstrap("slr_verify.claims.run_claims", "jobs", jobs)
    jobs = min(len(todo), jobs) or 1
    tty = _isatty(progress)

    def done(res):
        if progress is not None:
            note = f"not run ({res.skipped})" if res.skipped else f"{res.verdict} ({res.seconds:.1f} s)"
            line = f"[slr-verify] {res.claim.id}: {note}"
            if tty:
                from tqdm.auto import tqdm

                tqdm.write(line, file=progress)
            else:
                print(line, file=progress, flush=True)

    if jobs == 1:
        results = []
        for c in todo:
            if progress is not None and tty:
                print(f"[slr-verify] {c.id} ({c.where}) ...", file=progress, flush=True)
            results.append(_run(c, mode, progress if tty else None, setting))
            done(results[-1])
    else:
        results = _run_parallel(todo, mode, progress, jobs, tty, done, setting)
    _save_times(mode if setting is None else f"{mode}@setting", results)
    order = {c.id: i for i, c in enumerate(CLAIMS)}
    return sorted(results, key=lambda r: order[r.claim.id])


def _run_parallel(todo, mode, progress, jobs, tty, done, setting=None):
    import multiprocessing as mp
    from concurrent.futures import ProcessPoolExecutor, as_completed
    from concurrent.futures.process import BrokenProcessPool

    units = _tasks(todo, _load_times(mode if setting is None else f"{mode}@setting"), jobs)
    ctx = mp.get_context("spawn")  # never fork a process that may hold JAX's or Numba's threads
    queue, counter = ctx.Queue(), ctx.Value("i", 0)
    saved = {k: os.environ.get(k) for k in _SINGLE_THREAD}
    os.environ.update(_SINGLE_THREAD)  # one thread per worker: the workers share the cores
    lines = _lines(progress, jobs) if tty else None
    stop = threading.Event()

    def pump():
        while not stop.is_set():
            try:
                kind, slot, text = queue.get(timeout=0.2)
            except Exception:
                continue
            if lines is not None:
                lines[slot].set_description_str((f"[{text}] ..." if kind == "start" else f"  {text}")[:150])

    thread = threading.Thread(target=pump, daemon=True)
    thread.start()
    results = []
    try:
        with spawn_guard("slr_verify.claims.run_claims", "jobs", jobs), \
                ProcessPoolExecutor(jobs, mp_context=ctx, initializer=_init_worker, initargs=(queue, counter)) as pool:
            futures = {pool.submit(_group_worker, [c.id for c in u], mode, tty, setting): u for u in units}
            for fut in as_completed(futures):
                unit = futures[fut]
                try:
                    outs = fut.result()
                except BrokenProcessPool:
                    if not results:  # no worker ever answered: they could not start (the guard's error)
                        raise
                    outs = [([], 0.0, "BrokenProcessPool: a worker process ended abruptly", None)] * len(unit)
                except Exception as exc:  # the worker itself died: every claim of the unit fails, saying so
                    outs = [([], 0.0, f"{type(exc).__name__}: {exc}", None)] * len(unit)
                for c, (evidence, seconds, error, skipped) in zip(unit, outs):
                    results.append(Result(c, evidence, seconds, error, mode, skipped, c.setting_for(setting)))
                    done(results[-1])
    finally:
        stop.set()
        thread.join()
        for k, v in saved.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v
        if lines is not None:
            for b in lines:
                b.close()
    return results
