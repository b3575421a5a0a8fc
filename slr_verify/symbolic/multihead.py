r"""Multiple-location regression and the multi-head erf predictor: the risk in closed form
(`docs/MATH.md` §15; the paper's eqs. 30-31 give the model, not its risk).

Model: K distinct positions :math:`J_1..J_K`; :math:`X_{J_j} \sim N(\sqrt{d/2}\,k^*_j, \gamma^2 I_d)`,
the other L - K tokens :math:`N(0, I_d)`; :math:`Y = \sum_j X_{J_j}^\top v^*_j + \xi`,
:math:`\xi \sim N(0, \varepsilon^2)`. Predictor:
:math:`T = \sum_l S_l`, :math:`S_l = \sum_h \operatorname{erf}(\lambda X_l^\top k_h)\,X_l^\top v_h`,
every :math:`k_h, v_h` a unit vector.

**Reduction to token functionals.** Tokens are independent given the positions and T is a sum
over tokens, so (as in Theorem 1) the risk only needs, per token type (location j, or null),
:math:`m = \mathbb E S`, :math:`q = \mathbb E S^2` and, on the token of location j,
:math:`c_j = \mathbb E[e_j S]` with :math:`e_j = X^\top v^*_j`. With
:math:`M = \sum_j m_j + (L-K)\,m_0` and :math:`\bar e_j = \mathbb E e_j`:

.. math::

    R = \varepsilon^2 + \sum_j \mathbb E e_j^2 + \Big(\sum_j \bar e_j\Big)^2 - \sum_j \bar e_j^2
        - 2\sum_j \big[c_j + \bar e_j (M - m_j)\big]
        + \sum_j q_j + (L-K)\,q_0 + M^2 - \sum_j m_j^2 - (L-K)\,m_0^2 ,

:func:`assemble` and :func:`risk_from_overlaps` (written once, used on SymPy expressions and on floats alike).
None of it depends on the positions. Each of m, q, c is a sum over heads of four Gaussian
functionals of one token :math:`x \sim N(\mu, s^2 I)` (:func:`functionals`), evaluated by the
Gaussian-expectation engine; the cross term of two heads is where the bivariate zeta
(:mod:`.zeta2`) enters:

* ``head_mean``   :math:`\mathbb E[\operatorname{erf}(\lambda a)\,b]`,
* ``head_target`` :math:`\mathbb E[e\,\operatorname{erf}(\lambda a)\,b]`,
* ``head_square`` :math:`\mathbb E[\operatorname{erf}(\lambda a)^2 b^2]`,
* ``head_pair``   :math:`\mathbb E[\operatorname{erf}(\lambda a)\operatorname{erf}(\lambda a')\,b\,b']`,

with :math:`a = x^\top k_h`, :math:`b = x^\top v_h`, :math:`a' = x^\top k_{h'}`, :math:`b' = x^\top v_{h'}`:
a Gaussian vector whose mean is :math:`\sqrt{d/2}` times the overlaps with :math:`k^*_j` (0 on a
null token) and whose covariance is :math:`s^2` times the Gram matrix (:math:`s^2 = \gamma^2` or 1).
"""
from __future__ import annotations

from functools import lru_cache
from types import SimpleNamespace

import sympy as sp

from .gaussian import ERF, ERF2, ERF_PAIR, GaussianVector
from .risk import OVERLAPS, S
from .stored import stored

#: Local symbols of the token functionals: means (mu_*), variance scale s2, correlations (r_*).
_sym = lambda names: sp.symbols(names, real=True)
F = SimpleNamespace(
    mu_a=_sym("mu_a"), mu_b=_sym("mu_b"), mu_a2=_sym("mu_a2"), mu_b2=_sym("mu_b2"), mu_e=_sym("mu_e"),
    s2=sp.Symbol("s2", positive=True),
    r_ab=_sym("r_ab"), r_ae=_sym("r_ae"), r_be=_sym("r_be"),
    r_aa2=_sym("r_aa2"), r_ab2=_sym("r_ab2"), r_ba2=_sym("r_ba2"), r_bb2=_sym("r_bb2"), r_a2b2=_sym("r_a2b2"),
)

