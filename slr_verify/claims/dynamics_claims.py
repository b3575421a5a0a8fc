"""Checks of the claims on the dynamics (paper, Sections 4-5 and Appendix E; `docs/MATH.md` §§8-13).

Each check takes a :class:`~.model.Context` and returns a list of :class:`~.model.Evidence`.
"""

from __future__ import annotations

import math
from functools import lru_cache

import mpmath
import numpy as np

from ..certify import (
    Replay,
    alpha_attract,
    alpha_diffeo,
    hessian_signs,
    off_M_family_minimality,
    off_M_family_point,
    replay,
    stationary_points_on_M,
)
from ..certify.committed import replay_committed
from ..dynamics import family
from ..dynamics import fixed_points as F
from ..dynamics.convergence import converge
from ..dynamics.runners import overlap_pgd, pgd, reduced_pgd
from ..kernels import api
from ..model.intervals import clopper_pearson
from ..model.sampling import draw_problem, initial_overlaps
from ..model.settings import FIGURES
from ..symbolic import dynamics as sdyn
from ..symbolic import fixed_points as sfix
from .base import ClaimSetting, claim
from .landscape_claims import figure7a_saddle
from .vocabulary import Counterexample, Identities, Measured, Proof, Rate, Replayed, certifies_at

__all__ = [
    "lemma4",
    "proposition9",
    "proposition10",
    "theorem5",
    "off_M_stationary",
    "figure4a_recovery",
    "constant_lam_not_always",
    "FIG4A_COUNTEREXAMPLE",
]

FIG4B = FIGURES["4b"]
_P4B = dict(lam=FIG4B.lam0, gamma=FIG4B.gamma, d=FIG4B.d, L=FIG4B.L)
_NAMES = ("kappa", "nu", "theta", "eta", "rho")
#: the model of Figure 4b, the paper's setting of the claims on M
_M4B = ClaimSetting.of_figure(FIG4B)
#: the dynamics on the population risk do not depend on eps (its gradient does not)
_NO_EPS = "eps does not move PGD on the population risk"
#: at a user's setting the reduced runs on M stop after this many steps (Proposition 10's rates, Theorem 5)
_MAX_STEPS = 200_000


def _model(ctx) -> dict:
    """gamma, d, L of the setting the check runs at (the user's, or Figure 4b's)."""
    return dict(gamma=ctx.setting.gamma, d=ctx.setting.d, L=ctx.setting.L)


@lru_cache(maxsize=16)
def _at_lam(gamma, d, L):
    """At Figure 4b's lam and (gamma, d, L): |g| at (1, 1) (the reduced map's gradient there) and the numeric
    alpha_max (61 x 61 grid); cached, the range checks and the claims read them."""
    p = dict(lam=FIG4B.lam0, gamma=gamma, d=d, L=L)
    g = F.alpha_attract(**p)[1]
    return g, (F.alpha_max_diffeo(**p, n=61) if g.min() > 0 else 0.0)


def _prop10_step(a_max):
    """Proposition 10's step at a user's setting: Figure 4b's alpha, or half the numeric alpha_max when smaller."""
    return min(FIG4B.alpha, 0.5 * a_max)


def _steps_needed(st, alpha, scale):
    """Steps for the reduced map's linear phase at (1, 1) at ``alpha``: ``scale`` = (for 1 - kappa, for 1 - nu)
    e-folds of each linear rate."""
    rk, rn = F.predicted_rates(lam=FIG4B.lam0, gamma=st.gamma, d=st.d, L=st.L, alpha=alpha)
    return max(scale[0] / -np.log(rk), scale[1] / -np.log(rn))


def _on_M(st):
    """None when the claims on M can run at a user's setting ``st``, else why not: M (theta = eta = rho = 0 with
    |kappa|, |nu| < 1) needs d >= 4 (the certificates' model too), and at Figure 4b's lam the reduced map's gradient
    at (1, 1) must be resolved in float64."""
    if st.d < 4:
        return f"M needs d >= 4, got d = {st.d}"
    g, a_max = _at_lam(st.gamma, st.d, st.L)
    if not g.min() > 1e-12 * max(g.max(), 1e-300) or a_max <= 0:
        return f"at lam = {FIG4B.lam0:g} the gradient at (1, 1) is below float64's resolution (|g| = " \
               f"{', '.join(f'{float(x):.3g}' for x in g)})"
    return None


def _rates_within(st, alpha, scale, what):
    why = _on_M(st)
    if why:
        return why
    n = _steps_needed(st, alpha, scale)
    if not n <= _MAX_STEPS:
        return f"at lam = {FIG4B.lam0:g} the linear rates at (1, 1) are so slow that {what} needs about {n:.2g} steps " \
               f"(more than {_MAX_STEPS:,})"
    return None


_P10_SCALE, _T5_SCALE = (1.0, 12.0), (30.0, 45.0)
#: Proposition 10's certificate at a user's setting: up to this gamma^2 certify.alpha_diffeo closes within its budget at
#: 0.9 of the numeric alpha_max (measured at gamma^2 = 1e3 with d = 200, L = 10: 26 s; at 1e4 it does not close)
_P10_GAMMA2_MAX = 1e3


