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


def map_into_q_proofs() -> dict:
    """Theorem 5's first unstated step (`docs/MATH.md` §20, "Every step"): Phi_alpha maps Q = [-1, 1]^2 into Q.
    Coordinate by coordinate 1 - phi^2 = (1 - x^2)(1 + alpha x g)^2 / s^2, s^2 = 1 + alpha^2 (1 - x^2) g^2 >= 1."""
    a = ALPHA
    x, g = _x, _g
    w = 1 - x**2
    form = w * (1 + a * x * g) ** 2 / (1 + a**2 * w * g**2)
    gap = sp.together(1 - _phi(x, g, a) ** 2 - form)
    W = sp.Symbol("W", nonnegative=True)
    return {"Phi_alpha maps Q into Q: 1 - phi(x, g)^2 = (1 - x^2)(1 + alpha x g)^2 / (1 + alpha^2 (1 - x^2) g^2) for "
            "every x, g, alpha": bool(sp.expand(sp.numer(gap)) == 0),
            "Phi_alpha maps Q into Q: W (1 + alpha x g)^2 / (1 + alpha^2 W g^2) >= 0 for W = 1 - x^2 >= 0, so |x| <= 1 "
            "gives |phi| <= 1": bool((W * (1 + a * x * g) ** 2 / (1 + a**2 * W * g**2)).is_nonnegative)}


def corner_jacobian_proofs() -> dict:
    """The second (`docs/MATH.md` §20): at a corner (x, y) of Q, D Phi_alpha = diag((1 + alpha x g_kappa)^2,
    (1 + alpha y g_nu)^2) = diag((1 - alpha h_11)^2, (1 - alpha h_22)^2), h the angle Hessian of Proposition 9; where
    h_ii < 0 (the maxima, certified by the Hessian-signs certificate) both entries exceed 1 for every alpha > 0."""
    a = ALPHA
    x, y = _x, sp.Symbol("y", real=True)
    gf = sp.Function("g")(x, y)
    ph = _phi(x, gf, a)
    generic = all(sp.simplify(sp.diff(ph, x).subs(x, c) - (1 + a * c * gf.subs(x, c)) ** 2) == 0
                  and sp.simplify(sp.diff(ph, y).subs(x, c)) == 0 for c in (1, -1))
    red = sdyn.reduced_map()
    on_m = all(sp.simplify(_phi(X, P, a) - red[i]) == 0
               for i, (X, P) in enumerate(((S.kappa, sdyn.PARTIALS[0]), (S.nu, sdyn.PARTIALS[1]))))
    gk, gn = gradient()
    hess = True
    for pt in sfix.CORNERS:
        h, sub = sfix.manifold_hessian(pt), {S.kappa: pt[0], S.nu: pt[1]}
        hess = hess and sp.simplify(h[0, 0] + pt[0] * gk.subs(sub)) == 0 and sp.simplify(h[1, 1] + pt[1] * gn.subs(sub)) == 0
    m = sp.Symbol("m", positive=True)
    return {"corner Jacobian: for any smooth g(x, y), d phi(x, g)/dx = (1 + alpha x g)^2 and d phi(x, g)/dy = 0 at "
            "x = +-1": bool(generic),
            "corner Jacobian: on M the reduced map is (phi(kappa, R_kappa), phi(nu, R_nu)) (kappa and nu)": bool(on_m),
            "corner Jacobian: at each corner (x, y) the angle Hessian is diag(-x g_kappa, -y g_nu), so D Phi_alpha = "
            "diag((1 - alpha h_11)^2, (1 - alpha h_22)^2) there": bool(hess),
            "corner Jacobian: (1 + alpha m)^2 - 1 > 0 for alpha, m > 0: where h_ii = -m < 0 (the maxima) each entry "
            "exceeds 1": bool(sp.expand((1 + a * m) ** 2 - 1).is_positive)}


