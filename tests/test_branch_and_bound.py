"""The branch and bound's engine (:mod:`slr_verify.certify.bisection`): on problems whose trees are known by hand (a
point 1/3, not dyadic, met by exactly one box per level; the leaves' widths summing to the domain's), budgets, the
order of the halves, nested searches, and the engine's refusals."""
import pytest

from slr_verify.certify import bisection as B
from slr_verify.certify.certificate import SplitTree

P = 1 / 3  # in no dyadic split point: exactly one box per level holds it


def _point_search(width):
    """Boxes of [0, 1] away from P are leaves; a box holding P is split, until it is ``width`` wide, then fails."""
    def step(i, box):
        (lo, hi), = box
        if not lo <= P <= hi:
            return B.Leaf({"test": "away"})
        return B.Fail(f"P in [{lo}, {hi}]") if hi - lo <= width else B.Split(0)
    return step


def _leaf_width(tree):
    nodes, leaves = tree.serialise()
    return sum(leaf["box"]["x"][1] - leaf["box"]["x"][0] for leaf in leaves)


@pytest.mark.parametrize("k", [1, 5, 20])
def test_a_point_fails_at_the_depth_counted_by_hand(k):
    # 1/3 = 0.010101... in binary: at level j the box holding P is the upper half iff j is even, and only then was its
    # sibling (the lower half) decided before it; the search stops at level k: 1 + k + floor(k / 2) boxes
    tree = SplitTree(((0.0, 1.0),), names=("x",))
    run = B.run(tree, _point_search(2.0**-k))
    assert not run.proved and run.status == "failed" and run.boxes == 1 + k + k // 2
    assert len(run.open) == k - k // 2  # the upper siblings not reached
    (lo, hi), = tree.boxes[run.failed[0]]
    assert lo < P < hi and hi - lo == 2.0**-k and "P in" in run.failure


def test_keep_going_closes_the_rest_and_counts_the_failed():
    tree = SplitTree(((0.0, 1.0),), names=("x",))
    run = B.run(tree, _point_search(2.0**-6), keep_going=True)
    # levels 0..5 split the box holding P (1 box each), levels 1..6 hold it and its sibling (2 each): 1 + 2 * 6 boxes
    assert not run.proved and len(run.failed) == 1 and run.boxes == 13 and run.open == ()
    assert run.failure.startswith("1 boxes failed, the first: P in")


def test_a_closed_search_covers_the_domain_exactly():
    # every box away from P, or narrower than 2^-8 even if it holds P, is a leaf: the leaves tile [0, 1]
    tree = SplitTree(((0.0, 1.0),), names=("x",))
    step = _point_search(0.0)
    run = B.run(tree, lambda i, box: B.Leaf({"test": "small"}) if box[0][1] - box[0][0] <= 2.0**-8 else step(i, box))
    assert run.proved and run.failure is None and run.boxes == 17
    assert _leaf_width(tree) == 1.0


def test_budgets_of_boxes_seconds_and_a_callers_stop():
    for kw, why in (({"budget": 5}, "budget of 5 boxes"), ({"seconds": -1.0}, "s ran out"),
                    ({"stop": lambda: "out of kernel calls"}, "out of kernel calls")):
        tree = SplitTree(((0.0, 1.0),), names=("x",))
        run = B.run(tree, _point_search(2.0**-30), **kw)
        assert not run.proved and run.status == "budget" and why in run.failure
        assert run.boxes == kw.get("budget", 0) and (run.open or run.boxes == 0)


def test_the_lower_half_first_unless_asked():
    for upper_first, order in ((False, [(0.0, 0.5), (0.5, 1.0)]), (True, [(0.5, 1.0), (0.0, 0.5)])):
        seen = []
        tree = SplitTree(((0.0, 1.0),), names=("x",))
        B.run(tree, lambda i, box: seen.append(box[0]) or (B.Split(0) if i == tree.root else B.Leaf({})),
              upper_first=upper_first)
        assert seen == [(0.0, 1.0)] + order


def test_roots_are_taken_in_order_and_a_nested_search_keeps_its_subtree():
    tree = SplitTree(((0.0, 1.0), (0.0, 1.0)), names=("x", "y"))
    roots = tree.grid(tree.root, 0, [0.25, 0.5])
    seen = []

    def inner(i, box):
        return B.Leaf({"test": "inner"}) if box[1][1] - box[1][0] <= 0.25 else B.Split(1)

    def outer(i, box):
        seen.append(box[0])
        return B.Grown() if B.run(tree, inner, roots=[i]).proved else B.Fail("inner")

    run = B.run(tree, outer, roots=roots)
    nodes, leaves = tree.serialise()
    assert run.proved and seen == [(0.0, 0.25), (0.25, 0.5), (0.5, 1.0)]
    assert len(leaves) == 12 and {leaf["test"] for leaf in leaves} == {"inner"}


def test_a_box_one_ulp_wide_cannot_be_split():
    import math

    tree = SplitTree(((1.0, math.nextafter(1.0, 2.0)),), names=("x",))
    run = B.run(tree, lambda i, box: B.Split(0))
    assert not run.proved and "one ulp wide along axis 0" in run.failure


def test_a_decision_of_another_type_is_refused():
    tree = SplitTree(((0.0, 1.0),), names=("x",))
    with pytest.raises(TypeError, match="Leaf, Split, Grown or Fail"):
        B.run(tree, lambda i, box: True)


def test_widest_scales_and_breaks_ties_to_the_first_axis():
    box = ((0.0, 1.0), (0.0, 1.0), (0.0, 0.01))
    assert B.widest(box) == 0 and B.widest(box, axes=(1, 2)) == 1
    assert B.widest(box, scale=(1.0, 1.0, 0.001)) == 2
    assert B.too_small(box, 1.0) and not B.too_small(box, 0.5) and B.too_small(box, 0.01, axes=(2,))
