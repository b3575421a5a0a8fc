"""The Bayes risk and the softmax attention risk at (k*, v*), d-free, with relative accuracy (`docs/MATH.md` §18).

**Bayes predictor.** f_B(X) = E[Y | X] = sum_l p_l w_l, w_l = X_l^T v*, p_l = P(J0 = l | X) proportional to
pi_l exp(psi_l) with the score

    psi_l = c (s_l - d) + mu u_l / gamma^2,    c = (1 - gamma^-2) / 2,  mu = sqrt(d/2),

u_l = X_l^T k*, s_l = |X_l|^2 (the log-likelihood ratio of "token l is relevant" against "token l is null",
up to terms common to every token). R_B = eps^2 + E[sum_l p_l (w_l - wbar)^2], wbar = sum_l p_l w_l.
Per token (u_l, w_l) is Gaussian and C_l = s_l - u_l^2 - w_l^2 is (variance) x chi^2_{d-2}, independent of
(u_l, w_l): sampling (u, w, C) is exact and costs O(L) per sample whatever d.

**Relative accuracy (importance sampling).** With f0 = N(0, I_d), f1 = N(mu k*, gamma^2 I_d) and
Lambda_l = f1(X_l)/f0(X_l), the excess splits over pairs of tokens,

    R_B - eps^2 = sum_{l<m} pi_l pi_m E_0[Lambda_l Lambda_m (w_l - w_m)^2 / S],  S = sum_k pi_k Lambda_k,

E_0 over all tokens null. The pair (l, m) is drawn with probability sqrt(pi_l pi_m)/Z_p and both of its tokens
from the geometric mean h = sqrt(f0 f1)/B (B = int sqrt(f0 f1), the Bhattacharyya coefficient of one token):
h = N(mu/(1 + gamma^2) k*, 2 gamma^2/(1 + gamma^2) I_d), log B = -mu^2/(4(1 + gamma^2)) - (d/2) log((1 + gamma^2)/(2 gamma)).
Then R_B - eps^2 = B^2 Z_p E[exp((a_l + a_m)/2 - log S') (w_l - w_m)^2] with a_k = log pi_k + psi_k,
S' = sum_k exp(a_k); the weight exp((a_l + a_m)/2 - log S') is at most 1/2 (AM-GM), so the relative variance does not
grow like the excess's inverse (exp(0.23 d) at gamma^2 = 1/2): the answer is returned as a logarithm. It is not bounded in
d: the expectation left after B^2 Z_p decays polynomially, and the relative standard error at a fixed n grows with d
(tests/test_bayes.py shows it past 0.5 at d = 1e10, L = 10, n = 2^16); an estimate whose relative standard error
exceeds :data:`MAX_RELATIVE_ERROR` is refused, naming n and d.

**Softmax at (k*, v*).** T = sum_l softmax_l(lam u) w_l reads u only; w is independent of u, so
R_soft - eps^2 = E[gamma^2 (1 - p_J0)^2 + sum_{m != J0} p_m^2] (w integrated out exactly; the law of J0 does not
matter: J0 = 0 here). Importance sampling: a null token m is chosen uniformly and D_m = u_J0 - u_m ~ N(mu, 1 + gamma^2)
is tilted by exp(-theta D_m), theta = min(2 lam, mu/(1 + gamma^2)) (p_m^2 ~ exp(-2 lam D_m) where it is small;
the tilt never pushes D_m's mean below 0, where p_m saturates); the balance-heuristic weight over the L - 1
choices is (L - 1) M(theta) / sum_m exp(-theta D_m), M(theta) = exp(-theta mu + theta^2 (1 + gamma^2)/2).

The Gaussian algebra (score, h, B, the tilt) is typed here from the definitions (this route imports no formula
layer) and derived by SymPy in :mod:`slr_verify.symbolic.bayes`; tests/test_bayes.py compares the two. Seeding, blocks and
chunking are those of :mod:`slr_verify.routes.montecarlo`.
"""
from __future__ import annotations

import math
from typing import NamedTuple

import numpy as np

