"""The model's parameters (lam, gamma, eps, d, L), validated in one place (`docs/MATH.md` §1-2).

* lam > 0     the inverse temperature of the erf attention (paper, Section 2);
* gamma > 0   the noise scale of the relevant token;
* eps >= 0    the standard deviation of the label noise xi;
* d >= 2      the token dimension (orthonormal k*, v* need d >= 2, Assumption 1);
* L >= 1      the number of tokens.

Supported ranges (:data:`SUPPORTED_MAX`): lam, gamma <= 1e20, eps <= 1e100, d <= 1e200 and
L <= 1e30. In that box the float64 risk and its gradient are finite at every corner and at the
bottom of the positive floats (measured: all 3^5 corners of {tiny, default, max}, five overlap
tuples, scalars and arrays); beyond it some product (lam^2 d, gamma^4, d^2 in the gradient)
overflows. Larger values raise ``ValueError`` naming the parameter and the range rather than
overflowing or returning NaN; the limits are the same for every route and runner.

:func:`check_params` validates array-valued parameters (they broadcast); :class:`Params` is one
scalar setting, the type the experiments, the claims and the runners pass around.
"""
from __future__ import annotations

import functools
import inspect
from dataclasses import asdict, dataclass, replace

import numpy as np

from . import validation as V

#: k* and v* are orthonormal (Assumption 1): they exist only when d >= 2.
D_MIN = 2

#: The upper ends of the supported ranges (module docstring): beyond them float64 overflows.
SUPPORTED_MAX = {"lam": 1e20, "gamma": 1e20, "eps": 1e100, "d": 1e200, "L": 1e30}
_WHY = "float64 overflows beyond it"


def check_params(lam, gamma, eps=0.0, d=None, L=None):
    """Validate (lam, gamma, eps, d, L) (numbers or broadcastable arrays) and return them as
    float64 arrays; ``ValueError`` names the parameter and the broken constraint. eps defaults to 0
    (as everywhere in the API); d and L have no default (None is refused)."""
    if d is None or L is None:
        raise ValueError(f"d and L are required, got d={d!r}, L={L!r}")
    out = (
        V.positive("lam", lam),
        V.positive("gamma", gamma),
        V.nonnegative("eps", eps),
        V.integer("d", d, D_MIN, arrays=True),
        V.integer("L", L, 1, arrays=True),
    )
    for name, x in zip(("lam", "gamma", "eps", "d", "L"), out):
        V.at_most(name, x, SUPPORTED_MAX[name], _WHY)
    return out


def params_ok_scalar(lam, gamma, eps, d, L) -> bool:
    """The conditions of :func:`check_params` for finite Python numbers (already checked by
    ``validation.scalars_ok``); False means: call :func:`check_params`, which raises."""
    M = SUPPORTED_MAX
    return (0 < lam <= M["lam"] and 0 < gamma <= M["gamma"] and 0 <= eps <= M["eps"] and D_MIN <= d <= M["d"]
            and d == int(d) and 1 <= L <= M["L"] and L == int(L))


def gamma_of(gamma=None, gamma2=None):
    """gamma from exactly one of ``gamma`` (the signal's standard deviation) and ``gamma2`` (its variance, as the
    paper and the command line state it: gamma = sqrt(gamma2)); ``ValueError`` if both or neither are given."""
    if (gamma is None) == (gamma2 is None):
        raise ValueError("give exactly one of gamma (the standard deviation) and gamma2 (the variance, gamma^2), got "
                         + ("both" if gamma is not None else "neither"))
    if gamma is not None:
        return gamma
    g2 = V.positive("gamma2", gamma2)
    return float(np.sqrt(g2)) if np.ndim(g2) == 0 else np.sqrt(g2)


def accepts_gamma2(func):
    """Let ``func`` (keyword ``gamma``) take ``gamma2=`` instead (:func:`gamma_of`: exactly one of them), and refuse
    an unknown keyword with a ``ValueError`` naming it (not Python's ``TypeError``)."""
    known = set(inspect.signature(func).parameters)

    @functools.wraps(func)
    def wrapper(*args, **kw):
        _refuse_unknown(func, kw, known, extra=("gamma2",))
        if "gamma2" in kw:
            kw["gamma"] = gamma_of(kw.pop("gamma", None), kw.pop("gamma2"))
        return func(*args, **kw)

    return wrapper


