r"""All stationary points of R_lam on S^{d-1} x S^{d-1}, in the five overlaps (`docs/MATH.md` §13).

**Equation.** A point (k, v) is stationary iff one PGD step (Definition 1) leaves it in place: k' = k
iff k - alpha (I - kk^T) grad_k R is parallel to k iff the tangent gradient vanishes. In the
overlaps the step is the exact five-overlap map F (derived in :mod:`slr_verify.symbolic.dynamics`),
so the stationary points are the realisable roots of r(o) = (F(o) - o) / alpha. (A root of r is
a pair whose step is a rotation fixing k* and v*; every root is therefore checked afterwards by its
Riemannian gradient, :func:`~.hessian.riemannian_spectrum`, and kept only if that vanishes.)

**Search.** Newton's method on r, batched over many starts drawn from the exact law of the
overlaps of two independent uniform unit vectors in R^4 (full support on the realisable set), with
the Jacobian dF/do + dF/dR . Hess R~ generated from SymPy (:func:`~slr_verify.kernels.landscape.fixed_point_kernels`,
Theorem 1's second partials), and *deflation* (Farrell, Birkisson and Funke 2015): once roots s_i
are known, Newton is run on r(o) prod_i (1/|o - s_i|^2 + 1), which no longer converges to them, from
fresh starts, round after round until a round finds nothing new. Newton's method is drawn to saddles as
much as to minima, and a minimum's basin can be small: at lam = 1.2 of Figure 4b's model 150 uniform
starts in two rounds miss the global minimum (measured at seed 11, 400 starts: 14 of them reach it by
Newton's method alone). A last round therefore starts from ``descents`` uniform starts carried
400 steps by PGD itself (:func:`descend`), which is drawn to minima only (a saddle attracts a null set of
starts): from 400 such starts, 134 reach the global minimum at lam = 1.2, 54 at lam = 0.9, 59 at lam = 0.5
(`docs/MATH.md` §13). It comes after the rounds, deflated by all they found, so that it only adds to them
(started with the rounds, its roots deflate the later rounds, which then stop earlier and find fewer saddles).

**Refinement.** Float64 cannot tell a root from a point where the gradient is merely below
round-off (erf saturates: on the edge nu = 1 of M the gradient at kappa = 0.95, lam = 0.3 is 7.7e-13,
not 0). Every float64 root is therefore refined by Newton's method in mpmath (40 digits, the
kernels generated from the same SymPy expressions) and kept only if the refined residual and the
Riemannian gradient are below 10^-(dps - 12); points that move away are matched again.

**Classification** (:func:`classify`): the Riemannian Hessian at the working precision, its zero
eigenvalues counted against the orbit dimension of the symmetry; if more eigenvalues are zero than
the symmetry explains, the precision is doubled (erf saturation makes some eigenvalues as small as
exp(-lam^2 d/2)) up to 160 digits, and a point still in excess is "degenerate".

**Symmetry.** Besides the rotations fixing k* and v*, R is invariant under (k, v) -> (-k, -v) and
(k, v) -> (Sk, -Sv) with S the reflection that fixes k* and reverses v* (it maps the data of
SLR(k*, v*) to that of SLR(k*, -v*), and v -> -v, Y -> -Y restores the risk). On the overlaps they act
as the sign patterns :data:`SYMMETRIES`; points are reported once per orbit (:func:`canonical`).
"""
from __future__ import annotations

from dataclasses import dataclass, field

import mpmath
import numpy as np

from ..dynamics.trajectory import progress_bar, progress_stream
from ..kernels.generated import risk_and_gradient_kernel
from ..kernels.landscape import fixed_point_kernels
from ..kernels.steps import overlap_map_kernel
from ..model import sampling
from ..model import validation as V
from ..model.params import ModelSetting, Params, accepts_gamma2, keywords_checked, require_d
from .hessian import SNAP, overlaps_of, realise, riemannian_parts, riemannian_spectrum

#: the sign patterns of (kappa, nu, theta, eta, rho) under the discrete symmetries of R
SYMMETRIES = np.array([[1, 1, 1, 1, 1], [-1, -1, -1, -1, 1], [1, 1, -1, -1, -1], [-1, -1, 1, 1, -1]], dtype=float)
#: step size of the map whose fixed points are sought (any alpha > 0 gives the same points)
_ALPHA = 1e-3
#: the precisions of the classification (digits), tried in turn
_DPS = (40, 80, 160)


