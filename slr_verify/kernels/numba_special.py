r"""zeta and zeta2 compiled (Numba), from the bodies in :mod:`.special` (`docs/MATH.md` §§4 and 15).

:func:`zeta` and :func:`zeta2` take one float each, for compiled loops (the multi-head runner);
:func:`zeta2_array` is zeta2 on arrays (:data:`zeta2_ufunc`, a NumPy ufunc). None of them is typed
here: :func:`_compile` takes a body of :mod:`.special` (``zeta_scalar``, ``zeta2_one`` and the helpers
they call) and compiles the same code with its module-level names rebound: SciPy's ``erf``/``erfc``
ufuncs to ``math.erf``/``math.erfc``, ``owens_t`` to SciPy's Cython export (so the values agree with
the Python forms to rounding; the test suite compares them across every regime switch), and each
helper to its compiled form.
"""
from __future__ import annotations

import ctypes
import math
import types as pytypes

import llvmlite.binding as llvm
import numpy as np
from numba import njit, types, vectorize
from numba.extending import get_cython_function_address

from . import special

llvm.add_symbol("slr_verify_owens_t",
                get_cython_function_address("scipy.special.cython_special", "owens_t"))
#: scipy.special.owens_t(h, a) as a function Numba can call (and cache: it is linked by name).
owens_t = types.ExternalFunction("slr_verify_owens_t", types.float64(types.float64, types.float64))
_keep = ctypes  # noqa: F841  (the address stays valid while scipy.special.cython_special is imported)

_OPTIONS = dict(cache=True, nogil=True, error_model="numpy")


def _rebound(fn, names):
    """``fn``'s code with its globals updated by ``names`` (a new function object; ``fn`` is untouched)."""
    return pytypes.FunctionType(fn.__code__, {**fn.__globals__, **names}, fn.__name__, fn.__defaults__, fn.__closure__)


def _compile(fn, names, wrap=None):
    return (wrap or njit(**_OPTIONS))(_rebound(fn, names))


_names = {"_erf": math.erf, "_erfc": math.erfc, "_owens_t": owens_t}
_names["tetrachoric_variance"] = _compile(special.tetrachoric_variance, _names)
_names["zeta_args"] = _compile(special.zeta_args, _names)
_names["owen_variance"] = _compile(special.owen_variance, _names)

#: :math:`\zeta_g(t) = \mathbb E[\operatorname{erf}(t + gZ)^2]` for one float (special.zeta_scalar, compiled)
zeta = _compile(special.zeta_scalar, _names)
#: :math:`\zeta_2` for one point (special.zeta2_one, compiled)
zeta2 = _compile(special.zeta2_one, _names)
#: special.zeta2_one as a NumPy ufunc (:func:`zeta2_array` is the public form)
zeta2_ufunc = _compile(special.zeta2_one, _names, vectorize(["float64(float64, float64, float64, float64, float64)"],
                                                          cache=True))


def zeta2_array(t1, t2, s11, s22, s12):
    r"""Float64 :math:`\zeta_2(t_1, t_2; s_{11}, s_{22}, s_{12}) = \mathbb E[\operatorname{erf}(A)\operatorname{erf}(B)]`
    (`docs/MATH.md` §15), vectorised, by Owen's formula for the bivariate normal orthant:

    .. math::

        \zeta_2 = 1 - 4T(h_1, a_1) - 4T(h_2, a_2) - 4\beta, \quad
        h_i = \sqrt2 t_i/\sqrt{1+2s_{ii}},\ r = 2s_{12}/\sqrt{(1+2s_{11})(1+2s_{22})},\
        a_1 = \frac{h_2 - r h_1}{h_1\sqrt{1-r^2}},

    :math:`\beta = 1/2` when the signs of :math:`h_1, h_2` differ (a zero counts by the other's
    sign), :math:`T(0, \pm\infty) = \pm 1/4` on an axis, and Sheppard's
    :math:`\frac2\pi\arcsin r` at the origin. Absolute accuracy ~1e-16 (tested against the
    arb's rigorous quadrature :func:`zeta2_mp`, also across the axes and the origin).

    One body, :func:`~.special.zeta2_one`, compiled by Numba as a ufunc: the vectorised form and the scalar form
    in compiled loops are the same code."""
    out = zeta2_ufunc(*(np.asarray(x, dtype=float) for x in (t1, t2, s11, s22, s12)))
    return out[()] if np.ndim(out) == 0 else out
