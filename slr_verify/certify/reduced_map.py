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

from ..kernels.balls import ball, geometric_pieces, widened
from ..kernels.certified import corner_gradient_arb, hessians_arb, reduced_map_det_arb
from . import args as A

__all__ = ["hessian_signs", "alpha_attract", "alpha_diffeo"]

_KINDS = {(0, 0): "saddle", (1, 1): "min", (-1, -1): "min", (1, -1): "max", (-1, 1): "max"}


def _kind_proved(pt, H) -> bool:
    h11, h12, h21, h22 = H
    if pt == (0, 0):
        return (h11 * h22 - h12 * h21).upper() < 0  # det < 0: one positive, one negative eigenvalue
    if not (h12.is_exact() and h21.is_exact() and h12 == 0 and h21 == 0):
        return False  # in angle coordinates the Hessian at a corner is diagonal (exactly)
    if _KINDS[pt] == "min":
        return h11.lower() > 0 and h22.lower() > 0
    return h11.upper() < 0 and h22.upper() < 0


def hessian_signs(lam=(0.01, 1.0), *, gamma, d, L, prec=192, ratio=0.05):
    """Certify the classification of Proposition 9 for every lam in ``lam``: returns
    {"proved", "kinds", "lam_pieces", "seconds", "failure"}."""
    lo, hi = A.lam_interval(lam)
    _, gamma, _, d, L = A.model(lo, gamma, 0.0, d, L)
    prec, ratio = A.precision(prec), A.ratio(ratio)
    t0 = time.perf_counter()
    Hs = hessians_arb()
    par = (widened(gamma), arb(int(d)), arb(int(L)))
    with ctx.workprec(int(prec)):
        todo, n, failure = geometric_pieces(lo, hi, ratio), 0, None
        while todo and failure is None:
            a, b = todo.pop()
            if all(_kind_proved(pt, Hs[pt](ball(a, b), *par)) for pt in _KINDS):
                n += 1
            elif b - a > 1e-9 * b:
                todo += [(a, 0.5 * (a + b)), (0.5 * (a + b), b)]
            else:
                failure = f"no sign for lam in [{a}, {b}]"
    return {"proved": failure is None, "kinds": {str(k): v for k, v in _KINDS.items()}, "lam_pieces": n,
            "seconds": time.perf_counter() - t0, "failure": failure}


def alpha_attract(*, lam, gamma, d, L, prec=192):
    """Enclosure (lo, hi) of 2 / max(|g_kappa(1, 1)|, |g_nu(1, 1)|): below it the minima attract."""
    lam, gamma, _, d, L = A.model(lam, gamma, 0.0, d, L)
    prec = A.precision(prec)
    with ctx.workprec(int(prec)):
        gk, gn = corner_gradient_arb()(widened(lam), widened(gamma), arb(int(d)), arb(int(L)))
        m = gk if gk.lower() > gn.upper() else gn if gn.lower() > gk.upper() else None
        if m is None:
            raise ArithmeticError("the larger of |g_kappa|, |g_nu| at (1, 1) is not decided at this precision")
        v = 2 / m
        return float(v.lower()), float(v.upper())


def _det_positive(D, alpha, par, budget):
    """Branch and bound in (kappa, nu, alpha) over [-1, 1]^2 x [0, alpha]: det J > 0 everywhere?"""
    stack, n = [((-1.0, 1.0), (-1.0, 1.0), (0.0, float(alpha)))], 0
    while stack:
        b = stack.pop()
        n += 1
        v = D(ball(*b[0]), ball(*b[1]), *par, ball(*b[2]))[0]
        if v.lower() > 0:
            continue
        w = [b[0][1] - b[0][0], b[1][1] - b[1][0], (b[2][1] - b[2][0]) / alpha]
        if n > budget or max(w) < 1e-9:
            return False, n
        i = int(np.argmax(w))
        lo, hi = b[i]
        m = 0.5 * (lo + hi)
        x, y = list(b), list(b)
        x[i], y[i] = (lo, m), (m, hi)
        stack += [tuple(x), tuple(y)]
    return True, n


def alpha_diffeo(*, lam, gamma, d, L, alpha_numeric, prec=128, budget=200_000):
    """A certified alpha below which the reduced map's Jacobian determinant is positive on the whole
    square (for every step size up to it), searched as alpha_numeric (1 - 10^-k), k = 1..6, the
    largest proved; and a certified upper bound, alpha_numeric (1 + 1e-6) if det J(0, 0) < 0 there.
    Returns {"alpha_certified", "alpha_upper" (or None), "ratio", "boxes", "seconds"}."""
    lam, gamma, _, d, L = A.model(lam, gamma, 0.0, d, L)
    alpha_numeric = A.V.real("alpha_numeric", alpha_numeric, minimum=0.0, strict_min=True, maximum=1e8)
    prec, budget = A.precision(prec), A.budget(budget)
    t0 = time.perf_counter()
    D = reduced_map_det_arb()
    best, boxes, upper = 0.0, 0, None
    with ctx.workprec(int(prec)):
        par = (widened(lam), widened(gamma), arb(int(d)), arb(int(L)))
        for k in range(1, 7):
            a = alpha_numeric * (1 - 10.0**-k)
            ok, n = _det_positive(D, a, par, budget)
            boxes += n
            if not ok:
                break
            best = a
        a_up = alpha_numeric * (1 + 1e-6)
        if D(arb(0), arb(0), *par, arb(a_up))[0].upper() < 0:
            upper = a_up
    return {"alpha_certified": best, "alpha_upper": upper, "alpha_numeric": alpha_numeric,
            "ratio": best / alpha_numeric if alpha_numeric else float("nan"), "boxes": boxes, "seconds": time.perf_counter() - t0}
