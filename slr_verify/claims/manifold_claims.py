"""Checks of the claims on the manifold M (paper, Lemma 4, Propositions 9-10, Theorem 5; `docs/MATH.md` §§8-10).

Each check takes a :class:`~.base.Context` and returns a list of evidence records (:mod:`.vocabulary`); the
computations are :mod:`slr_verify.dynamics.fixed_points`' and the certificates :mod:`slr_verify.certify`'s. At a
user's setting the checks run at its gamma, d, L and Figure 4b's lam, within the ranges stated below (``runs_at``).
"""

from __future__ import annotations

import math
from functools import lru_cache

import numpy as np

from ..certify import Replay, alpha_attract, alpha_diffeo, alpha_stable, hessian_signs, replay, stationary_points_on_M
from ..certify.committed import find_committed, replay_committed
from ..checker.binding import proves
from ..dynamics import fixed_points as F
from ..dynamics.runners import pgd
from ..model.sampling import draw_problem
from ..model.settings import FIGURES
from ..symbolic import dynamics as sdyn
from ..symbolic import fixed_points as sfix
from .base import ClaimSetting, claim
from .vocabulary import Identities, Measured, Proof, Replayed, claim_setting

FIG4B = FIGURES["4b"]
_P4B = dict(lam=FIG4B.lam0, gamma=FIG4B.gamma, d=FIG4B.d, L=FIG4B.L)
#: the model of Figure 4b, the paper's setting of the claims on M
M4B = ClaimSetting.of_figure(FIG4B)
#: the dynamics on the population risk do not depend on eps (its gradient does not)
NO_EPS = "eps does not move PGD on the population risk"
#: at a user's setting the reduced runs on M stop after this many steps (Proposition 10's rates, Theorem 5)
MAX_STEPS = 200_000
PROP9_LAM = (0.01, 1.0)
#: Proposition 9's classification of the five stationary points
_EXPECT = {(0, 0): "saddle", (1, 1): "min", (-1, -1): "min", (1, -1): "max", (-1, 1): "max"}


# --------------------------------------------------------------------------- the ranges at a user's setting
def model_of(ctx) -> dict:
    """gamma, d, L of the setting the check runs at (the user's, or Figure 4b's)."""
    return dict(gamma=ctx.setting.gamma, d=ctx.setting.d, L=ctx.setting.L)


@lru_cache(maxsize=16)
def at_lam(gamma, d, L):
    """At Figure 4b's lam and (gamma, d, L): |g| at (1, 1) (the reduced map's gradient there) and the numeric
    alpha_max (61 x 61 grid); cached, the range checks and the claims read them."""
    p = dict(lam=FIG4B.lam0, gamma=gamma, d=d, L=L)
    g = F.alpha_attract(**p)[1]
    return g, (F.alpha_max_diffeo(**p, n=61) if g.min() > 0 else 0.0)


def _prop10_step(a_max):
    """Proposition 10's step at a user's setting: Figure 4b's alpha, or half the numeric alpha_max when smaller."""
    return min(FIG4B.alpha, 0.5 * a_max)


def steps_needed(st, alpha, scale):
    """Steps for the reduced map's linear phase at (1, 1) at ``alpha`` at Figure 4b's lam and the setting ``st``:
    ``scale`` = (for 1 - kappa, for 1 - nu) e-folds of each linear rate (:func:`F.linear_phase_steps`)."""
    return F.linear_phase_steps(lam=FIG4B.lam0, gamma=st.gamma, d=st.d, L=st.L, alpha=alpha, e_folds=scale)


def _steps_at(ctx, alpha, scale, steps):
    """The run's length: ``steps``, at a user's setting raised to the linear phase's (the range check bounds it by
    MAX_STEPS)."""
    if ctx.setting.user:
        return int(np.clip(steps_needed(ctx.setting, alpha, scale), steps, MAX_STEPS))
    return steps