#: Argument order of each functional (lam first).
FUNCTIONAL_ARGS = {
    "head_mean": (S.lam, F.mu_a, F.mu_b, F.s2, F.r_ab),
    "head_target": (S.lam, F.mu_a, F.mu_b, F.mu_e, F.s2, F.r_ab, F.r_ae, F.r_be),
    "head_square": (S.lam, F.mu_a, F.mu_b, F.s2, F.r_ab),
    "head_pair": (S.lam, F.mu_a, F.mu_b, F.mu_a2, F.mu_b2, F.s2, F.r_ab, F.r_aa2, F.r_ab2, F.r_ba2, F.r_bb2, F.r_a2b2),
}


@lru_cache(maxsize=None)
def functionals() -> dict:
    """The four token functionals in closed form (erf, exp, zeta, zeta2), derived by the engine."""
    a, b, a2, b2, e = sp.symbols("a b a2 b2 e", real=True)
    lam, s2 = S.lam, F.s2
    one = GaussianVector((a, b), (F.mu_a, F.mu_b), s2 * sp.Matrix([[1, F.r_ab], [F.r_ab, 1]]))
    target = GaussianVector(
        (a, b, e), (F.mu_a, F.mu_b, F.mu_e),
        s2 * sp.Matrix([[1, F.r_ab, F.r_ae], [F.r_ab, 1, F.r_be], [F.r_ae, F.r_be, 1]]))
    pair = GaussianVector(
        (a, b, a2, b2), (F.mu_a, F.mu_b, F.mu_a2, F.mu_b2),
        s2 * sp.Matrix([[1, F.r_ab, F.r_aa2, F.r_ab2],
                        [F.r_ab, 1, F.r_ba2, F.r_bb2],
                        [F.r_aa2, F.r_ba2, 1, F.r_a2b2],
                        [F.r_ab2, F.r_bb2, F.r_a2b2, 1]]))
    return {
        "head_mean": one.expect(b, ERF(lam), a),
        "head_target": target.expect(e * b, ERF(lam), a),
        "head_square": one.expect(b**2, ERF2(lam), a),
        "head_pair": pair.expect_pair(b * b2, ERF_PAIR(lam), a, a2),
    }


def assemble(*, eps, gamma, L, e_mean, m_rel, q_rel, c_rel, m_null, q_null):
    r"""The risk from per-token moments (module docstring); works on SymPy expressions and on
    floats alike.

    ``e_mean[j]``: :math:`\mathbb E e_j` on the token of location j (its variance is
    :math:`\gamma^2`, v*_j being a unit vector); ``m_rel[j]``, ``q_rel[j]``, ``c_rel[j]``:
    :math:`\mathbb E S`, :math:`\mathbb E S^2`, :math:`\mathbb E[e_j S]` there; ``m_null``,
    ``q_null``: the same on a null token."""
    K = len(m_rel)
    n_null = L - K
    tot = lambda xs: sum(xs[1:], xs[0])
    M = tot(m_rel) + n_null * m_null
    e_tot = tot(e_mean)
    EY2 = eps**2 + K * gamma**2 + e_tot**2  # sum_j (gamma^2 + ebar_j^2) + sum_{i != j} ebar_i ebar_j
    EYT = tot([c_rel[j] + e_mean[j] * (M - m_rel[j]) for j in range(K)])
    ET2 = tot(q_rel) + n_null * q_null + M**2 - tot([x**2 for x in m_rel]) - n_null * m_null**2
    return EY2 - 2 * EYT + ET2


def risk_from_overlaps(H: int, K: int, g, f, *, lam, gamma, eps, L, shift):
    """The multi-head risk from the overlaps ``g(x, y)`` of the named vectors ``'k<h>'``,
    ``'v<h>'``, ``'ks<j>'``, ``'vs<j>'`` and the four token functionals ``f[name](*args)`` (in the
    order of ``FUNCTIONAL_ARGS``), with ``shift`` = sqrt(d/2). One code path for the SymPy
    derivation (:func:`multihead_risk_expr`, f substitutes into :func:`functionals`) and the
    float64 evaluation (:mod:`slr_verify.kernels.multihead`, f the generated kernels)."""
    def moments(mean_of, s2, target=None):
        m, q, c = 0, 0, 0
        for h in range(H):
            k, v = f"k{h}", f"v{h}"
            args = (lam, mean_of(k), mean_of(v), s2, g(k, v))
            m += f["head_mean"](*args)
            q += f["head_square"](*args)
            for h2 in range(H):
                if h2 != h:
                    k2, v2 = f"k{h2}", f"v{h2}"
                    q += f["head_pair"](lam, mean_of(k), mean_of(v), mean_of(k2), mean_of(v2), s2, g(k, v), g(k, k2),
                                        g(k, v2), g(v, k2), g(v, v2), g(k2, v2))
            if target is not None:
                c += f["head_target"](lam, mean_of(k), mean_of(v), mean_of(target), s2, g(k, v), g(k, target),
                                      g(v, target))
        return m, q, c

    e_mean, m_rel, q_rel, c_rel = [], [], [], []
    for j in range(K):
        mean_of = lambda name, ks=f"ks{j}": shift * g(ks, name)
        m, q, c = moments(mean_of, gamma**2, target=f"vs{j}")
        e_mean.append(mean_of(f"vs{j}"))
        m_rel.append(m)
        q_rel.append(q)
        c_rel.append(c)
    m0, q0, _ = moments(lambda name: 0 * shift, 1 + 0 * shift)
    return assemble(eps=eps, gamma=gamma, L=L, e_mean=e_mean, m_rel=m_rel, q_rel=q_rel, c_rel=c_rel, m_null=m0,
                    q_null=q0)


