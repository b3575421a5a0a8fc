"""The bad-input probe: every public function and CLI subcommand fed bad or extreme values.

A probe is one call (Python) or one command line (CLI) with one offending value. Its outcome is
*clear* when the call

* raises ``ValueError`` or ``TypeError`` whose message names the offending parameter, or
* returns a finite result (the value is legitimate: the large-d limit, a huge but representable
  lam, ...), or
* (CLI) exits 1 or 2 with exactly one line on stderr that names the option, and no traceback,

and *unclear* otherwise: another exception (OverflowError, ZeroDivisionError, a deep TypeError),
a message that does not name the parameter, NaN or infinity in the result, a traceback, a hang
(no answer within the probe's time limit).

``python tests/bad_input_probes.py`` runs them all and prints the tally (and every unclear case).
"""
from __future__ import annotations

import contextlib
import io
import os
import re
import signal
import subprocess
import sys
import tempfile
from dataclasses import dataclass, field

import numpy as np

P = dict(lam=0.1, gamma=0.5**0.5, eps=0.0, d=400, L=10)
OV = (0.5, 0.5, 0.0, 0.0, 0.0)

#: the bad values every numeric parameter gets (label -> value)
BAD = {
    "nan": float("nan"),
    "inf": float("inf"),
    "-inf": float("-inf"),
    "negative": -1.0,
    "zero": 0,
    "huge": 1e300,
    "string": "0.5",
    "bool": True,
    "complex": 0.5 + 0j,
    "None": None,
    "empty": [],
    "wrong shape": [[0.5, 0.5], [0.5, 0.5], [0.5, 0.5]],
}

#: extreme but legitimate-looking magnitudes (1e100 to 1e300): each must be computed or refused by name
EXTREME = {"1e100": 1e100, "1e155": 1e155, "1e300": 1e300}


@dataclass
class Probe:
    ident: str
    param: str           # the name the error must contain
    call: object = None  # a zero-argument callable (Python probes)
    argv: list = field(default_factory=list)  # CLI probes
    timeout: float = 20.0
    finite_ok: bool = True  # a finite result is acceptable (else the call must raise)
    cheap: bool = False  # refused before any computation: also run by the default tests (test_bad_input)
    value_error: bool = False  # only a ValueError is clear (not Python's TypeError)


def _finite(x) -> bool:
    """True when every number inside x (scalars, arrays, dicts, tuples, objects with arrays) is finite."""
    if x is None:
        return True
    if isinstance(x, dict):
        return all(_finite(v) for v in x.values())
    if isinstance(x, (list, tuple)):
        return all(_finite(v) for v in x)
    if isinstance(x, (bool, str, bytes)):
        return True
    if isinstance(x, (int, float, complex, np.number, np.ndarray)):
        a = np.asarray(x)
        return a.dtype.kind not in "fc" or bool(np.all(np.isfinite(a)))
    try:
        import mpmath

        if isinstance(x, mpmath.mpf):
            return bool(mpmath.isfinite(x))
    except ImportError:  # pragma: no cover
        pass
    d = getattr(x, "__dict__", None)
    if d:
        return all(_finite(v) for k, v in d.items() if not k.startswith("_") and k != "settings")
    return True


class _Timeout(BaseException):
    pass


def _alarm(signum, frame):
    raise _Timeout()


def run_python(p: Probe):
    """(clear: bool, detail: str)."""
    old = signal.signal(signal.SIGALRM, _alarm)
    signal.setitimer(signal.ITIMER_REAL, p.timeout)
    err = io.StringIO()
    try:
        with contextlib.redirect_stderr(err):
            out = p.call()
    except _Timeout:
        return False, f"no answer in {p.timeout:g} s"
    except (ValueError, TypeError) as exc:
        msg = str(exc)
        ok = _names(msg, p.param) and not (p.value_error and not isinstance(exc, ValueError))
        return ok, f"{type(exc).__name__}: {msg[:160]}"
    except BaseException as exc:  # noqa: BLE001 - the probe classifies everything
        return False, f"{type(exc).__name__}: {str(exc)[:160]}"
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, old)
    if not p.finite_ok:
        return False, f"returned {str(out)[:100]} (must raise)"
    return _finite(out), f"returned {str(out)[:100]}"


def _names(message: str, param: str) -> bool:
    """The message names the parameter as a word: as the option (--max-steps) or as the Python name (max_steps); "L"
    is not named by "Maximum allowed dimension", nor "n" by "n_train"."""
    m = message.lower()
    bare = param.lower().lstrip("-")
    return any(re.search(r"(?<![a-z0-9_])" + re.escape(name) + r"(?![a-z0-9_])", m)
               for name in {param.lower(), bare, bare.replace("-", "_")})


def run_cli(p: Probe, cwd=None):
    """Run ``python -m slr_verify *argv`` in a subprocess; (clear, detail)."""
    env = dict(os.environ)
    try:
        r = subprocess.run([sys.executable, "-m", "slr_verify", *p.argv], capture_output=True, text=True,
                           timeout=p.timeout, env=env, cwd=cwd)
    except subprocess.TimeoutExpired:
        return False, f"no answer in {p.timeout:g} s"
    lines = [x for x in r.stderr.splitlines() if "error" in x.lower() or "Traceback" in x]
    if r.returncode == 0:
        return p.finite_ok, "exit 0"
    tb = "Traceback" in r.stderr
    ok = r.returncode in (1, 2) and not tb and len(lines) == 1 and _names(lines[0], p.param)
    return ok, f"exit {r.returncode}: {(lines[-1] if lines else r.stderr.strip()[-160:])[:200]}"


# ---------------------------------------------------------------------------------------------
# the probes
# ---------------------------------------------------------------------------------------------

def _vary(fn, base: dict, names, values=None, prefix=""):
    """One probe per (parameter, bad value): fn(**dict(base, name=value))."""
    values = BAD if values is None else values
    out = []
    for name in names:
        for label, val in values.items():
            out.append(Probe(f"{prefix}{fn.__name__}({name}={label})", name,
                             (lambda fn=fn, kw=dict(base, **{name: val}): fn(**kw))))
    return out


