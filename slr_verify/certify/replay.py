r"""The checker of proof certificates (`docs/certificates.md`; `docs/MATH.md` §§17, 20).

A certificate is written by an untrusted search (:mod:`.globalmin`); this module decides whether it proves
its statement, and imports none of the search (an import-linter contract in ``pyproject.toml``). Trust
rests on this file, the generated ball kernels (:mod:`slr_verify.kernels.profile`, whose SymPy sources are
the premises, named with a content hash and re-proved here), :class:`~slr_verify.kernels.taylor.TaylorModel`
and arb. Every float of a certificate is a *choice* (a split point, a multiplier, a witness); every number the
conclusion uses is evaluated here.

The checks, in order (:func:`replay`):

1. **Format**: the document's fields, exact floats, the setting as balls (gamma, eps one ulp wide).
2. **Statement**: the domain is the quarter disk in (kappa, t), t = eta^2 / (1 - kappa^2), times the lam
   interval; the statement's text is the one this checker derives from kind, setting and domain.
3. **Coverage**: the split tree, read in pre-order from the domain, rebuilds the leaves' boxes exactly
   (each split point strictly inside its box), so the leaves tile the domain with no gap and no overlap.
4. **Premises**: each required premise is present, its hash matches the SymPy source of the kernels, and its
   SymPy proof holds (:func:`slr_verify.kernels.profile.premises`).
5. **Leaves**, on first-order Taylor models over the leaf's (kappa, lam) box (:func:`coefficient_models`):

   * ``valley`` (§17, the valley certificate): Q > 0, beta > 0, Delta > 0, T > 0 at mu_v(kappa). Then
     m >= R(kappa, 1, 0, 0, 0) >= R(k*, v*) on the whole line at kappa, equality only at kappa = 1.
   * ``value``: beta > 0, Delta > 0, T > 0 (H - mu I positive definite, mu = a0 - beta) and
     F_j = (1 - t_j) L0 + t_j L1 - U > 0 at both ends t_j of the leaf (LB is affine in t): m >= LB > U.
     U is the oracle's risk (a Taylor model in lam) or the witness's certified risk.
   * ``bound``: beta, Delta, T > 0; the leaf's lower bound is min_j of (1 - t_j) L0 + t_j L1.
6. **Conclusion**, printed from the checker's own numbers.
"""
from __future__ import annotations

import gzip
import json
import math
import time
from dataclasses import dataclass, field
from pathlib import Path

from flint import arb, arb_series, ctx

from ..kernels.profile import dual_kernels, oracle_arb, premises, trs_kernels
from ..kernels.taylor import TaylorModel

__all__ = ["FORMAT", "COORDINATES", "KINDS", "Replay", "SettingBalls", "centre_radius", "load", "replay", "statement_text",
           "pair_risk"]

FORMAT = "slr-verify-certificate/1"
#: the coordinates of every box: kappa, t = eta^2 / (1 - kappa^2), lam
COORDINATES = ("kappa", "t", "lam")
#: statement kind -> (the premises it rests on, the leaf tests it admits)
KINDS = {
    "oracle-global-minimiser": (("quadratic-in-v", "dual-bound", "pd-criterion", "valley", "oracle-risk"),
                                ("valley", "value")),
    "global-minimum-enclosure": (("quadratic-in-v", "dual-bound", "pd-criterion"), ("value", "bound")),
}


@dataclass
class Replay:
    """``accepted``; ``reason`` (what failed, or what was checked); ``conclusion`` (what an accepted certificate
    proves, derived here); ``leaves``; ``seconds``; ``values``: the numbers of the conclusion (enclosures as
    (lo, hi) floats rounded outward)."""

    accepted: bool
    reason: str
    conclusion: str | None = None
    leaves: int = 0
    seconds: float = 0.0
    values: dict = field(default_factory=dict)


class Rejected(Exception):
    """A certificate that does not prove its statement (the message says which part and how)."""


