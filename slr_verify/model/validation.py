"""Input validation shared by every public entry point.

Every check raises :class:`ValueError` naming the offending parameter and the constraint it
breaks; nothing downstream ever sees a NaN or an unrealisable overlap tuple.

The realisability test (`docs/MATH.md` §3, ``docs/MATH.md``): a 5-tuple (kappa, nu, theta, eta, rho) comes from unit
vectors k, v and orthonormal k*, v* in R^d iff the Gram matrix of (k, v, k*, v*)

    [[1,     rho,   kappa, eta],
     [rho,   1,     theta, nu ],
     [kappa, theta, 1,     0  ],
     [eta,   nu,    0,     1  ]]

is positive semidefinite and its rank is at most d.
"""
from __future__ import annotations

import math

import numpy as np

__all__ = [
    "GRAM_TOL",
    "as_finite",
    "positive",
    "nonnegative",
    "integer_at_least",
    "gram_matrix",
    "schur_eigenvalues",
    "overlaps",
    "probability_vector",
    "unit_vectors",
]

#: Tolerance on the smallest eigenvalue of the Gram matrix (and on unit norms). Overlaps
#: computed in float64 from random unit vectors are PSD to ~1e-16; 1e-10 leaves room for
#: overlaps that went through a few float64 operations while still rejecting anything that is
#: unrealisable by a visible margin.
GRAM_TOL = 1e-10


def _fmt(x):
    x = np.asarray(x)
    if x.ndim == 0:
        v = x.item()
        return repr(int(v)) if isinstance(v, float) and v.is_integer() else repr(v)
    return repr(x)


def as_finite(name: str, value) -> np.ndarray:
    """Return ``value`` as a float64 array, or raise if it is not real and finite.

    Booleans, strings, bytes, complex numbers and arrays of them are rejected like their scalar
    forms (NumPy would silently coerce ``"0.5"``, ``True`` or ``[True, False]`` to floats).
    """
    if isinstance(value, (bool, np.bool_)):
        raise ValueError(f"{name} must be a real number, got a bool ({value!r})")
    if isinstance(value, (str, bytes)):
        raise ValueError(f"{name} must be a real number, got a string ({value!r})")
    if isinstance(value, (complex, np.complexfloating)):
        raise ValueError(f"{name} must be a real number, got a complex number ({value!r})")
    if type(value) is float or type(value) is int:  # the common scalar case, fast
        if not math.isfinite(value):
            raise ValueError(f"{name} must be finite (no NaN or infinity), got {value!r}")
        return np.asarray(value, dtype=float)
    try:
        raw = np.asarray(value)
    except (TypeError, ValueError):
        raise ValueError(f"{name} must be a real number or an array of real numbers, got {value!r}") from None
    kind = raw.dtype.kind
    if kind == "b":
        raise ValueError(f"{name} must be real numbers, got a boolean array ({value!r})")
    if kind == "c":
        raise ValueError(f"{name} must be real numbers, got a complex array ({value!r})")
    if kind == "O":  # Python numbers (Fraction, mpmath.mpf, ...): each must be real, not bool/str
        if any(isinstance(x, (bool, np.bool_, str, bytes, complex)) for x in raw.flat):
            raise ValueError(f"{name} must be real numbers, got {value!r}")
    elif kind not in "iuf":
        raise ValueError(f"{name} must be a real number or an array of real numbers, got {value!r} (dtype {raw.dtype})")
    try:
        arr = raw.astype(float, copy=False)
    except (TypeError, ValueError):
        raise ValueError(f"{name} must be a real number or an array of real numbers, got {value!r}") from None
    if not np.all(np.isfinite(arr)):
        raise ValueError(f"{name} must be finite (no NaN or infinity), got {value!r}")
    return arr


def positive(name: str, value) -> np.ndarray:
    """Finite and > 0 (lam, gamma)."""
    arr = as_finite(name, value)
    if np.any(arr <= 0):
        raise ValueError(f"{name} must be > 0, got {value!r}")
    return arr


def nonnegative(name: str, value) -> np.ndarray:
    """Finite and >= 0 (eps)."""
    arr = as_finite(name, value)
    if np.any(arr < 0):
        raise ValueError(f"{name} must be >= 0, got {value!r}")
    return arr


def integer_at_least(name: str, value, minimum: int = 1) -> np.ndarray:
    """An integer (or an array of integers) >= ``minimum`` (d >= 1, L >= 1).

    Floats with an integral value (``400.0``, ``1e12``) are accepted; ``2.5`` is not.
    """
    if isinstance(value, (bool, np.bool_)):
        raise ValueError(f"{name} must be an integer >= {minimum}, got a bool ({value!r})")
    arr = as_finite(name, value)
    if np.any(arr != np.floor(arr)):
        raise ValueError(f"{name} must be an integer >= {minimum}, got {value!r}")
    if np.any(arr < minimum):
        raise ValueError(f"{name} must be an integer >= {minimum}, got {value!r}")
    return arr


def gram_matrix(kappa, nu, theta, eta, rho) -> np.ndarray:
    """Stacked 4x4 Gram matrices of (k, v, k*, v*), shape ``broadcast_shape + (4, 4)``."""
    kappa, nu, theta, eta, rho = np.broadcast_arrays(kappa, nu, theta, eta, rho)
    one, zero = np.ones_like(kappa), np.zeros_like(kappa)
    rows = [
        [one, rho, kappa, eta],
        [rho, one, theta, nu],
        [kappa, theta, one, zero],
        [eta, nu, zero, one],
    ]
    return np.stack([np.stack(r, axis=-1) for r in rows], axis=-2)


