r"""The paper's auxiliary lemmas of Appendix D, as SymPy statements (`docs/MATH.md` §20 for Lemma 16, §4 for Lemmas 17-18).

* Lemma 16: for u >= 0, :math:`|1/\sqrt{1+u} - 1| \le u/2`. The argument :math:`1/\sqrt{1+u} - 1` is <= 0, and
  :math:`f(u) = 1 - u/2 - 1/\sqrt{1+u}` has f(0) = 0 and f'(u) = (-1 + (1+u)^{-3/2})/2 <= 0 (no u >= 0 with
  f'(u) > 0, decided by SymPy's univariate inequality solver), so f <= 0 on [0, oo).
* Lemma 17: the elementary properties of erf the bounds use, from its definition
  :math:`\operatorname{erf}(x) = \frac{2}{\sqrt\pi}\int_0^x e^{-t^2}dt`: erf' = (2/sqrt(pi)) exp(-x^2) > 0,
  erf'' = -2x erf', erf odd, concave on [0, oo) (erf'' <= 0 there), 0 < erf' <= 2/sqrt(pi), |erf| < 1
  (:func:`lemma17_proofs`).
* Lemma 18 (i)-(vi): the Gaussian expectations of erf that Theorem 1's derivation uses (`docs/MATH.md` §4), Z ~ N(0, 1),
  s^2 = 1 + 2 b^2, b > 0 (b < 0 follows by Z -> -Z, b = 0 is immediate). The paper's typeset formulas are not
  reproduced in the spec; the numbering below is this suite's reconstruction (`docs/MATH.md` §4, "Lemma 18"):

  (i)   E erf(a + bZ) = erf(a/s)                                      (:func:`slr_verify.symbolic.zeta.erf_mean`);
  (ii)  E Z erf(a + bZ) = 2b/(sqrt(pi) s) exp(-a^2/s^2);
  (iii) E Z^2 erf(a + bZ) = erf(a/s) - 4 a b^2/(sqrt(pi) s^3) exp(-a^2/s^2);
  (iv)  E erf(bZ)^2 = zeta_b(0) = (2/pi) arcsin(2 b^2/s^2)          (:func:`slr_verify.symbolic.zeta.zeta_at_zero`);
  (v)   d/da E erf(a + bZ)^2 = (2/s) erf(a/(s sqrt(1 + 4b^2))) erf'(a/s) (:func:`slr_verify.symbolic.zeta.dzeta_dt`);
  (vi)  E Z erf(a + bZ)^2 = b d/da zeta_b(a) = (2b/s) erf(a/(s sqrt(1 + 4b^2))) erf'(a/s).

  Each is proved from first principles (:func:`lemma18_proofs`): (i) SymPy integrates the Gaussian integral
  E erf'(a + bZ) and matches d/da erf(a/s), both sides vanishing at a = 0 (erf(bz) phi(z) is odd in z); (ii), (iii),
  (vi) by Gaussian integration by parts (z phi = -phi', z^2 phi = phi + phi'', the boundary terms vanish: erf bounded,
  phi and z phi -> 0); (v) by the Gaussian-product identity erf'(a + bz) phi(z) = c N(z; m, 1/s^2) and (i); (iv) by
  the heat equation d/db E f(bZ) = b E f''(bZ) and (v), both sides vanishing at b = 0. Differentiating under E is
  licensed by the bounded derivatives of erf (Lemma 17). Each is also shown to be what the derivation engine
  (:class:`slr_verify.symbolic.gaussian.GaussianVector`, :class:`slr_verify.symbolic.zeta.zeta`) computes.
"""
from __future__ import annotations

from functools import cache

import sympy as sp

from .gaussian import ERF, ERF2, GaussianVector
from .stored import stored
from .zeta import dzeta_dt, erf_mean, zeta, zeta_at_zero

#: Lemma 16's variable, u >= 0
U = sp.Symbol("u", nonnegative=True)


