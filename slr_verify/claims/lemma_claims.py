"""Checks of the paper's assumption, definition and auxiliary lemmas: Assumption 1, Definition 1, Lemma 7, Lemma 14
and Lemmas 16-18 (paper, Section 3 and Appendices B-D; `docs/MATH.md` §§1, 4, 8, 9, 20). Proposition 15 (Theorem 1's
closed form beyond M) is the claim ``theorem-1`` (:mod:`.risk_claims`).

The SymPy statements are :mod:`slr_verify.symbolic.dynamics`' and :mod:`slr_verify.symbolic.lemmas`'; the independent
routes are :mod:`slr_verify.routes.erf_moments` (mpmath quadrature, Lemma 18) and :mod:`slr_verify.kernels.lemma_balls`
(arb balls, Lemma 16).
"""

from __future__ import annotations

from functools import cache

import mpmath
import numpy as np
import sympy as sp

from ..dynamics.runners import overlap_pgd, pgd, reduced_pgd
from ..kernels import api
from ..kernels.lemma_balls import lemma16_ball
from ..model.overlaps import Overlaps
from ..model.sampling import draw_problem, random_instance
from ..model.settings import FIGURES
from ..routes.erf_moments import quad_erf_moment
from ..symbolic import dynamics as sdyn
from ..symbolic import lemmas as slem
from .base import ClaimSetting, claim
from .risk_claims import RANDOM_PARAMS, random_params
from .vocabulary import Agreement, Enclosure, Identities, Measured

FIG4B = FIGURES["4b"]
_M4B = ClaimSetting.of_figure(FIG4B)
#: the runs' setting: Figure 4b's model, lam and step (its steps and initialisation are the claims' own)
#: Lemma 7's second dimension in thorough mode: Figure 5's d
_FIG5_D = FIGURES["5"].d
_RUN_TEXT = f"{FIG4B.model_text}, lam = {FIG4B.lam0:g}, alpha = {FIG4B.alpha:g}"
#: the dimensions at which Assumption 1's sampler check draws (k*, v*): the smallest ones and Figure 4b's
_DIMS = (2, 3, FIG4B.d)
#: Lemma 16's ball proof: Taylor on [0, delta], boxes on [delta, upper], the tail beyond
_L16 = dict(upper=4.0, delta=1 / 16, prec=64)
#: Lemma 17's random points
_X_RANGE = (-3.0, 3.0)
#: Lemma 18's random points: the shift a and the scale b of erf(a + bZ)
_A_RANGE, _B_RANGE = (-3.0, 3.0), (0.05, 3.0)
#: the working precision of Lemma 18's quadrature (the closed forms are evaluated at the same precision)
_DPS = 20


def _run_pair(seed, runs, steps, on_M, d=FIG4B.d):
    """Full-dimensional float64 PGD at Figure 4b's setting (in dimension ``d``) from ``runs`` seeded initialisations (on
    M or on the sphere), and the d-free runner it should equal (the reduced map on M, the five-overlap map off it): (max
    abs difference of the overlaps over every step, max distance to M of the full run)."""
    k, v, ks, vs = draw_problem(np.random.default_rng(seed), runs, d, on_M)
    p = dict(lam=FIG4B.lam0, gamma=FIG4B.gamma, L=FIG4B.L, alpha=FIG4B.alpha, steps=steps)
    full, ov = pgd(k, v, ks, vs, **p), Overlaps.from_vectors(k, v, ks, vs)
    if on_M:
        free = reduced_pgd(ov.kappa, ov.nu, d=d, **p)
    else:
        free = overlap_pgd(ov, d=d, **p)
    names = ("kappa", "nu", "theta", "eta", "rho")
    gap = max(float(np.max(np.abs(getattr(full, n) - getattr(free, n)))) for n in names)
    return gap, float(np.max(full.distance_to_M))


