"""``slr-verify risk | global-min | window | bayes | basins``: one command per question at any setting, each answer with its
tier (`docs/own-setting.md`).

Every command takes the setting the same way: ``--gamma2 --eps --d --L`` (all four; no silent default) or
``--figure 4b`` (the paper's setting of that figure, named in the output). ``--gamma`` is refused: the paper and this
command line state gamma^2. Text by default, ``--json`` for machines; progress on stderr for the long ones.

* ``risk --lam X [--overlaps K,N,T,E,R]``: Theorem 1 at the overlaps (the oracle (1, 1, 0, 0, 0) by default): float64,
  and an arb enclosure (proved by ball arithmetic);
* ``global-min --lam X [--certify]``: the profile's global minimiser (numeric), then with ``--certify`` the branch
  and bound's enclosure (proved by ball arithmetic, its certificate replayed);
* ``window [--certify --out FILE]``: the float ends of the oracle's window and their mechanisms (numeric), then with
  ``--certify`` both ends enclosed to 8e-13 and proved;
* ``bayes --lam X [--n N --seed S]``: the erf, softmax, linear and Bayes predictors' risks side by side (closed forms
  exact; Monte Carlo with its 95% interval);
* ``basins --lam X --alpha A --runs N``: where PGD from uniform sphere starts ends, each outcome with its count, 95%
  interval and certificate tier, and whether the oracle is PGD-stable at alpha (against 2 / lambda_max).
"""
from __future__ import annotations

import json
import math

from .model import tiers as T
from .model.cli_args import add_model_options
from .model.params import keywords_checked
from .model.processes import cores

TIERS = {"ball": T.BALL, "certificate": T.certified(True), "float": f"{T.NUMERIC} (float64)",
         "statistical": f"{T.STATISTICAL} (Monte Carlo, 95% interval)",
         "exact": f"{T.NUMERIC}: closed form (float64 kernel generated from SymPy)"}


def _setting_args(p, lam=False):
    p.add_argument("--figure", choices=("4a", "4b", "5", "7a", "7b"),
                   help="the paper's setting of that figure (gamma^2, eps, d, L; lam for a constant schedule)")
    add_model_options(p)  # --gamma2 --eps --d --L, --gamma refused: as every command (and `check --setting`)
    if lam:
        p.add_argument("--lam", type=float, help="the inverse temperature lam (with --figure: the figure's, if constant)")
    p.add_argument("--json", action="store_true", help="print the answer as JSON")


def _setting(a, lam=False) -> dict:
    """The setting from the arguments: {gamma2, gamma, eps, d, L[, lam], source}. ``--figure`` is the figure's model
    whole: with any of ``--gamma2 --eps --d --L`` it is refused (the output would name a figure whose setting it is
    not); ``--lam`` may replace a figure's constant lam (the output states lam). ValueError naming what is missing."""
    from .model.cli_args import SETTING_KEYS, model_setting
    from .model.settings import FIGURES

    given = {k: getattr(a, k, None) for k in SETTING_KEYS}
    out = {}
    if a.figure:
        own = [f"--{k}" for k, v in given.items() if v is not None]
        if own:
            raise ValueError(f"--figure {a.figure} fixes gamma^2, eps, d and L: drop {', '.join(own)} (or --figure, and "
                             "give all four)")
        f = FIGURES[a.figure]
        model = f.model
        if lam and f.schedule == "constant":
            out["lam"] = f.lam0
    else:
        model = None
    if lam and getattr(a, "lam", None) is not None:
        out["lam"] = a.lam
    missing = ([] if model else [f"--{k}" for k, v in given.items() if v is None]) + (["--lam"] if lam and "lam" not in out
                                                                                      else [])
    if missing:
        raise ValueError(f"{', '.join(missing)} required (no silent default: give the setting, or --figure 4b for the "
                         "paper's gamma^2 = 0.5, eps = 0, d = 400, L = 10)")
    model = model or model_setting(given, options=True)
    if "lam" in out:
        model.at(out["lam"])  # lam validated with the setting's ranges
    out.update(gamma2=model.gamma2, gamma=model.gamma, eps=model.eps, d=model.d, L=model.L, model=model,
               source=f"Figure {a.figure}" if a.figure else "given")
    return out


def _emit(a, answer) -> int:
    if a.json:
        print(json.dumps(answer, indent=1, default=str))
        return 0
    s = answer["setting"]
    head = f"gamma^2 = {s['gamma2']:g}, eps = {s['eps']:g}, d = {s['d']}, L = {s['L']}"
    if "lam" in s:
        head += f", lam = {s['lam']:g}"
    print(f"{answer['question']} at {head} ({s['source']})")
    for r in answer["results"]:
        print(f"  {r['name']}: {r['text']}    [{r['tier']}]")
    return 0


