"""Writing proof certificates (`docs/certificates.md`): the search's split tree and the document.

The search (:mod:`.globalmin`) records every box it closes as a node of a :class:`SplitTree` (a split along an
axis, at the float midpoint or at an explicit point, or a leaf with its test's data); :func:`document` serialises
the tree in pre-order with the leaves and the statement, and :func:`write` stores it (``.json`` or ``.json.gz``).
The checker, :func:`slr_verify.checker.replay`, reads the same format and trusts none of it; the statement and the
premises a document names are the checker's own rules (:func:`slr_verify.checker.statement`,
:func:`slr_verify.checker.registry.required_premises`).
"""
from __future__ import annotations

import gzip
import json
from pathlib import Path

from ..checker import FORMAT, Rejected, statement
from ..checker.premises import premise_hash
from ..checker.registry import KINDS, required_premises
from ..model import outputs
from ..model.params import ModelSetting


def halves(box, axis, at=None) -> tuple:
    """The two halves of ``box`` (a tuple of (lo, hi)) cut along ``axis`` at the float midpoint, or at ``at``
    (``ValueError`` unless strictly inside): the one rule by which every search and the checker's tree split a box."""
    lo, hi = box[axis]
    x = 0.5 * (lo + hi) if at is None else float(at)
    if not lo < x < hi:
        raise ValueError(f"split point {x!r} is not strictly inside [{lo!r}, {hi!r}]")
    a, b = list(box), list(box)
    a[axis], b[axis] = (lo, x), (x, hi)
    return tuple(a), tuple(b)


class SplitTree:
    """Boxes (tuples of (lo, hi) per coordinate, ``names``: the kind's coordinates) by node id,
    each open, split (axis, explicit point or None for the midpoint, children) or a leaf (its test's data)."""

    def __init__(self, domain, names=("kappa", "t", "lam")):
        self.boxes, self.nodes, self.names = [], {}, tuple(names)
        self.root = self.new(tuple(tuple(map(float, iv)) for iv in domain))

    def new(self, box) -> int:
        self.boxes.append(box)
        return len(self.boxes) - 1

    def split(self, i, axis, at=None) -> tuple:
        """Split node i along ``axis`` (at the float midpoint if ``at`` is None); the two children's ids."""
        a, b = halves(self.boxes[i], axis, at)
        ids = self.new(a), self.new(b)
        self.nodes[i] = ("split", axis, at if at is None else float(at), ids)
        return ids

    def grid(self, i, axis, points) -> list:
        """Node i cut along ``axis`` at the interior ``points`` (increasing): the pieces' ids, in order."""
        out = []
        for x in points:
            a, i = self.split(i, axis, x)
            out.append(a)
        return out + [i]

    def leaf(self, i, data):
        self.nodes[i] = ("leaf", data)

    def graft(self, i, nodes, leaves):
        """Rebuild under node i a subtree serialised by :meth:`serialise` (``nodes``, ``leaves``) from a tree whose
        root box was node i's box (a piece searched in another process): its boxes come out the same, exactly."""
        stack, k = [i], 0
        for node in nodes:
            j = stack.pop()
            if node == -1:
                self.leaf(j, {key: v for key, v in leaves[k].items() if key != "box"})
                k += 1
                continue
            axis, at = (node, None) if isinstance(node, int) else node
            a, b = self.split(j, axis, at)
            stack += [b, a]
        if stack or k != len(leaves):
            raise ValueError("the grafted subtree does not close")

    def serialise(self) -> tuple:
        """(tree, leaves): the pre-order node list (-1 a leaf, an axis a midpoint split, [axis, at] a split at
        ``at``) and the leaves with their boxes; ``ValueError`` if a box was left open."""
        tree, leaves, stack = [], [], [self.root]
        while stack:
            i = stack.pop()
            node = self.nodes.get(i)
            if node is None:
                raise ValueError(f"box {self.boxes[i]} was left open")
            if node[0] == "leaf":
                tree.append(-1)
                leaves.append({"box": dict(zip(self.names, map(list, self.boxes[i]))), **node[1]})
                continue
            _, axis, at, (a, b) = node
            tree.append(axis if at is None else [axis, at])
            stack += [b, a]
        return tree, leaves


