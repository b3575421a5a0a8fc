"""The premises of the proof certificates (`docs/certificates.md`, "Premises"): for each, the SymPy expressions whose
ball kernels the checker evaluates, written as a committed module of ``slr_verify/checker/generated/``
(:mod:`.arb_source`), and the SymPy proofs the premise states about them.

A certificate names each premise with the content hash of that module's file (:func:`slr_verify.checker.premises.
premise_hash`): the checker loads the file, and trusts it because ``slr-verify derive --check`` and the default tests
(:func:`check_generated`) regenerate every module from the live expressions, compare it with the committed file, and
prove the premise's statements, including every rewriting of an expression for ball evaluation (:func:`rewriting`).
"""
from __future__ import annotations

from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Callable

import sympy as sp

from ..symbolic import dynamics as sdyn
from ..symbolic import fixed_points as sfix
from ..symbolic import profile_dual as pdual
from ..symbolic import profile_oracle as poracle
from ..symbolic import profile_trs as ptrs
from ..symbolic import profile_valley as pvalley
from ..symbolic.risk import OVERLAPS, PARAMS, S
from ..symbolic.zeta import zeta
from .arb_source import module_source
from .profile import valley_edge_exprs, valley_edge_proofs, valley_proofs


@dataclass(frozen=True)
class Premise:
    """A premise: ``name``; ``module`` (its file in the checker's ``generated`` package); ``summary``; ``kernels``
    (a function giving (name, args, exprs, doc) for each kernel); ``proofs`` (functions giving {statement: bool})."""

    name: str
    module: str
    summary: str
    kernels: Callable[[], list]
    proofs: tuple
    constants: Callable[[], dict] = dict

    def proved(self) -> dict:
        """{statement: bool}: the premise's SymPy proofs (cached per process)."""
        return dict(_proved(self.name))

    def source(self) -> str:
        """The module's text, generated from the live expressions."""
        return module_source(self.name, self.summary, list(self.proved()), self.kernels(), self.constants())

    @property
    def hash(self) -> str:
        """The content hash of the committed module (what a certificate names)."""
        from ..checker.premises import premise_hash

        return premise_hash(self.name)


@cache
def _proved(name) -> tuple:
    out = {}
    for f in premises()[name].proofs:
        out.update(f())
    return tuple(out.items())


def rewriting(plain, ball, label) -> dict:
    """{label: bool}: each expression of ``ball`` (the form printed for ball evaluation) equals the one of ``plain``,
    proved by SymPy (expansion with the exponentials combined, or ``simplify`` where that is not enough)."""
    ok = True
    for a, b in zip(plain, ball, strict=True):
        d = sp.expand(sp.powsimp(sp.expand(a - b), combine="exp"))
        ok = ok and (d == 0 or sp.simplify(d) == 0)
    return {f"{label}: the ball form equals the derived expression": bool(ok)}


_CARGS = (S.kappa, S.lam, S.gamma, S.eps, S.d, S.L)
_LINE = (*ptrs.COEF_SYMS, pdual.DET_M, S.kappa, pdual.BETA)
_HARGS = (S.lam, S.gamma, S.d, S.L)
_SIGN_ARGS = (S.kappa, S.nu, S.lam, S.gamma, S.d, S.L)


def _jets(coefficients) -> list:
    """The coefficients, then their kappa partials, then their lam partials (one flat list): SymPy's derivatives of the
    ball form, which is proved equal to the derived expression, so they are the derived expression's partials
    (tests/test_certificates.py compares them with the Taylor arithmetic of ``coefficients`` on series)."""
    return [*coefficients, *(sp.diff(e, x) for x in (S.kappa, S.lam) for e in coefficients)]


