r"""Theorem 5 at an explicit step (`docs/MATH.md` §20): the search for a ``theorem-5`` certificate.

For every lam of an interval, cut into geometric pieces, the search chooses on each piece

* targets for G_kappa, G_nu, H (the suprema over [-1, 1]^2 of |g_kappa|, |g_nu| and the Hessian's norm), from the
  kernels' values on a grid, raised by ``margin``; alpha_8, the largest float with B(alpha_8, G_i, H) >= 1/2 (the
  bracket of Proposition 8) at those targets;
* alpha_12 = (1 - margin) / max ||D K_alpha|| (grid, at alpha = alpha_8) and alpha_5 = min(alpha_8, alpha_12,
  (1 - margin) / mu_+) with mu_+ the saddle's positive Hessian eigenvalue, enclosed;

then closes the piece by branch and bound over (kappa, nu, alpha): a ``bounds`` leaf keeps every enclosure below the
targets, and alpha ||D K_alpha|| < 1 where its alpha range starts below alpha_12. A piece that does not close within
its budget retries with alpha_12 and alpha_8 lowered. The document's statement and what it proves are the checker's
(:func:`slr_verify.checker.replay`): the search reports a proof only when the checker accepts its certificate.
"""
from __future__ import annotations

import time

import numpy as np
from flint import arb, ctx

from ..checker import replay
from ..checker.balls import param_balls
from ..checker.premises import kernels
from ..checker.theorem5 import norm_upper
from ..kernels.balls import ball, geometric_pieces, midpoint, outward
from ..model.engine import Engine
from ..model.params import accepts_gamma2, require_d
from . import args as A
from . import bisection as B
from .certificate import SplitTree, document
from .manifold import stationary_points_on_M
from .reduced_map import hessian_signs

K = kernels("descent")  # the checker's kernels: the bytes it hashes, not an imported module


def _sup(f, n, lb, par, *extra) -> float:
    """max over an n x n grid of [-1, 1]^2 of the upper ends of f's enclosures at lam ball ``lb``."""
    xs = np.linspace(-1.0, 1.0, n)
    return max(outward(f(arb(k), arb(v), lb, *extra, **par))[1] for k in xs for v in xs)


def _alpha_8(Gk, Gn, H) -> float:
    """The largest alpha (bisection in float, decided on balls) with B(alpha, G, H) >= 1/2 for G = Gk, Gn."""
    ok = lambda a: all(K.bracket(arb(a), arb(G), arb(H))[0] >= arb(1) / 2 for G in (Gk, Gn))
    lo, hi = 0.0, 1.0
    while ok(hi):
        lo, hi = hi, 2 * hi
    for _ in range(60):
        m = 0.5 * (lo + hi)
        lo, hi = (m, hi) if ok(m) else (lo, m)
    return lo


def _targets(lam, par, margin, grid=33):
    lb = ball(*lam)
    grad = lambda i: (lambda k, v, l_, **p: abs(K.gradient(k, v, l_, **p)[i]))
    Gk, Gn = (_sup(grad(i), grid, lb, par) * (1 + margin) for i in (0, 1))
    H = _sup(lambda k, v, l_, **p: norm_upper(K.hessian(k, v, l_, **p)), grid, lb, par) * (1 + margin)
    a8 = _alpha_8(Gk, Gn, H)
    M = max(_sup(lambda k, v, l_, a_, **p: norm_upper(K.dk(k, v, l_, alpha=a_, **p)), grid, lb, par, arb(a)) for a in (0.0, a8))
    mu_plus = outward(K.saddle(lb, **par)[0])[1]
    a12 = (1 - margin) / (M * (1 + margin))
    return {"Gk": Gk, "Gn": Gn, "H": H, "alpha_8": a8, "alpha_12": a12, "mu_plus": mu_plus}


def _close(tree, i, t, par, budget):
    """Branch and bound under node i (a box of one piece): every leaf's enclosures below the targets ``t`` and, where
    its alpha range starts below t["alpha_12"], alpha ||D K|| < 1. Returns the boxes visited, or None past ``budget``."""

    def step(j, box):
        k, v, a, lam = box
        kb, vb, lb = ball(*k), ball(*v), ball(*lam)
        gk, gn = K.gradient(kb, vb, lb, **par)
        H = norm_upper(K.hessian(kb, vb, lb, **par))
        bounded = abs(gk) < t["Gk"] and abs(gn) < t["Gn"] and H < t["H"]
        stable = True
        if bounded and a[0] < t["alpha_12"]:
            ab = ball(*a)
            stable = bool(ab * norm_upper(K.dk(kb, vb, lb, alpha=ab, **par)) < 1)
        if bounded and stable:
            return B.Leaf({"test": "bounds"})
        if max(k[1] - k[0], v[1] - v[0]) < 1e-9:
            return B.Fail("a box narrower than 1e-9 does not close")
        wa = a[1] - a[0] if not stable else 0.0
        return B.Split(B.widest((k, v, (0.0, wa)), scale=(1.0, 1.0, t["alpha_12"])))

    run = B.run(tree, step, roots=[i], budget=budget)
    return run.boxes if run.proved else None


