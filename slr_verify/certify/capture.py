r"""Certified capture regions of constant-lam PGD (`docs/MATH.md` §13, "Where PGD goes").

A run is classified by where it *provably* goes, not by how far it got. The certificate here is a
**contraction ball** of the map G = sigma o Phi, where Phi is the exact five-overlap PGD map at step
size alpha (`docs/MATH.md` §12; derived in :mod:`slr_verify.symbolic.dynamics`) and sigma one of the
sign patterns :data:`slr_verify.landscape.stationary.SYMMETRIES` (sigma = identity for a fixed point).

**Theorem (Banach, in a preconditioned norm).** Let c be a point, T an invertible 5 x 5 matrix, the
coordinates y = T^{-1}(x - c) split into groups (single coordinates, and pairs for complex eigenvalues)
with the norm ||y|| = max over groups I of |y_I|_2, and B = {x : ||T^{-1}(x - c)|| <= s}. If

* q >= sup over x in B of the operator norm of T^{-1} DG(x) T (bounded by max_I sum_J ||M_IJ||_2 over
  the interval matrix M enclosing T^{-1} DG T on B), and
* r0 >= ||T^{-1}(G(c) - c)|| / s, with r0 + q < 1,

then G maps B into itself (||G(x) - c|| <= ||G(c) - c|| + q ||x - c||, B being convex), is a
contraction there, has exactly one fixed point p in B, and G^n(x) -> p for every x in B. Since
sigma commutes with Phi (Phi(sigma o) = sigma Phi(o) for all parameters, proved by SymPy:
:func:`slr_verify.kernels.landscape.sigma_equivariance_proofs`; a ball with sigma != id is refused unless
every statement is True, and records them in ``premises``) and sigma^2 = id,
Phi^n = sigma^n G^n: every run that enters B converges to p
(sigma = id, or sigma p = p: a fixed point of Phi, i.e. a stationary point when realisable) or to the
2-cycle {p, sigma p} (PGD alternates between two mirror images: a period-2 orbit that is not a
stationary point). All enclosures are arb balls (python-flint) from kernels generated from SymPy
(:func:`slr_verify.kernels.landscape.capture_kernels`): the overlaps over B, Theorem 1's partials
and second partials over them, the map's Jacobian dF/do + dF/dR . Hess R. Membership of a run's
float state (an exact point) is decided by the same ball arithmetic; a state that is not a realisable
overlap tuple (no unit k, v in R^d have those overlaps with k*, v*: the Gram matrix of (k, v, k*, v*)
is not positive semidefinite, or has rank > d; :func:`slr_verify.model.validation.overlaps`, tolerance
:data:`~slr_verify.model.validation.GRAM_TOL`) is not a point of the model and is refused (``ValueError``).

c is a float Newton root of G(o) = o, T the real eigenvector basis of DG(c) (a complex pair enters
as its real and imaginary parts, a group of two): in these coordinates DG(c) is block diagonal, so q
is close to the spectral radius and the ball can be as large as the variation of DG allows.

**What it cannot do.** Near a fixed point with an eigenvalue 1 - alpha mu, mu erfc-small (the flat
valley nu = 1 of M, `docs/MATH.md` §17), q >= 1 - alpha mu is 1 to float precision and the ball
shrinks to nothing: the valley needs :mod:`.valley`. The float map G and its Jacobian are
:mod:`slr_verify.landscape.overlap_map`'s.
"""
from __future__ import annotations

import math
import time
from dataclasses import dataclass, field

import numpy as np
from flint import arb, arb_mat, ctx

from ..checker.balls import outward, param_balls
from ..checker.contraction import ball_bounds, group_norm
from ..kernels.balls import widened
from ..kernels.landscape import sigma_equivariance_proofs
from ..landscape.overlap_map import cycle_point, pgd_map, real_eigenbasis, realisable_states
from ..landscape.stationary import SYMMETRIES
from ..model import tiers as T
from ..model import validation as V
from ..model.params import Params, accepts_gamma2

#: normalised radii tried, largest first
RADII = tuple(10.0 ** -k for k in np.arange(1.0, 8.5, 0.5))