@dataclass
class StationaryPoint:
    """One stationary point (one per orbit of :data:`SYMMETRIES`) with its classification.

    ``overlaps`` (kappa, nu, theta, eta, rho) (float64 of the refined point); ``risk``; ``kind``
    ("minimum", "saddle", "maximum" or "degenerate"); ``index`` (negative Hessian eigenvalues, with
    multiplicity, over all 2(d - 1) directions); ``flat`` (orbit dimension: zero eigenvalues the
    rotations fixing k*, v* explain); ``core``/``block`` (eigenvalues, floats; see
    :func:`~.hessian.riemannian_spectrum`); ``tangent_norm`` (at the refined point, working
    precision); ``dps`` (digits of the refinement and classification); ``refined`` (the overlaps
    as mpmath numbers); ``name``."""

    overlaps: np.ndarray
    risk: float
    kind: str
    index: int
    flat: int
    core: np.ndarray
    block: np.ndarray
    tangent_norm: float
    dps: int
    refined: tuple = ()
    name: str = ""
    extra: dict = field(default_factory=dict)

    @property
    def images(self):
        """The overlaps of the points of the orbit (4 sign patterns; repeated where fixed)."""
        return self.overlaps[None, :] * SYMMETRIES

    @property
    def min_nonflat(self):
        return self.extra.get("min_nonflat", float("nan"))

    def as_dict(self):
        return {"overlaps": [float(x) for x in self.overlaps], "risk": self.risk, "kind": self.kind,
                "index": self.index, "flat": self.flat, "name": self.name, "min_nonflat_eigenvalue": self.min_nonflat,
                "tangent_norm": self.tangent_norm, "dps": self.dps}


@keywords_checked
def canonical(o, decimals=9):
    """The representative of the orbit of ``o`` under :data:`SYMMETRIES`: the lexicographically
    largest image (compared after rounding to ``decimals``). `docs/MATH.md` §13."""
    o = np.asarray(o, dtype=float)
    imgs = o[None, :] * SYMMETRIES
    keys = [tuple(np.round(x, decimals) + 0.0) for x in imgs]
    return imgs[max(range(4), key=lambda i: keys[i])]


def _as_batch(out, n):
    return np.array([np.broadcast_to(np.asarray(x, dtype=float), (n,)) for x in out])


def _residual_and_jacobian(O, lam, gamma, d, L):
    """r(o) = (F(o) - o)/alpha and its Jacobian for a batch O of shape (n, 5) (float64). A Newton iterate may leave the
    realisable overlaps (:func:`newton` keeps them within 1.5): there the map's renormalisation takes the square root
    (and the -3/2 power) of a negative squared norm. Those rows are NaN, set explicitly, with no NumPy warning;
    :func:`newton` drops them (its non-finite steps)."""
    K = fixed_point_kernels()
    cols = [O[:, i] for i in range(5)]
    n = len(O)
    with np.errstate(invalid="ignore", over="ignore", divide="ignore"):  # outside the domain: handled below
        arr = _as_batch(K.risk_f64(*cols, lam, gamma, 0.0, d, L), n)
        g, H = arr[1:6], arr[6:].reshape(5, 5, n)
        fm = _as_batch(K.map_f64(*cols, *g, _ALPHA), n)
        F, dF = fm[:5], fm[5:].reshape(5, 10, n)
        Jac = dF[:, :5] + np.einsum("ijn,jkn->ikn", dF[:, 5:], H) - np.eye(5)[:, :, None]
        r, J = ((F - O.T) / _ALPHA).T, np.moveaxis(Jac, -1, 0) / _ALPHA
    out = ~(np.all(np.isfinite(r), axis=1) & np.all(np.isfinite(J), axis=(1, 2)))
    r[out], J[out] = np.nan, np.nan
    return r, J