def python_probes(fast=False):  # noqa: C901, PLR0915 - a table of probe cases (one append each): split, it would scatter the table
    import slr_verify as S
    from slr_verify.model.params import Params

    ov = dict(zip(("kappa", "nu", "theta", "eta", "rho"), OV))
    probes = []
    main_vals = BAD if not fast else {k: BAD[k] for k in ("nan", "string", "bool", "huge")}
    params = ("lam", "gamma", "eps", "d", "L")

    # the validated kernels: every parameter, every bad value
    probes += _vary(S.risk, dict(ov, **P), ("kappa", "rho") + params, main_vals)
    probes += _vary(S.risk_gradient, dict(ov, **P), params, main_vals)
    probes += _vary(S.oracle_risk, dict(P), params, main_vals)
    probes += _vary(S.zeta, dict(t=0.5, g=0.5), ("t", "g"), main_vals)
    probes += _vary(S.linear_risk, dict(gamma=P["gamma"], eps=0.0, L=10), ("gamma", "eps", "L"), main_vals)
    probes += _vary(lambda **kw: Params(**kw), dict(P), params, main_vals, prefix="Params")

    # the extreme values: computed finite, or refused by name (arrays and scalars)
    ext = dict(EXTREME, **{"10**400": 10**400})
    for name in params:
        probes += _vary(S.risk, dict(ov, **P), (name,), ext)
        probes += _vary(S.oracle_risk, dict(P), (name,), ext)
        arr = {k: np.array([v, v]) for k, v in EXTREME.items()}
        probes += _vary(S.risk, dict(ov, **P), (name,), arr, prefix="array ")
    probes += _vary(S.risk_gradient, dict(ov, **P), ("lam", "eps", "d"), EXTREME)

    # broadcasting: the error names the arrays
    two, three = np.array([0.5, 0.5]), np.array([0.1, 0.2, 0.3])
    probes.append(Probe("risk(kappa (2,), lam (3,))", "lam", lambda: S.risk(two, 0.5, 0, 0, 0, **dict(P, lam=three))))
    probes.append(Probe("oracle_risk(lam (3,), gamma (2,))", "gamma", lambda: S.oracle_risk(**dict(P, lam=three, gamma=two))))
    probes.append(Probe("linear_risk(gamma (2,), eps (3,))", "eps", lambda: S.linear_risk(gamma=two, eps=three, L=3)))
    probes.append(Probe("zeta(t (2,), g (3,))", "g", lambda: S.zeta(two, three)))

    # the independent routes: the claimed digits or an error
    probes.append(Probe("quad_risk(d=1e100, dps=15)", "d", lambda: _quad_vs_kernel(1e100, 15), timeout=60))
    probes.append(Probe("quad_risk(d=1e300)", "d", lambda: _quad_vs_kernel(1e300, 30), timeout=60))
    probes.append(Probe("quad_risk(dps=100000)", "dps", lambda: S.quad_risk(*OV, **P, dps=100000), timeout=10))
    probes.append(Probe("quad_risk(dps=5.5)", "dps", lambda: S.quad_risk(*OV, **P, dps=5.5)))
    probes.append(Probe("quad_risk(dps=True)", "dps", lambda: S.quad_risk(*OV, **P, dps=True)))
    probes.append(Probe("quad_zeta(g=nan)", "g", lambda: S.quad_zeta(0.5, float("nan"))))
    probes.append(Probe("quad_risk_gradient(method=bogus)", "method",
                        lambda: S.quad_risk_gradient(*OV, **P, method="bogus")))
    k, v, ks, vs = _vectors(20)
    kwmc = dict(lam=0.1, gamma=P["gamma"], eps=0.0, L=10, n=1000, seed=0)
    probes.append(Probe("mc_risk(n=10**15)", "n", lambda: S.mc_risk(k, v, ks, vs, **dict(kwmc, n=10**15)), timeout=10))
    probes.append(Probe("mc_risk(seed=1.5)", "seed", lambda: S.mc_risk(k, v, ks, vs, **dict(kwmc, seed=1.5))))
    probes.append(Probe("mc_risk(n=0)", "n", lambda: S.mc_risk(k, v, ks, vs, **dict(kwmc, n=0))))
    probes.append(Probe("mc_risk(predictor=bogus)", "predictor",
                        lambda: S.mc_risk(k, v, ks, vs, **dict(kwmc, predictor="bogus"))))
    probes.append(Probe("mc_risk_overlaps(n=10**15)", "n",
                        lambda: S.mc_risk_overlaps(*OV, d=400, **dict(kwmc, n=10**15)), timeout=10))
    probes.append(Probe("mc_risk(lam=1e300)", "lam", lambda: S.mc_risk(k, v, ks, vs, **dict(kwmc, lam=1e300))))

    # the runners: secondary parameters and lam schedules
    kw = dict(lam=0.1, gamma=P["gamma"], d=400, L=10, alpha=4e-3, steps=5)
    probes += _vary(lambda **a: S.overlap_pgd(OV, **a), kw, ("alpha", "steps", "every"), main_vals, prefix="overlap_pgd")
    for label, lam in _bad_schedules().items():
        probes.append(Probe(f"overlap_pgd(lam={label})", "lam", lambda lam=lam: S.overlap_pgd(OV, **dict(kw, lam=lam))))
        probes.append(Probe(f"reduced_pgd(lam={label})", "lam", lambda lam=lam: S.reduced_pgd(0.5, 0.5, **dict(kw, lam=lam))))
    probes.append(Probe("overlap_pgd(lam=1e300)", "lam", lambda: S.overlap_pgd(OV, **dict(kw, lam=1e300))))
    probes.append(Probe("overlap_pgd(gamma=1e100)", "gamma", lambda: S.overlap_pgd(OV, **dict(kw, gamma=1e100))))
    probes.append(Probe("overlap_pgd(alpha=1e300)", "alpha", lambda: S.overlap_pgd(OV, **dict(kw, alpha=1e300))))
    probes.append(Probe("overlap_pgd(backend=bogus)", "backend", lambda: S.overlap_pgd(OV, **dict(kw, backend="bogus"))))
    probes.append(Probe("overlap_pgd(overlaps=(0.5,))", "overlaps", lambda: S.overlap_pgd((0.5,), **kw)))
    probes.append(Probe("overlap_pgd(steps=10**12)", "steps", lambda: S.overlap_pgd(OV, **dict(kw, steps=10**12)), timeout=10))
    probes.append(Probe("pgd(dtype=int)", "dtype", lambda: S.pgd(k, v, ks, vs, **dict(_nod(kw), dtype=int))))
    probes.append(Probe("pgd(k0 wrong shape)", "k0", lambda: S.pgd(k[:5], v, ks, vs, **_nod(kw))))
    probes.append(Probe("pgd(lam=1e300)", "lam", lambda: S.pgd(k, v, ks, vs, **dict(_nod(kw), lam=1e300))))
    from slr_verify.dynamics import sgd

    kws = dict(lam=0.1, gamma=P["gamma"], eps=0.0, L=10, alpha=1e-3, steps=3, batch=5, seed=0)
    probes += _vary(lambda **a: sgd(k, v, ks, vs, **a), kws, ("batch", "seed", "block"),
                    {x: BAD[x] for x in ("nan", "negative", "zero", "string", "bool", "None", "huge")}, prefix="sgd")

    # multi-head: Gram matrices, heads
    from slr_verify.dynamics.multihead import multihead_pgd
    from slr_verify.kernels.multihead import gram_of

    H = K = 1
    rng = np.random.default_rng(0)
    from slr_verify.model.multilocation import random_heads, random_locations

    Kh, Vh = random_heads(H, 20, rng)
    Ks, Vs = random_locations(K, 20, rng)
    G0 = gram_of(Kh, Vh, Ks, Vs)
    kmh = dict(lam=0.5, gamma=P["gamma"], eps=0.0, d=20, L=10, alpha=1e-3, steps=3)
    notpsd = G0.copy()
    notpsd[0, 1] = notpsd[1, 0] = 0.999
    notpsd[0, 2] = notpsd[2, 0] = -0.999
    notpsd[1, 2] = notpsd[2, 1] = 0.999
    fives = np.where(np.eye(4, dtype=bool), 1.0, 5.0)
    fives[2, 3] = fives[3, 2] = 0.0
    probes.append(Probe("multihead_pgd(gram0 not PSD)", "gram0", lambda: multihead_pgd(notpsd, H, K, **kmh)))
    probes.append(Probe("multihead_pgd(gram0 entries 5)", "gram0", lambda: multihead_pgd(fives, H, K, **kmh)))
    probes.append(Probe("multihead_pgd(gram0 rank > d)", "gram0", lambda: multihead_pgd(G0, H, K, **dict(kmh, d=2))))
    for label, lam in _bad_schedules().items():
        probes.append(Probe(f"multihead_pgd(lam={label})", "lam", lambda lam=lam: multihead_pgd(G0, H, K, **dict(kmh, lam=lam))))
    probes.append(Probe("multihead_pgd(H=True)", "H", lambda: multihead_pgd(G0, True, K, **kmh)))
    probes.append(Probe("multihead_risk(lam=1e300)", "lam",
                        lambda: S.multihead_risk(Kh, Vh, Ks, Vs, lam=1e300, gamma=P["gamma"], eps=0.0, L=10)))
    probes.append(Probe("multihead_risk(gamma=1e100)", "gamma",
                        lambda: S.multihead_risk(Kh, Vh, Ks, Vs, lam=0.5, gamma=1e100, eps=0.0, L=10)))
    probes.append(Probe("multihead_risk(eps=1e155)", "eps",
                        lambda: S.multihead_risk(Kh, Vh, Ks, Vs, lam=0.5, gamma=P["gamma"], eps=1e155, L=10)))
    probes.append(Probe("multihead_risk(K wrong shape)", "K",
                        lambda: S.multihead_risk(Kh[0], Vh, Ks, Vs, lam=0.5, gamma=P["gamma"], eps=0.0, L=10)))

    # the landscape and the certificates: secondary parameters
    from slr_verify.certify import alpha_attract, hessian_signs, off_M_family_point, sample_basins, stationary_points_on_M
    from slr_verify.landscape import stationary_points

    kl = dict(lam=0.1, gamma=P["gamma"], d=400, L=10)
    for name, vals in (("starts", (0, -1, 1.5, "3", True)), ("rounds", (0, 2.5, True)), ("seed", (1.5, -1, "0")),
                       ("dps", (0, 10.5, 10**6))):
        for val in vals:
            probes.append(Probe(f"stationary_points({name}={val!r})", name,
                                lambda kw=dict(kl, **{name: val}): stationary_points(**kw), timeout=20))
    for name, vals in (("lam", (0.5, (True, 1.0), (1.0, 0.5), (0.0, 1.0), "x", (0.1, float("nan")))),
                       ("ratio", (0, -1, 2.0, float("nan"))), ("r", (0, -1, float("inf"))), ("budget", (0, 1.5, -3)),
                       ("prec", (0, 10.5, True))):
        for val in vals:
            probes.append(Probe(f"stationary_points_on_M({name}={val!r})", name,
                                lambda kw=dict(dict(gamma=P["gamma"], d=400, L=10, lam=(0.05, 0.06)), **{name: val}):
                                stationary_points_on_M(**kw), timeout=20, finite_ok=False))
    for val in (0.5, (True, 1.0), (1.0, 0.5)):
        probes.append(Probe(f"hessian_signs(lam={val!r})", "lam",
                            lambda val=val: hessian_signs(lam=val, gamma=P["gamma"], d=400, L=10), finite_ok=False))
    probes.append(Probe("hessian_signs(ratio=0)", "ratio",
                        lambda: hessian_signs(lam=(0.05, 0.06), gamma=P["gamma"], d=400, L=10, ratio=0), finite_ok=False))
    probes.append(Probe("alpha_attract(lam=nan)", "lam", lambda: alpha_attract(lam=float("nan"), gamma=P["gamma"], d=400, L=10)))
    probes.append(Probe("off_M_family_point(eta=2)", "eta", lambda: off_M_family_point(**P, eta=2)))
    probes.append(Probe("sample_basins(runs=0)", "runs",
                        lambda: sample_basins(0, 0, **kl, alpha=4e-3, steps=10)))
    probes.append(Probe("sample_basins(seed=1.5)", "seed",
                        lambda: sample_basins(1.5, 4, **kl, alpha=4e-3, steps=10)))
    from slr_verify.certify import contraction_ball
    from slr_verify.landscape import pgd_map_spectrum

    cb = dict(lam=0.5, alpha=4e-3, gamma=P["gamma"], d=400, L=10)
    probes.append(Probe("contraction_ball(o0 unrealisable)", "o0",
                        lambda: contraction_ball((2, 0, 0, 0, 0), (1, 1, 1, 1, 1), **cb)))
    probes.append(Probe("contraction_ball(o0 of length 2)", "o0", lambda: contraction_ball((0.2, 0.9), (1, 1, 1, 1, 1), **cb)))
    probes.append(Probe("contraction_ball(sigma not a symmetry)", "sigma",
                        lambda: contraction_ball((0.2, 0.9, 0, 0, 0), (1, 2, 1, 1, 1), **cb)))
    probes.append(Probe("contraction_ball(alpha=-1)", "alpha",
                        lambda: contraction_ball((0.2, 0.9, 0, 0, 0), (1, 1, 1, 1, 1), **dict(cb, alpha=-1))))
    from slr_verify.certify.transverse import transverse_map

    tm = dict(lam=(0.1, 0.1), kappa=(0.99, 1.0), nu=(0.99, 1.0), alpha=4e-3, gamma=P["gamma"], d=400, L=10, min_width=0.5)
    probes += _vary(transverse_map, tm, ("alpha", "gamma", "d", "L", "kappa", "nu", "pieces", "min_width", "budget"))
    # a region's membership test: a state that no unit k, v realise is refused, not answered (unproved regions
    # built directly: the check comes before any ball arithmetic)
    from slr_verify.certify import CaptureBall, ValleyTube, classify_runs

    inf = float("inf")
    ball = CaptureBall(np.zeros(5), (1,) * 5, np.eye(5), tuple((i,) for i in range(5)), 0.0, inf, inf, False, 0,
                       np.array([]), dict(d=400), 0.0)
    tube = ValleyTube(float("nan"), 0.0, 0.0, [], [], inf, inf, inf, False, {}, dict(d=400), 0.0)
    for label, ov in (("theta = 1 at k = k*, v = v*", np.array([1.0, 1, 1, 0, 0])),
                      ("rho = 0.99 at kappa = nu = 0.5", np.array([0.5, 0.5, 0, 0, 0.99])),
                      ("rho = 1 + 1e-6", np.array([0.0, 0, 0, 0, 1 + 1e-6])), ("shape (2, 5)", np.full((2, 5), 0.1)),
                      ("NaN", np.full(5, np.nan))):
        for name, region in (("CaptureBall", ball), ("ValleyTube", tube)):
            probes.append(Probe(f"{name}.contains(ov {label})", "ov", lambda r=region, x=ov: r.contains(x), finite_ok=False))
    probes.append(Probe("classify_runs(ends unrealisable)", "ends",
                        lambda: classify_runs(np.array([[1.0, 1, 1, 0, 0]]).T, np.zeros(1, dtype=bool), [], lam=0.5, alpha=4e-3,
                                              gamma=P["gamma"], d=400, L=10), finite_ok=False))

    def spectrum(W, **kw):
        from slr_verify.model.multilocation import random_locations

        Ks, Vs = random_locations(2, 80, np.random.default_rng(0))
        return pgd_map_spectrum(Ks, Vs, W, **dict(dict(lam=0.5, alpha=1e-3, gamma=P["gamma"], eps=0.1, L=10), **kw))

    for label, W in (("shape (3, 8)", np.zeros((3, 8))), ("NaN", np.full((4, 8), np.nan)), ("zero rows", np.zeros((4, 8))),
                     ("a string", "x")):
        probes.append(Probe(f"pgd_map_spectrum(W {label})", "W", lambda W=W: spectrum(W)))
    probes.append(Probe("pgd_map_spectrum(alpha=0)", "alpha", lambda: spectrum(np.eye(4, 8), alpha=0.0)))
    from slr_verify.certify import global_minimiser

    gm = dict(lam=(0.3, 0.3), gamma=P["gamma"], d=400, L=10)
    for name, val in (("lam", (0.3,)), ("lam", (0.4, 0.3)), ("max_boxes", 0), ("time_limit", -1.0), ("min_width", 0.0),
                      ("risk_tol", float("nan")), ("kappa0", 2.0)):
        probes.append(Probe(f"global_minimiser({name}={val!r})", name, lambda kw=dict(gm, **{name: val}): global_minimiser(**kw)))
    probes.append(Probe("global_minimiser(check='yes')", "check", lambda: global_minimiser(**gm, check="yes")))
    from slr_verify.certify import replay

    for name, val in (("prec", 20), ("prec", 1.5), ("prove_premises", "no")):
        probes.append(Probe(f"replay({name}={val!r})", name, lambda kw={name: val}: replay({}, **kw)))
    probes.append(Probe("replay(a missing file)", "certificate", lambda: replay("/nonexistent/c.json.gz")))
    from slr_verify.certify import oracle_window as window_enclosure

    wk = dict(gamma=P["gamma"], d=400, L=10)
    for name, val in (("half_width", 0.0), ("half_width", "x"), ("half_width", 1e-3), ("prec", 20), ("time_limit", 0.0),
                      ("workers", 0), ("check", "yes")):
        probes.append(Probe(f"certify.oracle_window({name}={val!r})", name,
                            lambda kw=dict(wk, **{name: val}): window_enclosure(**kw), timeout=20))
    probes.append(Probe("certify.oracle_window(d=3)", "d", lambda: window_enclosure(**dict(wk, d=3)), timeout=20))
    from slr_verify.landscape import float_window

    probes.append(Probe("landscape.float_window(grid=0)", "grid",
                        lambda: float_window(gamma=P["gamma"], d=400, L=10, grid=0), timeout=20))
    probes.append(Probe("landscape.float_window(lam_range=(1, 0.1))", "lam_range",
                        lambda: float_window(gamma=P["gamma"], d=400, L=10, lam_range=(1, 0.1)), timeout=20))

    # sweeps
    from slr_verify.sweep import Grid

    gkw = dict(lam=(0.1,), d=(400,), L=(10,), gamma2=(0.5,), alpha=(4e-3,), runs=2, steps=5)
    for name, vals in (("lam", ((float("nan"),), (1e300,), (True,))), ("d", ((1e300,), (3,), (2.5,))),
                       ("alpha", ((1e300,), (0.0,), ("x",))), ("runs", (0, 1.5)), ("seed", (1.5, -1)),
                       ("converge_tol", (float("nan"), -1.0)), ("max_steps", (-1, 1.5)), ("eps", (float("nan"), 1e155)),
                       ("gamma2", ((1e300,), (-1.0,)))):
        for val in vals:
            probes.append(Probe(f"Grid({name}={val!r})", name, lambda kw=dict(gkw, **{name: val}): Grid(**kw)))

    # the Transformer layer
    def tl(**kw):
        from slr_verify.experiments import transformer_layer

        return transformer_layer(**dict(dict(steps=2, runs=1, log_every=1, test_size=16, batch=8, d=8, m=8), **kw))

    for name, val in (("lr", 1e300), ("lr", float("nan")), ("heads", 3), ("heads", True), ("gamma2", 1e300), ("runs", 0),
                      ("steps", 1.5), ("seed", -1), ("dtype", "int8"), ("eps2", -1.0), ("bogus", 1)):
        probes.append(Probe(f"transformer_layer({name}={val!r})", name, lambda kw={name: val}: tl(**kw), timeout=60))
    return probes + surface_probes()


