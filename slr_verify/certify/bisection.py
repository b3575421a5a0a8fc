"""The branch and bound's engine, shared by the searches of :mod:`slr_verify.certify` (`docs/MATH.md` §14): boxes, nodes
of a :class:`~.certificate.SplitTree`, taken depth first; each is closed as a leaf, split, or ends the search; within a
budget of boxes and seconds; with a progress line.

A search supplies one function, ``decide(i, box)`` (``i`` the node's id, ``box`` its intervals), returning

* :class:`Leaf` ``(data)``: the box is proved (``data``: the leaf's test and its fields, recorded in the tree);
* :class:`Split` ``(axis, at=None)``: the box is cut along ``axis``, at the float midpoint or at ``at``; both halves are
  decided in turn, the lower first;
* :class:`Grown` ``()``: the box is proved by a nested search under it, whose subtree stays;
* :class:`Fail` ``(reason)``: the search stops (or, with ``keep_going``, the box is set aside and the search goes on).

The split rule is the search's (its ``decide`` knows its tests); :func:`widest` is the common one. :func:`run` returns a
:class:`Run`: proved or not, the boxes decided, the reason, the boxes set aside. The certificate is the tree: the order in
which the boxes are taken does not enter it.
"""
from __future__ import annotations

import sys
import time
from dataclasses import dataclass, field
from typing import Callable, NamedTuple


class Leaf(NamedTuple):
    """The box is proved: ``data`` (its test's name under ``"test"`` and the fields the test needs) is its leaf."""
    data: dict


class Split(NamedTuple):
    """The box is cut along ``axis``, at the float midpoint (``at`` None) or strictly inside it at ``at``."""
    axis: int
    at: float | None = None


class Grown(NamedTuple):
    """The box is proved by a search under it that ``decide`` ran itself (a nested :func:`run` on the same tree): the
    subtree it grew stays as it is."""


class Fail(NamedTuple):
    """No test closes the box and it may not be split further: ``reason`` says why."""
    reason: str


@dataclass(frozen=True)
class Run:
    """What :func:`run` did: ``proved`` (every box closed), ``boxes`` (decided), ``failure`` (the reason, or None),
    ``failed`` (the node ids set aside, with ``keep_going``; else the one that stopped the search), ``status`` ("done",
    "budget" when the boxes or the seconds ran out, "failed"), ``open`` (node ids never decided: empty unless stopped)."""
    proved: bool
    boxes: int
    failure: str | None
    status: str
    failed: tuple = ()
    open: tuple = field(default=())


class Progress:
    """A tqdm line of boxes on ``progress`` (a stream, or True for stderr); nothing when ``progress`` is None."""

    def __init__(self, progress, desc):
        self.bar = None
        if progress is not None:
            from tqdm.auto import tqdm

            self.bar = tqdm(desc=desc, file=progress if progress is not True else sys.stderr, mininterval=1.0, unit="box")

    def update(self, n=1):
        if self.bar is not None:
            self.bar.update(n)

    def close(self):
        if self.bar is not None:
            self.bar.close()


def widest(box, scale=None, axes=None) -> int:
    """The axis of ``box`` (a sequence of (lo, hi)) whose width, divided by ``scale[axis]`` (1 by default), is largest,
    among ``axes`` (all by default); the first such axis on a tie."""
    axes = range(len(box)) if axes is None else axes
    w = {i: (box[i][1] - box[i][0]) / (1.0 if scale is None else scale[i]) for i in axes}
    return max(w, key=lambda i: (w[i], -i))


def widths(box) -> list:
    return [hi - lo for lo, hi in box]


def run(tree, decide: Callable, *, roots=None, budget=None, seconds=None, stop: Callable | None = None,
        tick: Callable | None = None, keep_going=False, upper_first=False) -> Run:
    """Decide every box under ``roots`` (node ids of ``tree``, taken in order; the tree's root by default) by
    ``decide(i, box)`` (see the module docstring) until each is a leaf. ``budget``: at most that many boxes decided;
    ``seconds``: wall time from the call; past either the search stops with status "budget". ``tick(n)`` after each
    box (a progress line). ``stop()``: another budget (the kernel calls, say), checked before each box; a reason to stop
    or None. ``keep_going``: a :class:`Fail` sets the box aside and the search goes on; the run is then proved only if
    none failed. ``upper_first``: a split box's upper half is decided first (where a search's state, an incumbent
    say, makes the order matter)."""
    deadline = None if seconds is None else time.time() + seconds
    stack = list(reversed([tree.root] if roots is None else list(roots)))
    failed, n, first = [], 0, None
    while stack:
        what = (f"the budget of {budget} boxes ran out" if budget is not None and n >= budget else
                f"the budget of {seconds:g} s ran out" if deadline is not None and time.time() > deadline else
                None if stop is None else stop())
        if what:
            return Run(False, n, what, "budget", tuple(failed), tuple(reversed(stack)))
        i = stack.pop()
        n += 1
        out = decide(i, tree.boxes[i])
        if tick is not None:
            tick(n)
        if isinstance(out, Leaf):
            tree.leaf(i, out.data)
            continue
        if isinstance(out, Grown):
            continue
        if isinstance(out, Split):
            try:
                a, b = tree.split(i, out.axis, out.at)
            except ValueError:  # one ulp wide along that axis: it cannot be split
                out = Fail(f"the box {tree.boxes[i]} is one ulp wide along axis {out.axis}")
            else:
                stack += [a, b] if upper_first else [b, a]
                continue
        if isinstance(out, Fail):
            failed.append(i)
            if not keep_going:
                return Run(False, n, out.reason, "failed", tuple(failed), tuple(reversed(stack)))
            first = first or out.reason
            continue
        raise TypeError(f"decide must return Leaf, Split, Grown or Fail, got {out!r}")
    if failed:
        return Run(False, n, f"{len(failed)} boxes failed, the first: {first}", "failed", tuple(failed))
    return Run(True, n, None, "done")


def every(k, progress) -> Callable | None:
    """A ``tick`` for :func:`run` calling ``progress(n)`` every ``k`` boxes (None when ``progress`` is None)."""
    return None if progress is None else (lambda n: progress(n) if n % k == 0 else None)


def too_small(box, min_width, axes=None) -> bool:
    """Whether no side of ``box`` along ``axes`` (all by default) is wider than ``min_width``."""
    axes = range(len(box)) if axes is None else axes
    return all(box[i][1] - box[i][0] <= min_width for i in axes)
