"""``slr-verify certify replay | oracle | minimum``: the proofs' certificates from the command line
(`docs/certificates.md`).

* ``replay FILE``: the independent checker; exit 0 accepted, 1 rejected, 2 unreadable.
* ``oracle --gamma2 G --eps E --d D --L L --lam LO:HI --out FILE``: the branch and bound for "(k*, v*) is the unique
  global minimiser for every lam of [LO, HI]"; the certificate is written and replayed; exit 0 iff proved.
* ``minimum ... --lam X --out FILE``: the certified enclosure of the global minimum at a point lam.
* ``window --gamma2 G --eps E --d D --L L --out FILE``: W's two ends enclosed to 8e-13 and the oracle's global
  minimality between them (:func:`slr_verify.certify.oracle_window`); exit 0 iff proved.
* ``window-grid --gamma2 0.3:1.5:5 --d 50,80 --L 3,10 --eps 0 --out PATH``: the same at every setting of a grid, on
  Dask (:func:`slr_verify.certify.window_grid`), into a resumable Zarr store with the certificates beside it; exit 0
  iff every setting is proved.
* ``step-size --gamma2 G --d D --L L --lam X --out FILE``: Proposition 10's bracket of alpha_max at lam = X (det J of
  the reduced map > 0 on the square below it; :func:`slr_verify.certify.alpha_diffeo`, started from the float grid's
  alpha_max); exit 0 iff the bracket is proved (both ends). Beside it, each labelled with its dynamics, the enclosure
  of 2/lambda_max (:func:`slr_verify.certify.alpha_stable`): alpha_max is for reduced PGD on M, 2/lambda_max for PGD
  on the spheres, where the oracle is linearly stable only below it (`docs/MATH.md` §10, §13).
* ``transverse --gamma2 G --eps E --d D --L L --lam LO:HI --alpha A --out FILE``: the transverse stability map of M
  (:func:`slr_verify.certify.transverse.transverse_map`): boxes of (kappa, nu) attracting, repelling or undecided;
  exit 0 iff the checker accepts the certificate.
* ``theorem5 --gamma2 G --eps E --d D --L L --lam LO:HI --out FILE [--json]``: Theorem 5 at an explicit step
  (:func:`slr_verify.certify.theorem5.theorem5_step`), one certificate; exit 0 iff proved.

The output path is checked before the search starts; progress goes to stderr.
"""
from __future__ import annotations

import math
import sys

from ..model.cli_args import SETTING_KEYS, add_model_options, model_setting, refuse_gamma
from ..model.processes import cores
from .tube_command import add_parser as add_tube_parser


def _lam(text):
    parts = str(text).split(":")
    try:
        vals = [float(p) for p in parts]
    except ValueError:
        raise ValueError(f"--lam must be a number or LO:HI, got {text!r}") from None
    if len(vals) not in (1, 2):
        raise ValueError(f"--lam must be a number or LO:HI, got {text!r}")
    return (vals[0], vals[-1])


def _setting(a) -> dict:
    """gamma, eps, d, L (the searches' keywords) of the setting ``--gamma2 --eps --d --L`` (:func:`model_setting`)."""
    return model_setting({k: getattr(a, k) for k in SETTING_KEYS}, options=True).kw()


def _replay(a) -> int:
    from ..checker.reader import Unreadable
    from .replay import replay

    if a.committed == (a.file is not None):
        raise ValueError("certify replay takes either a certificate file or --committed (every committed certificate)")
    if a.committed:
        return _replay_committed(a)
    try:
        r = replay(a.file)  # a file it cannot read, or whose work is over the cap: Unreadable
    except Unreadable as e:
        print(f"slr-verify certify replay: unreadable: {e}", file=sys.stderr)
        return 2
    print(("ACCEPTED" if r.accepted else "REJECTED") + f" ({r.leaves} leaves, {r.seconds:.1f} s): {r.reason}")
    if r.accepted:
        print(f"proves: {r.conclusion}")
    return 0 if r.accepted else 1