#: counts beyond the machine: refused naming the count itself, never under another parameter's name,
#: as NumPy's "Maximum allowed dimension exceeded", an OverflowError or a hang
HUGE = {"10**30": 10**30, "2**63": 2**63}


def _refused(ident, param, call, cheap=True, timeout=60.0):
    return Probe(ident, param, call, timeout=timeout, finite_ok=False, cheap=cheap, value_error=True)


def surface_probes():  # noqa: C901, PLR0915 - a table of probe cases (one append each)
    """The public surface walked by kind: a dimension below the supported minimum, a zero count, a
    broadcast mismatch, a count beyond the machine, a degenerate size of the Transformer experiment. Each probe must
    raise ValueError naming its parameter (``finite_ok=False``); ``cheap`` ones are refused before any computation."""
    import slr_verify as S
    from slr_verify.experiments import transformer_layer
    from slr_verify.model import multilocation as ML
    from slr_verify.routes.bayes import bayes_risk_full
    from slr_verify.routes.montecarlo import fit_linear_risk, sample_projections, sample_slr
    from slr_verify.routes.multilocation import mc_multihead_risk

    g = P["gamma"]
    k, v, ks, vs = _vectors(20)
    rng = np.random.default_rng(0)
    Kh, Vh = ML.random_heads(1, 20, rng)
    Ks, Vs = ML.random_locations(1, 20, rng)
    mc = dict(lam=0.1, gamma=g, L=10, n=1000, seed=0)
    calls = {  # name -> (callable of keyword arguments, the counts to overflow)
        "mc_risk": (lambda **a: S.mc_risk(k, v, ks, vs, **{**dict(mc), **a}), ("L",)),
        "mc_risk_overlaps": (lambda **a: S.mc_risk_overlaps(*OV, **{**dict(mc, d=400), **a}), ("L",)),
        "bayes_risk": (lambda **a: S.bayes_risk(**{**dict(gamma=g, d=400, L=10, n=1024), **a}), ("L", "n")),
        "bayes_excess": (lambda **a: S.bayes_excess(**{**dict(gamma=g, d=400, L=10, n=1024), **a}), ("L", "n")),
        "softmax_risk": (lambda **a: S.softmax_risk(**{**dict(lam=0.1, gamma=g, d=400, L=10, n=1024), **a}), ("L", "n")),
        "softmax_excess": (lambda **a: S.softmax_excess(**{**dict(lam=0.1, gamma=g, d=400, L=10, n=1024), **a}), ("L", "n")),
        "bayes_risk_full": (lambda **a: bayes_risk_full(ks, vs, **{**dict(gamma=g, L=10, n=1024, seed=0), **a}), ("L", "n")),
        "fit_linear_risk": (lambda **a: fit_linear_risk(ks, vs, **{**dict(gamma=g, L=10, n_train=256, n_test=256, seed=0), **a}),
                            ("L",)),
        "sample_slr": (lambda **a: sample_slr(ks, vs, **{**dict(gamma=g, L=10, n=16, seed=0), **a}), ("L", "n")),
        "sample_projections": (lambda **a: sample_projections(*OV, **{**dict(gamma=g, d=400, L=10, n=16, seed=0), **a}),
                               ("L", "n")),
        "sample_multi": (lambda **a: ML.sample_multi(Ks, Vs, **{**dict(gamma=g, L=10, n=16, seed=0), **a}), ("L", "n")),
        "mc_multihead_risk": (lambda **a: mc_multihead_risk(Kh, Vh, Ks, Vs, **{**dict(mc), **a}), ("L", "n")),
        "transformer_layer": (lambda **a: transformer_layer(**{**dict(progress=None), **a}),
                              ("steps", "seed", "runs", "batch", "test_size", "log_every", "m", "d", "L", "K", "heads")),
    }
    out = []
    for name, (fn, counts) in calls.items():
        for param in counts:
            for label, val in HUGE.items():
                out.append(_refused(f"{name}({param}={label})", param, lambda fn=fn, kw={param: val}: fn(**kw)))
    # dimensions below the supported minimum and zero counts
    for param, val in (("d", 1), ("K", 0)):
        out.append(_refused(f"random_locations({param}={val})", param,
                            lambda kw=dict(dict(K=1, d=20), **{param: val}): ML.random_locations(kw["K"], kw["d"], rng)))
    out.append(_refused("random_heads(H=0)", "H", lambda: ML.random_heads(0, 20, rng)))
    for param, val in (("d", 1), ("steps", 0), ("runs", 0), ("batch", 0), ("test_size", 0), ("log_every", 0), ("m", 0),
                       ("r", 0)):
        out.append(_refused(f"transformer_layer({param}={val})", param,
                            lambda kw={param: val}: transformer_layer(progress=None, **kw)))
    out.append(_refused("transformer_layer(heads=2, r=0)", "r", lambda: transformer_layer(heads=2, r=0, progress=None)))
    tiny = dict(steps=2, runs=1, log_every=1, test_size=8, batch=4, d=8, m=8, progress=None)
    for dtype in ("float32", "float64"):  # W_q never leaves 0: its rank-one ratio and direction would be undefined
        out.append(_refused(f"transformer_layer(lr=1e-300, dtype={dtype})", "lr",
                            lambda dtype=dtype: transformer_layer(lr=1e-300, dtype=dtype, **tiny), cheap=False))
    # arrays of different lengths: a ValueError naming them, not NumPy's broadcast message
    from slr_verify.dynamics import sgd
    from slr_verify.dynamics.experiments import run_setting

    run = dict(lam=0.1, gamma=g, L=10, alpha=4e-3, steps=3)
    k3, k2 = np.stack([k, k, k]), np.stack([v, v])
    out.append(_refused("reduced_pgd(kappa0 (3,), nu0 (2,))", "nu0",
                        lambda: S.reduced_pgd(np.full(3, 0.5), np.full(2, 0.5), d=400, **run)))
    out.append(_refused("pgd(k0 (3, d), v0 (2, d))", "v0", lambda: S.pgd(k3, k2, ks, vs, **run)))
    out.append(_refused("sgd(k0 (3, d), v0 (2, d))", "v0", lambda: sgd(k3, k2, ks, vs, batch=2, seed=0, **run)))
    from slr_verify.dynamics import converge

    out.append(_refused("converge(ov: kappa (3,), nu (2,))", "ov", lambda: converge(
        [np.full(3, 0.5), np.full(2, 0.5), 0.0, 0.0, 0.0], lam=0.1, gamma=g, d=400, L=10, alpha=4e-3, max_steps=10)))
    # a number of steps beyond the machine, named as steps (not as the repetitions it is multiplied by)
    from slr_verify.model.settings import FIGURES

    out.append(_refused("dynamics.run_setting(steps=10**11)", "steps",
                        lambda: run_setting(FIGURES["4b"], steps=10**11)))
    out.append(_refused("dynamics.run_setting(repeats=10**9)", "repeats",
                        lambda: run_setting(FIGURES["7a"], repeats=10**9)))
    # the landscape's entry points that took no validation of their own, and counts beyond the machine there
    from slr_verify import landscape as LS

    ovp = np.array([0.5, 0.5, 0.0, 0.0, 0.0])
    for param, val in (("d", 0), ("d", 1), ("L", 0)):
        out.append(_refused(f"landscape.partials({param}={val})", param, lambda kw={param: val}: LS.partials(ovp, **{**P, **kw})))
        out.append(_refused(f"landscape.refine({param}={val})", param,
                            lambda kw={param: val}: LS.refine(np.array([1.0, 1, 1, 0, 0]), **{**_nod(P), "d": 400, **kw})))
    for param, vals in (("dps", (0, 10**30, 2**63)), ("iters", (0, 10**30, 2**63))):
        for val in vals:
            out.append(_refused(f"landscape.refine({param}={val!r})", param,
                                lambda kw={param: val}: LS.refine(np.array([1.0, 1, 1, 0, 0]), **{**_nod(P), "d": 400, **kw})))
    for val in (0, 10**30, 2**63):
        out.append(_refused(f"landscape.profile_mp(dps={val!r})", "dps", lambda val=val: LS.profile_mp(0.5, 0.5, **P, dps=val)))
    for val in (0, 1, 3):
        out.append(_refused(f"landscape.orbit_dimension(d={val})", "d", lambda val=val: LS.orbit_dimension(ovp, val)))
    two, three = np.full(2, 0.1), np.full(3, 10)
    out.append(_refused("landscape.partials(lam (2,), L (3,))", "lam", lambda: LS.partials(ovp, **{**P, "lam": two, "L": three})))
    # profile takes an array of lam (a batch), not of L
    out.append(_refused("landscape.profile(lam (2,), L (3,))", "L",
                        lambda: LS.profile(0.5, 0.5, **{**P, "lam": two, "L": three})))
    out.append(_refused("landscape.profile(lam (2,) against kappa (3,))", "shape",
                        lambda: LS.profile(np.full(3, 0.5), 0.5, **{**P, "lam": two})))
    out.append(_refused("landscape.multihead_aligned(lam (2,), L (3,))", "lam",
                        lambda: LS.multihead_aligned(Ks, Vs, lam=two, gamma=g, L=three)))
    for val in (10**30, 2**63):
        out.append(_refused(f"landscape.multihead_minima(H={val!r})", "H",
                            lambda val=val: LS.multihead_minima(Ks, Vs, H=val, lam=0.5, gamma=g, L=10, n_random=1)))
        out.append(_refused(f"landscape.multihead_minima(n_random={val!r})", "n_random",
                            lambda val=val: LS.multihead_minima(Ks, Vs, H=1, lam=0.5, gamma=g, L=10, n_random=val)))
        out.append(_refused(f"sgd(L={val!r})", "L", lambda val=val: sgd(k, v, ks, vs, lam=0.1, gamma=g, L=val, alpha=1e-3,
                                                                         steps=3, batch=5, seed=0)))
    # multi-head, the tilt of the Bayes route, Corollary 2's path, random directions, the lam table, the basins' runs
    from slr_verify.certify import off_M_family_minimality
    from slr_verify.dynamics.multihead import multihead_pgd, multihead_sgd
    from slr_verify.kernels.multihead import gram_of, risk_from_gram
    from slr_verify.predictors import path_point, softmax_best_lam
    from slr_verify.routes.bayes import log_chernoff, tilted_token_law
    from slr_verify.routes.montecarlo import random_instance, random_unit

    Gm = gram_of(Kh, Vh, Ks, Vs)
    rg = dict(lam=0.5, gamma=g, d=20, L=10)
    for param, val in (("H", 0), ("K", 0), ("H", 10**30), ("K", 2**63), ("d", 0), ("L", 0)):
        kw = {**dict(H=1, K=1), **rg, param: val}
        out.append(_refused(f"risk_from_gram({param}={val!r})", param, lambda kw=kw: risk_from_gram(Gm, **kw)))
    out.append(_refused("risk_from_gram(lam (2,), L (3,))", "lam",
                        lambda: risk_from_gram(Gm, 1, 1, **{**rg, "lam": two, "L": three})))
    mh = dict(lam=0.5, gamma=g, L=10, alpha=1e-3)
    for val in (10**30, 2**63):
        out.append(_refused(f"multihead_pgd(steps={val!r})", "steps",
                            lambda val=val: multihead_pgd(Gm, 1, 1, **mh, d=20, steps=val)))
        out.append(_refused(f"multihead_sgd(steps={val!r})", "steps",
                            lambda val=val: multihead_sgd(Kh, Vh, Ks, Vs, **mh, steps=val, batch=5, seed=0)))
        out.append(_refused(f"random_unit(d={val!r})", "d", lambda val=val: random_unit(val, 0)))
        out.append(_refused(f"random_instance(d={val!r})", "d", lambda val=val: random_instance(val, 0)))
        out.append(_refused(f"softmax_best_lam(batches={val!r})", "batches",
                            lambda val=val: softmax_best_lam(gamma=g, d=400, L=10, n=1024, batches=val)))
        out.append(_refused(f"landscape.sample_ends(runs={val!r})", "runs",
                            lambda val=val: LS.sample_ends(0, val, **_nod(P), d=400, alpha=4e-3, steps=10, starts=4)))
    for f in (log_chernoff, tilted_token_law):
        for param, val in (("d", 0), ("d", 0.5), ("s", 0.0), ("s", 1.0)):
            out.append(_refused(f"{f.__name__}({param}={val!r})", param,
                                lambda f=f, kw={**dict(gamma=g, d=400), param: val}: f(**kw)))
        out.append(_refused(f"{f.__name__}(gamma (2,), d (3,))", "gamma", lambda f=f: f(gamma=np.full(2, g), d=np.full(3, 400))))
    out.append(_refused("softmax_best_lam(d=0)", "d", lambda: softmax_best_lam(gamma=g, d=0, L=10, n=1024, batches=2)))
    out.append(_refused("path_point(d=0)", "d", lambda: path_point(a=0.25, b=0.5, d=0)))
    out.append(_refused("landscape.sample_ends(steps=0)", "steps",
                        lambda: LS.sample_ends(0, 2, **_nod(P), d=400, alpha=4e-3, steps=0, starts=4)))
    for val in (2, 3):
        out.append(_refused(f"certify.off_M_family_minimality(d={val})", "d",
                            lambda val=val: off_M_family_minimality(lam=0.5, gamma=g, d=val, L=10)))
    from slr_verify.dynamics.multihead import figure9

    for param, vals in (("runs", (10**30, 2**63)), ("steps", (10**30, 2**63)), ("every", (0,))):
        for val in vals:
            out.append(_refused(f"figure9({param}={val!r})", param, lambda kw={param: val}: figure9(**kw)))
    from slr_verify.routes.token_laws import relevant_token_law, relevant_token_moments

    out.append(_refused("relevant_token_law(d=0)", "d", lambda: relevant_token_law(*OV, g, 0)))
    out.append(_refused("relevant_token_moments(d=0)", "d", lambda: relevant_token_moments(*OV, 0.1, g, 0)))
    out.append(_refused("relevant_token_law(gamma (2,))", "gamma", lambda: relevant_token_law(*OV, two, 400)))
    out.append(_refused("landscape.refine(lam (2,), L (3,))", "lam",
                        lambda: LS.refine(np.array([1.0, 1, 0, 0, 0]), **{**_nod(P), "d": 400, "lam": two, "L": three})))
    for val in (10**30, 2**63):
        out.append(_refused(f"multihead_sgd(L={val!r})", "L",
                            lambda val=val: multihead_sgd(Kh, Vh, Ks, Vs, **{**mh, "L": val}, steps=3, batch=5, seed=0)))
    # beyond the quadrature route's accuracy: a ValueError naming d, not the route's QuadratureError (slow: ~10 s)
    out.append(_refused("quad_risk_gradient(d=1e24, dps=15)", "d",
                        lambda: S.quad_risk_gradient(*OV, **dict(P, d=1e24), dps=15), cheap=False))
    out += _landscape_window_probes(two, three)
    return out


