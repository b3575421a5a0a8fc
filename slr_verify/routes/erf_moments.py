r"""The independent route of Lemma 18 (`docs/MATH.md` §4): Gaussian expectations of erf by mpmath quadrature.

:func:`quad_erf_moment`: :math:`\partial_a^n\,\mathbb E[Z^j \operatorname{erf}(a + bZ)^p]`, Z ~ N(0, 1), by mpmath
quadrature (tanh-sinh) of the definition, the integrand written from the expectation itself (no closed form of erf's
Gaussian means, no Stein identity, neither SymPy nor the kernels): the numeric reference of Lemma 18 (i)-(vi)
(:data:`LEMMA18 <slr_verify.symbolic.lemmas.LEMMA18>`). A derivative in a (n = 1) is taken under the integral, erf' from
erf's definition.
"""
from __future__ import annotations

import mpmath

from ..model import validation as V
from ..model.params import keywords_checked


def _expectation(a, b, j, p, n):
    """d^n/da^n E[Z^j erf(a + bZ)^p] (n <= 1) at the current mpmath precision, differentiated under the integral
    (d/da erf(x)^p = p erf(x)^(p-1) erf'(x), erf' = (2/sqrt(pi)) exp(-x^2) by erf's definition), split at the erf
    transition z = -a/b and at the Gaussian bulk z = 0."""
    if n == 0:
        f = lambda z: z**j * mpmath.erf(a + b * z) ** p * mpmath.npdf(z)
    else:
        c = 2 / mpmath.sqrt(mpmath.pi)
        f = lambda z: z**j * p * mpmath.erf(a + b * z) ** (p - 1) * c * mpmath.exp(-(a + b * z) ** 2) * mpmath.npdf(z)
    cuts = sorted({mpmath.mpf(0)} | ({-a / b} if b != 0 and abs(a / b) > 0.5 else set()))
    return mpmath.quad(f, [-mpmath.inf, *cuts, mpmath.inf])


@keywords_checked
def quad_erf_moment(a, b, *, z_power, erf_power, derivative=0, dps=30) -> float:
    r""":math:`\partial_a^n\,\mathbb E[Z^j \operatorname{erf}(a + bZ)^p]` by mpmath quadrature at ``dps`` digits,
    rounded to a float (the module's route). ``a`` real, ``b`` real (the scale of Z), ``z_power`` j in 0..4,
    ``erf_power`` p in 1..2, ``derivative`` n in 0..1, ``dps`` in 15..100. Bad input: ``ValueError`` naming it."""
    a = V.real("a", a)
    b = V.real("b", b)
    j = V.integer("z_power", z_power, 0, 4)
    p = V.integer("erf_power", erf_power, 1, 2)
    n = V.integer("derivative", derivative, 0, 1)
    dps = V.integer("dps", dps, 15, 100)
    with mpmath.workdps(dps):
        return float(_expectation(mpmath.mpf(a), mpmath.mpf(b), j, p, n))
