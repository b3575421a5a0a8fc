"""Mutation run over the dynamics' certificate searches: no mutant gets a false statement accepted (issue 26, item 5).

The searches that write the dynamics' certificates are untrusted; only the checker,
:func:`slr_verify.checker.replay`, decides. This script mutates them and checks that whatever a mutant writes,
the checker accepts only true statements. The mutated modules:

* ``slr_verify/certify/reduced_map.py``: :func:`hessian_signs` (kind ``manifold-hessian-signs``) and
  :func:`alpha_diffeo` (kind ``reduced-map-diffeomorphism``: det J > 0 on [-1, 1]^2 x [0, A], det J(upper_at) < 0 at
  alpha_upper U);
* ``slr_verify/certify/family_proof.py``: :func:`off_M_family_minimality` (kind ``off-M-minimum``);
* ``slr_verify/certify/regions.py``: :func:`capture_certificate` (kind ``contraction-ball``), and
  ``slr_verify/certify/capture.py``, the ball's search (Newton centre, eigenbasis, radius bisection).

The mutation machinery is that of ``benchmarks/mutation_certificates.py``, imported, not copied: its ``sites`` (the AST
mutations: ``+`` <-> ``-``, ``*`` <-> ``/``, comparisons flipped, constants nudged, ``min`` <-> ``max``, ``and`` <->
``or``, ``True`` <-> ``False``, returned verdicts negated; f-strings skipped), ``apply``, ``_applies``,
``_checker_state``, ``write`` and ``check_out``. Two things there are wired to its own modules: ``apply`` names the
file through the module global ``MODULES`` (patched here: ``mutation_certificates.MODULES`` is set to this run's
``MODULES`` before any mutant is built), and ``sample`` allocates between ``globalmin`` and ``certificate`` by name
(replaced here by :func:`sample`, the same stratification by position with a kind drawn uniformly per stratum, over
four modules: each module at least ``--min-per-module`` mutants (or all its sites), the rest proportional to the
number of sites, largest remainders first). Its worker, judge, verdict and summary are specific to the oracle's cases
and are written here for these cases.

Cases, at Figure 4b's setting (gamma = sqrt(0.5), eps = 0, d = 400, L = 10):

* ``hessian``: ``hessian_signs(lam=(0.01, 1.0))``;
* ``diffeo``: ``alpha_diffeo(lam=0.1, alpha_numeric=alpha_max_grid(lam=0.1, n=81))`` (alpha_numeric computed once, in
  the parent, by the unmutated ``slr_verify.kernels.steps.alpha_max_grid``, and passed to every worker);
* ``offM``: ``off_M_family_minimality(lam=0.1)``;
* ``ball``: ``capture_certificate(contraction_ball((-0.237262, -0.999927, 0.011627, 0.003321, -0.009235),
  (1, 1, -1, -1, -1), lam=0.5, alpha=4e-3))``, the 2-cycle's ball; ``capture_certificate`` is called even when the
  ball is not proved (it must refuse; if a mutant lets it write, the checker must reject).

A mutant runs only the cases that execute its module: measured, not assumed, by the traced control (which lines of
which module each case runs); a module no case executes is a module-level mutation only, and runs every case. Each
mutant runs in a fresh subprocess (on a snapshot of the package taken at the start) that imports the modules, then
``exec(compile(mutated_source, M.__file__, "exec"), M.__dict__)`` replaces the module's functions in place; the
worker calls them through the module objects (``slr_verify.certify.contraction_ball``, re-exported by the package,
would still be the unmutated function). The checker's modules (``slr_verify.checker*``) and the ball kernels
both the search and the checker use (``slr_verify.checker.contraction``, ``.certified``, ``.family``, ``.landscape``,
``.balls``) are neither mutated nor reloaded (the worker verifies their attributes are unchanged by the exec).

Every certificate goes back to this (parent) process as JSON and is replayed by the unmutated checker, in a process
that never ran mutated code; each accepted statement is judged against independent float facts at the certificate's
own setting, lam and alpha (:class:`Judge`):

* diffeomorphism: the float64 det J of the reduced map (``reduced_map_kernels().J``, det = J0 J3 - J1 J2) at alpha = A
  on an 801^2 grid of [-1, 1]^2 plus local minimisations (L-BFGS-B) from the 5 lowest grid points, and at 20 step
  sizes in (0, A] on a 201^2 grid: "det J > 0 up to A" is false if the least value is < -TOL, undecided if within
  +-TOL; "det J(upper_at) < 0 at U" is false if the float det there is > TOL. a*, the float alpha_max (bisection of
  the 401^2 grid's least det), is reported beside it;
* Hessian signs: the float Hessians ``reduced_map_kernels().H[point]`` on 4001 geometric lam points of the
  certificate's interval (its ends included): a sign wrong by more than TOL times the entries' scale is false, a wrong
  sign within it undecided;
* off-M: theta*(+-1) (``slr_verify.dynamics.family_search.theta_star`` at 30 digits) must satisfy |theta*| < 1 and lie in
  the checker's enclosure (4 ulp slack); the tangent gradient there vanishes (``_refine_family``, < 1e-10); the
  finite-difference Riemannian Hessian (``finite_difference_spectrum``, m = 6) is a minimum with 3 flat (orbit)
  directions; a clearly negative eigenvalue (< -1e-3) is false, anything else short of that undecided;
* the ball: ``--ball-samples`` points x = c + T y with the group norm of y <= s (c, T, groups, s, sigma read from the
  certificate; half of them extreme points, every group at norm s), iterated ``--ball-iters`` times by the float
  five-overlap map G = sigma o Phi (the kernels of ``slr_verify.landscape.overlap_map.pgd_map``, vectorised; checked equal
  to ``pgd_map`` on the samples' first iterate): false if an iterate clearly leaves B (norm > s (1 + 1e-6)), or the
  iterates do not approach G^n(c) (the fixed point p; Phi^n = sigma^n G^n, so Phi's runs approach {p, sigma p}):
  their largest distance after the iterations above 0.1 times the initial one; undecided on non-finite values.

An unmutated control runs first (and once more traced); the run stops unless it proves every case and each statement
is judged true. Verdicts per mutant, first that applies: ``false-accepted`` (a checker bug, must be 0),
``undecided-accepted`` (reviewed by hand, should be 0), ``killed-by-checker`` (a certificate was rejected),
``killed-otherwise`` (crash, timeout, or a case not proved: no certificate, or the diffeomorphism without its upper
bound), ``survived`` (every accepted statement true).

Run (a few seconds per mutant; a shared 2-core machine: be nice)::

    nice -n 19 python benchmarks/mutation_dynamics_certificates.py --out benchmarks/results/mutation_dynamics_seed0.json

The --out JSON (rewritten after each mutant) holds the settings, the control, every mutant (site, replacement, diff,
each case's outcome, the checker's reason and the judge's) and the summary, which is also printed. The certificate
of an accepted statement not known to be true is kept beside it (``OUT.mutantI.CASE.json``).
"""
from __future__ import annotations