#: Lemma 16's constant: |1/sqrt(1 + u) - 1| <= LEMMA16_C u (the statements' text is for the paper's 1/2)
LEMMA16_C = sp.Rational(1, 2)


@cache
def _lemma16(c) -> tuple:
    u = U
    inv = 1 / sp.sqrt(1 + u)
    f = 1 - c * u - inv
    no_positive = sp.solve_univariate_inequality(sp.diff(f, u) > 0, u, relational=False, domain=sp.Interval(0, sp.oo))
    not_above = sp.solve_univariate_inequality(inv - 1 > 0, u, relational=False, domain=sp.Interval(0, sp.oo))
    return (("Lemma 16: 1/sqrt(1 + u) - 1 <= 0 for u >= 0 (no u >= 0 with 1/sqrt(1 + u) > 1)", not_above == sp.S.EmptySet),
            ("Lemma 16: f(u) = 1 - u/2 - 1/sqrt(1 + u) has f(0) = 0", sp.simplify(f.subs(u, 0)) == 0),
            ("Lemma 16: f'(u) <= 0 for u >= 0 (no u >= 0 with f'(u) > 0), so |1/sqrt(1 + u) - 1| <= u/2",
             no_positive == sp.S.EmptySet))


def lemma16_proofs() -> dict:
    """{statement: bool}: Lemma 16, |1/sqrt(1 + u) - 1| <= u/2 for u >= 0, step by step (the module's argument)."""
    return {k: bool(v) for k, v in _lemma16(LEMMA16_C)}


def lemma16_sides() -> tuple:
    """Lemma 16 as two inequalities for its ball route (:func:`slr_verify.kernels.lemma_balls.lemma16_ball`): with
    w(u) = 1/sqrt(1 + u) - 1, |w| <= u/2 iff g_-(u) = u/2 - w >= 0 and g_+(u) = u/2 + w >= 0; returns (g_-, g_+) in
    :data:`U` (no sign of w assumed)."""
    w = 1 / sp.sqrt(1 + U) - 1
    return U / 2 - w, U / 2 + w


# --------------------------------------------------------------------------- Lemma 17: erf
#: Lemma 17's variable (x real; ``_XP`` x >= 0) and the integration variable of erf's definition
_X = sp.Symbol("x", real=True)
_XP = sp.Symbol("x", nonnegative=True)
_T = sp.Symbol("t", real=True)


@stored
def _erf_defined():
    """(2/sqrt(pi)) int_0^x exp(-t^2) dt, integrated by SymPy (a derivation: stored; the proof re-runs on it)."""
    return sp.integrate(2 / sp.sqrt(sp.pi) * sp.exp(-_T**2), (_T, 0, _X))


#: erf' as Lemma 17 states it, the integrand of erf's definition
ERF_PRIME = 2 / sp.sqrt(sp.pi) * sp.exp(-_X**2)


@cache
def _lemma17() -> tuple:
    x, xp = _X, _XP
    d1 = ERF_PRIME
    d2 = sp.diff(sp.erf(x), x, 2)
    d2p = sp.diff(sp.erf(xp), xp, 2)
    defined = _erf_defined()
    above = sp.solve_univariate_inequality(d1 > 2 / sp.sqrt(sp.pi), x, relational=False, domain=sp.S.Reals)
    return (
        ("Lemma 17: erf(x) = (2/sqrt(pi)) int_0^x exp(-t^2) dt (SymPy integrates the definition)",
         sp.simplify(defined - sp.erf(x)) == 0),
        ("Lemma 17: erf'(x) = (2/sqrt(pi)) exp(-x^2)", sp.simplify(sp.diff(sp.erf(x), x) - d1) == 0),
        ("Lemma 17: erf''(x) = -2x erf'(x)", sp.simplify(d2 + 2 * x * d1) == 0),
        ("Lemma 17: erf is odd (the integrand of the definition is even, erf(-x) = -erf(x))",
         sp.simplify(d1.subs(x, -x) - d1) == 0 and sp.simplify(sp.erf(-x) + sp.erf(x)) == 0),
        ("Lemma 17: erf'(x) > 0 for real x (erf is strictly increasing)", bool(d1.is_positive)),
        ("Lemma 17: erf'(x) <= erf'(0) = 2/sqrt(pi) (no real x above)", above == sp.S.EmptySet),
        ("Lemma 17: erf''(x) <= 0 for x >= 0 (erf is concave on [0, oo); by oddness convex on (-oo, 0])",
         bool(sp.diff(d1.subs(x, xp), xp).is_nonpositive) and sp.simplify(d2p - sp.diff(d1.subs(x, xp), xp)) == 0),
        ("Lemma 17: erf(x) -> 1 as x -> oo, so |erf(x)| < 1 (strictly increasing, odd)",
         sp.limit(sp.erf(x), x, sp.oo) == 1 and sp.limit(sp.erf(x), x, -sp.oo) == -1),
    )


