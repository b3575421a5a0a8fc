"""Claim checks for the report (``slr-verify check``): Lemma 4, Propositions 9-10, Theorem 5.

Each returns ``{"statement", "routes", "worst_error", "verdict", "details"}``; the default run
takes a few seconds, ``thorough=True`` runs longer/larger.
"""
from __future__ import annotations

import numpy as np

from . import fixed_points as F
from . import maps
from .runners import overlap_pgd, pgd, reduced_pgd

__all__ = ["check_lemma4", "check_proposition9", "check_proposition10", "check_theorem5", "FIG4B", "draw_problem"]

#: Figure 4b / 7b setting (SPEC 11)
FIG4B = dict(lam=0.1, gamma=float(np.sqrt(0.5)), d=400, L=10)


def draw_problem(rng, runs, d, on_M):
    """Random k* orthogonal to v*, and (k0, v0): uniform on the sphere, or on M
    (k0 in span(k*, w1), v0 in span(v*, w2) with w1, w2 orthogonal to everything)."""
    out = np.zeros((4, runs, d))
    for r in range(runs):
        q, _ = np.linalg.qr(rng.standard_normal((d, 4)))
        ks, vs = q[:, 0], q[:, 1]
        if on_M:
            a, b = rng.uniform(0, 2 * np.pi, 2)
            k, v = np.cos(a) * ks + np.sin(a) * q[:, 2], np.cos(b) * vs + np.sin(b) * q[:, 3]
        else:
            x = rng.standard_normal((2, d))
            k, v = x / np.linalg.norm(x, axis=1, keepdims=True)
        out[:, r] = k, v, ks, vs
    return out


def _result(statement, routes, worst, ok, details):
    return {"statement": statement, "routes": routes, "worst_error": float(worst), "verdict": "pass" if ok else "fail", "details": details}