def _prop10_budget(st):
    if st.gamma2 > _P10_GAMMA2_MAX:
        return f"gamma^2 = {st.gamma2:g} > {_P10_GAMMA2_MAX:g}: the alpha_max certificate's branch and bound does not " \
               "close within its budget there (measured at gamma^2 = 1e4)"
    return None


def _reach(gamma2, d, lam=1.0):
    """lam sqrt(d/2) / sqrt(1 + 2 lam^2 gamma^2): the argument of the erfc-sized terms of the curvature at the minima
    (1, 1) (the relevant token's, `docs/MATH.md` §5); beyond ~10 they fall below float64's resolution."""
    return lam * math.sqrt(d / 2) / math.sqrt(1 + 2 * lam**2 * gamma2)


def _prop9_range(st):
    """Proposition 9's checks at a user's setting: on M (:func:`_on_M`), and the top of lam in [0.01, 1] no further
    out than Figure 4b's (measured: beyond, the float64 Hessians at lam = 0.9 call the minima degenerate and the
    ball enclosures do not close)."""
    why = _on_M(st)
    if why:
        return why
    top, paper = _reach(st.gamma2, st.d, _PROP9_LAM[1]), _reach(FIG4B.gamma2, FIG4B.d, _PROP9_LAM[1])
    if top > paper * (1 + 1e-12):
        return f"at lam = {_PROP9_LAM[1]:g}, lam sqrt(d/2) / sqrt(1 + 2 lam^2 gamma^2) = {top:.3g} exceeds Figure 4b's " \
               f"{paper:.3g}: the curvature at the minima (erfc-sized) is below float64's resolution there"
    return None

#: Initial overlaps of run 22 of ``initial_overlaps(seed=0, runs=30, d=400)`` (Figure 4a's setting):
#: the decreasing schedule takes it to k = v*, not to +-(k*, v*). Kept as the reproducible
#: counterexample; :func:`figure4a_recovery` reruns it in every mode.
FIG4A_COUNTEREXAMPLE = dict(
    seed=0,
    runs=30,
    run=22,
    overlaps=(-0.047121467469451686, 0.009872176087688133, 0.007566925969492055, 0.06410363126744445, -0.013815803856665951),
)


def _ends(tr):
    return [tr[f][-1] for f in _NAMES]


def _recovered(ov, tol=1e-6):
    """Within ``tol`` of +-(k*, v*) in nu and on M, kappa within 100 tol (kappa aligns slowest)."""
    k, n, t, e, r = (np.asarray(x) for x in ov)
    return (np.abs(k) > 1 - 100 * tol) & (np.abs(n) > 1 - tol) & (k * n > 0) & (np.sqrt(t * t + e * e + r * r) < tol)


def _classify_runs(ends, S, lam, ctx, tol=1e-8):
    """(recovered, converged elsewhere, tangent norms) per run: runs near +-(k*, v*) count as
    recovered; the others are continued at constant ``lam`` until their tangent gradient < tol."""
    rec = _recovered(ends)
    elsewhere = np.zeros(rec.shape, bool)
    norms = np.zeros(rec.shape)
    idx = np.flatnonzero(~rec)
    if idx.size:
        sub = [np.asarray(x)[idx] for x in ends]
        end, nrm, _, conv = converge(
            sub, lam=lam, gamma=S.gamma, d=S.d, L=S.L, alpha=S.alpha, tol=tol, max_steps=ctx.pick(100_000, 200_000, 1_000_000)
        )
        elsewhere[idx] = conv & ~_recovered(end)
        norms[idx] = nrm
    return rec, elsewhere, norms


