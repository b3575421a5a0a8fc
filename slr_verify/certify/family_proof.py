r"""The stationary point off M, k = +-v*, by SymPy and ball arithmetic (`docs/MATH.md` §12).

SymPy proves (:func:`slr_verify.symbolic.family_algebra.off_M_family`), for all parameters, that at
kappa = nu = rho = 0 the partials R_kappa, R_nu, R_rho vanish and R_theta is affine in theta with a
positive slope; with k = eta v* (eta = +-1) the tangent gradients are then 0 and R_theta k*, so the
point is stationary exactly at one theta* per eta. Ball arithmetic encloses theta* and shows
|theta*| < 1 (v = theta* k* + sqrt(1 - theta*^2) w is realisable).

Local minimality and local uniqueness (:func:`off_M_family_minimality`): the Riemannian Hessian at the
point, in a retraction chart (:func:`slr_verify.symbolic.family_algebra.family_hessian`), is evaluated on
arb balls at the enclosure of theta*. SymPy proves that the orbit coordinate (v's orthogonal part
turning, a rotation fixing k* and v*) has the row (0, ..., 0, -theta R_theta), which vanishes at
theta*, and that the orthogonal directions of R^d carry diag(-mu_k, -mu_v) with mu_v = theta R_theta
= 0 (again the orbit). The ball computation proves the remaining 5 x 5 block positive definite
(Sylvester: every leading principal minor > 0) and -mu_k > 0. So the Hessian is positive
semidefinite with kernel exactly the orbit's tangent: a strict local minimum modulo the symmetry
(a non-degenerate critical orbit), hence locally unique modulo the symmetries.
"""
from __future__ import annotations

from flint import ctx

from ..checker import replay
from ..checker.balls import param_balls
from ..checker.dynamics import family_values
from ..kernels.balls import outward, widened
from ..kernels.family_kernels import family_hessian_arb, theta_star_arb
from ..model.params import accepts_gamma2, require_d
from . import args as A
from .certificate import SplitTree, document


@accepts_gamma2
def off_M_family_point(*, lam, gamma, eps=0.0, d, L, eta=1, prec=128):
    """{"proved", "theta_star": (lo, hi), "proofs"} for the family point with k = eta v*."""
    lam, gamma, eps, d, L = A.model(lam, gamma, eps, d, L)
    eta = A.V.choice("eta", eta, (1, -1))
    prec = A.precision(prec)
    _, proofs = theta_star_arb()
    with ctx.workprec(int(prec)):
        th = family_values(widened(lam), param_balls(gamma, eps, d, L))["theta_star"][eta]
        proved = all(proofs.values()) and abs(th).upper() < 1
        return {"proved": bool(proved), "theta_star": outward(th), "proofs": proofs}


@accepts_gamma2
def off_M_family_minimality(*, lam, gamma, eps=0.0, d, L, prec=128):
    """{"proved", "minors" (enclosures of the 5 leading principal minors), "minus_mu_k", "proofs", "certificate"} for
    the point k = v*, theta = theta* (see the module; the certificate: :func:`off_M_certificate`); d >= 4."""
    lam, gamma, eps, d, L = A.model(lam, gamma, eps, d, L)
    require_d(d, "landscape")  # the minors of the Hessian in (kappa, nu, theta, eta, rho): k, v off span(k*, v*)
    prec = A.precision(prec)
    proofs = {**theta_star_arb()[1], **family_hessian_arb()[1]}
    with ctx.workprec(int(prec)):
        v = family_values(widened(lam), param_balls(gamma, eps, d, L))
        proved = all(proofs.values()) and all(m > 0 for m in v["minors"]) and v["minus_mu_k"] > 0 \
            and all(abs(t).upper() < 1 for t in v["theta_star"].values())
    cert = off_M_certificate(lam=lam, gamma=gamma, eps=eps, d=d, L=L, prec=prec) if proved else None
    if cert is not None and not replay(cert).accepted:  # what is proved is what the checker accepts
        proved, cert = False, None
    return {"proved": bool(proved), "minors": [outward(m) for m in v["minors"]], "minus_mu_k": outward(v["minus_mu_k"]),
            "proofs": proofs, "certificate": cert}


@accepts_gamma2
def off_M_certificate(*, lam, gamma, eps=0.0, d, L, prec=128) -> dict:
    """The ``off-M-minimum`` certificate at one lam (`docs/certificates.md`): one leaf, the whole point; the checker
    evaluates theta*(+-1), the minors and -mu_k itself."""
    lam, gamma, eps, d, L = A.model(lam, gamma, eps, d, L)
    tree = SplitTree(((lam, lam),), names=("lam",))
    tree.leaf(tree.root, {"test": "family-minimum"})
    return document("off-M-minimum", A.setting(gamma=gamma, eps=eps, d=d, L=L), tree, prec=A.precision(prec))