def schur_eigenvalues(kappa, nu, theta, eta, rho):
    """Eigenvalues (smaller, larger) of the Schur complement of the identity (k*, v*) block.

    The Gram matrix [[A, B], [B^T, I]] with A = [[1, rho], [rho, 1]], B = [[kappa, eta],
    [theta, nu]] is PSD iff A - B B^T is, and its rank is 2 + rank(A - B B^T): a 2x2 problem,
    solved in closed form (cheap enough to validate 10^6 points).
    """
    m11 = 1.0 - kappa * kappa - eta * eta
    m22 = 1.0 - theta * theta - nu * nu
    m12 = rho - kappa * theta - eta * nu
    mid = 0.5 * (m11 + m22)
    rad = np.hypot(0.5 * (m11 - m22), m12)
    return mid - rad, mid + rad


def overlaps(kappa, nu, theta, eta, rho, *, d=None):
    """Validate a (batch of) overlap tuple(s); return the five broadcast float64 arrays.

    Raises ``ValueError`` when an entry is not finite, lies outside [-1, 1], or when the tuple
    is not realisable: the Gram matrix of (k, v, k*, v*) has a negative eigenvalue, or a rank
    larger than ``d``.
    """
    names = ("kappa", "nu", "theta", "eta", "rho")
    vals = [as_finite(n, x) for n, x in zip(names, (kappa, nu, theta, eta, rho))]
    try:
        vals = np.broadcast_arrays(*vals)
    except ValueError:
        raise ValueError(
            "kappa, nu, theta, eta, rho must have broadcast-compatible shapes, got "
            + ", ".join(str(np.shape(v)) for v in vals)
        ) from None
    for n, x in zip(names, vals):
        if np.any(np.abs(x) > 1 + GRAM_TOL):
            raise ValueError(f"{n} is an inner product of unit vectors and must lie in [-1, 1], got {x!r}")
    eig = schur_eigenvalues(*vals)
    bad = eig[0] < -GRAM_TOL
    if np.any(bad):
        idx = tuple(np.argwhere(np.atleast_1d(bad))[0])
        tup = tuple(float(np.atleast_1d(v)[idx]) for v in vals)
        raise ValueError(
            "(kappa, nu, theta, eta, rho) = %r is not realisable: the Gram matrix of (k, v, k*, v*) "
            "must be positive semidefinite, but the Schur complement of its (k*, v*) block has "
            "eigenvalue %.3g < 0" % (tup, float(np.atleast_1d(eig[0])[idx]))
        )
    if d is not None:
        rank = 2 + (eig[0] > GRAM_TOL) + (eig[1] > GRAM_TOL)
        if np.any(rank > np.asarray(d)):
            raise ValueError(
                f"(kappa, nu, theta, eta, rho) is not realisable in dimension d={_fmt(d)}: the Gram matrix of "
                f"(k, v, k*, v*) has rank {int(np.max(rank))} > d"
            )
    return tuple(np.asarray(v, dtype=float) for v in vals)


def probability_vector(name: str, p, L) -> np.ndarray:
    """A law of J0 on {1..L}: length L, entries >= 0, summing to 1 (to 1e-12)."""
    arr = as_finite(name, p)
    if arr.ndim != 1 or arr.shape[0] != int(L):
        raise ValueError(f"{name} must be a vector of length L={int(L)}, got shape {arr.shape}")
    if np.any(arr < 0):
        raise ValueError(f"{name} must have non-negative entries, got {p!r}")
    if abs(arr.sum() - 1.0) > 1e-12:
        raise ValueError(f"{name} must sum to 1, got sum {arr.sum()!r}")
    return arr


def unit_vectors(name: str, x, *, tol: float = 1e-8) -> np.ndarray:
    """Array of shape (d,) or (runs, d) whose rows have unit Euclidean norm."""
    arr = as_finite(name, x)
    if arr.ndim not in (1, 2) or arr.shape[-1] < 1:
        raise ValueError(f"{name} must have shape (d,) or (runs, d), got {arr.shape}")
    norms = np.linalg.norm(arr, axis=-1)
    if np.any(np.abs(norms - 1) > tol):
        raise ValueError(f"{name} must be unit vectors (|{name}| = 1), got norms {norms!r}")
    return arr


def scalars_ok(*values) -> bool:
    """True when every value is a plain finite Python float or int (not bool): the public API's
    fast scalar path; anything else goes through the array validators (which raise)."""
    for x in values:
        t = type(x)
        if (t is not float and t is not int) or not math.isfinite(x):
            return False
    return True


def overlaps_ok_scalar(kappa, nu, theta, eta, rho, d) -> bool:
    """The conditions of :func:`overlaps` for one tuple of floats; False means: call
    :func:`overlaps`, which raises with the precise reason."""
    if max(abs(kappa), abs(nu), abs(theta), abs(eta), abs(rho)) > 1 + GRAM_TOL:
        return False
    lo, hi = schur_eigenvalues(kappa, nu, theta, eta, rho)
    if lo < -GRAM_TOL:
        return False
    return 2 + (lo > GRAM_TOL) + (hi > GRAM_TOL) <= d
