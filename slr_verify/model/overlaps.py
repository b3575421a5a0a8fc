"""The five overlaps of (k, v) with (k*, v*) (`docs/MATH.md` §3).

kappa = k.k*, nu = v.v*, theta = v.k*, eta = k.v*, rho = k.v. A tuple is realisable iff the Gram
matrix of (k, v, k*, v*) is positive semidefinite (and of rank <= d). :class:`Overlaps` is the one
type for them: built from vectors (any batch shape), validated, with the Gram matrix and the
distance to the manifold M = {theta = eta = rho = 0} of Lemma 4.
"""
from __future__ import annotations

from typing import NamedTuple

import numpy as np

from . import validation as V

NAMES = ("kappa", "nu", "theta", "eta", "rho")


class Overlaps(NamedTuple):
    """(kappa, nu, theta, eta, rho): numbers or arrays of one batch shape. `docs/MATH.md` §3."""

    kappa: object
    nu: object
    theta: object
    eta: object
    rho: object

    @classmethod
    def from_vectors(cls, k, v, k_star, v_star) -> "Overlaps":
        """Overlaps of vectors whose last axis is R^d (batch axes broadcast); not validated
        (inner products of unit vectors are realisable by construction)."""
        dot = lambda a, b: np.sum(np.asarray(a) * np.asarray(b), axis=-1)
        return cls(dot(k, k_star), dot(v, v_star), dot(v, k_star), dot(k, v_star), dot(k, v))

    @classmethod
    def checked(cls, kappa, nu, theta, eta, rho, *, d=None) -> "Overlaps":
        """Validated, broadcast float64 overlaps: entries in [-1, 1], a PSD Gram matrix of
        rank <= d (``ValueError`` otherwise)."""
        return cls(*V.overlaps(kappa, nu, theta, eta, rho, d=d))

    def gram(self) -> np.ndarray:
        """Gram matrix of (k, v, k*, v*), shape batch + (4, 4)."""
        return V.gram_matrix(*self)

    def stack(self) -> np.ndarray:
        """Shape (5,) + batch."""
        return np.stack(np.broadcast_arrays(*[np.asarray(x, dtype=float) for x in self]))

    @property
    def distance_to_M(self):
        """sqrt(theta^2 + eta^2 + rho^2): the distance to M of Lemma 4 in the overlaps."""
        return np.sqrt(np.asarray(self.theta) ** 2 + np.asarray(self.eta) ** 2 + np.asarray(self.rho) ** 2)
