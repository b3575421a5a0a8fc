"""Theorem 5 in a tube around M near the oracle (`docs/MATH.md` §13, "A tube around M"): the committed ``oracle-tube``
certificates at Figure 4b's model and the paper's step (written by ``benchmarks/oracle_tubes.py`` with
:func:`slr_verify.certify.oracle_tube.oracle_tube_cover`), replayed by the independent checker and bound to the
statement, and the five-overlap PGD runner started inside each as the corroboration.

Each check takes a :class:`~.base.Context` and returns a list of :class:`~.vocabulary.Evidence`.
"""

from __future__ import annotations

import numpy as np

from ..certify.committed import load_committed, names, replay_committed
from ..certify.oracle_tube import OracleTube
from ..checker.binding import proves
from ..dynamics.runners import overlap_pgd
from .base import claim
from .landscape_claims import FIG4B, MODEL_4B, SETTING_4B
from .vocabulary import Measured, Replayed, claim_setting

#: the paper's step at Figure 4b
ALPHA = FIG4B.alpha
#: the committed oracle tubes' files start so (benchmarks/oracle_tubes.py; benchmarks/results/oracle_tubes_fig4b.json)
PREFIX = "tube_fig4b_"
#: what the statement states, a lam piece at a time: (lam_lo, lam_hi, c, r), D = [c, 1]^2 and the Euclidean radius r of
#: (theta, eta, rho) (the certificates', rounded down to two digits)
STATED = ((0.01, 0.0105, 0.8, 1.0e-3), (0.03, 0.0315, 0.95, 2.0e-4), (0.1, 0.105, 0.999, 2.9e-6),
          (0.15, 0.15375, 0.9999, 2.8e-7), (0.15375, 0.1575, 0.9999, 2.8e-7))


def _starts(t, n, rng):
    """``n`` realisable overlap tuples inside the tube ``t``'s entry condition, drawn from unit k, v in R^6 near the
    corner: (kappa, nu) uniform in D, then (theta, eta, rho) of |.|_2 about the Euclidean radius; those outside the
    entry condition (decided by :meth:`~slr_verify.certify.oracle_tube.Tube.contains`) dropped. (5, m), m <= n."""
    (c, _), _ = t.D
    r = t.euclidean_entry()
    out, tries = [], 0
    while len(out) < n:
        tries += 1
        if tries > 100 * n:  # the draw keeps about half: this many misses means the entry set is not where it is drawn
            raise RuntimeError(f"{tries} draws found {len(out)} of {n} starts inside the tube at lam = {t.params['lam']}")
        kap, nu = rng.uniform(c, 1, 2)
        k = np.array([kap, 0, np.sqrt(1 - kap**2), 0, 0, 0])
        v = np.array([0, nu, 0, np.sqrt(1 - nu**2), 0, 0])
        k += 0.4 * r * rng.standard_normal(6)
        v += 0.4 * r * rng.standard_normal(6)
        k, v = k / np.linalg.norm(k), v / np.linalg.norm(v)
        ov = np.array([k[0], v[1], v[0], k[1], k @ v])
        if ov[0] >= c and ov[1] >= c and t.contains(ov)[0]:
            out.append(ov)
    return np.array(out).T


def _stated_text():
    parts = [f"c = {c:g}, r = {r:.2g} on [{a:g}, {b:g}]" for a, b, c, r in STATED]
    return "; ".join(parts)


