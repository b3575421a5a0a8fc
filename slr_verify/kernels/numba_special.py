r"""zeta and zeta2 for one float each, compiled (Numba): the scalar forms, inside compiled loops,
of :func:`slr_verify.kernels.special.zeta` and :func:`slr_verify.kernels.special.zeta2`
(`docs/MATH.md` §§4 and 15). Same regimes, same formulas, same Owen's T (SciPy's, called
through its Cython export), so the values agree with the vectorised kernels to rounding; the
test suite compares the two across every regime switch.

* :func:`zeta`: :math:`\operatorname{erf}(s)^2 + D`, s = |t|/sqrt(1 + 2g^2), with D from the
  tetrachoric series (30 terms) for r = 2g^2/(1 + 2g^2) <= 1/4 and s <= 1/2, else
  :math:`D = (1 + \operatorname{erf} s)\operatorname{erfc} s - 8T(\sqrt2 s, a)` (clipped at 0).
* :func:`zeta2`: Owen's formula for the bivariate orthant, Sheppard's arcsine at the origin.
"""
from __future__ import annotations

import ctypes
import math

import llvmlite.binding as llvm
from numba import njit, types
from numba.extending import get_cython_function_address

from .special import _SERIES_MAX_R, _SERIES_MAX_S, _SERIES_TERMS

__all__ = ["owens_t", "zeta", "zeta2"]

llvm.add_symbol("slr_verify_owens_t",
                get_cython_function_address("scipy.special.cython_special", "owens_t"))
#: scipy.special.owens_t(h, a) as a function Numba can call (and cache: it is linked by name).
owens_t = types.ExternalFunction("slr_verify_owens_t", types.float64(types.float64, types.float64))
_keep = ctypes  # noqa: F841  (the address stays valid while scipy.special.cython_special is imported)

_SQRT2 = math.sqrt(2.0)


@njit(cache=True, nogil=True, error_model="numpy")
def _tetrachoric(s, r):
    """special._tetrachoric for one float (fixed number of terms, as the array form)."""
    h = _SQRT2 * s
    q_prev, q = 0.0, 1.0
    rn = 1.0
    total = 0.0
    for n in range(1, _SERIES_TERMS + 1):
        rn = rn * r
        total += rn * q * q / n
        q_prev, q = q, (h * q - math.sqrt(n - 1) * q_prev) / math.sqrt(n)
    return 2.0 / math.pi * math.exp(-2.0 * s * s) * total


@njit(cache=True, nogil=True, error_model="numpy")
def zeta(t, g):
    r""":math:`\zeta_g(t) = \mathbb E[\operatorname{erf}(t + gZ)^2]` (special.zeta for one float)."""
    g2 = g * g
    s = abs(t) / math.sqrt(1.0 + 2.0 * g2)
    r = 2.0 * g2 / (1.0 + 2.0 * g2)
    e = math.erf(s)
    if r <= _SERIES_MAX_R and s <= _SERIES_MAX_S:
        return e * e + _tetrachoric(s, r)
    a = 1.0 / math.sqrt(1.0 + 4.0 * g2)
    D = (1.0 + math.erf(s)) * math.erfc(s) - 8.0 * owens_t(_SQRT2 * s, a)
    return e * e + max(D, 0.0)


@njit(cache=True, nogil=True, error_model="numpy")
def zeta2(t1, t2, s11, s22, s12):
    r""":math:`\zeta_2(t_1, t_2; s_{11}, s_{22}, s_{12}) = \mathbb E[\operatorname{erf}(A)\operatorname{erf}(B)]`
    (special.zeta2 for one float)."""
    a1, a2 = 1.0 + 2.0 * s11, 1.0 + 2.0 * s22
    h1, h2 = _SQRT2 * t1 / math.sqrt(a1), _SQRT2 * t2 / math.sqrt(a2)
    r = 2.0 * s12 / math.sqrt(a1 * a2)
    if h1 == 0.0 and h2 == 0.0:
        return 2.0 / math.pi * math.asin(min(max(r, -1.0), 1.0))
    q = math.sqrt((a1 * a2 - 4.0 * s12 * s12) / (a1 * a2))
    sg1 = (h1 > 0.0) - (h1 < 0.0)
    sg2 = (h2 > 0.0) - (h2 < 0.0)
    T1 = 0.25 * sg2 if h1 == 0.0 else owens_t(h1, (h2 - r * h1) / (h1 * q))
    T2 = 0.25 * sg1 if h2 == 0.0 else owens_t(h2, (h1 - r * h2) / (h2 * q))
    beta = 0.5 if (sg1 * sg2 < 0 or (sg1 * sg2 == 0 and sg1 + sg2 < 0)) else 0.0
    return 1.0 - 4.0 * (T1 + T2 + beta)
