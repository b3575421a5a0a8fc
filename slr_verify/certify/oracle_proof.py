r"""Inside the oracle's window: (k*, v*) the unique global minimiser up to the symmetries for every lam of an interval
(`docs/MATH.md` §17), by two certificates on the split tree of (kappa, t, lam).

**The valley certificate** (inside W). At fixed kappa and mu, LB_mu is *exactly* quadratic in eta
(SymPy, :func:`slr_verify.symbolic.profile_dual.dual_proofs`): LB = A_0 + Q eta^2. With mu = mu_v(kappa) =
a0 + p_nu/2 (the multiplier of v* on eta = 0), LB(kappa, 0) = m(kappa, 0) = R(kappa, 1, 0, 0, 0), which
decreases strictly in kappa (:func:`slr_verify.kernels.profile.valley_proofs`). So wherever
Q(kappa, lam) > 0 and beta, Delta, T > 0 at mu_v, **every** point of the line {kappa} x [0, sqrt(1 - kappa^2)]
has m >= R(kappa, 1, 0, 0, 0) >= R(k*, v*), with equality only at k = k*. A one-dimensional branch and
bound over kappa in [kappa0, 1] x lam (Taylor models of Q) certifies it; no value bound ever enters
the flat valley (m - R(k*, v*) is 1e-15 .. 1e-44 there).

Inside W the two prove that (k*, v*) is the unique global minimiser up to the symmetries for every lam
of the interval. Outside W (a point lam) the value test against the witness leaves small boxes around
the global minimiser: their union encloses it, and their lower bounds with the witness's risk enclose
the global minimum.
"""
from __future__ import annotations

import math
import time

import numpy as np
from flint import ctx

from ..kernels.balls import geometric_pieces, uniform_pieces
from ..kernels.profile import valley_proofs
from ..model.engine import Engine
from . import bisection as B
from . import certificate as C
from .dual_box import Box, Evaluator, oracle_U, range_over, strip_test, value_test
from .global_result import GlobalCertificate


def _kappa0(ev, lo, hi, margin=0.035):
    """A float choice of the split between the valley certificate and the value test over lam in [lo, hi]: ``margin``
    above the largest kappa at which the float valley test (Q > 0, beta, Delta, T > 0 at mu_v) fails on a grid (the
    edge moves from kappa ~ 0.14 at lam = 0.1 to ~ 0.07 at lam = 0.9 at Figure 4b's setting). Close to the edge Q is
    small and the valley needs small boxes; far above it the value test meets the flat valley (m - R(k*, v*) ~ 6e-4 at
    kappa = 0.2, lam = 0.85)."""
    ks = np.linspace(0.0, 1.0, 2001)
    edge = 0.0
    with np.errstate(invalid="ignore", divide="ignore", over="ignore"):
        for lam in np.linspace(lo, hi, 9):
            co = [np.broadcast_to(np.asarray(x, float), ks.shape) for x in ev.K.coef_f64(ks, lam, ev.gamma, ev.eps, ev.d, ev.L)]
            ok = np.all([np.asarray(x, float) > 0 for x in ev.K.valley_f64(*co, ks)], axis=0)
            # the edge of the failures from kappa = 0; near kappa = 1 the float test fails at a pitchfork's end of W
            # (Q -> 0 at k*), where the valley's boxes split finely instead
            bad = ks[~ok & (ks < 0.5)]
            edge = max(edge, float(bad.max()) if bad.size else 0.0)
    return min(0.5, edge + margin)


