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

The model's setting (gamma, eps, d, L) is one value, :class:`ModelSetting`: validated on construction (the one
statement of the constraints above, :func:`_check_model`), built once where a setting enters (the command line, a
public function, a claim) and passed down; it gives its arb balls as one named record (:meth:`ModelSetting.balls`,
made by :func:`slr_verify.checker.balls.param_balls`). :class:`Params` is lam with a setting (lam is not a model
parameter: the statements range over it). :func:`check_params` validates array-valued parameters for the public
functions that broadcast (``risk(..., lam=array, d=array)``): the same constraints, elementwise.

d: the model needs d >= 2 (:data:`D_MIN`, Assumption 1); a statement that needs more has its minimum in
:data:`D_MINIMUMS` (one per statement, with the reason) and checks it with :meth:`ModelSetting.require_d`.
"""
from __future__ import annotations

import functools
import inspect
import math
import numbers
from dataclasses import asdict, dataclass, field, replace

import numpy as np

from . import validation as V

#: k* and v* are orthonormal (Assumption 1): they exist only when d >= 2.
D_MIN = 2

#: Each statement's minimum of d and the reason (:meth:`ModelSetting.require_d`); every other statement is the
#: model's (d >= :data:`D_MIN`).
D_MINIMUMS = {
    "model": (D_MIN, "the model (Assumption 1: orthonormal k*, v*)"),
    "profile": (4, "the profile's reduction (docs/MATH.md §17: k on k*, v*, e and v on k*, v*, e, e', four orthonormal "
                   "directions)"),
    "landscape": (4, "the landscape in overlaps (k*, v*, k, v span up to four dimensions: stationary points, Hessians)"),
    "certificate": (4, "a proof certificate (the checker's model: docs/certificates.md)"),
    "sphere-sweep": (4, "a sphere-initialised sweep (its runs start off span(k*, v*) in four dimensions)"),
}

#: The upper ends of the supported ranges (module docstring): beyond them float64 overflows.
SUPPORTED_MAX = {"lam": 1e20, "gamma": 1e20, "eps": 1e100, "d": 1e200, "L": 1e30}
_WHY = "float64 overflows beyond it"


#: the constraint of each parameter (module docstring), the one statement of them; the upper ends: SUPPORTED_MAX
_RULES = {"lam": V.positive, "gamma": V.positive, "eps": V.nonnegative,
          "d": lambda name, x: V.integer(name, x, D_MIN, arrays=True),
          "L": lambda name, x: V.integer(name, x, 1, arrays=True)}


def checked(**values) -> tuple:
    """The parameters given (any of lam, gamma, eps, d, L, by name: a function validates those it takes, no dummy
    for the others), numbers or broadcastable arrays, checked against :data:`_RULES` and :data:`SUPPORTED_MAX` and
    returned as float64 arrays in the order given; ``ValueError`` names the parameter and the constraint it breaks.
    The constructor of :class:`ModelSetting` and :func:`check_params` check through it."""
    out = tuple(_RULES[name](name, x) for name, x in values.items())
    for name, x in zip(values, out):
        V.at_most(name, x, SUPPORTED_MAX[name], _WHY)
    return out


def scalars(**values) -> tuple:
    """The parameters given (by name, as :func:`checked`) as single Python numbers: floats, d and L ints;
    ``ValueError`` naming the parameter and its constraint, or naming one given as an array."""
    out = []
    for (name, v), x in zip(values.items(), checked(**values)):
        if x.ndim != 0:
            raise ValueError(f"{name} must be a single number, got shape {x.shape}")
        out.append((int(v) if isinstance(v, numbers.Integral) else int(x)) if name in ("d", "L") else float(x))
    return tuple(out)


def _check_model(gamma, eps, d, L) -> tuple:
    """gamma, eps, d, L checked (:func:`checked`); d and L required."""
    if d is None or L is None:
        raise ValueError(f"d and L are required, got d={d!r}, L={L!r}")
    return checked(gamma=gamma, eps=eps, d=d, L=L)


def check_params(lam, gamma, eps=0.0, d=None, L=None):
    """Validate (lam, gamma, eps, d, L) (numbers or broadcastable arrays: the public functions that broadcast) and
    return them as float64 arrays (:func:`checked`: the constraints of :class:`ModelSetting` and lam > 0,
    elementwise). eps defaults to 0 (as everywhere in the API); d and L have no default."""
    if d is None or L is None:
        raise ValueError(f"d and L are required, got d={d!r}, L={L!r}")
    return checked(lam=lam, gamma=gamma, eps=eps, d=d, L=L)


def params_ok_scalar(lam, gamma, eps, d, L) -> bool:
    """The conditions of :func:`check_params` for finite Python numbers (already checked by
    ``validation.scalars_ok``); False means: call :func:`check_params`, which raises."""
    M = SUPPORTED_MAX
    return (0 < lam <= M["lam"] and 0 < gamma <= M["gamma"] and 0 <= eps <= M["eps"] and D_MIN <= d <= M["d"]
            and d == int(d) and 1 <= L <= M["L"] and L == int(L))


#: what gamma is, in one wording (the command line's ``--gamma2`` help and the docstrings say it from here)
GAMMA2_MEANING = "gamma^2, the variance of the relevant token's noise (the paper's parameter)"


def require_d(d, statement: str) -> bool:
    """True if the integer d is at least ``statement``'s minimum (:data:`D_MINIMUMS`); else ``ValueError`` naming d,
    the minimum and the reason."""
    minimum, why = D_MINIMUMS[statement]
    if d < minimum:
        raise ValueError(f"d must be >= {minimum} for {why}, got d = {d}")
    return True


def gamma_of(gamma=None, gamma2=None):
    """gamma from exactly one of ``gamma`` (the standard deviation of the relevant token's noise) and ``gamma2`` (its
    variance, as the paper and the command line state it: gamma = sqrt(gamma2), the one place gamma^2 becomes gamma);
    ``ValueError`` if both or neither are given, or gamma2 is not > 0 within its range (1e40, gamma's squared)."""
    if (gamma is None) == (gamma2 is None):
        raise ValueError("give exactly one of gamma (the standard deviation) and gamma2 (the variance, gamma^2), got "
                         + ("both" if gamma is not None else "neither"))
    if gamma is not None:
        return gamma
    g2 = V.at_most("gamma2", V.positive("gamma2", gamma2), SUPPORTED_MAX["gamma"] ** 2, _WHY)
    return math.sqrt(float(g2)) if np.ndim(g2) == 0 else np.sqrt(g2)


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
    known = {n for n, p in params.items() if p.kind is not p.VAR_POSITIONAL}

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
class ModelSetting:
    """The model's setting (`docs/MATH.md` §1-2, Assumption 1): ``ModelSetting(gamma2=0.5, eps=0.0, d=400, L=10)``
    (Figure 4b: :data:`slr_verify.model.settings.FIGURE_4B`), or ``gamma=`` the standard deviation instead of gamma2
    (exactly one). Keywords only; eps defaults to 0, d and L are required. Validated on construction (scalars:
    :func:`_check_model`, ``ValueError`` naming the parameter and the constraint); immutable; equal settings have
    equal gamma, eps, d, L (``gamma2`` is the variance as given, or gamma^2).

    ``balls()``: the arb balls of the setting as a named record (:class:`slr_verify.checker.balls.ParamBalls`);
    ``kw()``: gamma, eps, d, L as keyword arguments; ``at(lam)``: the :class:`Params` at an inverse temperature;
    ``require_d(statement)``: a statement's own minimum of d (:data:`D_MINIMUMS`)."""

    gamma: float
    eps: float
    d: int
    L: int
    gamma2: float = field(compare=False)

    @keywords_checked
    def __init__(self, *args, gamma=None, gamma2=None, eps=0.0, d=None, L=None):
        if args:
            raise ValueError(f"ModelSetting takes keywords only (gamma2= or gamma=, eps=, d=, L=), got {len(args)} "
                             "positional argument(s)")
        vals = _check_model(gamma_of(gamma, gamma2), eps, d, L)
        for name, arr in zip(("gamma", "eps", "d", "L"), vals):
            x = _scalar(name, arr)
            object.__setattr__(self, name, V.count_value(x) if name in ("d", "L") else x)
        object.__setattr__(self, "gamma2", self.gamma * self.gamma if gamma2 is None else _scalar("gamma2", gamma2))

    def balls(self):
        """The setting's arb balls (gamma, eps, d, L), by :func:`slr_verify.checker.balls.param_balls` (the one
        function of their convention), at the working precision of python-flint's context."""
        from ..checker.balls import param_balls

        return param_balls(self.gamma, self.eps, self.d, self.L)

    def kw(self, *, eps=True) -> dict:
        """gamma, eps, d, L as keyword arguments (without eps when ``eps=False``)."""
        return dict(gamma=self.gamma, eps=self.eps, d=self.d, L=self.L) if eps else dict(gamma=self.gamma, d=self.d, L=self.L)

    def at(self, lam) -> "Params":
        """The :class:`Params` (lam and this setting) at the inverse temperature ``lam`` (validated there)."""
        return Params(lam, self.gamma, self.eps, self.d, self.L)

    def replace(self, **changes) -> "ModelSetting":
        """A modified copy, validated (``gamma2=`` replaces gamma)."""
        kw = dict(gamma=self.gamma, eps=self.eps, d=self.d, L=self.L)
        if "gamma2" in changes:
            kw.pop("gamma")
        return ModelSetting(**{**kw, **changes})

    def require_d(self, statement: str) -> "ModelSetting":
        """Itself if d is at least the minimum :data:`D_MINIMUMS` states for ``statement``; else ``ValueError`` naming
        d, the minimum and the reason."""
        return require_d(self.d, statement) and self

    def label(self) -> str:
        return "gamma^2=%g eps=%g d=%d L=%d" % (self.gamma2, self.eps, self.d, self.L)


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

    @property
    def setting(self) -> ModelSetting:
        """The model's setting without lam."""
        return ModelSetting(gamma=self.gamma, eps=self.eps, d=self.d, L=self.L)

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