def on_M(st):
    """None when the claims on M can run at a user's setting ``st``, else why not: M (theta = eta = rho = 0 with
    |kappa|, |nu| < 1) needs d >= 4 (the certificates' model too), and at Figure 4b's lam the reduced map's gradient
    at (1, 1) must be resolved in float64."""
    if st.d < 4:
        return f"M needs d >= 4, got d = {st.d}"
    g, a_max = at_lam(st.gamma, st.d, st.L)
    if not g.min() > 1e-12 * max(g.max(), 1e-300) or a_max <= 0:
        return f"at lam = {FIG4B.lam0:g} the gradient at (1, 1) is below float64's resolution (|g| = " \
               f"{', '.join(f'{float(x):.3g}' for x in g)})"
    return None


def rates_within(st, alpha, scale, what):
    """None when the linear rates at (1, 1) at step ``alpha`` can be run to (:func:`steps_needed` within
    MAX_STEPS), else why not: on M (:func:`on_M`), a finite step (the numeric alpha_max is infinite where det J > 0
    on its whole grid), rates below 1 in float64 (alpha |g| below the resolution of 1 leaves none to measure)."""
    why = on_M(st)
    if why:
        return why
    if not 0 < alpha < math.inf:
        return f"at lam = {FIG4B.lam0:g} the numeric alpha_max is {at_lam(st.gamma, st.d, st.L)[1]:g} (det J of the " \
               f"reduced map > 0 on its whole grid): no step alpha below it to run at"
    rates = F.predicted_rates(lam=FIG4B.lam0, gamma=st.gamma, d=st.d, L=st.L, alpha=alpha)
    if not max(rates) < 1:
        return f"at lam = {FIG4B.lam0:g} and alpha = {alpha:.3g} the predicted linear rates at (1, 1), (1 - alpha |g|)^2 = " \
               f"{', '.join(f'{float(x):.17g}' for x in rates)}, round to 1 in float64: there is no rate to measure"
    n = steps_needed(st, alpha, scale)
    if not n <= MAX_STEPS:
        return f"at lam = {FIG4B.lam0:g} the linear rates at (1, 1) are so slow that {what} needs about {n:.2g} steps " \
               f"(more than {MAX_STEPS:,})"
    return None


_P10_SCALE, T5_SCALE = (1.0, 12.0), (30.0, 45.0)
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
    """Proposition 9's checks at a user's setting: on M (:func:`on_M`), and the top of lam in [0.01, 1] no further
    out than Figure 4b's (measured: beyond, the float64 Hessians at lam = 0.9 call the minima degenerate and the
    ball enclosures do not close)."""
    why = on_M(st)
    if why:
        return why
    top, paper = _reach(st.gamma2, st.d, PROP9_LAM[1]), _reach(FIG4B.gamma2, FIG4B.d, PROP9_LAM[1])
    if top > paper * (1 + 1e-12):
        return f"at lam = {PROP9_LAM[1]:g}, lam sqrt(d/2) / sqrt(1 + 2 lam^2 gamma^2) = {top:.3g} exceeds Figure 4b's " \
               f"{paper:.3g}: the curvature at the minima (erfc-sized) is below float64's resolution there"
    return None


# --------------------------------------------------------------------------- certificates
def replay_search(certificate, search):
    """The independent checker's verdict on the certificate a search wrote here; a rejection naming the search when
    it wrote none (it did not close at this setting: the claim fails there, it is not skipped)."""
    if certificate is None:
        return Replay(False, f"not proved: {search} wrote no certificate at this setting (its search did not close)")
    return replay(certificate)


def fresh_search(ctx) -> bool:
    """Whether the certificates are searched afresh (thorough mode, a user's setting) rather than the committed ones
    replayed."""
    return ctx.mode == "thorough" or ctx.setting.user


def how_searched(ctx) -> str:
    return "searched afresh at this setting" if ctx.setting.user else "committed; searched afresh in thorough mode"


