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
import numbers

import numpy as np

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


_FLOAT_MAX = float(np.finfo(float).max)


def _short(value, limit=80):
    """repr(value), cut to ``limit`` characters (huge integers, long arrays)."""
    text = repr(value)
    return text if len(text) <= limit else text[: limit - 3] + "..."


def _refuse_non_real_scalar(name: str, value) -> None:
    """Raise ValueError if ``value`` is a bool, string, bytes, None, complex, or an int beyond float64's range."""
    if isinstance(value, (bool, np.bool_)):
        raise ValueError(f"{name} must be a real number, got a bool ({value!r})")
    if isinstance(value, (str, bytes)):
        raise ValueError(f"{name} must be a real number, got a string ({value!r})")
    if value is None:
        raise ValueError(f"{name} must be a real number, got None")
    if isinstance(value, (complex, np.complexfloating)):
        raise ValueError(f"{name} must be a real number, got a complex number ({value!r})")
    if type(value) is int and abs(value) > _FLOAT_MAX:
        raise ValueError(f"{name} = {_short(value)} is too large for float64 (|{name}| must be below 1.8e308)")


def _refuse_non_real_array(name: str, value, raw: np.ndarray) -> None:
    """Raise ValueError if ``raw`` (``value`` as an array) holds booleans, complex numbers or non-numbers."""
    kind = raw.dtype.kind
    if kind == "b":
        raise ValueError(f"{name} must be real numbers, got a boolean array ({value!r})")
    if kind == "c":
        raise ValueError(f"{name} must be real numbers, got a complex array ({value!r})")
    if kind == "O":  # Python numbers (Fraction, mpmath.mpf, ...): each must be real, not bool/str
        if any(isinstance(x, (bool, np.bool_, str, bytes, complex)) or x is None for x in raw.flat):
            raise ValueError(f"{name} must be real numbers, got {_short(value)}")
        if any(isinstance(x, numbers.Integral) and abs(int(x)) > _FLOAT_MAX for x in raw.flat):
            raise ValueError(f"{name} has entries too large for float64 (|{name}| must be below 1.8e308)")
    elif kind not in "iuf":
        raise ValueError(f"{name} must be a real number or an array of real numbers, got {value!r} (dtype {raw.dtype})")


def as_finite(name: str, value) -> np.ndarray:
    """Return ``value`` as a float64 array, or raise if it is not real and finite.

    Booleans, strings, bytes, complex numbers and arrays of them are rejected like their scalar
    forms (NumPy would silently coerce ``"0.5"``, ``True`` or ``[True, False]`` to floats).
    """
    _refuse_non_real_scalar(name, value)
    if type(value) is float or type(value) is int:  # the common scalar case, fast
        if not math.isfinite(value):
            raise ValueError(f"{name} must be finite (no NaN or infinity), got {value!r}")
        return np.asarray(value, dtype=float)
    try:
        raw = np.asarray(value)
    except (TypeError, ValueError, OverflowError):
        raise ValueError(f"{name} must be a real number or an array of real numbers, got {value!r}") from None
    _refuse_non_real_array(name, value, raw)
    if raw.size == 0:
        raise ValueError(f"{name} must be a real number or a non-empty array, got an empty array ({_short(value)})")
    try:
        arr = raw.astype(float, copy=False)
    except (TypeError, ValueError, OverflowError):
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


def count_value(x):
    """A validated integral value (d, L) as a Python int where NumPy's ufuncs take one (below 2^63, an int64), else as
    a float64: d and L run up to 1e200 and 1e30, and np.sqrt of a Python int beyond int64 raises TypeError."""
    v = int(x)
    return v if abs(v) < 2**63 else float(x)


def scalars_ok(*values) -> bool:
    """True when every value is a plain finite Python float or int (not bool): the public API's
    fast scalar path; anything else goes through the array validators (which raise)."""
    for x in values:
        t = type(x)
        if t is int:
            if abs(x) > _FLOAT_MAX:
                return False
        elif t is not float or not math.isfinite(x):
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


# ---------------------------------------------------------------------------------------------
# Secondary parameters: counts, single reals, options, intervals, schedules, Gram matrices
# ---------------------------------------------------------------------------------------------