def lemma17_proofs() -> dict:
    """{statement: bool}: Lemma 17, the properties of erf the bounds use (the module's list), each decided by SymPy on
    the stated derivative :data:`ERF_PRIME` (a wrong one fails the statements that use it)."""
    return {k: bool(v) for k, v in _lemma17()}


# --------------------------------------------------------------------------- Lemma 18: Gaussian expectations of erf
#: Lemma 18's symbols: the shift a (real), the scale b > 0, the standard normal's variable z, a coordinate x = a + b z
_A = sp.Symbol("a", real=True)
_B = sp.Symbol("b", positive=True)
_Z = sp.Symbol("z", real=True)
_C = sp.Symbol("x", real=True)
#: the standard normal density
_PHI = sp.exp(-_Z**2 / 2) / sp.sqrt(2 * sp.pi)

#: Lemma 18's identities: label -> (z power, erf power, d/da order) of E[Z^j erf(a + bZ)^p] differentiated in a, and
#: the statement in words (the right-hand sides are :func:`lemma18_rhs`)
LEMMA18 = {
    "i": (0, 1, 0, "E erf(a + bZ) = erf(a/s)"),
    "ii": (1, 1, 0, "E Z erf(a + bZ) = 2b/(sqrt(pi) s) exp(-a^2/s^2)"),
    "iii": (2, 1, 0, "E Z^2 erf(a + bZ) = erf(a/s) - 4ab^2/(sqrt(pi) s^3) exp(-a^2/s^2)"),
    "iv": (0, 2, 0, "E erf(bZ)^2 = zeta_b(0) = (2/pi) arcsin(2b^2/s^2)  (at a = 0)"),
    "v": (0, 2, 1, "d/da E erf(a + bZ)^2 = (2/s) erf(a/(s sqrt(1 + 4b^2))) erf'(a/s)"),
    "vi": (1, 2, 0, "E Z erf(a + bZ)^2 = (2b/s) erf(a/(s sqrt(1 + 4b^2))) erf'(a/s)"),
}


def _s():
    return sp.sqrt(1 + 2 * _B**2)


@cache
def _rhs() -> dict:
    a, b, s = _A, _B, _s()
    gauss = sp.exp(-a**2 / s**2)
    # (i), (iv), (v) are the forms the derivation states (zeta.py); (ii), (iii) as the spec prints them; (vi) = b (v)
    return {
        "i": erf_mean(a, b),
        "ii": 2 * b / sp.sqrt(sp.pi * s**2) * gauss,
        "iii": erf_mean(a, b) - 4 * a * b**2 / (sp.sqrt(sp.pi) * s**3) * gauss,
        "iv": zeta_at_zero(b),
        "v": dzeta_dt(a, b),
        "vi": b * dzeta_dt(a, b),
    }


def lemma18_rhs(label) -> tuple:
    """((a, b), the right-hand side of Lemma 18 (``label``, one of :data:`LEMMA18`'s keys) as a SymPy expression in
    the shift a and the scale b > 0; for (iv) the value at a = 0, free of a)."""
    if label not in LEMMA18:
        raise ValueError(f"label must be one of {list(LEMMA18)}, got {label!r}")
    return (_A, _B), _rhs()[label]


