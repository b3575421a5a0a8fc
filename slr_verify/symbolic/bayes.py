r"""The Bayes predictor's Gaussian identities (`docs/MATH.md` §18).

Used by the Bayes and softmax routes (:mod:`slr_verify.routes.bayes`, which import no formula layer and type
them from the definitions) and checked here by SymPy:

* :func:`posterior_identities`: the log-likelihood ratio log f1(x)/f0(x) of "token relevant" against "token
  null", written with x = u k* + w v* + x_perp (|x_perp|^2 = C) and C = s - u^2 - w^2, depends on (u, s) only and
  equals the score c (s - d) + mu u / gamma^2 (c = (1 - gamma^-2)/2) plus a term common to all tokens; with one
  token the posterior is 1 and the conditional variance of w vanishes.
* :func:`chernoff_factors`: per direction, N(x; 0, 1)^(1-t) N(x; m, gamma^2)^t = b_t(m) N(x; t m/(gamma^2 tau), 1/tau),
  tau = 1 - t + t/gamma^2 (t = 1/2: sqrt(f0 f1) = b N(x; m/(1 + gamma^2), 2 gamma^2/(1 + gamma^2)));
  :func:`log_chernoff_expr` is log B_t = log b_t(mu) + (d - 1) log b_t(0).
* :func:`softmax_tilt_identity`: the exponential tilt of (u_J0, u_m) by exp(-theta (u_J0 - u_m)) is
  N(mu - theta gamma^2, gamma^2) x N(theta, 1), normaliser M(theta) = exp(-theta mu + theta^2 (1 + gamma^2)/2).
"""
from __future__ import annotations

from functools import cache

import sympy as sp

from ..model.params import keywords_checked

u, w, C, s, x = sp.symbols("u w C s x", real=True)
gamma, mu, d, theta, t = sp.symbols("gamma mu d theta t", positive=True)


def _normal(y, m, v):
    return sp.exp(-((y - m) ** 2) / (2 * v)) / sp.sqrt(2 * sp.pi * v)


def _log_ratio_zero(a, b) -> bool:
    return sp.simplify(sp.expand_log(sp.log(a / b), force=True)) == 0


@cache
def posterior_identities() -> dict:
    """{name: bool} for the posterior's score (module docstring)."""
    log_f1 = -d / 2 * sp.log(2 * sp.pi * gamma**2) - ((u - mu) ** 2 + w**2 + C) / (2 * gamma**2)
    log_f0 = -d / 2 * sp.log(2 * sp.pi) - (u**2 + w**2 + C) / 2
    llr = sp.expand((log_f1 - log_f0).subs(C, s - u**2 - w**2))
    c = (1 - 1 / gamma**2) / 2
    rest = sp.simplify(llr - (c * (s - d) + mu * u / gamma**2))
    p1 = sp.Integer(1)  # one token: its posterior
    return {
        "log f1/f0 depends on (u, s) only": llr.free_symbols == {u, s, gamma, mu, d},
        "log f1/f0 = c (s - d) + mu u / gamma^2 + (token-independent)": not rest.free_symbols & {u, s, w, C},
        "L = 1: Var(w_J0 | X) = p w^2 - (p w)^2 = 0": sp.simplify(p1 * w**2 - (p1 * w) ** 2) == 0,
    }


def _log_normal(y, m, v):
    return -((y - m) ** 2) / (2 * v) - sp.log(2 * sp.pi * v) / 2


@cache
def chernoff_factors():
    """(log b_t(mu), log b_t(0), holds) with f0^(1-t) f1^t = b_t(m) N(x; t m/(gamma^2 tau), 1/tau) along a direction
    where f1 has mean m (tau = 1 - t + t/gamma^2); ``holds``: log b_t is free of x in both directions (t = 1/2: the
    geometric mean sqrt(f0 f1) = b N(x; m/(1 + gamma^2), 2 gamma^2/(1 + gamma^2)))."""
    out, ok = [], True
    tau = 1 - t + t / gamma**2
    for m in (mu, sp.Integer(0)):
        log_h = (1 - t) * _log_normal(x, 0, 1) + t * _log_normal(x, m, gamma**2)
        log_b = sp.expand(log_h - _log_normal(x, t * m / (gamma**2 * tau), 1 / tau))
        ok = ok and sp.simplify(sp.diff(log_b, x)) == 0
        out.append(sp.simplify(log_b.subs(x, 0)))
    return out[0], out[1], bool(ok)


