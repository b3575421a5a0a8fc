r"""First-order Taylor models on arb balls, f(c + h) in v + sum_i g_i h_i + R (`docs/MATH.md` §17, "Taylor
models"; `docs/certificates.md`, "The checker, module by module").
"""
from __future__ import annotations

from flint import arb, arb_series

_PM1 = arb(0, 1)  # [-1, 1]


def _ball(x):
    return x if isinstance(x, arb) else arb(x)


class TaylorModel:
    """(v, g, R) over the radii r (see the module); v, R and the g_i are arb balls, r a tuple of floats."""

    __slots__ = ("v", "g", "R", "r", "_ra", "_lr")

    def __init__(self, v, g, R, r):
        self.v, self.g, self.R, self.r = _ball(v), tuple(_ball(x) for x in g), _ball(R), tuple(r)
        self._ra, self._lr = tuple(arb(x) for x in self.r), None

    def _new(self, v, g, R):
        """A model over the same radii from balls (no conversion: the arithmetic below builds balls only)."""
        out = object.__new__(TaylorModel)
        out.v, out.g, out.R, out.r, out._ra, out._lr = v, g, R, self.r, self._ra, None
        return out

    @classmethod
    def variable(cls, c, i, r):
        """The coordinate x_i = c + h_i over the radii r."""
        return cls(c, [arb(1) if j == i else arb(0) for j in range(len(r))], arb(0), r)

    def _const(self, x):
        return self._new(_ball(x), tuple(arb(0) for _ in self.r), arb(0))

    def linear_range(self):
        """A ball [-s, s] containing g . h for every |h_i| <= r_i."""
        if self._lr is None:
            s = arb(0)
            for gi, ri in zip(self.g, self._ra):
                s = s + abs(gi) * ri
            self._lr = _PM1 * s
        return self._lr

    def range(self):
        """An enclosure of f over the box."""
        return self.v + self.linear_range() + self.R

    def __add__(self, o):
        if not isinstance(o, TaylorModel):  # a constant: the gradient and the remainder are unchanged
            return self._new(self.v + _ball(o), self.g, self.R)
        return self._new(self.v + o.v, tuple(a + b for a, b in zip(self.g, o.g)), self.R + o.R)

    __radd__ = __add__

    def __neg__(self):
        return self._new(-self.v, tuple(-a for a in self.g), -self.R)

    def __sub__(self, o):
        if not isinstance(o, TaylorModel):
            return self._new(self.v - _ball(o), self.g, self.R)
        return self._new(self.v - o.v, tuple(a - b for a, b in zip(self.g, o.g)), self.R - o.R)

    def __rsub__(self, o):
        return self._new(_ball(o) - self.v, tuple(-a for a in self.g), -self.R)

    def __mul__(self, o):
        if not isinstance(o, TaylorModel):
            o = _ball(o)
            return self._new(self.v * o, tuple(a * o for a in self.g), self.R * o)
        # (l1 + r1)(l2 + r2) + v1 r2 + v2 r1 with l_i = g_i . h: the four products of the expansion, in one
        R = (self.linear_range() + self.R) * (o.linear_range() + o.R) + self.v * o.R + o.v * self.R
        return self._new(self.v * o.v, tuple(self.v * b + o.v * a for a, b in zip(self.g, o.g)), R)

    __rmul__ = __mul__

    def reciprocal(self):
        U = self.linear_range() + self.R
        W = self.v + U
        if not (W > 0 or W < 0):
            raise ZeroDivisionError("a Taylor model's range contains 0")
        v2 = self.v * self.v
        U2 = abs(U) * abs(U)
        return self._new(1 / self.v, tuple(-a / v2 for a in self.g), -self.R / v2 + U2 / (v2 * W))

    def __truediv__(self, o):
        if not isinstance(o, TaylorModel):
            return self * (1 / _ball(o))
        return self * o.reciprocal()

    def __rtruediv__(self, o):
        return self.reciprocal() * _ball(o)

    def __pow__(self, n):
        if not isinstance(n, int):
            raise TypeError("a Taylor model takes integer powers only")
        if n < 0:
            return (self ** (-n)).reciprocal()
        if n == 0:
            return self._const(1)
        out = self
        for _ in range(n - 1):
            out = out * self
        return out

    def __repr__(self):
        return f"TaylorModel(v={self.v}, g={self.g}, R={self.R}, r={self.r})"


def series_coef(s, k) -> arb:
    """The coefficient k of the arb_series s (a ball that is not a series: itself for k = 0, else 0)."""
    if not isinstance(s, arb_series):
        return s if k == 0 else arb(0)
    c = s.coeffs()
    return c[k] if k < len(c) else arb(0)