def is_zero(expr) -> bool:
    """expr == 0: by expansion after writing the arguments of exp and erf and the bases of square roots as factored
    fractions (SymPy splits a root only where its assumptions allow), else by simplify (a True is a proof either way;
    the normal forms only save time)."""
    normal = expr.replace(sp.exp, lambda x: sp.exp(sp.factor(x))).replace(sp.erf, lambda x: sp.erf(sp.factor(x))).replace(
        lambda x: x.is_Pow and x.exp.is_Rational and x.exp.q == 2, lambda x: sp.Pow(sp.factor(sp.together(x.base)), x.exp))
    return bool(sp.expand(normal) == 0 or sp.cancel(sp.expand(normal)) == 0 or sp.simplify(expr) == 0)


@stored
def _erf_prime_mean():
    """E erf'(a + bZ) = int erf'(a + bz) phi(z) dz, integrated (and simplified) by SymPy (a derivation: stored; the
    proofs re-run on it)."""
    out = sp.simplify(sp.integrate(sp.diff(sp.erf(_C), _C).subs(_C, _A + _B * _Z) * _PHI, (_Z, -sp.oo, sp.oo)))
    return out.replace(sp.exp, lambda x: sp.exp(sp.factor(x)))  # exponents as one fraction: the proofs then expand


@cache
def _common() -> tuple:
    """The statements every identity of Lemma 18 rests on: Gaussian integration by parts and its boundary terms."""
    z, phi = _Z, _PHI
    return (
        ("Gaussian integration by parts: z phi(z) = -phi'(z), z^2 phi(z) = phi(z) + phi''(z)",
         is_zero(z * phi + sp.diff(phi, z)) and is_zero(z**2 * phi - phi - sp.diff(phi, z, 2))),
        ("boundary terms vanish: z phi(z) -> 0 as z -> oo, so phi(z) <= z phi(z) (z >= 1) too, and at -oo by parity "
         "(erf, erf^2 bounded by Lemma 17)", sp.limit(z * phi, z, sp.oo) == 0 and phi.subs(z, -z) == phi),
    )


@cache
def _gaussian():
    """(x, Z) with x = a + bZ: jointly Gaussian, mean (a, 0), covariance [[b^2, b], [b, 1]] (one engine, its cache)."""
    return GaussianVector((_C, _Z), (_A, 0), sp.Matrix([[_B**2, _B], [_B, 1]]))


def _engine(j, f):
    """E[Z^j f(a + bZ)] as the derivation's engine computes it (Stein's lemma on :func:`_gaussian`)."""
    return _gaussian().expect(_Z**j, f, _C)


