r"""Proposition 10 by ball arithmetic: Hessian signs at the five points, the attraction step size,
and a certified bracket of alpha_max (`docs/MATH.md` §10).

* :func:`hessian_signs`: for every lam of an interval, the Hessian of the manifold risk is
  positive definite at (1, 1) and (-1, -1), negative definite at (1, -1) and (-1, 1) (diagonal in
  angle coordinates: the signs of its entries), and indefinite at (0, 0) (determinant < 0).
* :func:`alpha_attract`: an enclosure of 2 / max(|g_kappa|, |g_nu|) at (1, 1), below which the
  minima attract.
* :func:`alpha_diffeo`: the largest alpha (searched below the numeric alpha_max) for which
  det J > 0 on the whole square [-1, 1]^2 for every step size in [0, alpha] (branch and bound in
  (kappa, nu, alpha)), and an upper bound: an alpha with det J(0, 0) < 0, certified.
"""
from __future__ import annotations

import time

import numpy as np
from flint import arb, ctx

from ..checker import replay
from ..checker.balls import param_balls
from ..checker.dynamics import KINDS_OF_POINTS, hessian_kinds_hold
from ..kernels.balls import ball, geometric_pieces, outward, widened
from ..kernels.certified import corner_gradient_arb, hessians_arb, reduced_map_det_arb
from ..kernels.steps import reduced_map_kernels
from ..model.params import accepts_gamma2
from . import args as A
from . import bisection as B
from .certificate import SplitTree, document


@accepts_gamma2
def hessian_signs(lam=(0.01, 1.0), *, gamma, d, L, prec=192, ratio=0.05):
    """Certify the classification of Proposition 9 for every lam in ``lam``: returns
    {"proved", "kinds", "lam_pieces", "seconds", "failure", "certificate"} (kind ``manifold-hessian-signs``, or None
    when not proved)."""
    lo, hi = A.lam_interval(lam)
    _, gamma, _, d, L = A.model(lo, gamma, 0.0, d, L)
    prec, ratio = A.precision(prec), A.ratio(ratio)
    t0 = time.perf_counter()
    Hs = hessians_arb()
    par = param_balls(gamma, 0.0, d, L).kw("gamma", "d", "L")
    tree = SplitTree(((lo, hi),), names=("lam",))
    with ctx.workprec(int(prec)):
        pieces = geometric_pieces(lo, hi, ratio)
        ids = tree.grid(tree.root, 0, [a for a, _ in pieces[1:]]) if len(pieces) > 1 else [tree.root]
        closed = []

        def step(i, box):
            (a, b), = box
            if all(hessian_kinds_hold(Hs[pt](ball(a, b), **par), pt) for pt in KINDS_OF_POINTS):
                closed.append(i)
                return B.Leaf({"test": "signs"})
            return B.Split(0) if b - a > 1e-9 * b else B.Fail(f"no sign for lam in [{a}, {b}]")

        run = B.run(tree, step, roots=ids)
    failure = run.failure
    doc = None if failure else document("manifold-hessian-signs", A.setting(gamma=gamma, d=d, L=L), tree, prec=prec)
    if doc is not None:  # what is proved is what the checker accepts
        r = replay(doc)
        doc, failure = (doc, None) if r.accepted else (None, f"the checker rejects the certificate: {r.reason}")
    return {"proved": failure is None, "kinds": {str(k): v for k, v in KINDS_OF_POINTS.items()}, "lam_pieces": len(closed),
            "seconds": time.perf_counter() - t0, "failure": failure, "certificate": doc}


def _alpha_attract_ball(lam, gamma, d, L, prec) -> arb:
    """2 / max(|g_kappa(1, 1)|, |g_nu(1, 1)|) as an arb ball (lam, gamma one ulp wide; checked arguments)."""
    with ctx.workprec(int(prec)):
        gk, gn = corner_gradient_arb()(lam=widened(lam), **param_balls(gamma, 0.0, d, L).kw("gamma", "d", "L"))
        m = gk if gk.lower() > gn.upper() else gn if gn.lower() > gk.upper() else None
        if m is None:
            raise ArithmeticError("the larger of |g_kappa|, |g_nu| at (1, 1) is not decided at this precision")
        return 2 / m


@accepts_gamma2
def alpha_attract(*, lam, gamma, d, L, prec=192):
    """Enclosure (lo, hi) of 2 / max(|g_kappa(1, 1)|, |g_nu(1, 1)|): below it the minima attract (the ball's ends
    rounded outward to floats)."""
    lam, gamma, _, d, L = A.model(lam, gamma, 0.0, d, L)
    return outward(_alpha_attract_ball(lam, gamma, d, L, A.precision(prec)))