def _proposition9(lam, gamma, d, L, given):
    """The two Proposition 9 certificates to embed: ``given`` (stationary, signs) documents, or searched afresh over
    ``lam``; (documents or None, failure)."""
    if given is not None:
        return tuple(given), None
    st = stationary_points_on_M(lam, gamma=gamma, d=d, L=L, check=False)
    sg = hessian_signs(lam, gamma=gamma, d=d, L=L)
    if st.certificate is None or sg["certificate"] is None:
        return None, f"Proposition 9 is not proved over lam in {list(lam)}: {st.failure or sg['failure']}"
    return (st.certificate, sg["certificate"]), None


#: R1 is attempted (``rate=True``) on the pieces where the curvature along kappa at the minimum is at least this times
#: gamma^2 (mu is at most twice it; below, the search's boxes multiply: `docs/MATH.md` §20, "Where it stops")
RATE_CURVATURE = 1e-3
#: boxes R1's search may visit on one piece (``rate_options`` may change it)
RATE_BUDGET = 60_000
#: R1's CPU seconds a box, measured (1.3 to 2.3 ms at gamma^2 = 1.7, d = 150, L = 4): the cost announced before it runs
RATE_SECONDS_A_BOX = 2e-3


def _corner_curvature(lam, gamma, d, L) -> float:
    """The Hessian's kappa entry at (1, 1) in angle coordinates, at the point lam (float, from its enclosure)."""
    from ..checker.premises import kernels

    return midpoint(kernels("manifold-hessians").hessian_1_1(arb(lam), arb(gamma), arb(d), arb(L))[0])


def _rate(pieces, gamma, d, L, rate, options):
    """R1 (:func:`.rate.lojasiewicz`) on the longest run of the chosen pieces from the first that it proves: (the
    certificate's ``rate`` field or None, {piece: mu}, {piece: delta}, failure text or None)."""
    if rate is False:
        return None, {}, {}, "not asked"
    if pieces[0][0] == pieces[-1][1]:  # a single lam: R1's search splits lam, it is certified on intervals only
        return None, {}, {}, f"R1 not attempted at the single lam = {pieces[0][0]!r} (it needs an interval LO:HI, LO < HI)"
    from .rate import lojasiewicz

    if rate is True:  # where mu can be worth searching for: it is at most twice the curvature along kappa at (1, 1)
        rate = max([hi for _, hi in pieces if _corner_curvature(hi, gamma, d, L) >= RATE_CURVATURE * gamma**2],
                   default=0.0)
        why = f"R1 not attempted above lam = {rate!r} (curvature along kappa at (1, 1) below {RATE_CURVATURE} gamma^2)"
    else:
        why = f"R1 asked for lam in {rate!r} only"
    lo, hi = (0.0, rate) if isinstance(rate, float) else rate
    todo = [p for p in pieces if lo <= p[0] and p[1] <= hi]
    why = None if len(todo) == len(pieces) else why
    announce, prog = options.pop("announce", None), options.pop("progress", None)
    budget = int(options.get("budget", RATE_BUDGET))
    if announce is not None and todo:  # a long optional search says its cost before it starts
        most = len(todo) * budget * RATE_SECONDS_A_BOX
        announce(f"R1, the optional rate: {len(todo)} lam pieces in [{todo[0][0]:.4g}, {todo[-1][1]:.4g}], one after "
                 f"another in this process, at most {budget:,} boxes each at ~{RATE_SECONDS_A_BOX * 1e3:g} ms a box: up "
                 f"to ~{most / 60:.0f} min (rate=False / --no-rate skips it; a lam / --rate-lam-max LAM stops it there)")
    fields, mus, deltas = [], {}, {}
    for k, piece in enumerate(todo):  # one piece at a time: the first that does not close ends the run (the rest is not tried)
        more = {} if prog is None else {"progress": lambda _, n, k=k: prog(k, n)}  # the piece's index among R1's
        r = lojasiewicz([piece], gamma=gamma, d=d, L=L, **dict({"budget": RATE_BUDGET}, **options, **more))
        if not r["proved"]:
            why = f"R1 stops at lam = {piece[0]!r}: {r['failure']}"
            break
        fields.append(r["rate"])
        mus[piece], deltas[piece] = r["mu"][0], r["delta"][0]
    return (_stitched(fields) if fields else None), mus, deltas, why