# --------------------------------------------------------------------------- Assumption 1, Definition 1
def _refusals():
    """What must be refused under Assumption 1, each with a ValueError saying why: (inputs not refused so, their
    names)."""
    k, v = random_instance(8, 0)
    bad = {
        "Overlaps.checked(kappa = eta = 1): k = k* = v* contradicts k* orthogonal to v*": (
            lambda: Overlaps.checked(1.0, 0.0, 0.0, 1.0, 0.0), "not realisable"),
        "Overlaps.checked(kappa^2 + eta^2 = 1.28 > 1)": (lambda: Overlaps.checked(0.8, 0.0, 0.0, 0.8, 0.0), "not realisable"),
        "pgd with k*.v* = 0.6": (lambda: pgd(k, v, k, (0.6 * k + 0.8 * v), lam=0.1, gamma=0.5, L=2, alpha=1e-3, steps=1),
                                 "orthogonal (Assumption 1)"),
    }
    accepted = []
    for name, (call, why) in bad.items():
        try:
            call()
            accepted.append(name)
        except ValueError as e:
            if why not in str(e):
                accepted.append(f"{name} (refused for another reason: {e})")
    return accepted, list(bad)


@claim(
    "assumption-1",
    where="Assumption 1",
    statement="k* and v* are unit vectors and orthogonal: the samplers draw them so, the derivation assumes it, and the "
    "runners and the overlaps' Gram check refuse what contradicts it",
    domain=lambda s: f"the derivation (SymPy); {s.seeds} seeded instances at each d in {_DIMS}, {s.seeds} problems of "
    f"Figure 4b's d = {FIG4B.d} (float64); three inputs that must be refused",
    sizes=dict(seeds=(3, 5, 200)),
)
def assumption1(ctx):
    """Assumption 1 (`docs/MATH.md` §1): |k*| = |v*| = 1, k*.v* = 0, as the suite encodes it: the Gram matrix of the
    derivation (inner products of the PGD map and the chain rule) has the block I_2 on (k*, v*); every sampler's draw
    satisfies it to float64 round-off; a tuple or a pair contradicting it is refused with a ValueError."""
    n = ctx.size.seeds
    dev = 0.0
    for seed in range(n):
        for d in _DIMS:
            ks, vs = random_instance(d, seed)
            dev = max(dev, abs(ks @ ks - 1), abs(vs @ vs - 1), abs(ks @ vs))
    _, _, ks, vs = draw_problem(np.random.default_rng(0), n, FIG4B.d, False)
    dev = max(dev, float(np.max(np.abs(np.einsum("rd,rd->r", ks, ks) - 1))), float(np.max(np.abs(np.einsum(
        "rd,rd->r", vs, vs) - 1))), float(np.max(np.abs(np.einsum("rd,rd->r", ks, vs)))))
    accepted, probes = _refusals()
    G = sdyn.gram()
    return [
        Identities("SymPy: the derivation's Gram matrix of (k, v, k*, v*)", "Assumption 1",
                   {"the (k*, v*) block is I_2 (|k*| = |v*| = 1, <k*, v*> = 0)": G[2:, 2:] == sp.eye(2)}),
        Measured("samplers: model.sampling.random_instance, draw_problem", "|k*| = |v*| = 1, k*.v* = 0", dev, 1e-14,
                 "Gram-Schmidt in float64 leaves round-off of a few ulps", unit="max deviation", size={"seeds": n}),
        Measured("Overlaps.checked and pgd on inputs contradicting Assumption 1", "a ValueError saying why, for each",
                 len(accepted), 0, "each must be refused", unit="inputs not refused", details={"probes": probes,
                                                                                                 "accepted": accepted}),
    ]