def _replay_committed(a) -> int:
    """Every committed certificate on every core (:func:`.committed.replay_every`): a line each, then the total."""
    import time

    from .committed import replay_every

    t0 = time.time()
    reps = replay_every(progress=None if a.quiet else True)
    for name, r in reps:
        print(f"{'ACCEPTED' if r.accepted else 'REJECTED'} {name} ({r.leaves} leaves, {r.seconds:.1f} s)"
              + ("" if r.accepted else f": {r.reason}"))
    bad = sum(not r.accepted for _, r in reps)
    print(f"{len(reps) - bad} of {len(reps)} accepted in {time.time() - t0:.1f} s ({cores()} cores)")
    return 0 if not bad else 1


def _search(a, oracle) -> int:
    from .certificate import check_output_path, write
    from .globalmin import global_minimiser

    out = check_output_path(a.out, force=a.force)
    lam = _lam(a.lam)
    if not oracle and lam[0] != lam[1]:
        raise ValueError(f"--lam must be a single value for an enclosure, got {a.lam!r}")
    c = global_minimiser(lam=lam, time_limit=a.time_limit, progress=None if a.quiet else True, workers=cores(),
                         **_setting(a))
    if c.certificate is not None:
        write(c.certificate, out)
    r = c.replay
    ok = bool(c.proved and c.oracle == oracle)
    what = r.conclusion if r is not None and r.accepted else c.reason
    if c.proved and not ok:
        what = (f"(k*, v*) is not the global minimiser there: the float profile's minimiser is elsewhere; the certified "
                f"enclosure instead: {what}" if oracle else f"the oracle is the global minimiser there: {what}")
    print(f"{'PROVED' if ok else 'NOT PROVED'}: {what}")
    if c.certificate is not None:
        print(f"certificate: {out} ({len(c.certificate['leaves'])} leaves; checker: {r.reason if r else 'not run'})")
    return 0 if ok else 1


def _window(a) -> int:
    from .certificate import check_output_path, write
    from .window import oracle_window

    out = check_output_path(a.out, force=a.force)
    if not (a.lam_max > 1e-4 and math.isfinite(a.lam_max)):
        raise ValueError(f"--lam-max must be a number > 1e-4, got {a.lam_max!r}")
    w = oracle_window(lam_range=(1e-4, a.lam_max), workers=a.workers, scheduler=a.scheduler, time_limit=a.time_limit,
                      progress=None if a.quiet else True, **_setting(a))
    if w.certificate is not None:
        write(w.certificate, out)
    if w.proved:
        print(f"PROVED: {w.statement}")
    elif w.statement:  # a partial certificate: the time limit (or a failed lam piece) stopped the search
        print(f"PROVED IN PART: {w.statement}\nNOT PROVED: {w.details.get('reason', '')}")
    else:
        print(f"NOT PROVED: {w.details.get('reason', '')}")
    for side, m in zip(("lo", "hi"), w.mechanisms):
        print(f"  {side}: {getattr(w, side)!r} -- {m}")
    if w.certificate is not None:
        print(f"certificate: {out} ({len(w.certificate['leaves'])} leaves; checker: "
              f"{w.replay.reason if w.replay else 'not run'})")
    return 0 if w.proved else 1


def _window_grid(a) -> int:
    from .grid_run import LAM_MAX, axes_of, window_grid
    from .grid_store import open_window_grid

    axes_of(a.gamma2, a.d, a.L, a.eps, prefix="--")  # the options' names in the errors
    if not (1e-4 < a.lam_max <= LAM_MAX):
        raise ValueError(f"--lam-max must be a number in (1e-4, {LAM_MAX:g}], got {a.lam_max!r}")
    if not a.time_limit > 0:
        raise ValueError(f"--time-limit must be > 0 (seconds per setting), got {a.time_limit!r}")
    n = window_grid(gamma2=a.gamma2, d=a.d, L=a.L, eps=a.eps, out=a.out, lam_max=a.lam_max, time_limit=a.time_limit,
                    scheduler=a.scheduler, workers=a.workers, progress=None if a.quiet else sys.stderr)
    ds = open_window_grid(a.out)
    proved, total = int(ds["proved"].sum()), int(ds["proved"].size)
    print(f"{proved} of {total} settings proved ({n['computed']} computed now, {n['skipped']} kept); {a.out} "
          "(slr_verify.certify.open_window_grid, xarray.open_zarr)")
    return 0 if proved == total else 1


