"""Costs: refuse, naming the parameter and giving the figure, a call that would exceed the machine's memory or run
longer than an hour without being asked explicitly. Used by the dynamics, the experiments and the Monte Carlo route."""
from __future__ import annotations

import os

from .params import keywords_checked

#: the longest computation a call starts without being asked explicitly (seconds)
TIME_LIMIT = 3600.0


@keywords_checked
def available_memory() -> int:
    """Bytes of memory available to this process (MemAvailable, else the physical memory)."""
    try:
        with open("/proc/meminfo") as fh:
            for line in fh:
                if line.startswith("MemAvailable:"):
                    return int(line.split()[1]) * 1024
    except OSError:
        pass
    try:
        return int(os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES"))
    except (ValueError, OSError, AttributeError):  # pragma: no cover
        return 8 << 30


def _bytes(n: float) -> str:
    for unit in ("B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"):
        if n < 1024 or unit == "EiB":
            return f"{n:.3g} {unit}"
        n /= 1024
    return f"{n:.3g} EiB"  # pragma: no cover


@keywords_checked
def memory_budget(name: str, nbytes: float, what: str):
    """``ValueError`` naming ``name`` when ``what`` would need more than the available memory."""
    avail = available_memory()
    if nbytes > avail:
        raise ValueError(f"{name}: {what} would need {_bytes(nbytes)} of memory, more than the {_bytes(avail)} "
                         f"available; reduce {name}")


@keywords_checked
def time_budget(name: str, seconds: float, what: str, limit: float | None = None):
    """``ValueError`` naming ``name`` when ``what`` is estimated to take longer than ``limit``
    (default :data:`TIME_LIMIT`, one hour)."""
    limit = TIME_LIMIT if limit is None else limit
    if seconds > limit:
        raise ValueError(f"{name}: {what} is estimated to take {seconds:.3g} s (more than {limit:g} s); reduce {name}")
