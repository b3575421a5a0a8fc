r"""Stationary points off the manifold M, and the family k = +-v* (``docs/MATH.md`` section 12), numerically.

From a sphere initialisation with constant lam, some PGD runs do not reach +-(k*, v*): in the
Figure 7b setting they end at :math:`\kappa = \nu = \rho = 0`, :math:`\eta = \pm1` (k = +-v*),
:math:`\theta = \pm\theta^*`. This module finds such points from the end points of runs and
checks them; the family's closed form theta* is derived in
:func:`slr_verify.symbolic.family_algebra.off_M_family` (certified by :mod:`slr_verify.certify.family_proof`).

* **Finding** (:func:`find_stationary_points_off_M`): from each end point, ``scipy.optimize.root``
  (Levenberg-Marquardt) on the fixed-point equations F(ov) = ov of the five-overlap map (for
  alpha small enough its fixed points are the stationary points); a point of the family
  (with k = eta v*, v = theta k* + sqrt(1 - theta^2) w the tangent gradients are
  R_kappa k* + R_rho v and (R_nu + eta R_rho) v* + R_theta (k* - theta v), and at
  kappa = nu = rho = 0 the partials R_kappa, R_nu, R_rho vanish identically) is then replaced by
  the closed form theta* (:func:`theta_star`, generated from SymPy) at 50 digits.
* **Genuineness**: the partials and the squared norms of both tangent gradients
  (:func:`slr_verify.dynamics.convergence.tangent_gradient_norms`) at 50 digits at that point.
* **Spectra by finite differences** (:func:`finite_difference_spectrum`): the Riemannian Hessian of
  R on S^{m-1} x S^{m-1} (m = 6: span(k*, v*, w) plus three more orthogonal directions, enough to
  represent every orthogonal direction of R^d by symmetry) by central differences of Theorem 1's
  risk in a retraction chart, and the Jacobian of one step of Definition 1 done on explicit vectors
  in R^m (gradient by the chain rule through the overlaps, risk of dimension d) by finite
  differences: at a stationary point it is I - alpha Hess, so an eigenvalue > 1 means the fixed
  point is unstable. An independent route for the landscape's exact classification
  (:func:`slr_verify.landscape.classify`).
"""
from __future__ import annotations

import mpmath
import numpy as np
from scipy import optimize

from ..kernels import generated as G
from ..kernels.family_kernels import theta_star_kernels
from ..kernels.steps import chain_rule_tables, mp_gradient_kernel, overlap_map_kernel
from ..model.overlaps import Overlaps
from ..model.params import accepts_gamma2, keywords_checked
from .convergence import tangent_gradient_norms
from .runners import overlap_pgd
from .sgd import sphere_step


@keywords_checked
def theta_star(lam, gamma, d, eta=1):
    r"""theta* of the family k = eta v*: the root of R_theta(0, 0, theta, eta, 0) = 0, in closed form
    (:func:`slr_verify.symbolic.family_algebra.off_M_family`, generated). An mpmath number at the working
    precision."""
    f = theta_star_kernels().mp
    return f(eta, lam, gamma, d)  # the generated kernel takes floats exactly (codegen.generate_mp)


def _refine_family(eta_sign, lam, gamma, d, L, dps=50):
    """High-precision point of the family kappa = nu = rho = 0, eta = +-1 at theta* (closed form);
    returns (overlaps, partials, tangent norms)."""
    f = mp_gradient_kernel()
    with mpmath.workdps(dps):
        lam_, gamma_ = mpmath.mpf(lam), mpmath.sqrt(mpmath.mpf(gamma) ** 2)
        e = mpmath.mpf(eta_sign)
        th = theta_star(lam_, gamma_, d, eta=e)
        ov = (mpmath.mpf(0), mpmath.mpf(0), th, e, mpmath.mpf(0))
        grads = f(*ov, lam_, gamma_, d, L)
        tk, tv = tangent_gradient_norms(ov, grads)
        return ov, grads, (tk, tv)


