"""Checks of the claims on the risk's closed forms: zeta, Theorem 1, the oracle's risk, the law of J0, Lemma 6 (paper,
Sections 2-3 and Appendix C; `docs/MATH.md` §§2-5, 9). The limits, Corollary 2 and Proposition 3, are checked in
:mod:`.optimality_claims`.

Each check takes a :class:`~.base.Context` and returns a list of :class:`~.vocabulary.Evidence`.

Tolerances:

* ``EXACT_RTOL = 1e-12``: float64 kernels vs mpmath at 20+ digits. The kernels evaluate closed
  forms whose terms are O(1); measured errors are ~1e-15, so 1e-12 leaves room for conditioning
  and still catches any wrong constant, sign or factor (a factor 1 + 1e-6 is caught).
* ``Z_MAX = 4.5``: Monte Carlo vs closed form, in standard errors.
"""

from __future__ import annotations

import numpy as np
import sympy as sp

from .. import routes
from ..kernels import api, special
from ..model.overlaps import Overlaps
from ..model.params import ParamBox, Params
from ..model.settings import PAPER_GAMMA, PAPER_GAMMA2
from ..routes import montecarlo as mc
from ..symbolic import risk as srisk
from ..symbolic import zeta as szeta
from .base import ClaimSetting, claim
from .vocabulary import Agreement, Identities, Measured, MonteCarlo

EXACT_RTOL = 1e-12
#: why :data:`EXACT_RTOL`, as the evidence records state it
EXACT_WHY = "kernels evaluate O(1) closed-form terms to ~1e-15; 1e-12 leaves room for conditioning, catches any factor 1 + 1e-6"


def random_overlaps(rng, n, dim=4):
    """n realisable overlap tuples from random unit k, v in R^dim (k* = e1, v* = e2; dim >= 2: at d = 2 or 3 the
    overlaps are drawn in R^d, realisable there)."""
    k = rng.standard_normal((n, dim))
    v = rng.standard_normal((n, dim))
    k /= np.linalg.norm(k, axis=1, keepdims=True)
    v /= np.linalg.norm(v, axis=1, keepdims=True)
    e = np.eye(dim)
    ov = Overlaps.from_vectors(k, v, e[0], e[1])
    return [tuple(float(x[i]) for x in ov) for i in range(n)]


#: the box the randomised checks draw their settings from
RANDOM_PARAMS = ParamBox()


def random_params(rng):
    return RANDOM_PARAMS.draw(rng)


#: at a user's setting, the randomised checks draw lam from the box's range (the setting fixes gamma, eps, d, L)
_LAM_TEXT = f"lam drawn from [{RANDOM_PARAMS.lam[0]:g}, {RANDOM_PARAMS.lam[1]:g}]"
_NAMES = ("kappa", "nu", "theta", "eta", "rho")


def _user_params(rng, n, setting):
    """n parameter sets at a user's setting: its gamma, eps, d, L, lam drawn uniformly from the box's range."""
    return [dict(lam=float(lam), **setting.kw()) for lam in rng.uniform(*RANDOM_PARAMS.lam, n)]


def _user_points(rng, n, setting):
    """n random realisable overlap tuples (in R^min(4, d)) with :func:`_user_params` at a user's setting."""
    ovs = random_overlaps(rng, n, min(4, setting.d))
    return [dict(zip(_NAMES, ov), **p) for ov, p in zip(ovs, _user_params(rng, n, setting))]


#: the full-dimensional Monte Carlo at a user's d draws at most this many Gaussians (samples x L x d x 2)
_FULL_BUDGET = 2e8


#: at a user's setting each Monte Carlo estimate draws at most this many tokens (samples x L)
_MC_TOKENS = 2e7