@claim(
    "theorem5-tube",
    where="finding (docs/MATH.md section 13, 'A tube around M'; beyond Theorem 5)",
    kind="finding",
    statement=f"at Figure 4b's model and the paper's step alpha = {ALPHA:g}, PGD on the spheres started off M converges to "
    "(k*, v*) from every realisable start with (kappa, nu) in D = [c, 1]^2 and |(theta, eta, rho)|_2 <= r, for every lam "
    f"of each piece: {_stated_text()}; the transverse overlaps contract at a certified geometric rate (oracle-tube "
    "certificates the independent checker replays: contraction across M, the drift it causes along M, progress on M). "
    "D shrinks as lam nears the step's stability threshold (~0.16, where the oracle becomes a linearly unstable fixed "
    "point of PGD)",
    domain=lambda s: f"{FIG4B.model_text}, alpha = {ALPHA:g}, the {len(STATED)} committed lam pieces; {s.runs} "
    f"five-overlap runs from starts inside each tube, {s.steps} steps",
    sizes=dict(runs=(10, 40, 200), steps=(5000, 20_000, 100_000)),
    setting=SETTING_4B,
)
def theorem5_tube(ctx, seed=7):
    """The committed oracle tubes, replayed and bound piece by piece (kind, setting, the piece's lam, alpha, and the tube:
    D = [c, 1]^2 and |y|_2 <= r inside the certificate's); the five-overlap runner (float64, d-free) from starts inside
    each: at every recorded step |T^{-1} y_t|_2 <= q^t |T^{-1} y_0|_2 (the certified contraction, float rounding
    allowed for), (kappa, nu) never below D_m, and every run nearer the oracle at the end than at the start."""
    files = names(PREFIX)
    reps = [replay_committed(f) for f in files]
    setting = claim_setting(SETTING_4B)
    binding = [proves(r, kind="oracle-tube", setting=setting, lam=(a, b), domain={"alpha": ALPHA, "tube": {"corner": c,
                                                                                                         "radius": rad}})
               for r, (a, b, c, rad) in zip(reps, STATED)] if len(reps) == len(STATED) else [
        (False, f"{len(reps)} committed tubes for the {len(STATED)} stated pieces")] * len(reps)
    holds = len(reps) == len(STATED) and all(r.accepted and ok for r, (ok, _) in zip(reps, binding))
    out = [Replayed("ball arithmetic (arb, 128 bits) over every box of D_m x {|T^{-1} y|_2 <= r} (x the lam piece): the "
                    "five-overlap map's Jacobian (committed pgd-map kernels), q^2 I - M^T M positive definite, the drift "
                    "bound C, g_kappa, g_nu < 0 on M; certificates replayed by certify.replay",
                    "every stated piece's tube inside its certificate's (D at least [c, 1]^2, the Euclidean radius at least r)",
                    reps, binding=binding, holds=holds, why="each piece's certificate proves its tube",
                    details={"files": files, "leaves": [r.leaves for r in reps]})]
    tubes = {(a + b) / 2: OracleTube.from_replay(r, load_committed(f)) for f, r, (a, b, *_) in zip(files, reps, STATED)
             if r.accepted}
    return out + [_runs_inside(tubes, ctx, seed)]


def _runs_inside(tubes, ctx, seed):
    """The five-overlap runner (float64, d-free) from starts inside each proved tube: at every recorded step
    |T^{-1} y_t|_2 <= q^t |T^{-1} y_0|_2 (float rounding allowed for), (kappa, nu) never below D_m, and every run nearer
    the oracle at the end than at the start."""
    rng = np.random.default_rng(seed)
    worst, stray, farther, n = 0.0, 0, 0, 0
    for lam, t in tubes.items():
        if not t.proved:
            continue
        X = _starts(t, ctx.size.runs, rng)
        every = max(1, ctx.size.steps // 50)
        tr = overlap_pgd(list(X), lam=lam, alpha=ALPHA, steps=ctx.size.steps, every=every, **MODEL_4B)
        Tinv = np.linalg.inv(t.T)
        Y = np.stack([tr.theta, tr.eta, tr.rho])  # (3, records, runs)
        ny = np.linalg.norm(np.einsum("ij,jrn->irn", Tinv, Y), axis=0)
        # the certified bound at every record after the start, float rounding (1e-15 a step, absolute) allowed for
        t_ = tr.step[1:, None]
        worst = max(worst, float(np.max((ny[1:] - 1e-15 * t_) / (t.q**t_ * ny[0]))))
        (c, _), m = t.D[0], t.margin
        stray += int(np.sum((tr.kappa.min(axis=0) < c - m) | (tr.nu.min(axis=0) < c - m)))
        dist = np.hypot(1 - tr.kappa, 1 - tr.nu) + ny
        farther += int(np.sum(dist[-1] >= dist[0]))
        n += X.shape[1]
    return Measured("five-overlap PGD (float64, d-free), starts inside each proved tube",
                    "the certified contraction |T^{-1} y_t| <= q^t |T^{-1} y_0|, (kappa, nu) inside D_m, runs approach "
                    "the oracle", float(worst > 1) + stray + farther, 0.0,
                    "a sound tube is never contradicted by its own map",
                    unit="runs or records against the theorem", corroborates=True,
                    size={"runs": n, "steps": ctx.size.steps, "seed": seed},
                    details={"largest (|y_t| - rounding) / (q^t |y_0|), t >= 1": worst if n else None, "left_D_m": stray,
                             "not_nearer": farther})
