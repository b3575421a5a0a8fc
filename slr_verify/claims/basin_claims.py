"""Checks of PGD on the landscape beyond M (`docs/MATH.md` §13): the basins of sphere-initialised PGD at Figure 7b's
setting, the oracle's linear instability for PGD at Figure 4b's step with the 2-cycle beside it, and the transverse
stability of M to first order (`docs/MATH.md` §13, "The transverse map").

Each check takes a :class:`~.base.Context` and returns a list of :class:`~.vocabulary.Evidence`.
"""

from __future__ import annotations

import numpy as np

from .. import landscape as LS
from ..certify import alpha_stable, capture_certificate, contraction_ball, replay, sample_basins
from ..certify.committed import replay_committed
from ..certify.transverse import saddle_escape
from ..checker.binding import proves
from ..dynamics.fixed_points import overlap_jacobian_fd
from ..model.settings import FIGURES
from .base import ClaimSetting, claim
from .landscape_claims import FIG4B, MODEL_4B, SETTING_4B
from .vocabulary import Enclosure, Measured, Replayed, claim_setting


@claim(
    "basins",
    where="finding (docs/MATH.md section 13)",
    kind="finding",
    statement="from uniform sphere starts, constant-lam PGD at Figure 7b's setting converges to the oracle or to k = +-v*, "
    "each with a probability measured with its 95% interval",
    domain=lambda s: f"{FIGURES['7b'].text}; {s.runs} starts from the exact sphere law",
    sizes=dict(runs=(100, 300, 1000)),
    setting=ClaimSetting.of_figure(FIGURES["7b"]),
)
def basins(ctx, seed=0):
    """Basins at Figure 7b's setting (lam = 0.1, alpha = 4e-3): sphere starts from the exact law,
    20k steps, continued until the tangent gradient is below 1e-6; end points matched to the
    complete list of stationary points; rates with 95% Clopper-Pearson intervals."""
    S = FIGURES["7b"]
    runs = ctx.size.runs
    rates, _, _, steps = sample_basins(
        np.random.SeedSequence(seed),
        runs,
        lam=S.lam0,
        gamma=S.gamma,
        d=S.d,
        L=S.L,
        alpha=S.alpha,
        steps=S.steps,
        tol=1e-6,
        max_steps=600_000,
        starts=ctx.pick(100, 200, 300),
        progress=ctx.stream,
    )
    unexplained = sum(v["count"] for k, v in rates.items() if k in ("unmatched", "not converged"))
    return [
        Measured(
            "five-overlap PGD from the exact sphere law, continued to a tangent gradient < 1e-6, matched to the "
            "stationary points",
            "every run ends at a listed stationary point",
            float(unexplained),
            0.0,
            "an end point counts only when converged; rates are per run with 95% Clopper-Pearson intervals",
            unit="runs unconverged or unmatched",
            size={"runs": runs, "seed": seed, "steps": S.steps + int(steps)},
            details={"rates": rates},
        )
    ]


#: the threshold above which the oracle is linearly unstable for PGD at Figure 4b's step (a recorded measurement:
#: the root of its largest Riemannian Hessian eigenvalue minus 2/alpha, 0.16005); the claim checks the bracket
PGD_UNSTABLE_ABOVE = (0.1599, 0.1602)
#: a state of the 2-cycle at lam = 0.5 (read off a sphere-initialised run) and the sign pattern that maps it to its mirror
CYCLE_GUESS, MIRROR = (-0.237262, -0.999927, 0.011627, 0.003321, -0.009235), (1, 1, -1, -1, -1)


def _threshold_enclosed(alpha):
    """The bracket's ends by ball arithmetic (:func:`slr_verify.certify.alpha_stable`): the oracle a strict local minimum
    at both, 2/lambda_max > alpha at the lower end and < alpha at the upper end."""
    enc = {lam: alpha_stable(lam=lam, **MODEL_4B) for lam in PGD_UNSTABLE_ABOVE}
    lo_end, hi_end = (enc[lam] for lam in PGD_UNSTABLE_ABOVE)
    return Enclosure(
        "ball arithmetic: lambda_max of the oracle's Riemannian Hessian on the spheres (two 2 x 2 blocks, Theorem 1's "
        "committed arb partials; certify.alpha_stable) at both ends of the bracket",
        f"the threshold: a strict local minimum at both ends, 2/lambda_max > alpha = {alpha:g} at lam = "
        f"{PGD_UNSTABLE_ABOVE[0]}, < alpha at lam = {PGD_UNSTABLE_ABOVE[1]}",
        bool(lo_end["minimum"] and hi_end["minimum"] and lo_end["alpha_stable"][0] > alpha > hi_end["alpha_stable"][1]),
        details={"2/lambda_max (PGD on the spheres)": {str(k): v["alpha_stable"] for k, v in enc.items()},
                 "lambda_max": {str(k): v["lambda_max"] for k, v in enc.items()},
                 "dynamics": enc[PGD_UNSTABLE_ABOVE[0]]["dynamics"]["alpha_stable"]},
    )


