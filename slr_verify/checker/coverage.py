"""Coverage (`docs/certificates.md`, "The tree"): the split tree, read in pre-order from the domain, rebuilds the
leaves' boxes exactly, so the leaves tile the domain (no gap, no overlap, not even of one ulp)."""
from __future__ import annotations

from .fields import Rejected, interval, number


def check_coverage(domain, tree, leaves, names) -> list:
    """The leaves' boxes (tuples of (lo, hi) by coordinate), each equal to the box the tree assigns it. A node is -1
    (the next leaf), an axis index (a split at the float midpoint) or [axis, at] (a split at the exact float ``at``,
    strictly inside the box)."""
    if not (isinstance(tree, list) and isinstance(leaves, list) and leaves):
        raise Rejected("leaves and tree must be lists, leaves non-empty")
    if len(tree) != 2 * len(leaves) - 1:
        raise Rejected(f"the split tree has {len(tree)} nodes, not the {2 * len(leaves) - 1} of a tree of {len(leaves)} "
                       "leaves: a leaf or a split is missing or extra (the leaves do not tile the domain)")
    stack, boxes = [tuple(domain)], []
    for i, node in enumerate(tree):
        if not stack:
            raise Rejected(f"tree node {i}: every box is already closed")
        box = stack.pop()
        if type(node) is int and node == -1:
            k = len(boxes)
            if k >= len(leaves) or not isinstance(leaves[k], dict):
                raise Rejected(f"tree node {i}: leaf {k} is missing or not an object")
            got = tuple(interval(leaves[k].get("box", {}).get(c) if isinstance(leaves[k].get("box"), dict) else None,
                                 f"leaf {k} box {c}") for c in names)
            if not isinstance(leaves[k].get("box"), dict) or set(leaves[k]["box"]) != set(names):
                raise Rejected(f"leaf {k}'s box must give exactly {names}")
            if got != box:
                raise Rejected(f"leaf {k}'s box {got} is not the tree's box {box} (a gap or an overlap)")
            boxes.append(got)
            continue
        if type(node) is int and 0 <= node < len(names):
            axis, at = node, None
        elif isinstance(node, list) and len(node) == 2 and type(node[0]) is int and 0 <= node[0] < len(names):
            axis, at = node[0], number(node[1], f"split point of tree node {i}")
        else:
            raise Rejected(f"tree node {i} is neither a leaf nor a split: {node!r}")
        lo, hi = box[axis]
        at = 0.5 * (lo + hi) if at is None else at
        if not lo < at < hi:
            raise Rejected(f"tree node {i} splits {names[axis]} = [{lo!r}, {hi!r}] at {at!r}, not strictly inside")
        left, right = list(box), list(box)
        left[axis], right[axis] = (lo, at), (at, hi)
        stack += [tuple(right), tuple(left)]
    if stack:  # with 2n - 1 nodes, a box left open is a leaf left unmatched
        raise Rejected(f"the split tree leaves {len(stack)} boxes open and {len(leaves) - len(boxes)} leaves unmatched")
    return boxes