@cache
def log_chernoff_expr() -> sp.Expr:
    """log B_t(gamma, d) = log int_{R^d} f0^(1-t) f1^t, f0 = N(0, I), f1 = N(mu k*, gamma^2 I), mu = sqrt(d/2)
    (t = 1/2: the Bhattacharyya coefficient)."""
    lb_mu, lb_0, _ = chernoff_factors()
    return (lb_mu + (d - 1) * lb_0).subs(mu, sp.sqrt(d / 2))


#: the symbols of :func:`log_chernoff_expr`, for :func:`log_chernoff_value`, whose parameters take their names
_GAMMA, _D, _T = gamma, d, t


@keywords_checked
def log_chernoff_value(gamma, d, t, *, digits=30) -> float:
    """log B_t(gamma, d) at one point (gamma > 0, d > 0, 0 < t < 1): :func:`log_chernoff_expr` evaluated by SymPy to
    ``digits`` significant digits, rounded to the nearest float (`docs/MATH.md` §18; the reference for the Bayes
    route's typed form :func:`slr_verify.routes.bayes.log_chernoff`)."""
    return float(log_chernoff_expr().subs({_GAMMA: gamma, _D: d, _T: t}).evalf(digits))


@cache
def softmax_tilt_identity() -> bool:
    """The softmax route's proposal and its normaliser (module docstring)."""
    u0, um = sp.symbols("u0 u_m", real=True)
    M = sp.exp(-theta * mu + theta**2 * (1 + gamma**2) / 2)
    lhs = _normal(u0, mu, gamma**2) * _normal(um, 0, 1) * sp.exp(-theta * (u0 - um)) / M
    return _log_ratio_zero(lhs, _normal(u0, mu - theta * gamma**2, gamma**2) * _normal(um, theta, 1))


@cache
def bound_identities() -> dict:
    """The two steps of the bound R_B - eps^2 <= Z_p (2 gamma^2/(1 + gamma^2)) B^2 (docs/MATH.md section 18):
    a + b - 2 sqrt(a b) = (sqrt a - sqrt b)^2 >= 0 (so the pair weight sqrt(a b)/S <= 1/2 when S >= a + b), and
    E_h[(w_l - w_m)^2] = 4 gamma^2/(1 + gamma^2) for w_l, w_m independent N(0, 2 gamma^2/(1 + gamma^2))."""
    a, b = sp.symbols("a b", positive=True)
    v_h = 2 * gamma**2 / (1 + gamma**2)
    y = sp.Symbol("y", real=True)
    moment = [sp.integrate(y**k * _normal(y, 0, v_h), (y, -sp.oo, sp.oo), conds="none") for k in (1, 2)]
    second = 2 * moment[1] - 2 * moment[0] ** 2  # E(y1 - y2)^2 for independent copies
    return {
        "a + b - 2 sqrt(a b) = (sqrt(a) - sqrt(b))^2":
            sp.expand((sp.sqrt(a) - sp.sqrt(b)) ** 2 - (a + b - 2 * sp.sqrt(a * b))) == 0,
        "E_h[(w_l - w_m)^2] = 4 gamma^2 / (1 + gamma^2)": sp.simplify(second - 4 * gamma**2 / (1 + gamma**2)) == 0,
    }


def identities() -> dict:
    """Every identity of this module, {name: bool} (for the claims' ``Identities`` evidence)."""
    out = dict(posterior_identities())
    out["f0^(1-t) f1^t = B_t x N(t mu/(gamma^2 tau) k*, I/tau), tau = 1 - t + t/gamma^2"] = chernoff_factors()[2]
    out["softmax tilt: f exp(-theta D)/M(theta) = N(mu - theta gamma^2, gamma^2) N(theta, 1)"] = softmax_tilt_identity()
    out.update(bound_identities())
    return out
