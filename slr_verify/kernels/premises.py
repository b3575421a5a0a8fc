"""The premises of the proof certificates (`docs/certificates.md`): each a named SymPy statement the checker's
tests rest on, with a content hash of the expressions the ball kernels evaluate and the SymPy proofs it states."""
from __future__ import annotations

import hashlib
from functools import cache, cached_property

import mpmath
import sympy as sp

from ..symbolic import fixed_points as sfix
from ..symbolic import profile as sprof
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
    line = (*sprof.COEF_SYMS, sprof.DET_M, S.kappa, sprof.BETA)
    table = [
        Premise("quadratic-in-v", lambda: [(cargs, sprof.reduced_coefficients()), (sprof.TRS_ARGS, sprof.trs_entries())],
                [sprof.proofs]),
        Premise("dual-bound", lambda: [(line, sprof.dual_line_algebra()), (sprof.COEF_SYMS, [sprof.det_m()])],
                [sprof.dual_proofs, sprof.dual_line_proofs, lambda: sprof.eta_linear_proofs()]),
        Premise("pd-criterion", lambda: [(line, sprof.dual_line_algebra()[2:])], [lambda: sprof.pd_criterion_proofs()]),
        Premise("valley", lambda: [((*sprof.COEF_SYMS, S.kappa), sprof.valley_algebra())],
                [valley_proofs, lambda: sprof.eta_linear_proofs()]),
        Premise("oracle-risk", lambda: [(PARAMS, sprof.oracle_risk_and_slope())], [lambda: sprof.oracle_risk_form_proofs()]),
    ]
    table.append(Premise("valley-edge", lambda: [valley_edge_exprs()], [valley_edge_proofs]))
    table.append(Premise("circle", lambda: [(line, sprof.circle_algebra())],
                         [sprof.dual_line_proofs, lambda: sprof.circle_proofs()]))
    oc = sprof.oracle_curvature
    table.append(Premise("oracle-curvature", lambda: [(PARAMS, [*oc().curv, *oc().gaps])],
                         [lambda: sprof.oracle_curvature_proofs()]))
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
    from ..symbolic import family as sfam
    from .family import family_hessian_arb
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