@claim(
    "definition-1",
    where="Definition 1",
    statement="the PGD step keeps (k, v) on the unit spheres and, written in the overlaps, is the five-overlap map",
    domain=lambda s: f"all overlaps, partials and alpha (SymPy); {_RUN_TEXT}, {s.runs} sphere initialisations x "
    f"{s.steps} steps (float64, d = {FIG4B.d} against the d-free map)",
    sizes=dict(runs=(3, 4, 30), steps=(200, 1000, 20000)),
    setting=_M4B,
)
def definition1(ctx, seed=1):
    """Definition 1 (`docs/MATH.md` §8, §12): the step direction is tangent and the unnormalised step has squared norm
    1 + alpha^2 |tangent|^2 >= 1 (SymPy), so P(x) = x/|x| is defined and lands on the sphere; full-dimensional float64 PGD
    from the sphere equals the five-overlap map to round-off."""
    runs, steps = ctx.size.runs, ctx.size.steps
    gap, _ = _run_pair(seed, runs, steps, False)
    return [
        Identities("SymPy: the tangent projection and the step's norm", "Definition 1",
                   {**sdyn.definition1_identities(), **sdyn.step_norm_identities()}),
        Measured(f"full-dimensional float64 PGD (d = {FIG4B.d}) against the five-overlap map (runners.overlap_pgd)",
                 "the same iterates in exact arithmetic", gap, 1e-10,
                 "round-off of ~1e-16 per step, amplified by at most the map's Lipschitz constant over the run",
                 unit="max abs difference of the overlaps", corroborates=True,
                 size={"runs": runs, "steps": steps, "seed": seed}),
    ]


# --------------------------------------------------------------------------- Lemmas 7, 14
@claim(
    "lemma-7",
    where="Lemma 7 (Appendix B)",
    statement="started on M, the PGD iterates of Definition 1 are the autonomous reduced map Phi_alpha on (kappa, nu)",
    domain=lambda s: f"all parameters (SymPy); {_RUN_TEXT}, {s.runs} initialisations on M x {s.steps} steps (float64, "
    f"d in {s.dims} against the reduced map)",
    sizes=dict(runs=(3, 4, 30), steps=(200, 1000, 20000), dims=((FIG4B.d,), (FIG4B.d,), (FIG4B.d, _FIG5_D))),
    setting=_M4B,
)
def lemma7(ctx, seed=0):
    """Lemma 7 (`docs/MATH.md` §9): M is invariant (Lemma 4's identities), on M the five-overlap map's (kappa', nu') is
    the reduced map of §9 and depends on (kappa, nu) only through Theorem 1's gradient on M, which is Lemma 6's (SymPy);
    full-dimensional float64 PGD at d = 400 started on M equals the reduced map to round-off."""
    runs, steps = ctx.size.runs, ctx.size.steps
    gap, dist = np.max([_run_pair(seed, runs, steps, True, d) for d in ctx.size.dims], axis=0)
    return [
        Identities("SymPy: the five-overlap map on M, Theorem 1's gradient on M", "Lemma 7 (autonomous map on (kappa, nu))",
                   sdyn.lemma7_identities()),
        Identities("SymPy: M invariant (Lemma 4), the reduced map = `docs/MATH.md` §9's formula", "Lemma 7",
                   {**sdyn.lemma4_identities(), **sdyn.pgd_identities()}),
        Measured(f"full-dimensional float64 PGD from M (d in {ctx.size.dims}) against reduced_pgd", "the same iterates in exact "
                 "arithmetic", gap, 1e-10, "round-off of ~1e-16 per step, amplified by at most the map's Lipschitz "
                 "constant over the run: 10 digits", unit="max abs difference of (kappa, nu, theta, eta, rho)",
                 corroborates=True, size={"runs": runs, "steps": steps, "seed": seed},
                 details={"max_distance_to_M": float(dist)}),
    ]


def _flat_on_M(rng, n, h=1e-5):
    """Central differences of the float64 risk kernel in theta, eta, rho at ``n`` random points of M (random settings):
    the worst |difference quotient| relative to 1 + |R_kappa| + |R_nu| (same differences)."""
    worst = 0.0
    for _ in range(n):
        p = random_params(rng)
        x = dict(zip(("kappa", "nu"), rng.uniform(-0.9, 0.9, 2)), theta=0.0, eta=0.0, rho=0.0)

        def fd(name):
            up, dn = dict(x, **{name: x[name] + h}), dict(x, **{name: x[name] - h})
            return (float(api.risk(**up, **p)) - float(api.risk(**dn, **p))) / (2 * h)

        scale = 1 + abs(fd("kappa")) + abs(fd("nu"))
        worst = max(worst, max(abs(fd(n)) for n in ("theta", "eta", "rho")) / scale)
    return worst