@keywords_checked
def find_stationary_points_off_M(end_points, *, lam, gamma, d, L, alpha=1.0, tol=1e-6, dps=50):
    """Stationary points reached by the runs ending at ``end_points`` (array (n, 5) of overlaps,
    or a trajectory's last record) that are off M (distance to M > 0.1).

    Returns a list of dicts, one per distinct point: ``overlaps`` (float64 root), ``root_residual``
    (|F(ov) - ov| of the five-overlap map at step size ``alpha``), ``count`` (runs ending there),
    ``tangent_norm_float64`` (sqrt of the larger squared tangent norm) and, for the family
    kappa = nu = rho = 0, |eta| = 1, ``refined`` (the 50-digit theta, the partials and the
    tangent norms at that precision).
    `docs/MATH.md` §12.
    """
    pts = np.atleast_2d(np.asarray(end_points, dtype=float))
    if pts.shape[-1] != 5:
        raise ValueError(f"end_points must have shape (n, 5) (kappa, nu, theta, eta, rho), got {pts.shape}")
    gk = G.risk_and_gradient_kernel()
    F5 = overlap_map_kernel()

    def grads(ov):
        return np.array(gk(*ov, lam, gamma, 0.0, d, L)[1:], dtype=float)

    def resid(ov):
        return np.array(F5(*ov, *grads(ov), alpha), dtype=float) - ov

    found = []
    for p in pts:
        if np.sqrt(p[2] ** 2 + p[3] ** 2 + p[4] ** 2) < 0.1:
            continue
        sol = optimize.root(resid, p, method="lm", options=dict(xtol=1e-15, ftol=1e-15))
        x = sol.x
        res = float(np.max(np.abs(resid(x))))
        tk, tv = tangent_gradient_norms(x, grads(x))
        for f in found:
            if np.max(np.abs(f["overlaps"] - x)) < tol * 1e3:
                f["count"] += 1
                break
        else:
            item = {"overlaps": x, "root_residual": res, "count": 1,
                    "tangent_norm_float64": float(np.sqrt(max(abs(tk), abs(tv))))}
            if abs(x[0]) < 1e-4 and abs(x[1]) < 1e-4 and abs(x[4]) < 1e-4 and abs(abs(x[3]) - 1) < 1e-4:
                ov, g, (mk, mv) = _refine_family(np.sign(x[3]), lam, gamma, d, L, dps=dps)
                item["refined"] = {"theta": ov[2], "eta": ov[3], "partials": g,
                                   "tangent_norm": mpmath.sqrt(max(abs(mk), abs(mv))), "dps": dps}
            found.append(item)
    return found


@accepts_gamma2
def family_point_reached(overlaps, *, lam, gamma, d, L, alpha, steps, dps=50):
    """Whether constant-lam PGD from the sphere reaches the family k = +-v* (`docs/MATH.md` §12): the five-overlap runner
    from ``overlaps`` (as :func:`~.runners.overlap_pgd` takes them) for ``steps`` steps at step ``alpha``; the runs
    ending off M (distance > 0.1) are handed to :func:`find_stationary_points_off_M` (at its own alpha = 1). Returns
    (``refined``, the number of runs ending off M): ``refined`` the ``refined`` record (theta*, eta, the partials and the
    tangent norms at ``dps`` digits) of the first point found of the family, None when no run reached it."""
    tr = overlap_pgd(overlaps, lam=lam, gamma=gamma, d=d, L=L, alpha=alpha, steps=steps, every=steps)
    ends = np.stack(tr.ends, axis=1)
    off = tr.distance_to_M[-1] > 0.1
    pts = find_stationary_points_off_M(ends[off], lam=lam, gamma=gamma, d=d, L=L, dps=dps)
    fam = [q for q in pts if "refined" in q]
    return (fam[0]["refined"] if fam else None), int(off.sum())


# --------------------------------------------------------------------------- classification
def _frame(theta, eta, m=6):
    """k*, v*, k = eta v*, v = theta k* + sqrt(1 - theta^2) e_3 in R^m."""
    E = np.eye(m)
    ks, vs = E[0], E[1]
    k = eta * vs
    v = theta * ks + np.sqrt(1 - theta**2) * E[2]
    return k, v, ks, vs


def _tangent_basis(x):
    """Orthonormal basis of x^perp (rows)."""
    m = len(x)
    q, _ = np.linalg.qr(np.column_stack([x, np.eye(m)]))
    return q[:, 1:m].T


def _chart(k, v):
    """The retraction chart z -> (P(k + z[:m-1] Tk), P(v + z[m-1:] Tv)) at (k, v) in R^m, and (Tk, Tv)."""
    m = len(k)
    Tk, Tv = _tangent_basis(k), _tangent_basis(v)

    def point(z):
        kk = k + z[: m - 1] @ Tk
        vv = v + z[m - 1:] @ Tv
        return kk / np.linalg.norm(kk), vv / np.linalg.norm(vv)

    return point, Tk, Tv