@cache
def _statements(label, r) -> tuple:
    """The statements proving Lemma 18 ``label`` with right-hand side ``r`` (the others at their stated forms)."""
    a, b, z, x, phi, s = _A, _B, _Z, _C, _PHI, _s()
    rhs = _rhs()
    e_d1 = _erf_prime_mean()                                              # E erf'(a + bZ), a Gaussian integral
    if label == "i":
        return (("Lemma 18 (i): d/da erf(a/s) = E erf'(a + bZ) (SymPy's Gaussian integral)", is_zero(sp.diff(r, a) - e_d1)),
                ("Lemma 18 (i): at a = 0 both sides vanish (erf(bz) phi(z) is odd in z; erf(0) = 0)",
                 is_zero((sp.erf(b * z) * phi).subs(z, -z) + sp.erf(b * z) * phi) and is_zero(r.subs(a, 0))),
                ("Lemma 18 (i): the engine (erf_mean, GaussianVector) computes it", is_zero(_engine(0, ERF(1)) - r)))
    if label == "ii":
        return (("Lemma 18 (ii): E Z erf(a + bZ) = b E erf'(a + bZ) (by parts) = the stated form", is_zero(b * e_d1 - r)),
                ("Lemma 18 (ii): the engine (Stein's recursion) computes it", is_zero(_engine(1, ERF(1)) - r)))
    if label == "iii":
        e_d2 = sp.diff(e_d1, a)                                           # E erf''(a + bZ) (differentiate under E)
        return (("Lemma 18 (iii): E Z^2 erf(a + bZ) = E erf + b^2 E erf'' (by parts twice) = the stated form",
                 is_zero(rhs["i"] + b**2 * e_d2 - r)),
                ("Lemma 18 (iii): the engine (Stein's recursion) computes it", is_zero(_engine(2, ERF(1)) - r)))
    if label == "iv":
        t = sp.Dummy("t", real=True)   # heat equation d/db E f(bZ) = E Z f'(bZ) = b E f''(bZ), f = erf^2, with (v)
        return (("Lemma 18 (iv): d/db zeta_b(0) = b d^2/da^2 zeta_b(a) at a = 0 (heat equation, (v))",
                 is_zero(sp.diff(r, b) - b * sp.diff(rhs["v"].subs(a, t), t).subs(t, 0))),
                ("Lemma 18 (iv): at b = 0 both sides vanish (erf(0)^2 = 0)", is_zero(r.subs(b, 0))),
                ("Lemma 18 (iv): the engine's zeta(0, b) rewrites to it", is_zero(zeta(0, b).rewrite(sp.asin) - r)))
    if label == "v":
        derf = sp.diff(sp.erf(x), x)                                      # erf', Lemma 17
        m, c = -2 * a * b / s**2, 2 / (sp.sqrt(sp.pi) * s) * sp.exp(-a**2 / s**2)
        product = c * sp.exp(-(z - m)**2 * s**2 / 2) * s / sp.sqrt(2 * sp.pi)
        log_gap = sp.expand_log(sp.log(derf.subs(x, a + b * z) * phi) - sp.log(product), force=True)
        return (("Lemma 18 (v): erf'(a + bz) phi(z) = c N(z; -2ab/s^2, 1/s^2), c = (2/(sqrt(pi) s)) exp(-a^2/s^2)",
                 is_zero(log_gap)),
                ("Lemma 18 (v): d/da E erf(a + bZ)^2 = 2 c E erf(a + bW), W ~ N(m, 1/s^2), by (i) = the stated form",
                 is_zero(2 * c * erf_mean(a + b * m, b / s) - r)),
                ("Lemma 18 (v): the engine's d/da zeta(a, b) (its fdiff) computes it", is_zero(sp.diff(zeta(a, b), a) - r)))
    return (("Lemma 18 (vi): E Z erf(a + bZ)^2 = b d/da E erf(a + bZ)^2 (by parts) = b (v)", is_zero(b * rhs["v"] - r)),
            ("Lemma 18 (vi): the engine (Stein's recursion) computes it", is_zero(_engine(1, ERF2(1)) - r)))


def lemma18_proofs(label=None, rhs=None) -> dict:
    """{statement: bool}: Lemma 18 (i)-(vi) (the module's list), each derived from first principles by SymPy, and the
    derivation engine shown to compute the same expression. ``label``: one identity only (a key of :data:`LEMMA18`;
    None: all); ``rhs``: a right-hand side to prove in place of the stated one (a SymPy expression in the symbols of
    :func:`lemma18_rhs`; needs ``label``): a perturbed one must fail, the tests' bite. Bad input: ``ValueError``."""
    if label is not None and label not in LEMMA18:
        raise ValueError(f"label must be one of {list(LEMMA18)} or None, got {label!r}")
    if rhs is not None and (label is None or not isinstance(rhs, sp.Expr)):
        raise ValueError(f"rhs must be a SymPy expression given with a label, got rhs={rhs!r}, label={label!r}")
    out = dict(_common())
    for k in LEMMA18 if label is None else (label,):
        out.update(_statements(k, _rhs()[k] if rhs is None else rhs))
    return {k: bool(v) for k, v in out.items()}
