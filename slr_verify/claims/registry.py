"""The registry: every claim of the paper and every finding of the suite, and the runner.

Each entry is a :class:`~.model.Claim` (id, the paper's numbering, statement, domain, check). A
check that raises is a failed check with the error recorded; nothing is silently pending.
"""
from __future__ import annotations

import time

from . import dynamics_claims as D
from . import experiment_claims as E
from . import landscape_claims as LC
from . import risk_claims as R
from .model import Claim, Context, Result

__all__ = ["CLAIMS", "ids", "get", "run_claims"]

_G = "gamma^2 = 1/2, d = 400, L = 10"

CLAIMS = [
    Claim("zeta", "Section 3 (zeta in Theorem 1)", "zeta_g(t) = E erf(t + gZ)^2 has a closed form (Owen's T); its float64 "
          "kernel keeps full relative accuracy", "t in [-1e3, 1e3], g in [1e-12, 1e3]", R.check_zeta),
    Claim("theorem-1", "Theorem 1, Appendix C", "R_lam(k, v) is a closed form in (kappa, nu, theta, eta, rho)",
          "random realisable overlaps; lam in [0.05, 2], gamma in [0.2, 1.5], eps in [0, 0.5], d in [4, 2000], L in [1, 30]",
          R.check_theorem1),
    Claim("oracle-risk", "Theorem 1 at (k*, v*)", "R_lam(k*, v*) = eps^2 + gamma^2 [1 - 2 erf(.) + zeta_{lam gamma}(lam sqrt(d/2))] "
          "+ (L - 1) zeta_lam(0)", "all parameters (SymPy); random parameters (numeric, Monte Carlo)", R.check_oracle_risk),
    Claim("law-of-J0", "Section 2", "R_lam(k, v) does not depend on the law of J0", "L <= 3 (SymPy); L = 4, three laws (Monte Carlo)",
          R.check_law_of_J0),
    Claim("corollary-2", "Corollary 2", "lam -> 0, lam sqrt(d) -> oo, lam sqrt(L) -> 0 imply R_lam(k*, v*) -> eps^2",
          "lam = d^-a, L = d^b, d up to 1e12", R.check_corollary2),
    Claim("proposition-3", "Proposition 3", "the best linear predictor is w_l = p_l gamma^2/(1 - p_l + p_l gamma^2) v*, with the "
          "stated risk", "L = 3 any p (SymPy); p = (0.6, 0.3, 0.1) (Monte Carlo)", R.check_proposition3),
    Claim("lemma-4", "Lemma 4", "M = {theta = eta = rho = 0} is invariant under PGD", f"all parameters (SymPy); Figure 4b ({_G}, "
          "lam = 0.1) in float64", D.check_lemma4),
    Claim("lemma-6", "Lemma 6", "on M the risk depends on (kappa, nu) only, by the stated formula", "all parameters (SymPy); random "
          "parameters (numeric)", R.check_lemma6),
    Claim("proposition-9", "Proposition 9", "the stationary points of R on M are exactly (0, 0) and the four corners; (1, 1), "
          "(-1, -1) minima, (1, -1), (-1, 1) maxima, (0, 0) a saddle", f"all parameters (sign argument); lam in {{0.1, 0.9}}, {_G} "
          "(classification)", D.check_proposition9),
    Claim("proposition-10", "Proposition 10", "Jacobians of the PGD map at the fixed points, attraction, two-timescale rates",
          f"lam = 0.1, alpha = 4e-3, {_G}", D.check_proposition10),
    Claim("theorem-5", "Theorem 5", "for alpha < alpha_max, PGD on M converges to +-(k*, v*) from almost every initialisation",
          f"lam = 0.1, alpha = 0.8 alpha_max, {_G}", D.check_theorem5),
    Claim("figure-4a-recovery", "Section 5, Figure 4a", "from a sphere initialisation, PGD with lam_t = 1/(1 + 1e-4 t) recovers "
          "+-(k*, v*)", f"{_G}, alpha = 4e-3, 120k steps", D.check_figure4a_recovery),
    Claim("constant-lam-not-always", "Appendix E.2, Figures 7a-7b", "with a constant lam, PGD from the sphere does not always "
          "recover +-(k*, v*)", f"lam = 0.1, alpha = 4e-3 (runs); lam = 0.9 (Hessian), {_G}",
          lambda ctx: D.check_constant_lam_not_always(ctx) + LC.check_figure7a_saddle(ctx)),
    Claim("off-M-stationary", "finding (reference section 12)", "constant-lam runs from the sphere can end at a stationary point "
          "off M, k = +-v*, kappa = nu = rho = 0, which is a local minimum", f"lam = 0.1, {_G}", D.check_off_M, kind="finding"),
    Claim("landscape", "finding (reference section 13)", "all stationary points of R_lam on the product of spheres, classified "
          "by the Riemannian Hessian: at lam = 0.1 the only minima are the oracle and k = +-v*; at lam = 0.9 the oracle is a "
          "saddle of index 1 and the global minimum lies off M", f"lam in {{0.1, 0.9}}, {_G}", LC.check_landscape, kind="finding"),
    Claim("oracle-window", "finding (reference section 13)", "the oracle is the global minimiser of R_lam exactly for lam in "
          "W = [0.0907218276, 0.8924379482]: below, the point k = +-v* has lower risk; above, the oracle is a saddle",
          f"{_G}, lam in [1e-4, 1e2]", LC.check_oracle_window, kind="finding"),
    Claim("window-phase-diagram", "finding (reference section 13; Corollary 2)", "over d in [10, 1e6] and L in [1, 1000] the "
          "window's lower end depends on d only, and Corollary 2's regime lam = d^-a (a < 1/2) lies inside W for large d",
          "gamma^2 = 1/2, eps = 0, lam in [1e-4, 1e2]", LC.check_window_phase_diagram, kind="finding"),
    Claim("basins", "finding (reference section 13)", "from uniform sphere starts, constant-lam PGD at Figure 7b's setting "
          "converges to the oracle or to k = +-v*, each with a probability measured with its 95% interval",
          f"lam = 0.1, alpha = 4e-3, {_G}; 100 (fast) / 300 / 1000 (thorough) starts", LC.check_basins, kind="finding"),
    Claim("multihead-risk", "finding (reference section 15; paper eqs. 30-31)", "the multi-head erf predictor's risk on "
          "multiple-location regression has a closed form in the overlaps, through a bivariate zeta; for H = K = 1 it is "
          "Theorem 1", "H, K in 1..3, d up to 60, lam in [0.03, 3], gamma in [0.25, 1.6]", E.check_multihead_risk, kind="finding"),
    Claim("figure-9", "finding (Appendix E, Figure 9)", "at Figure 9's settings projected SGD with two heads on two "
          "locations (batch 5) does not follow the deterministic PGD on the exact multi-head risk: in every run its exact "
          "risk at the horizon is above the deterministic run's from the same start (a noise floor)",
          "d = 80, L = 10, gamma^2 = 1/2, eps = 0.1, alpha = 1e-3, lam_t = 2/(1 + 1e-4 t) frozen after 25k; "
          "2 x 4k (fast) / 6 x 30k / 20 x 100k (thorough) steps", E.check_figure9, kind="finding", heavy=True),
    Claim("figure-8", "Appendix E.3, Figure 8", "the trained Transformer layer recovers k* and v* (alignments > 0.95) with an "
          "excess risk below gamma^2/10, in every run", "L = 10, d = r = 80, m = 200, lr 1e-2, batch 128; 2 (fast) / "
          "5 / 20 (thorough) runs of 8000 steps", E.check_figure8, heavy=True),
    Claim("rank-one", "finding (Appendix E.3, Figure 8)", "W_k^T W_q is exactly rank one at every step of training (the "
          "paper reports 'nearly rank one'): W_q starts at 0 and every update of it is an outer product with W_k LN(z_0), "
          "which only moves along itself", "single head, float64, 200 (fast) to 8000 steps", E.check_rank_one,
          kind="finding", heavy=True),
    Claim("figure-10", "Appendix E.3, Figure 10", "with two heads (output matrix W_O) on two locations the layer reaches a "
          "low excess risk (below K gamma^2/10) with only partial recovery (no head with both alignments > 0.95)",
          "H = K = 2, r = 40, lr 2e-2; 1 x 3000 (fast) / 3 x 10k / 10 x 10k (thorough) steps", E.check_figure10, heavy=True),
]