@claim(
    "lemma-4",
    where="Lemma 4",
    statement="M = {theta = eta = rho = 0} is invariant under PGD",
    domain=lambda s: f"all parameters (SymPy); {FIG4B.text}, {s.runs} runs x {s.steps} steps in float64",
    sizes=dict(steps=(300, 2000, 20000), runs=(4, 8, 30)),
    setting=_M4B,  # tied: the float run at d = 1000 with this step leaves M (M is unstable there, not round-off)
)
def lemma4(ctx, seed=0):
    """Lemma 4: M is invariant under PGD, symbolically (the five-overlap map and Theorem 1's
    gradient), and float64 full-dimensional PGD started on M stays at round-off distance from it
    (Figure 4b setting; float32 for comparison)."""
    steps, runs = ctx.size.steps, ctx.size.runs
    k, v, ks, vs = draw_problem(np.random.default_rng(seed), runs, FIG4B.d, True)
    p = dict(lam=FIG4B.lam0, gamma=FIG4B.gamma, L=FIG4B.L, alpha=FIG4B.alpha, steps=steps, every=max(1, steps // 100))
    d64 = float(np.max(pgd(k, v, ks, vs, **p).distance_to_M))
    d32 = float(np.max(pgd(k, v, ks, vs, dtype=np.float32, **p).distance_to_M))
    return [
        Identities("SymPy: five-overlap map on M, Theorem 1's gradient on M", "Lemma 4", sdyn.lemma4_identities()),
        Identities("SymPy: the step's squared norm, the reduced map", "Definition 1, `docs/MATH.md` §9", sdyn.pgd_identities()),
        Measured(
            "full-dimensional float64 PGD from M (d = 400)",
            "distance to M, exactly 0 in exact arithmetic",
            d64,
            1e-12,
            "float64 round-off accumulates to ~1e-16 per step at most; 1e-12 is far below any real drift",
            unit="max distance to M",
            corroborates=True,
            size={"runs": runs, "steps": steps, "seed": seed},
            details={"float32_max_distance": d32},
        ),
    ]


_G4B = dict(gamma=FIG4B.gamma, d=FIG4B.d, L=FIG4B.L)


_PROP9_LAM = (0.01, 1.0)


@claim(
    "proposition-9",
    where="Proposition 9",
    statement="the stationary points of R on M are exactly (0, 0) and the four corners; (1, 1), (-1, -1) minima, (1, -1), "
    "(-1, 1) maxima, (0, 0) a saddle",
    domain=f"all parameters (sign argument, SymPy); every lam in {list(_PROP9_LAM)} at {FIG4B.model_text} (ball arithmetic)",
    setting=_M4B,
    at_setting=lambda s, st: f"all parameters (sign argument, SymPy); every lam in {list(_PROP9_LAM)} at {st.text} "
    f"(ball arithmetic: both certificates searched afresh and replayed); the Hessians at lam = {FIG4B.lam0:g}, 0.9 "
    "(float64)",
    runs_at=lambda st: _prop9_range(st),
)
def proposition9(ctx):
    """Proposition 9: the stationary points on M are exactly (0, 0) and the four corners (sign
    argument, SymPy); their Hessians classify them; they are fixed points of the reduced map; a
    fixed point that is not stationary appears when alpha exceeds the closed-form bound. At a user's
    setting both certificates are searched there and replayed (a few seconds)."""
    st = ctx.setting
    if st.user:
        params = [dict(lam=FIG4B.lam0, **_model(ctx)), dict(lam=0.9, **_model(ctx))]
    else:
        params = [_P4B, dict(_P4B, lam=0.9)] + ctx.pick(
            [], [], [dict(lam=2.0, gamma=0.3, d=80, L=10), dict(lam=0.05, gamma=1.5, d=1000, L=3)]
        )
    expect = {(0, 0): "saddle", (1, 1): "min", (-1, -1): "min", (1, -1): "max", (-1, 1): "max"}
    wrong, fixed_err, mirror_err, details = 0, 0.0, 0.0, {}
    for p in params:
        cls = {str(pt): F.classify_point(pt, **p) for pt in F.POINTS}
        wrong += sum(cls[str(pt)] != kind for pt, kind in expect.items())
        fixed_err = max(
            fixed_err, max(float(np.max(np.abs(F.map_numeric(*pt, alpha=0.1, **p) - np.array(pt)))) for pt in F.POINTS)
        )
        a_fix, a_mirror = F.alpha_fixed_bound(**p), _mirror_alpha(p)
        if a_mirror < 1e6:  # beyond, g_kappa(0.9, 1) is so small that the step is pure round-off
            img = F.map_numeric(0.9, 1.0, alpha=a_mirror, **p)
            mirror_err = max(mirror_err, float(np.max(np.abs(img - [0.9, 1.0]))), 0.0 if a_mirror > a_fix else 1.0)
        details["lam=%g gamma=%g d=%d L=%d" % (p["lam"], p["gamma"], p["d"], p["L"])] = {
            "classification": cls,
            "alpha_fixed_bound": a_fix,
            "alpha_mirror(0.9, 1)": a_mirror,
        }
    rep = _proposition9_certificate(ctx)
    fresh = ctx.mode == "thorough" or st.user
    signs = _replay_search(hessian_signs(_PROP9_LAM, **_model(ctx))["certificate"], "certify.hessian_signs") \
        if fresh else replay_committed("hessian_signs_fig4b.json.gz")
    how = "searched afresh at this setting" if st.user else "committed; searched afresh in thorough mode"
    return [
        Identities(
            "SymPy sign argument on Lemma 6's gradient",
            "Proposition 9 (exactly five stationary points on M)",
            sfix.stationary_point_proofs(),
        ),
        Replayed(
            "ball arithmetic (arb): branch and bound + Krawczyk, lam a box coordinate; its certificate replayed by "
            f"certify.replay ({how})",
            f"exactly five stationary points for every lam in {list(_PROP9_LAM)} at once ({st.text})",
            [rep], holds=bool(rep.accepted and tuple(rep.values.get("lam", ())) == tuple(_PROP9_LAM)
                              and _at(rep, st.d, st.L)),
            details={"setting": rep.values.get("setting")},
        ),
        Replayed(
            "ball arithmetic: Hessian entries at the five points, lam a box coordinate; its certificate replayed by "
            f"certify.replay ({how})",
            f"Proposition 9's classification for every lam in {list(_PROP9_LAM)} ({st.text})",
            [signs], holds=bool(tuple(signs.values.get("lam", ())) == tuple(_PROP9_LAM) and _at(signs, st.d, st.L)),
            details={"setting": signs.values.get("setting")},
        ),
        Measured(
            "Hessians at the five points (angle coordinates at the corners)",
            "Proposition 9's classification",
            wrong,
            0,
            "a sign of an eigenvalue: any mismatch fails",
            unit="misclassified points",
            size={"settings": len(params)},
            details=details,
            corroborates=True,
        ),
        Measured(
            "reduced map at the five points (alpha = 0.1)",
            "the points themselves",
            fixed_err,
            1e-14,
            "a fixed point maps to itself up to float64 round-off",
            unit="max abs error",
            corroborates=True,
        ),
        Measured(
            "reduced map at (0.9, 1) with the mirror alpha",
            "a non-stationary fixed point above the alpha bound",
            mirror_err,
            1e-9,
            "the overshoot solves a closed-form equation: round-off only",
            unit="max abs error",
            corroborates=True,
        ),
    ]


def _mirror_alpha(p):
    """The mirror alpha at (0.9, 1) (:func:`F.mirror_fixed_point`); infinite where g_kappa(0.9, 1) underflows to 0 in
    float64 (a user's large lam sqrt(d): the step there is pure round-off, and the check skips it)."""
    try:
        return F.mirror_fixed_point(0.9, **p)
    except ZeroDivisionError:
        return math.inf


def _replay_search(certificate, search):
    """The independent checker's verdict on the certificate a search wrote here; a rejection naming the search when
    it wrote none (it did not close at this setting: the claim fails there, it is not skipped)."""
    if certificate is None:
        return Replay(False, f"not proved: {search} wrote no certificate at this setting (its search did not close)")
    return replay(certificate)


def _at(r, d, L) -> bool:
    """The replayed certificate is about dimension d and L tokens."""
    s = r.values.get("setting") or {}
    return s.get("d") == d and s.get("L") == L


def _proposition9_certificate(ctx):
    """Proposition 9 on the lam interval: the committed certificate replayed, or (thorough, or at a user's setting)
    searched afresh there and replayed."""
    if ctx.mode == "thorough" or ctx.setting.user:
        c = stationary_points_on_M(_PROP9_LAM, eps=ctx.setting.eps, **_model(ctx))
        return c.replay if c.replay is not None else _replay_search(None, "certify.stationary_points_on_M")
    return replay_committed("proposition9_fig4b.json.gz")


def _proof_of(route, reference, res, **kw):
    """A :func:`Proof` from a certificate dict with 'proved' and 'seconds'."""
    return Proof(
        route, reference, {k: v for k, v in res.items() if k != "seconds"}, size={"seconds": round(res["seconds"], 2)}, **kw
    )


@claim(
    "proposition-10",
    where="Proposition 10",
    statement="Jacobians of the PGD map at the fixed points, attraction, two-timescale rates",
    domain=f"{FIG4B.text}",
    setting=_M4B,
    at_setting=lambda s, st: f"{st.text}, lam = {FIG4B.lam0:g} (Figure 4b's; {_NO_EPS}); the step alpha = "
    f"{FIG4B.alpha:g} (Figure 4b's), or half the numeric alpha_max where that is smaller; the trajectory until the "
    "rates are measured; the alpha_max certificate searched afresh at this setting and replayed",
    runs_at=lambda st: _on_M(st) or _prop10_budget(st) or _rates_within(
        st, _prop10_step(_at_lam(st.gamma, st.d, st.L)[1]), _P10_SCALE, "the measured rates' window"),
)
def proposition10(ctx):
    """Proposition 10: the Jacobian of the reduced map at the fixed points vs central finite
    differences; the attraction bound; a numeric alpha_max (invertible Jacobian on a grid of the
    square, not certified); the two-timescale rates at (1, 1) vs a measured trajectory. At a user's
    setting: its gamma, d, L at Figure 4b's lam, the step below alpha_max (the theorem's hypothesis),
    the certificate searched there."""
    st = ctx.setting
    p, alpha, h = dict(lam=FIG4B.lam0, **_model(ctx)), FIG4B.alpha, 1e-6
    a_max = F.alpha_max_diffeo(**p, n=ctx.pick(81, 81, 161))  # grid of the numeric value (the proof is below)
    if st.user:
        alpha = _prop10_step(a_max)
    worst, jac = 0.0, {}
    for pt in F.POINTS:
        J, ev = F.jacobian_at(pt, alpha=alpha, **p)
        fd = np.zeros((2, 2))
        x = np.array(pt, float)
        for j in range(2):
            e = np.zeros(2)
            e[j] = h
            if abs(x[j]) == 1:  # one-sided, inward, second order
                s = -np.sign(x[j])
                fd[:, j] = (
                    -3 * F.map_numeric(*x, alpha=alpha, **p)
                    + 4 * F.map_numeric(*(x + s * e), alpha=alpha, **p)
                    - F.map_numeric(*(x + 2 * s * e), alpha=alpha, **p)
                ) / (2 * h * s)
            else:
                fd[:, j] = (F.map_numeric(*(x + e), alpha=alpha, **p) - F.map_numeric(*(x - e), alpha=alpha, **p)) / (2 * h)
        worst = max(worst, float(np.max(np.abs(fd - J))))
        jac[str(pt)] = {"J": J.tolist(), "eigenvalues": np.sort(np.real(ev)).tolist()}
    a_att, gmin = F.alpha_attract(**p)
    rk, rn = F.predicted_rates(alpha=alpha, **p)
    steps = ctx.pick(12000, 12000, 40000)
    if st.user:  # long enough for both fit windows (the range check bounds it by _MAX_STEPS)
        steps = int(np.clip(_steps_needed(st, alpha, _P10_SCALE), steps, _MAX_STEPS))
    tr = reduced_pgd(np.cos(0.02), np.cos(0.3), alpha=alpha, steps=steps, **p)
    one_k, one_n = 1 - tr.kappa, 1 - tr.nu
    sel_n = (one_n > 1e-13) & (one_n < 1e-5)
    sel_k = (one_k < 1e-4) & (one_k > 1e-13)

    def fit(sel, y):
        return float(np.exp(np.polyfit(tr.step[sel], np.log(y[sel]), 1)[0])) if sel.sum() > 10 else float("nan")

    mn, mk = fit(sel_n, one_n), fit(sel_k, one_k)
    rate_err = max(abs(np.log(mn) / np.log(rn) - 1), abs(np.log(mk) / np.log(rk) - 1))
    att = alpha_attract(**p)
    # the committed certificate was searched from the numeric value on the 81 x 81 grid; thorough mode (and a user's
    # setting) searches afresh
    fresh = ctx.mode == "thorough" or st.user
    rep = _replay_search(alpha_diffeo(alpha_numeric=a_max, **p)["certificate"], "certify.alpha_diffeo") if fresh \
        else replay_committed("proposition10_fig4b.json.gz")
    here = {"setting": st.as_dict(), "lam": p["lam"], "alpha": alpha, "steps": steps} if st.user else {}
    dif = {"alpha_certified": rep.values["domain_alpha"][1] if rep.accepted else 0.0,
           "alpha_upper": rep.values.get("alpha_upper")}
    bracket_ok = dif["alpha_upper"] is not None and dif["alpha_certified"] <= a_max <= dif["alpha_upper"]
    # float64 on both sides of the certified bracket: det J > 0 on a grid below it, < 0 above it at the point where the
    # certificate shows it (upper_at: (0, 0), or where det J first vanishes elsewhere)
    k, n = np.meshgrid(np.linspace(-1, 1, 201), np.linspace(-1, 1, 201))
    det_below = float(F.det_jacobian(k, n, alpha=dif["alpha_certified"], **p).min())
    at = rep.values.get("upper_at", (0.0, 0.0))
    det_above = float(F.det_jacobian(*at, alpha=dif["alpha_upper"], **p)) if dif["alpha_upper"] is not None else 1.0
    return [
        Replayed(
            "ball arithmetic: det J of the reduced map > 0 on [-1, 1]^2 x [0, alpha] (branch and bound); its certificate "
            "replayed by certify.replay (" + ("searched afresh at this setting" if st.user else
                                              "committed; searched afresh in thorough mode") + ")",
            "Proposition 10: alpha_max, certified at >= 0.9 of the numeric value, and the numeric value inside "
            "the certified bracket",
            [rep], holds=bool(rep.accepted and dif["alpha_certified"] >= 0.9 * a_max and bracket_ok
                              and rep.values["lam"][0] == p["lam"] and _at(rep, p["d"], p["L"])),
            details={"alpha_numeric": a_max, **dif, **here},
        ),
        _proof_of(
            "ball arithmetic: 2 / max|g| at (1, 1)",
            f"the minima attract at the {'step' if st.user else 'paper'}'s alpha = {alpha:.3g}",
            {"proved": att[0] > alpha, "alpha_attract_enclosure": att, "alpha": alpha, "seconds": 0.0},
        ),
        Measured(
            "SymPy Jacobian of the reduced map (generated)",
            "central / one-sided finite differences, h = 1e-6",
            worst,
            1e-6,
            "finite-difference truncation ~h^2 and round-off ~1e-16/h",
            unit="max abs error",
            details=jac,
            corroborates=True,
        ),
        Measured(
            "measured linear rates of 1 - kappa_t, 1 - nu_t at (1, 1)",
            "the Jacobian's eigenvalues (1 - alpha|g|)^2",
            rate_err,
            0.02,
            "a log-linear fit over a finite window",
            unit="relative error of log rate",
            details={"predicted": [rk, rn], "measured": [mk, mn], "timescale_ratio": float(np.log(rn) / np.log(rk)), **here},
        ),
        Measured(
            "float64 det J of the reduced map on a 201^2 grid at the certified alpha, and at the certificate's point at the "
            "upper bound",
            "the certified bracket of alpha_max (signs: > 0 below, < 0 above)",
            float(det_below <= 0) + float(det_above >= 0) + float(not att[0] <= a_att <= att[1]),
            0.0,
            "signs and an enclosure of the float64 attraction step: any violation fails",
            unit="violations",
            corroborates=True,
            details={"min_det_below": det_below, "det_above": det_above, "upper_at": list(at), "alpha_attract_float64": a_att},
        ),
        Measured(
            f"ordering alpha = {alpha:.3g} < alpha_max(numeric) < alpha_attract",
            "Proposition 10's step-size bounds",
            0.0 if alpha < a_max < a_att else 1.0,
            0.0,
            "an ordering holds or not",
            unit="violations",
            details={"alpha_max_numeric_not_certified": a_max, "alpha_attract": a_att, "|g| at (1, 1)": gmin.tolist()},
        ),
    ]


@claim(
    "theorem-5",
    where="Theorem 5",
    statement="for alpha < alpha_max, PGD on M converges to +-(k*, v*) from almost every initialisation",
    domain=lambda s: (
        f"{FIG4B.model_text}, lam = {FIG4B.lam0:g}, alpha = 0.8 alpha_max; {s.runs} uniform initial angles, {s.steps} steps"
    ),
    sizes=dict(runs=(500, 2000, 10000), steps=(4000, 4000, 8000)),
    setting=_M4B,
    at_setting=lambda s, st: (
        f"{st.text}, lam = {FIG4B.lam0:g} (Figure 4b's; {_NO_EPS}), alpha = 0.8 alpha_max; {s.runs} uniform initial "
        f"angles, at least {s.steps} steps (enough for the linear rates at (1, 1), at most {_MAX_STEPS:,})"
    ),
    runs_at=lambda st: _on_M(st) or _rates_within(st, 0.8 * _at_lam(st.gamma, st.d, st.L)[1], _T5_SCALE,
                                                  "convergence from uniform angles"),
)
def theorem5(ctx, seed=0):
    """Theorem 5: for alpha < alpha_max and constant lam, PGD from almost every initial point on M
    converges to +-(k*, v*); measured as a rate over uniform initial angles, each run's end point
    checked against the tangent-gradient rule (at a user's setting: its gamma, d, L at Figure 4b's lam,
    run long enough for the predicted linear rates)."""
    p = dict(lam=FIG4B.lam0, **_model(ctx))
    alpha = 0.8 * F.alpha_max_diffeo(**p, n=61)
    n, steps = ctx.size.runs, ctx.size.steps
    if ctx.setting.user:  # the range check bounds it by _MAX_STEPS
        steps = int(np.clip(_steps_needed(ctx.setting, alpha, _T5_SCALE), steps, _MAX_STEPS))
    phi, psi = np.random.default_rng(seed).uniform(0, 2 * np.pi, (2, n))
    tr = reduced_pgd(np.cos(phi), np.cos(psi), alpha=alpha, steps=steps, every=steps, **p)
    kf, nf = tr.kappa[-1], tr.nu[-1]
    conv = (np.abs(kf) > 1 - 1e-6) & (np.abs(nf) > 1 - 1e-9) & (kf * nf > 0)
    return [
        Rate(
            "reduced PGD on M from uniform angles",
            "Theorem 5 (convergence from almost every point)",
            int(conv.sum()),
            n,
            minimum=0.99,
            why="'almost every': the exceptional set (the stable curve of (0, 0)) has measure 0, so the rate's "
            "95% lower bound must exceed 0.99",
            size={"runs": n, "steps": steps, "seed": seed, "alpha": alpha},
            details={"setting": ctx.setting.as_dict(), "lam": p["lam"]} if ctx.setting.user else {},
        )
    ]


@claim(
    "off-M-stationary",
    where="finding (docs/MATH.md section 12)",
    kind="finding",
    statement="constant-lam runs from the sphere can end at a stationary point off M, k = +-v*, kappa = nu = rho = 0, "
    "which is a local minimum",
    domain=lambda s: f"{FIGURES['7b'].text}; {s.runs} runs",
    sizes=dict(runs=(8, 8, 30)),
    setting=ClaimSetting.of_figure(FIGURES["7b"]),
)
def off_M_stationary(ctx, seed=0):
    """Finding: constant-lam PGD from the sphere (Figure 7b) can end off M, at
    kappa = nu = rho = 0, k = +-v*, v = +-theta* k* + ...; the point is a genuine stationary point
    (50-digit refinement) and a local minimum (Riemannian Hessian, PGD-step Jacobian)."""
    S = FIGURES["7b"]
    runs = ctx.size.runs
    ov0 = initial_overlaps(seed, runs, S.d)
    tr = overlap_pgd(ov0, lam=S.lam0, gamma=S.gamma, d=S.d, L=S.L, alpha=S.alpha, steps=S.steps, every=S.steps)
    ends = np.stack(_ends(tr), axis=1)
    off = tr.distance_to_M[-1] > 0.1
    pts = family.find_stationary_points_off_M(ends[off], lam=S.lam0, gamma=S.gamma, d=S.d, L=S.L)
    fam = [q for q in pts if "refined" in q]
    if not fam:
        return [
            Measured(
                "five-overlap runner, Figure 7b setting",
                "a run ending at the family k = +-v*",
                1.0,
                0.0,
                "the family must be reached by some run",
                unit="missing",
                size={"runs": runs, "seed": seed},
            )
        ]
    rf = fam[0]["refined"]
    th, et = float(rf["theta"]), float(rf["eta"])
    c = family.finite_difference_spectrum(th, et, alpha=S.alpha, lam=S.lam0, gamma=S.gamma, d=S.d, L=S.L)
    jac_err = float(np.max(np.abs(c["jacobian_eigenvalues"] - c["predicted_jacobian"])))
    theta_cf = float(family.theta_star(S.lam0, S.gamma, S.d)) * np.sign(th)
    risk_here = api.risk(0, 0, th, et, 0, lam=S.lam0, gamma=S.gamma, eps=0.0, d=S.d, L=S.L)
    details = {
        "theta_50_digits": mpmath.nstr(rf["theta"], 30),
        "eta": et,
        "hessian_eigenvalues": c["hessian_eigenvalues"].tolist(),
        "n_flat": c["n_flat"],
        "risk": risk_here,
        "runs_ending_off_M": int(off.sum()),
        "runs": runs,
    }
    fam = off_M_family_point(lam=S.lam0, gamma=S.gamma, d=S.d, L=S.L, eta=int(np.sign(et)))
    in_enclosure = fam["theta_star"][0] - 1e-15 <= th <= fam["theta_star"][1] + 1e-15
    mini = off_M_family_minimality(lam=S.lam0, gamma=S.gamma, d=S.d, L=S.L)
    cert = [replay(mini["certificate"])] if mini["certificate"] is not None else []
    return [
        Identities(
            "SymPy: Theorem 1's partials at kappa = nu = rho = 0",
            "the family k = +-v* is stationary iff theta = theta*",
            fam["proofs"],
        ),
        Proof(
            "ball arithmetic: theta* enclosed, |theta*| < 1",
            "existence of the stationary point (realisable)",
            bool(fam["proved"] and in_enclosure),
            why="an enclosure excludes or it does not; the refined float theta must lie inside",
            details={"theta_star_enclosure": fam["theta_star"], "refined_theta": th},
        ),
        Replayed(
            "ball arithmetic: Riemannian Hessian at theta* (SymPy chart Hessian on arb balls), Sylvester minors; its "
            "certificate (off-M-minimum) replayed by certify.replay",
            "strict local minimum modulo the rotations fixing k*, v*; hence locally unique modulo the symmetries",
            cert, holds=bool(mini["proved"]) and all(certifies_at(r, setting=dict(gamma=S.gamma, d=S.d, L=S.L), lam=S.lam0)
                                                     for r in cert),
            why="positive definite off the orbit's tangent, which SymPy shows is exactly the kernel",
            details={"leading_minors": mini["minors"], "minus_mu_k": mini["minus_mu_k"], "proofs": mini["proofs"]},
        ),
        Measured(
            "mpmath 50-digit refinement of Theorem 1's gradient",
            "stationarity (all partials 0)",
            float(max(abs(rf["partials"][i]) for i in (0, 1, 2, 4))),
            1e-30,
            "50 digits leave 1e-30 far above round-off",
            unit="max abs partial",
            details=details,
            corroborates=True,
        ),
        Measured(
            "refined theta",
            "theta* from R_theta affine in theta (closed form)",
            abs(theta_cf - th),
            1e-12,
            "two float64 roundings",
            unit="abs error",
            corroborates=True,
        ),
        Measured(
            "Riemannian Hessian (finite differences) on S^5 x S^5",
            "local minimum: positive off the 3 flat symmetry directions",
            (0.0 if c["kind"] == "minimum" else 1.0) + abs(c["n_flat"] - 3),
            0.0,
            "the smallest non-flat eigenvalue is ~0.2, far above the finite-difference error ~1e-6",
            unit="violations",
            corroborates=True,
        ),
        Measured(
            "Jacobian of an explicit-vector PGD step",
            "1 - alpha x Hessian eigenvalues",
            jac_err,
            1e-5,
            "two finite-difference routes (h = 1e-4 and 1e-6)",
            unit="max abs error",
            corroborates=True,
        ),
    ]


@claim(
    "figure-4a-recovery",
    where="Section 5, Figure 4a",
    statement="from a sphere initialisation, PGD with lam_t = 1/(1 + 1e-4 t) recovers +-(k*, v*)",
    domain=lambda s: f"{FIGURES['4a'].text}; the recorded counterexample and {s.runs} further runs",
    sizes=dict(runs=(0, 8, 30)),
    expect="refuted",
    reason="run 22 of initial_overlaps(seed=0, runs=30, d=400) converges to k = v*, with a risk below the oracle's",
    setting=ClaimSetting.of_figure(FIGURES["4a"]),
)
def figure4a_recovery(ctx, seed=0):
    """Figure 4a (paper, Section 5): from a sphere initialisation the decreasing schedule
    lam_t = 1/(1 + 1e-4 t) recovers +-(k*, v*). Each run is continued at lam_T until its tangent
    gradient is below 1e-10 and classified; a run that converges elsewhere refutes 'recovers'.
    The rate is reported with its 95% interval."""
    S = FIGURES["4a"]
    lamT = S.lam_at(S.steps)
    cx = FIG4A_COUNTEREXAMPLE
    tr = overlap_pgd(
        list(cx["overlaps"]),
        lam=S.lam,
        gamma=S.gamma,
        d=S.d,
        L=S.L,
        alpha=S.alpha,
        steps=S.steps,
        every=S.steps,
        progress=ctx.stream,
    )
    end, norm, extra, conv = converge(_ends(tr), lam=lamT, gamma=S.gamma, d=S.d, L=S.L, alpha=S.alpha, tol=1e-10)
    end = [float(x[0]) for x in end]
    risk_end = api.risk(*end, lam=lamT, gamma=S.gamma, eps=0.0, d=S.d, L=S.L)
    risk_oracle = api.oracle_risk(lam=lamT, gamma=S.gamma, eps=0.0, d=S.d, L=S.L)
    out = []
    if bool(conv[0]) and not bool(_recovered(end)):
        out.append(
            Counterexample(
                "five-overlap runner, Figure 4a schedule, then constant lam_T until the tangent gradient < max(1e-10, its "
                "float64 resolution)",
                "+-(k*, v*) (the oracle)",
                "numeric",
                {
                    "initial_overlaps": list(cx["overlaps"]),
                    "drawn_as": f"initial_overlaps(seed={cx['seed']}, runs={cx['runs']}, d=400)[{cx['run']}]",
                    "end_overlaps": end,
                    "tangent_norm": float(norm[0]),
                    "extra_steps": int(extra),
                    "lam_T": lamT,
                    "risk_end": risk_end,
                    "risk_oracle": risk_oracle,
                },
                why="a converged run ending at a stationary point other than +-(k*, v*), with lower risk than the oracle",
            )
        )
    runs = ctx.size.runs
    if runs:
        ov0 = initial_overlaps(seed, runs, S.d)
        tr = overlap_pgd(
            ov0, lam=S.lam, gamma=S.gamma, d=S.d, L=S.L, alpha=S.alpha, steps=S.steps, every=S.steps, progress=ctx.stream
        )
        rec, elsewhere, _ = _classify_runs(_ends(tr), S, lamT, ctx)
        out.append(
            Rate(
                "five-overlap runner, Figure 4a; runs not at +-(k*, v*) continued at lam_T to convergence",
                "recovery of +-(k*, v*) in every run",
                int(rec.sum()),
                runs,
                minimum=1.0,
                why="'recovers' claims every run; the rate and its interval are reported",
                size={"runs": runs, "seed": seed},
                details={"recovered": int(rec.sum()), "converged_elsewhere": int(elsewhere.sum())},
            )
        )
    return out


@claim(
    "constant-lam-not-always",
    where="Appendix E.2, Figures 7a-7b",
    statement="with a constant lam, PGD from the sphere does not always recover +-(k*, v*)",
    domain=lambda s: f"{FIGURES['7b'].text}, {s.runs} runs; lam = {FIGURES['7a'].lam0:g} (Figure 7a: the oracle's Hessian)",
    sizes=dict(runs=(8, 8, 30)),
    setting=ClaimSetting.of_figure(FIGURES["7b"], "Figures 7a-7b's model"),
)
def constant_lam_not_always(ctx, seed=0):
    """Figures 7a-7b (Appendix E): with a constant lam, PGD from the sphere does not always
    recover +-(k*, v*). One converged run ending elsewhere proves it; the rate is reported."""
    S = FIGURES["7b"]
    runs = ctx.size.runs
    ov0 = initial_overlaps(seed, runs, S.d)
    tr = overlap_pgd(
        ov0, lam=S.lam0, gamma=S.gamma, d=S.d, L=S.L, alpha=S.alpha, steps=S.steps, every=S.steps, progress=ctx.stream
    )
    rec, elsewhere, norms = _classify_runs(_ends(tr), S, S.lam0, ctx)
    k, n = int(elsewhere.sum()), runs
    return [
        Measured(
            "five-overlap runner, Figure 7b, continued to a tangent gradient < max(1e-8, its float64 resolution)",
            "'not always': some converged run ends elsewhere",
            0.0 if k else 1.0,
            0.0,
            "one converged counterexample suffices",
            unit="missing counterexample",
            size={"runs": runs, "seed": seed},
            details={
                "rate_recovered": {"count": int(rec.sum()), "runs": n, "ci95": clopper_pearson(int(rec.sum()), n)},
                "rate_elsewhere": {"count": k, "runs": n, "ci95": clopper_pearson(k, n)},
                "max_tangent_norm": float(np.max(norms)),
            },
        ),
    ] + figure7a_saddle(ctx)