def _prove_piece(setting, a, b, kappa0, max_boxes, min_width, seconds, prec):
    """One lam piece [a, b] of :func:`prove_oracle` on its own split tree (run in this process or in a worker):
    {"ok", "reason", "nodes", "leaves" (the serialised subtree), "boxes", "strip_boxes", "value_boxes", "kappa0",
    "status" (the last bisection's: "done", or "budget" when its boxes or seconds ran out)}."""
    with ctx.workprec(int(prec)):
        ev = Evaluator(*setting)
        k = kappa0 if kappa0 is not None else _kappa0(ev, a, b)
        deadline = time.time() + seconds

        tree = C.SplitTree(((0.0, 1.0), (0.0, 1.0), (a, b)))
        low, high = tree.split(tree.root, 0, k)
        strip = tree.grid(high, 0, np.linspace(k, 1, 9)[1:-1])
        rest = [j for i in tree.grid(low, 0, np.linspace(0, k, 5)[1:-1]) for j in tree.grid(i, 1, np.linspace(0, 1, 5)[1:-1])]
        out = {"ok": False, "kappa0": (a, b, k), "nodes": None, "leaves": None}

        def search(roots, test, axes, boxes):
            def step(i, box):
                ok, axis = test(Box.of(tree, i))  # a passed test closes its box in the tree
                if ok:
                    return B.Leaf(tree.nodes[i][1])
                if max(box[j][1] - box[j][0] for j in axes) < min_width:
                    return B.Fail("narrower than min_width")
                return B.Split(axis)
            run = B.run(tree, step, roots=roots, budget=boxes, seconds=deadline - time.time(), keep_going=True)
            return [Box.of(tree, i) for i in run.failed + run.open], run.boxes, "budget" if run.status == "budget" else "done"

        # 1. the valley certificate on kappa in [kappa0, 1] (it covers the whole line at kappa: every t)
        failed, n1, st = search(strip, lambda bx: strip_test(ev, bx), (0, 2), max_boxes)
        out.update(strip_boxes=n1, value_boxes=0, boxes=ev.count, status=st)
        if failed:
            f = failed[0]
            out["reason"] = (f"valley certificate not proved ({st}; {len(failed)} boxes left, e.g. kappa {f.x}, "
                             f"lam {f.lam})")
            return out
        # 2. kappa <= kappa0: the value test against the oracle's risk, on the lines t = eta^2 / (1 - kappa^2)
        U = oracle_U(ev)
        failed, n2, st = search(rest, lambda bx: _value_ok(ev, bx, U), (0, 1, 2), max_boxes - n1)
        out.update(value_boxes=n2, boxes=ev.count, status=st)
        if failed:
            f = failed[0]
            out["reason"] = (f"value test failed ({st}; {len(failed)} boxes left, e.g. kappa {f.x}, "
                             f"t = eta^2/(1 - kappa^2) {f.y}, lam {f.lam})")
            return out
        out["nodes"], out["leaves"] = tree.serialise()
        out.update(ok=True, reason="")
        return out


def _piece_until(deadline, setting, a, b, kappa0, max_boxes, min_width, prec):
    """:func:`_prove_piece` with the seconds left until ``deadline`` when the piece starts; None (not started) past it."""
    left = deadline - time.time()
    return _prove_piece(setting, a, b, kappa0, max_boxes, min_width, left, prec) if left > 0 else None


def _run_pieces(ev, pieces, kappa0, max_boxes, min_width, deadline, bar, engine):
    """:func:`_prove_piece` on every piece, on the engine (:class:`slr_verify.model.engine.Engine`: a piece per Dask
    task, or in this process; None: in this process). Returns one entry per piece, in piece order: its outcome, or
    None for a piece not run or cancelled (or not started before the deadline). After the first failed piece no piece
    is started and those in flight are cancelled (those finished keep their outcomes)."""
    engine = engine if engine is not None else Engine()
    out = [None] * len(pieces)
    args = [(deadline, (ev.gamma, ev.eps, ev.d, ev.L), a, b, kappa0, max_boxes, min_width, ctx.prec) for a, b in pieces]
    results = engine.run(_piece_until, args)
    try:
        for i, r in results:
            if r is None:  # the time limit: no more pieces
                break
            out[i] = r
            bar.update(r["boxes"])
            if not r["ok"]:
                break
    finally:
        results.close()  # cancels the pieces in flight
    return out