def committed_replay(**claim) -> Replay:
    """The committed certificate that binds ``claim`` (:func:`slr_verify.certify.committed.find_committed`: found by
    its kind, setting and domain), replayed; a rejection saying so when none or several bind."""
    found = find_committed(**claim)
    if len(found) != 1:
        return Replay(False, f"not proved: {len(found)} committed certificates bind the claim's statement "
                      f"({', '.join(found) or 'none'}; one expected)")
    return replay_committed(found[0])


#: what Proposition 9's two certificates must prove: the five points, their classification, for every lam of [0.01, 1]
_PROP9_KINDS = ("manifold-stationary-points", "manifold-hessian-signs")


def _proposition9_certificates(ctx):
    """Proposition 9 on the lam interval, replayed and bound to the setting: the five stationary points, and the
    Hessians' signs there; the committed certificates (found by content), or (:func:`fresh_search`) searched afresh at the
    setting. Returns ((replay, binding) of each)."""
    claims = [dict(kind=k, setting=claim_setting(ctx.setting), lam=PROP9_LAM) for k in _PROP9_KINDS]
    if fresh_search(ctx):
        c = stationary_points_on_M(PROP9_LAM, eps=ctx.setting.eps, **model_of(ctx))
        rep = c.replay if c.replay is not None else replay_search(None, "certify.stationary_points_on_M")
        reps = rep, replay_search(hessian_signs(PROP9_LAM, **model_of(ctx))["certificate"], "certify.hessian_signs")
    else:
        reps = tuple(committed_replay(**c) for c in claims)
    return tuple((r, proves(r, **c)) for r, c in zip(reps, claims))


def _alpha_max_claim(ctx, p, alpha) -> dict:
    """What Proposition 10's alpha_max certificate must prove: det J > 0 for every step in [0, alpha] (the claim's
    step) at the setting's gamma, d, L and lam = p["lam"], with eps = 0 (the claim's: eps does not move PGD on the
    population risk, so the claim states its dynamics at eps = 0)."""
    return dict(kind="reduced-map-diffeomorphism", setting=claim_setting(ctx.setting, eps=0.0), lam=p["lam"],
                domain={"alpha": (0.0, alpha)})


def _alpha_max_certificate(ctx, p, a_max, alpha):
    """Proposition 10's alpha_max certificate replayed and bound (the committed one, found by content, was searched
    from the numeric value on the 81 x 81 grid; :func:`fresh_search`: searched afresh from ``a_max``), its binding, and its
    bracket {alpha_certified, alpha_upper}."""
    claim = _alpha_max_claim(ctx, p, alpha)
    if fresh_search(ctx):
        rep = replay_search(alpha_diffeo(alpha_numeric=a_max, **p)["certificate"], "certify.alpha_diffeo")
    else:
        rep = committed_replay(**claim)
    return rep, proves(rep, **claim), {"alpha_certified": rep.values["domain_alpha"][1] if rep.accepted else 0.0,
                                       "alpha_upper": rep.values.get("alpha_upper")}


def _proof_of(route, reference, res, **kw):
    """A :func:`Proof` from a certificate dict with 'proved' and 'seconds'."""
    return Proof(
        route, reference, {k: v for k, v in res.items() if k != "seconds"}, size={"seconds": round(res["seconds"], 2)}, **kw
    )


# --------------------------------------------------------------------------- float64 evidence
def _proposition9_settings(ctx):
    """The settings of Proposition 9's float64 checks: lam = Figure 4b's and 0.9 at the setting's model; at the paper's
    in thorough mode two more of the paper's range."""
    if ctx.setting.user:
        return [dict(lam=FIG4B.lam0, **model_of(ctx)), dict(lam=0.9, **model_of(ctx))]
    return [_P4B, dict(_P4B, lam=0.9)] + ctx.pick(
        [], [], [dict(lam=2.0, gamma=0.3, d=80, L=10), dict(lam=0.05, gamma=1.5, d=1000, L=3)]
    )