@dataclass
class CaptureBall:
    """A contraction ball of G = sigma o Phi (see the module): centre ``centre`` (float64, a Newton root of
    G(o) = o), coordinates y = T^{-1}(x - c) (``T``, ``groups``), radius ``radius`` in the norm max_I |y_I|,
    ``q`` (Lipschitz bound of G there), ``r0`` (||G(c) - c|| / radius), ``proved`` (r0 + q < 1 on arb balls).
    ``period``: 1 if sigma fixes the centre (a fixed point of Phi), else 2; ``eigenvalues``: of DG(c)
    (float); ``premises``: the SymPy statements the conclusion rests on beyond the ball arithmetic
    (sigma != id: Phi(sigma o) = sigma Phi(o), :func:`~slr_verify.kernels.landscape.sigma_equivariance_proofs`;
    a ball is never ``proved`` unless all are True)."""

    centre: np.ndarray
    sigma: tuple
    T: np.ndarray
    groups: tuple
    radius: float
    q: float
    r0: float
    proved: bool
    period: int
    eigenvalues: np.ndarray
    params: dict
    seconds: float
    reason: str = ""
    extra: dict = field(default_factory=dict)
    premises: dict = field(default_factory=dict)

    @property
    def premise_proved(self) -> bool:
        """sigma = id (no symmetry used), or every statement of ``premises`` (Phi(sigma o) = sigma Phi(o)) True."""
        return all(x == 1 for x in self.sigma) or (bool(self.premises) and all(self.premises.values()))

    def contains(self, ov) -> np.ndarray:
        """Which of the points ``ov`` (5,) or (5, n) lie in the ball, decided on arb balls (the float states are
        exact points). False everywhere for an unproved ball. ``ValueError`` (naming ``ov``) for a point that is
        not a realisable overlap tuple in R^d (:func:`~slr_verify.landscape.overlap_map.realisable_states`): it is not
        a state of the model."""
        X = realisable_states(ov, self.params["d"])
        out = np.zeros(X.shape[1], dtype=bool)
        if not self.proved or not self.premise_proved:
            return out
        Y = np.linalg.solve(self.T, X - self.centre[:, None])
        nrm = np.max([np.linalg.norm(Y[list(g)], axis=0) for g in self.groups], axis=0)
        cand = np.flatnonzero(nrm <= self.radius * (1 + 1e-6))
        if not len(cand):
            return out
        with ctx.workprec(self.params.get("prec", 128)):
            Tinv = arb_mat(self.T.tolist()).inv()
            for i in cand:
                dx = arb_mat([[arb(float(X[k, i])) - arb(float(self.centre[k]))] for k in range(5)])
                out[i] = bool(group_norm(Tinv * dx, self.groups) <= self.radius)
        return out

    def as_dict(self) -> dict:
        return {"kind": "contraction ball of sigma o Phi", "tier": T.BALL if self.proved else T.NOT_PROVED,
                "centre": [float(x) for x in self.centre], "sigma": [int(s) for s in self.sigma], "period": self.period,
                "radius": self.radius, "q": self.q, "r0": self.r0, "T": self.T.tolist(), "groups": [list(g) for g in self.groups],
                "spectral_radius": float(np.max(np.abs(self.eigenvalues))) if len(self.eigenvalues) else math.nan,
                "seconds": self.seconds, "reason": self.reason,
                "premises": {"statements": dict(self.premises),
                             "tier": "none needed (sigma = id)" if all(x == 1 for x in self.sigma) else
                             T.SYMBOLIC if self.premise_proved else T.NOT_PROVED}}


def _attempt(c, sigma, T, groups, s, kw, alpha, prec):
    """(proved, q, r0) for the ball of radius s (see the module), evaluated by
    :func:`~slr_verify.checker.contraction.ball_bounds` (q, r0 as floats rounded up)."""
    par = dict(lam=widened(kw["lam"]), **param_balls(kw["gamma"], 0.0, kw["d"], kw["L"]).kw())  # PGD: eps = 0 (no eps)
    with ctx.workprec(prec):
        q, r0 = ball_bounds(c, sigma, T, groups, s, par, alpha)
        return bool(r0 + q < 1), outward(q)[1], outward(r0)[1]