import argparse
import hashlib
import importlib
import json
import math
import os
import random
import subprocess
import sys
import tempfile
import time
import traceback
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import mutation_certificates as MC  # noqa: E402  (benchmarks/, for the mutation machinery)

ROOT = Path(__file__).resolve().parent.parent
#: the mutated modules, relative to the repository
MODULES = {"reduced_map": "slr_verify/certify/reduced_map.py", "family": "slr_verify/certify/family_proof.py",
           "regions": "slr_verify/certify/regions.py", "capture": "slr_verify/certify/capture.py"}
IMPORTS = {"reduced_map": "slr_verify.certify.reduced_map", "family": "slr_verify.certify.family_proof",
           "regions": "slr_verify.certify.regions", "capture": "slr_verify.certify.capture"}
#: MC.apply names the mutated file by MC.MODULES[site["module"]]: this run's modules
MC.MODULES = MODULES
#: trusted modules besides the checker's (used by the searches and the checker alike): a mutant must not alter them
TRUSTED = ("slr_verify.checker.contraction", "slr_verify.kernels.certified", "slr_verify.kernels.family_kernels",
           "slr_verify.kernels.landscape", "slr_verify.kernels.balls", "slr_verify.kernels.steps")
SETTING = {"gamma": math.sqrt(0.5), "eps": 0.0, "d": 400, "L": 10}
HESSIAN_LAM = (0.01, 1.0)
DIFFEO_LAM = OFFM_LAM = 0.1
BALL = {"o0": (-0.237262, -0.999927, 0.011627, 0.003321, -0.009235), "sigma": (1, 1, -1, -1, -1), "lam": 0.5,
        "alpha": 4e-3}
CASES = ("hessian", "diffeo", "offM", "ball")
KIND_OF_CASE = {"hessian": "manifold-hessian-signs", "diffeo": "reduced-map-diffeomorphism", "offM": "off-M-minimum",
                "ball": "contraction-ball"}
#: float round-off allowance on det J and the Hessian entries (relative to their scale)
TOL = 1e-12
MARK = "@@case "
VERDICTS = ["false-accepted", "undecided-accepted", "killed-by-checker", "killed-otherwise", "survived"]


