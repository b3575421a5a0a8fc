r"""The bivariate zeta of the multi-head risk (`docs/MATH.md` §15), as a SymPy function.

.. math::

    \zeta_2(t_1, t_2; s_{11}, s_{22}, s_{12}) = \mathbb E[\operatorname{erf}(A)\operatorname{erf}(B)],
    \qquad (A, B) \sim N\Big((t_1, t_2), \begin{pmatrix} s_{11} & s_{12}\\ s_{12} & s_{22}\end{pmatrix}\Big).

It generalises zeta (`docs/MATH.md` §4): :math:`\zeta_g(t) = \zeta_2(t, t; g^2, g^2, g^2)`.
Two heads looking at the same token contribute :math:`\mathbb E[\operatorname{erf}(\lambda a)
\operatorname{erf}(\lambda a')\, b\, b']`, which Stein's lemma reduces to zeta2 and its derivatives.

**Closed form** (bivariate normal orthant, then Owen's T). With :math:`W_i` independent N(0, 1),
:math:`\operatorname{erf}(A) = 2P(W_1 \le \sqrt2 A \mid A) - 1`, so zeta2 is
:math:`4\Phi_2(h_1, h_2; r) - 2\Phi(h_1) - 2\Phi(h_2) + 1` with

.. math::

    h_i = \frac{\sqrt2\, t_i}{\sqrt{1 + 2 s_{ii}}}, \qquad
    r = \frac{2 s_{12}}{\sqrt{(1+2s_{11})(1+2s_{22})}} \in (-1, 1),

and Owen's formula for :math:`\Phi_2` gives
:math:`\zeta_2 = 1 - 4T(h_1, a_1) - 4T(h_2, a_2) - 4\beta`,
:math:`a_1 = (h_2 - r h_1)/(h_1\sqrt{1-r^2})`, :math:`a_2` symmetric, :math:`\beta = 1/2` when
:math:`h_1 h_2 < 0` (or one is 0 and :math:`h_1 + h_2 < 0`), else 0; at :math:`h_1 = h_2 = 0`,
:math:`\zeta_2 = \frac2\pi\arcsin r` (Sheppard). The float64 kernel evaluates this form; the
mpmath route integrates over A instead (an independent route).

**Derivative rules** (each elementary; checked against mpmath in the test suite):

* :math:`\partial_{t_1}\zeta_2 = \mathbb E[\operatorname{erf}'(A)\operatorname{erf}(B)]`: the
  factor :math:`e^{-A^2}` tilts the law of (A, B), so
  :math:`\partial_{t_1}\zeta_2 = \frac{2}{\sqrt\pi}\frac{e^{-t_1^2/(1+2s_{11})}}{\sqrt{1+2s_{11}}}
  \operatorname{erf}\Big(\frac{t_2 - 2s_{12}t_1/(1+2s_{11})}{\sqrt{1 + 2s_{22} - 4s_{12}^2/(1+2s_{11})}}\Big)`;
* :math:`\partial_{s_{12}}\zeta_2 = \mathbb E[\operatorname{erf}'(A)\operatorname{erf}'(B)]
  = \frac4\pi \det(I + 2\Sigma)^{-1/2} e^{-t^\top (I + 2\Sigma)^{-1} t}` (Price's theorem);
* :math:`\partial_{s_{ii}}\zeta_2 = \frac12\partial_{t_i}^2\zeta_2` (the heat equation).
"""
from __future__ import annotations

import sympy as sp

from .zeta import erf_mean, zeta


def dzeta2_dt1(t1, t2, s11, s22, s12):
    r""":math:`\partial_{t_1}\zeta_2` in closed form (the tilted-law formula above)."""
    a1 = 1 + 2 * s11
    return (2 / sp.sqrt(sp.pi) * sp.exp(-t1**2 / a1) / sp.sqrt(a1)
            * sp.erf((t2 - 2 * s12 * t1 / a1) / sp.sqrt(1 + 2 * s22 - 4 * s12**2 / a1)))


def dzeta2_ds12(t1, t2, s11, s22, s12):
    r""":math:`\partial_{s_{12}}\zeta_2 = \frac4\pi\det(I+2\Sigma)^{-1/2}\exp(-t^\top(I+2\Sigma)^{-1}t)`."""
    a1, a2, c = 1 + 2 * s11, 1 + 2 * s22, 2 * s12
    det = a1 * a2 - c**2
    quad = (a2 * t1**2 - 2 * c * t1 * t2 + a1 * t2**2) / det
    return 4 / sp.pi / sp.sqrt(det) * sp.exp(-quad)


class zeta2(sp.Function):
    r""":math:`\zeta_2(t_1, t_2; s_{11}, s_{22}, s_{12}) = \mathbb E[\operatorname{erf}(A)\operatorname{erf}(B)]`,
    called as ``zeta2(t1, t2, s11, s22, s12)``.

    Unevaluated except where it factorises (:math:`s_{12} = 0`: independent, a product of erf
    means) or is zeta (:math:`t_1 = t_2`, :math:`s_{11} = s_{22} = s_{12}`: A = B almost surely).
    Arguments are put in a canonical order (swap of the two coordinates; joint sign flip of t).
    """

    nargs = 5

    @classmethod
    def eval(cls, t1, t2, s11, s22, s12):
        if s12.is_zero:
            return erf_mean(t1, sp.sqrt(s11)) * erf_mean(t2, sp.sqrt(s22))
        if t1 == t2 and s11 == s22 == s12:
            return zeta(t1, sp.sqrt(s11))
        if sp.default_sort_key(t2) < sp.default_sort_key(t1):
            return cls(t2, t1, s22, s11, s12)
        if t1.could_extract_minus_sign() and t2.could_extract_minus_sign():
            return cls(-t1, -t2, s11, s22, s12)
        return None

    def fdiff(self, argindex=1):
        t1, t2, s11, s22, s12 = self.args
        if argindex == 1:
            return dzeta2_dt1(t1, t2, s11, s22, s12)
        if argindex == 2:
            return dzeta2_dt1(t2, t1, s22, s11, s12)
        if argindex == 3:
            return sp.diff(dzeta2_dt1(t1, t2, s11, s22, s12), t1) / 2
        if argindex == 4:
            return sp.diff(dzeta2_dt1(t2, t1, s22, s11, s12), t2) / 2
        if argindex == 5:
            return dzeta2_ds12(t1, t2, s11, s22, s12)
        raise sp.ArgumentIndexError(self, argindex)

    def _latex(self, printer, exp=None):
        s = r"\zeta_2\left(%s\right)" % ", ".join(printer._print(a) for a in self.args)
        return s if exp is None else r"%s^{%s}" % (s, exp)