@accepts_gamma2
def contraction_ball(o0, sigma, *, lam, gamma, d, L, alpha, prec=128, radii=RADII) -> CaptureBall:
    """The largest proved contraction ball of sigma o Phi around the Newton root of sigma Phi(o) = o
    near ``o0`` (see the module): a :class:`CaptureBall` (``proved`` False, with the reason, when no
    radius of ``radii`` works or Newton fails)."""
    p = Params(lam=lam, gamma=gamma, eps=0.0, d=d, L=L)
    alpha = V.real("alpha", alpha, minimum=0.0, strict_min=True)
    if np.shape(o0) != (5,):
        raise ValueError(f"o0 must be five overlaps (kappa, nu, theta, eta, rho), got shape {np.shape(o0)}")
    try:
        V.overlaps(*o0, d=p.d)
    except ValueError as exc:
        raise ValueError(f"o0 must be a realisable overlap tuple: {exc}") from None
    sigma = tuple(int(x) for x in sigma)
    if not any(np.array_equal(np.array(sigma), s) for s in SYMMETRIES):
        raise ValueError(f"sigma must be one of the symmetries' sign patterns {SYMMETRIES.astype(int).tolist()}, got {sigma!r}")
    kw = {"lam": p.lam, "gamma": p.gamma, "d": p.d, "L": p.L}
    prm = dict(kw, alpha=alpha, prec=int(prec))
    t0 = time.perf_counter()
    # the premise of Phi^n = sigma^n G^n (module docstring): sigma commutes with Phi, proved by SymPy for all parameters
    premises = {"sigma = id: G = Phi, no symmetry used": True} if all(x == 1 for x in sigma) else \
        sigma_equivariance_proofs(sigma)
    if not all(premises.values()):
        return CaptureBall(np.asarray(o0, float), sigma, np.eye(5), tuple((i,) for i in range(5)), 0.0, math.inf, math.inf,
                           False, 0, np.array([]), prm, time.perf_counter() - t0,
                           "the premise Phi(sigma o) = sigma Phi(o) is not proved: "
                           + "; ".join(k for k, v in premises.items() if not v), premises=premises)
    c = cycle_point(o0, sigma, alpha=alpha, **kw)
    if c is None:
        return CaptureBall(np.asarray(o0, float), sigma, np.eye(5), tuple((i,) for i in range(5)), 0.0, math.inf, math.inf,
                           False, 0, np.array([]), prm, time.perf_counter() - t0, "Newton on sigma Phi(o) = o did not converge",
                           premises=premises)
    _, J = pgd_map(c, sigma, alpha=alpha, **kw)
    T, groups, w = real_eigenbasis(J)
    period = 1 if np.max(np.abs(np.asarray(sigma) * c - c)) < 1e-12 else 2
    if np.max(np.abs(w)) >= 1:
        return CaptureBall(c, sigma, T, groups, 0.0, math.inf, math.inf, False, period, w, prm, time.perf_counter() - t0,
                           f"DG(c) has spectral radius {np.max(np.abs(w)):.6g} >= 1: not attracting", premises=premises)
    # bisection over the radii (largest first): proof at radius s usually implies proof at smaller ones; if not,
    # a smaller proved radius is returned, never an unproved one
    radii = sorted((float(x) for x in radii), reverse=True)
    lo, hi, best, last = 0, len(radii) - 1, None, (math.inf, math.inf)
    while lo <= hi:
        mid = (lo + hi) // 2
        ok, q, r0 = _attempt(c, sigma, T, groups, radii[mid], kw, alpha, int(prec))
        if ok:
            best, hi = (radii[mid], q, r0), mid - 1
        else:
            last, lo = (q, r0), mid + 1
    if best is not None:
        return CaptureBall(c, sigma, T, groups, best[0], best[1], best[2], True, period, w, prm, time.perf_counter() - t0,
                           premises=premises)
    return CaptureBall(c, sigma, T, groups, 0.0, last[0], last[1], False, period, w, prm, time.perf_counter() - t0,
                       f"no radius down to {radii[-1]:g} gives r0 + q < 1 (last q = {last[0]:.6g}, r0 = {last[1]:.3g}; "
                       f"spectral radius {np.max(np.abs(w)):.9f})", premises=premises)