@keywords_checked
def finite_difference_hessian(k, v, ks, vs, *, lam, gamma, d, L, h=1e-4):
    """Eigenvalues (ascending) of the Riemannian Hessian of R at unit vectors (k, v) of R^m (with k*, v*
    in R^m, the risk of dimension d) on S^{m-1} x S^{m-1}: central differences of Theorem 1's risk
    in the retraction chart (a, b) -> (P(k + a.Tk), P(v + b.Tv)), step ``h``. At a stationary point
    this is the Riemannian Hessian; R^6 represents every direction of R^d by symmetry."""
    point, _, _ = _chart(k, v)
    n = 2 * (len(k) - 1)
    risk = G.risk_kernel()

    def f(z):
        kk, vv = point(z)
        return float(risk(*Overlaps.from_vectors(kk, vv, ks, vs), lam, gamma, 0.0, d, L))

    H = np.zeros((n, n))
    f0 = f(np.zeros(n))
    for i in range(n):
        for j in range(i, n):
            ei, ej = np.eye(n)[i] * h, np.eye(n)[j] * h
            if i == j:
                H[i, i] = (f(ei) - 2 * f0 + f(-ei)) / h**2
            else:
                H[i, j] = H[j, i] = (f(ei + ej) - f(ei - ej) - f(-ei + ej) + f(-ei - ej)) / (4 * h**2)
    return np.linalg.eigvalsh(H)


@keywords_checked
def finite_difference_spectrum(theta, eta, *, lam, gamma, d, L, alpha=4e-3, m=6, h=1e-4):
    """By finite differences (an independent route for :func:`slr_verify.landscape.classify`): the
    Riemannian Hessian eigenvalues of R at (k, v) = (eta v*, theta k* + sqrt(1-theta^2) w) on
    S^{m-1} x S^{m-1} (:func:`finite_difference_hessian`), and the eigenvalues of the Jacobian of one
    full-dimensional PGD step (finite differences of ``pgd``, the same chart). Returns a dict with
    both, the predicted 1 - alpha h, and the kind ("minimum", "saddle", "maximum")."""
    k, v, ks, vs = _frame(theta, eta, m)
    point, Tk, Tv = _chart(k, v)
    n = 2 * (m - 1)
    hev = finite_difference_hessian(k, v, ks, vs, lam=lam, gamma=gamma, d=d, L=L, h=h)

    # PGD step in R^m with the risk of dimension d: the full runner takes d from the vectors, so
    # do the step here with Theorem 1's gradient at dimension d (chain rule through the overlaps)
    gk = G.risk_and_gradient_kernel()
    T = chain_rule_tables()

    def pgd_step(z):
        kk, vv = point(z)
        R = np.array([float(x) for x in gk(*Overlaps.from_vectors(kk, vv, ks, vs), lam, gamma, 0.0, d, L)[1:]])
        basis = np.array([kk, vv, ks, vs])
        gk_, gv_ = (R[T.parts[x]] @ basis[T.cols[x]] for x in (0, 1))
        k1, v1 = sphere_step(kk, gk_, alpha), sphere_step(vv, gv_, alpha)  # Definition 1
        # back to chart coordinates (first order: tangent components)
        return np.concatenate([Tk @ (k1 - k), Tv @ (v1 - v)])

    hj = 1e-6
    J = np.column_stack([(pgd_step(np.eye(n)[i] * hj) - pgd_step(-np.eye(n)[i] * hj)) / (2 * hj) for i in range(n)])
    jev = np.sort(np.real(np.linalg.eigvals(J)))
    # eigenvalues at FD round-off level (~eps/h^2) are the flat directions of the symmetry orbit:
    # v's component w can turn to any unit vector orthogonal to k*, v* (m - 3 directions in R^m)
    flat = np.abs(hev) < 1e-5
    rest = hev[~flat]
    kind = "minimum" if rest.min() > 0 else "maximum" if rest.max() < 0 else "saddle"
    return {"hessian_eigenvalues": hev, "jacobian_eigenvalues": jev, "predicted_jacobian": np.sort(1 - alpha * hev),
            "kind": kind, "n_flat": int(flat.sum()), "n_negative": int(np.sum(rest < 0)),
            "unstable_directions": int(np.sum(jev > 1 + 1e-6))}
