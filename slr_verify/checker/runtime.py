r"""What the generated ball kernels call, on arb balls, ``arb_series`` and :class:`~.taylor.TaylorModel`
(`docs/certificates.md`, "The checker, module by module"; `docs/MATH.md` §14).
"""
from __future__ import annotations

from flint import arb, arb_series

from .taylor import TaylorModel

#: what the generated kernels may call (the arb kernels' namespace, :data:`slr_verify.kernels.arb.NAMESPACE`)
CALLABLE = ("arb", "as_ball", "is_series", "ball_ipow", "ball_sqrt", "ball_exp", "ball_erf", "ball_erfc", "ball_asin",
           "ball_log", "ball_cos", "ball_sin", "ball_pow")


def as_ball(x):
    return x if isinstance(x, arb) else arb(x)


def is_series(x) -> bool:
    return isinstance(x, (arb_series, TaylorModel))


def ball_ipow(b, n):
    """b**n for an integer n by products; an even power of a ball takes |b| first (sound, not tight: around 0 the
    product of |b| with itself still dips below 0; the committed certificates were written with exactly this
    arithmetic, and at least one, Proposition 9's, passes by a margin a tighter square changes)."""
    if n == 2 and type(b) is arb:  # the common case, without the loop
        b = abs(b)
        return b * b
    if is_series(b):
        if n < 0:
            return 1 / ball_ipow(b, -n)
        out = b
        for _ in range(n - 1):
            out = out * b
        return out if n else b * 0 + 1
    b = as_ball(b)
    if n < 0:
        return 1 / ball_ipow(b, -n)
    base, out = (abs(b) if n % 2 == 0 else b), arb(1)
    for _ in range(n):
        out = out * base
    return out


def _unary(name, monotone):
    """The function ``name`` of arb and arb_series; on a ball of positive radius the hull of its two ends if
    ``monotone``."""
    method = getattr(arb, name)

    def f(x):
        if type(x) is not arb:
            if isinstance(x, arb_series):
                return getattr(x, name)()
            x = arb(x)
        if monotone and not x.is_exact() and x.is_finite():
            return method(x.lower()).union(method(x.upper()))
        return method(x)

    f.__name__ = f"ball_{name}"
    return f


ball_sqrt = _unary("sqrt", False)
ball_exp, ball_erf, ball_erfc = _unary("exp", True), _unary("erf", True), _unary("erfc", True)
ball_asin, ball_log = _unary("asin", True), _unary("log", True)
ball_cos, ball_sin = _unary("cos", False), _unary("sin", False)


def ball_pow(b, x):
    """b**x for a non-integer x: exp(x log b) on series, arb's power on balls (not finite where b may be <= 0)."""
    return (b.log() * x).exp() if isinstance(b, arb_series) else as_ball(b) ** as_ball(x)
