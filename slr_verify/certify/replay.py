r"""The checker of proof certificates (`docs/certificates.md`; `docs/MATH.md` §§10, 17, 20).

A certificate is written by an untrusted search (:mod:`.globalmin`, :mod:`.manifold`, :mod:`.window`); this module
and its test modules (:mod:`.replay_profile`, :mod:`.replay_manifold`, :mod:`.replay_window`, with
:mod:`.replay_base`) decide whether it proves
its statement, and import none of the searches (an import-linter contract in ``pyproject.toml``). Trust rests on
the checker, the generated ball kernels (whose SymPy sources are the premises, named with a content hash and
re-proved here), :class:`~slr_verify.kernels.taylor.TaylorModel` and arb. Every float of a certificate is a
*choice* (a split point, a multiplier, a preconditioner, a witness); every number of the conclusion is evaluated
here. The checks, in order (:func:`replay`):

1. **Format**: the fields, exact floats, the setting (gamma, eps as balls one ulp wide; integers d >= 4, L >= 1).
2. **Statement**: the domain's fixed coordinates (the quarter disk in (kappa, t), or M's square) and its text,
   derived here from kind, setting and domain (:func:`statement_text`).
3. **Coverage**: the split tree, read in pre-order from the domain, rebuilds the leaves' boxes exactly (each split
   point strictly inside its box): the leaves tile the domain, no gap, no overlap.
4. **Premises**: each premise of the kind is present, its hash is that of the kernels' SymPy source, and its
   SymPy proofs hold (:func:`slr_verify.kernels.premises.premises`).
5. **Leaves** (and pieces): :func:`.replay_profile.check_profile`, :func:`.replay_manifold.check_manifold`; an
   ``oracle-window``'s two ends before its leaves (:func:`.replay_window.check_ends`).
6. **Conclusion**, printed from the checker's own numbers.
"""
from __future__ import annotations

import time

from flint import ctx

from ..kernels.premises import premises
from ..model.params import keywords_checked
from .replay_base import FORMAT, Rejected, Replay, interval, load, number
from .replay_dynamics import DYNAMICS_DOMAINS, DYNAMICS_KINDS, check_dynamics, dynamics_statement
from .replay_manifold import MANIFOLD_KINDS, check_manifold
from .replay_profile import PROFILE_KINDS, SettingBalls, check_profile
from .replay_window import check_ends, ends_text

__all__ = ["FORMAT", "KINDS", "Replay", "load", "replay", "statement_text", "coordinates"]

#: kind -> (premises, admitted leaf tests)
KINDS = {**PROFILE_KINDS, **MANIFOLD_KINDS, **DYNAMICS_KINDS}


def coordinates(kind) -> tuple:
    """The coordinates of the boxes of ``kind``, in order."""
    if kind in DYNAMICS_KINDS:
        return DYNAMICS_DOMAINS[kind][0]
    return ("kappa", "nu", "lam") if kind in MANIFOLD_KINDS else ("kappa", "t", "lam")


def _fixed(kind) -> dict:
    """The coordinates whose interval the kind fixes, and the coordinates that are points."""
    if kind in DYNAMICS_KINDS:
        return DYNAMICS_DOMAINS[kind][1:]
    a, b = coordinates(kind)[:2]
    return ({a: (-1.0, 1.0), b: (-1.0, 1.0)} if kind in MANIFOLD_KINDS else {a: (0.0, 1.0), b: (0.0, 1.0)}), ()


def statement_text(kind, setting, lam, ends=None) -> str:
    """What a certificate of ``kind`` at ``setting`` (gamma, eps, d, L) over ``lam`` = (lo, hi) proves (``ends``: an
    ``oracle-window``'s enclosures {"lo": (a, A), "hi": (B, b) or None})."""
    g, e, d, L = setting
    at = f"gamma = {g!r} (within one ulp), eps = {e!r}, d = {d}, L = {L}"
    if kind == "oracle-window":
        (a, _), hi = ends["lo"], ends["hi"]
        B = lam[1]
        upper = f"hi in [{B!r}, {hi[1]!r}]" if hi is not None else f"hi >= {B!r} (W has no upper end below {B!r})"
        return (f"at {at}: the connected component [lo, hi] of W = {{lam : (k*, v*) is a global minimiser of R_lam on "
                f"S^{{d-1}} x S^{{d-1}}}} that contains [{lam[0]!r}, {B!r}] has lo in [{a!r}, {lam[0]!r}] and {upper}; "
                f"(k*, v*) is a global minimiser of R_lam for every lam in [lo, hi] and the unique one up to the "
                f"symmetries for every lam in [{lam[0]!r}, {B!r}]")
    if kind == "oracle-global-minimiser":
        return (f"at {at}: for every lam in [{lam[0]!r}, {lam[1]!r}], (k*, v*) is the unique global minimiser of R_lam on "
                "S^{d-1} x S^{d-1} up to the symmetries")
    if kind == "manifold-stationary-points":
        return (f"at {at}: for every lam in [{lam[0]!r}, {lam[1]!r}], the tangent gradient of R_lam on M vanishes on "
                "[-1, 1]^2 exactly at (0, 0), (1, 1), (-1, -1), (1, -1), (-1, 1) (Proposition 9)")
    return (f"at {at}, lam = {lam[0]!r}: the global minimum of R_lam on S^{{d-1}} x S^{{d-1}} and every global minimiser's "
            "(|kappa|, t = eta^2 / (1 - kappa^2)) lie in the enclosures the checker derives from the bound leaves")