def _check_out(a):
    if a.out is not None:
        if not a.certify:
            raise ValueError("--out needs --certify (the certificate is what is written)")
        from .certify.certificate import check_output_path

        check_output_path(a.out, force=a.force)


def _public(s):
    return {k: s[k] for k in ("gamma2", "eps", "d", "L", "lam", "source") if k in s}


def _risk_ball(ov, lam, model):
    """Theorem 1's risk at the overlaps ``ov`` as an arb ball (128 bits; lam one ulp wide, the setting's balls)."""
    from flint import arb, ctx

    from .kernels.balls import widened
    from .kernels.certified import risk_arb

    names = ("kappa", "nu", "theta", "eta", "rho")
    with ctx.workprec(128):
        return risk_arb()(**{n: arb(x) for n, x in zip(names, ov)}, lam=widened(lam), **model.balls().kw())[0]


def _risk(a) -> int:
    from . import oracle_risk, risk
    from .kernels.balls import outward

    s = _setting(a, lam=True)
    ov = [float(x) for x in a.overlaps.split(",")] if a.overlaps else [1.0, 1.0, 0.0, 0.0, 0.0]
    if len(ov) != 5:
        raise ValueError(f"--overlaps must be five numbers kappa,nu,theta,eta,rho, got {a.overlaps!r}")
    kw = {k: s[k] for k in ("lam", "gamma", "eps", "d", "L")}
    # at the oracle, the API's R(k*, v*) (oracle_risk: the closed form of MATH.md section 5, full relative accuracy);
    # Theorem 1's general formula there rounds differently in the last digit
    value = float(oracle_risk(**kw) if ov == [1.0, 1.0, 0.0, 0.0, 0.0] else risk(*ov, **kw))
    lo, hi = outward(_risk_ball(ov, s["lam"], s["model"]))  # the reported enclosure: its ends rounded outward, not to nearest
    name = "R(k*, v*)" if ov == [1.0, 1.0, 0.0, 0.0, 0.0] else f"R at (kappa, nu, theta, eta, rho) = {tuple(ov)}"
    results = [{"name": name, "value": value, "text": f"{value!r}", "tier": TIERS["exact"]},
               {"name": "enclosure", "value": [lo, hi], "text": f"[{lo!r}, {hi!r}] (contains the float64 value: "
                f"{lo <= value <= hi})", "tier": TIERS["ball"]}]
    return _emit(a, {"question": "risk (Theorem 1)", "setting": _public(s), "results": results})


def _global_min(a) -> int:
    from .landscape import float_global_minimum

    s = _setting(a, lam=True)
    _check_out(a)
    kw = {k: s[k] for k in ("lam", "gamma", "eps", "d", "L")}
    risk, ov = float_global_minimum(**kw)
    names = ("kappa", "nu", "theta", "eta", "rho")
    oracle = tuple(ov) == (1.0, 1.0, 0.0, 0.0, 0.0)
    results = [{"name": "global minimum (profile)", "value": risk, "text": f"{risk!r} at "
                + ("the oracle (k*, v*)" if oracle else ", ".join(f"{n} = {x:.9g}" for n, x in zip(names, ov))),
                "overlaps": list(ov), "tier": TIERS["float"] + ": grid and pattern search on the profile"}]
    if a.certify:
        from .certify import global_minimiser

        c = global_minimiser(lam=(s["lam"], s["lam"]), progress=None if a.quiet else True, workers=cores(),
                             **{k: kw[k] for k in ("gamma", "eps", "d", "L")})
        if not c.proved:
            results.append({"name": "certified", "value": None, "text": f"not proved: {c.reason}", "tier": T.NOT_PROVED})
        elif c.oracle:
            results.append({"name": "certified", "value": "oracle", "text": "(k*, v*) is the unique global minimiser up "
                            "to the symmetries", "tier": TIERS["certificate"]})
        else:
            o = c.overlaps[0]["overlaps"]
            results.append({"name": "certified global minimum", "value": list(c.risk), "text": f"in {list(c.risk)}; "
                            f"|kappa| in {list(o['kappa'])}, |eta| in {list(o['eta'])}, "
                            + ("r = 0 (k in span(k*, v*))" if o["r"][1] == 0 else f"r <= {o['r'][1]:.3g}"),
                            "tier": TIERS["certificate"]})
        if a.out and c.certificate is not None:
            from .certify.certificate import write

            results.append({"name": "certificate", "value": str(write(c.certificate, a.out)), "text": a.out,
                            "tier": "file"})
    return _emit(a, {"question": "global minimum of R_lam", "setting": _public(s), "results": results})