def keywords_checked(func):
    """``func`` refusing an unknown keyword with a ``ValueError`` naming it (not Python's ``TypeError``); for the
    public functions that take no gamma (those that do: :func:`accepts_gamma2`). A function with a ``**`` catch-all is
    returned unchanged: it forwards its keywords to one that checks them."""
    params = inspect.signature(func).parameters
    if any(p.kind is p.VAR_KEYWORD for p in params.values()):
        return func
    known = set(params)

    @functools.wraps(func)
    def wrapper(*args, **kw):
        _refuse_unknown(func, kw, known)
        return func(*args, **kw)

    return wrapper


def _refuse_unknown(func, kw, known, extra=()):
    unknown = sorted(set(kw) - known - set(extra))
    if unknown:
        also = ", and gamma2 for gamma" if "gamma2" in extra else ""
        name = func.__qualname__.removesuffix(".__init__") if func.__name__ == "__init__" else func.__name__
        raise ValueError(f"{name}() has no keyword {unknown[0]!r} (it takes {', '.join(sorted(known - {'self'}))}{also})")


def _scalar(name, arr):
    if np.ndim(arr) != 0:
        raise ValueError(f"{name} must be a single number, got shape {np.shape(arr)}")
    return float(arr)


@dataclass(frozen=True)
class Params:
    """One setting of the model: ``Params(lam=0.1, gamma=0.5**0.5, eps=0.0, d=400, L=10)`` (or ``gamma2=0.5``).

    Validated on construction (scalars only); ``kw()`` gives the keyword arguments of the
    public functions, ``replace(lam=...)`` a modified copy.
    """

    lam: float
    gamma: float
    eps: float
    d: int
    L: int

    @keywords_checked
    def __init__(self, lam, gamma=None, eps=0.0, d=None, L=None, *, gamma2=None):
        """``gamma2=`` may replace ``gamma`` (exactly one of them); eps defaults to 0; d and L are required."""
        if d is None or L is None:
            raise ValueError(f"d and L are required, got d={d!r}, L={L!r}")
        for name, value in (("lam", lam), ("gamma", gamma_of(gamma, gamma2)), ("eps", eps), ("d", d), ("L", L)):
            object.__setattr__(self, name, value)
        self.__post_init__()

    def __post_init__(self):
        vals = check_params(self.lam, self.gamma, self.eps, self.d, self.L)
        for name, arr in zip(("lam", "gamma", "eps", "d", "L"), vals):
            x = _scalar(name, arr)
            object.__setattr__(self, name, V.count_value(x) if name in ("d", "L") else x)

    def kw(self, *, eps=True) -> dict:
        """The parameters as keyword arguments (without eps when ``eps=False``)."""
        out = asdict(self)
        if not eps:
            out.pop("eps")
        return out

    def replace(self, **changes) -> "Params":
        return replace(self, **changes)

    def label(self) -> str:
        return "lam=%g gamma^2=%g eps=%g d=%d L=%d" % (self.lam, self.gamma**2, self.eps, self.d, self.L)


@dataclass(frozen=True)
class ParamBox:
    """A box of settings to draw random ones from: float ranges uniform, integer ranges uniform
    on [lo, hi] inclusive. ``text`` states the box (the domain of a randomised check)."""

    lam: tuple = (0.05, 2.0)
    gamma: tuple = (0.2, 1.5)
    eps: tuple = (0.0, 0.5)
    d: tuple = (4, 1999)
    L: tuple = (1, 29)

    def draw(self, rng) -> dict:
        """One setting as keyword arguments (drawn in the order lam, gamma, eps, d, L)."""
        out = {k: float(rng.uniform(*getattr(self, k))) for k in ("lam", "gamma", "eps")}
        out.update({k: int(rng.integers(getattr(self, k)[0], getattr(self, k)[1] + 1)) for k in ("d", "L")})
        return out

    @property
    def text(self) -> str:
        return ", ".join(f"{k} in [{getattr(self, k)[0]:g}, {getattr(self, k)[1]:g}]" for k in ("lam", "gamma", "eps", "d", "L"))