def _step_size(a) -> int:
    from ..kernels.steps import alpha_max_grid
    from .certificate import check_output_path, write
    from .oracle_stability import alpha_stable
    from .reduced_map import alpha_diffeo
    from .replay import replay

    out = check_output_path(a.out, force=a.force)
    lam = _lam(a.lam)
    if lam[0] != lam[1]:
        raise ValueError(f"--lam must be a single value, got {a.lam!r}")
    p = dict(lam=lam[0], **_setting(a))
    p.pop("eps")
    numeric = alpha_max_grid(**p)
    if not math.isfinite(numeric):
        raise ValueError("det J stays > 0 on the float grid up to alpha = 1e4 at this setting: no alpha_max to bracket")
    stable = alpha_stable(**p)  # cheap (two 2 x 2 blocks): printed whatever the bracket's fate
    r = alpha_diffeo(alpha_numeric=numeric, **p)
    if r["certificate"] is None:
        print(f"NOT PROVED: no alpha up to {numeric!r} (the float grid's alpha_max) proved")
        _print_step_sizes(None, stable)
        return 1
    write(r["certificate"], out)
    rep = replay(r["certificate"])
    ok = rep.accepted and r["alpha_upper"] is not None
    print(f"{'PROVED' if ok else 'NOT PROVED (lower bound only)' if rep.accepted else 'REJECTED'}: "
          f"{rep.conclusion if rep.accepted else rep.reason}")
    print(f"certificate: {out} ({rep.leaves} leaves; float alpha_max {float(numeric)!r})")
    _print_step_sizes((r["alpha_certified"], r["alpha_upper"]) if rep.accepted else None, stable)
    return 0 if ok else 1


#: the paper's step sizes (section 11: Figures 4a, 4b, 7b use 4e-3; Figures 5, 7a 1e-3)
_PAPER_STEPS = (4e-3, 1e-3)