def _stitched(fields) -> dict:
    """One ``rate`` field from those of consecutive lam pieces: the root cut at each piece's lower end along lam (the
    coverage format's pre-order: a split, the left piece's tree, then the rest)."""
    tree, leaves = [], []
    for k, f in enumerate(fields):
        if k < len(fields) - 1:
            tree.append([2, fields[k + 1]["lam"][0]])
        tree += f["tree"]
        leaves += f["leaves"]
    return {"lam": [fields[0]["lam"][0], fields[-1]["lam"][1]], "tree": tree, "leaves": leaves}


def _arguments(lam, gamma, d, L, prec, ratio, budget, margin, proposition9, rate):
    """:func:`theorem5_step`'s arguments, checked before any box is searched (ValueError naming the first bad one)."""
    lo, hi = A.lam_interval(lam)
    _, gamma, _, d, L = A.model(lo, gamma, 0.0, d, L)
    require_d(d, "certificate")
    if not (proposition9 is None or isinstance(proposition9, (tuple, list)) and len(proposition9) == 2
            and all(isinstance(x, dict) for x in proposition9)):
        raise ValueError("proposition9 must be None or a pair (stationary, signs) of certificate documents")
    if isinstance(rate, (tuple, list)):
        rate = A.lam_interval(rate)
    elif not isinstance(rate, bool):
        rate = A.V.real("rate", rate, minimum=0.0, strict_min=True, why="the largest lam of the rate's pieces, or a bool")
    margin = A.V.real("margin", margin, minimum=0.0, strict_min=True, maximum=0.5, why="relative slack of the targets")
    return (lo, hi), (gamma, d, L), A.precision(prec), A.ratio(ratio), A.budget(budget), margin, rate


def _close_piece(setting, prec, box, names, t, cap, budget):
    """One lam piece of :func:`theorem5_step` on its own split tree (in this process or on a Dask worker): the targets
    ``t`` lowered (steps x 0.8, bounds x 1.2) until every leaf closes, at most 8 times. Returns (the targets met, boxes
    visited, the serialised subtree), or None."""
    gamma, d, L = setting
    with ctx.workprec(prec):
        par = param_balls(gamma, 0.0, d, L).kw("gamma", "d", "L")
        for _ in range(8):
            sub = SplitTree(box, names=names)
            parts = [sub.root] if t["alpha_12"] >= cap else sub.grid(sub.root, 2, [t["alpha_12"]])
            done = [_close(sub, j, t, par, budget) for j in parts]
            if None not in done:
                return t, sum(done), sub.serialise()
            t = dict(t, alpha_12=0.8 * t["alpha_12"], Gk=1.2 * t["Gk"], Gn=1.2 * t["Gn"], H=1.2 * t["H"])
            t["alpha_8"] = _alpha_8(t["Gk"], t["Gn"], t["H"])
    return None


def alpha_5_at(pieces, lam) -> float:
    """Theorem 5's certified step at ``lam`` from a certificate's pieces (dicts with "lam" and "alpha_5"): the smallest
    alpha_5 of the pieces holding ``lam`` (two at a shared end), what the certificate proves there; 0.0 if none holds it."""
    return min((p["alpha_5"] for p in pieces if p["lam"][0] <= lam <= p["lam"][1]), default=0.0)