def load(source) -> dict:
    """The document from a dict, a ``.json`` or ``.json.gz`` path; ``ValueError`` if unreadable."""
    if isinstance(source, dict):
        return source
    p = Path(source)
    try:
        raw = p.read_bytes()
        text = gzip.decompress(raw) if raw[:2] == b"\x1f\x8b" else raw
        doc = json.loads(text)
    except (OSError, ValueError, EOFError) as e:
        raise ValueError(f"certificate {str(p)!r} is unreadable: {e}") from e
    if not isinstance(doc, dict):
        raise ValueError(f"certificate {str(p)!r} is not a JSON object")
    return doc


def _float(x, what) -> float:
    if isinstance(x, bool) or not isinstance(x, (int, float)) or not math.isfinite(x):
        raise Rejected(f"{what} is not a finite number: {x!r}")
    return float(x)


def _interval(iv, what) -> tuple:
    if not (isinstance(iv, list) and len(iv) == 2):
        raise Rejected(f"{what} is not a [lo, hi] pair: {iv!r}")
    lo, hi = _float(iv[0], what), _float(iv[1], what)
    if not lo <= hi:
        raise Rejected(f"{what} has lo > hi: {iv!r}")
    return lo, hi


def _hull(lo, hi) -> arb:
    return arb(lo).union(arb(hi))


class SettingBalls:
    """The setting (gamma, eps, d, L) as balls: gamma and eps one ulp wide either side (gamma = sqrt(0.5) in
    float64 then covers gamma^2 = 1/2 exactly), d and L exact."""

    def __init__(self, gamma, eps, d, L):
        self.gamma, self.eps, self.d, self.L = float(gamma), float(eps), int(d), int(L)
        self.P = (arb(self.gamma, math.ulp(self.gamma)), arb(self.eps, math.ulp(self.eps)) if self.eps else arb(0),
                  arb(self.d), arb(self.L))
        self.K = dual_kernels()

    def coefficient_models(self, K, Lam) -> list:
        """Taylor models (``docs/MATH.md`` §17) over the box K x Lam of the eight coefficients of
        :func:`~slr_verify.kernels.profile.dual_kernels` and det M: value and gradient at the centre (Taylor
        arithmetic at a point), remainder 1/2 h^T f''(xi) h from one series of length 3 along c + s h with the
        box's hull as the point and the radii as h (it holds every xi of the box)."""
        (kc, rk), (lc, rl) = centre_radius(*K), centre_radius(*Lam)
        Kc, Lc = arb(kc), arb(lc)
        at_k = self.K.coef(arb_series([Kc, 1], prec=2), Lc, *self.P)
        at_l = self.K.coef(Kc, arb_series([Lc, 1], prec=2), *self.P) if rl else None
        seg = self.K.coef(arb_series([_hull(*K), arb(0, rk)], prec=3), arb_series([_hull(*Lam), arb(0, rl)], prec=3),
                          *self.P)
        out = []
        for i, (a, s) in enumerate(zip(at_k, seg)):
            gl = _coef(at_l[i], 1) if at_l is not None else arb(0)
            out.append(TaylorModel(_coef(a, 0), (_coef(a, 1), gl), _coef(s, 2), (rk, rl)))
        return out + [self.K.det_m(*out)[0]]

    def kappa_model(self, K, Lam) -> TaylorModel:
        (kc, rk), (_, rl) = centre_radius(*K), centre_radius(*Lam)
        return TaylorModel.variable(arb(kc), 0, (rk, rl))

    def oracle_model(self, Lam, r) -> TaylorModel:
        """R(k*, v*) over Lam as a model in lam (mean-value form at Lam's centre)."""
        lc, rl = centre_radius(*Lam)
        u, du = oracle_arb()(arb(lc), *self.P)
        rem = (oracle_arb()(_hull(*Lam), *self.P)[1] - du) * arb(0, rl) if rl else arb(0)
        return TaylorModel(u, (arb(0), du), rem, r)


def centre_radius(a, b):
    """(c, r) floats with [c - r, c + r] containing [a, b] (r rounded up by one ulp)."""
    c = 0.5 * (a + b)
    return c, (math.nextafter(max(c - a, b - c), math.inf) if b > a else 0.0)


def _coef(s, k):
    if not isinstance(s, arb_series):
        return s if k == 0 else arb(0)
    c = s.coeffs()
    return c[k] if k < len(c) else arb(0)


