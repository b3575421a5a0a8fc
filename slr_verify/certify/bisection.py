"""The branch and bound's engine, shared by the searches of :mod:`.global_minimiser` (`docs/MATH.md` §14): a stack of
boxes bisected until each passes its test, within a budget of boxes and seconds; a progress line."""
from __future__ import annotations

import sys
import time


class Progress:
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


def bisect(boxes, test, min_width, deadline, max_boxes, bar, skip=None, axes=(0, 1, 2)):
    """Process boxes until each passes ``test`` (-> (passed, axis to split)) or is skipped, or a box
    narrower than ``min_width`` along ``axes`` (the axes the test splits: the valley's boxes never split in t)
    fails, or the budget runs out. Returns (failed boxes, count, status)."""
    stack, failed, n = list(boxes), [], 0
    while stack:
        if n >= max_boxes or time.time() > deadline:
            return stack + failed, n, "budget"
        box = stack.pop()
        if skip is not None and skip(box):
            continue
        n += 1
        bar.update()
        ok, axis = test(box)
        if ok:
            continue
        rad = box.rad()
        if max(rad[i] for i in axes) * 2 < min_width:
            failed.append(box)
            continue
        try:
            stack.extend(box.split(axis))
        except ValueError:  # the box is one ulp wide along that axis: it cannot be split
            failed.append(box)
    return failed, n, "done"