def _theorem5(a) -> int:
    import json

    from .certificate import check_output_path, write
    from .theorem5 import theorem5_step

    out = check_output_path(a.out, force=a.force)
    p = _setting(a)
    p.pop("eps")
    if a.steps is not None and not (math.isfinite(a.steps) and a.steps > 0):
        raise SystemExit(f"slr-verify certify theorem5: error: --steps must be a finite EPS > 0, got {a.steps!r}")
    show = None if a.quiet else (lambda i, n: print(f"  lam piece {i}/{n} closed", file=sys.stderr))
    rate = False if a.no_rate else True if a.rate_lam_max is None else a.rate_lam_max
    shown = {}

    def rate_progress(piece, boxes):  # R1's search, one line per piece then every 5,000 boxes
        if boxes - shown.get(piece, -5000) >= 5000 and not a.quiet:
            shown[piece] = boxes
            print(f"  R1: piece {piece + 1}: {boxes} boxes", file=sys.stderr)

    cost = {} if a.quiet else {"announce": lambda text: print(f"  {text}", file=sys.stderr)}  # before R1 starts
    r = theorem5_step(_lam(a.lam), ratio=a.ratio, progress=show, rate=rate, workers=a.workers, scheduler=a.scheduler,
                      rate_options={"progress": rate_progress, **cost}, **p)
    if r["certificate"] is not None:
        write(r["certificate"], out)
    keys = ("lam", "alpha_8", "alpha_12", "alpha_5", "mu", "delta", "G_kappa", "G_nu", "H", "M", "mu_plus",
            "area_fraction")
    pieces = [{k: (list(x[k]) if isinstance(x[k], tuple) else x[k]) for k in keys} for x in r["pieces"]]
    below = {str(s): [x["lam"] for x in pieces if x["alpha_5"] < s] for s in _PAPER_STEPS}
    off_m = _off_m(pieces, p, a.quiet) if r["proved"] else []
    steps = _steps(pieces, a.steps, p) if r["proved"] and a.steps is not None else None
    if a.json:
        print(json.dumps({"proved": r["proved"], "failure": r["failure"], "rate_failure": r["rate_failure"],
                          "certificate": str(out) if r["proved"] else None,
                          "alpha_5_min": r["alpha_5_min"], "pieces": pieces, "pieces_below_paper_steps": below,
                          "off_M": off_m, **({"steps": steps} if steps is not None else {}),
                          "boxes": r["boxes"], "seconds": round(r["seconds"], 2)}, indent=1))
        return 0 if r["proved"] else 1
    if not r["proved"]:
        print(f"NOT PROVED: {r['failure']}")
        return 1
    from ..checker import statement

    print(f"PROVED: {statement(r['certificate'])}")
    print(f"{'lam piece':>34}  {'alpha_8':>10}  {'alpha_12':>10}  {'alpha_5':>10}  {'mu':>10}  {'delta':>8}")
    for x in pieces:
        f = lambda v: "-" if v is None else f"{v:.4g}"
        print(f"  [{x['lam'][0]:.6g}, {x['lam'][1]:.6g}]".rjust(34) + "".join(
            f"  {f(x[k]):>{w}}" for k, w in (("alpha_8", 10), ("alpha_12", 10), ("alpha_5", 10), ("mu", 10), ("delta", 8))))
    for s, where in below.items():
        print(f"the paper's step {s}: " + ("covered on every piece" if not where else
                                         f"not covered where alpha_5 < {s}: lam from {where[0][0]:.6g}"))
    print("alpha_5 is the certified step: Theorem 5 holds for every alpha in (0, alpha_5] of its piece (alpha_max of "
          "`certify step-size`, Proposition 10, is a necessary condition of the proof, not a certified step: alpha_5 <= "
          "alpha_12 <= alpha_max)")
    unstable = [x for x in off_m if x["unstable_at_alpha_5"]]
    print(f"off M, at each piece's ends (sampled): at alpha_5 the oracle is a linearly unstable fixed point of PGD on the "
          f"spheres at {len(unstable)} of {len(off_m)} ends (alpha_5 > 2/lambda_max, or a saddle there): Theorem 5's step "
          "is for initialisations on M; from off M, PGD is repelled from the oracle unless alpha < 2/lambda_max "
          "(`certify step-size`; docs/MATH.md section 13)")
    if r["rate_failure"]:
        print(f"the rate R1: {r['rate_failure']}")
    if steps is not None:
        _print_steps(steps, a.steps)
    print(f"certificate: {out} ({len(r['certificate']['leaves'])} leaves, {r['seconds']:.1f} s)")
    return 0


def _steps(pieces, eps, p) -> dict:
    """R1's certified step counts (:func:`slr_verify.certify.rate.steps_to`) at the paper's steps and at each piece's
    alpha_5: {"eps", "alphas", "pieces"}."""
    from .rate import steps_to

    at = [steps_to([x], eps, [*_PAPER_STEPS, x["alpha_5"]], gamma=p["gamma"], d=p["d"], L=p["L"])[0] for x in pieces]
    return {"eps": eps, "alphas": [*(str(s) for s in _PAPER_STEPS), "alpha_5"], "pieces": at}