def gram_symbols(H: int, K: int) -> SimpleNamespace:
    """Symbols for the overlaps of k_h, v_h (h < H), k*_j, v*_j (j < K): ``g[(x, y)]`` for names
    like ``'k0'``, ``'v1'``, ``'ks0'``, ``'vs1'`` (symmetric; 1 on the diagonal)."""
    names = ([f"k{h}" for h in range(H)] + [f"v{h}" for h in range(H)]
             + [f"ks{j}" for j in range(K)] + [f"vs{j}" for j in range(K)])
    g, free = {}, []
    for i, x in enumerate(names):
        g[(x, x)] = sp.Integer(1)
        for y in names[i + 1:]:
            s = sp.Symbol(f"g_{x}_{y}", real=True)
            g[(x, y)] = g[(y, x)] = s
            free.append(s)
    return SimpleNamespace(names=names, g=g, free=tuple(free))


def multihead_risk_expr(H: int, K: int, orthogonal_targets: bool = True) -> tuple:
    """The multi-head risk for explicit H and K as one SymPy expression in the Gram symbols
    (and lam, gamma, eps, d, L); ``orthogonal_targets`` sets k*_j . v*_j = 0 (the paper's setting).

    Returns ``(expr, gram)``."""
    if H < 1 or K < 1:
        raise ValueError(f"H and K must be >= 1, got H={H}, K={K}")
    G = gram_symbols(H, K)
    g = dict(G.g)
    if orthogonal_targets:
        for j in range(K):
            g[(f"ks{j}", f"vs{j}")] = g[(f"vs{j}", f"ks{j}")] = sp.Integer(0)
    fn = functionals()
    f = {name: (lambda *a, name=name: fn[name].subs(dict(zip(FUNCTIONAL_ARGS[name], a)), simultaneous=True))
         for name in fn}
    expr = risk_from_overlaps(H, K, lambda x, y: g[(x, y)], f, lam=S.lam, gamma=S.gamma, eps=S.eps, L=S.L,
                              shift=sp.sqrt(S.d / 2))
    return expr, G


@stored
def risk_gradient_exprs(H: int, K: int) -> tuple:
    """For explicit (H, K): ``(free, exprs, pairs)``: the free Gram symbols (the order of ``gram_symbols(H, K).free``),
    [R, dR/dg_1, ...] (:func:`multihead_risk_expr` with orthogonal targets, differentiated) and, per free symbol, its
    (row, column) in the Gram matrix (row < column). Stored on disk (:mod:`.stored`): the differentiation is the
    slowest derivation of the multi-head kernels."""
    expr, G = multihead_risk_expr(H, K)
    free = G.free
    index = {}
    for i, x in enumerate(G.names):
        for j, y in enumerate(G.names):
            if j > i:
                index[G.g[(x, y)]] = (i, j)
    return free, [expr, *(sp.diff(expr, x) for x in free)], tuple(index[x] for x in free)


def theorem1_substitution() -> dict:
    """The Gram symbols of H = K = 1 in terms of Theorem 1's overlaps:
    k.k* = kappa, v.v* = nu, k*.v = theta, k.v* = eta, k.v = rho."""
    g = gram_symbols(1, 1).g
    kappa, nu, theta, eta, rho = OVERLAPS
    return {g[("k0", "ks0")]: kappa, g[("v0", "vs0")]: nu, g[("v0", "ks0")]: theta, g[("k0", "vs0")]: eta,
            g[("k0", "v0")]: rho}