def pair_risk(setting, lam, a, b, x) -> arb:
    """R_lam at the explicit pair k = cos b cos a k* + cos b sin a v* + sin b e (a unit vector for any reals a, b)
    and v = x / |x| on (k*, v*, e, e'), through the quadratic in v (premise ``quadratic-in-v``)."""
    A, B = arb(a), arb(b)
    xs = [arb(t) for t in x]
    nx = sum((t * t for t in xs), arb(0)).sqrt()
    x1, x2, x3, x4 = (t / nx for t in xs)
    c, a0, h11, h12, h13, h22, h23, h33, g1, g2, g3 = trs_kernels().arb(
        B.cos() * A.cos(), B.cos() * A.sin(), B.sin(), lam, *setting.P)
    quad = h11 * x1 * x1 + h22 * x2 * x2 + h33 * x3 * x3 + 2 * (h12 * x1 * x2 + h13 * x1 * x3 + h23 * x2 * x3) + a0 * x4 * x4
    return c + quad - 2 * (g1 * x1 + g2 * x2 + g3 * x3)


def statement_text(kind, setting, lam) -> str:
    """What a certificate of ``kind`` at ``setting`` (gamma, eps, d, L) over ``lam`` = (lo, hi) proves."""
    g, e, d, L = setting
    at = f"gamma = {g!r} (within one ulp), eps = {e!r}, d = {d}, L = {L}"
    if kind == "oracle-global-minimiser":
        return (f"at {at}: for every lam in [{lam[0]!r}, {lam[1]!r}], (k*, v*) is the unique global minimiser of R_lam on "
                "S^{d-1} x S^{d-1} up to the symmetries")
    return (f"at {at}, lam = {lam[0]!r}: the global minimum of R_lam on S^{{d-1}} x S^{{d-1}} and every global minimiser's "
            "(|kappa|, t = eta^2 / (1 - kappa^2)) lie in the enclosures the checker derives from the bound leaves")


def _setting(doc):
    s = doc.get("setting")
    if not isinstance(s, dict) or set(s) != {"gamma", "eps", "d", "L"}:
        raise Rejected(f"setting must have exactly gamma, eps, d, L, got {s!r}")
    g, e = _float(s["gamma"], "setting gamma"), _float(s["eps"], "setting eps")
    d, L = s["d"], s["L"]
    if not (g > 0 and e >= 0 and isinstance(d, int) and d >= 4 and isinstance(L, int) and L >= 1):
        raise Rejected(f"setting outside the model: {s!r} (gamma > 0, eps >= 0, integers d >= 4, L >= 1)")
    return g, e, d, L


def _domain(doc):
    dom = doc.get("domain")
    if not isinstance(dom, dict) or set(dom) != set(COORDINATES):
        raise Rejected(f"domain must give exactly {COORDINATES}, got {dom!r}")
    box = tuple(_interval(dom[c], f"domain {c}") for c in COORDINATES)
    if box[0] != (0.0, 1.0) or box[1] != (0.0, 1.0):
        raise Rejected(f"domain must be the quarter disk: kappa and t over [0, 1], got {box[:2]}")
    if not box[2][0] > 0:
        raise Rejected(f"domain lam must be > 0, got {box[2]}")
    return box


def _coverage(domain, tree, leaves):
    """The boxes of the leaves, rebuilt from the domain by the split tree (pre-order: an axis index splits at the
    float midpoint, [axis, at] at ``at``, -1 is the next leaf); each must equal its leaf's box exactly."""
    stack, i, k = [domain], 0, 0
    for node in tree:
        if not stack:
            raise Rejected("the split tree has nodes after every box is closed")
        box = stack.pop()
        if node == -1:
            if k >= len(leaves):
                raise Rejected(f"the split tree has more leaves than the certificate ({len(leaves)})")
            got = tuple(_interval(leaves[k].get("box", {}).get(c), f"leaf {k} box {c}") for c in COORDINATES)
            if got != box:
                raise Rejected(f"leaf {k}'s box {got} is not the tree's box {box} (a gap or an overlap)")
            k += 1
            continue
        axis, at = (node, None) if isinstance(node, int) and not isinstance(node, bool) else (None, None)
        if isinstance(node, list) and len(node) == 2 and node[0] in (0, 1, 2):
            axis, at = node[0], _float(node[1], f"split point of node {i}")
        if axis not in (0, 1, 2):
            raise Rejected(f"tree node {i} is neither a leaf nor a split: {node!r}")
        lo, hi = box[axis]
        at = 0.5 * (lo + hi) if at is None else at
        if not lo < at < hi:
            raise Rejected(f"tree node {i} splits {COORDINATES[axis]} = [{lo!r}, {hi!r}] at {at!r}, not strictly inside")
        left, right = list(box), list(box)
        left[axis], right[axis] = (lo, at), (at, hi)
        stack += [tuple(right), tuple(left)]
        i += 1
    if stack or k != len(leaves):
        raise Rejected(f"the split tree leaves {len(stack)} boxes open and {len(leaves) - k} leaves unmatched")


