"""The certificates' arguments, validated with the model's vocabulary (:mod:`slr_verify.model.validation`)
before any ball is built: a lam interval, the ball precision, the subdivision ratio and radius, the
branch-and-bound budget, and the model's parameters (scalars)."""
from __future__ import annotations

from ..model import validation as V
from ..model.params import SUPPORTED_MAX, ModelSetting


def lam_interval(lam) -> tuple:
    """(lo, hi) with 0 < lo <= hi <= the supported lam (a single lam is (x, x))."""
    return V.interval("lam", lam, minimum=0.0, strict_min=True, maximum=SUPPORTED_MAX["lam"], degenerate=True)


def precision(prec) -> int:
    """Bits of the arb balls: 53 (float64) to 10000."""
    return V.integer("prec", prec, 53, 10_000, why="bits of ball precision")


def ratio(x) -> float:
    """Relative width of a lam piece, in (0, 1]."""
    return V.real("ratio", x, minimum=0.0, strict_min=True, maximum=1.0, why="relative width of a lam piece")


def radius(r) -> float:
    """Half-width of the Krawczyk box around (0, 0), in (0, 0.5]."""
    return V.real("r", r, minimum=0.0, strict_min=True, maximum=0.5, why="half-width of the box around (0, 0)")


def budget(n, name="budget") -> int:
    """Boxes the branch and bound may visit: 1 to 10^8."""
    return V.integer(name, n, 1, 10**8, why="boxes of the branch and bound")


#: the largest d and L a proof takes: a certificate writes its setting's integers as JSON numbers and the search
#: makes its choices in float64, both exact for integers up to 2^53 only
EXACT_MAX = 2**53


def setting(*, gamma, eps=0.0, d, L) -> ModelSetting:
    """The model's setting of a proof: a :class:`~slr_verify.model.params.ModelSetting` (its checks) with d and L at
    most :data:`EXACT_MAX`."""
    s = ModelSetting(gamma=gamma, eps=eps, d=d, L=L)
    for name, x in (("d", s.d), ("L", s.L)):
        if x > EXACT_MAX:
            raise ValueError(f"{name} must be at most 2^53 = {EXACT_MAX} for a proof (a certificate's integers are exact "
                             f"floats), got {x:g}")
    return s


def model(lam, gamma, eps, d, L) -> tuple:
    """(lam, gamma, eps, d, L) as Python numbers: the setting (:func:`setting`) and lam > 0 within its range (a single
    number)."""
    s = setting(gamma=gamma, eps=eps, d=d, L=L)
    return s.at(lam).lam, s.gamma, s.eps, int(s.d), int(s.L)