def _landscape_window_probes(two, three):
    """The float window, the mechanisms, the profile's minimiser and the certified searches: a grid of zero or beyond
    the machine, a broadcast mismatch, a dimension or count outside the model, an empty lam sequence; the float
    window's failures name lam_range and the setting, a certificate's d and L are exact floats, a run whose step
    leaves float64 names alpha."""
    from slr_verify import certify
    from slr_verify import landscape as LS

    g, k = P["gamma"], dict(gamma=P["gamma"], d=400, L=10)
    out = [_refused(f"phase_diagram(grid={v!r})", "grid", lambda v=v: LS.phase_diagram([400], [10], gamma=g, grid=v))
           for v in (0, 10**30, 2**63)]
    out += [_refused(f"mechanism_values({n}={v})", n, lambda kw={n: v}: LS.mechanism_values(0.3, **{**k, **kw}))
            for n, v in (("d", 0), ("L", 0))]
    out.append(_refused("mechanism_values(lam (2,), L (3,))", "lam", lambda: LS.mechanism_values(two, gamma=g, d=400, L=three)))
    for f in ("minimise_profile", "oracle_is_global"):
        for v in (0, (0, 0), (91,), 10**30):
            out.append(_refused(f"{f}(grid={v!r})", "grid", lambda f=f, v=v: getattr(LS, f)(lam=0.1, grid=v, **k)))
    out.append(_refused("minimiser_diagram([])", "lams", lambda: LS.minimiser_diagram([], **k)))
    out += [_refused(f"minimise_profiles({v!r})", n, lambda v=v: LS.minimise_profiles(v, **k))
            for v, n in (([], "lams"), ([0.1, -0.2], "lam"), ([0.1, float("nan")], "lams"))]
    out += [_refused(f"float_window({n}={v:g})", n, lambda kw={n: v}: LS.float_window(**{**k, **kw}, grid=11), cheap=False)
            for n, v in (("d", 2), ("d", 10**30), ("L", 10**30))]
    out += [_refused(f"certify.global_minimiser({n}=10**30)", n,
                     lambda kw={n: 10**30}: certify.global_minimiser(lam=(0.3, 0.3), **{**k, **kw}, time_limit=20))
            for n in ("d", "L")]
    out.append(_refused("certify.oracle_window(d=2**60)", "d", lambda: certify.oracle_window(**{**k, "d": 2**60})))
    from slr_verify.predictors import decay_slope

    out += [_refused("decay_slope(two points)", "ds", lambda: decay_slope([-1.0, -2.0], [1e2, 1e3])),
            _refused("decay_slope(equal ends)", "ds", lambda: decay_slope([-1.0, -2.0, -3.0], [1e2, 1e3, 1e2]))]
    out += [_refused(f"landscape.sample_ends(d={v:g})", "alpha", lambda v=v: LS.sample_ends(
        0, 4, lam=0.1, gamma=g, d=v, L=10, alpha=4e-3, steps=10), cheap=False) for v in (10**30, 2**63)]
    return out


