r"""Propositions 8 and 12 with explicit steps (`docs/MATH.md` §20): the descent inequality's algebra and the map
:math:`K_\alpha`, derived and proved.

Notation (Lemma 6, Proposition 8): :math:`x = (\kappa, \nu) \in Q = [-1, 1]^2`, :math:`g = \nabla R`, one coordinate
x with gradient g, :math:`w = 1 - x^2`, :math:`s = \sqrt{1 + \alpha^2 w g^2}` and the reduced map
:math:`\phi(x, g) = (x - \alpha w g)/s`.

**Proposition 8 (descent).** With G >= |g| over Q and H >= the Hessian's operator norm over Q,

1. :math:`\phi - x = -\alpha w g / s + x (1/s - 1)` (identity);
2. Lemma 16 with :math:`u = \alpha^2 w g^2`: :math:`|1/s - 1| \le u/2`;
3. :math:`s_0^2 - s^2 = \alpha^2 (p + x^2 g^2) \ge 0` for :math:`s_0 = \sqrt{1 + \alpha^2 G^2}`, :math:`G^2 = g^2 + p`;
4. so :math:`g (\phi - x) \le -\alpha w g^2 / s_0 + (\alpha G / 2)\, \alpha w g^2`;
5. :math:`(\phi - x)^2 \le \alpha^2 w g^2 (1 + \alpha G/2)^2` (from 1-2, s >= 1, |x| <= 1, w <= 1, |g| <= G);
6. with the descent lemma :math:`R(y) \le R(x) + g \cdot (y - x) + (H/2)|y - x|^2` (Taylor, Q convex; cited), the sum
   of 4 and 5 over the two coordinates is :math:`-\alpha \sum_i w_i g_i^2\, B(\alpha, G_i, H)` with the bracket
   :math:`B(\alpha, G, H) = 1/\sqrt{1 + \alpha^2 G^2} - \alpha G/2 - (\alpha H/2)(1 + \alpha G/2)^2`;
7. B decreases in alpha, G and H: where :math:`B(\alpha_8, G_i, H) \ge 1/2` for both i, every
   :math:`\alpha \in (0, \alpha_8]` gives :math:`R(\Phi_\alpha(x)) \le R(x) - (\alpha/2) |Pg(x)|^2` on Q.

**Proposition 12.** :math:`\Phi_\alpha(x) = x - \alpha K_\alpha(x)` with
:math:`K_i = x_i \alpha w_i g_i^2 / (s_i (1 + s_i)) + w_i g_i / s_i`, smooth in (x, alpha) down to alpha = 0
(:math:`K_0 = Pg`). Where :math:`\alpha \|DK_\alpha\| < 1` on Q, :math:`|\Phi(x) - \Phi(y)| \ge (1 - \alpha M)|x - y|`
(injective) and :math:`D\Phi = I - \alpha DK` is invertible. At (0, 0) g = 0 and :math:`D\Phi = I - \alpha \nabla^2 R`.

**Operator norms.** For a real 2 x 2 matrix A, :math:`\|A\|_2^2 = (F + \sqrt{P})/2` with F the sum of the squared
entries and :math:`P = ((a - d)^2 + (b + c)^2)((a + d)^2 + (b - c)^2) = F^2 - 4 \det^2` (a product of sums of squares,
so its ball never dips below 0): the largest eigenvalue of :math:`A^T A`.
"""
from __future__ import annotations

from functools import cache

import sympy as sp

from . import dynamics as sdyn
from . import fixed_points as sfix
from .lemmas import lemma16_proofs
from .risk import S

ALPHA = sdyn.A
#: the bracket's arguments: alpha, G (a bound of |g_i|), H (a bound of the Hessian's norm)
BRACKET_ARGS = sp.symbols("alpha G H", positive=True)

_x, _g = sp.symbols("x g", real=True)
#: the entries of a 2 x 2 matrix for :func:`operator_norm`'s kernel (no assumptions: sqrt(a^2) stays a square root)
NORM_ARGS = sp.symbols("a b c d")


