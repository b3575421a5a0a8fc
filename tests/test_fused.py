"""The fused five-overlap kernel (slr_verify.kernels.fused) and its Owen-T table.

Independent routes: Owen's T by arb's rigorous quadrature of its defining integral (an enclosure at 113 bits); one PGD
step by Theorem 1's partials at 30 digits (the mpmath closed form of zeta, no table) and the
five-overlap map at 30 digits; the full-dimensional runner in ``test_dynamics.py``.
"""
import time
from dataclasses import dataclass

import mpmath as mp
import numpy as np
import pytest
from flint import acb, arb, ctx
from scipy.special import erf

from slr_verify.dynamics import overlap_pgd
from slr_verify.kernels import fused, owen_table
from slr_verify.kernels.codegen import generate_mp
from slr_verify.kernels.steps import mp_gradient_kernel
from slr_verify.model.sampling import initial_overlaps_exact
from slr_verify.symbolic import dynamics as sdyn
from slr_verify.symbolic import risk as srisk

GAMMA = float(np.sqrt(0.5))


def owens_t_arb(h, a, prec=113):
    """T(h, a) = (1/2pi) int_0^a exp(-h^2 (1 + x^2)/2) / (1 + x^2) dx, an enclosure by arb's rigorous quadrature
    (h, a exact floats; the integrand is meromorphic, so the analytic flag needs no check)."""
    old, ctx.prec = ctx.prec, prec
    try:
        h2 = arb(h) ** 2
        ball = acb.integral(lambda x, _: (-(h2 * (1 + x * x)) / 2).exp() / (1 + x * x), 0, arb(a)).real
        return ball / (2 * arb.pi())
    finally:
        ctx.prec = old


@dataclass(frozen=True)
class OwenCase:
    """One table (h, a) checked at the switches of its piecewise form: every piece boundary (from
    both sides), the midpoints, the table's end u = min(h, U_MAX) and just past U_MAX."""

    h: float
    a: float
    atol: float = 5e-16  # measured worst 3.0e-16 against the enclosure: ~11 ulps of T(0, a) <= 1/8 (Clenshaw rounding)

    def points(self):
        c, g = owen_table.owen_table(self.h, self.a)
        w, U, P = g
        edges = w * np.arange(int(P) + 1)
        u = np.concatenate([edges, edges * (1 - 1e-12), edges * (1 + 1e-12), edges[:-1] + w / 2,
                            [U, owen_table.U_MAX * (1 - 1e-12), owen_table.U_MAX, 11.0]])
        u = u[(u >= 0) & (u <= max(self.h, 1e-300) * (1 + 1e-12))]
        return u, c, g


CASES = [OwenCase(h, a) for a in (1e-4, 0.05, 0.5, 0.97, 1.0) for h in (1e-3, 0.3, 2.0, 9.99, 10.0, 10.01, 1e3)]


@pytest.mark.parametrize("case", CASES, ids=lambda c: "h=%g,a=%g" % (c.h, c.a))
def test_owen_table_matches_quadrature(case):
    u, c, g = case.points()
    got = owen_table.owen_eval(u, c, g)
    want = [owens_t_arb(x, case.a) for x in u]
    # the true T lies in each ball; the float is within atol of every point of it
    err = np.array([float(abs(w - arb(x)).upper()) for w, x in zip(want, got)])
    assert err.max() <= case.atol, (u[np.argmax(err)], err.max())


def test_owen_table_rejects_bad_arguments():
    for h, a, name in ((0.0, 0.5, "h"), (np.nan, 0.5, "h"), (1.0, 0.0, "a"), (1.0, 1.5, "a")):
        with pytest.raises(ValueError, match=name):
            owen_table.owen_table(h, a)


def _step_mp(ov, lam, d, L, alpha, dps=30):
    """One PGD step at ``dps`` digits: Theorem 1's partials (closed-form zeta) and the map."""
    grad = mp_gradient_kernel()
    step = generate_mp(tuple(srisk.OVERLAPS) + tuple(sdyn.PARTIALS) + (sdyn.A,), list(sdyn.overlap_map()))
    out = []
    with mp.workdps(dps):
        for x in ov.T:
            xs = [mp.mpf(float(v)) for v in x]
            g = grad(*xs, mp.mpf(lam), mp.sqrt(mp.mpf(1) / 2), d, L)
            out.append([float(v) for v in step(*xs, *g, mp.mpf(alpha))])
    return np.array(out).T