def _print_steps(steps, eps):
    f = lambda t: "-" if t is None else f"{t:,}"
    print(f"R1's certified steps to R - R* <= {eps:g} from every x_0 on M with R(x_0) <= R(0, 0) - delta (S_delta; E >= "
          "R(x_0) - R* by ball arithmetic on the piece, T = ceil(log(E/eps) / -log(1 - alpha mu/2)); '-': no rate on the "
          "piece, or alpha above alpha_8; runs from above the saddle's level (R2) are not certified)")
    print(f"{'lam piece':>34}  {'E':>8}" + "".join(f"  {a:>12}" for a in steps["alphas"]))
    for x in steps["pieces"]:
        if x is None:
            continue
        print(f"  [{x['lam'][0]:.6g}, {x['lam'][1]:.6g}]".rjust(34) + f"  {x['excess_bound']:8.4g}"
              + "".join(f"  {f(t):>12}" for t in x["steps"]))


def _off_m(pieces, p, quiet) -> list:
    """At each end of the pieces: 2/lambda_max (:func:`~.oracle_stability.alpha_stable`, arb) against the smallest
    alpha_5 of the pieces there, and whether the oracle is then linearly unstable for PGD on the spheres."""
    from .oracle_stability import alpha_stable, unstable_at
    from .theorem5 import alpha_5_at

    ends = sorted({x["lam"][0] for x in pieces} | {pieces[-1]["lam"][1]})
    if not quiet:
        print(f"  off M: 2/lambda_max at the {len(ends)} piece ends (about {0.4 * len(ends):.0f} s)", file=sys.stderr)
    out = []
    for lam in ends:
        a5, st = alpha_5_at(pieces, lam), alpha_stable(lam=lam, gamma=p["gamma"], d=p["d"], L=p["L"])
        out.append({"lam": lam, "alpha_5": a5, "two_over_lambda_max": list(st["alpha_stable"]),
                    "oracle_minimum_on_spheres": st["minimum"], "unstable_at_alpha_5": unstable_at(st, a5)})
    return out


def _transverse(a) -> int:
    from .certificate import check_output_path, write
    from .transverse import transverse_map

    out = check_output_path(a.out, force=a.force)
    p = dict(lam=_lam(a.lam), kappa=_lam(a.kappa), nu=_lam(a.nu), alpha=a.alpha, pieces=a.pieces,
             min_width=a.min_width, **_setting(a))
    show = None if a.quiet else (lambda n: print(f"  {n} boxes", file=sys.stderr))
    r = transverse_map(progress=show, **p)
    if not r["proved"]:
        print(f"NOT PROVED: {r['failure']}")
        return 1
    from ..checker import replay

    write(r["certificate"], out)
    rep = replay(r["certificate"])
    print(f"{'PROVED' if rep.accepted else 'REJECTED'}: {rep.conclusion if rep.accepted else rep.reason}")
    print(f"certificate: {out} ({rep.leaves} leaves, {r['boxes']} boxes, {r['seconds']:.1f} s)")
    return 0 if rep.accepted else 1


def _print_step_sizes(bracket, stable):
    """The two step sizes, each with the dynamics it is for: Proposition 10's bracket of alpha_max (None: not proved;
    an upper end None: not proved) and :func:`slr_verify.certify.alpha_stable`'s 2/lambda_max."""
    from .oracle_stability import DYNAMICS

    if bracket is None:
        a = "not proved"
    else:
        a = f"in [{bracket[0]!r}, {bracket[1]!r}]" if bracket[1] is not None else f">= {bracket[0]!r} (no upper end proved)"
    lo, hi = stable["alpha_stable"]
    m_lo, m_hi = stable["lambda_max"]
    print(f"alpha_max (Proposition 10) {a}: {DYNAMICS['alpha_max']}")
    print(f"2/lambda_max in [{lo!r}, {hi!r}] (lambda_max in [{m_lo!r}, {m_hi!r}], proved by ball arithmetic): "
          f"{DYNAMICS['alpha_stable']}")
    if stable["minimum"] is False:
        print("  the oracle is not a local minimum of R_lam here (an eigenvalue < 0, proved): PGD on the spheres leaves it "
              "for every alpha")
    elif stable["minimum"] is None:
        print("  whether the oracle is a local minimum of R_lam here is not decided at this precision")


