r"""Propositions 9-10 and Theorem 5, numerically (`docs/MATH.md` §10).

The algebra (the structure of the manifold gradient, the sign argument, the Hessians in angle
coordinates, the Jacobian of the reduced map) is derived in :mod:`slr_verify.symbolic.fixed_points`
and generated into :func:`slr_verify.kernels.steps.reduced_map_kernels`; this module evaluates it
and adds what is numeric: the step-size bounds and the rates, and the measurements the claims on M
compare with them (the five points classified, finite-difference Jacobians, det J on a grid, rates
measured on a run).
"""
from __future__ import annotations

import math

import numpy as np

from ..kernels.steps import POINTS, alpha_max_grid, reduced_map_kernels
from ..model.params import accepts_gamma2, keywords_checked
from .runners import overlap_pgd, reduced_pgd

#: the four corners of the square (the stationary points of Proposition 9 other than (0, 0))
CORNERS = [p for p in POINTS if p != (0, 0)]


@keywords_checked
def map_numeric(kappa, nu, *, lam, gamma, d, L, alpha):
    """The reduced PGD map on M at (kappa, nu)."""
    return np.array(reduced_map_kernels().F(kappa, nu, lam, gamma, d, L, alpha), dtype=float)


@keywords_checked
def jacobian_at(point, *, lam, gamma, d, L, alpha):
    """The 2x2 Jacobian of the reduced map at ``point`` and its eigenvalues. Proposition 10, `docs/MATH.md` §10."""
    J = np.array(reduced_map_kernels().J(point[0], point[1], lam, gamma, d, L, alpha), dtype=float).reshape(2, 2)
    return J, np.linalg.eigvals(J)


@keywords_checked
def det_jacobian(kappa, nu, *, lam, gamma, d, L, alpha):
    J = reduced_map_kernels().J(kappa, nu, lam, gamma, d, L, alpha)
    return J[0] * J[3] - J[1] * J[2]


@keywords_checked
def hessian_at(point, *, lam, gamma, d, L):
    """The Hessian of the manifold risk at a stationary point (angle coordinates at the corners;
    derived by :func:`slr_verify.symbolic.fixed_points.manifold_hessian`) and its eigenvalues.
    Proposition 9, `docs/MATH.md` §10."""
    H = np.array(reduced_map_kernels().H[tuple(point)](lam, gamma, d, L), dtype=float).reshape(2, 2)
    return H, np.linalg.eigvalsh(0.5 * (H + H.T))


#: a float64 eigenvalue of the Hessian below this times its largest entry (and 1) is not resolved: the minima's
#: curvature is erfc-sized (erfc(lam sqrt(d/2) ...), 1e-71 at lam = 2, d = 80) and cancels to round-off in float64
_UNRESOLVED = 1e-10


def _signs(ev) -> str:
    return "min" if all(e > 0 for e in ev) else "max" if all(e < 0 for e in ev) else \
        "saddle" if min(ev) < 0 < max(ev) else "degenerate"