def _setting(doc):
    s = doc.get("setting")
    if not isinstance(s, dict) or set(s) != {"gamma", "eps", "d", "L"}:
        raise Rejected(f"setting must have exactly gamma, eps, d, L, got {s!r}")
    g, e = number(s["gamma"], "setting gamma"), number(s["eps"], "setting eps")
    d, L = s["d"], s["L"]
    if not (g > 0 and e >= 0 and type(d) is int and d >= 4 and type(L) is int and L >= 1):
        raise Rejected(f"setting outside the model: {s!r} (gamma > 0, eps >= 0, integers d >= 4, L >= 1)")
    return g, e, d, L


def _domain(doc, kind):
    dom, names = doc.get("domain"), coordinates(kind)
    if not isinstance(dom, dict) or set(dom) != set(names):
        raise Rejected(f"domain must give exactly {names}, got {dom!r}")
    box = dict(zip(names, (interval(dom[c], f"domain {c}") for c in names)))
    fixed, points = _fixed(kind)
    for c, iv in fixed.items():
        if box[c] != iv:
            raise Rejected(f"domain {c} must be {iv} for {kind}, got {box[c]}")
    for c in points:
        if box[c][0] != box[c][1]:
            raise Rejected(f"domain {c} must be a point for {kind}, got {box[c]}")
    if not box["lam"][0] > 0:
        raise Rejected(f"domain lam must be > 0, got {box['lam']}")
    if kind == "reduced-map-diffeomorphism" and not (box["alpha"][0] == 0 < box["alpha"][1]):
        raise Rejected(f"domain alpha must be [0, A] with A > 0, got {box['alpha']}")
    if kind == "valley-tube" and not (0 < box["kappa"][0] < box["kappa"][1] == 1):
        raise Rejected(f"domain kappa must be [kappa_a, 1] with 0 < kappa_a < 1, got {box['kappa']}")
    return tuple(box[c] for c in names)


def _ends(doc, domain):
    """The ends' enclosures as the statement needs them (their tests: :func:`.replay_window.check_ends`)."""
    e = doc.get("ends")
    if not isinstance(e, dict) or not isinstance(e.get("lo"), dict) or not isinstance(e.get("hi"), dict):
        raise Rejected(f"an oracle-window certificate needs ends {{lo, hi}} (objects), got {e!r}")
    lo = interval(e["lo"].get("enclosure"), "end lo enclosure")
    hi = None if e["hi"].get("mechanism") == "none" else interval(e["hi"].get("enclosure"), "end hi enclosure")
    return {"lo": lo, "hi": hi}


def _coverage(domain, tree, leaves, names):
    """The boxes of the leaves, rebuilt from the domain by the split tree (pre-order: an axis index splits at the
    float midpoint, [axis, at] at ``at``, -1 is the next leaf); each must equal its leaf's box exactly."""
    stack, i, k = [domain], 0, 0
    for node in tree:
        if not stack:
            raise Rejected("the split tree has nodes after every box is closed")
        box = stack.pop()
        if node == -1 and not isinstance(node, bool):
            if k >= len(leaves):
                raise Rejected(f"the split tree has more leaves than the certificate ({len(leaves)})")
            b = leaves[k].get("box") if isinstance(leaves[k], dict) else None
            got = tuple(interval((b or {}).get(c), f"leaf {k} box {c}") for c in names)
            if got != box:
                raise Rejected(f"leaf {k}'s box {got} is not the tree's box {box} (a gap or an overlap)")
            k += 1
            continue
        axis, at = (node, None) if isinstance(node, int) and not isinstance(node, bool) else (None, None)
        if isinstance(node, list) and len(node) == 2 and node[0] in range(len(names)):
            axis, at = node[0], number(node[1], f"split point of node {i}")
        if axis not in range(len(names)):
            raise Rejected(f"tree node {i} is neither a leaf nor a split: {node!r}")
        lo, hi = box[axis]
        at = 0.5 * (lo + hi) if at is None else at
        if not lo < at < hi:
            raise Rejected(f"tree node {i} splits {names[axis]} = [{lo!r}, {hi!r}] at {at!r}, not strictly inside")
        left, right = list(box), list(box)
        left[axis], right[axis] = (lo, at), (at, hi)
        stack += [tuple(right), tuple(left)]
        i += 1
    if stack or k != len(leaves):
        raise Rejected(f"the split tree leaves {len(stack)} boxes open and {len(leaves) - k} leaves unmatched")