@keywords_checked
def newton(O, *, lam, gamma, d, L, known=(), iters=80, tol=1e-13):
    """Batched (deflated) float64 Newton on the fixed-point equation from the starts ``O`` (n, 5);
    ``known`` roots are deflated. Returns (points (n, 5), converged mask)."""
    O = np.array(O, dtype=float, copy=True)
    S = np.array([np.asarray(s, dtype=float) for s in known]).reshape(-1, 5)
    alive = np.ones(len(O), bool)
    done = np.zeros(len(O), bool)
    for _ in range(iters):
        idx = np.flatnonzero(alive & ~done)
        if not len(idx):
            break
        x = O[idx]
        r, J = _residual_and_jacobian(x, lam, gamma, d, L)
        with np.errstate(all="ignore"):
            try:
                step = -np.linalg.solve(J, r[..., None])[..., 0]
            except np.linalg.LinAlgError:
                step = -np.array([np.linalg.lstsq(j, q, rcond=None)[0] for j, q in zip(J, r)])
            if len(S):  # deflation: the Newton step of r(o) prod_i (1/|o - s_i|^2 + 1)
                diff = x[:, None, :] - S[None]
                q = np.sum(diff**2, axis=-1)
                glog = np.sum(-2 * diff / (q + q**2)[..., None], axis=1)
                step = step / (1.0 - np.sum(glog * step, axis=1))[:, None]
        nrm = np.max(np.abs(step), axis=1)
        bad = ~np.isfinite(nrm)
        scale = np.where(nrm > 0.25, 0.25 / np.where(nrm > 0, nrm, 1), 1.0)
        O[idx] = x + np.where(bad[:, None], 0, step) * scale[:, None]
        done[idx] = (nrm < tol) & ~bad
        alive[idx[bad | np.any(np.abs(O[idx]) > 1.5, axis=1)]] = False
    return O, done & alive


@accepts_gamma2
def descend(O, *, lam, gamma, d, L, iters=400):
    """``iters`` steps of PGD (Definition 1, the five-overlap map of ``docs/MATH.md`` §12) from each row of ``O`` (n, 5),
    each start with its own step size: a step is kept only if it does not increase Theorem 1's risk (then alpha grows
    by 3/2, up to 1), otherwise the start stays and its alpha halves. Returns (overlaps (n, 5), risks (n,)); the risk
    of every row never increases. `docs/MATH.md` §13."""
    p = Params(lam=lam, gamma=gamma, eps=0.0, d=d, L=L)
    lam, gamma, d, L = p.lam, p.gamma, p.d, p.L
    O = np.array(O, dtype=float, copy=True)
    if O.ndim != 2 or O.shape[1] != 5 or not np.all(np.isfinite(O)):
        raise ValueError(f"O: finite overlaps of shape (n, 5) expected, got shape {O.shape}")
    iters = V.integer("iters", iters, 0, 100_000, why="PGD steps")
    rg, step = risk_and_gradient_kernel(), overlap_map_kernel()  # no second partials: they are not used here
    n = len(O)

    def risk_and_gradient(X):
        arr = _as_batch(rg(*X.T, lam, gamma, 0.0, d, L), n)
        return arr[0], arr[1:6]

    alpha = np.full(n, 1e-2)
    R, g = risk_and_gradient(O)
    for _ in range(iters):
        with np.errstate(invalid="ignore", over="ignore", divide="ignore"):  # a rejected trial may leave the domain
            trial = _as_batch(step(*O.T, *g, alpha), n).T
            Rt, gt = risk_and_gradient(trial)
        ok = np.isfinite(Rt) & np.all(np.isfinite(gt), axis=0) & (Rt <= R)
        O[ok], R[ok], g[:, ok] = trial[ok], Rt[ok], gt[:, ok]
        alpha = np.where(ok, np.minimum(1.5 * alpha, 1.0), 0.5 * alpha)
    return O, R