def _quad_vs_kernel(d, dps):
    """quad_risk must match the kernel to the digits it claims, or raise: returns the value, or NaN
    (unclear) when it disagrees with the kernel beyond 1e-12 relative."""
    import slr_verify as S

    kw = dict(P, d=d)
    q = float(S.quad_risk(*OV, **kw, dps=dps))
    k = S.risk(*OV, **kw)
    return q if abs(q - k) <= 1e-12 * abs(k) else float("nan")


def _vectors(d):
    from slr_verify.model.sampling import random_instance, random_unit

    ks, vs = random_instance(d, 0)
    return random_unit(d, 1), random_unit(d, 2), ks, vs


def _nod(kw):
    return {k: v for k, v in kw.items() if k != "d"}


def _bad_schedules():
    return {"t->True": lambda t: True, "t->'0.1'": lambda t: "0.1", "t->array": lambda t: np.array([0.1, 0.2]),
            "t->nan": lambda t: float("nan"), "t->-1": lambda t: -1.0, "t->1e300": lambda t: 1e300,
            "t->None": lambda t: None, "raises": lambda t: 1 / 0}


def cli_probes(tmp):
    out = os.path.join(tmp, "o")
    pr = []

    def add(ident, param, argv, timeout=60, finite_ok=True):
        pr.append(Probe(ident, param, argv=argv, timeout=timeout, finite_ok=finite_ok))

    fast = ["--quiet"]
    cert = ["certify", "oracle", "--gamma2", "0.5", "--eps", "0", "--d", "400", "--L", "10", "--out", out + ".json.gz"]
    add("certify oracle --lam x", "--lam", cert + ["--lam", "x"])
    add("certify oracle --gamma2 -1", "--gamma2", ["certify", "oracle", "--gamma2", "-1", "--eps", "0", "--d", "400", "--L",
                                                   "10", "--lam", "0.3", "--out", out + ".json"])
    add("certify oracle without --d", "--d", ["certify", "oracle", "--gamma2", "0.5", "--eps", "0", "--L", "10", "--lam",
                                               "0.3", "--out", out + ".json"])
    add("certify oracle --out missing dir", "out", cert[:-2] + ["--lam", "0.3", "--out", "/nonexistent/c.json.gz"])
    add("certify oracle --out .txt", "out", cert[:-2] + ["--lam", "0.3", "--out", out + ".txt"])
    add("certify minimum --lam 0.8:0.9", "--lam", ["certify", "minimum"] + cert[2:] + ["--lam", "0.8:0.9"])
    add("pgd --figure bogus", "--figure", ["pgd", "--figure", "bogus"])
    add("pgd --repeats 0", "--repeats", ["pgd", "--figure", "4b", "--repeats", "0"])
    add("pgd --repeats 1000000000", "--repeats", ["pgd", "--figure", "7a", "--repeats", "1000000000", "--out", out + "1.npz"],
        finite_ok=False)
    add("pgd --steps -1", "--steps", ["pgd", "--figure", "4b", "--steps", "-1"])
    add("pgd --steps 1e3", "--steps", ["pgd", "--figure", "4b", "--steps", "1e3"])
    add("pgd --seed -1", "--seed", ["pgd", "--figure", "4b", "--seed", "-1"])
    add("pgd --out /proc/a.npz", "--out", ["pgd", "--figure", "4b", "--steps", "2", "--repeats", "1", "--out", "/proc/a.npz"],
        finite_ok=False)
    add("pgd --out missing dir", "--out", ["pgd", "--figure", "4b", "--out", "/nonexistent/a.npz"])
    sw = ["sweep", "--lam", "0.1", "--runs", "2", "--steps", "5", "--scheduler", "sync"] + fast
    for opt, val in (("--lam", "nan"), ("--lam", "bogus"), ("--lam", "1e300"), ("--d", "1e300"), ("--d", "1"), ("--d", "2.5"),
                     ("--L", "0"), ("--alpha", "1e300"), ("--alpha", "-1"), ("--gamma2", "inf"), ("--runs", "0"),
                     ("--runs", "x"), ("--steps", "0"), ("--seed", "-1"), ("--eps", "nan"), ("--eps", "1e155"),
                     ("--converge-tol", "-1"), ("--converge-tol", "nan"), ("--chunk", "0"), ("--workers", "0"),
                     ("--max-steps", "-1")):
        argv = [a for a in sw]
        if opt in argv:
            i = argv.index(opt)
            argv[i + 1] = val
        else:
            argv += [opt, val]
        add(f"sweep {opt} {val}", opt, argv + ["--out", out + f"{len(pr)}.zarr"])
    add("sweep --max-steps 1 (alone)", "--max-steps", sw + ["--max-steps", "1", "--out", out + "ms.zarr"], finite_ok=False)
    add("sweep --converge-tol 1e-6 (alone)", "--converge-tol", sw + ["--converge-tol", "1e-6", "--out", out + "ct.zarr"],
        finite_ok=False)
    add("sweep --scheduler bogus", "--scheduler",
        ["sweep", "--lam", "0.1", "--runs", "2", "--steps", "5", "--scheduler", "bogus", "--out", out + "sb.zarr"] + fast,
        timeout=30)
    add("sweep --out /proc/x.zarr", "--out", sw + ["--out", "/proc/x.zarr"])
    add("experiment transformer --heads 3", "--heads", ["experiment", "transformer", "--heads", "3", "--out", out + "t.json"])
    add("experiment transformer --heads 0", "--heads", ["experiment", "transformer", "--heads", "0"])
    add("experiment transformer --out /proc/t.json", "--out", ["experiment", "transformer", "--quick", "--out", "/proc/t.json"])
    add("experiment transformer --runs -2", "--runs", ["experiment", "transformer", "--runs", "-2"])
    add("pgd --steps 10**11", "--steps", ["pgd", "--figure", "4b", "--steps", str(10**11), "--out", out + "s.npz"])
    add("experiment bogus", "experiment", ["experiment", "bogus"])
    add("derive bogus", "bogus", ["derive", "bogus"])
    add("bogus subcommand", "bogus", ["bogus"])
    add("--version", "<exit 0 expected>", ["--version"])
    add("experiment probing (extra missing or present)", "probing", ["experiment", "probing", "--quick", "--out", out + "p.json"],
        timeout=600)
    add("sweep --scheduler unreachable", "--scheduler",
        ["sweep", "--lam", "0.1", "--runs", "2", "--steps", "5", "--scheduler", "tcp://127.0.0.1:9", "--out", out + "su.zarr"]
        + fast, timeout=60)
    add("sweep --lam 0:1:1e9", "--lam", sw[:1] + ["--lam", "0.1:1:1000000000"] + sw[3:] + ["--out", out + "lr.zarr"])
    return pr