def _statement(doc) -> str:
    """The checker's statement of ``doc``; where its fields give none (a setting outside the checker's model, d < 4),
    a text that says so: the checker then rejects the document, naming the field, and the search reports that."""
    try:
        return statement(doc)
    except Rejected as e:
        return f"(no statement: {e})"


def _premises(kind, doc) -> list:
    return [{"name": n, "hash": premise_hash(n)} for n in required_premises(kind, doc)]


def document(kind, setting: ModelSetting, tree, *, witness=None, prec=128, search=None, extra=None) -> dict:
    """The certificate of ``kind`` (a key of :data:`slr_verify.checker.registry.KINDS`) at ``setting`` (a
    :class:`~slr_verify.model.params.ModelSetting`: its gamma, eps, d, L are the document's) from a closed
    :class:`SplitTree`; ``witness``: {"a", "b", "x"} for an enclosure; ``search``: free-form facts about the run (not
    read by the checker). Its statement is the checker's (:func:`slr_verify.checker.statement`)."""
    if not isinstance(setting, ModelSetting):
        raise ValueError(f"setting must be a ModelSetting, got {setting!r}")
    nodes, leaves = tree.serialise()
    g, e, d, L = float(setting.gamma), float(setting.eps), int(setting.d), int(setting.L)
    domain = dict(zip(KINDS[kind].coordinates, map(list, tree.boxes[tree.root])))
    doc = {"format": FORMAT, "kind": kind, "statement": None,
           "setting": {"gamma": g, "eps": e, "d": d, "L": L}, "domain": domain, "prec": int(prec),
           "premises": [], "tree": nodes, "leaves": leaves}
    if witness is not None:
        doc["witness"] = witness
    doc.update(extra or {})
    doc["premises"] = _premises(kind, doc)
    doc["statement"] = _statement(doc)
    if search:
        doc["search"] = search
    return doc


def as_window(doc, ends) -> dict:
    """An ``oracle-global-minimiser`` certificate over [A, B] with the window's ``ends`` (`docs/certificates.md`) as
    one ``oracle-window`` certificate: the same tree and leaves, the ends, their premises, the statement."""
    if doc.get("kind") != "oracle-global-minimiser":
        raise ValueError(f"doc must be an oracle-global-minimiser certificate, got {doc.get('kind')!r}")
    out = dict(doc, kind="oracle-window", ends=ends)
    out["premises"] = _premises("oracle-window", out)
    out["statement"] = _statement(out)
    return out


def check_output_path(path, force=True) -> Path:
    """The output path, checked before a long run (:func:`slr_verify.model.outputs.check_output_path`: its folder
    exists and is writable, it is not a folder), with the suffix .json or .json.gz; ``ValueError`` naming ``out``.
    ``force=False`` (the command line without ``--force``) also refuses a path that exists: a certificate is not
    overwritten without a word."""
    p = Path(path)
    if not (p.name.endswith(".json") or p.name.endswith(".json.gz")):
        raise ValueError(f"out must end with .json or .json.gz, got {str(p)!r}")
    if not force and (p.exists() or p.is_symlink()):
        raise ValueError(f"out {str(p)!r} exists: give another path, or --force to overwrite it")
    return Path(outputs.check_output_path(str(p), name="out"))


def compact(doc) -> bytes:
    """The bytes :func:`write` stores (before gzip): compact, deterministic JSON."""
    return json.dumps(doc, separators=(",", ":")).encode()


def write(doc, path) -> Path:
    """Store ``doc`` as JSON (gzip when the name ends in .gz; compact, deterministic), atomically."""
    p = check_output_path(path)
    raw = compact(doc)
    outputs.write_atomic(str(p), lambda fh: fh.write(gzip.compress(raw, mtime=0) if p.name.endswith(".gz") else raw))
    return p