def _window(a) -> int:
    from .landscape import float_window

    s = _setting(a)
    _check_out(a)
    if not (a.lam_max > 1e-4 and math.isfinite(a.lam_max)):
        raise ValueError(f"--lam-max must be a number > 1e-4, got {a.lam_max!r}")
    kw = {k: s[k] for k in ("gamma", "eps", "d", "L")}
    lam_range = (1e-4, a.lam_max)
    w = float_window(lam_range=lam_range, **kw)
    mech = {"crossing": "a crossing", "pitchfork": "a pitchfork", None: f"none below {a.lam_max:g} (the scan's end)"}
    results = [{"name": "float ends", "value": [w.lo, w.hi], "text": f"W = [{w.lo!r}, {w.hi!r}]; lower end: "
                f"{mech[w.mechanism_lo]}, upper end: {mech[w.mechanism_hi]}", "tier": TIERS["float"] +
                ": the profile's global minimiser scanned and bisected, each end resolved by its mechanism"}]
    if a.certify:
        from .certify import oracle_window

        c = oracle_window(lam_range=lam_range, progress=None if a.quiet else True, workers=cores(), **kw)
        if c.proved:
            results.append({"name": "proved ends", "value": {"lo": c.lo, "hi": c.hi}, "text": f"lo in {list(c.lo)}, hi "
                            f"in {list(c.hi) if c.hi else 'none: W reaches ' + repr(c.unique[1])}; {c.mechanisms[0]}; "
                            f"{c.mechanisms[1]}", "statement": c.statement, "tier": TIERS["certificate"]})
        else:
            results.append({"name": "proved ends", "value": None, "text": f"not proved: {c.details.get('reason')}",
                            "tier": T.NOT_PROVED})
        if a.out and c.certificate is not None:
            from .certify.certificate import write

            results.append({"name": "certificate", "value": str(write(c.certificate, a.out)), "text": a.out,
                            "tier": "file"})
    return _emit(a, {"question": "the oracle's window W", "setting": _public(s), "results": results})


def _bayes(a) -> int:
    from . import linear_risk, oracle_risk
    from .predictors import compare_predictors

    s = _setting(a, lam=True)
    kw = {k: s[k] for k in ("gamma", "eps", "d", "L")}
    c = compare_predictors(lam=s["lam"], n=a.n, seed=a.seed, **kw)
    eps2 = s["eps"] ** 2
    # the closed forms' risks are the API's (eps^2 + exp(log excess) rounds differently in the last digit)
    exact = {"erf": lambda: oracle_risk(lam=s["lam"], **kw), "linear": lambda: linear_risk(gamma=s["gamma"], eps=s["eps"],
                                                                                          L=s["L"])}
    results = []
    for name, label in (("erf", "erf attention at (k*, v*) (Theorem 1)"), ("softmax", "softmax attention at (k*, v*)"),
                        ("linear", "best linear predictor (Proposition 3)"), ("bayes", "Bayes predictor E[Y | X]")):
        r = getattr(c, name)
        ex = math.exp(r.log_estimate) if r.log_estimate > -math.inf else 0.0
        rel = r.relative_error
        if rel == 0:
            value = float(exact[name]())
            results.append({"name": label, "value": value, "text": f"risk {value!r} (excess over eps^2 {ex:.6g})",
                            "tier": TIERS["exact"]})
        else:
            lo, hi = ex * (1 - 1.96 * rel), ex * (1 + 1.96 * rel)
            results.append({"name": label, "value": eps2 + ex, "interval": [eps2 + lo, eps2 + hi],
                            "text": f"risk {eps2 + ex:.10g} (excess {ex:.6g}, 95% interval [{lo:.6g}, {hi:.6g}])",
                            "tier": TIERS["statistical"] + f", n = {a.n}, seed {a.seed}"})
    return _emit(a, {"question": "the four predictors", "setting": _public(s), "results": results})


def _basin_text(r) -> str:
    """One basin row: its count, rate and 95% interval, and what the end point is when it is a point of the landscape
    (``kind`` "-", an unclassified row, says nothing more: no "; a -")."""
    lo, hi = r["ci95"]
    kind = r.get("kind")
    return (f"{r['count']} of {r['runs']} runs, rate {r['rate']:.4g} (95% interval [{lo:.4g}, {hi:.4g}])"
            + (f"; a {kind}" if kind not in (None, "", "-") else ""))