def _second_partials(coefficients) -> list:
    """d^2/dkappa^2, d^2/dkappa dlam, d^2/dlam^2 of each coefficient in turn (one flat list), as :func:`_jets`: free of
    zeta itself (its partials are closed forms), so a ball evaluation over a box needs no quadrature."""
    pairs = ((S.kappa, S.kappa), (S.kappa, S.lam), (S.lam, S.lam))
    return [sp.diff(e, x, y) for e in coefficients for x, y in pairs]


def _profile():
    return [("coefficients", _CARGS, ptrs.reduced_coefficients(True),
             "[a0, a_tt, a_tr, a_rr, p_theta/eta, p_nu, p_rho/eta, c] of the profile's TRS at kappa (MATH.md §17)"),
            ("split", "coefficient_jets", _CARGS, _jets(ptrs.reduced_coefficients(True)),
             "the eight coefficients, their d/dkappa, their d/dlam (24 balls: the Taylor models' centre and gradient)"),

            ("trs_entries", ptrs.TRS_ARGS, [ptrs.ball_form(e) for e in ptrs.trs_entries()],
             "[c, a0, H11, H12, H13, H22, H23, H33, g1, g2, g3]: R = c - 2 g.x + x^T H x + a0 x4^2 on |v| = 1")]


def _hessian_kernels():
    return [("split", "coefficient_hessians", _CARGS, _second_partials(ptrs.reduced_coefficients(True)),
             "(d^2/dkappa^2, d^2/dkappa dlam, d^2/dlam^2) of each coefficient (24 balls: over a box, its Taylor remainder)")]


def _hessian_proofs() -> dict:
    """The second partials are closed forms: zeta's own partials are (the runtime's quadrature is never called)."""
    return {"coefficient_hessians: free of zeta (no quadrature)":
            not any(e.has(zeta) for e in _second_partials(ptrs.reduced_coefficients(True)))}


def _profile_proofs():
    out = dict(ptrs.proofs())
    out.update(rewriting(ptrs.reduced_coefficients(), ptrs.reduced_coefficients(True), "coefficients"))
    out.update(rewriting(ptrs.trs_entries(), [ptrs.ball_form(e) for e in ptrs.trs_entries()], "trs_entries"))
    return out


def _sign_system():
    st = sfix.structure()
    H = [sp.erf(st.c2 * S.kappa) - S.nu, sp.erf(st.c1 * S.kappa)]
    return [("sign_system", _SIGN_ARGS, H, "[H0, H1] = [erf(c2 kappa) - nu, erf(c1 kappa)]: g_kappa = P H0, g_nu = c_n H1"),
            ("sign_jacobian", _SIGN_ARGS, list(sp.Matrix(H).jacobian((S.kappa, S.nu))), "dH/d(kappa, nu), row-major")]


def _hessians():
    return [(f"hessian_{'_'.join('m' if c < 0 else str(c) for c in pt)}", _HARGS, list(sfix.manifold_hessian(pt)),
             f"the Hessian of R on M at {pt} (angle coordinates at a corner), row-major") for pt in sfix.POINTS]


def _diagonal_at_corners():
    return {f"the Hessian at {pt} is diagonal in angle coordinates": bool(
        sp.simplify(sfix.manifold_hessian(pt)[0, 1]) == 0 and sp.simplify(sfix.manifold_hessian(pt)[1, 0]) == 0)
        for pt in sfix.CORNERS}


def _reduced():
    J, st = sfix.reduced_jacobian(), sfix.structure()
    return [("det_jacobian", (S.kappa, S.nu, *_HARGS, sdyn.A), [J[0, 0] * J[1, 1] - J[0, 1] * J[1, 0]],
             "det J of the reduced PGD map on M (Proposition 10)"),
            ("corner_gradient", _HARGS, [st.P.subs(S.kappa, 1) * sp.erfc(st.c2), -st.coef_n * sp.erf(st.c1)],
             "(|g_kappa|, |g_nu|) at (1, 1)")]