# ------------------------------------------------------------------------------------------------------------ sampling

def sample(n, seed, sources, minimum=4):
    """A fixed-seed sample of ``n`` (site, replacement) over the four modules (see the module docstring): each module
    gets min(its sites, ``minimum``) at least, the rest in proportion to the sites (largest remainders); within a
    module, as ``mutation_certificates.sample``: consecutive strata by position, one mutant each, a kind drawn
    uniformly among the stratum's, then a site of that kind and a replacement that applies."""
    rng = random.Random(seed)
    by = {m: MC.sites(m, sources[m]) for m in MODULES}
    n = min(n, sum(map(len, by.values())))
    alloc = {m: min(len(v), minimum) for m, v in by.items()}
    rest = n - sum(alloc.values())
    free = {m: len(v) - alloc[m] for m, v in by.items()}
    tot = sum(free.values())
    if rest > 0 and tot:
        share = {m: rest * f / tot for m, f in free.items()}
        extra = {m: min(free[m], int(share[m])) for m in by}
        for m in sorted(by, key=lambda m: share[m] - int(share[m]), reverse=True):
            if sum(extra.values()) >= rest:
                break
            if extra[m] < free[m]:
                extra[m] += 1
        alloc = {m: alloc[m] + extra[m] for m in by}
    picked = MC.draw(rng, by, alloc, sources)
    return picked, {m: len(v) for m, v in by.items()}, alloc


# -------------------------------------------------------------------------------------------------------------- worker

def _trusted_state():
    """The checker's modules and the trusted kernels', with the ids of their attributes."""
    state = MC._checker_state()
    for k in TRUSTED:
        m = sys.modules.get(k)
        if m is not None:
            state[k] = (id(m), {n: id(v) for n, v in vars(m).items()})
    return state


def _run_case(name, mods, job):
    """One case with the (possibly mutated) modules: (proved, certificate or None, info)."""
    RM, F, Reg, Cap = mods["reduced_map"], mods["family"], mods["regions"], mods["capture"]
    g, d, L = SETTING["gamma"], SETTING["d"], SETTING["L"]
    if name == "hessian":
        r = RM.hessian_signs(lam=HESSIAN_LAM, gamma=g, d=d, L=L)
        return bool(r["proved"]), r["certificate"], {"lam_pieces": r.get("lam_pieces"), "failure": r.get("failure")}
    if name == "diffeo":
        r = RM.alpha_diffeo(lam=DIFFEO_LAM, gamma=g, d=d, L=L, alpha_numeric=job["alpha_numeric"])
        cert = r["certificate"]
        info = {k: r.get(k) for k in ("alpha_certified", "alpha_upper", "ratio", "boxes")}
        return cert is not None and r.get("alpha_upper") is not None, cert, info
    if name == "offM":
        r = F.off_M_family_minimality(lam=OFFM_LAM, gamma=g, d=d, L=L)
        return bool(r["proved"]), r["certificate"], {"minus_mu_k": r.get("minus_mu_k")}
    b = Cap.contraction_ball(BALL["o0"], BALL["sigma"], lam=BALL["lam"], alpha=BALL["alpha"], gamma=g, d=d, L=L)
    info = {"ball_proved": bool(b.proved), "radius": float(b.radius), "q": float(b.q), "r0": float(b.r0),
            "reason": str(b.reason)[:300]}
    try:  # called even for an unproved ball: it must refuse
        cert = Reg.capture_certificate(b)
    except ValueError as e:
        cert, info["refused"] = None, str(e)[:300]
    return bool(b.proved) and cert is not None, cert, info