def _fixed_points_at(params):
    """Proposition 9 in float64 at each setting of ``params``: (misclassified points, the largest displacement of a
    stationary point by the reduced map at alpha = 0.1, the largest error of the mirror fixed point (0.9, 1) at its
    alpha or 1 where that alpha is not above the closed-form bound, the details by setting)."""
    wrong, fixed_err, mirror_err, details = 0, 0.0, 0.0, {}
    for p in params:
        cls = F.classify_points(**p)
        wrong += sum(cls[str(pt)] != kind for pt, kind in _EXPECT.items())
        fixed_err = max(fixed_err, F.fixed_point_error(alpha=0.1, **p))
        a_fix, a_mirror = F.alpha_fixed_bound(**p), F.mirror_alpha(0.9, **p)
        if a_mirror < 1e6:  # beyond, g_kappa(0.9, 1) is so small that the step is pure round-off
            img = F.map_numeric(0.9, 1.0, alpha=a_mirror, **p)
            mirror_err = max(mirror_err, float(np.max(np.abs(img - [0.9, 1.0]))), 0.0 if a_mirror > a_fix else 1.0)
        details["lam=%g gamma=%g d=%d L=%d" % (p["lam"], p["gamma"], p["d"], p["L"])] = {
            "classification": cls, "alpha_fixed_bound": a_fix, "alpha_mirror(0.9, 1)": a_mirror}
    return wrong, fixed_err, mirror_err, details


def _jacobians(p, alpha, h=1e-6):
    """The generated Jacobian of the reduced map at the five points against finite differences with step ``h``: (the
    worst abs difference, each point's Jacobian and eigenvalues)."""
    worst, jac = 0.0, {}
    for pt in F.POINTS:
        J, ev = F.jacobian_at(pt, alpha=alpha, **p)
        worst = max(worst, float(np.max(np.abs(F.finite_difference_jacobian(pt, alpha=alpha, h=h, **p) - J))))
        jac[str(pt)] = {"J": J.tolist(), "eigenvalues": np.sort(np.real(ev)).tolist()}
    return worst, jac


def _in_bracket(a, dif) -> bool:
    """Whether ``a`` lies in the certified bracket [alpha_certified, alpha_upper] (False without an upper bound)."""
    return dif["alpha_upper"] is not None and dif["alpha_certified"] <= a <= dif["alpha_upper"]


def _det_signs(rep, dif, p):
    """float64 det J on both sides of the certified bracket: min_det_below, its minimum on a 201^2 grid at
    alpha_certified; det_above, its value at alpha_upper (1 without one) at the point where the certificate shows it
    negative, upper_at ((0, 0), or where det J first vanishes elsewhere)."""
    below = F.min_det_jacobian(alpha=dif["alpha_certified"], n=201, **p)
    at = rep.values.get("upper_at", (0.0, 0.0))
    above = float(F.det_jacobian(*at, alpha=dif["alpha_upper"], **p)) if dif["alpha_upper"] is not None else 1.0
    return {"min_det_below": below, "det_above": above, "upper_at": list(at)}


# --------------------------------------------------------------------------- the claims
@claim(
    "lemma-4",
    where="Lemma 4",
    statement="M = {theta = eta = rho = 0} is invariant under PGD",
    domain=lambda s: f"all parameters (SymPy); {FIG4B.text}, {s.runs} runs x {s.steps} steps in float64",
    sizes=dict(steps=(300, 2000, 20000), runs=(4, 8, 30)),
    setting=M4B,  # tied: the float run at d = 1000 with this step leaves M (M is unstable there, not round-off)
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
        Measured("full-dimensional float64 PGD from M (d = 400)", "distance to M, exactly 0 in exact arithmetic", d64, 1e-12,
                 "float64 round-off accumulates to ~1e-16 per step at most; 1e-12 is far below any real drift",
                 unit="max distance to M", corroborates=True, size={"runs": runs, "steps": steps, "seed": seed},
                 details={"float32_max_distance": d32}),
    ]


