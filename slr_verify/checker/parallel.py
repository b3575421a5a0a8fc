"""The leaves' tests in forked worker processes when ``SLR_VERIFY_CHECKER_WORKERS`` asks for them; the verdict does
not depend on the split (`docs/certificates.md`, "The checker, module by module").
"""
from __future__ import annotations

import multiprocessing as mp
import os
import sys

#: below this many leaves the chunks run in this process
MIN_LEAVES = 1500
_JOB = []


def workers(n) -> int:
    """How many processes test ``n`` leaves."""
    env = os.environ.get("SLR_VERIFY_CHECKER_WORKERS")
    k = int(env) if env and env.isdigit() and int(env) > 0 else 1
    # a forked child runs flint code only and touches no lock of another thread (a progress bar's monitor, say);
    # JAX's runtime, though, is not fork-safe once loaded
    safe = hasattr(os, "fork") and not mp.current_process().daemon and "jax" not in sys.modules
    return min(k, 8) if safe and n >= MIN_LEAVES else 1


def _run(span):
    return _JOB[-1](*span)


def map_spans(fn, n) -> list:
    """[fn(lo, hi) for the contiguous spans of range(n)], in order, in forked workers where :func:`workers` allows."""
    k = workers(n)
    m = 1 if k == 1 else 4 * k  # a few chunks a worker: the leaves' costs differ, the pool balances them
    spans = [(n * i // m, n * (i + 1) // m) for i in range(m)]
    if k == 1:
        return [fn(*s) for s in spans]
    _JOB.append(fn)
    try:
        try:
            pool = mp.get_context("fork").Pool(k)
        except OSError:  # no process to be had (a limit of the machine): the same chunks, here
            return [fn(*s) for s in spans]
        with pool:
            return pool.map(_run, spans, chunksize=1)
    finally:
        _JOB.pop()


def map_leaves(fn, n) -> list:
    """[fn(i) for i in range(n)], in order, by :func:`map_spans` (fn's values cross processes: floats, tuples, None)."""
    return [x for part in map_spans(lambda lo, hi: [fn(i) for i in range(lo, hi)], n) for x in part]