def worker(job_path):
    """Run the cases of one job (a mutant, or the control) and print one ``MARK`` line of JSON per case."""
    job = json.loads(Path(job_path).read_text())
    import slr_verify.checker  # noqa: F401  (the checker's modules, before the state is taken)

    mods = {m: importlib.import_module(p) for m, p in IMPORTS.items()}
    for k in TRUSTED:
        importlib.import_module(k)
    before = _trusted_state()
    exec_error = None
    if job.get("module"):
        mod = mods[job["module"]]
        try:
            exec(compile(job["source"], mod.__file__, "exec"), mod.__dict__)  # the mutant replaces the module's functions
        except Exception as e:  # a module-level mutation that fails at import
            exec_error = f"{type(e).__name__}: {e}"[:400]
    intact = _trusted_state() == before
    executed = {}
    files = {mods[m].__file__: m for m in MODULES}
    out_dir = Path(job["dir"])
    for name in job["cases"]:
        rec = {"case": name, "checker_intact": intact}
        t0 = time.time()
        if job.get("trace"):
            lines = executed.setdefault(name, {})

            def local(frame, event, arg, lines=lines):
                if event == "line":
                    lines.setdefault(files[frame.f_code.co_filename], set()).add(frame.f_lineno)
                return local

            sys.settrace(lambda frame, event, arg: local(frame, "line", arg) if frame.f_code.co_filename in files
                         else None)
        try:
            if exec_error:
                raise RuntimeError(f"the mutated module does not load: {exec_error}")
            proved, cert, info = _run_case(name, mods, job)
            rec.update(status="returned", proved=proved, info=MC._jsonable(info), certificate=cert is not None)
            if cert is not None:
                try:
                    path = out_dir / f"{name}.json"
                    path.write_text(json.dumps(cert))
                    rec["file"] = str(path)
                except (TypeError, ValueError) as e:
                    rec["json_error"] = f"{type(e).__name__}: {e}"[:400]
        except Exception as e:  # a mutant may raise anything: recorded
            tb = traceback.extract_tb(e.__traceback__)
            at = next((f"{Path(f.filename).name}:{f.lineno}" for f in reversed(tb) if "slr_verify" in f.filename), "")
            rec.update(status="error", error=f"{type(e).__name__}: {e}"[:400], at=at)
        finally:
            if job.get("trace"):
                sys.settrace(None)
        rec["seconds"] = round(time.time() - t0, 2)
        print(MARK + json.dumps(rec), flush=True)
    if job.get("trace"):
        print(MARK + json.dumps({"executed": {c: {m: sorted(v) for m, v in e.items()} for c, e in executed.items()}}),
              flush=True)


# ---------------------------------------------------------------------------------------------------------- the parent