@claim(
    "oracle-unstable-for-pgd",
    where="finding (docs/MATH.md section 13)",
    kind="finding",
    statement=f"at Figure 4b's model and step alpha = {FIG4B.alpha:g} the oracle is a linearly unstable fixed point of PGD "
    f"for lam above a threshold in [{PGD_UNSTABLE_ABOVE[0]}, {PGD_UNSTABLE_ABOVE[1]}] (its largest Riemannian Hessian "
    "eigenvalue passes 2/alpha), although it is the global minimiser of R_lam up to lam = 0.892; at lam = 0.5 PGD has an "
    "attracting 2-cycle {p, sigma p} (theta, eta, rho flip sign every step) next to the valley nu = 1 (how many "
    "sphere-initialised runs end there is measured in the basin tables, not here)",
    domain=f"{FIG4B.model_text}, alpha = {FIG4B.alpha:g}; lam at both ends of the bracket and lam = 0.5",
    setting=SETTING_4B,
)
def oracle_unstable_for_pgd(ctx):
    """The oracle's Riemannian Hessian at 40-160 digits (``LS.classify``) on both sides of the bracket, and its largest
    eigenvalue enclosed in arb there (``certify.alpha_stable``: 2/lambda_max on both sides of alpha); the contraction
    ball of sigma o Phi at lam = 0.5 (``certify.contraction_ball``, arb balls: r0 + q < 1); the 2-cycle
    confirmed by the full-dimensional PGD in R^d (vectors, not overlaps: ``LS.cycle_residual``)."""
    alpha = FIG4B.alpha
    sides = {lam: LS.stable_at(LS.classify((1, 1, 0, 0, 0), lam=lam, **MODEL_4B), alpha) for lam in PGD_UNSTABLE_ABOVE}
    wrong = int(not sides[PGD_UNSTABLE_ABOVE[0]]) + int(sides[PGD_UNSTABLE_ABOVE[1]])
    ball = contraction_ball(CYCLE_GUESS, MIRROR, lam=0.5, alpha=alpha, **MODEL_4B)
    reps = [replay(capture_certificate(ball))] if ball.proved else []
    c = ball.centre
    return [
        Measured(
            "the oracle's Riemannian Hessian at 40-160 digits (landscape.classify); stable iff a minimum with "
            "alpha * (largest eigenvalue) < 2",
            "linear stability of a fixed point of PGD (the step's derivative there is I - alpha Hess)",
            float(wrong), 0.0,
            "stable at the bracket's lower end, unstable at its upper end",
            unit="bracket ends on the wrong side", details={"stable": {str(k): v for k, v in sides.items()}},
        ),
        _threshold_enclosed(alpha),
        Replayed(
            "contraction ball of sigma o Phi (the exact five-overlap PGD map) on arb balls, kernels generated from SymPy; "
            "its certificate replayed by certify.replay",
            "Banach's fixed-point theorem: r0 + q < 1 on the ball",
            reps, binding=[proves(r, kind="contraction-ball", setting=claim_setting(SETTING_4B), lam=0.5,
                                  domain={"alpha": alpha}) for r in reps],
            holds=ball.period == 2,
            why="a run entering the ball converges to the 2-cycle {p, sigma p}, not to a stationary point",
            details={"centre": c.tolist(), "radius": ball.radius, "q": ball.q, "r0": ball.r0, "reason": ball.reason},
        ),
        Measured(
            f"full-dimensional PGD in R^{FIG4B.d} (vectors) from a realisation of the ball's centre, two steps",
            "the 2-cycle: one step gives the mirror image sigma c, two give c",
            LS.cycle_residual(c, MIRROR, lam=0.5, alpha=alpha, **MODEL_4B), 1e-10,
            "float64 on vectors; an independent route to the map the ball is proved for",
            unit="max overlap distance", corroborates=True,
        ),
    ]


#: the committed transverse maps at Figure 4b, lam = 0.1, alpha = 0.004: (file, the square it covers, the test it
#: must give, the least fraction of the square it must give it)
TRANSVERSE_MAPS = (("transverse_fig4b_lam0.1_oracle.json.gz", (0.875, 1.0), "attracting", 0.73),
                   ("transverse_fig4b_lam0.1_saddle.json.gz", (-0.0625, 0.0625), "repelling", 1.0))