@claim(
    "lemma-14",
    where="Lemma 14",
    statement="on M (theta = eta = rho = 0), dR/dtheta = dR/deta = dR/drho = 0",
    domain=lambda s: f"all kappa, nu and parameters (SymPy); {s.points} random points of M with settings drawn from "
    f"{RANDOM_PARAMS.text} (float64 central differences)",
    sizes=dict(points=(3, 6, 50)),
)
def lemma14(ctx, seed=0):
    """Lemma 14 (`docs/MATH.md` §9): the three partials off M of Theorem 1's derived risk vanish at theta = eta = rho = 0
    (SymPy; the same statements are part of Lemma 4's evidence); central differences of the float64 risk kernel
    corroborate."""
    worst = _flat_on_M(np.random.default_rng(seed), ctx.size.points)
    return [
        Identities("SymPy: Theorem 1's partials at theta = eta = rho = 0", "Lemma 14", sdyn.lemma14_identities()),
        Measured("float64 risk kernel, central differences (h = 1e-5) in theta, eta, rho on M", "dR/dtheta = dR/deta = "
                 "dR/drho = 0",
                 worst, 1e-7, "truncation ~h^2 and round-off ~1e-16/h, relative to 1 + |R_kappa| + |R_nu|",
                 unit="max relative difference quotient", corroborates=True, size={"points": ctx.size.points, "seed": seed}),
    ]


# --------------------------------------------------------------------------- Lemmas 16-18 (Appendix D)
@claim(
    "lemma-16",
    where="Lemma 16 (Appendix D)",
    statement="for u >= 0, |1/sqrt(1 + u) - 1| <= u/2",
    domain=f"every u >= 0 (SymPy sign argument; ball arithmetic: Taylor on [0, {_L16['delta']:g}], boxes on "
    f"[{_L16['delta']:g}, {_L16['upper']:g}], the tail u >= {_L16['upper']:g})",
)
def lemma16(ctx):
    """Lemma 16 (`docs/MATH.md` §20): SymPy's sign argument (:func:`slr_verify.symbolic.lemmas.lemma16_proofs`), and an
    independent computer-assisted proof on arb balls over all u >= 0 (:func:`slr_verify.kernels.lemma_balls.lemma16_ball`)."""
    ball = lemma16_ball(**_L16)
    return [
        Identities("SymPy: sign of the argument, f(0) = 0, f' <= 0", "Lemma 16", slem.lemma16_proofs()),
        Enclosure(f"ball arithmetic (arb, {_L16['prec']} bits): Taylor with Lagrange remainder at 0, bisection, a tail "
                  "argument", "Lemma 16 for every u >= 0", bool(ball["proved"]), corroborates=True,
                  why="a computer-assisted proof closes or it does not",
                  size={"boxes": ball["boxes"], "seconds": ball["seconds"]},
                  details={k: v for k, v in ball.items() if k != "proved"}),
    ]


def _erf_derivatives(rng, n):
    """mpmath's numerical derivatives of erf (orders 1, 2) at ``n`` random x in :data:`_X_RANGE` against Lemma 17's
    stated erf' (:data:`~slr_verify.symbolic.lemmas.ERF_PRIME`) and its derivative: the worst relative error."""
    x = next(iter(slem.ERF_PRIME.free_symbols))
    forms = [sp.lambdify(x, f, "mpmath") for f in (slem.ERF_PRIME, sp.diff(slem.ERF_PRIME, x))]
    worst = 0.0
    with mpmath.workdps(30):
        for xv in rng.uniform(*_X_RANGE, n):
            xv = mpmath.mpf(float(xv))
            for k, f in zip((1, 2), forms):
                ref = mpmath.diff(mpmath.erf, xv, k)
                worst = max(worst, float(abs(f(xv) - ref) / abs(ref)))
    return worst