def classify_point(point, **p) -> str:
    """'min', 'max', 'saddle' or 'degenerate' from the Hessian's eigenvalue signs (Proposition 9, `docs/MATH.md` §10):
    in float64, or, where an eigenvalue is not resolved there, from the same derived Hessian at mpmath precision
    (50 digits, then 300), 'degenerate' only if it is not resolved at 300 digits either."""
    H, ev = hessian_at(point, **p)
    scale = max(1.0, float(np.max(np.abs(H))))
    if np.all(np.abs(ev) > _UNRESOLVED * scale):
        return _signs(ev)
    import mpmath

    for dps in (50, 300):
        with mpmath.workdps(dps):
            args = [mpmath.mpf(p[k]) for k in ("lam", "gamma", "d", "L")]
            h = [mpmath.mpf(x) for x in reduced_map_kernels().H_mp[tuple(point)](*args)]
            M = mpmath.matrix([[h[0], (h[1] + h[2]) / 2], [(h[1] + h[2]) / 2, h[3]]])
            ev_mp = mpmath.eigsy(M, eigvals_only=True)
            if all(abs(e) > mpmath.mpf(10) ** (-dps // 2) * max(1, mpmath.mnorm(M, 1)) for e in ev_mp):
                return _signs([float(mpmath.sign(e)) for e in ev_mp])
    return "degenerate"


@keywords_checked
def alpha_fixed_bound(*, lam, gamma, d, L):
    """alpha below which the map's fixed points are exactly the five stationary points:
    2 / max(sup|g_kappa|, sup|g_nu|) with the closed-form upper bounds (a sufficient bound)."""
    return 2.0 / max(float(x) for x in reduced_map_kernels().bounds(lam, gamma, d, L))


@keywords_checked
def alpha_attract(*, lam, gamma, d, L):
    """At the minima (+-1, +-1) the Jacobian is diag((1 - alpha|g_kappa|)^2, (1 - alpha|g_nu|)^2);
    they attract iff alpha |g| < 2 for both: returns (2 / max|g|, |g|)."""
    g = np.abs(np.array(reduced_map_kernels().g(1.0, 1.0, lam, gamma, d, L), dtype=float))
    return 2.0 / g.max(), g


@keywords_checked
def predicted_rates(*, lam, gamma, d, L, alpha):
    """Linear rates of 1 - kappa_t and 1 - nu_t at (1, 1): the Jacobian's diagonal there.
    Proposition 10, `docs/MATH.md` §10."""
    J, _ = jacobian_at((1.0, 1.0), lam=lam, gamma=gamma, d=d, L=L, alpha=alpha)
    return float(J[0, 0]), float(J[1, 1])


@keywords_checked
def mirror_fixed_point(kappa, *, lam, gamma, d, L):
    """For nu = 1 and 1/sqrt2 < kappa < 1, the alpha at which (kappa, 1) is a fixed point of the
    map though not a stationary point: alpha g_kappa (2 kappa^2 - 1) = -2 kappa."""
    gk, _ = reduced_map_kernels().g(kappa, 1.0, lam, gamma, d, L)
    return float(-2 * kappa / (float(gk) * (2 * kappa**2 - 1)))


@keywords_checked
def alpha_max_diffeo(*, lam, gamma, d, L, n=121, alphas=None):
    """Numeric (not certified) alpha_max: the smallest alpha on a log grid (refined by bisection)
    at which det J vanishes somewhere on an n x n grid of the square [-1, 1]^2
    (:func:`slr_verify.kernels.steps.alpha_max_grid`)."""
    return alpha_max_grid(lam=lam, gamma=gamma, d=d, L=L, n=n, alphas=alphas)


# --------------------------------------------------------------------------- the claims' measurements
@accepts_gamma2
def classify_points(*, lam, gamma, d, L):
    """Proposition 9's classification, numerically: {str(point): :func:`classify_point`} for the five stationary points
    on M (:data:`POINTS`); the Hessian at mpmath precision where float64 does not resolve an eigenvalue (they are
    erfc-sized at the minima: `docs/MATH.md` §5, §10)."""
    return {str(pt): classify_point(pt, lam=lam, gamma=gamma, d=d, L=L) for pt in POINTS}


@accepts_gamma2
def fixed_point_error(*, lam, gamma, d, L, alpha):
    """max over the five stationary points of Proposition 9 of max|F(point) - point|, F the reduced map at step
    ``alpha`` (`docs/MATH.md` §10): 0 in exact arithmetic at every alpha (they are fixed points), float64 round-off
    here."""
    p = dict(lam=lam, gamma=gamma, d=d, L=L)
    return max(float(np.max(np.abs(map_numeric(*pt, alpha=alpha, **p) - np.array(pt)))) for pt in POINTS)


@accepts_gamma2
def mirror_alpha(kappa, *, lam, gamma, d, L):
    """:func:`mirror_fixed_point` (the alpha above which (kappa, 1) becomes a fixed point of the reduced map that is
    not stationary: Proposition 9's remark on large steps, `docs/MATH.md` §10), or ``math.inf`` where g_kappa(kappa, 1)
    underflows to 0 in float64 (large lam sqrt(d): there a step at any alpha is pure round-off)."""
    try:
        return mirror_fixed_point(kappa, lam=lam, gamma=gamma, d=d, L=L)
    except ZeroDivisionError:
        return math.inf


@accepts_gamma2
def finite_difference_jacobian(point, *, lam, gamma, d, L, alpha, h=1e-6):
    """The 2x2 Jacobian of the reduced map (Proposition 10, `docs/MATH.md` §10) at ``point`` of [-1, 1]^2 by finite
    differences of :func:`map_numeric`, an independent check of the generated :func:`jacobian_at`: in a coordinate
    strictly inside (-1, 1) central differences, in a coordinate at +-1 one-sided inward second-order differences (the
    map is defined on the square). Error: truncation ~h^2 times the map's third derivatives plus round-off ~1e-16/h
    (tests/test_dynamics.py bounds it by 1e-6 at Figure 4b's setting)."""
    p = dict(lam=lam, gamma=gamma, d=d, L=L, alpha=alpha)
    fd = np.zeros((2, 2))
    x = np.array(point, float)
    for j in range(2):
        e = np.zeros(2)
        e[j] = h
        if abs(x[j]) == 1:  # one-sided, inward, second order
            s = -np.sign(x[j])
            fd[:, j] = (
                -3 * map_numeric(*x, **p) + 4 * map_numeric(*(x + s * e), **p) - map_numeric(*(x + 2 * s * e), **p)
            ) / (2 * h * s)
        else:
            fd[:, j] = (map_numeric(*(x + e), **p) - map_numeric(*(x - e), **p)) / (2 * h)
    return fd


@accepts_gamma2
def overlap_jacobian_fd(points, *, lam, gamma, d, L, alpha, h=1e-6):
    """The 5 x 5 Jacobians (N, 5, 5) of one float64 step of the NumPy five-overlap runner (:func:`overlap_pgd`, PGD on
    the spheres, Definition 1) at the N ``points`` (kappa, nu, theta, eta, rho), by central differences in one batch: an
    independent route to the arb kernels' DG (`docs/MATH.md` §13). The points must lie at least ``h`` inside the overlaps'
    range; error ~h^2 times the map's third derivatives plus ~1e-16/h."""
    o = np.asarray(points, float).reshape(-1, 5)
    pts = np.array([x + s * h * e for x in o for e in np.eye(5) for s in (1, -1)])      # (10 N, 5)
    tr = overlap_pgd(tuple(pts.T), lam=lam, gamma=gamma, d=d, L=L, alpha=alpha, steps=1, backend="numpy")
    out = np.array([getattr(tr, f)[-1] for f in ("kappa", "nu", "theta", "eta", "rho")]).T.reshape(len(o), 5, 2, 5)
    return np.transpose((out[:, :, 0, :] - out[:, :, 1, :]) / (2 * h), (0, 2, 1))      # point, row, column


@accepts_gamma2
def min_det_jacobian(*, lam, gamma, d, L, alpha, n=201):
    """The smallest float64 det J of the reduced map at step ``alpha`` on the n x n grid of [-1, 1]^2 (both ends
    included): positive below alpha_max (Proposition 10, `docs/MATH.md` §10), a grid sample and not a bound."""
    k, nu = np.meshgrid(np.linspace(-1, 1, n), np.linspace(-1, 1, n))
    return float(det_jacobian(k, nu, lam=lam, gamma=gamma, d=d, L=L, alpha=alpha).min())


def _log_linear_rate(step, y, sel):
    """exp of the slope of log y against step over ``sel`` (least squares); NaN with 10 points or fewer."""
    return float(np.exp(np.polyfit(step[sel], np.log(y[sel]), 1)[0])) if sel.sum() > 10 else float("nan")


@accepts_gamma2
def measured_rates(*, lam, gamma, d, L, alpha, steps, start=(np.cos(0.02), np.cos(0.3))):
    """The linear rates of 1 - kappa_t and 1 - nu_t near (1, 1) measured on a reduced PGD run on M (every step recorded)
    from ``start`` for ``steps`` steps: exp of the least-squares slope of log(1 - x_t) over the window
    1e-13 < 1 - kappa_t < 1e-4, resp. 1e-13 < 1 - nu_t < 1e-5 (linear phase, above round-off). Returns
    (rate_kappa, rate_nu), NaN for a window of 10 records or fewer (run too short). Compared with
    :func:`predicted_rates` (Proposition 10's two time scales, `docs/MATH.md` §10) they agree to the fit's error
    (the claim proposition-10 allows 2% on the log rates)."""
    tr = reduced_pgd(start[0], start[1], alpha=alpha, steps=steps, lam=lam, gamma=gamma, d=d, L=L)
    one_k, one_n = 1 - tr.kappa, 1 - tr.nu
    sel_n = (one_n > 1e-13) & (one_n < 1e-5)
    sel_k = (one_k < 1e-4) & (one_k > 1e-13)
    return _log_linear_rate(tr.step, one_k, sel_k), _log_linear_rate(tr.step, one_n, sel_n)


@accepts_gamma2
def linear_phase_steps(*, lam, gamma, d, L, alpha, e_folds):
    """Steps for the reduced map's linear phase at (1, 1) at step ``alpha``: e_folds = (for 1 - kappa, for 1 - nu) e-folds
    of each of :func:`predicted_rates` (Proposition 10, `docs/MATH.md` §10), the larger of the two (a float, not rounded;
    rates in (0, 1))."""
    rk, rn = predicted_rates(lam=lam, gamma=gamma, d=d, L=L, alpha=alpha)
    return max(e_folds[0] / -np.log(rk), e_folds[1] / -np.log(rn))


@keywords_checked
def at_minima(kappa, nu, *, tol_kappa=1e-6, tol_nu=1e-9):
    """Whether (kappa, nu) (arrays) is at one of the minima +-(1, 1) of Proposition 9: |kappa| > 1 - tol_kappa,
    |nu| > 1 - tol_nu, same sign (Theorem 5's limit, `docs/MATH.md` §10; nu converges faster, hence its tighter
    default)."""
    return (np.abs(kappa) > 1 - tol_kappa) & (np.abs(nu) > 1 - tol_nu) & (kappa * nu > 0)