def lam_pieces(lo, hi, ratio=0.05):
    """The lam pieces of an oracle proof: of width ``ratio`` x 0.1 below lam = 0.1, of relative width ``ratio`` above (a
    piece's boxes cost about the same at every lam above it: an interval up to 1e4 is some 240 pieces, not the 2e5 of
    equal pieces)."""
    if hi <= 0.1:
        return uniform_pieces(lo, hi, ratio)
    low = uniform_pieces(lo, 0.1, ratio) if lo < 0.1 else []
    return low + geometric_pieces(max(lo, 0.1), hi, ratio)


def prove_oracle(ev, lo, hi, kappa0, max_boxes, min_width, deadline, t0, bar, engine=None, partial=False):
    """(k*, v*) the unique global minimiser for every lam of [lo, hi], piece by piece (:func:`lam_pieces`). With
    ``partial``, when a piece fails or the time runs out after the first pieces closed, the certificate of the proved
    first part [lo, x] is returned (``proved`` False, ``details["proved_to"]`` = x, the reason what stopped it)."""
    proofs = valley_proofs()
    if not all(proofs.values()):
        return GlobalCertificate(False, f"the valley facts are not proved: {proofs}", (math.nan, math.nan), [], 0,
                                 time.time() - t0, (lo, hi), True)
    pieces = lam_pieces(lo, hi)  # near a window's end the boxes split in lam themselves, to 1e-12
    res = _run_pieces(ev, pieces, kappa0, max_boxes, min_width, deadline, bar, engine)  # None: a piece not run
    workers = engine.threads if engine is not None else 1
    ran = [r for r in res if r is not None]
    ev.count = sum(r["boxes"] for r in ran)
    details = {"strip_boxes": sum(r["strip_boxes"] for r in ran), "value_boxes": sum(r["value_boxes"] for r in ran),
               "kappa0": [r["kappa0"] for r in ran], "pieces": len(pieces), "pieces_proved": sum(r["ok"] for r in ran),
               "workers": workers}
    n = next((i for i, r in enumerate(res) if r is None or not r["ok"]), len(pieces))  # the proved first pieces
    why = ""
    if n < len(pieces):
        bad = [r for r in ran if not r["ok"]]
        timed_out = time.time() >= deadline and (not bad or bad[0].get("status") == "budget")
        why = (f"the time limit ended the search in the lam piece from {pieces[n][0]!r}" if timed_out else
               bad[0]["reason"])
        if not (partial and n > 0):
            return GlobalCertificate(False, why, (math.nan, math.nan), [], ev.count, time.time() - t0, (lo, hi), True,
                                     details)
        details["proved_to"] = pieces[n - 1][1]
    top = pieces[n - 1][1]
    tree = C.SplitTree(((0.0, 1.0), (0.0, 1.0), (lo, top)))
    for node, r in zip(tree.grid(tree.root, 2, [a for a, _ in pieces[1:n]]), res[:n]):
        tree.graft(node, r["nodes"], r["leaves"])
    R = range_over(oracle_U(ev), lo, top)
    ks = [k for *_, k in details["kappa0"]]
    reason = ("(k*, v*) is the unique global minimiser up to the symmetries for every lam of the interval: the valley "
              f"certificate on kappa in [kappa0, 1] (kappa0 in [{min(ks):.3g}, {max(ks):.3g}] by lam piece) (Q > 0: the "
              "line through each kappa is above M's edge, which decreases to the oracle) and weak-duality bounds above "
              "the oracle's risk for kappa <= kappa0")
    if why:
        reason = f"proved on [{lo!r}, {top!r}] only (of [{lo!r}, {hi!r}]): {why}"
    ov = [{"lam": (lo, top), "overlaps": ((1, 1), (1, 1), (0, 0), (0, 0), (0, 0))}]
    doc = C.document("oracle-global-minimiser", ev.setting, tree, prec=ctx.prec,
                     search={"boxes": ev.count, "seconds": time.time() - t0, "workers": workers})
    return GlobalCertificate(not why, reason, R, ov, ev.count, time.time() - t0, (lo, hi), True, details, doc)


def _value_ok(ev, box, U):
    o = value_test(ev, box, U)
    if o.passed:
        box.close({"test": "value", "beta": o.beta})
    return o.passed, o.axis