@claim(
    "lemma-17",
    where="Lemma 17 (Appendix D)",
    statement="erf' = (2/sqrt(pi)) exp(-x^2), erf'' = -2x erf'; erf is odd, increasing, concave on [0, oo), |erf| < 1",
    domain=lambda s: f"every real x (SymPy); {s.points} random x in [{_X_RANGE[0]:g}, {_X_RANGE[1]:g}] (mpmath derivatives, "
    "30 digits)",
    sizes=dict(points=(2, 3, 50)),
)
def lemma17(ctx, seed=0):
    """Lemma 17 (`docs/MATH.md` §4): the properties of erf from its definition (SymPy); mpmath's numerical derivatives of
    erf corroborate erf' and erf''."""
    worst = _erf_derivatives(np.random.default_rng(seed), ctx.size.points)
    return [
        Identities("SymPy: erf's definition, derivatives, signs and limits", "Lemma 17", slem.lemma17_proofs()),
        Measured("SymPy's erf', erf'' against mpmath.diff(erf) (30 digits)", "Lemma 17's derivatives", worst, 1e-20,
                 "30-digit arithmetic: 20 digits leave room for the finite-difference step", corroborates=True,
                 size={"points": ctx.size.points, "seed": seed}),
    ]


def _lemma18_points(rng, n):
    """(label, a, b) for each identity of Lemma 18 at ``n`` random (a, b) (a = 0 for (iv))."""
    out = []
    for label in slem.LEMMA18:
        for a, b in zip(rng.uniform(*_A_RANGE, n), rng.uniform(*_B_RANGE, n)):
            out.append((label, 0.0 if label == "iv" else float(a), float(b)))
    return out


@cache
def _rhs_mp(label):
    (A, B), rhs = slem.lemma18_rhs(label)
    return sp.lambdify((A, B), rhs, "mpmath")


def _lemma18_rhs(label, a, b):
    """Lemma 18's right-hand side ``label`` at (a, b) in mpmath at :data:`_DPS` digits."""
    with mpmath.workdps(_DPS):
        return float(_rhs_mp(label)(mpmath.mpf(a), mpmath.mpf(b)))


def _lemma18_quad(label, a, b):
    j, p, n, _ = slem.LEMMA18[label]
    return quad_erf_moment(a, b, z_power=j, erf_power=p, derivative=n, dps=_DPS)


@claim(
    "lemma-18",
    where="Lemma 18 (i)-(vi) (Appendix D)",
    statement="the Gaussian expectations of erf Theorem 1's derivation uses: E erf(a + bZ) = erf(a/sqrt(1 + 2b^2)), "
    "E Z erf(a + bZ), E Z^2 erf(a + bZ), E erf(bZ)^2, d/da E erf(a + bZ)^2, E Z erf(a + bZ)^2 in closed form",
    domain=lambda s: f"all a real, b > 0 (SymPy); {s.points} random (a, b) in [{_A_RANGE[0]:g}, {_A_RANGE[1]:g}] x "
    f"[{_B_RANGE[0]:g}, {_B_RANGE[1]:g}] per identity (mpmath quadrature, {_DPS} digits)",
    sizes=dict(points=(1, 1, 20)),
)
def lemma18(ctx, seed=0):
    """Lemma 18 (i)-(vi) (`docs/MATH.md` §4; the numbering is this suite's reconstruction): each identity derived from
    first principles by SymPy and shown to be what the derivation engine computes; mpmath quadrature of the
    expectations at random points is the independent route."""
    pts = _lemma18_points(np.random.default_rng(seed), ctx.size.points)
    return [
        Identities("SymPy: Gaussian integrals, integration by parts, the Gaussian product, the heat equation",
                   "Lemma 18 (i)-(vi)", slem.lemma18_proofs()),
        Agreement(f"mpmath quadrature of the expectations ({_DPS} digits)", "Lemma 18's closed forms (mpmath, "
                  f"{_DPS} digits)", _lemma18_quad, _lemma18_rhs, pts, 1e-14,
                  f"both sides at {_DPS} digits, rounded to float64: a few ulps of O(1) values", error="absolute",
                  corroborates=True, size={"seed": seed}).evidence(),
    ]