def bracket(alpha=None, G=None, H=None):
    """B(alpha, G, H) = 1/sqrt(1 + alpha^2 G^2) - alpha G/2 - (alpha H/2)(1 + alpha G/2)^2 (Proposition 8)."""
    a, G_, H_ = BRACKET_ARGS
    a, G_, H_ = (a if alpha is None else alpha), (G_ if G is None else G), (H_ if H is None else H)
    return 1 / sp.sqrt(1 + a**2 * G_**2) - a * G_ / 2 - (a * H_ / 2) * (1 + a * G_ / 2) ** 2


def operator_norm(a, b, c, d):
    """||[[a, b], [c, d]]||_2 = sqrt((F + sqrt(P))/2), P = ((a - d)^2 + (b + c)^2)((a + d)^2 + (b - c)^2)."""
    F = a**2 + b**2 + c**2 + d**2
    P = ((a - d) ** 2 + (b + c) ** 2) * ((a + d) ** 2 + (b - c) ** 2)
    return sp.sqrt((F + sp.sqrt(P)) / 2)


@cache
def gradient():
    """(g_kappa, g_nu) of the manifold risk (Lemma 6; :func:`.fixed_points.structure`)."""
    st = sfix.structure()
    return st.gk, st.gn


@cache
def hessian():
    """The Hessian of R on M in (kappa, nu), row-major."""
    gk, gn = gradient()
    return tuple(sp.diff(f, v) for f in (gk, gn) for v in (S.kappa, S.nu))


def _phi(x, g, a):
    return (x - a * (1 - x**2) * g) / sp.sqrt(1 + a**2 * (1 - x**2) * g**2)


def _k_component(x, g, a):
    w = 1 - x**2
    s = sp.sqrt(1 + a**2 * w * g**2)
    return x * a * w * g**2 / (s * (1 + s)) + w * g / s


@cache
def k_map():
    """(K_kappa, K_nu) in (kappa, nu, lam, gamma, d, L, alpha): Phi_alpha = x - alpha K_alpha (Proposition 12)."""
    gk, gn = gradient()
    return _k_component(S.kappa, gk, ALPHA), _k_component(S.nu, gn, ALPHA)


@cache
def dk():
    """D K_alpha in (kappa, nu), row-major."""
    return tuple(sp.diff(f, v) for f in k_map() for v in (S.kappa, S.nu))


@cache
def saddle_eigen():
    """(mu_plus, det) of the Hessian at (0, 0): mu_plus = (a + sqrt(a^2 + 4 b^2))/2 with a = R_kk(0, 0),
    b = R_kn(0, 0) (R_nn = 0 on M), det = -b^2."""
    h = [sp.simplify(e.subs({S.kappa: 0, S.nu: 0})) for e in hessian()]
    a, b = h[0], h[1]
    return (a + sp.sqrt(a**2 + 4 * b**2)) / 2, -(b**2)