from slr_verify.model import budgets as B
from slr_verify.model import validation as V
from slr_verify.model.params import accepts_gamma2, scalars
from slr_verify.model.sampling import (
    STREAM_FULL,
    STREAM_PROJ,
    STREAM_TILTED,
    draw_full,
    draw_locations,
    instance,
    law,
    scalar,
)
from slr_verify.routes.montecarlo import (
    DEFAULT_MEMORY,
    SECONDS_PER_TOKEN,
    SECONDS_PER_TOKEN_DIM,
    MCResult,
    ProjectionSampler,
    check_memory,
    projection_law,
    run_blocks,
    samples_per_chunk,
)

#: ``'importance'``: the tilted estimators above (relative accuracy at any size); ``'direct'``: plain sampling
#: of the model's law (an independent check where the excess is not tiny).
METHODS = ("importance", "direct")
DEFAULT_N = 1 << 17


class LogMCResult(NamedTuple):
    """A positive Monte Carlo estimate held as its logarithm, and its relative standard error.

    ``log_estimate`` is -inf when the quantity is exactly 0 (then ``relative_error`` is 0)."""

    log_estimate: float
    relative_error: float

    @property
    def estimate(self) -> float:
        """exp(log_estimate): underflows to 0.0 below float64's range; use ``log_estimate`` there."""
        return math.exp(self.log_estimate)

    @property
    def standard_error(self) -> float:
        return self.estimate * self.relative_error


#: the largest relative standard error an estimate is returned with: beyond it the normal interval says nothing
MAX_RELATIVE_ERROR = 0.5


def _log_result(log_const: float, r: MCResult, n, d) -> LogMCResult:
    """The estimate exp(log_const) r as a logarithm; ``ValueError`` naming n and d when it is not positive or its
    relative standard error exceeds :data:`MAX_RELATIVE_ERROR` (the route cannot state its accuracy there)."""
    if r.estimate <= 0.0:
        raise ValueError(f"n = {n} samples at d = {d:g}: the Monte Carlo estimate is not positive, n is too small to see the "
                         "rare event (increase n, or use method='importance')")
    rel = r.standard_error / r.estimate
    if rel > MAX_RELATIVE_ERROR:
        raise ValueError(f"n = {n} samples at d = {d:g}: the estimate's relative standard error {rel:.2g} exceeds "
                         f"{MAX_RELATIVE_ERROR}, where its normal interval means nothing (the importance samplers' relative "
                         "variance grows with d); increase n")
    return LogMCResult(log_const + math.log(r.estimate), rel)


def _risk(eps: float, x: LogMCResult) -> MCResult:
    return MCResult(eps * eps + x.estimate, x.standard_error)


def _method(method) -> str:
    if not isinstance(method, str) or method not in METHODS:
        raise ValueError(f"method must be one of {METHODS}, got {method!r}")
    return method


def _setting(gamma, d, L, n, seed, memory, lam=None):
    gamma, d, L = scalars(gamma=gamma, d=d, L=L)
    n = V.integer("n", n, 2, floats=True)
    B.memory_budget("L", 16.0 * L, f"one sample of L = {L:,} tokens")  # an L too large is L's, not n's
    B.time_budget("n", n * SECONDS_PER_TOKEN * L, f"{n:,} Monte Carlo samples of {L:,} tokens")
    lam = None if lam is None else scalars(lam=lam)[0]
    return gamma, d, L, n, V.integer("seed", seed, 0), check_memory(memory), lam


def _tilt_args(gamma, d, s):
    """(gamma, d, s) of the Chernoff tilt, validated: ``ValueError`` naming the one outside gamma > 0, d >= 1 (the
    closed forms hold in every dimension; d = 1 gives the rate per dimension), 0 < s < 1."""
    s = V.real("s", s, minimum=0.0, strict_min=True, maximum=None)
    if not s < 1.0:
        raise ValueError(f"s must be < 1 (the tilt between f0 and f1), got {s!r}")
    return scalar(V.positive, "gamma", gamma), V.integer("d", d, 1, floats=True), s


@accepts_gamma2
def tilted_token_law(gamma, d, s=0.5):
    """(mean along k*, standard deviation) of h_s = f0^(1-s) f1^s / B_s, the token law of the Bayes route's proposal
    (s = 1/2: the geometric mean h): precision tau = 1 - s + s/gamma^2, mean s sqrt(d/2) / (gamma^2 tau).
    gamma > 0, an integer d >= 1, s in (0, 1)."""
    gamma, d, s = _tilt_args(gamma, d, s)
    tau = 1.0 - s + s / (gamma * gamma)
    return s * math.sqrt(d / 2.0) / (gamma * gamma * tau), 1.0 / math.sqrt(tau)


