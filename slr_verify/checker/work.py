"""A replay's work (`docs/certificates.md`, "Reading") in kernel calls: :func:`predict` before any evaluation (the reader refuses
a document over CAP), then each call in a replay metered (:func:`meter`): past CAP calls or SECONDS of CPU (a process's own; a
forked worker's from the fork on), TimeoutError (the replay: unreadable)."""
import os
import time
from functools import partial

CAP, SECONDS, PAIR = 6_000_000, 360.0, 1e-3  # PAIR: a (leaf, piece) pair of a theorem-5 scan, a (cell, end) of a rate's area
WEIGHT = {"valley": 10, "valley-edge": 11, "value": 12, "bound": 7, "exclude": 3, "signs": 5, "det-positive": 1, "bounds": 5,
          "above": 8, "ratio": 12, "corner": 9, "family-minimum": 3, "contraction": 4, "tube-box": 3}  # a leaf's calls; else 12
ITEM = {"circle": 11, "pieces": 3, "1": 3, "-1": 3}  # the calls of a circle piece, a lam piece, an edge's breakpoint
_M = {"calls": CAP, "t0": 0.0, "predicted": 0.0, "at": 0.0}  # t0: the CPU time at the start (a worker's: less the fork's)
os.register_at_fork(before=lambda: _M.update(at=time.process_time()), after_in_child=lambda: _M.update(t0=_M["t0"] - _M["at"]))


def predict(doc) -> float:
    work, stack = 100.0, [doc]  # 100: ends, witnesses, ...; each leaf (a dict with a test, at any depth) its WEIGHT, ...
    while stack:
        v = stack.pop()
        if isinstance(v, dict):
            n, p = (len(x) if isinstance(x, list) else 0 for x in (v.get("leaves"), v.get("pieces")))
            work += PAIR * n * (p or 2 * n * ("lam" in v)) + (WEIGHT.get(v["test"], 12) if isinstance(v.get("test"), str) else 0)
            work += sum(ITEM.get(k, 0) * len(x) for k, x in v.items() if isinstance(x, list))
        stack.extend(x for x in (v.values() if isinstance(v, dict) else v) if isinstance(x, (dict, list, tuple)))
    return work


def admit(doc, error) -> None:
    if (w := predict(doc)) > CAP:
        raise error(f"its predicted work, {w:.4g} kernel calls, is more than CAP = {CAP} (checker/work.py)")
    _M.update(calls=CAP, t0=time.process_time(), predicted=w)


def meter(mod, on) -> None:
    def metered(f, /, *a, **k):
        if on() and (_M.update(calls=_M["calls"] - 1) or _M["calls"] < 0 or time.process_time() - _M["t0"] > SECONDS):
            raise TimeoutError(f"the replay made more than CAP = {CAP} kernel calls or took more than SECONDS = {SECONDS} s of "
                               f"CPU (checker/work.py; its predicted work: {_M['predicted']:.4g} kernel calls)")
        return f(*a, **k)
    mod.__dict__.update({k: partial(metered, f) for k, f in vars(mod).items() if getattr(f, "__module__", 0) == mod.__name__})