def _premises(doc, kind, prove):
    named = {p.get("name"): p.get("hash") for p in doc.get("premises", []) if isinstance(p, dict)}
    have = premises()
    for name in KINDS[kind][0]:
        if name not in named:
            raise Rejected(f"premise {name!r} is missing")
        if named[name] != have[name].hash:
            raise Rejected(f"premise {name!r}: hash {named[name]!r} is not that of the kernels' SymPy source "
                           f"({have[name].hash})")
        if prove and not all(have[name].proofs().values()):
            raise Rejected(f"premise {name!r} is not proved: {have[name].proofs()}")


def _leaf_test(S, leaf, box, U, memo):
    """Evaluate one leaf; returns its lower bound (for ``bound`` leaves) or None; raises Rejected."""
    (K, (t0, t1), Lam), test = box, leaf.get("test")
    key = (K, Lam)
    if key not in memo:
        memo[key] = S.coefficient_models(K, Lam)
    co, kap = memo[key], S.kappa_model(K, Lam)
    if test == "valley":
        out = S.K.valley(*co[:-1], kap)
        if not all(o.range() > 0 for o in out):
            raise Rejected(f"valley leaf {box}: Q, beta, Delta, T > 0 not proved: {[str(o.range()) for o in out]}")
        return None
    beta = _float(leaf.get("beta"), f"beta of leaf {box}")
    L0, L1, Delta, T = S.K.dual_line(*co, kap, arb(beta))
    if not (beta > 0 and Delta.range() > 0 and T.range() > 0):
        raise Rejected(f"{test} leaf {box}: H - mu I positive definite not proved at beta = {beta!r} "
                       f"(Delta {Delta.range()}, T {T.range()})")
    ends = [(1 - arb(t)) * L0 + arb(t) * L1 for t in (t0, t1)]
    if test == "bound":
        return min(arb(e.range().lower()) for e in ends)
    if callable(U):
        if ("U", Lam) not in memo:
            memo["U", Lam] = U(Lam, co[0].r)
        u = memo["U", Lam]
    else:
        u = U
    F = [(e - u).range() for e in ends]
    if not all(f > 0 for f in F):
        raise Rejected(f"value leaf {box}: F > 0 not proved at beta = {beta!r}: {[str(f) for f in F]}")
    return None


def _outward(x):
    return math.nextafter(float(x.lower()), -math.inf), math.nextafter(float(x.upper()), math.inf)