@accepts_gamma2
def log_chernoff(gamma, d, s=0.5):
    """log B_s = log int f0^(1-s) f1^s over R^d, f0 = N(0, I), f1 = N(sqrt(d/2) k*, gamma^2 I) (one token);
    s = 1/2 is the Bhattacharyya coefficient B = -d/(8 (1 + gamma^2)) - (d/2) log((1 + gamma^2)/(2 gamma)):

        log B_s = -d (s log gamma + log(tau)/2) - s (1 - s) (d/2) / (2 ((1 - s) gamma^2 + s)),  tau = 1 - s + s/gamma^2.

    gamma > 0, an integer d >= 1, s in (0, 1).
    """
    gamma, d, s = _tilt_args(gamma, d, s)
    g2 = gamma * gamma
    tau = 1.0 - s + s / g2
    return -d * (s * math.log(gamma) + 0.5 * math.log(tau)) - s * (1.0 - s) * (d / 2.0) / (2.0 * ((1.0 - s) * g2 + s))


@accepts_gamma2
def log_bayes_excess_bound(*, gamma, d, L, p=None) -> float:
    """log of the upper bound R_B - eps^2 <= Z_p (2 gamma^2/(1 + gamma^2)) B(d)^2 (`docs/MATH.md` §18).

    Proof: the pair weight is at most 1/2 (AM-GM) and E_h[(w_l - w_m)^2] = 4 gamma^2/(1 + gamma^2). Since
    log B = -c(gamma) d / 2 + O(1), the Bayes part of Corollary 2's gap vanishes at least like exp(-c(gamma) d).
    -inf when J0 can take one value only (then R_B = eps^2 exactly)."""
    gamma, d, L = scalars(gamma=gamma, d=d, L=L)
    pi, _ = law(p, L)
    if np.count_nonzero(pi) < 2:
        return -math.inf
    z_pairs = _PairSampler(pi).z_pairs
    _, s_h = tilted_token_law(gamma, d)
    return math.log(z_pairs) + 2.0 * math.log(s_h) + 2.0 * log_chernoff(gamma, d)


def logsumexp(a, axis, keepdims=False):
    """log sum exp(a) along ``axis``, shifted by the largest term (a row of -inf gives -inf, no warning): scipy's
    ``logsumexp`` computes the same and costs five times as much on the (samples, L) blocks here."""
    m = np.max(a, axis=axis, keepdims=True)
    m = np.where(np.isfinite(m), m, 0.0)
    with np.errstate(divide="ignore"):
        out = np.log(np.sum(np.exp(a - m), axis=axis, keepdims=True)) + m
    return out if keepdims else np.squeeze(out, axis=axis)