def _det_positive(D, alpha, lam, par, budget):
    """Branch and bound in (kappa, nu, alpha) over [-1, 1]^2 x [0, alpha] at one lam: (det J > 0 everywhere?, boxes,
    the split tree with its ``det-positive`` leaves)."""
    tree = SplitTree(((-1.0, 1.0), (-1.0, 1.0), (0.0, float(alpha)), (lam, lam)), names=("kappa", "nu", "alpha", "lam"))

    def step(i, b):
        if D(ball(*b[0]), ball(*b[1]), alpha=ball(*b[2]), **par)[0].lower() > 0:
            return B.Leaf({"test": "det-positive"})
        scale = (1.0, 1.0, alpha)
        if max(w / s for w, s in zip(B.widths(b[:3]), scale)) < 1e-9:
            return B.Fail("det J > 0 is not shown on a box narrower than 1e-9")
        return B.Split(B.widest(b[:3], scale=scale))

    run = B.run(tree, step, budget=budget)
    return run.proved, run.boxes, tree if run.proved else None


def _most_negative(lam, gamma, d, L, alpha, n=201):
    """The point of an n x n grid of [-1, 1]^2 where the float64 det J of the reduced map is smallest (a witness
    candidate for the upper bound of alpha_max; the proof is the ball evaluation there)."""
    k, v = np.meshgrid(np.linspace(-1, 1, n), np.linspace(-1, 1, n))
    J = reduced_map_kernels().J(k, v, lam, gamma, d, L, alpha)
    i = np.unravel_index(np.argmin(J[0] * J[3] - J[1] * J[2]), k.shape)
    return float(k[i]), float(v[i])


@accepts_gamma2
def alpha_diffeo(*, lam, gamma, d, L, alpha_numeric, prec=128, budget=200_000):
    """A certified alpha below which the reduced map's Jacobian determinant is positive on the whole
    square (for every step size up to it), searched as alpha_numeric (1 - 10^-k), k = 1..6, the
    largest proved; and a certified upper bound, alpha_numeric (1 + 1e-6) if det J < 0 there at the float grid's
    most negative point or at (0, 0) (``upper_at`` in the certificate).
    Returns {"alpha_certified", "alpha_upper" (or None), "ratio", "boxes", "seconds", "certificate"} (kind
    ``reduced-map-diffeomorphism`` over [0, alpha_certified], with the upper bound; None if nothing was proved)."""
    lam, gamma, _, d, L = A.model(lam, gamma, 0.0, d, L)
    alpha_numeric = A.V.real("alpha_numeric", alpha_numeric, minimum=0.0, strict_min=True, maximum=1e8)
    prec, budget = A.precision(prec), A.budget(budget)
    t0 = time.perf_counter()
    D = reduced_map_det_arb()
    best, boxes, upper, proof = 0.0, 0, None, None
    with ctx.workprec(int(prec)):
        par = dict(lam=widened(lam), **param_balls(gamma, 0.0, d, L).kw("gamma", "d", "L"))
        for k in range(1, 7):
            a = alpha_numeric * (1 - 10.0**-k)
            ok, n, tree = _det_positive(D, a, lam, par, budget)
            boxes += n
            if not ok:
                break
            best, proof = a, tree
        a_up, at = alpha_numeric * (1 + 1e-6), _most_negative(lam, gamma, d, L, alpha_numeric * (1 + 1e-6))
        for k, n in (at, (0.0, 0.0)):
            if D(arb(k), arb(n), alpha=arb(a_up), **par)[0].upper() < 0:
                upper, at = a_up, [k, n]
                break
    extra = {"alpha_upper": upper} if upper is None else {"alpha_upper": upper, "upper_at": at}
    doc = None if proof is None else document("reduced-map-diffeomorphism", A.setting(gamma=gamma, d=d, L=L), proof, prec=prec,
                                              extra=extra)
    if doc is not None and not replay(doc).accepted:  # what is proved is what the checker accepts
        doc, best, upper = None, 0.0, None
    return {"alpha_certified": best, "alpha_upper": upper, "alpha_numeric": alpha_numeric,
            "ratio": best / alpha_numeric if alpha_numeric else float("nan"), "boxes": boxes,
            "seconds": time.perf_counter() - t0, "certificate": doc}