def _premises(doc, kind, prove):
    named = {p.get("name"): p.get("hash") for p in doc.get("premises", []) if isinstance(p, dict)}
    have = premises()
    needed = KINDS[kind][0] + (("circle",) if doc.get("circle") is not None else ())
    if any(isinstance(leaf, dict) and leaf.get("test") == "valley-edge" for leaf in doc.get("leaves", [])):
        needed += ("valley-edge",)
    for name in needed:
        if name not in named:
            raise Rejected(f"premise {name!r} is missing")
        if named[name] != have[name].hash:
            raise Rejected(f"premise {name!r}: hash {named[name]!r} is not that of the kernels' SymPy source "
                           f"({have[name].hash})")
        if prove and not all(have[name].proofs().values()):
            raise Rejected(f"premise {name!r} is not proved: {have[name].proofs()}")


def _check(doc, prove_premises, prec):
    if doc.get("format") != FORMAT:
        raise Rejected(f"format must be {FORMAT!r}, got {doc.get('format')!r}")
    kind = doc.get("kind")
    if kind not in KINDS:
        raise Rejected(f"kind must be one of {sorted(KINDS)}, got {kind!r}")
    setting, domain = _setting(doc), _domain(doc, kind)
    if kind == "global-minimum-enclosure" and domain[2][0] != domain[2][1]:
        raise Rejected(f"an enclosure is at a point lam, got {domain[2]}")
    if kind in DYNAMICS_KINDS:
        text = dynamics_statement(kind, setting, dict(zip(coordinates(kind), domain)), doc)
    else:
        text = statement_text(kind, setting, domain[2], _ends(doc, domain) if kind == "oracle-window" else None)
    if doc.get("statement") != text:
        raise Rejected(f"statement {doc.get('statement')!r} is not what the kind, setting and domain prove: {text!r}")
    leaves, tree = doc.get("leaves"), doc.get("tree")
    if not (isinstance(leaves, list) and isinstance(tree, list) and leaves):
        raise Rejected("leaves and tree must be non-empty lists")
    _coverage(domain, tree, leaves, coordinates(kind))
    bad = {leaf.get("test") for leaf in leaves} - set(KINDS[kind][1])
    if bad:
        raise Rejected(f"leaf tests {sorted(map(str, bad))} are not admitted by {kind} ({KINDS[kind][1]})")
    _premises(doc, kind, prove_premises)
    bits = prec or doc.get("prec", 128)
    if type(bits) is not int or not 53 <= bits <= 4096:
        raise Rejected(f"prec must be an integer in [53, 4096], got {bits!r}")
    ctx.prec = max(64, bits)
    # an oracle-window's ends first: two evaluations, before the leaves' thousands
    ends_values = check_ends(doc, SettingBalls(*setting), domain) if kind == "oracle-window" else {}
    if kind in DYNAMICS_KINDS:
        run = lambda *a: check_dynamics(doc, kind, *a[1:])  # noqa: E731
    else:
        run = check_manifold if kind in MANIFOLD_KINDS else (lambda *a: check_profile(doc, kind, *a[1:]))
    values, tail = run(doc, setting, domain, leaves)
    if ends_values:
        values.update(ends_values)
        tail = ends_text(values)
    values.update({"kind": kind, "lam": domain[coordinates(kind).index("lam")], "domain": dict(zip(coordinates(kind), domain)),
                   "setting": dict(zip(("gamma", "eps", "d", "L"), setting))})
    return text + tail, values


@keywords_checked
def replay(source, *, prove_premises=True, prec=None) -> Replay:
    """Check a certificate (a dict or a ``.json[.gz]`` path) and say what it proves (see the module).
    ``prove_premises``: re-run the premises' SymPy proofs (their hashes are checked always); ``prec``: bits of the
    ball arithmetic (default: the certificate's, at least 64). ``ValueError`` if the file is unreadable."""
    if not isinstance(prove_premises, bool):
        raise ValueError(f"prove_premises must be True or False, got {prove_premises!r}")
    if prec is not None and (isinstance(prec, bool) or not isinstance(prec, int) or not 53 <= prec <= 4096):
        raise ValueError(f"prec must be None or an integer in [53, 4096] (bits of the ball arithmetic), got {prec!r}")
    t_start = time.time()
    doc = load(source)
    n = len(doc["leaves"]) if isinstance(doc.get("leaves"), list) else 0
    with ctx.workprec(ctx.prec):  # _check sets the certificate's precision; restored on the way out
        try:
            conclusion, values = _check(doc, prove_premises, prec)
            return Replay(True, f"accepted: {n} leaves tile the domain and pass their tests; premises "
                          f"{'proved' if prove_premises else 'hashes matched'}", conclusion, n, time.time() - t_start, values)
        except Rejected as e:
            return Replay(False, f"rejected: {e}", None, n, time.time() - t_start)
        except (KeyError, TypeError, AttributeError, IndexError, ValueError, ArithmeticError) as e:
            # a malformed certificate, or an evaluation that cannot be carried out (a ball containing 0 divides): rejected
            return Replay(False, f"rejected: malformed certificate or undefined evaluation ({type(e).__name__}: {e})", None, n,
                          time.time() - t_start)
