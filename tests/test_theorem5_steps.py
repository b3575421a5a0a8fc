"""The four steps of Theorem 5's proof that the paper leaves unargued (`docs/MATH.md` §20, "Every step of the
argument"): Phi_alpha maps Q into Q; the maxima repel in (kappa, nu) (the corner Jacobian); Shub's theorem through the
angle chart on the torus; null sets of Q pull back to null sets of M. Each SymPy statement is proved and stated by the
committed module of premise ``descent``; the corner Jacobian is checked by central differences of the float64 reduced
map (evaluated across the corner: its formula is smooth beyond Q) against the generated angle Hessian, and the
submersion by explicit vectors in R^d."""
import numpy as np
import pytest
from paper import FIG4B

from slr_verify.checker.generated import descent as generated
from slr_verify.dynamics import fixed_points as F
from slr_verify.symbolic import descent as D

P = dict(lam=FIG4B.lam0, gamma=FIG4B.gamma, d=FIG4B.d, L=FIG4B.L)


@pytest.mark.parametrize("proofs", [D.map_into_q_proofs, D.corner_jacobian_proofs, D.angle_chart_proofs,
                                    D.manifold_chart_proofs], ids=lambda f: f.__name__)
def test_each_step_is_proved_and_stated_by_the_descent_premise(proofs):
    got = proofs()
    assert got and all(v is True for v in got.values()), [k for k, v in got.items() if v is not True]
    assert set(got) <= set(generated.STATEMENTS), set(got) - set(generated.STATEMENTS)


def test_a_wrong_corner_formula_is_not_proved():
    """The first-order guess 1 + 2 alpha x g (the alpha^2 x^2 g^2 term dropped) is not D phi at x = 1."""
    import sympy as sp

    x, y, a = D._x, sp.Symbol("y", real=True), D.ALPHA
    g = sp.Function("g")(x, y)
    dphi = sp.diff(D._phi(x, g, a), x).subs(x, 1)
    assert sp.simplify(dphi - (1 + 2 * a * g.subs(x, 1))) != 0 and sp.simplify(dphi - (1 + a * g.subs(x, 1)) ** 2) == 0


def test_the_setting_is_figure_4b():
    assert (FIG4B.gamma**2, FIG4B.d, FIG4B.L, FIG4B.lam0, FIG4B.alpha) == pytest.approx((0.5, 400, 10, 0.1, 4e-3))


@pytest.mark.parametrize("corner", [(1, 1), (-1, -1), (1, -1), (-1, 1)])
def test_the_corner_jacobian_by_central_differences(corner):
    """D Phi_alpha at a corner by central differences (step 1e-5 across the corner: truncation ~1e-10, round-off
    ~1e-11) equals diag((1 - alpha h_11)^2, (1 - alpha h_22)^2), h the generated angle Hessian (another SymPy
    expression than the map's); at the maxima both entries exceed 1 (repelling), at the minima both lie in (0, 1)."""
    alpha, step = FIG4B.alpha, 1e-5
    x = np.array(corner, float)
    fd = np.zeros((2, 2))
    for j in range(2):
        e = np.zeros(2)
        e[j] = step
        fd[:, j] = (F.map_numeric(*(x + e), **P, alpha=alpha) - F.map_numeric(*(x - e), **P, alpha=alpha)) / (2 * step)
    h, _ = F.hessian_at(corner, **{k: v for k, v in P.items()})
    assert abs(h[0, 1]) < 1e-12 and abs(h[1, 0]) < 1e-12
    want = np.diag([(1 - alpha * h[0, 0]) ** 2, (1 - alpha * h[1, 1]) ** 2])
    assert np.max(np.abs(fd - want)) < 1e-8, (fd, want)
    dev = np.diag(want) - 1  # the tolerance resolves each deviation from the identity (>= 8.5e-5: the minima's kappa)
    assert np.min(np.abs(dev)) > 1e3 * 1e-8
    maximum = corner[0] != corner[1]
    assert np.all(dev > 0) if maximum else np.all((dev < 0) & (np.diag(want) > 0))


def test_the_map_keeps_q_and_the_coordinates_submerse(rng=np.random.default_rng(5)):
    """Step 1 on a grid (|Phi| <= 1, and < 1 inside), step 4 with explicit vectors at d = 400: k moved along
    k* - kappa k stays on M (|k| = 1, k.v* = k.v = 0 after normalising) with d kappa/ds = 1 - kappa^2."""
    g = np.linspace(-1, 1, 41)
    K, N = np.meshgrid(g, g)
    out = F.map_numeric(K.ravel(), N.ravel(), **P, alpha=FIG4B.alpha)
    inside = (np.abs(K.ravel()) < 1) & (np.abs(N.ravel()) < 1)
    assert np.all(np.abs(out) <= 1) and np.all(np.abs(out[:, inside]) < 1)
    d = FIG4B.d
    Qm, _ = np.linalg.qr(rng.standard_normal((d, 4)))
    ks, vs, u, w = Qm.T
    kappa, nu = 0.3, -0.6
    k, v = kappa * ks + np.sqrt(1 - kappa**2) * u, nu * vs + np.sqrt(1 - nu**2) * w  # on M: k.v* = v.k* = k.v = 0
    s = 1e-6
    kp, km = (k + s * (ks - kappa * k), k - s * (ks - kappa * k))
    kp, km = kp / np.linalg.norm(kp), km / np.linalg.norm(km)
    assert max(abs(kp @ vs), abs(kp @ v), abs(km @ vs), abs(km @ v)) < 1e-15
    assert abs((kp @ ks - km @ ks) / (2 * s) - (1 - kappa**2)) < 1e-8