def angle_chart_proofs() -> dict:
    """The third (`docs/MATH.md` §20): Shub's theorem on the torus. With C(phi, psi) = (cos phi, cos psi) and
    f = R o C, the map Psi_alpha(theta) = theta - atan(alpha grad f(theta)) (componentwise) on T^2 satisfies
    C o Psi_alpha = Phi_alpha o C, D Psi_alpha = I - alpha diag(1/(1 + alpha^2 f_i^2)) hess f, and
    hess f = -diag(cos phi g_kappa, cos psi g_nu) + S hess R S (S = diag(sin phi, sin psi)); B >= 1/2 gives
    alpha (G + H) < 1, so alpha ||hess f|| < 1 and D Psi_alpha is invertible on the whole torus."""
    a = ALPHA
    th, ps, t1, t2 = sp.symbols("phi psi t1 t2", real=True)
    g = _g
    lhs = sp.expand_trig(sp.cos(th - sp.atan(a * (-sp.sin(th) * g))))
    semi = sp.expand((lhs - _phi(sp.cos(th), g, a)).subs(sp.sin(th) ** 2, 1 - sp.cos(th) ** 2)) == 0
    f = sp.Function("f")(th, ps)
    Psi = sp.Matrix([th - sp.atan(a * sp.diff(f, th)), ps - sp.atan(a * sp.diff(f, ps))])
    Dm = sp.diag(1 / (1 + a**2 * sp.diff(f, th) ** 2), 1 / (1 + a**2 * sp.diff(f, ps) ** 2))
    dpsi = sp.expand(Psi.jacobian([th, ps]) - (sp.eye(2) - a * Dm * sp.hessian(f, (th, ps)))) == sp.zeros(2)
    # the chain rule at (t1, t2) needs R's 2-jet at C(t1, t2) only: a quadratic with free coefficients is any 2-jet
    r1, r2, r11, r12, r22 = sp.symbols("r1 r2 r11 r12 r22", real=True)
    dk, dn = sp.cos(th) - sp.cos(t1), sp.cos(ps) - sp.cos(t2)
    fj = r1 * dk + r2 * dn + r11 * dk**2 / 2 + r12 * dk * dn + r22 * dn**2 / 2
    at = {th: t1, ps: t2}
    Hf = sp.hessian(fj, (th, ps)).subs(at)
    Sm = sp.diag(sp.sin(t1), sp.sin(t2))
    want = -sp.diag(sp.cos(t1) * r1, sp.cos(t2) * r2) + Sm * sp.Matrix([[r11, r12], [r12, r22]]) * Sm
    hess = sp.expand(Hf - want) == sp.zeros(2)
    grad = [sp.diff(fj, v).subs(at) for v in (th, ps)]
    sin2 = {sp.sin(t) ** 2: 1 - sp.cos(t) ** 2 for t in (t1, t2)}
    pg = sp.expand(sp.expand(grad[0] ** 2 + grad[1] ** 2).subs(sin2)
                   - ((1 - sp.cos(t1) ** 2) * r1**2 + (1 - sp.cos(t2) ** 2) * r2**2)) == 0
    A_, G, H = BRACKET_ARGS
    u = sp.Symbol("u", positive=True)
    split = sp.expand(1 - A_ * (G + H) / 2 - bracket() - ((1 - 1 / sp.sqrt(1 + A_**2 * G**2))
                                                          + (A_ * H / 2) * ((1 + A_ * G / 2) ** 2 - 1))) == 0
    first = sp.solveset(1 / sp.sqrt(1 + u) >= 1, u, sp.Interval.open(0, sp.oo)) == sp.S.EmptySet
    second = bool(sp.expand((A_ * H / 2) * ((1 + A_ * G / 2) ** 2 - 1)).is_positive)
    return {"angle chart: cos(phi - atan(alpha f_phi)) = phi(cos phi, g) with f_phi = -sin(phi) g (C o Psi_alpha = "
            "Phi_alpha o C)": bool(semi),
            "angle chart: D Psi_alpha = I - alpha diag(1/(1 + alpha^2 f_i^2)) hess f, = I - alpha hess f where grad f = 0":
                bool(dpsi),
            "angle chart: hess (R o C) = -diag(cos phi g_kappa, cos psi g_nu) + S hess R S, S = diag(sin phi, sin psi)":
                bool(hess),
            "angle chart: |grad (R o C)|^2 = (1 - kappa^2) g_kappa^2 + (1 - nu^2) g_nu^2 = |Pg|^2": bool(pg),
            "angle chart: 1 - alpha (G + H)/2 - B(alpha, G, H) = (1 - 1/sqrt(1 + alpha^2 G^2)) + (alpha H/2)((1 + "
            "alpha G/2)^2 - 1)": bool(split),
            "angle chart: 1/sqrt(1 + u) < 1 for u > 0 and (alpha H/2)((1 + alpha G/2)^2 - 1) > 0, so B >= 1/2 gives "
            "alpha (G + H) < 1": bool(first and second)}