@accepts_gamma2
def theorem5_step(lam=(0.01, 1.0), *, gamma, d, L, ratio=0.25, margin=0.05, prec=64, budget=20_000, progress=None,
                  proposition9=None, rate=True, rate_options=None, workers=1, scheduler=None):
    """Certify Theorem 5 at an explicit step for every lam of ``lam`` (`docs/MATH.md` §20): Propositions 8 and 12's
    steps by the module's search, Proposition 9's two certificates embedded (``proposition9``: a pair (stationary,
    signs) of documents over a lam interval holding ``lam``, or None to search them here). Returns {"proved",
    "pieces" (per piece: lam, alpha_8, alpha_12, alpha_5, as the checker derives them with G, H, M, mu_+),
    "alpha_5_min", "boxes", "seconds", "failure", "certificate"} (kind ``theorem-5``; None when not proved).
    ``progress``: a callable given (pieces done, pieces) after each piece. ``rate``: also certify R1 (a Lojasiewicz
    constant mu below the saddle's level, :func:`.rate.lojasiewicz`) on the longest run of pieces from the first where
    it closes (``rate_failure`` says where it stops): True (the pieces where the curvature along kappa at (1, 1) is at
    least :data:`RATE_CURVATURE` gamma^2), False, a lam (the pieces ending at or below it) or a (lo, hi) interval (the
    pieces inside it: R1's tree must cover consecutive pieces); R1's search grows fast
    with lam, as mu falls like erfc(lam sqrt(d/2)). ``rate_options``: keywords of :func:`.rate.lojasiewicz` (its
    budget, mu factors, bisection steps; ``progress(k, boxes)`` with k the piece's index among R1's), and ``announce``:
    a callable given, before R1 starts, its cost estimate (pieces, boxes, minutes at :data:`RATE_SECONDS_A_BOX`).
    ``workers``, ``scheduler``: where the lam pieces run (:class:`slr_verify.model.engine.Engine`; the default: in this
    process; the certificate is the same tree)."""
    (lo, hi), (gamma, d, L), prec, ratio, budget, margin, rate = _arguments(lam, gamma, d, L, prec, ratio, budget, margin,
                                                                            proposition9, rate)
    workers = A.V.integer("workers", workers, 1, 64, why="processes sharing the lam pieces")
    t0 = time.perf_counter()
    pieces = geometric_pieces(lo, hi, ratio)
    rows, boxes, failure = [], 0, None
    with ctx.workprec(int(prec)):
        par = param_balls(gamma, 0.0, d, L).kw("gamma", "d", "L")
        targets = [_targets(p, par, margin) for p in pieces]
        cap = max(t["alpha_12"] for t in targets)
        tree = SplitTree(((-1.0, 1.0), (-1.0, 1.0), (0.0, cap), (lo, hi)), names=("kappa", "nu", "alpha", "lam"))
        ids = tree.grid(tree.root, 3, [a for a, _ in pieces[1:]]) if len(pieces) > 1 else [tree.root]
        args = [((gamma, d, L), int(prec), tree.boxes[i], tree.names, t, cap, budget) for i, t in zip(ids, targets)]
        out = [None] * len(pieces)
        with Engine(scheduler if len(pieces) > 1 else "sync", workers, name="certify.theorem5_step") as engine:
            results = engine.run(_close_piece, args)
            try:
                for m, (k, r) in enumerate(results):
                    out[k] = r
                    if r is None:
                        failure = f"the piece lam in [{pieces[k][0]}, {pieces[k][1]}] does not close within the budget"
                        break
                    if progress is not None:
                        progress(m + 1, len(pieces))
            finally:
                results.close()
        for i, p, r in zip(ids, pieces, out if failure is None else []):
            t, n, (nodes, leaves) = r
            boxes += n
            tree.graft(i, nodes, leaves)
            a5 = min(t["alpha_8"], t["alpha_12"], (1 - margin) / t["mu_plus"])
            rows.append({"lam": list(p), "alpha_8": t["alpha_8"], "alpha_12": t["alpha_12"], "alpha_5": a5,
                         "mu": None, "delta": None})
    doc, rate_failure, extra = None, None, {}
    if failure is None:
        embed, failure = _proposition9((lo, hi), gamma, d, L, proposition9)
    if failure is None:
        field, mus, deltas, rate_failure = _rate(pieces, gamma, d, L, rate, dict(rate_options or {}))
        for row, piece in zip(rows, pieces):  # the pieces R1 covers, by their lam interval
            row["mu"], row["delta"] = mus.get(piece), deltas.get(piece)
        if field is not None:
            extra["rate"] = field
        doc = document("theorem-5", A.setting(gamma=gamma, d=d, L=L), tree, prec=prec,
                       extra={"pieces": rows, "stationary": embed[0], "signs": embed[1], **extra},
                       search={"margin": margin, "ratio": ratio, "boxes": boxes})
        r = replay(doc)
        if not r.accepted:
            doc, failure = None, f"the checker rejects the certificate: {r.reason}"
        else:
            rows = r.values["pieces"]
    return {"proved": failure is None, "rate_failure": rate_failure,
            "pieces": rows, "alpha_5_min": min(r_["alpha_5"] for r_ in rows) if rows else 0.0,
            "boxes": boxes, "seconds": time.perf_counter() - t0, "failure": failure, "certificate": doc}