def run_interrupt(argv, after=4.0, timeout=60):
    """Ctrl-C (SIGINT) ``after`` seconds into ``python -m slr_verify *argv``: one line, exit 1 or 2 (or 130)."""
    import time

    r = subprocess.Popen([sys.executable, "-m", "slr_verify", *argv], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    time.sleep(after)
    r.send_signal(signal.SIGINT)
    try:
        _, err = r.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        r.kill()
        return False, "did not stop after Ctrl-C"
    bad = [x for x in err.splitlines() if "Traceback" in x or "WARNING" in x or "Error" in x]
    lines = [x for x in err.splitlines() if "interrupt" in x.lower()]
    ok = r.returncode in (1, 2, 130) and not bad and len(lines) == 1
    return ok, f"exit {r.returncode}: {len(err.splitlines())} stderr lines; {(bad or lines or [''])[0][:120]}"


def run_installed_derive_check(tmp):
    """``slr-verify derive --check`` with the package installed elsewhere (a copy in site-packages
    stand-in), run from the checkout."""
    import shutil

    site = os.path.join(tmp, "site")
    shutil.copytree(os.path.join(os.getcwd(), "slr_verify"), os.path.join(site, "slr_verify"),
                    ignore=shutil.ignore_patterns("__pycache__"))
    with open(os.path.join(site, "run.py"), "w") as fh:  # a script: its folder, not the cwd, leads sys.path
        fh.write("import sys\nfrom slr_verify.cli import main\nsys.exit(main())\n")
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    r = subprocess.run([sys.executable, os.path.join(site, "run.py"), "derive", "--check", "risk"], capture_output=True,
                       text=True, env=env, cwd=os.getcwd(), timeout=300)
    return r.returncode == 0, f"exit {r.returncode}: {r.stderr.strip().splitlines()[-1][:160] if r.stderr.strip() else ''}"


def run_sweep_rerun(tmp):
    """A failed first sweep (bad --d) must not poison its path: the corrected rerun succeeds."""
    out = os.path.join(tmp, "rerun.zarr")
    base = ["sweep", "--lam", "0.1", "--runs", "2", "--steps", "5", "--scheduler", "sync", "--quiet", "--out", out]
    first = subprocess.run([sys.executable, "-m", "slr_verify", *base, "--d", "1e300"], capture_output=True, text=True)
    second = subprocess.run([sys.executable, "-m", "slr_verify", *base], capture_output=True, text=True)
    detail = f"first exit {first.returncode}, rerun exit {second.returncode}: {second.stderr.strip()[-160:]}"
    return second.returncode == 0, detail


def special_probes(tmp):
    """(ident, zero-argument callable -> (ok, detail)): Ctrl-C and the install mode."""
    out = os.path.join(tmp, "int")
    return [
        ("Ctrl-C in pgd", lambda: run_interrupt(["pgd", "--figure", "7a", "--out", out + ".npz"])),
        ("Ctrl-C in sweep", lambda: run_interrupt(["sweep", "--lam", "0.1", "--steps", "20000000", "--out", out + ".zarr"],
                                                  after=8)),
        # while the local cluster starts: an interrupt then was discarded (SIGINT ignored) and the sweep ran on
        ("Ctrl-C in sweep's cluster start", lambda: run_interrupt(["sweep", "--lam", "0.1", "--steps", "20000000", "--out",
                                                                   out + "-start.zarr"], after=2.5)),
        ("Ctrl-C in experiment", lambda: run_interrupt(["experiment", "transformer", "--out", out + ".json"], after=8)),
        ("derive --check installed", lambda: run_installed_derive_check(tmp)),
        ("sweep rerun after a failed first call", lambda: run_sweep_rerun(tmp)),
    ]


def all_probes(tmp, fast=False):
    return python_probes(fast) + cli_probes(tmp)


def main():
    sys.path.insert(0, os.getcwd())
    with tempfile.TemporaryDirectory() as tmp:
        probes = all_probes(tmp)
        clear = 0
        unclear = []
        for p in probes:
            ok, detail = run_cli(p) if p.argv else run_python(p)
            clear += ok
            if not ok:
                unclear.append((p.ident, detail))
            print(("ok   " if ok else "BAD  ") + p.ident + "  ->  " + detail, flush=True)
        n = len(probes)
        if "--no-special" not in sys.argv:
            for ident, fn in special_probes(tmp):
                ok, detail = fn()
                clear += ok
                n += 1
                print(("ok   " if ok else "BAD  ") + ident + "  ->  " + detail, flush=True)
        py = sum(1 for p in probes if not p.argv)
        print(f"\n{clear}/{n} clear ({py} Python calls, {n - py} CLI runs); {n - clear} unclear")


if __name__ == "__main__":
    main()