@claim(
    "proposition-9",
    where="Proposition 9",
    statement="the stationary points of R on M are exactly (0, 0) and the four corners; (1, 1), (-1, -1) minima, (1, -1), "
    "(-1, 1) maxima, (0, 0) a saddle",
    domain=f"all parameters (sign argument, SymPy); every lam in {list(PROP9_LAM)} at {FIG4B.model_text} (ball arithmetic)",
    setting=M4B,
    at_setting=lambda s, st: f"all parameters (sign argument, SymPy); every lam in {list(PROP9_LAM)} at {st.text} "
    f"(ball arithmetic: both certificates searched afresh and replayed); the Hessians at lam = {FIG4B.lam0:g}, 0.9 "
    "(float64)",
    runs_at=lambda st: _prop9_range(st),
)
def proposition9(ctx):
    """Proposition 9: the stationary points on M are exactly (0, 0) and the four corners (sign
    argument, SymPy); their Hessians classify them; they are fixed points of the reduced map; a
    fixed point that is not stationary appears when alpha exceeds the closed-form bound. At a user's
    setting both certificates are searched there and replayed (a few seconds)."""
    st, params, lams = ctx.setting, _proposition9_settings(ctx), list(PROP9_LAM)
    wrong, fixed_err, mirror_err, details = _fixed_points_at(params)
    (rep, rep_binds), (signs, signs_binds) = _proposition9_certificates(ctx)
    return [
        Identities("SymPy sign argument on Lemma 6's gradient", "Proposition 9 (exactly five stationary points on M)",
                   sfix.stationary_point_proofs()),
        Replayed("ball arithmetic (arb): branch and bound + Krawczyk, lam a box coordinate; its certificate replayed by "
                 f"certify.replay ({how_searched(ctx)})",
                 f"exactly five stationary points for every lam in {lams} at once ({st.text})",
                 [rep], binding=[rep_binds], details={"setting": rep.values.get("setting")}),
        Replayed("ball arithmetic: Hessian entries at the five points, lam a box coordinate; its certificate replayed by "
                 f"certify.replay ({how_searched(ctx)})", f"Proposition 9's classification for every lam in {lams} ({st.text})",
                 [signs], binding=[signs_binds], details={"setting": signs.values.get("setting")}),
        Measured("Hessians at the five points (angle coordinates at the corners)", "Proposition 9's classification", wrong, 0,
                 "a sign of an eigenvalue: any mismatch fails", unit="misclassified points", size={"settings": len(params)},
                 details=details, corroborates=True),
        Measured("reduced map at the five points (alpha = 0.1)", "the points themselves", fixed_err, 1e-14,
                 "a fixed point maps to itself up to float64 round-off", unit="max abs error", corroborates=True),
        Measured("reduced map at (0.9, 1) with the mirror alpha", "a non-stationary fixed point above the alpha bound",
                 mirror_err, 1e-9, "the overshoot solves a closed-form equation: round-off only", unit="max abs error",
                 corroborates=True),
    ]