def _n(samples, setting):
    """The Monte Carlo samples per estimate: the mode's, at a user's setting within :data:`_MC_TOKENS` tokens."""
    return min(samples, int(_MC_TOKENS // setting.L)) if setting.user else samples


def _mc_range(setting):
    """None when the Monte Carlo routes fit a user's setting (at least 1000 samples within :data:`_MC_TOKENS`
    tokens), else why not."""
    if _n(10**9, setting) < 1000:
        return f"L = {setting.L}: the Monte Carlo routes draw samples x L tokens, and beyond L = " \
               f"{int(_MC_TOKENS // 1000):,} fewer than 1000 samples fit their {_MC_TOKENS:.0e}"
    return None


def _full_samples(samples, setting):
    """Samples of Theorem 1's full-dimensional Monte Carlo at a user's setting: a quarter of the d-free count, within
    the budget (fewer than 1000: none)."""
    return min(samples // 4, int(_FULL_BUDGET // (2 * setting.L * setting.d)))


# --------------------------------------------------------------------------- zeta
_T_RANGE, _G_RANGE = (-1e3, 1e3), (1e-12, 1e3)


def _zeta_grid(nt, ng):
    """The zeta claim's grid: t = 0, nt values log-spaced in [1e-6, 1e3] and three in [-1e3, -1e-2]; ng values of g
    log-spaced over :data:`_G_RANGE`."""
    t = np.concatenate([[0.0], np.geomspace(1e-6, _T_RANGE[1], nt), -np.geomspace(1e-2, -_T_RANGE[0], 3)])
    return t, np.geomspace(*_G_RANGE, ng)


@claim(
    "zeta",
    where="Section 3 (zeta in Theorem 1)",
    statement="zeta_g(t) = E erf(t + gZ)^2 has a closed form (Owen's T); its float64 kernel keeps full relative accuracy",
    domain=lambda s: (
        f"t in [{_T_RANGE[0]:g}, {_T_RANGE[1]:g}] ({s.nt + 4} values), g in [{_G_RANGE[0]:g}, {_G_RANGE[1]:g}] "
        f"({s.ng} values, log-spaced)"
    ),
    sizes=dict(nt=(6, 12, 40), ng=(5, 10, 30)),
)
def zeta(ctx):
    """zeta (docs/MATH.md section 4): float64 kernel vs the 60-digit Owen-T closed form on a grid;
    closed form vs direct quadrature over Z; zeta_g(0) against the arcsin formula (SymPy's
    :func:`slr_verify.symbolic.zeta.zeta_at_zero`, evaluated at 40 digits)."""
    t, g = _zeta_grid(ctx.size.nt, ctx.size.ng)
    pts = [(0.0, 1e-12), (0.7, 0.05), (2.5, 1.0), (-4.0, 0.2), (30.0, 10.0), (0.01, 1e3)]
    return [
        Agreement(
            "float64 zeta kernel",
            "60-digit mpmath Owen-T closed form",
            lambda ti, gi: api.zeta(ti, gi),
            lambda ti, gi: special.zeta_mp(ti, gi, dps=60),
            [(ti, gi) for gi in g for ti in t],
            4e-15,
            "closed form evaluated with non-negative terms: ~18 ulps (measured worst 2.4e-15 on 400 random points over the "
            "whole domain); any regime switch gone wrong shows far above it",
            details={"t": t.size, "g": g.size},
        ).evidence(lambda it: ctx.steps(it, "zeta grid")),
        Agreement(
            "mpmath Owen-T closed form (40 digits)",
            "mpmath quadrature of E erf(t+gZ)^2 over Z (30 digits)",
            lambda ti, gi: special.zeta_mp(ti, gi, dps=40),
            lambda ti, gi: routes.quad_zeta(ti, gi, dps=30),
            pts,
            1e-20,
            "two 30+-digit evaluations of one number",
        ).evidence(),
        Agreement(
            "float64 zeta kernel at t = 0",
            "SymPy's zeta_g(0) = (2/pi) asin(2g^2/(1+2g^2)) at 40 digits",
            lambda gi: api.zeta(0.0, gi),
            szeta.zeta_at_zero_value,
            [(gi,) for gi in g],
            1e-14,
            "a one-term closed form: a few ulps",
            corroborates=True,
        ).evidence(),
    ]


# --------------------------------------------------------------------------- Theorem 1
@claim(
    "theorem-1",
    where="Theorem 1, Proposition 15 (Appendix C)",
    statement="R_lam(k, v) is a closed form in (kappa, nu, theta, eta, rho)",
    domain=lambda s: (
        f"{s.points} random realisable overlap tuples with settings drawn from {RANDOM_PARAMS.text}; "
        f"Monte Carlo with {s.samples} samples"
    ),
    sizes=dict(points=(4, 10, 100), grad=(2, 4, 100), mc=(2, 4, 12), samples=(100_000, 200_000, 2_000_000)),
    at_setting=lambda s, st: (
        f"{s.points} random realisable overlap tuples at {st.text}, {_LAM_TEXT}; Monte Carlo with {_n(s.samples, st)} "
        "samples (d-free), " + (f"and {_full_samples(_n(s.samples, st), st)} full-dimensional at d = {st.d}, lam = 0.6"
                                if _full_samples(_n(s.samples, st), st) >= 1000 else
                                f"none full-dimensional (d L = {st.d * st.L:g}: under 1000 samples fit "
                                f"{_FULL_BUDGET:.0e} Gaussians)")
    ),
    runs_at=_mc_range,
)
def theorem1(ctx, seed=1):
    """Theorem 1: the generated risk and gradient vs mpmath quadrature of the definition at random
    realisable points; Monte Carlo of the model (d-free sampler at those points, full-dimensional
    sampler at d = 20). At a user's setting: the points at its gamma, eps, d, L (lam drawn), the
    full-dimensional sampler at its d."""
    st = ctx.setting
    pts, n = _points(np.random.default_rng(seed), ctx.size.points, st), _n(ctx.size.samples, st)
    mcs = _monte_carlo(pts[: ctx.size.mc], api.risk, n, seed)
    here = {"setting": st.as_dict()} if st.user else {}
    return [
        Agreement(
            "risk kernel (SymPy -> float64)",
            "mpmath quadrature of the definition (20 digits)",
            api.risk,
            lambda **p: routes.quad_risk(**p, dps=20),
            pts,
            EXACT_RTOL,
            EXACT_WHY,
            size={"seed": seed},
            details=dict(here, lam=[p["lam"] for p in pts]) if st.user else {},
        ).evidence(lambda it: ctx.steps(it, "Theorem 1 points")),
        Measured(
            "gradient kernel",
            "mpmath quadrature of the gradient (20 digits)",
            max(_gradient_error(p) for p in pts[: ctx.size.grad]),
            EXACT_RTOL,
            EXACT_WHY,
            unit="error relative to the largest partial",
            size={"points": ctx.size.grad, "seed": seed},
            details=here,
        ),
        MonteCarlo("risk kernel", "Monte Carlo, d-free sampler", mcs, corroborates=True,
                   size={"samples": n, "seeds": [seed, seed + len(mcs) - 1]}, details=here),
        *_full_dimensional(st, n, seed, here),
    ]


def _points(rng, n, setting):
    """n random realisable overlap tuples with their settings: at a user's setting :func:`_user_points`, else the
    overlaps in R^4 and the settings drawn from :data:`RANDOM_PARAMS`."""
    if setting.user:
        return _user_points(rng, n, setting)
    return [dict(zip(_NAMES, ov), **random_params(rng)) for ov in random_overlaps(rng, n)]


def _monte_carlo(points, exact, n, seed, **overlaps):
    """(estimate, standard error, exact(**p)) at each point p: the d-free Monte Carlo route with n samples at p and the
    fixed ``overlaps`` (and predictor), seeded seed, seed + 1, ... in turn."""
    return [(*mc.mc_risk_overlaps(**overlaps, **p, n=n, seed=seed + i), exact(**p)) for i, p in enumerate(points)]


def _gradient_error(p):
    """The gradient kernel's worst error at p against mpmath quadrature (20 digits), relative to the largest partial."""
    q = routes.quad_risk_gradient(**p, dps=20)
    g = api.risk_gradient(**p)
    return max(abs(g[k] - float(q[k])) for k in g) / max(abs(float(x)) for x in q.values())


def _full_dimensional(st, n, seed, here):
    """Theorem 1's Monte Carlo by the full-dimensional sampler (random k*, v*, k, v in R^d; d = 20, lam = 0.6, the
    paper's gamma, eps = 0.1, L = 5, n/4 samples; at a user's setting its d, gamma, eps, L within
    :data:`_FULL_BUDGET`): one MonteCarlo record, none where fewer than 1000 samples fit."""
    d, pr, n_full = 20, dict(lam=0.6, gamma=PAPER_GAMMA, eps=0.1, L=5), n // 4
    if st.user:
        d, pr = st.d, dict(lam=0.6, gamma=st.gamma, eps=st.eps, L=st.L)
        n_full = _full_samples(n, st)  # n is already within the token budget
    if n_full < 1000:  # at a user's very large d * L the d-free sampler alone (the sample would say nothing)
        return []
    ks, vs = mc.random_instance(d, seed)
    k, v = mc.random_unit(d, seed + 1), mc.random_unit(d, seed + 2)
    full = [(*mc.mc_risk(k, v, ks, vs, **pr, n=n_full, seed=seed), api.risk(*Overlaps.from_vectors(k, v, ks, vs), **pr, d=d))]
    return [MonteCarlo("risk kernel", f"Monte Carlo, full-dimensional sampler (d = {d})", full, corroborates=True,
                       size={"samples": n_full, "seed": seed}, details=dict(here, **pr, d=d) if st.user else {})]


@claim(
    "oracle-risk",
    where="Theorem 1 at (k*, v*)",
    statement="R_lam(k*, v*) = eps^2 + gamma^2 [1 - 2 erf(.) + zeta_{lam gamma}(lam sqrt(d/2))] + (L - 1) zeta_lam(0)",
    domain=lambda s: f"all parameters (SymPy); {s.points} settings drawn from {RANDOM_PARAMS.text} (numeric, Monte Carlo)",
    sizes=dict(points=(2, 3, 8), samples=(100_000, 200_000, 1_000_000)),
    at_setting=lambda s, st: f"all parameters (SymPy); at {st.text}, {s.points} values of lam drawn from "
    f"[{RANDOM_PARAMS.lam[0]:g}, {RANDOM_PARAMS.lam[1]:g}] (numeric, Monte Carlo with {_n(s.samples, st)} samples)",
    runs_at=_mc_range,
)
def oracle_risk(ctx, seed=2):
    """The oracle risk (docs/MATH.md section 5): SymPy shows Theorem 1 at (k*, v*) equals the stated
    formula; the kernel (complement form) vs mpmath quadrature; Monte Carlo of the oracle predictor.
    At a user's setting the numeric routes run at its gamma, eps, d, L (lam drawn)."""
    exact = sp.simplify(srisk.theorem1_risk().subs(srisk.oracle_point()) - srisk.oracle_risk_spec()) == 0
    rng, st = np.random.default_rng(seed), ctx.setting
    prs = _user_params(rng, ctx.size.points, st) if st.user else [random_params(rng) for _ in range(ctx.size.points)]
    here = {"setting": st.as_dict(), "lam": [p["lam"] for p in prs]} if st.user else {}
    n = _n(ctx.size.samples, st)
    mcs = _monte_carlo(prs, api.oracle_risk, n, seed, kappa=1, nu=1, theta=0, eta=0, rho=0, predictor="oracle")
    return [
        Identities(
            "SymPy: Theorem 1 at kappa = nu = 1, theta = eta = rho = 0",
            "the oracle formula of docs/MATH.md section 5",
            {"Theorem 1 at the oracle = stated formula": exact},
        ),
        Agreement(
            "oracle kernel (complement form)",
            "mpmath quadrature (20 digits)",
            api.oracle_risk,
            lambda **p: routes.quad_oracle_risk(**p, dps=20),
            prs,
            EXACT_RTOL,
            EXACT_WHY,
            corroborates=True,
            size={"seed": seed},
            details=here,
        ).evidence(),
        MonteCarlo(
            "oracle kernel", "Monte Carlo of the oracle predictor", mcs, corroborates=True, size={"samples": n, "seed": seed},
            details={**here, "risk": [r for *_, r in mcs]} if st.user else {},
        ),
    ]


def _identically_zero(expr) -> bool:
    """Whether ``expr`` is identically zero: first as a rational function of its atoms (expand,
    then cancel: a zero there is a proof, in milliseconds), else by ``sp.simplify`` (seconds).
    Either answer True only for an identity; the second only decides what the first leaves open."""
    return bool(sp.cancel(sp.expand(expr)) == 0) or bool(sp.simplify(expr) == 0)


_J0_SYMBOLIC_L = (1, 2, 3)
_J0_LAWS = ([0.7, 0.1, 0.1, 0.1], [0, 0, 1.0, 0], [0.25] * 4)
_J0_SETTING = dict(lam=0.8, gamma=PAPER_GAMMA, eps=0.2, d=50, L=4)


def _j0_laws(L):
    """Laws of J0 on L locations at a user's setting: skewed (0.7 on the first), a point mass (on the third, or the
    last), uniform; the distinct ones (one law when L = 1)."""
    skew = [0.7] + [0.3 / (L - 1)] * (L - 1) if L > 1 else [1.0]
    point = [0.0] * L
    point[min(2, L - 1)] = 1.0
    laws = []
    for law in (skew, point, [1.0 / L] * L):
        if law not in laws:
            laws.append(law)
    return laws


@claim(
    "law-of-J0",
    where="Section 2",
    statement="R_lam(k, v) does not depend on the law of J0",
    domain=lambda s: (
        f"L <= {max(_J0_SYMBOLIC_L)}, all parameters (SymPy); {Params(**_J0_SETTING).label()} under laws {list(_J0_LAWS)} "
        f"(Monte Carlo, {s.samples} samples each)"
    ),
    sizes=dict(samples=(100_000, 200_000, 1_000_000)),
    setting=ClaimSetting.paper("the Monte Carlo's setting (SymPy: all parameters)",
                               gamma2=PAPER_GAMMA2, eps=_J0_SETTING["eps"], d=_J0_SETTING["d"], L=_J0_SETTING["L"]),
    at_setting=lambda s, st: (
        f"L <= {max(_J0_SYMBOLIC_L)}, all parameters (SymPy); lam = {_J0_SETTING['lam']:g}, {st.text} under "
        f"{len(_j0_laws(st.L))} laws (skewed, point mass, uniform; Monte Carlo, {_n(s.samples, st)} samples each)"
    ),
    runs_at=_mc_range,
)
def law_of_J0(ctx, seed=3):
    """The risk does not depend on the law of J0 (paper, Section 2): SymPy (the conditional risk is
    the same for every location, L <= 3) and Monte Carlo under skewed and point-mass laws (L = 4; at a
    user's setting at its gamma, eps, d, L with laws of that length)."""
    checks = {
        f"R given J0 = {j + 1} equals R (L = {L})": _identically_zero(
            srisk.risk_given_location(j, L) - srisk.theorem1_risk().subs(srisk.S.L, L)
        )
        for L in _J0_SYMBOLIC_L
        for j in range(L)
    }
    rng = np.random.default_rng(seed)
    st = ctx.setting
    setting, laws = (dict(lam=_J0_SETTING["lam"], **st.kw()), _j0_laws(st.L)) if st.user else (_J0_SETTING, _J0_LAWS)
    (ov,) = random_overlaps(rng, 1, min(4, setting["d"]))
    ref = api.risk(*ov, **setting)
    n = _n(ctx.size.samples, st)
    mcs = [(*mc.mc_risk_overlaps(*ov, **setting, n=n, seed=seed + i, p=p), ref) for i, p in enumerate(laws)]
    return [
        Identities("SymPy: conditional risk per location, summed token pair by token pair", "Theorem 1's risk", checks),
        MonteCarlo(
            "risk kernel (law-free)",
            "Monte Carlo under skewed, point-mass and uniform laws of J0",
            mcs,
            size={"laws": len(laws), "samples": n, "seed": seed},
            details={"setting": st.as_dict(), "lam": setting["lam"], "laws": laws, "risk": ref} if st.user else {},
        ),
    ]


@claim(
    "lemma-6",
    where="Lemma 6",
    statement="on M the risk depends on (kappa, nu) only, by the stated formula",
    domain=lambda s: f"all parameters (SymPy); {s.points} settings drawn from {RANDOM_PARAMS.text} (numeric, Monte Carlo)",
    sizes=dict(points=(2, 3, 10), samples=(100_000, 200_000, 1_000_000)),
    at_setting=lambda s, st: f"all parameters (SymPy); at {st.text}, {s.points} random (kappa, nu) in "
    + ("[-1, 1]^2" if st.d >= 4 else "[-1, 1] x {-1, 1} (realisable on M at d = 3)" if st.d == 3 else "{-1, 1}^2 (d = 2)")
    + f", {_LAM_TEXT} (numeric, Monte Carlo with {_n(s.samples, st)} samples)",
    runs_at=_mc_range,
)
def lemma6(ctx, seed=4):
    """Lemma 6: on M the risk is the stated function of (kappa, nu): SymPy identity, kernel vs
    quadrature, Monte Carlo (at a user's setting: at its gamma, eps, d, L, lam drawn)."""
    exact = sp.simplify(srisk.theorem1_risk().subs(srisk.manifold_point()) - srisk.lemma6_spec()) == 0
    st = ctx.setting
    pts, n = _manifold_points(np.random.default_rng(seed), ctx.size.points, st), _n(ctx.size.samples, st)
    here = {"setting": st.as_dict(), "points": [{k: float(v) for k, v in p.items() if k in ("kappa", "nu", "lam")}
                                                for p in pts]} if st.user else {}
    mcs = _monte_carlo(pts, api.manifold_risk, n, seed, theta=0, eta=0, rho=0)
    return [
        Identities(
            "SymPy: Theorem 1 at theta = eta = rho = 0",
            "Lemma 6's formula (docs/MATH.md section 9)",
            {"Theorem 1 on M = Lemma 6": exact},
        ),
        Agreement(
            "manifold-risk kernel",
            "mpmath quadrature (20 digits)",
            api.manifold_risk,
            lambda **p: routes.quad_manifold_risk(**p, dps=20),
            pts,
            EXACT_RTOL,
            EXACT_WHY,
            corroborates=True,
            size={"seed": seed},
            details=here,
        ).evidence(lambda it: ctx.steps(it, "Lemma 6 points")),
        MonteCarlo("manifold-risk kernel", "Monte Carlo", mcs, corroborates=True, size={"samples": n, "seed": seed},
                   details=here),
    ]


def _manifold_points(rng, n, st):
    """n random points (kappa, nu) of M, uniform in [-1, 1]^2, with their settings (drawn from :data:`RANDOM_PARAMS`;
    at a user's setting :func:`_user_params`); at a user's d < 4 those realisable on M: |nu| = 1 at d = 3, a corner
    at d = 2."""
    pts = []
    for _ in range(n):
        kappa, nu = rng.uniform(-1, 1, 2)
        if st.user and st.d < 4:  # realisable on M: an edge |nu| = 1 at d = 3, a corner at d = 2
            nu = 1.0 if nu > 0 else -1.0
            kappa = kappa if st.d == 3 else (1.0 if kappa > 0 else -1.0)
        pts.append(dict(kappa=kappa, nu=nu, **(_user_params(rng, 1, st)[0] if st.user else random_params(rng))))
    return pts