def manifold_chart_proofs() -> dict:
    """The fourth (`docs/MATH.md` §20): null sets of Q pull back to null sets of M. In the basis (k, v, k*, v*) with
    Gram matrix on M (theta = eta = rho = 0, k*.v* = 0): the five constraints' gradients in R^{2d} (|k|^2, |v|^2,
    k.v*, v.k*, k.v) have Gram determinant 2 - kappa^2 - nu^2 (M is smooth of dimension 2d - 5 but at the four
    points (+-k*, +-v*)); t1 = (k* - kappa k, 0) and t2 = (0, v* - nu v) are tangent to M and
    d(kappa, nu) maps them to (1 - kappa^2, 0) and (0, 1 - nu^2): a submersion where |kappa|, |nu| < 1."""
    Gm = sdyn.gram().subs({S.theta: 0, S.eta: 0, S.rho: 0})
    k, v, ks, vs = (sp.Matrix([int(i == j) for j in range(4)]) for i in range(4))
    z = sp.zeros(4, 1)

    def ip(p, q):
        return sp.expand((p[0].T * Gm * q[0])[0, 0] + (p[1].T * Gm * q[1])[0, 0])

    normals = [(k, z), (z, v), (vs, z), (z, ks), (v, k)]
    det = sp.Matrix(5, 5, lambda i, j: ip(normals[i], normals[j])).det()
    t1, t2 = (ks - S.kappa * k, z), (z, vs - S.nu * v)
    tangent = all(ip(n, t) == 0 for n in normals for t in (t1, t2))
    image = [ip((ks, z), t1), ip((z, vs), t1), ip((ks, z), t2), ip((z, vs), t2)]
    regular = sp.expand(det - (2 - S.kappa**2 - S.nu**2)) == 0
    return {"null sets pull back: on M the Gram determinant of the constraints' gradients (|k|^2, |v|^2, k.v*, v.k*, "
            "k.v) is 2 - kappa^2 - nu^2, zero on Q only at the four corners": bool(regular),
            "null sets pull back: (k* - kappa k, 0) and (0, v* - nu v) are tangent to M": bool(tangent),
            "null sets pull back: d(kappa, nu) maps them to (1 - kappa^2, 0) and (0, 1 - nu^2) (a submersion where "
            "|kappa|, |nu| < 1)": bool(sp.expand(image[0] - (1 - S.kappa**2)) == 0 and image[1] == 0 and image[2] == 0
                                       and sp.expand(image[3] - (1 - S.nu**2)) == 0)}


def theorem5_step_proofs() -> dict:
    """The four steps of Theorem 5's proof that the paper leaves unargued (`docs/MATH.md` §20, "Every step")."""
    return {**map_into_q_proofs(), **corner_jacobian_proofs(), **angle_chart_proofs(), **manifold_chart_proofs()}
