r"""Owen's T function in h for one fixed a, as a piecewise Chebyshev table (the fused PGD kernel).

In the step kernels zeta enters Theorem 1's gradient only through

.. math:: \zeta_g(c\kappa) = 1 - 8\,T(h\,|\kappa|, a), \qquad h = \frac{\sqrt2\,c}{\sqrt{1+2g^2}},\quad
          a = \frac{1}{\sqrt{1+4g^2}}

(:func:`slr_verify.kernels.special.owen_args`), and for a run at constant lam, a is one number
for all runs and steps. So :math:`u \mapsto T(u, a)` is tabulated once on :math:`[0, U]` with
:math:`U = \min(h, U_{\max})`, in ``pieces`` intervals of width at most :data:`WIDTH`, each a
Chebyshev series of degree :data:`DEGREE` in the piece's local variable y in [-1, 1]: the
interpolant at the Chebyshev points of the first kind (values from scipy's ``owens_t``),
evaluated by Clenshaw's recurrence. (The power basis of y would make the evaluation one Horner
loop, but the change of basis multiplies the values' rounding errors by up to 2^(DEGREE-1):
measured, 5e-15 instead of 3e-16.)

Beyond :math:`U_{\max} = 10`: :math:`0 \le T(u, a) \le \frac{\arctan a}{2\pi} e^{-u^2/2} < 2.6\cdot10^{-23}`
(the integrand of :math:`T(u,a) = \frac{1}{2\pi}\int_0^a \frac{e^{-u^2(1+x^2)/2}}{1+x^2}dx` is at most
:math:`e^{-u^2/2}/(1+x^2)`), so the table returns 0 there; zeta needs absolute accuracy only.

The accuracy (within 3e-16 absolute of mpmath at 30 digits, i.e. about one ulp of
T(0, a) <= 1/8, over a in (0, 1] and u in [0, 12]) is tested in ``tests/test_fused.py``.
"""
from __future__ import annotations

import math

import numpy as np
from scipy import special as sc

#: degree of each piece
DEGREE = 8
#: the largest width of a piece in u
WIDTH = 0.125
#: T(u, a) is replaced by 0 for u >= U_MAX (error < 2.6e-23)
U_MAX = 10.0
#: pieces of the widest table (U = U_MAX)
MAX_PIECES = int(math.ceil(U_MAX / WIDTH))

_J = np.arange(DEGREE + 1)
#: Chebyshev points of the first kind on [-1, 1]
_NODES = np.cos(np.pi * (_J + 0.5) / (DEGREE + 1))
#: values at the nodes -> Chebyshev coefficients (discrete orthogonality of T_k at these nodes)
_TO_COEFS = (2.0 / (DEGREE + 1)) * np.cos(np.pi * np.outer(_J, _J + 0.5) / (DEGREE + 1))
_TO_COEFS[0] *= 0.5


def owen_table(h, a):
    """Tables for the arrays (or numbers) h > 0 and a in (0, 1] of equal shape S: returns
    ``(coefs, geom)`` with ``coefs`` of shape S + (MAX_PIECES, DEGREE + 1) (unused pieces zero) and
    ``geom`` of shape S + (3,) = (width, U, pieces) for :func:`owen_eval`."""
    h, a = np.broadcast_arrays(np.asarray(h, dtype=float), np.asarray(a, dtype=float))
    if np.any(~np.isfinite(h)) or np.any(h <= 0):
        raise ValueError("h must be finite and > 0")
    if np.any(~np.isfinite(a)) or np.any(a <= 0) or np.any(a > 1):
        raise ValueError("a must lie in (0, 1]")
    U = np.minimum(h, U_MAX)
    pieces = np.maximum(1, np.ceil(U / WIDTH)).astype(int)
    w = U / pieces
    p = np.arange(MAX_PIECES)
    # nodes u = w (p + (x + 1)/2) of every piece, shape S + (pieces, nodes)
    u = w[..., None, None] * (p[:, None] + 0.5 * (_NODES + 1.0))
    used = np.broadcast_to((p < pieces[..., None])[..., None], u.shape)
    vals = np.zeros(u.shape)
    vals[used] = sc.owens_t(u[used], np.broadcast_to(a[..., None, None], u.shape)[used])  # only the pieces in use
    coefs = np.einsum("kj,...pj->...pk", _TO_COEFS, vals)
    geom = np.stack([w, U, pieces.astype(float)], axis=-1)
    return coefs, geom


def owen_eval(u, coefs, geom):
    """T(u, a) from one table (``coefs`` (MAX_PIECES, DEGREE + 1), ``geom`` (3,)), for u >= 0
    (NumPy version of the fused kernel's Clenshaw loop, for tests)."""
    u = np.asarray(u, dtype=float)
    w, U, P = geom
    i = np.minimum((u / w).astype(int), int(P) - 1)
    y = 2.0 * (u / w - i) - 1.0
    b1 = np.zeros_like(u)
    b2 = np.zeros_like(u)
    for k in range(DEGREE, 0, -1):
        b1, b2 = coefs[i, k] + 2.0 * y * b1 - b2, b1
    return np.where(u >= U_MAX, 0.0, coefs[i, 0] + y * b1 - b2)
