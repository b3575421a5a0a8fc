"""The premises of the proof certificates (`docs/certificates.md`): each a named SymPy statement the checker's
tests rest on, with a content hash of the expressions the ball kernels evaluate and the SymPy proofs it states."""
from __future__ import annotations

import hashlib
from functools import cache, cached_property

import mpmath
import sympy as sp

from ..symbolic import fixed_points as sfix
from ..symbolic import profile_dual as pdual
from ..symbolic import profile_oracle as poracle
from ..symbolic import profile_trs as ptrs
from ..symbolic import profile_valley as pvalley
from ..symbolic.risk import PARAMS, S
from .codegen import generate_mp
from .profile import valley_edge_exprs, valley_edge_proofs, valley_proofs

__all__ = ["Premise", "fingerprint", "premises"]


class Premise:
    """A named premise of the certificates (`docs/certificates.md`): ``hash``, a content hash of the SymPy
    expressions the kernels evaluate (:func:`fingerprint`), and ``proofs()``, the SymPy proofs it states
    ({statement: bool}, cached)."""

    def __init__(self, name, exprs, proofs):
        self.name, self._exprs, self._proofs, self._proved = name, exprs, proofs, None

    @cached_property
    def hash(self) -> str:
        return fingerprint(self._exprs())

    def proofs(self) -> dict:
        if self._proved is None:
            out = {}
            for f in self._proofs:
                out.update(f())
            self._proved = out
        return dict(self._proved)


def fingerprint(pairs) -> str:
    """sha256 of the values, to 30 significant digits (mpmath at 40), of each (args, expressions) pair at fixed
    rational points: it changes with the mathematics of the expressions, not with SymPy's printing or ordering."""
    h = hashlib.sha256()
    with mpmath.workdps(40):
        for args, exprs in pairs:
            fn = generate_mp(args, exprs, cse=True)
            for j in range(2):
                point = [mpmath.mpf(k + 2 + 3 * j) / (7 + 4 * k + j) for k in range(len(args))]
                for v in fn(*point):
                    h.update(mpmath.nstr(v, 30, min_fixed=1, max_fixed=0).encode())
    return h.hexdigest()[:32]


@cache
def premises() -> dict:
    """The premises of the certificates, by name (`docs/MATH.md` §§10, 17; `docs/certificates.md`): the profile's
    five, ``oracle-curvature`` (the profile's second derivatives at k* by the implicit-function theorem, valid where
    the two gaps are > 0) and ``manifold-sign`` (g_kappa = P H_0, g_nu = c_n H_1 with P > 0, c_n < 0: Proposition 9's
    kernels)."""
    cargs = (S.kappa, S.lam, S.gamma, S.eps, S.d, S.L)
    line = (*ptrs.COEF_SYMS, pdual.DET_M, S.kappa, pdual.BETA)
    table = [
        Premise("quadratic-in-v", lambda: [(cargs, ptrs.reduced_coefficients()), (ptrs.TRS_ARGS, ptrs.trs_entries())],
                [ptrs.proofs]),
        Premise("dual-bound", lambda: [(line, pdual.dual_line_algebra()), (ptrs.COEF_SYMS, [pdual.det_m()])],
                [pdual.dual_proofs, pdual.dual_line_proofs, lambda: pvalley.eta_linear_proofs()]),
        Premise("pd-criterion", lambda: [(line, pdual.dual_line_algebra()[2:])], [lambda: pdual.pd_criterion_proofs()]),
        Premise("valley", lambda: [((*ptrs.COEF_SYMS, S.kappa), pvalley.valley_algebra())],
                [valley_proofs, lambda: pvalley.eta_linear_proofs()]),
        Premise("oracle-risk", lambda: [(PARAMS, poracle.oracle_risk_and_slope())], [lambda: poracle.oracle_risk_form_proofs()]),
    ]
    table.append(Premise("valley-edge", lambda: [valley_edge_exprs()], [valley_edge_proofs]))
    table.append(Premise("circle", lambda: [(line, pvalley.circle_algebra())],
                         [pdual.dual_line_proofs, lambda: pvalley.circle_proofs()]))
    oc = poracle.oracle_curvature
    table.append(Premise("oracle-curvature", lambda: [(PARAMS, [*oc().curv, *oc().gaps])],
                         [lambda: poracle.oracle_curvature_proofs()]))
    st = sfix.structure
    table.append(Premise("manifold-sign", lambda: [((S.kappa, S.nu, S.lam, S.gamma, S.d, S.L),
                                                     [sp.erf(st().c2 * S.kappa) - S.nu, sp.erf(st().c1 * S.kappa)])],
                         [lambda: st().proofs]))
    table += _dynamics_premises()
    return {p.name: p for p in table}


def _dynamics_premises() -> list:
    """The premises of the dynamics' certificates (`docs/MATH.md` §§10, 12, 13): Proposition 10's Hessians at the
    five points and the reduced map's Jacobian, the stationary family off M, the five-overlap PGD map (its
    symmetries) and the facts of the valley nu = 1."""
    from ..symbolic import dynamics as sdyn
    from ..symbolic import family_algebra as sfam
    from .family_kernels import family_hessian_arb
    from .landscape import capture_exprs, valley_tube_proofs

    hargs, st = (S.lam, S.gamma, S.d, S.L), sfix.structure

    def diagonal_at_corners():
        return {f"the Hessian at {pt} is diagonal in angle coordinates": bool(
            sp.simplify(sfix.manifold_hessian(pt)[0, 1]) == 0 and sp.simplify(sfix.manifold_hessian(pt)[1, 0]) == 0)
            for pt in sfix.CORNERS}

    def reduced():
        J = sfix.reduced_jacobian()
        return [((S.kappa, S.nu, *hargs, sdyn.A), [J[0, 0] * J[1, 1] - J[0, 1] * J[1, 0]]),
                (hargs, [st().P.subs(S.kappa, 1) * sp.erfc(st().c2), -st().coef_n * sp.erf(st().c1)])]

    def family():
        theta_star, _ = sfam.off_M_family()
        M, _, (mu_k, _) = sfam.family_hessian()
        return [((S.eta, S.lam, S.gamma, S.d), [theta_star]),
                ((S.theta, *hargs[:3], S.L), [M[i, j] for i in range(5) for j in range(5)] + [-mu_k])]

    return [
        Premise("manifold-hessians", lambda: [(hargs, [h for pt in sfix.POINTS for h in sfix.manifold_hessian(pt)])],
                [lambda: st().proofs, diagonal_at_corners]),
        Premise("reduced-map", reduced, [lambda: sdyn.pgd_identities(), lambda: st().proofs]),
        Premise("off-M-family", family, [lambda: sfam.off_M_family()[1], lambda: family_hessian_arb()[1]]),
        Premise("pgd-map", lambda: list(capture_exprs()), [lambda: sdyn.sigma_equivariance_proofs()]),
        Premise("edge-invariance", lambda: [((S.kappa, S.nu, *hargs, sdyn.A), list(sfix.reduced_map_exprs()))],
                [valley_tube_proofs]),
    ]
