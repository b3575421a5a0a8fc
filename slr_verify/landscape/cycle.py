"""A 2-cycle of PGD's five-overlap map checked on vectors (`docs/MATH.md` §13): the full-dimensional runner in R^d,
an independent route to the map that :func:`~.capture.contraction_ball` proves a cycle for."""
from __future__ import annotations

import numpy as np

from ..dynamics.runners import pgd
from ..model import validation as V
from ..model.params import accepts_gamma2
from .hessian import realise

FIELDS = ("kappa", "nu", "theta", "eta", "rho")


@accepts_gamma2
def cycle_residual(centre, mirror, *, lam, gamma, eps=0.0, d, L, alpha):
    """How far two steps of the full-dimensional PGD (:func:`slr_verify.dynamics.runners.pgd`, float64 vectors in
    R^d, d >= 4) from a realisation (:func:`~.hessian.realise`) of the five overlaps ``centre`` (kappa, nu, theta,
    eta, rho) are from the 2-cycle {c, sigma c}, sigma the sign pattern ``mirror`` (five +-1): the largest overlap
    distance of the first step from sigma c and of the second from c. At a point of a 2-cycle of the five-overlap
    PGD map it is rounding only (~1e-15; the claim ``oracle-unstable-for-pgd`` allows 1e-10). `docs/MATH.md` §13."""
    d = V.integer("d", d, 4, why="the realisation needs four dimensions", floats=True)
    c = np.asarray(centre, dtype=float)
    X = np.zeros((4, d))
    X[:, :4] = np.array(realise(c).tolist(), dtype=float)
    X /= np.linalg.norm(X, axis=1)[:, None]
    tr = pgd(X[2], X[3], X[0], X[1], lam=lam, gamma=gamma, eps=eps, L=L, alpha=alpha, steps=2)
    one, two = (np.array([tr[f][i] for f in FIELDS]) for i in (1, 2))
    return float(max(np.max(np.abs(one - np.array(mirror) * c)), np.max(np.abs(two - c))))