class Judge:
    """The unmutated checker (this process never runs mutated code) and the independent float facts."""

    def __init__(self, samples=300, iters=3000, seed=0):
        import numpy as np

        from slr_verify.checker import replay
        from slr_verify.kernels.landscape import fixed_point_kernels
        from slr_verify.kernels.steps import reduced_map_kernels

        self.np, self.replay, self.K, self.FK = np, replay, reduced_map_kernels(), fixed_point_kernels()
        self.samples, self.iters, self.seed, self.cache = samples, iters, seed, {}

    # -- the reduced map
    def _det(self, k, n, lam, g, d, L, a):
        J = [self.np.asarray(x, dtype=float) for x in self.K.J(k, n, lam, g, d, L, a)]
        return J[0] * J[3] - J[1] * J[2], abs(J[0] * J[3]) + abs(J[1] * J[2])

    def _grid_min(self, lam, g, d, L, a, n):
        np = self.np
        k, v = np.meshgrid(np.linspace(-1, 1, n), np.linspace(-1, 1, n))
        D, scale = self._det(k, v, lam, g, d, L, a)
        D = np.broadcast_to(D, k.shape)
        return D, k, v, float(np.max(scale))

    def alpha_star(self, lam, g, d, L):
        """The float alpha_max: the least alpha at which the 401^2 grid's det J is <= 0 somewhere (bisection)."""
        key = ("a*", lam, g, d, L)
        if key not in self.cache:
            bad = lambda a: float(self._grid_min(lam, g, d, L, a, 401)[0].min()) <= 0  # noqa: E731
            lo, hi = 0.0, 1e-3
            while not bad(hi) and hi < 1e8:
                lo, hi = hi, hi * 2
            for _ in range(60):
                mid = 0.5 * (lo + hi)
                lo, hi = (lo, mid) if bad(mid) else (mid, hi)
            self.cache[key] = lo if hi < 1e8 else math.inf
        return self.cache[key]

    def judge_diffeo(self, doc, values):
        from scipy.optimize import minimize

        np = self.np
        s = values["setting"]
        g, d, L, lam = s["gamma"], s["d"], s["L"], values["lam"][0]
        A = values["domain_alpha"][1]
        D, k, v, scale = self._grid_min(lam, g, d, L, A, 801)
        flat = np.argsort(D.ravel())[:5]
        least, where = float(D.ravel()[flat[0]]), (float(k.ravel()[flat[0]]), float(v.ravel()[flat[0]]))
        for i in flat:
            f = lambda x: float(self._det(x[0], x[1], lam, g, d, L, A)[0])  # noqa: E731
            r = minimize(f, [k.ravel()[i], v.ravel()[i]], method="L-BFGS-B", bounds=[(-1, 1), (-1, 1)])
            if r.fun < least:
                least, where = float(r.fun), (float(r.x[0]), float(r.x[1]))
        for a in np.linspace(0, A, 21)[1:-1]:
            Da, ka, va, sc = self._grid_min(lam, g, d, L, float(a), 201)
            if float(Da.min()) < least:
                i = int(np.argmin(Da))
                least, where = float(Da.ravel()[i]), (float(ka.ravel()[i]), float(va.ravel()[i]), float(a))
            scale = max(scale, sc)
        tol = TOL * max(1.0, scale)
        astar = self.alpha_star(lam, g, d, L)
        facts = f"A = {A!r}, float alpha_max a* = {astar!r}, least float det J on [0, A] = {least:.3e} at {where}"
        parts = []
        if least < -tol:
            return False, f"det J > 0 up to A is false: {facts} < -{tol:.1e}"
        parts.append(None if least <= tol else True)
        U = values.get("alpha_upper")
        if U is not None:
            at = doc.get("upper_at", [0.0, 0.0])
            du = float(self._det(float(at[0]), float(at[1]), lam, g, d, L, U)[0])
            facts += f"; float det J({at[0]!r}, {at[1]!r}) at U = {U!r} is {du:.3e}"
            if du > tol:
                return False, f"det J(upper_at) < 0 at U is false: {facts}"
            parts.append(None if du >= -tol else True)
        if None in parts:
            return None, f"within round-off ({tol:.1e}): {facts}"
        return True, facts

    def judge_hessian(self, doc, values):
        np = self.np
        s = values["setting"]
        g, d, L = s["gamma"], s["d"], s["L"]
        lo, hi = values["lam"]
        lam = np.unique(np.concatenate([np.geomspace(lo, hi, 4001), [lo, hi]]))
        undecided = []
        for pt, f in self.K.H.items():
            h = [np.broadcast_to(np.asarray(x, dtype=float), lam.shape) for x in f(lam, g, d, L)]
            tol = TOL * np.max(np.abs(h), axis=0)  # the entries' scale at each lam
            if tuple(pt) == (0, 0):
                det = h[0] * h[3] - h[1] * h[2]
                dtol = TOL * (abs(h[0] * h[3]) + abs(h[1] * h[2]))
                wrong, tiny = det > dtol, det >= -dtol
            else:
                sgn = 1 if (pt[0] == pt[1]) else -1  # (1, 1), (-1, -1) minima; (1, -1), (-1, 1) maxima
                diag = np.array([sgn * h[0], sgn * h[3]])
                wrong = np.any(diag < -tol, axis=0) | (h[1] != 0) | (h[2] != 0)
                tiny = np.any(diag <= 0, axis=0)
            if np.any(wrong):
                i = int(np.argmax(wrong))
                return False, f"at lam = {lam[i]!r} the float Hessian at {tuple(pt)} is {[float(x[i]) for x in h]}"
            if np.any(tiny):
                undecided.append(f"{tuple(pt)} at lam = {lam[int(np.argmax(tiny))]!r}")
        if undecided:
            return None, f"signs within round-off: {undecided}"
        return True, f"the float Hessians have Proposition 9's signs at {len(lam)} lam in [{lo!r}, {hi!r}]"

    def judge_offM(self, doc, values):
        import mpmath

        from slr_verify.dynamics.family_search import _refine_family, finite_difference_spectrum, theta_star

        s = values["setting"]
        g, d, L, lam = s["gamma"], s["d"], s["L"], values["lam"][0]
        th = {int(k): v for k, v in values["theta_star"].items()}
        facts = []
        for eta in (1, -1):
            with mpmath.workdps(30):
                t = theta_star(mpmath.mpf(lam), mpmath.sqrt(mpmath.mpf(g) ** 2), d, eta)
                tf = float(t)
            a, b = th[eta]
            slack = 4 * math.ulp(abs(tf))
            if not abs(tf) < 1:
                return False, f"|theta*({eta})| = {abs(tf)!r} is not < 1"
            if not (a - slack <= tf <= b + slack):
                return False, f"theta*({eta}) = {tf!r} is not in the accepted [{a!r}, {b!r}]"
            _, _, (tk, tv) = _refine_family(eta, lam, g, d, L)
            if max(abs(float(tk)), abs(float(tv))) > 1e-10:
                return False, f"the tangent gradient at theta*({eta}) is ({float(tk)!r}, {float(tv)!r}), not 0"
            facts.append(f"theta*({eta}) = {tf!r} in the enclosure, tangent gradient 0")
        sp = finite_difference_spectrum(float(theta_star(lam, g, d, 1)), 1, lam=lam, gamma=g, d=d, L=L)
        ev = [float(x) for x in sp["hessian_eigenvalues"]]
        if min(ev) < -1e-3:
            return False, f"the finite-difference Hessian at eta = 1 has an eigenvalue {min(ev):.4g} < 0: {ev}"
        if sp["kind"] != "minimum" or sp["n_flat"] != 3:
            return None, f"finite-difference spectrum {sp['kind']}, {sp['n_flat']} flat: {ev}"
        return True, "; ".join(facts) + f"; finite-difference Hessian: a minimum, 3 flat (orbit) directions, least " \
                                        f"other eigenvalue {min(e for e in ev if abs(e) >= 1e-5):.4g}"

    def _G(self, X, sigma, lam, g, e, d, L, alpha):
        """G = sigma o Phi, float64, on the columns of X (5, n): the kernels of capture.pgd_map, vectorised."""
        np = self.np
        n = X.shape[1]
        r = [np.broadcast_to(np.asarray(x, dtype=float), (n,)) for x in self.FK.risk_f64(*X, lam, g, e, d, L)]
        m = [np.broadcast_to(np.asarray(x, dtype=float), (n,)) for x in self.FK.map_f64(*X, *r[1:6], alpha)]
        return np.asarray(sigma, dtype=float)[:, None] * np.array(m[:5])

    def judge_ball(self, doc, values):
        from slr_verify.landscape.overlap_map import pgd_map

        np = self.np
        s = values["setting"]
        g, e, d, L = s["gamma"], s["eps"], s["d"], s["L"]
        lam, alpha = values["lam"][0], doc["domain"]["alpha"][0]
        leaf = doc["leaves"][0]
        c, T = np.array(leaf["centre"], dtype=float), np.array(leaf["T"], dtype=float)
        groups, rad, sigma = [list(x) for x in leaf["groups"]], float(leaf["radius"]), list(leaf["sigma"])
        rng = np.random.default_rng(self.seed)
        n = self.samples
        Y = np.zeros((5, n))
        for gr in groups:
            u = rng.normal(size=(len(gr), n))
            u /= np.linalg.norm(u, axis=0)
            r = rad * rng.random(n) ** (1 / len(gr))
            r[: n // 2] = rad  # extreme points: every group at norm s
            Y[gr] = u * r
        X = c[:, None] + T @ Y
        norm = lambda Z: np.max([np.linalg.norm(np.linalg.solve(T, Z)[gr], axis=0) for gr in groups], axis=0)  # noqa
        Z = np.concatenate([c[:, None], X], axis=1)
        Z1 = self._G(Z, sigma, lam, g, e, d, L, alpha)
        ref = pgd_map(Z[:, 1], sigma, lam=lam, gamma=g, d=d, L=L, alpha=alpha)[0] if e == 0 else Z1[:, 1]
        if not np.allclose(ref, Z1[:, 1], rtol=0, atol=1e-14):
            return None, f"the vectorised map differs from pgd_map: {ref} vs {Z1[:, 1]}"
        d0 = float(np.max(norm(X - c[:, None])))
        worst = 0.0
        for it in range(self.iters):
            Z = Z1 if it == 0 else self._G(Z, sigma, lam, g, e, d, L, alpha)
            if not np.all(np.isfinite(Z)):
                return None, f"non-finite iterates after {it + 1} steps"
            out = norm(Z[:, 1:] - c[:, None])
            worst = max(worst, float(np.max(out)))
            if np.max(out) > rad * (1 + 1e-6):
                i = int(np.argmax(out))
                return False, (f"G maps a point of B outside B: after {it + 1} steps sample {i} is at norm "
                               f"{float(out[i])!r} > s = {rad!r}")
        dist = float(np.max(norm(Z[:, 1:] - Z[:, :1])))
        step = float(norm(self._G(Z[:, :1], sigma, lam, g, e, d, L, alpha) - Z[:, :1])[0])
        facts = (f"{n} samples of B (s = {rad!r}) iterated {self.iters} times by G: largest norm {worst:.6g}, distance "
                 f"to G^n(c) {d0:.3g} -> {dist:.3g}, |G(p) - p| = {step:.2g}")
        if dist > 0.1 * d0:
            return False, "the iterates do not approach the fixed point p of G: " + facts
        return True, facts

    def truth(self, doc, values):
        kind = values.get("kind")
        fn = {"reduced-map-diffeomorphism": self.judge_diffeo, "manifold-hessian-signs": self.judge_hessian,
              "off-M-minimum": self.judge_offM, "contraction-ball": self.judge_ball}.get(kind)
        if fn is None:
            return None, f"kind {kind!r} is not one this run can judge"
        try:
            return fn(doc, values)
        except Exception as e:  # a setting the float facts cannot take
            return None, f"no float facts: {type(e).__name__}: {e}"[:400]

    def judge(self, rec):
        """Replay the case's certificate with the unmutated checker and judge its statement; adds ``outcome``."""
        if rec.get("file"):
            doc = json.loads(Path(rec["file"]).read_text())
            rec["checker"], r = MC.checker_record(self.replay, doc)
            if r is not None:
                rec["checker"].update(conclusion=(r.conclusion or "")[:1200],
                                      sha256=hashlib.sha256(json.dumps(doc, sort_keys=True).encode()).hexdigest())
                if r.accepted:
                    t0 = time.time()
                    rec["true"], rec["why"] = self.truth(doc, r.values)
                    rec["judge_seconds"] = round(time.time() - t0, 2)
        rec["outcome"] = MC.outcome(rec, rec.get("checker", {}).get("accepted"))
        return rec


def run_job(job, timeout, judge, tmp, snap):
    """Run one job in a fresh subprocess on the snapshot ``snap`` (:func:`mutation_certificates.run_worker`); its case
    records, judged."""
    recs, executed, timed_out, code, tail, seconds = MC.run_worker(__file__, job, timeout, tmp, snap)
    out = {}
    for name in job["cases"]:
        rec = recs.get(name) or {"case": name, "status": "timeout" if timed_out else "no result"}
        out[name] = judge.judge(rec)
    return {"cases": out, "seconds": seconds, "returncode": code, "timed_out": timed_out, "stderr_tail": tail,
            "executed": executed}


def verdict(cases):
    """The mutant's verdict from its judged cases (see the module; the checker's part:
    :func:`mutation_certificates.checker_verdict`)."""
    if MC.checker_verdict(cases):
        return MC.checker_verdict(cases)
    if any(c["outcome"] != "accepted" or not c.get("proved") for c in cases.values()):
        return "killed-otherwise"
    return "survived"


def _same(a, b):
    """The same outcome and, when accepted, the same certificate as the control's."""
    if a["outcome"] != b["outcome"]:
        return False
    return a["outcome"] != "accepted" or a.get("checker", {}).get("sha256") == b.get("checker", {}).get("sha256")


def summarise(mutants, control):
    out = MC.summary_of(mutants, control, list(CASES), _same)
    out["per_module"] = {m: {v: sum(x["verdict"] == v for x in mutants if x["module"] == m) for v in VERDICTS}
                         for m in MODULES}
    return out


def table(summary):
    per_module = [f"{'module':<12}" + "".join(f"{v:>20}" for v in VERDICTS)]
    per_module += [f"{m:<12}" + "".join(f"{c[v]:>20}" for v in VERDICTS) for m, c in summary["per_module"].items()]
    rows = MC.summary_rows(summary, "crash, timeout, a case not proved")
    return MC.rows_and_cases(rows, summary["per_case"], middle=[*per_module, ""])


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", help="the results, a .json file (checked writable before the run)")
    ap.add_argument("--max-mutants", type=int, default=40, help="mutation sites sampled (default 40)")
    ap.add_argument("--min-per-module", type=int, default=4, help="mutants per module at least (default 4)")
    ap.add_argument("--seed", type=int, default=0, help="seed of the sample and of the ball's samples (default 0)")
    ap.add_argument("--timeout", type=float, default=150.0, help="seconds per mutant, all its cases (default 150)")
    ap.add_argument("--ball-samples", type=int, default=300, help="points sampled in a certified ball (default 300)")
    ap.add_argument("--ball-iters", type=int, default=3000, help="iterations of G per ball sample (default 3000)")
    ap.add_argument("--wall-limit", type=float, default=None, help="start no new mutant after this many seconds")
    ap.add_argument("--worker", help=argparse.SUPPRESS)
    a = ap.parse_args(argv)
    if a.worker:
        return worker(a.worker)
    if not a.out:
        ap.error("--out is required")
    if a.max_mutants < 1 or a.timeout <= 0 or a.ball_samples < 2 or a.ball_iters < 1:
        ap.error("--max-mutants, --timeout, --ball-samples and --ball-iters must be positive")
    out = MC.check_out(a.out)
    t_start = time.time()
    with tempfile.TemporaryDirectory(prefix="mutdyn-") as tmp:
        snap = MC.snapshot(tmp)
        sources = {m: (snap / p).read_text() for m, p in MODULES.items()}
        picked, n_sites, alloc = sample(a.max_mutants, a.seed, sources, a.min_per_module)
        from slr_verify.kernels.steps import alpha_max_grid

        assert Path(alpha_max_grid.__code__.co_filename).resolve().is_relative_to(snap.resolve()), "not the snapshot"
        alpha_numeric = alpha_max_grid(lam=DIFFEO_LAM, gamma=SETTING["gamma"], d=SETTING["d"], L=SETTING["L"], n=81)
        judge = Judge(a.ball_samples, a.ball_iters, a.seed)
        files = sorted(["slr_verify/certify/" + p.name for p in (snap / "slr_verify/certify").glob("replay*.py")]
                       + list(MODULES.values()))
        head = subprocess.run(["git", "rev-parse", "HEAD"], cwd=ROOT, capture_output=True, text=True).stdout.strip()
        doc = {"meta": {"script": "benchmarks/mutation_dynamics_certificates.py", "argv": sys.argv[1:], "seed": a.seed,
                        "max_mutants": a.max_mutants, "min_per_module": a.min_per_module, "timeout": a.timeout,
                        "wall_limit": a.wall_limit, "setting": SETTING, "cases": list(CASES),
                        "case_arguments": {"hessian": {"lam": HESSIAN_LAM},
                                           "diffeo": {"lam": DIFFEO_LAM, "alpha_numeric": alpha_numeric},
                                           "offM": {"lam": OFFM_LAM}, "ball": BALL},
                        "tol": TOL, "ball_samples": a.ball_samples, "ball_iters": a.ball_iters, "sites": n_sites,
                        "allocation": alloc, "git_head": head,
                        "sha256": {f: hashlib.sha256((snap / f).read_bytes()).hexdigest() for f in files},
                        "started": time.strftime("%Y-%m-%d %H:%M:%S"), "nice": os.nice(0)},
               "control": None, "mutants": [], "summary": None}
        MC.write(out, doc)
        base = {"cases": list(CASES), "alpha_numeric": alpha_numeric, "module": None, "source": None}
        print(f"control (unmutated; sites {n_sites}, {len(picked)} sampled: {alloc}) ...", file=sys.stderr)
        control = run_job(dict(base, dir=tmp), a.timeout * 2, judge, tmp, snap)
        traced = run_job(dict(base, dir=tmp, trace=True), a.timeout * 4, judge, tmp, snap)
        executed = traced["executed"] or {}
        control["executed_lines"] = executed
        control["verdict"] = verdict(control["cases"])
        ok = control["verdict"] == "survived" and all(c.get("true") is True for c in control["cases"].values()) \
            and all(c["outcome"] == "accepted" and c.get("true") is True for c in traced["cases"].values())
        # which cases run each module (module-level code, run at import, is outside every case)
        runs = {m: [c for c in CASES if executed.get(c, {}).get(m)] for m in MODULES}
        doc["meta"]["cases_of_module"] = runs
        doc["control"] = control
        MC.write(out, doc)
        if not ok:
            raise SystemExit(f"the unmutated control does not behave ({control['verdict']}): see {out}")
        print(f"control: {control['seconds']} s; cases of each module: {runs}", file=sys.stderr)
        for i, (site, rep) in enumerate(picked):
            if a.wall_limit is not None and time.time() - t_start > a.wall_limit:
                doc["meta"]["stopped_by_wall_limit_after"] = i
                break
            source, diff = MC.apply(site, rep, sources[site["module"]])
            cases = runs[site["module"]] or list(CASES)
            with tempfile.TemporaryDirectory(dir=tmp) as d:
                res = run_job(dict(base, cases=cases, dir=d, module=site["module"], source=source), a.timeout, judge,
                              d, snap)
                res.pop("executed")
                ran = set().union(*(executed.get(c, {}).get(site["module"], []) for c in CASES))
                m = MC.mutant_record(i, site, rep, diff, ran, res, out)
                m["verdict"] = verdict(res["cases"])
            doc["mutants"].append(m)
            doc["summary"] = summarise(doc["mutants"], control)
            doc["meta"]["seconds"] = round(time.time() - t_start, 1)
            MC.write(out, doc)
            s = doc["summary"]
            print(f"mutant {i + 1}/{len(picked)} {site['module']}:{site['line']} {site['kind']}: {m['verdict']} "
                  f"({res['seconds']} s) [checker {s['killed-by-checker']}, other {s['killed-otherwise']}, "
                  f"survived {s['survived']}, undecided {s['undecided-accepted']}, FALSE {s['false-accepted']}]",
                  file=sys.stderr, flush=True)
    doc["summary"] = summarise(doc["mutants"], control)
    doc["meta"]["seconds"] = round(time.time() - t_start, 1)
    doc["meta"]["finished"] = time.strftime("%Y-%m-%d %H:%M:%S")
    MC.write(out, doc)
    return MC.report(doc, out, table(doc["summary"]))


if __name__ == "__main__":
    sys.exit(main())