def replay(source, *, prove_premises=True, prec=None) -> Replay:
    """Check a certificate (a dict or a ``.json[.gz]`` path) and say what it proves (see the module).
    ``prove_premises``: re-run the premises' SymPy proofs (their hashes are checked always); ``prec``: bits of the
    ball arithmetic (default: the certificate's, at least 64)."""
    t_start = time.time()
    doc = load(source)
    n = len(doc.get("leaves", [])) if isinstance(doc.get("leaves"), list) else 0
    old = ctx.prec
    try:
        if doc.get("format") != FORMAT:
            raise Rejected(f"format must be {FORMAT!r}, got {doc.get('format')!r}")
        kind = doc.get("kind")
        if kind not in KINDS:
            raise Rejected(f"kind must be one of {sorted(KINDS)}, got {kind!r}")
        setting, domain = _setting(doc), _domain(doc)
        if kind == "global-minimum-enclosure" and domain[2][0] != domain[2][1]:
            raise Rejected(f"an enclosure is at a point lam, got {domain[2]}")
        text = statement_text(kind, setting, domain[2])
        if doc.get("statement") != text:
            raise Rejected(f"statement {doc.get('statement')!r} is not what the kind, setting and domain prove: {text!r}")
        leaves, tree = doc.get("leaves"), doc.get("tree")
        if not (isinstance(leaves, list) and isinstance(tree, list) and leaves):
            raise Rejected("leaves and tree must be non-empty lists")
        _coverage(domain, tree, leaves)
        _premises(doc, kind, prove_premises)
        ctx.prec = max(64, int(prec or doc.get("prec", 128)))
        S = SettingBalls(*setting)
        base = {"kind": kind, "lam": domain[2], "setting": dict(zip(("gamma", "eps", "d", "L"), setting))}
        if kind == "oracle-global-minimiser":
            U, values = S.oracle_model, dict(base)
        else:
            w = doc.get("witness", {})
            U = pair_risk(S, arb(domain[2][0]), _float(w.get("a"), "witness a"), _float(w.get("b"), "witness b"),
                          [_float(x, "witness x") for x in w.get("x", [])][:4])
            values = dict(base, witness_risk=_outward(U))
        memo, lows, kept = {}, [], []
        for leaf in leaves:
            if leaf.get("test") not in KINDS[kind][1]:
                raise Rejected(f"leaf test {leaf.get('test')!r} is not admitted by {kind} ({KINDS[kind][1]})")
            box = tuple(tuple(leaf["box"][c]) for c in COORDINATES)
            low = _leaf_test(S, leaf, box, U, memo)
            if low is not None:
                lows.append(low)
                kept.append(box)
        if kind == "global-minimum-enclosure":
            if not kept:
                raise Rejected("an enclosure needs at least one bound leaf (the minimiser's boxes)")
            values.update(_enclosure_values(U, lows, kept))
            text += f": the global minimum in {values['risk']}, kappa in {values['kappa']}, eta in {values['eta']}, " \
                    f"r <= {values['r'][1]!r}"
        return Replay(True, f"accepted: {len(leaves)} leaves tile the domain and pass their tests; premises "
                      f"{'proved' if prove_premises else 'hashes matched'}", text, len(leaves), time.time() - t_start,
                      values)
    except Rejected as e:
        return Replay(False, f"rejected: {e}", None, n, time.time() - t_start)
    except (KeyError, TypeError, AttributeError) as e:
        return Replay(False, f"rejected: malformed certificate ({type(e).__name__}: {e})", None, n, time.time() - t_start)
    finally:
        ctx.prec = old


def _enclosure_values(W, lows, kept):
    """The conclusion of an enclosure: min R in [min(kept lows, W), W] (a global minimiser lies in a bound leaf:
    every value leaf has m > W >= the minimum); |kappa| over the bound leaves; eta^2 = t (1 - kappa^2) and
    r^2 = (1 - t)(1 - kappa^2) are monotone in (t, kappa) on [0, 1]^2, so their extremes sit at the corners of the
    bound leaves' hull, evaluated at exact points."""
    lo = min(min(lows), arb(W.lower()))
    k_lo, k_hi = min(b[0][0] for b in kept), max(b[0][1] for b in kept)
    t_lo, t_hi = min(b[1][0] for b in kept), max(b[1][1] for b in kept)
    eta_lo = (arb(t_lo) * (1 - arb(k_hi) ** 2)).sqrt().lower()
    eta_hi = (arb(t_hi) * (1 - arb(k_lo) ** 2)).sqrt().upper()
    r_hi = ((1 - arb(t_lo)) * (1 - arb(k_lo) ** 2)).sqrt().upper()
    up = lambda x: math.nextafter(float(x), math.inf)
    return {"risk": (_outward(lo)[0], _outward(W)[1]), "kappa": (k_lo, k_hi), "t": (t_lo, t_hi),
            "eta": (math.nextafter(float(eta_lo), -math.inf), up(eta_hi)), "r": (0.0, up(r_hi))}