def check_lemma4(thorough=False, seed=0):
    """Lemma 4: M is invariant under PGD (symbolic), and float64 full-dimensional PGD started on
    M stays at round-off distance from it (Figure 4b setting)."""
    sym = maps.lemma4_symbolic()
    steps = 20000 if thorough else 2000
    runs = 30 if thorough else 8
    rng = np.random.default_rng(seed)
    k, v, ks, vs = draw_problem(rng, runs, FIG4B["d"], True)
    p = dict(lam=FIG4B["lam"], gamma=FIG4B["gamma"], L=FIG4B["L"], alpha=4e-3, steps=steps, every=max(1, steps // 100))
    t64 = pgd(k, v, ks, vs, **p)
    t32 = pgd(k, v, ks, vs, dtype=np.float32, **p)
    d64 = float(np.max(t64.distance_to_M))
    d32 = float(np.max(t32.distance_to_M))
    ok = sym["partials_vanish_on_M"] and sym["map_preserves_M"] and d64 < 1e-12
    return _result(
        "M = {theta = eta = rho = 0} is invariant under PGD",
        ["SymPy: five-overlap map and Theorem 1 gradient", "full-dimensional PGD d=400 float64/float32"],
        d64,
        ok,
        {"symbolic": {k_: v_ for k_, v_ in sym.items() if k_ != "theta_eta_rho_images"}, "steps": steps, "runs": runs,
         "max_distance_to_M_float64": d64, "max_distance_to_M_float32": d32},
    )


def check_proposition9(thorough=False):
    """Stationary points of R on M are exactly (0,0) and the four corners; (1,1), (-1,-1) strict
    minima, (1,-1), (-1,1) strict maxima, (0,0) a strict saddle; fixed points of the map equal the
    stationary points for alpha below a closed-form bound, not above (mirror fixed point)."""
    params = [FIG4B] + ([dict(lam=0.9, gamma=FIG4B["gamma"], d=400, L=10), dict(lam=2.0, gamma=0.3, d=80, L=10),
                         dict(lam=0.05, gamma=1.5, d=1000, L=3)] if thorough else [dict(lam=0.9, gamma=FIG4B["gamma"], d=400, L=10)])
    st = F.stationary_points()
    ok = st["proved"]
    details = {"proofs": st["proofs"], "classification": {}}
    worst = 0.0
    for p in params:
        key = "lam=%g gamma=%g d=%d L=%d" % (p["lam"], p["gamma"], p["d"], p["L"])
        cls = {}
        for pt in F.POINTS:
            _, Hn, ev = F.hessian_angle(pt, **p)
            kind = "min" if np.all(ev > 0) else "max" if np.all(ev < 0) else "saddle" if ev.min() < 0 < ev.max() else "degenerate"
            cls[str(pt)] = (kind, ev.tolist())
            # the stationary point is a fixed point of the map
            worst = max(worst, float(np.max(np.abs(F.map_numeric(*pt, alpha=0.1, **p) - np.array(pt)))))
        expect = {"(0, 0)": "saddle", "(1, 1)": "min", "(-1, -1)": "min", "(1, -1)": "max", "(-1, 1)": "max"}
        ok &= all(cls[k][0] == v for k, v in expect.items())
        a_fix = F.alpha_fixed_bound(**p)
        a_mirror = F.mirror_fixed_point(0.9, **p)
        if a_mirror < 1e6:  # otherwise g_kappa(0.9, 1) is so small that the step is pure round-off
            img = F.map_numeric(0.9, 1.0, alpha=a_mirror, **p)
            mirror_err = float(np.max(np.abs(img - [0.9, 1.0])))
            ok &= mirror_err < 1e-9 and a_mirror > a_fix
        else:
            mirror_err = None
        details["classification"][key] = {"points": cls, "alpha_fixed_bound(proved)": a_fix,
                                          "mirror fixed point (0.9, 1) at alpha": a_mirror, "mirror_error": mirror_err}
    return _result("Proposition 9: stationary and fixed points of the reduced map; Hessian classification",
                   ["SymPy sign argument", "Hessian in angle coordinates", "reduced map evaluation"], worst, ok, details)


def check_proposition10(thorough=False):
    """Jacobian of the reduced map at the fixed points vs central finite differences of the map;
    step size for attraction of the minima; numeric alpha_max (invertible Jacobian on the square);
    two-timescale rates at (1, 1) vs measured rates."""
    p = FIG4B
    alpha = 4e-3
    worst = 0.0
    jac = {}
    h = 1e-6
    for pt in F.POINTS:
        J, ev = F.jacobian_at(pt, alpha=alpha, **p)
        # finite differences, one-sided inward at the corners
        fd = np.zeros((2, 2))
        for j in range(2):
            e = np.zeros(2)
            e[j] = h
            x = np.array(pt, float)
            if abs(x[j]) == 1:
                s = -np.sign(x[j])
                fd[:, j] = (-3 * F.map_numeric(*x, alpha=alpha, **p) + 4 * F.map_numeric(*(x + s * e), alpha=alpha, **p)
                            - F.map_numeric(*(x + 2 * s * e), alpha=alpha, **p)) / (2 * h * s)
            else:
                fd[:, j] = (F.map_numeric(*(x + e), alpha=alpha, **p) - F.map_numeric(*(x - e), alpha=alpha, **p)) / (2 * h)
        err = float(np.max(np.abs(fd - J)))
        worst = max(worst, err)
        jac[str(pt)] = {"J": J.tolist(), "eigenvalues": np.sort(np.real(ev)).tolist(), "fd_error": err}
    a_att, gmin = F.alpha_attract(**p)
    a_max = F.alpha_max_diffeo(**p, n=161 if thorough else 81)
    # two-timescale rates at (1, 1)
    rk, rn = F.predicted_rates(alpha=alpha, **p)
    steps = 40000 if thorough else 12000
    tr = reduced_pgd(np.cos(0.02), np.cos(0.3), alpha=alpha, steps=steps, **p)
    one_k, one_n = 1 - tr.kappa, 1 - tr.nu
    sel_n = (one_n > 1e-13) & (one_n < 1e-5)
    sel_k = (one_k < 1e-4) & (one_k > 1e-13)
    mn = float(np.exp(np.polyfit(tr.step[sel_n], np.log(one_n[sel_n]), 1)[0])) if sel_n.sum() > 10 else float("nan")
    mk = float(np.exp(np.polyfit(tr.step[sel_k], np.log(one_k[sel_k]), 1)[0])) if sel_k.sum() > 10 else float("nan")
    rate_err = max(abs(np.log(mn) / np.log(rn) - 1), abs(np.log(mk) / np.log(rk) - 1))
    ok = worst < 1e-6 and rate_err < 0.02 and alpha < a_max < a_att
    return _result(
        "Proposition 10: Jacobians and eigenvalues at the fixed points; minima attract for alpha < 2/max|g|; "
        "two-timescale convergence at (1, 1)",
        ["SymPy Jacobian", "finite differences of the map", "reduced trajectories"],
        max(worst, rate_err),
        ok,
        {"alpha": alpha, "jacobians": jac, "alpha_attract": a_att, "|g| at (1,1)": gmin.tolist(),
         "alpha_max_diffeo(numeric, grid+bisection, not certified)": a_max,
         "predicted rates (kappa, nu)": (rk, rn), "measured rates (kappa, nu)": (mk, mn),
         "timescale ratio predicted": float(np.log(rn) / np.log(rk)), "relative rate error": float(rate_err)},
    )


def check_theorem5(thorough=False, seed=0):
    """Theorem 5: for alpha < alpha_max and constant lam, PGD from random initial points on M
    converges to +-(1, 1) (fraction reported; the exceptional set is the stable curve of (0,0))."""
    p = FIG4B
    a_max = F.alpha_max_diffeo(**p, n=61)
    alpha = 0.8 * a_max
    n = 10000 if thorough else 2000
    steps = 8000 if thorough else 4000
    rng = np.random.default_rng(seed)
    phi, psi = rng.uniform(0, 2 * np.pi, (2, n))
    tr = reduced_pgd(np.cos(phi), np.cos(psi), alpha=alpha, steps=steps, every=steps, **p)
    kf, nf = tr.kappa[-1], tr.nu[-1]
    conv = (np.abs(kf) > 1 - 1e-6) & (np.abs(nf) > 1 - 1e-9) & (kf * nf > 0)
    frac = float(conv.mean())
    # full-dimensional spot check of a few initial points
    return _result(
        "Theorem 5: for alpha < alpha_max, PGD on M converges to +-(k*, v*) from almost every initialisation",
        ["reduced PGD on M"],
        1 - frac,
        frac == 1.0,
        {"alpha": alpha, "alpha_max(numeric)": a_max, "n_init": n, "steps": steps, "fraction_converged": frac,
         "to (1,1)": float(np.mean(conv & (kf > 0))), "to (-1,-1)": float(np.mean(conv & (kf < 0))),
         "worst 1-|kappa|": float(np.max(1 - np.abs(kf)))},
    )