def _family():
    from ..symbolic import family_algebra as sfam

    theta_star, _ = sfam.off_M_family()
    M, _, (mu_k, _) = sfam.family_hessian()
    return [("theta_star", (S.eta, S.lam, S.gamma, S.d), [theta_star], "theta*(eta) of the family k = eta v*"),
            ("family_hessian", (S.theta, *_HARGS[:3], S.L), [M[i, j] for i in range(5) for j in range(5)] + [-mu_k],
             "the Riemannian Hessian's block off the orbit at k = v* (row-major) and -mu_k")]


def _family_proofs():
    from ..symbolic import family_algebra as sfam
    from .family_kernels import family_hessian_proofs

    return {**sfam.off_M_family()[1], **family_hessian_proofs()}


@cache
def _additive_on_M() -> dict:
    """SymPy: on M (theta = eta = rho = 0) Theorem 1's risk has dR/dL = zeta_lam(0) and dR/deps = 2 eps, free of
    (kappa, nu): eps and L enter R on M as additive constants, so nothing of the dynamics on M sees them (`docs/MATH.md`
    §20, "At every eps and L")."""
    from ..symbolic.risk import theorem1_risk

    R = theorem1_risk().subs(S.theta, 0).subs(S.eta, 0).subs(S.rho, 0)
    free = all(not ({S.kappa, S.nu} & sp.simplify(sp.diff(R, x)).free_symbols) for x in (S.L, S.eps))
    return {"on M, dR/dL = zeta_lam(0) and dR/deps = 2 eps are free of (kappa, nu): eps and L enter R as additive "
            "constants": bool(free)}


def _free_of_eps_and_L(name):
    """{statement: bool}: the premise's kernel expressions contain neither eps nor L (their L argument is unused), with
    :func:`_additive_on_M`: the premise's statements hold at every eps >= 0 and L >= 1."""
    def proofs() -> dict:
        exprs = [e for _, _, es, _ in premises()[name].kernels() for e in es]
        free = all(not ({S.eps, S.L} & sp.sympify(e).free_symbols) for e in exprs)
        return {**_additive_on_M(), f"the {name} kernels' expressions are free of eps and L": bool(free)}
    return proofs


def _descent():
    from ..symbolic import descent as sdes

    entries = sdes.NORM_ARGS
    return [("gradient", _SIGN_ARGS, list(sdes.gradient()), "[g_kappa, g_nu] of R on M (Lemma 6)"),
            ("hessian", _SIGN_ARGS, list(sdes.hessian()), "the Hessian of R on M in (kappa, nu), row-major (Proposition 8)"),
            ("dk", (*_SIGN_ARGS, sdyn.A), list(sdes.dk()),
             "D K_alpha in (kappa, nu), row-major, Phi_alpha = x - alpha K_alpha (Proposition 12)"),
            ("norm2", entries, [sdes.operator_norm(*entries)], "[||A||_2] of A = [[a, b], [c, d]]"),
            ("saddle", _HARGS, list(sdes.saddle_eigen()), "[mu_+, det] of the Hessian of R on M at (0, 0)"),
            ("bracket", sdes.BRACKET_ARGS, [sdes.bracket()], "[B(alpha, G, H)] of the descent inequality (Proposition 8)")]


def _descent_proofs():
    from ..symbolic import descent as sdes

    return {**sdes.descent_proofs(), **sdes.k_map_proofs(), **sdes.norm_proofs(), **sdes.theorem5_step_proofs()}


def _pgd_map():
    gh = [*_theorem1_gradient(), *_theorem1_hessian()]
    m = list(sdyn.overlap_map()) + list(sdyn.overlap_map_jacobian())
    return [("grad_hess", (*OVERLAPS, *PARAMS), gh, "Theorem 1's 5 partials and 25 second partials in the overlaps"),
            ("pgd_map", (*OVERLAPS, *sdyn.PARTIALS, sdyn.A), m,
             "the five-overlap PGD map F (5) and its Jacobian in (overlaps, partials) (5 x 10, row-major)")]