@accepts_gamma2
def refine(o, *, lam, gamma, d, L, dps=40, iters=60):
    """Riemannian Newton's method in mpmath at ``dps`` digits from the float64 root ``o``: on the
    configuration (k, v) realised in R^4, the step solves Hess s = -grad in the tangent bases with
    the pseudo-inverse (eigenvalues below 10^-(dps/2) of the largest are dropped: the symmetry
    orbit's flat directions), then k, v are renormalised. Converges quadratically where the zero
    eigenvalues are exactly the orbit's. Returns (overlaps as mpmath numbers, tangent-gradient norm)
    or None if it does not converge below 10^-(dps - 12). ``dps`` an integer in [20, 200] (as
    :func:`stationary_points`'), ``iters`` in [1, 10000]; the parameters single numbers in the model's ranges."""
    ModelSetting(gamma=gamma, d=d, L=L).at(lam)  # single numbers in the model's ranges (eps does not enter)
    dps = V.integer("dps", dps, 20, 200, why="digits of the mpmath refinement; below 20 it cannot confirm a root")
    iters = V.integer("iters", iters, 1, 10_000, why="Newton steps")
    with mpmath.workdps(dps):
        lam_, gamma_ = mpmath.mpf(lam), mpmath.mpf(gamma)
        try:
            X = realise([mpmath.mpf(float(t)) for t in o], snap=mpmath.mpf(SNAP))
        except ValueError:
            return None
        tol = mpmath.mpf(10) ** (12 - dps)
        cut = mpmath.mpf(10) ** (-dps // 2)
        history = []
        for _ in range(iters):
            P = riemannian_parts(X, lam=lam_, gamma=gamma_, d=d, L=L)
            gn = mpmath.norm(P.grad)
            if gn < tol:
                return overlaps_of(X), gn
            history.append(gn)
            if len(history) > 4 and gn > history[-4] * mpmath.mpf(10) ** -6:
                return None  # not converging quadratically: a float64 root of a gradient below round-off
            w, U = mpmath.eigsy(P.hess)
            big = max(abs(x) for x in w)
            c = U.T * P.grad
            s = mpmath.matrix(6, 1)
            for i in range(6):
                if abs(w[i]) > cut * big:
                    s = s - (c[i] / w[i]) * U[:, i]
            m = mpmath.norm(s)
            if m > mpmath.mpf("0.25"):
                s = s * (mpmath.mpf("0.25") / m)
            k = X[2, :].T + P.Tk * s[0:3, 0]
            v = X[3, :].T + P.Tv * s[3:6, 0]
            k, v = k / mpmath.norm(k), v / mpmath.norm(v)
            for j in range(4):
                X[2, j], X[3, j] = k[j], v[j]
    return None


@accepts_gamma2
def classify(ov, *, lam, gamma, eps=0.0, d, L):
    """Kind, index and eigenvalues of the stationary point with mpmath overlaps ``ov`` (see the
    module's docstring); returns a :class:`StationaryPoint`."""
    for dps in _DPS:
        with mpmath.workdps(dps):
            o = [mpmath.mpf(x) for x in ov]
            sp_ = riemannian_spectrum(o, lam=mpmath.mpf(lam), gamma=mpmath.mpf(gamma), eps=mpmath.mpf(eps), d=d, L=L)
            ev = list(sp_.core) + list(sp_.block)
            mult = [1] * 6 + [sp_.multiplicity] * 2
            scale = max([mpmath.mpf(1)] + [abs(x) for x in ev])
            tol = scale * mpmath.mpf(10) ** (-(dps * 3) // 4)
            zero = [abs(x) < tol for x in ev]
            n_zero = sum(m for m, z in zip(mult, zero) if z)
            index = sum(m for m, x, z in zip(mult, ev, zero) if not z and x < 0)
            n_pos = sum(m for m, x, z in zip(mult, ev, zero) if not z and x > 0)
            if n_zero <= sp_.flat or dps == _DPS[-1]:
                break
    if n_zero > sp_.flat:
        kind = "degenerate"
    elif index == 0:
        kind = "minimum"
    elif n_pos == 0:
        kind = "maximum"
    else:
        kind = "saddle"
    nonflat = [float(x) for x, z in zip(ev, zero) if not z]
    return StationaryPoint(np.array([float(x) for x in ov]), float(sp_.risk), kind, int(index), int(sp_.flat),
                           np.array([float(x) for x in sp_.core]), np.array([float(x) for x in sp_.block]),
                           float(sp_.tangent_norm), dps, tuple(ov), _name(np.array([float(x) for x in ov])),
                           extra={"min_nonflat": min(nonflat) if nonflat else float("nan"), "n_zero": int(n_zero)})


def _name(o):
    k, n, t, e, r = o
    small = lambda *xs: all(abs(x) < 1e-12 for x in xs)
    if small(abs(k) - 1, abs(n) - 1, t, e, r):
        return "oracle" if k * n > 0 else "corner (Proposition 9)"
    if small(t, e, r):
        return "on M (Proposition 9)"
    if small(k, n, r, abs(e) - 1):
        return "k = +-v*"
    return ""


@accepts_gamma2
def stationary_points(*, lam, gamma, eps=0.0, d, L, starts=300, rounds=4, descents=64, seed=0, dps=40, progress=None):
    """All stationary points of R_lam found by deflated multistart Newton and refined at ``dps``
    digits (see the module's docstring), classified, sorted by risk, one per symmetry orbit.

    ``starts`` per round, at most ``rounds`` rounds (stops when a round finds nothing new), then one more
    round from ``descents`` starts carried 400 PGD steps towards a minimum first (:func:`descend`);
    ``progress``: a stream for a bar over the refined candidates (``"auto"``: stderr if a terminal).
    ``extra`` of each point: ``found_in_round`` and ``rejected_candidates`` (the float64 roots the
    whole search rejected: not realisable, not refined, or not stationary at ``dps`` digits; the
    same number on every point). `docs/MATH.md` §13."""
    p = Params(lam=lam, gamma=gamma, eps=eps, d=d, L=L)
    require_d(p.d, "landscape")
    lam, gamma, eps, d, L = p.lam, p.gamma, p.eps, p.d, p.L
    starts = V.integer("starts", starts, 1, 100_000, why="Newton starts per round")
    rounds = V.integer("rounds", rounds, 1, 100)
    descents = V.integer("descents", descents, 0, 100_000, why="starts descended by PGD before Newton's method")
    seed = V.integer("seed", seed, 0) if not isinstance(seed, np.random.SeedSequence) else seed
    dps = V.integer("dps", dps, 20, 200, why="digits of the mpmath refinement; below 20 it cannot confirm a root")
    found: list[StationaryPoint] = []
    seen: list[np.ndarray] = []  # float64 candidates already refined (canonical)
    rejected = 0
    *seeds, descent_seed = np.random.SeedSequence(seed).spawn(rounds + 1)  # the rounds' seeds as spawn(rounds) gives
    special = np.array([[1, 1, 0, 0, 0], [1, -1, 0, 0, 0], [0, 0, 0, 0, 0], [0, 0, 0.5, 1, 0]], dtype=float)
    progress = progress_stream(progress)

    def search(O, rnd):  # Newton from the rows of O, deflated by what is known; the number of new points
        known = [q for s in found for q in s.images] + [q for c in seen for q in c[None, :] * SYMMETRIES]
        X, ok = newton(O, lam=lam, gamma=gamma, d=d, L=L, known=known)
        nonlocal rejected
        new = 0
        bar = progress_bar(int(np.sum(ok)), progress, f"stationary points (round {rnd + 1})")
        for x in X[ok]:
            if bar is not None:
                bar.update(1)
            pt, refused = _candidate(x, seen, found, lam=lam, gamma=gamma, eps=eps, d=d, L=L, dps=dps)
            rejected += refused
            if pt is not None:
                pt.extra["found_in_round"] = rnd
                found.append(pt)
                new += 1
        if bar is not None:
            bar.close()
        return new

    for rnd, ss in enumerate(seeds):
        O = np.stack(list(sampling.initial_overlaps_exact(ss, starts, 4)), axis=1)
        if search(np.vstack([special, O]) if rnd == 0 else O, rnd) == 0 and rnd > 0:
            break
    if descents:  # after the rounds, so that it only adds to what they find
        D = np.stack(list(sampling.initial_overlaps_exact(descent_seed, descents, 4)), axis=1)
        search(descend(D, lam=lam, gamma=gamma, d=d, L=L)[0], rnd + 1)
    found.sort(key=lambda s: s.risk)
    for s in found:
        s.extra["rejected_candidates"] = rejected
    return found


def _candidate(x, seen, found, *, lam, gamma, eps, d, L, dps):
    """(point, rejected) for the float root ``x``: the new classified point or None; rejected 1 if ``x`` was refused."""
    x = canonical(x)
    if any(np.max(np.abs(x - c)) < 1e-6 for c in seen):
        return None, 0
    seen.append(x)
    try:
        realise(x)
    except ValueError:
        return None, 1
    ref = refine(x, lam=lam, gamma=gamma, d=d, L=L, dps=dps)
    if ref is None:
        return None, 1
    xr = ref[0]
    xc = canonical(np.array([float(t) for t in xr]))
    if any(np.max(np.abs(xc - s.overlaps)) < 1e-12 for s in found):
        return None, 0
    try:
        pt = classify(_canonical_mp(xr, xc), lam=lam, gamma=gamma, eps=eps, d=d, L=L)
    except ValueError:
        return None, 1
    if pt.tangent_norm > 10.0 ** (12 - dps):
        return None, 1
    return pt, 0


def _canonical_mp(xr, xc):
    """The image of the mpmath point ``xr`` by the sign pattern that maps it to ``xc``."""
    x = np.array([float(t) for t in xr])
    for sgn in SYMMETRIES:
        if np.max(np.abs(x * sgn - xc)) < 1e-12:
            return tuple(t if s > 0 else -t for t, s in zip(xr, sgn))  # exact, at any precision
    return tuple(xr)