@claim(
    "proposition-10",
    where="Proposition 10",
    statement="Jacobians of the PGD map at the fixed points, attraction, two-timescale rates",
    domain=f"{FIG4B.text}",
    setting=M4B,
    at_setting=lambda s, st: f"{st.text}, lam = {FIG4B.lam0:g} (Figure 4b's; {NO_EPS}); the step alpha = "
    f"{FIG4B.alpha:g} (Figure 4b's), or half the numeric alpha_max where that is smaller; the trajectory until the "
    "rates are measured; the alpha_max certificate searched afresh at this setting and replayed",
    runs_at=lambda st: on_M(st) or _prop10_budget(st) or rates_within(
        st, _prop10_step(at_lam(st.gamma, st.d, st.L)[1]), _P10_SCALE, "the measured rates' window"),
)
def proposition10(ctx):
    """Proposition 10: the reduced map's Jacobian at the fixed points vs finite differences; the attraction bound;
    alpha_max certified, the numeric value (det J > 0 on a grid) in its bracket; the two-timescale rates at (1, 1) vs a
    run. At a user's setting: its gamma, d, L at Figure 4b's lam, the step below alpha_max, the certificate searched."""
    st, p = ctx.setting, dict(lam=FIG4B.lam0, **model_of(ctx))
    a_max = F.alpha_max_diffeo(**p, n=ctx.pick(81, 81, 161))  # grid of the numeric value (the proof is below)
    alpha = _prop10_step(a_max) if st.user else FIG4B.alpha
    worst, jac = _jacobians(p, alpha)
    (a_att, gmin), (rk, rn) = F.alpha_attract(**p), F.predicted_rates(alpha=alpha, **p)
    steps = _steps_at(ctx, alpha, _P10_SCALE, ctx.pick(12000, 12000, 40000))
    mk, mn = F.measured_rates(alpha=alpha, steps=steps, **p)
    att, (rep, binds, dif) = alpha_attract(**p), _alpha_max_certificate(ctx, p, a_max, alpha)
    det = _det_signs(rep, dif, p)
    here = {"setting": st.as_dict(), "lam": p["lam"], "alpha": alpha, "steps": steps} if st.user else {}
    return [
        Replayed("ball arithmetic: det J of the reduced map > 0 on [-1, 1]^2 x [0, alpha] (branch and bound); its "
                 f"certificate replayed by certify.replay ({how_searched(ctx)})", "Proposition 10: alpha_max, certified at "
                 ">= 0.9 of the numeric value, and the numeric value inside the certified bracket",
                 [rep], binding=[binds], holds=bool(dif["alpha_certified"] >= 0.9 * a_max and _in_bracket(a_max, dif)),
                 details={"alpha_numeric": a_max, **dif, **here,
                          "2/lambda_max (PGD on the spheres; alpha_max: reduced PGD on M)": alpha_stable(**p)["alpha_stable"]}),
        _proof_of("ball arithmetic: 2 / max|g| at (1, 1)", f"the minima attract at the {'step' if st.user else 'paper'}'s alpha "
                  f"= {alpha:.3g}", {"proved": att[0] > alpha, "alpha_attract_enclosure": att, "alpha": alpha, "seconds": 0.0}),
        Measured("SymPy Jacobian of the reduced map (generated)", "central / one-sided finite differences, h = 1e-6", worst,
                 1e-6, "finite-difference truncation ~h^2 and round-off ~1e-16/h", unit="max abs error", details=jac,
                 corroborates=True),
        Measured("measured linear rates of 1 - kappa_t, 1 - nu_t at (1, 1)", "the Jacobian's eigenvalues (1 - alpha|g|)^2",
                 max(abs(np.log(mn) / np.log(rn) - 1), abs(np.log(mk) / np.log(rk) - 1)), 0.02,
                 "a log-linear fit over a finite window", unit="relative error of log rate",
                 details={"predicted": [rk, rn], "measured": [mk, mn], "timescale_ratio": float(np.log(rn) / np.log(rk)),
                          **here}),
        Measured("float64 det J of the reduced map on a 201^2 grid at the certified alpha, and at the certificate's point "
                 "at the upper bound", "the certified bracket of alpha_max (signs: > 0 below, < 0 above)",
                 float(det["min_det_below"] <= 0) + float(det["det_above"] >= 0) + float(not att[0] <= a_att <= att[1]), 0.0,
                 "signs and an enclosure of the float64 attraction step: any violation fails", unit="violations",
                 corroborates=True, details={**det, "alpha_attract_float64": a_att}),
        Measured(f"ordering alpha = {alpha:.3g} < alpha_max(numeric) < alpha_attract", "Proposition 10's step-size bounds",
                 0.0 if alpha < a_max < a_att else 1.0, 0.0, "an ordering holds or not", unit="violations",
                 details={"alpha_max_numeric_not_certified": a_max, "alpha_attract": a_att, "|g| at (1, 1)": gmin.tolist()}),
    ]