@claim(
    "transverse-stability",
    where="finding beyond the paper (docs/MATH.md section 13, the transverse map)",
    kind="finding",
    statement=f"at Figure 4b's model, lam = 0.1 and alpha = {FIG4B.alpha:g}, to first order off M: the transverse block T "
    "of PGD's Jacobian on M (the (theta, eta, rho) block; on M the Jacobian is diag(D Phi_alpha, T)) has a real "
    "eigenvalue of modulus above 1 at every (kappa, nu) of [-1/16, 1/16]^2 around the saddle (M repels PGD there), and "
    "contracts a "
    "norm (spectral radius < 1: M attracts) on at least 73% of the area of [7/8, 1]^2 at the oracle, the rest undecided "
    "(boxes down to 2^-8 wide); nothing is claimed about the nonlinear dynamics off M",
    domain=f"{FIG4B.model_text}, lam = 0.1, alpha = {FIG4B.alpha:g}; (kappa, nu) in [-1/16, 1/16]^2 and [7/8, 1]^2",
    setting=SETTING_4B,
)
def transverse_stability(ctx):
    """The two committed ``transverse-map`` certificates, replayed and bound (kind, setting, lam, alpha), each over its
    square with at least its fraction of the test (the checker's own volume fractions)."""
    reps = [replay_committed(f) for f, *_ in TRANSVERSE_MAPS]
    square = lambda r, sq: r.values.get("domain", {}).get("kappa") == sq == r.values.get("domain", {}).get("nu")
    holds = all(r.accepted and square(r, sq) and r.values["fractions"][test] >= least
                for r, (_, sq, test, least) in zip(reps, TRANSVERSE_MAPS))
    return [Replayed(
        "the transverse block T enclosed over boxes of (kappa, nu) in arb (the five-overlap PGD map's kernels, "
        "generated from SymPy); certificates replayed by certify.replay",
        "attracting: ||S^-1 T S|| < 1 in a group norm; repelling: det(I - T) < 0, hence a real eigenvalue > 1",
        reps, binding=[proves(r, kind="transverse-map", setting=claim_setting(SETTING_4B), lam=0.1,
                              domain={"alpha": FIG4B.alpha}) for r in reps],
        holds=holds, why="each square is covered by leaves the checker decides, with the fractions it derives",
        details={"fractions": [r.values.get("fractions") for r in reps], "q_max": [r.values.get("q_max") for r in reps]},
    )]


@claim(
    "saddle-escape",
    where="finding beyond the paper (docs/MATH.md section 13, the transverse map)",
    kind="finding",
    statement=f"at Figure 4b's model, lam = 0.1 and alpha = {FIG4B.alpha:g}, PGD leaves the saddle (0, 0) of M along one "
    "unstable direction within M and one off M: the Jacobian there is diag(D Phi_alpha, T) and each block has one "
    "eigenvalue above 1, 1.0030861 (within M) and 1.0030671 (off M, along theta : eta = 0.435 : 0.900, rho = 0); they "
    "differ by 1.9e-5, the one within M the larger",
    domain=f"{FIG4B.model_text}, lam = 0.1, alpha = {FIG4B.alpha:g}; the point (0, 0, 0, 0, 0)",
    setting=SETTING_4B,
)
def saddle_escape_claim(ctx):
    """The two unstable eigenvalues at the saddle: arb's eigenvalue enclosures of the point Jacobian of the five-overlap
    map at 128 bits (``certify.transverse.saddle_escape``), against central differences of one float64 step of the NumPy
    runner (``dynamics.fixed_points.overlap_jacobian_fd``, no arb kernel)."""
    e = saddle_escape(lam=0.1, alpha=FIG4B.alpha, **MODEL_4B)
    J = overlap_jacobian_fd([(0.0,) * 5], lam=0.1, alpha=FIG4B.alpha, **MODEL_4B)[0]
    fd = {"within": max(np.linalg.eigvals(J[:2, :2]).real), "off": max(np.linalg.eigvals(J[2:, 2:]).real)}
    stated = {"within": 1.0030861, "off": 1.0030671}
    err = max(max(abs(fd[k] - e[k][0]), abs(fd[k] - e[k][1])) for k in fd)
    off_by = max(max(abs(stated[k] - e[k][0]), abs(stated[k] - e[k][1])) for k in stated)
    return [
        Measured("central differences (h = 1e-6) of one float64 step of the NumPy five-overlap runner at the saddle",
                 "arb's enclosures (acb_mat.eig) of the unstable eigenvalues of the point Jacobian at 128 bits", err, 1e-8,
                 "the differences' error is about 1e-10; the enclosures are a few ulps wide",
                 unit="absolute error", details={k: list(v) if isinstance(v, tuple) else v for k, v in e.items()}),
        Measured("the statement's rounded eigenvalues and gap", "the arb enclosures",
                 max(off_by / 5e-8, max(abs(1.9e-5 - g) for g in e["gap"]) / 5e-7,
                     max(abs(a - b) for a, b in zip(e["direction"], (0.435, 0.900, 0.0))) / 5e-4), 1.0,
                 "the stated digits: the eigenvalues to 1e-7, the gap to 1e-6, the direction to 1e-3 (half a unit of each "
                 "last digit; the direction is the float midpoint of arb's eigenvector, unit, its largest entry > 0)",
                 unit="half-units of the last stated digit", details={"gap": list(e["gap"]), "direction": e["direction"]}),
    ]