def _piece(L, floats_per_token, memory):
    """Samples per chunk: fixed (about 2^15 tokens, like the projection sampler) so that the draws, which
    interleave several arrays per chunk, do not depend on the memory budget; ``memory`` must hold one chunk."""
    piece = max(1, (1 << 15) // L)
    need = 8.0 * L * floats_per_token * piece
    if need > memory:
        raise ValueError(f"memory={memory} bytes is too small for the Bayes/softmax route (needs about {int(need)} bytes)")
    return piece


def _chi2_rest(gen, d, shape):
    """chi^2_{d-2} draws (the squared norm off span(k*, v*)); zeros when d = 2."""
    return gen.chisquare(d - 2, shape) if d > 2 else np.zeros(shape)


def _scores(u, w, C, gamma, d):
    """psi_l = c (s_l - d) + mu u_l / gamma^2 (constants common to all tokens dropped)."""
    c = 0.5 * (1.0 - 1.0 / (gamma * gamma))
    return c * (u * u + w * w + (C - d)) + (math.sqrt(d / 2.0) / (gamma * gamma)) * u


# ----------------------------------------------------------------------------------------------
# Bayes


@accepts_gamma2
def bayes_excess(*, gamma, d, L, p=None, n=DEFAULT_N, seed=0, method="importance", tilt=0.5,
                 memory=DEFAULT_MEMORY) -> LogMCResult:
    """R_B - eps^2 = E[Var(w_J0 | X)] (`docs/MATH.md` §18; independent of eps), as a :class:`LogMCResult`.

    p: the law of J0 (uniform by default). ``method='importance'`` (default): the pair estimator of the module
    docstring, relative accuracy however small the excess; ``'direct'``: the model's law sampled d-free
    (tokens' projections on k*, v* from the Monte Carlo route's projection sampler, chi^2_{d-2} for the rest of
    the norm), per-sample value sum_l p_l (w_l - wbar)^2. L = 1 (or a J0 with one possible location) gives
    exactly 0 (log -inf). Deterministic in (arguments, seed), independent of ``memory``.

    ``tilt`` (importance only, 0 < tilt < 1): the exponent s of the proposal; the pair's tokens come from h_s and
    h_{1-s} (:func:`tilted_token_law`), in random order, with weight exp((1-s) a_l + s a_m - log S') (pi_l/pi_m)^(s-1/2)
    <= max(s, 1-s) (weighted AM-GM). s = 1/2 (default) is the Chernoff-optimal proposal; another s gives an
    estimate of the same number from a different proposal (an independent check where the excess is tiny).
    """
    method = _method(method)
    tilt = scalar(V.positive, "tilt", tilt)
    if not tilt < 1.0:
        raise ValueError(f"tilt must be in (0, 1), got {tilt!r}")
    gamma, d, L, n, seed, memory, _ = _setting(gamma, d, L, n, seed, memory)
    pi, cdf = law(p, L)
    if np.count_nonzero(pi) < 2:
        return LogMCResult(-math.inf, 0.0)
    with np.errstate(divide="ignore"):
        log_pi = np.log(pi)
    if method == "direct":
        return _bayes_direct(gamma, d, L, n, seed, memory, cdf, log_pi)
    return _bayes_importance(gamma, d, L, n, seed, memory, pi, log_pi, tilt)


@accepts_gamma2
def bayes_risk(*, gamma, eps=0.0, d, L, p=None, n=DEFAULT_N, seed=0, method="importance", tilt=0.5,
               memory=DEFAULT_MEMORY) -> MCResult:
    """The Bayes risk R_B = E[(Y - E[Y | X])^2] (`docs/MATH.md` §18) and its standard error.

    eps^2 + :func:`bayes_excess` (the noise part is exact); see there for the arguments.
    """
    (eps,) = scalars(eps=eps)
    return _risk(eps, bayes_excess(gamma=gamma, d=d, L=L, p=p, n=n, seed=seed, method=method, tilt=tilt, memory=memory))


def _bayes_direct(gamma, d, L, n, seed, memory, cdf, log_pi):
    _, G, mean = projection_law(1.0, 1.0, 0.0, 0.0, 0.0, d)
    sampler = ProjectionSampler(G, mean, gamma, cdf, L, (2, 3))  # (X^T k*, X^T v*) of every token

    def values(gens, m):
        (u, w), _, J0 = sampler.draw(gens, m)
        C = _chi2_rest(gens[0], d, (m, L))
        C[np.arange(m), J0] *= gamma * gamma
        a = log_pi + _scores(u, w, C, gamma, d)
        pr = np.exp(a - logsumexp(a, axis=1, keepdims=True))
        wbar = np.einsum("ml,ml->m", pr, w)
        return np.einsum("ml,ml->m", pr, (w - wbar[:, None]) ** 2)[None]

    piece = _piece(L, 12, memory)
    return _log_result(0.0, run_blocks(n, seed, STREAM_PROJ, piece, values)[0], n, d)


class _PairSampler:
    """Unordered pairs {l, m}, l != m, with probability proportional to sqrt(pi_l pi_m), in O(L) memory.

    With r = sqrt(pi) and S = sum r: the first index l has marginal r_l (S - r_l) / (S^2 - 1); the second is drawn
    from r with l's atom cut out of the cumulative table (an exact inversion, no rejection). Z_p = sum_{l<m}
    sqrt(pi_l pi_m) = (S^2 - 1)/2."""

    def __init__(self, pi):
        self.r = np.sqrt(pi)
        total = float(self.r.sum())
        self.z_pairs = 0.5 * (total * total - 1.0)
        first = self.r * (total - self.r)
        self.first_cdf = np.cumsum(first) / first.sum()
        self.first_cdf[int(np.flatnonzero(first > 0)[-1]):] = 1.0
        self.cum = np.cumsum(self.r)
        self.before = self.cum - self.r  # cumulative mass before each index
        self.total = total

    def draw(self, gen, m):
        first = draw_locations(gen, self.first_cdf, m)
        v = gen.random(m) * (self.total - self.r[first])
        v = np.where(v >= self.before[first], v + self.r[first], v)  # skip first's own interval
        second = np.minimum(np.searchsorted(self.cum, v, side="right"), self.r.size - 1)
        return first, second


def _bayes_importance(gamma, d, L, n, seed, memory, pi, log_pi, s=0.5):
    pairs = _PairSampler(pi)
    laws = (tilted_token_law(gamma, d, s), tilted_token_law(gamma, d, 1.0 - s))

    def values(gens, m):
        g_tok, g_loc, _ = gens
        a_idx, b_idx = pairs.draw(g_loc, m)
        if s != 0.5:  # random orientation: token a_idx from h_s, b_idx from h_(1-s)
            flip = g_loc.random(m) < 0.5
            a_idx, b_idx = np.where(flip, b_idx, a_idx), np.where(flip, a_idx, b_idx)
        rows = np.arange(m)
        u, w = g_tok.standard_normal((2, m, L))
        C = _chi2_rest(g_tok, d, (m, L))
        for j, (mean, sd) in zip((a_idx, b_idx), laws):  # the pair's tokens from the tilted laws
            u[rows, j] = mean + sd * u[rows, j]
            w[rows, j] *= sd
            C[rows, j] *= sd * sd
        a = log_pi + _scores(u, w, C, gamma, d)
        log_r = (1.0 - s) * a[rows, a_idx] + s * a[rows, b_idx] - logsumexp(a, axis=1)
        if s != 0.5:
            log_r += (s - 0.5) * (log_pi[a_idx] - log_pi[b_idx])
        return (np.exp(log_r) * (w[rows, a_idx] - w[rows, b_idx]) ** 2)[None]

    piece = _piece(L, 12, memory)
    r = run_blocks(n, seed, STREAM_TILTED, piece, values)[0]
    return _log_result(log_chernoff(gamma, d, s) + log_chernoff(gamma, d, 1.0 - s) + math.log(pairs.z_pairs), r, n, d)


# ----------------------------------------------------------------------------------------------
# softmax attention at (k*, v*)


@accepts_gamma2
def softmax_excess(*, lam, gamma, d, L, n=DEFAULT_N, seed=0, method="importance", memory=DEFAULT_MEMORY) -> LogMCResult:
    """R_soft - eps^2 of T^soft = sum_l softmax_l(lam X k*) X_l^T v* (`docs/MATH.md` §§2, 18), as a :class:`LogMCResult`.

    Per sample gamma^2 (1 - p_J0)^2 + sum_{m != J0} p_m^2, p = softmax(lam u) (w integrated out exactly);
    ``method='importance'`` (default) tilts one null token against the relevant one (module docstring),
    ``'direct'`` draws u from the model's law with the Monte Carlo route's projection sampler. d-free.
    """
    method = _method(method)
    gamma, d, L, n, seed, memory, lam = _setting(gamma, d, L, n, seed, memory, lam)
    if L == 1:
        return LogMCResult(-math.inf, 0.0)
    g2, mu = gamma * gamma, math.sqrt(d / 2.0)

    def log_excess(u, j0, rows):
        # in logs: 1 - p_J0 and the p_m^2 underflow float64 long before the weighted value does
        log_p = lam * u - logsumexp(lam * u, axis=1, keepdims=True)
        log_p[rows, j0] = -np.inf  # the null tokens' log p_m
        log_rest = logsumexp(log_p, axis=1)  # log(1 - p_J0)
        return np.logaddexp(math.log(g2) + 2.0 * log_rest, logsumexp(2.0 * log_p, axis=1))

    if method == "direct":
        _, G, mean = projection_law(1.0, 1.0, 0.0, 0.0, 0.0, d)
        _, cdf = law(None, L)
        sampler = ProjectionSampler(G, mean, gamma, cdf, L, (2,))

        def values(gens, m):
            (u,), _, J0 = sampler.draw(gens, m)
            return np.exp(log_excess(u, J0, np.arange(m)))[None]

        piece = _piece(L, 8, memory)
        return _log_result(0.0, run_blocks(n, seed, STREAM_PROJ, piece, values)[0], n, d)

    var_d = 1.0 + g2
    theta = min(2.0 * lam, mu / var_d)
    log_mgf = -theta * mu + 0.5 * theta * theta * var_d
    null_cdf = np.arange(1, L) / (L - 1.0)

    def values(gens, m):
        g_tok, g_loc, _ = gens
        rows = np.arange(m)
        k = 1 + draw_locations(g_loc, null_cdf, m)  # the tilted null token
        u = g_tok.standard_normal((m, L))
        u[:, 0] = mu - theta * g2 + gamma * u[:, 0]
        u[rows, k] += theta
        log_w = math.log(L - 1.0) - logsumexp(-theta * (u[:, :1] - u[:, 1:]), axis=1)
        return np.exp(log_w + log_excess(u, 0, rows))[None]

    piece = _piece(L, 8, memory)
    return _log_result(log_mgf, run_blocks(n, seed, STREAM_TILTED, piece, values)[0], n, d)


@accepts_gamma2
def softmax_risk(*, lam, gamma, eps=0.0, d, L, n=DEFAULT_N, seed=0, method="importance", memory=DEFAULT_MEMORY) -> MCResult:
    """The risk of the softmax attention predictor at (k, v) = (k*, v*) (`docs/MATH.md` §18): eps^2 +
    :func:`softmax_excess`, with its standard error. d-free (only X_l^T k* and X_l^T v* enter)."""
    (eps,) = scalars(eps=eps)
    return _risk(eps, softmax_excess(lam=lam, gamma=gamma, d=d, L=L, n=n, seed=seed, method=method, memory=memory))


# ----------------------------------------------------------------------------------------------
# full-dimensional reference


@accepts_gamma2
def bayes_risk_full(k_star, v_star, *, gamma, eps=0.0, L, n, seed, p=None, memory=DEFAULT_MEMORY) -> MCResult:
    """The Bayes risk by the full-dimensional sampler (an independent check of :func:`bayes_risk` at small d).

    Tokens X in R^{L x d} from the Monte Carlo route's full-dimensional draws (k*, v* given), the posterior
    P(J0 = l | X) from the two d-dimensional Gaussian log-densities evaluated on the whole vectors (no reduction to
    projections, no chi-square), and the squared error (Y - E[Y | X])^2 with the label noise included.
    `docs/MATH.md` §18.
    """
    k_star, v_star = instance(k_star, v_star)
    d = k_star.shape[0]
    gamma, eps, L = scalars(gamma=gamma, eps=eps, L=L)
    n = V.integer("n", n, 2, floats=True)
    pi, cdf = law(p, L)  # an L too large for memory is refused naming L, before n's time
    B.time_budget("n", n * SECONDS_PER_TOKEN_DIM * L * d, f"{n:,} Monte Carlo samples of {L:,} tokens in R^{d}")
    seed, memory = V.integer("seed", seed, 0), check_memory(memory)
    mean = math.sqrt(d / 2.0) * k_star
    with np.errstate(divide="ignore"):
        log_pi = np.log(pi)

    def values(gens, m):
        X, J0, xi = draw_full(gens, m, k_star, v_star, gamma, eps, cdf, L)
        w = X @ v_star
        Y = w[np.arange(m), J0] + xi
        log_f1 = -d * math.log(gamma) - ((X - mean) ** 2).sum(axis=-1) / (2.0 * gamma * gamma)
        log_f0 = -0.5 * (X * X).sum(axis=-1)
        a = log_pi + log_f1 - log_f0
        post = np.exp(a - logsumexp(a, axis=1, keepdims=True))
        return ((Y - np.einsum("ml,ml->m", post, w)) ** 2)[None]

    piece = samples_per_chunk(8.0 * (L * d * 3 + L * 8 + 16), memory)
    return run_blocks(n, seed, STREAM_FULL, piece, values)[0]
