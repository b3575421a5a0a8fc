r"""First-order Taylor models on arb balls (`docs/MATH.md` §17, the branch and bound's second stage).

A Taylor model of f over the box :math:`\{c + h : |h_i| \le r_i\}` is a triple (v, g, R) of balls with

.. math::

    f(c + h) \in v + \sum_i g_i h_i + R \qquad \text{for every } |h_i| \le r_i .

Sums and products keep the linear part exact and push only second-order terms into R, so an
expression whose terms cancel to first order (det M = a_tt a_rr - a_tr^2, or the dual bound's
fractions) is enclosed to O(r^2) instead of the O(r * cancellation) of plain balls (the dependency
problem). The reciprocal uses the exact identity

.. math::

    \frac{1}{v + u} = \frac{1}{v} - \frac{u}{v^2} + \frac{u^2}{v^2 (v + u)},

with u = g h + R ranging over the ball U: the first two terms give the linear part, the rest goes
into R (it needs v + U away from 0). The generated kernels of :func:`.arb.generate_arb` with
``series=True`` take Taylor models wherever they take ``arb_series`` (rational operations only).
"""
from __future__ import annotations

from flint import arb

__all__ = ["TaylorModel"]

_PM1 = arb(0, 1)  # [-1, 1]


def _ball(x):
    return x if isinstance(x, arb) else arb(x)


class TaylorModel:
    """(v, g, R) over the radii r (see the module); v, R and the g_i are arb balls, r a tuple of floats."""

    __slots__ = ("v", "g", "R", "r")

    def __init__(self, v, g, R, r):
        self.v, self.g, self.R, self.r = _ball(v), tuple(_ball(x) for x in g), _ball(R), tuple(r)

    @classmethod
    def variable(cls, c, i, r):
        """The coordinate x_i = c + h_i over the radii r."""
        return cls(c, [arb(1) if j == i else arb(0) for j in range(len(r))], arb(0), r)

    def _const(self, x):
        return TaylorModel(x, [arb(0)] * len(self.r), arb(0), self.r)

    def _lift(self, x):
        return x if isinstance(x, TaylorModel) else self._const(x)

    def linear_range(self):
        """A ball [-s, s] containing g . h for every |h_i| <= r_i."""
        s = sum((abs(gi) * arb(ri) for gi, ri in zip(self.g, self.r)), arb(0))
        return _PM1 * s

    def range(self):
        """An enclosure of f over the box."""
        return self.v + self.linear_range() + self.R

    def terms(self):
        """Upper bounds of |g_i| r_i (the linear part's width along each axis) and of |R|."""
        return [float((abs(gi) * arb(ri)).upper()) for gi, ri in zip(self.g, self.r)], float(abs(self.R).upper())

    def __add__(self, o):
        o = self._lift(o)
        return TaylorModel(self.v + o.v, [a + b for a, b in zip(self.g, o.g)], self.R + o.R, self.r)

    __radd__ = __add__

    def __neg__(self):
        return TaylorModel(-self.v, [-a for a in self.g], -self.R, self.r)

    def __sub__(self, o):
        return self + (-self._lift(o))

    def __rsub__(self, o):
        return self._lift(o) - self

    def __mul__(self, o):
        if not isinstance(o, TaylorModel):
            o = _ball(o)
            return TaylorModel(self.v * o, [a * o for a in self.g], self.R * o, self.r)
        L1, L2 = self.linear_range(), o.linear_range()
        R = L1 * L2 + L1 * o.R + L2 * self.R + self.v * o.R + o.v * self.R + self.R * o.R
        return TaylorModel(self.v * o.v, [self.v * b + o.v * a for a, b in zip(self.g, o.g)], R, self.r)

    __rmul__ = __mul__

    def reciprocal(self):
        U = self.linear_range() + self.R
        W = self.v + U
        if not (W > 0 or W < 0):
            raise ZeroDivisionError("a Taylor model's range contains 0")
        v2 = self.v * self.v
        U2 = abs(U) * abs(U)
        return TaylorModel(1 / self.v, [-a / v2 for a in self.g], -self.R / v2 + U2 / (v2 * W), self.r)

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
        out = self._const(1)
        for _ in range(n):
            out = out * self
        return out

    def __repr__(self):
        return f"TaylorModel(v={self.v}, g={self.g}, R={self.R}, r={self.r})"