def integer(name: str, value, minimum: int = 0, maximum: int | None = None, *, why: str = "", floats: bool = False,
            arrays: bool = False):
    """An integer in [minimum, maximum], the one check of every count, seed, size, precision and budget; otherwise
    ``ValueError`` naming ``name`` and the bound ("n must be an integer >= 2, got 2.5").

    By default only a Python or NumPy integer is an integer (not a bool, a float, a string or an array); it is
    returned as an int, exactly (a seed may exceed float64's range). ``floats``: a real number with an integral
    value is accepted too (``400.0``, ``1e12``, a 0-d array), as the model's d, L and sample counts may be
    written; ``2.5`` is not, and a value beyond float64's range is refused. ``arrays`` (implies ``floats``): an
    array of such values, returned as a float64 array (the broadcast parameters d and L). ``why`` states what the
    upper bound protects (memory, time, float64)."""
    bound = f">= {minimum}" if maximum is None else f"in [{minimum}, {maximum:,}]"
    if isinstance(value, (bool, np.bool_)) or not (floats or arrays or isinstance(value, numbers.Integral)):
        kind = type(value).__name__
        raise ValueError(f"{name} must be an integer {bound}, got {_short(value)} (a {kind})")
    if floats or arrays:
        arr = as_finite(name, value)
        if arr.ndim != 0 and not arrays:
            raise ValueError(f"{name} must be a single integer {bound}, got shape {arr.shape}")
        if np.any(arr != np.floor(arr)):
            raise ValueError(f"{name} must be an integer {bound}, got {_short(value)}")
        if np.any(arr < minimum) or (maximum is not None and np.any(arr > maximum)):
            raise ValueError(f"{name} must be an integer {bound}{' (' + why + ')' if why else ''}, got {_short(value)}")
        if arrays:
            return arr
        value = value if isinstance(value, numbers.Integral) else float(arr)
    v = int(value)
    if v < minimum or (maximum is not None and v > maximum):
        raise ValueError(f"{name} must be an integer {bound}{' (' + why + ')' if why else ''}, got {_short(v)}")
    return v


def real(name: str, value, *, minimum=None, maximum=None, strict_min=False, why: str = "") -> float:
    """One finite real number (not a bool, string, complex, None or array) in the stated range.

    ``strict_min``: the bound ``minimum`` itself is excluded (> instead of >=)."""
    arr = as_finite(name, value)
    if arr.ndim != 0:
        raise ValueError(f"{name} must be a single number, got shape {arr.shape}")
    x = float(arr)
    if minimum is not None and (x < minimum or (strict_min and x == minimum)):
        raise ValueError(f"{name} must be {'>' if strict_min else '>='} {minimum:g}, got {_short(value)}")
    at_most(name, x, maximum, why)
    return x


def at_most(name: str, value, maximum, why: str = ""):
    """The supported range's upper end: ``ValueError`` when any entry of ``value`` exceeds ``maximum``.

    Used where float64 stops being meaningful (the parameter's square or product with another
    overflows) or where a cost would exceed the machine; ``why`` says which."""
    if maximum is None:
        return value
    arr = np.asarray(value, dtype=float)
    if np.any(np.abs(arr) > maximum):
        worst = float(np.max(np.abs(arr)))
        raise ValueError(f"{name} = {worst:.6g} is outside the supported range |{name}| <= {maximum:.3g}"
                         + (f" ({why})" if why else ""))
    return value


def choice(name: str, value, options):
    """``value`` must be one of ``options`` (compared with ==; strings stay strings)."""
    try:
        ok = any(value == o and type(value) is type(o) for o in options)
    except Exception:  # noqa: BLE001 - arrays and odd types are simply not an option
        ok = False
    if not ok:
        raise ValueError(f"{name} must be one of {', '.join(repr(o) for o in options)}; got {_short(value)}")
    return value