def descent_proofs() -> dict:
    """Proposition 8's algebra, step by step (the module's items 1-7), each a SymPy decision."""
    a, G, H = BRACKET_ARGS
    x, g = _x, _g
    w = 1 - x**2
    s = sp.sqrt(1 + a**2 * w * g**2)
    s0 = sp.sqrt(1 + a**2 * G**2)
    out = {f"{k} (in the descent inequality)": v for k, v in lemma16_proofs().items()}
    out["step 1: phi - x = -alpha w g/s + x (1/s - 1)"] = sp.simplify(_phi(x, g, a) - x - (-a * w * g / s + x * (1 / s - 1))) == 0
    p, e, h, q, W = sp.symbols("p e h q W", nonnegative=True)  # G^2 = g^2 + p; G = h + e, h = |g|; x^2 = q, w = W = 1 - q
    out["step 3: s0^2 - s^2 = alpha^2 (p + x^2 g^2) when G^2 = g^2 + p"] = (
        sp.expand((1 + a**2 * (g**2 + p)) - (1 + a**2 * w * g**2) - a**2 * (p + x**2 * g**2)) == 0)
    # step 4: |g x (1/s - 1)| <= h (alpha^2 W h^2 / 2) (|x| <= 1, Lemma 16) <= (alpha G/2) alpha W h^2
    gap4 = (a * (h + e) / 2) * a * W * h**2 - h * (a**2 * W * h**2 / 2)
    out["step 4: (alpha G/2) alpha w g^2 - |g| alpha^2 w g^2/2 >= 0 (G = |g| + e)"] = bool(sp.expand(gap4).is_nonnegative)
    # step 5: |phi - x| <= alpha W h + alpha^2 W h^2/2 (s >= 1, |x| <= 1, Lemma 16); squared, <= alpha^2 W h^2 (1 + alpha G/2)^2
    lhs5 = (a * W * h + a**2 * W * h**2 / 2) ** 2
    rhs5 = a**2 * W * h**2 * (1 + a * (h + e) / 2) ** 2
    gap5 = sp.expand((rhs5 - lhs5).subs(W, 1 - q))  # with 0 <= q = x^2 <= 1: W^2 <= W, both factors >= 0
    parts = sp.Poly(gap5, q)
    out["step 5: alpha^2 w g^2 (1 + alpha G/2)^2 - (alpha w |g| (1 + alpha |g|/2))^2 >= 0 for 0 <= x^2 <= 1 (affine in "
        "x^2 up to its square term, checked at x^2 = 0 and 1 and convexity)"] = bool(
        sp.expand(gap5.subs(q, 0)).is_nonnegative and sp.expand(gap5.subs(q, 1)).is_nonnegative
        and parts.degree() <= 2 and sp.expand(parts.coeff_monomial(q**2)).is_nonpositive)
    comb = -a * W * h**2 / s0 + (a * G / 2) * a * W * h**2 + (H / 2) * a**2 * W * h**2 * (1 + a * G / 2) ** 2
    out["step 6: the bounds sum to -alpha w g^2 B(alpha, G, H)"] = sp.simplify(comb + a * W * h**2 * bracket()) == 0
    B = bracket()
    out["step 7: dB/dalpha < 0"] = bool(sp.diff(B, a).is_negative)
    out["step 7: dB/dG < 0"] = bool(sp.diff(B, G).is_negative)
    out["step 7: dB/dH < 0"] = bool(sp.diff(B, H).is_negative)
    return {k: bool(v) for k, v in out.items()}


def k_map_proofs() -> dict:
    """Proposition 12's rewriting: phi(x, g) = x - alpha K(x, g) for every x, g, alpha; at alpha = 0 K = (1 - x^2) g."""
    a = ALPHA
    x, g = _x, _g
    K = _k_component(x, g, a)
    return {"Phi_alpha = x - alpha K_alpha (each coordinate)": bool(sp.simplify(_phi(x, g, a) - (x - a * K)) == 0),
            "K_0 = (1 - x^2) g = Pg": bool(sp.simplify(K.subs(a, 0) - (1 - x**2) * g) == 0),
            "Phi_alpha on M is the reduced map of section 9 (kappa)": bool(
                sp.simplify(_phi(S.kappa, sdyn.PARTIALS[0], a) - sdyn.reduced_map_spec()[0]) == 0)}


def norm_proofs() -> dict:
    """The 2 x 2 operator norm: P = F^2 - 4 det^2, and (F +- sqrt(P))/2 are the eigenvalues of A^T A (their sum is F,
    their product det^2); the Hessian on M has R_nn = 0 and is symmetric."""
    a, b, c, d = sp.symbols("a b c d", real=True)
    F = a**2 + b**2 + c**2 + d**2
    P = ((a - d) ** 2 + (b + c) ** 2) * ((a + d) ** 2 + (b - c) ** 2)
    det = a * d - b * c
    AtA = sp.Matrix([[a, b], [c, d]]).T * sp.Matrix([[a, b], [c, d]])
    h = hessian()
    return {"P = F^2 - 4 det^2": sp.expand(P - (F**2 - 4 * det**2)) == 0,
            "trace(A^T A) = F": sp.expand(AtA.trace() - F) == 0,
            "det(A^T A) = det^2": sp.expand(AtA.det() - det**2) == 0,
            "R_nn = 0 on M": sp.simplify(h[3]) == 0,
            "R_kn = R_nk": sp.simplify(h[1] - h[2]) == 0}