_BY_ID = {c.id: c for c in CLAIMS}


def ids():
    return [c.id for c in CLAIMS]


def get(claim_id) -> Claim:
    if claim_id not in _BY_ID:
        raise KeyError(f"unknown claim id {claim_id!r}; known ids: {', '.join(ids())}")
    return _BY_ID[claim_id]


def run_claims(mode="default", only=None, progress=None):
    """Run every claim (or the ids in ``only``, in registry order); yield one :class:`Result` each.
    ``progress``: a stream for per-claim lines and progress bars inside the claims (None: quiet)."""
    if only is not None:
        unknown = sorted(set(only) - set(_BY_ID))
        if unknown:
            raise KeyError(f"unknown claim id(s) {', '.join(unknown)}; known ids: {', '.join(ids())}")
    ctx = Context(mode, progress)
    for claim in CLAIMS:
        if only is not None and claim.id not in only:
            continue
        if progress:
            print(f"[slr-verify] {claim.id} ({claim.where}) ...", file=progress, flush=True)
        t0 = time.perf_counter()
        try:
            evidence, error = list(claim.check(ctx)), None
        except Exception as exc:  # a check that crashes fails, and says why
            evidence, error = [], f"{type(exc).__name__}: {exc}"
        res = Result(claim, evidence, time.perf_counter() - t0, error)
        if progress:
            print(f"[slr-verify]   {claim.id}: {res.verdict} ({res.seconds:.1f} s)", file=progress, flush=True)
        yield res
