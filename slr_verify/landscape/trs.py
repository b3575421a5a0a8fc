r"""The profile risk :math:`m_\lambda(\kappa, \eta) = \min_{|v| = 1} R_\lambda(k, v)` (`docs/MATH.md` §17).

R is a quadratic in v (:mod:`slr_verify.symbolic.profile_trs`), so the minimum over the unit sphere is a
trust-region subproblem (TRS) of dimension at most four, with coefficients in closed form
(:func:`slr_verify.kernels.profile.trs_kernels`). Strong duality:

.. math::

    m = c + \max_{\mu \le \lambda_{\min}(H)} \Big[\mu - \sum_i \frac{\tilde g_i^2}{l_i - \mu}\Big],

with :math:`(l_i, q_i)` the eigenpairs of H and :math:`\tilde g_i = q_i^\top g`; the maximiser solves the
secular equation :math:`\sum_i \tilde g_i^2/(l_i - \mu)^2 = 1` and the minimising v is
:math:`x = (H - \mu)^{-1} g`. **Hard case**: when g is orthogonal to the bottom eigenspace and
:math:`\sum_{l_i > l_1} \tilde g_i^2/(l_i - l_1)^2 \le 1`, :math:`\mu = l_1` and x is completed by a
bottom eigenvector to unit length.

:func:`profile` solves it for arrays of (kappa, eta) at once (batched 3 x 3 eigendecompositions and a
vectorised safeguarded secular solve); :func:`profile_mp` does the same for one point in mpmath.

Symmetries: :math:`m(\kappa, \eta) = m(\kappa, -\eta) = m(-\kappa, -\eta)`: the quarter disk
:math:`\kappa, \eta \ge 0` carries everything.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..kernels.profile import trs_kernels
from ..model import validation as V
from ..model.params import Params, accepts_gamma2, check_params, keywords_checked


def _check_disk(kappa, eta, d):
    kappa = np.asarray(kappa, dtype=float)
    eta = np.asarray(eta, dtype=float)
    if not (np.all(np.isfinite(kappa)) and np.all(np.isfinite(eta))):
        raise ValueError("kappa and eta must be finite")
    s2 = kappa**2 + eta**2
    if np.any(s2 > 1 + 1e-12):
        raise ValueError(f"kappa^2 + eta^2 must be <= 1 (k is a unit vector), got up to {float(np.max(s2))!r}")
    r = np.sqrt(np.clip(1 - s2, 0.0, None))
    if d == 2 and np.any(r > 1e-12):
        raise ValueError("with d = 2, k lies in span(k*, v*): kappa^2 + eta^2 must be 1")
    return np.broadcast_arrays(kappa, eta, r)


@keywords_checked
def trs_matrices(kappa, eta, r, lam, gamma, eps, d, L):
    """(c, H4, g4): H on (k*, v*, e, e') as (..., 4, 4) and g as (..., 4), float64 (no validation); kappa, eta, r
    and lam broadcast together (several lam in one call: lam an array)."""
    shape = np.broadcast_shapes(*(np.shape(x) for x in (kappa, eta, r, lam)))
    c, a0, h11, h12, h13, h22, h23, h33, g1, g2, g3 = (np.broadcast_to(np.asarray(x, dtype=float), shape)
                                                       for x in trs_kernels().f64(kappa, eta, r, lam, gamma, eps, d, L))
    z = np.zeros(shape)
    H = np.stack([np.stack([h11, h12, h13, z], -1), np.stack([h12, h22, h23, z], -1),
                  np.stack([h13, h23, h33, z], -1), np.stack([z, z, z, a0], -1)], -2)
    g = np.stack([g1, g2, g3, z], -1)
    return c, H, g


@dataclass
class Profile:
    """The profile at each (kappa, eta): ``risk`` (m), ``mu`` (the optimal multiplier), ``x`` (v's
    coordinates on (k*, v*, e, e'), shape (..., 4)), ``overlaps`` (kappa, nu, theta, eta, rho) of the
    minimiser (stacked on the last axis), ``hard`` (True where the hard case holds). `docs/MATH.md` §17."""

    risk: np.ndarray
    mu: np.ndarray
    x: np.ndarray
    overlaps: np.ndarray
    hard: np.ndarray


@keywords_checked
def solve_trs(c, H, g, n):
    """The trust-region subproblem c + min_{|x| = 1} x^T H x - 2 g^T x on the first n <= 4 coordinates, batched
    (module docstring): ``c`` (...), ``H`` (..., 4, 4) symmetric, ``g`` (..., 4), as :func:`trs_matrices` gives them.

    Returns ``(risk, mu, x, hard)``: the minimum, the multiplier mu <= l_min(H), the minimiser padded with zeros to
    4 coordinates and the hard-case flag. Float64: the secular equation is solved by safeguarded Newton until the
    step is below 2e-16 of max(|mu|, the scale of (H, g)) (at most 100 iterations); eigenvalues within 1e-13 of
    that scale count as the bottom one."""
    H, g = H[..., :n, :n], g[..., :n]
    ell, Q = np.linalg.eigh(H)
    gt = np.einsum("...ji,...j->...i", Q, g)
    l1 = ell[..., :1]
    scale = np.maximum(np.abs(ell).max(-1, keepdims=True), np.linalg.norm(g, axis=-1, keepdims=True))
    tol = 1e-13 * scale
    bottom = (ell - l1) <= tol
    gnorm = np.linalg.norm(g, axis=-1, keepdims=True)
    # hard case: g (numerically) orthogonal to the bottom eigenspace and the rest of x inside the ball
    gb = np.sqrt(np.sum(np.where(bottom, gt**2, 0.0), -1, keepdims=True))
    with np.errstate(divide="ignore", invalid="ignore"):
        rest = np.sum(np.where(bottom, 0.0, gt**2 / np.where(bottom, 1.0, ell - l1) ** 2), -1, keepdims=True)
    hard = (gb <= 1e-14 * scale) & (rest <= 1.0)
    # secular equation f(mu) = sum gt^2/(l - mu)^2 - 1 = 0 on [l1 - |g|, l1): f increasing in mu
    lo = l1 - gnorm - tol
    hi = l1.copy()

    # Newton on phi(mu) = 1/|x(mu)| - 1 (nearly linear in mu), kept inside the bracket [lo, hi] where
    # phi changes sign; a step leaving the bracket is replaced by bisection. Only the points not yet
    # converged are iterated (flattened batch, active set shrinking).
    shape = l1.shape
    G2, EL, SC = (np.reshape(x, (-1, x.shape[-1])) for x in (gt**2, ell, scale))
    lo, hi = lo.reshape(-1), hi.reshape(-1)
    mu = lo.copy()
    act = np.flatnonzero(~hard.reshape(-1))
    for _ in range(100):
        if act.size == 0:
            break
        m, g2, el = mu[act], G2[act], EL[act]
        with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
            q = g2 / (el - m[:, None]) ** 2
            n2 = q.sum(-1)
            dn2 = (2 * q / (el - m[:, None])).sum(-1)
            phi = 1 / np.sqrt(n2) - 1
            step = phi / (-0.5 * n2**-1.5 * dn2)
        a, b = np.where(phi >= 0, m, lo[act]), np.where(phi < 0, m, hi[act])
        lo[act], hi[act] = a, b
        nw = m - step
        nw = np.where((nw > a) & (nw < b) & np.isfinite(nw), nw, 0.5 * (a + b))
        done = np.abs(nw - m) <= 2e-16 * np.maximum(np.abs(m), SC[act, 0])
        mu[act] = nw
        act = act[~done]
    lo = mu.reshape(shape)
    mu = np.where(hard, l1, lo)
    with np.errstate(divide="ignore", invalid="ignore"):
        xt = np.where(bottom & hard, 0.0, gt / (ell - mu))
    xt = np.where(np.isfinite(xt), xt, 0.0)
    # hard case: complete along the first bottom eigenvector
    comp = np.sqrt(np.clip(1.0 - np.sum(xt**2, -1, keepdims=True), 0.0, None))
    first = np.zeros_like(xt)
    first[..., 0] = 1.0
    xt = np.where(hard, xt + comp * first, xt)
    xt = xt / np.linalg.norm(xt, axis=-1, keepdims=True)
    risk = c + np.sum(ell * xt**2 - 2 * gt * xt, -1)
    x = np.einsum("...ij,...j->...i", Q, xt)
    pad = np.zeros(x.shape[:-1] + (4 - n,))
    return risk, mu[..., 0], np.concatenate([x, pad], -1), hard[..., 0]


def _scalars(lam, gamma, eps, d, L) -> tuple:
    """(lam, gamma, eps, d, L) validated as single numbers in the model's ranges (:class:`Params`)."""
    P = Params(lam=lam, gamma=gamma, eps=eps, d=d, L=L)
    return P.lam, P.gamma, P.eps, P.d, P.L


@accepts_gamma2
def profile(kappa, eta, *, lam, gamma, eps=0.0, d, L) -> Profile:
    r"""The profile :math:`m_\lambda(\kappa, \eta)` and its minimising v, for arrays of (kappa, eta)
    (broadcast; :math:`\kappa^2 + \eta^2 \le 1`), by the TRS of the module's docstring (float64). ``lam`` a number,
    or an array broadcasting with them (several lam in one batch: each point's arithmetic is the same as alone)."""
    _, gamma, eps, d, L = (float(x) for x in _scalars(1.0, gamma, eps, d, L))
    lam = check_params(lam, gamma, eps, d, L)[0]
    d, L = V.count_value(d), V.count_value(L)
    kappa, eta, r = _check_disk(kappa, eta, d)
    kappa, eta, r, lam = np.broadcast_arrays(kappa, eta, r, lam)
    c, H, g = trs_matrices(kappa, eta, r, lam, gamma, eps, d, L)
    n = min(d, 4)
    risk, mu, x, hard = solve_trs(c, H, g, n)
    theta, nu = x[..., 0], x[..., 1]
    rho = kappa * x[..., 0] + eta * x[..., 1] + r * x[..., 2]
    ov = np.stack([kappa, nu, theta, eta, rho], -1)
    return Profile(risk=risk, mu=mu, x=x, overlaps=ov, hard=hard)


@accepts_gamma2
def profile_mp(kappa, eta, *, lam, gamma, eps=0.0, d, L, dps=50):
    """The profile at one point in mpmath at ``dps`` digits: (m, x (4 coordinates), mu). The same TRS
    (eigendecomposition by ``mpmath.eigsy``, secular equation by bisection then Newton), an
    independent evaluation of the float64 :func:`profile` and the tie-breaker where float64 cannot
    separate two candidates (the flat valley of `docs/MATH.md` §17)."""
    import mpmath

    d, L = (V.count_value(x) for x in _scalars(lam, gamma, eps, d, L)[3:])
    dps = V.integer("dps", dps, 5, 1000, why="decimal digits; the cost grows steeply with them")
    with mpmath.workdps(dps + 10):
        kappa, eta = mpmath.mpf(kappa), mpmath.mpf(eta)
        s2 = kappa**2 + eta**2
        if s2 > 1 + mpmath.mpf(10) ** (-12):
            raise ValueError(f"kappa^2 + eta^2 must be <= 1, got {float(s2)!r}")
        r = mpmath.sqrt(max(1 - s2, 0))
        c, a0, h11, h12, h13, h22, h23, h33, g1, g2, g3 = trs_kernels().mp(
            kappa, eta, r, mpmath.mpf(lam), mpmath.mpf(gamma), mpmath.mpf(eps), mpmath.mpf(d), mpmath.mpf(L))
        n = min(d, 4)
        H = mpmath.matrix([[h11, h12, h13, 0], [h12, h22, h23, 0], [h13, h23, h33, 0], [0, 0, 0, a0]])[:n, :n]
        g = mpmath.matrix([g1, g2, g3, 0])[:n, 0]
        ell, Q = mpmath.eigsy(H)
        order = sorted(range(n), key=lambda i: ell[i])
        ell = [ell[i] for i in order]
        gt = [sum(Q[j, i] * g[j] for j in range(n)) for i in order]
        Qc = [[Q[j, i] for j in range(n)] for i in order]
        l1 = ell[0]
        scale = max(max(abs(v) for v in ell), mpmath.norm(g))
        eps_ = mpmath.mpf(10) ** (-dps)
        bottom = [e - l1 <= eps_ * scale for e in ell]
        gb = mpmath.sqrt(sum(gt[i] ** 2 for i in range(n) if bottom[i]))
        rest = sum((gt[i] / (ell[i] - l1)) ** 2 for i in range(n) if not bottom[i])
        f = lambda mu: sum(gt[i] ** 2 / (ell[i] - mu) ** 2 for i in range(n)) - 1
        if gb <= eps_ * scale and rest <= 1:
            mu = l1
            xt = [0 if bottom[i] else gt[i] / (ell[i] - mu) for i in range(n)]
            xt[0] = mpmath.sqrt(max(1 - sum(v**2 for v in xt), 0))
        else:
            lo, hi = l1 - mpmath.norm(g) - eps_ * scale, l1
            for _ in range(int(3.4 * (dps + 10)) + 60):
                mid = (lo + hi) / 2
                if f(mid) > 0:
                    hi = mid
                else:
                    lo = mid
            mu = lo
            xt = [gt[i] / (ell[i] - mu) for i in range(n)]
        nx = mpmath.sqrt(sum(v**2 for v in xt))
        xt = [v / nx for v in xt]
        m = c + sum(ell[i] * xt[i] ** 2 - 2 * gt[i] * xt[i] for i in range(n))
        x = [sum(Qc[i][j] * xt[i] for i in range(n)) for j in range(n)] + [mpmath.mpf(0)] * (4 - n)
        return +m, x, mu