def interval(name: str, value, *, minimum=None, strict_min=False, maximum=None, degenerate=False) -> tuple:
    """A pair (lo, hi) of finite reals with lo < hi (lo <= hi with ``degenerate``): a lam interval
    of a certificate, a lam range; each end in the stated range. A single number is refused."""
    if isinstance(value, (str, bytes)) or np.ndim(value) != 1 or len(value) != 2:
        raise ValueError(f"{name} must be an interval (lo, hi) of two numbers, got {_short(value)}")
    lo = real(f"{name}[0]", value[0], minimum=minimum, strict_min=strict_min, maximum=maximum)
    hi = real(f"{name}[1]", value[1], minimum=minimum, strict_min=strict_min, maximum=maximum)
    if not (lo <= hi if degenerate else lo < hi):
        raise ValueError(f"{name} must have lo {'<=' if degenerate else '<'} hi, got {_short(value)}")
    return lo, hi


def schedule_values(name: str, fn, steps: int, *, maximum=None, why: str = "") -> np.ndarray:
    """fn(t) for t = 0..steps: each a single finite real number > 0 (a bool, string, array, None,
    NaN or an exception inside ``fn`` is reported with the step where it happened)."""
    check = lambda t, v: real(f"{name}({t})", v, minimum=0.0, strict_min=True, maximum=maximum, why=why)  # noqa: E731

    def first_bad(vals):  # the Python and NumPy floats are checked at once; the first failure raises
        out = np.asarray(vals, dtype=float)
        ok = np.isfinite(out) & (out > 0.0)
        if maximum is not None:
            ok &= np.abs(out) <= maximum
        if not ok.all():
            t = int(np.argmin(ok))
            check(t, vals[t])
        return out

    vals = []
    for t in range(steps + 1):
        try:
            v = fn(t)
        except Exception as exc:  # noqa: BLE001 - the user's schedule: say where it failed
            first_bad(vals)  # an earlier bad value is reported first, as step by step
            raise ValueError(f"{name}({t}) raised {type(exc).__name__}: {exc}") from exc
        if type(v) is not float and not isinstance(v, np.floating):
            try:
                v = check(t, v)
            except ValueError:
                first_bad(vals)
                raise
        vals.append(v)
    return first_bad(vals)


def gram(name: str, G, *, d=None, tol: float = 1e-8) -> np.ndarray:
    """Gram matrices of unit vectors, shape (n, n) or (runs, n, n): symmetric, unit diagonal,
    entries in [-1, 1], positive semidefinite (smallest eigenvalue >= -tol) and of rank <= d
    (the vectors live in R^d)."""
    arr = as_finite(name, G)
    if arr.ndim not in (2, 3) or arr.shape[-1] != arr.shape[-2]:
        raise ValueError(f"{name} must be a square matrix (n, n) or a stack (runs, n, n), got shape {arr.shape}")
    if np.any(np.abs(arr - np.swapaxes(arr, -1, -2)) > tol):
        raise ValueError(f"{name} must be symmetric")
    if np.any(np.abs(np.diagonal(arr, axis1=-2, axis2=-1) - 1) > tol):
        raise ValueError(f"{name} must have a unit diagonal (Gram matrix of unit vectors)")
    if np.any(np.abs(arr) > 1 + tol):
        raise ValueError(f"{name} holds inner products of unit vectors: its entries must lie in [-1, 1], "
                         f"got {float(np.max(np.abs(arr))):.6g}")
    eig = np.linalg.eigvalsh(arr)
    if np.any(eig[..., 0] < -tol):
        raise ValueError(f"{name} must be positive semidefinite (a Gram matrix), got smallest eigenvalue "
                         f"{float(np.min(eig[..., 0])):.3g}")
    if d is not None:
        rank = np.sum(eig > tol * arr.shape[-1], axis=-1)
        if np.any(rank > d):
            raise ValueError(f"{name} has rank {int(np.max(rank))} > d = {_fmt(d)}: its vectors cannot live in R^d")
    return arr


def broadcast(**arrays) -> tuple:
    """The common broadcast shape of the named arrays, or ``ValueError`` naming each with its shape."""
    try:
        return np.broadcast_shapes(*(np.shape(x) for x in arrays.values()))
    except ValueError:
        raise ValueError(", ".join(arrays) + " must have broadcast-compatible shapes, got "
                         + ", ".join(f"{n} {np.shape(x)}" for n, x in arrays.items())) from None