def _scheduler_arg(s):
    s.add_argument("--scheduler", default=None, help="'sync', 'local' or the address of a running Dask scheduler "
                   "(default: a local cluster of --workers processes, in this process with --workers 1)")


def _setting_args(s):
    add_model_options(s, extra={"d": "at least 4"})
    s.add_argument("--out", required=True, help="where to write the certificate (.json or .json.gz), checked first")
    s.add_argument("--force", action="store_true", help="overwrite --out if it exists (refused otherwise, before any work)")
    s.add_argument("--quiet", action="store_true", help="no progress on stderr")


def _add_transverse(cs):
    s = cs.add_parser("transverse", help="the transverse stability map of M: boxes of (kappa, nu) where the transverse "
                      "block of PGD's Jacobian on M contracts a norm (attracting), has a real eigenvalue > 1 "
                      "(repelling), or neither is shown (undecided)", allow_abbrev=False)
    _setting_args(s)
    s.add_argument("--lam", required=True, help="LO:HI (or one value) of the temperature lam")
    s.add_argument("--alpha", type=float, required=True, help="the step size (the paper's Figure 4b: 0.004)")
    s.add_argument("--kappa", default="-1:1", help="LO:HI of kappa within [-1, 1] (default -1:1)")
    s.add_argument("--nu", default="-1:1", help="LO:HI of nu within [-1, 1] (default -1:1)")
    s.add_argument("--pieces", type=int, default=1, help="equal lam pieces (default 1)")
    s.add_argument("--min-width", type=float, default=2.0**-9, help="the narrowest box split further (default 2^-9; "
                   "at Figure 4b attracting boxes are about 2^-8 to 2^-9 wide: the full square takes minutes)")
    s.set_defaults(func=_transverse)


