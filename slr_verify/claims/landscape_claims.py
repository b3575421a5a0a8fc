"""Checks of the findings on the landscape beyond M (`docs/MATH.md` §13): the stationary points at Figure 4b's model
(lam = 0.1 and 0.9), and Figure 7a's saddle. The oracle's window and the global minimiser are in :mod:`.window_claims`,
the basins of PGD in :mod:`.basin_claims`, the window over (d, L) in :mod:`.window_phase_claims`.

Each check takes a :class:`~.base.Context` and returns a list of :class:`~.vocabulary.Evidence`.
"""

from __future__ import annotations

from .. import landscape as LS
from ..model.settings import FIGURES
from .base import ClaimSetting, claim
from .vocabulary import Measured

FIG4B = FIGURES["4b"]
#: Figure 4b's model as keywords (gamma, d, L): the model of the landscape's findings
MODEL_4B = dict(gamma=FIG4B.gamma, d=FIG4B.d, L=FIG4B.L)
#: Figure 4b's model, the setting of the landscape's findings (each is a statement about it: tied to the paper's)
SETTING_4B = ClaimSetting.of_figure(FIG4B)


def _summary(p):
    return {
        "overlaps": [round(float(x), 12) for x in p.overlaps],
        "risk": p.risk,
        "kind": p.kind,
        "index": p.index,
        "flat": p.flat,
        "name": p.name,
        "min_nonflat_eigenvalue": p.min_nonflat,
    }


def oracle_and_minimum_at(lam, starts):
    """(points, oracle, minimum): the stationary points at lam of Figure 4b's model (the deflated search with
    ``starts`` per round), the oracle's entry among them and the lowest minimum among them."""
    pts = LS.stationary_points(lam=lam, starts=starts, **MODEL_4B)
    orc = [p for p in pts if p.name == "oracle"][0]
    best = min((p for p in pts if p.kind == "minimum"), key=lambda p: p.risk)
    return pts, orc, best


@claim(
    "landscape",
    where="finding (docs/MATH.md section 13)",
    kind="finding",
    statement="all stationary points of R_lam on the product of spheres, classified by the Riemannian Hessian: at lam = 0.1 the "
    "only minima are the oracle and k = +-v*; at lam = 0.9 the oracle is a saddle of index 1 and the global minimum "
    "lies off M (sampled: a deflated multistart search)",
    domain=lambda s: f"lam in {{0.1, 0.9}}, {FIG4B.model_text}; {s.starts} starts per round",
    sizes=dict(starts=(120, 300, 1000)),
    setting=SETTING_4B,
)
def landscape(ctx):
    """All stationary points at lam = 0.1 (Figures 4b, 7b) and lam = 0.9 (Figure 7a), by the deflated
    multistart search refined at 40 digits."""
    starts = ctx.size.starts
    out = []
    for lam, fig in ((0.1, "4b/7b"), (0.9, "7a")):
        pts, orc, best = oracle_and_minimum_at(lam, starts)
        worst = max(p.tangent_norm for p in pts)
        out.append(
            Measured(
                f"deflated multistart Newton, Riemannian Newton at 40 digits (lam = {lam}, Figure {fig})",
                "Riemannian gradient of every reported point (working precision)",
                worst,
                1e-28,
                "a refined stationary point has a gradient at the 40-digit round-off level",
                unit="max tangent-gradient norm",
                size={"starts_per_round": starts, "orbits": len(pts)},
                details={
                    "points": [_summary(p) for p in pts],
                    "global_minimum": _summary(best),
                    "oracle": _summary(orc),
                    "rejected_float64_roots": pts[0].extra.get("rejected_candidates", 0),
                },
            )
        )
    return out


def figure7a_saddle(ctx):
    """Figure 7a's lam = 0.9: the oracle is a strict saddle (a negative Riemannian Hessian eigenvalue),
    so the starts that converge to it form a set of measure zero; the global minimum (the profile's,
    docs/MATH.md section 17) lies elsewhere. The oracle is a known stationary point: its Hessian is
    computed there directly (40-160 digits), without a search."""
    S = FIGURES["7a"]
    orc = LS.classify((1, 1, 0, 0, 0), lam=S.lam0, **MODEL_4B)
    risk, ov = LS.float_global_minimum(lam=S.lam0, **MODEL_4B)
    return [
        Measured(
            f"Riemannian Hessian at the oracle, 40-160 digits (lam = {S.lam0:g}, Figure 7a)",
            "a strict saddle is not a limit of PGD from almost every start",
            float(orc.index == 0),
            0.0,
            "index >= 1 with a negative eigenvalue well above round-off",
            unit="oracle not a strict saddle",
            details={"oracle": _summary(orc), "global_minimum": {"risk": risk, "overlaps": [float(x) for x in ov]}},
        )
    ]