@pytest.mark.parametrize("lam,d", [(1e-3, 400), (0.1, 400), (0.9, 400), (2.0, 400), (0.05, 10**6)])
def test_fused_step_matches_30_digits(lam, d):
    """kappa at the table's switches: 0, tiny, a piece edge, where h kappa crosses U_MAX, and near 1."""
    h = fused.FusedCoefficients(GAMMA, d, 10).block([lam])[1][0, -2]
    kappa = np.clip([0.0, 1e-9, -0.125 / h, owen_table.U_MAX / h, -1.01 * owen_table.U_MAX / h, 0.999, 0.5, -0.3],
                    -0.999, 0.999)
    # explicit unit vectors in R^6 (k* = e1, v* = e2), so every tuple is realisable
    rng = np.random.default_rng(7)
    u = rng.standard_normal((len(kappa), 6))
    u[:, 0] = 0
    u /= np.linalg.norm(u, axis=1, keepdims=True)
    k = np.sqrt(1 - kappa[:, None] ** 2) * u
    k[:, 0] = kappa
    v = rng.standard_normal((len(kappa), 6))
    v /= np.linalg.norm(v, axis=1, keepdims=True)
    X = np.stack([k[:, 0], v[:, 1], v[:, 0], k[:, 1], np.sum(k * v, axis=1)])
    want = _step_mp(X, lam, d, 10, 4e-3)
    err = {}
    for backend in ("fused", "numpy"):
        tr = overlap_pgd(tuple(X), lam=lam, gamma=GAMMA, d=d, L=10, alpha=4e-3, steps=1, backend=backend)
        err[backend] = np.abs(np.stack([tr[f][-1] for f in ("kappa", "nu", "theta", "eta", "rho")]) - want).max()
    # at d = 1e6 and kappa ~ 0 the float64 step itself is good to ~4e-14 only (both backends, measured:
    # the partials grow like sqrt(d)); the table must add nothing to that
    assert err["fused"] < max(1e-14, 2 * err["numpy"]), err


def test_fused_and_numpy_backends_agree_on_a_schedule():
    """Both backends are generated from the same expressions; a schedule changes the tables each step."""
    ov = initial_overlaps_exact(8, 200, 400)
    ov0 = tuple(getattr(ov, f) for f in ("kappa", "nu", "theta", "eta", "rho"))
    p = dict(lam=lambda t: 1.0 / (1 + 0.01 * t), gamma=GAMMA, d=400, L=10, alpha=4e-3, steps=300, every=7)
    a, b = overlap_pgd(ov0, backend="fused", **p), overlap_pgd(ov0, backend="numpy", **p)
    for f in ("kappa", "nu", "theta", "eta", "rho", "risk"):
        assert np.abs(a[f] - b[f]).max() < 1e-11, f
    with pytest.raises(ValueError, match="backend"):
        overlap_pgd(ov0, backend="jax", **p)


@pytest.mark.slow
def test_throughput_is_a_fifth_of_erf():
    """The fused runner's target: >= 0.2 x scipy's erf evaluations per second, 1e4 runs, one core (CPU time)."""
    x = np.random.default_rng(2).uniform(-3, 3, 10**6)
    out = np.empty_like(x)
    erf_t = []
    for _ in range(7):
        t = time.process_time()
        erf(x, out=out)
        erf_t.append(time.process_time() - t)
    erf_rate = x.size / min(erf_t)
    ov = initial_overlaps_exact(3, 10_000, 400)
    ov0 = tuple(getattr(ov, f) for f in ("kappa", "nu", "theta", "eta", "rho"))
    p = dict(lam=0.1, gamma=GAMMA, d=400, L=10, alpha=4e-3, backend="fused")
    overlap_pgd(ov0, steps=2, every=2, **p)
    best = []
    for _ in range(3):
        t = time.process_time()
        overlap_pgd(ov0, steps=2000, every=2000, **p)
        best.append(time.process_time() - t)
    rate = 10_000 * 2000 / min(best)
    assert rate >= 0.2 * erf_rate, (rate, erf_rate)