def add_certify_parser(sub):
    p = sub.add_parser("certify", help="proof certificates: replay one, or search and write one")
    cs = p.add_subparsers(dest="certify_command", required=True, parser_class=type(p))
    r = cs.add_parser("replay", help="check a certificate with the independent checker (exit 0 accepted, 1 rejected, "
                                      "2 unreadable)")
    r.add_argument("file", nargs="?", help="a certificate (.json or .json.gz)")
    r.add_argument("--committed", action="store_true", help="replay every committed certificate instead, on every core "
                   "(exit 0 if all are accepted)")
    r.add_argument("--quiet", action="store_true", help="no progress bar (with --committed)")
    r.set_defaults(func=_replay)
    for name, oracle, what in (("oracle", True, "prove (k*, v*) the unique global minimiser for every lam of LO:HI"),
                               ("minimum", False, "enclose the global minimum and its minimisers at a point lam")):
        s = cs.add_parser(name, help=what, allow_abbrev=False)
        _setting_args(s)
        s.add_argument("--lam", required=True, help="LO:HI (or one value) of the temperature lam")
        s.add_argument("--time-limit", type=float, default=900.0, help="seconds for the search (default 900)")
        s.set_defaults(func=(lambda a, o=oracle: _search(a, o)))
    s = cs.add_parser("window", help="enclose W's two ends to 8e-13 and prove the oracle the global minimiser between "
                      "them (one certificate)", allow_abbrev=False)
    _setting_args(s)
    s.add_argument("--lam-max", type=float, default=100.0, help="the end of the scanned range of lam (default 100; an "
                   "upper end of W above it is not looked for)")
    s.add_argument("--workers", type=int, default=cores(), help="processes of the branch and bound (default: one per "
                   f"core, {cores()} here)")
    s.add_argument("--time-limit", type=float, default=1800.0, help="seconds for the search (default 1800)")
    _scheduler_arg(s)
    s.set_defaults(func=_window)
    s = cs.add_parser("window-grid", help="W's ends proved at every setting of a grid (gamma^2 x d x L x eps) on Dask, "
                      "into a resumable Zarr store", allow_abbrev=False)
    for name, what in (("gamma2", "gamma^2"), ("d", "d (integers >= 4)"), ("L", "L (integers >= 1)"), ("eps", "eps")):
        s.add_argument(f"--{name}", required=name != "eps", default="0" if name == "eps" else None,
                       help=f"values of {what}: a,b,c or start:stop:num[:log]" + (" (default 0)" if name == "eps" else ""))
    refuse_gamma(s)
    s.add_argument("--lam-max", type=float, default=100.0, help="the end of the scanned range of lam, at most 1e4 "
                   "(default 100)")
    s.add_argument("--time-limit", type=float, default=1800.0, help="seconds per setting (default 1800)")
    s.add_argument("--workers", type=int, default=cores(), help=f"workers of the local cluster (default: one per core, "
                   f"{cores()} here; 1: in this process)")
    s.add_argument("--scheduler", default=None, help="'sync' (no Dask), 'local', or the address of a running scheduler "
                   "(`dask scheduler`, with `dask worker ADDRESS`); default a local cluster of --workers processes")
    s.add_argument("--out", required=True, help="the Zarr store (created, or resumed if it holds the same grid); the "
                   "certificates go to OUT/certificates/")
    s.add_argument("--quiet", action="store_true", help="no progress on stderr")
    s.set_defaults(func=_window_grid)
    s = cs.add_parser("step-size", help="Proposition 10: a certified bracket of alpha_max (det J of the reduced map > 0 "
                      "on the square below it: reduced PGD on M) at a point lam; beside it 2/lambda_max enclosed, the "
                      "step above which the oracle repels PGD on the spheres (Definition 1)", allow_abbrev=False)
    _setting_args(s)
    s.add_argument("--lam", required=True, help="the temperature lam (one value); the reduced map does not depend on "
                   "eps (it adds eps^2 to the risk on M), so the certificate states eps = 0 whatever --eps says")
    s.set_defaults(func=_step_size)
    _add_transverse(cs)
    add_tube_parser(cs)
    s = cs.add_parser("theorem5", help="Theorem 5 at an explicit step: alpha_5(lam) = min(alpha_8, alpha_12, 1/mu_+) "
                      "certified for every lam of LO:HI (Propositions 8, 12; Proposition 9 embedded; one certificate)",
                      allow_abbrev=False)
    _setting_args(s)
    s.add_argument("--lam", required=True, help="LO:HI of the temperature lam; PGD on M does not depend on eps, so the "
                   "certificate states eps = 0 whatever --eps says")
    s.add_argument("--ratio", type=float, default=0.25, help="relative width of a lam piece (default 0.25; smaller "
                   "pieces give larger steps at large lam)")
    s.add_argument("--json", action="store_true", help="print the pieces (lam, alpha_8, alpha_12, alpha_5, mu, delta, "
                   "...) as JSON")
    s.add_argument("--no-rate", action="store_true", help="skip the rate R1 (mu and delta stay null)")
    s.add_argument("--rate-lam-max", type=float, default=None, help="the rate R1 only on the pieces ending at or below "
                   "this lam (default: the pieces where the curvature along kappa at (1, 1) is at least 1e-3 gamma^2; "
                   "its search grows fast with lam, as mu falls like erfc(lam sqrt(d/2)): up to ~2 min a piece, its "
                   "estimate printed before it starts)")
    s.add_argument("--steps", type=float, default=None, metavar="EPS", help="also print, on each piece with a rate, the "
                   "certified number of steps after which R - R* <= EPS for every run on M from S_delta (below the "
                   "saddle's level), at the paper's steps and at alpha_5 (R1; runs from above the saddle's level: R2, "
                   "not certified)")
    s.add_argument("--workers", type=int, default=cores(), help="processes sharing the lam pieces (default: one per "
                   f"core, {cores()} here)")
    _scheduler_arg(s)
    s.set_defaults(func=_theorem5)
