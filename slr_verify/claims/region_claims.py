"""Theorems over regions of settings (`docs/MATH.md` §21): what the dynamics on M depend on, proved by SymPy,
with mpmath quadrature of the risk as the independent route.

Each check takes a :class:`~.base.Context` and returns a list of :class:`~.vocabulary.Evidence`.
"""

from __future__ import annotations

import mpmath
import numpy as np

from ..routes.quadrature import quad_risk, quad_zeta
from ..symbolic import setting_dependence as ssd
from .base import claim
from .vocabulary import Identities, Measured

#: two settings that differ in eps and L only (Figure 4b's gamma and d, the paper's lam), and the quadrature's digits
SETTINGS = ({"eps": 0.1, "L": 10}, {"eps": 0.6, "L": 3})
BASE = {"lam": 0.1, "gamma": 0.5**0.5, "d": 400}
DPS = 20


def _shift(kappa, nu, theta, eta, rho):
    """R(setting 0) - R(setting 1) at one overlap tuple, by quadrature (mpf)."""
    a, b = (quad_risk(kappa, nu, theta, eta, rho, dps=DPS, **BASE, **s) for s in SETTINGS)
    return a - b


@claim(
    "on-m-setting-dependence",
    where="finding beyond the paper (docs/MATH.md section 21: the region theorems' first step)",
    kind="finding",
    statement="on M the noise and the null tokens add constants to the risk, R = F(kappa, nu; lam, gamma, a) + eps^2 + "
    "(L - 1) zeta_lam(0) with a = lam sqrt(d/2): the gradient, the Hessian, Phi_alpha, K_alpha, D K_alpha and mu_+ (so "
    "every constant of Theorem 5's proof) depend on (lam, gamma, d) alone, d through a; off M, L enters the gradient",
    domain=lambda s: f"all parameters (SymPy); quadrature at {s.points} points of M, lam = 0.1, gamma^2 = 1/2, "
    f"d = 400, (eps, L) = (0.1, 10) against (0.6, 3)",
    sizes=dict(points=(2, 3, 12)),
)
def on_m_setting_dependence(ctx, seed=5):
    """The SymPy proof (:mod:`slr_verify.symbolic.setting_dependence`) and, by quadrature, R(eps, L) - R(eps', L') at
    points of M minus eps^2 - eps'^2 + (L - L') zeta_lam(0) (0: the constant shift). Off M the SymPy proof stands alone
    here (tests/test_setting_dependence.py checks it by quadrature)."""
    pts = np.random.default_rng(seed).uniform(-1, 1, (ctx.size.points, 2))
    with mpmath.workdps(DPS + 5):
        want = (SETTINGS[0]["eps"] ** 2 - SETTINGS[1]["eps"] ** 2
                + (SETTINGS[0]["L"] - SETTINGS[1]["L"]) * quad_zeta(0, BASE["lam"], dps=DPS))
        errs = [abs(_shift(k, n, 0, 0, 0) - want) / abs(want) for k, n in pts]
    worst = float(max(errs))
    return [
        Identities("SymPy: Theorem 1 on M, Lemma 6's gradient and Hessian, the reduced map, Proposition 12's K_alpha",
                   "docs/MATH.md §21: the dynamics on M depend on (lam, gamma, d) only", ssd.dependence_proofs()),
        Identities("SymPy: Theorem 1's dR/drho at a general point", "docs/MATH.md §21: off M, L matters",
                   ssd.off_manifold_proofs()),
        Measured(f"mpmath quadrature of the risk ({DPS} digits), two settings differing in eps and L",
                 "eps^2 - eps'^2 + (L - L') zeta_lam(0) (the shift is constant on M)", worst, 1e-15,
                 f"{DPS}-digit quadrature; a shift varying along M would show at 1e-3 or more",
                 size={"points": ctx.size.points, "seed": seed}, corroborates=True,
                 details={"points": pts.tolist()}),
    ]