def _basins(a) -> int:
    import numpy as np

    from .certify import sample_basins
    from .landscape.basins import stable_at

    s = _setting(a, lam=True)
    kw = {k: s[k] for k in ("lam", "gamma", "d", "L")}
    rates, ends, ok, extra, cl = sample_basins(a.seed, a.runs, alpha=a.alpha, steps=a.steps, max_steps=a.max_steps,
                                               progress=None if a.quiet else True, details=True, **kw)
    results = []
    for label, r in rates.items():
        tiers = sorted({c.get("tier", "-") for c in r["certificates"]}) or ["-"]
        lo, hi = r["ci95"]
        results.append({"name": label, "value": r["count"], "runs": r["runs"], "ci95": [lo, hi], "kind": r["kind"],
                        "text": _basin_text(r), "tier": "; ".join(tiers)})
    orc = [p for p in cl.points if p.name == "oracle"]
    if orc:
        p = orc[0]
        top = max(float(np.max(p.core)), float(np.max(p.block)))
        stable = stable_at(p, a.alpha)
        results.append({"name": "the oracle at this alpha", "value": bool(stable), "lambda_max": top,
                        "text": f"{'PGD-stable' if stable else 'not PGD-stable'}: alpha = {a.alpha:g} "
                        f"{'<' if stable else '>='} 2/lambda_max = {2 / top:.6g} (a {p.kind} of R)",
                        "tier": f"{T.NUMERIC} (Riemannian Hessian at the 40-digit stationary point)"})
    ans = {"question": f"basins of PGD from {a.runs} sphere starts (alpha = {a.alpha:g}, seed {a.seed}; eps does not move "
           "PGD on the population risk)", "setting": _public(s), "results": results}
    return _emit(a, ans)


@keywords_checked
def add_question_parsers(sub):
    p = sub.add_parser("risk", help="Theorem 1's risk at given overlaps (the oracle by default), with an arb enclosure",
                       allow_abbrev=False)
    _setting_args(p, lam=True)
    p.add_argument("--overlaps", help="kappa,nu,theta,eta,rho (default: the oracle 1,1,0,0,0)")
    p.set_defaults(func=_risk)
    p = sub.add_parser("global-min", help="the global minimum of R_lam and where it lies (--certify: proved)",
                       allow_abbrev=False)
    _setting_args(p, lam=True)
    p.add_argument("--certify", action="store_true", help="also the certified enclosure (branch and bound; seconds to "
                   "a minute)")
    p.add_argument("--out", help="with --certify: write the certificate there (.json or .json.gz)")
    p.add_argument("--force", action="store_true", help="overwrite --out if it exists (refused otherwise)")
    p.add_argument("--quiet", action="store_true", help="no progress on stderr")
    p.set_defaults(func=_global_min)
    p = sub.add_parser("window", help="the oracle's window W: float ends, and with --certify proved ends", allow_abbrev=False)
    _setting_args(p)
    p.add_argument("--certify", action="store_true", help="also both ends enclosed to 8e-13 and proved (minutes)")
    p.add_argument("--out", help="with --certify: write the certificate there (.json or .json.gz)")
    p.add_argument("--force", action="store_true", help="overwrite --out if it exists (refused otherwise)")
    p.add_argument("--lam-max", type=float, default=100.0, help="the end of the scanned lam range (default 100)")
    p.add_argument("--quiet", action="store_true", help="no progress on stderr")
    p.set_defaults(func=_window)
    p = sub.add_parser("basins", help="where PGD from uniform sphere starts ends, each outcome with its count, 95%% "
                       "interval and certificate; whether the oracle is PGD-stable", allow_abbrev=False)
    _setting_args(p, lam=True)
    p.add_argument("--alpha", type=float, required=True, help="the step size (Figure 4b: 4e-3)")
    p.add_argument("--runs", type=int, required=True, help="sphere starts (exact law of the overlaps; Figure 7b's table: "
                   "1000)")
    p.add_argument("--steps", type=int, default=20_000, help="PGD steps before the convergence check (default 20000)")
    p.add_argument("--max-steps", type=int, default=600_000, help="further steps at most, until the tangent gradient is "
                   "below 1e-6 (default 600000)")
    p.add_argument("--seed", type=int, default=0, help="the seed of the starts (default 0)")
    p.add_argument("--quiet", action="store_true", help="no progress on stderr")
    p.set_defaults(func=_basins)
    p = sub.add_parser("bayes", help="the erf, softmax, linear and Bayes predictors' risks side by side", allow_abbrev=False)
    _setting_args(p, lam=True)
    p.add_argument("--n", type=int, default=1 << 16, help="Monte Carlo samples (default 65536)")
    p.add_argument("--seed", type=int, default=0, help="the Monte Carlo seed (default 0)")
    p.set_defaults(func=_bayes)
    return sub