def _theorem1_gradient():
    from ..symbolic.risk import theorem1_gradient

    return theorem1_gradient()


def _theorem1_hessian():
    from ..symbolic.risk import theorem1_hessian

    return theorem1_hessian()


def _zeta_partials():
    t, g = sp.symbols("t g", positive=True)
    return [("zeta_partials", (t, g), [sp.diff(zeta(t, g), t), sp.diff(zeta(t, g), g)],
             "[d zeta/dt, d zeta/dg] of zeta's closed form (MATH.md §4)")]


def _zeta_heat() -> dict:
    """SymPy: the closed form's partials satisfy the heat equation that the definition E erf(t + gZ)^2 does
    (d/dg E f(t + gZ) = g E f''(t + gZ), Stein's lemma): zeta_g = g zeta_tt."""
    t, g = sp.symbols("t g", positive=True)
    z = zeta(t, g)
    return {"zeta_g = g zeta_tt (the heat equation of E erf(t + gZ)^2)":
            bool(sp.simplify(sp.diff(z, g) - g * sp.diff(z, t, 2)) == 0)}


@cache
def premises() -> dict:
    """The premises by name (`docs/certificates.md`)."""
    from .landscape import valley_tube_proofs

    oc = poracle.oracle_curvature
    table = [
        Premise("quadratic-in-v", "quadratic_in_v", "R is a quadratic form in v; the TRS's coefficients (MATH.md §17)",
                _profile, (_profile_proofs,)),
        Premise("coefficient-hessians", "coefficient_hessians", "the second partials in (kappa, lam) of quadratic-in-v's "
                "coefficients (SymPy's, of their ball form; MATH.md §17, the Taylor models' remainder)", _hessian_kernels,
                (_hessian_proofs,)),
        Premise("dual-bound", "dual_bound", "the weak-duality bound's closed form, affine in t (MATH.md §17)",
                lambda: [("dual_line", _LINE, pdual.dual_line_algebra(), "[L0, L1, Delta, T] at mu = a0 - beta"),
                         ("det_m", ptrs.COEF_SYMS, [pdual.det_m()], "[det M]")],
                (pdual.dual_proofs, pdual.dual_line_proofs, pvalley.eta_linear_proofs)),
        Premise("pd-criterion", "pd_criterion", "H - mu I is positive definite iff beta, Delta, T > 0 (dual_bound's "
                "Delta and T)", list, (pdual.pd_criterion_proofs,)),
        Premise("valley", "valley", "the valley certificate's Q, beta, Delta, T (MATH.md §17)",
                lambda: [("valley", (*ptrs.COEF_SYMS, S.kappa), pvalley.valley_algebra(), "[Q, beta, Delta, T]")],
                (valley_proofs, pvalley.eta_linear_proofs)),
        Premise("oracle-risk", "oracle_risk", "R(k*, v*) and its lam derivative",
                lambda: [("oracle", PARAMS, poracle.oracle_risk_and_slope(), "[R(k*, v*), dR(k*, v*)/dlam]")],
                (poracle.oracle_risk_form_proofs,)),
        Premise("valley-edge", "valley_edge", "dR(kappa, 1, 0, 0, 0)/dkappa = -P erfc(c2 kappa) < 0",
                lambda: [("valley_edge", *valley_edge_exprs(), "[P(kappa) erfc(c2 kappa)]")], (valley_edge_proofs,)),
        Premise("circle", "circle", "the circle test's dL1/dbeta and L0 - L1 (MATH.md §17)",
                lambda: [("circle", _LINE, pvalley.circle_algebra(), "[dL1/dbeta, L0 - L1]")],
                (pdual.dual_line_proofs, pvalley.circle_proofs)),
        Premise("oracle-curvature", "oracle_curvature", "the profile's second derivatives at k* (implicit-function "
                "theorem), valid where the two gaps are > 0",
                lambda: [("oracle_curvature", PARAMS, [*oc().curv, *oc().gaps],
                          "[m'' along v*, m'' along e, H11 - mu0, H33 - mu0]")], (poracle.oracle_curvature_proofs,)),
        Premise("manifold-sign", "manifold_sign", "g_kappa = P H0, g_nu = c_n H1 with P > 0, c_n < 0 (Proposition 9)",
                _sign_system, (lambda: sfix.structure().proofs, _free_of_eps_and_L("manifold-sign"))),
        Premise("manifold-hessians", "manifold_hessians", "the Hessians of R on M at the five points (Proposition 9)",
                _hessians, (lambda: sfix.structure().proofs, _diagonal_at_corners, _free_of_eps_and_L("manifold-hessians"))),
        Premise("reduced-map", "reduced_map", "the reduced PGD map's Jacobian determinant (Proposition 10)", _reduced,
                (sdyn.pgd_identities, lambda: sfix.structure().proofs)),
        Premise("off-M-family", "off_m_family", "the stationary family k = eta v* off M (MATH.md §12)", _family,
                (_family_proofs,)),
        Premise("pgd-map", "pgd_map", "the five-overlap PGD map and its symmetries (MATH.md §13)", _pgd_map,
                (lambda: sdyn.sigma_equivariance_proofs(), sdyn.transverse_block_proofs),
                lambda: {"SYMMETRIES": ("the sign patterns sigma with Phi(sigma o) = sigma Phi(o) (STATEMENTS)",
                                        sdyn.SIGN_PATTERNS)}),
        Premise("edge-invariance", "edge_invariance", "the valley nu = 1 is invariant under the reduced map (MATH.md §13)",
                list, (valley_tube_proofs,)),
        Premise("descent", "descent", "Propositions 8 and 12 with explicit steps: the manifold gradient, the norms of "
                "the Hessian and of D K_alpha, the saddle's eigenvalue, the descent bracket (MATH.md §20)", _descent,
                (_descent_proofs, _free_of_eps_and_L("descent"))),
        Premise("zeta-partials", "zeta_partials", "zeta's partial derivatives (the runtime's zeta on series)",
                _zeta_partials, (_zeta_heat,)),
        Premise("lojasiewicz", "lojasiewicz", "R1's Lojasiewicz inequality below the saddle's level (MATH.md, R1)",
                lambda: __import__("slr_verify.symbolic.rate", fromlist=["rate_kernels"]).rate_kernels(),
                (lambda: __import__("slr_verify.symbolic.rate", fromlist=["rate_proofs"]).rate_proofs(),)),
    ]
    return {p.name: p for p in table}


def generated_dir() -> Path:
    """The checker's ``generated`` package folder."""
    return Path(__file__).resolve().parent.parent / "checker" / "generated"


def write_generated(folder=None, names=None) -> list:
    """Write every premise's module (or those of ``names``) into ``folder`` (default: the checker's); the paths."""
    folder = Path(folder or generated_dir())
    folder.mkdir(parents=True, exist_ok=True)
    out = []
    for p in (premises()[n] for n in (names or premises())):
        path = folder / f"{p.module}.py"
        path.write_text(p.source())
        out.append(path)
    return out


def check_generated(folder=None, names=None) -> dict:
    """{premise: problem or None}: each committed module (or those of ``names``) equals its regeneration and its
    statements are proved."""
    folder = Path(folder or generated_dir())
    out = {}
    for p in (premises()[n] for n in (names or premises())):
        path = folder / f"{p.module}.py"
        proved = p.proved()
        if not all(proved.values()):
            out[p.name] = f"not proved: {[k for k, v in proved.items() if not v]}"
        elif not path.exists() or path.read_text() != p.source():
            out[p.name] = f"{path} differs from its regeneration (run slr-verify derive --arb)"
        else:
            out[p.name] = None
    return out
