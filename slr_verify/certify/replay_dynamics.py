r"""The checker's tests for the dynamics' certificates (`docs/certificates.md`; `docs/MATH.md` §§10, 12, 13).

Part of the checker (:mod:`.replay`): it imports none of the searches. Five kinds, each with its coordinates and
its one leaf test:

* ``manifold-hessian-signs`` (``lam``; test ``signs``): on each lam piece, the Hessian of the risk on M is positive
  definite at (1, 1), (-1, -1), negative definite at (1, -1), (-1, 1) (diagonal in angle coordinates, exactly: premise
  ``manifold-hessians``; the signs of its entries) and indefinite at (0, 0) (determinant < 0). Proposition 9's
  classification of the five stationary points.
* ``reduced-map-diffeomorphism`` (``kappa, nu, alpha, lam``; test ``det-positive``): det J of the reduced PGD map
  (premise ``reduced-map``) > 0 on each box of [-1, 1]^2 x [0, A] at one lam; ``alpha_upper`` U (optional): det J < 0
  at alpha = U at the point ``upper_at`` (default (0, 0)). Proposition 10: alpha_max in [A, U]. The attraction step
  2 / max(|g_kappa|, |g_nu|) at (1, 1) is enclosed here.
* ``off-M-minimum`` (``lam``; test ``family-minimum``): theta*(eta) of the family k = eta v* (premise
  ``off-M-family``, `docs/MATH.md` §12) has |theta*| < 1 for eta = +-1 (a realisable stationary point), and at eta = 1
  the Riemannian Hessian's 5 x 5 block off the orbit has its leading minors > 0 and -mu_k > 0 (Sylvester).
* ``contraction-ball`` (``lam, alpha``; test ``contraction``): r0 + q < 1 for the ball of the leaf
  (:func:`slr_verify.kernels.contraction.ball_bounds`; premise ``pgd-map``), and sigma o Phi = Phi o sigma proved by
  SymPy for the leaf's sigma (`docs/MATH.md` §13, Banach in a preconditioned norm).
* ``valley-tube`` (``kappa, lam, alpha``; test ``tube-piece``): the pieces tile [kappa_a, 1]; each is at least m wide,
  has q_j < 1, h > 0 on the edge and a kappa step <= m/2 (:func:`slr_verify.kernels.contraction.tube_piece_bounds`;
  premises ``pgd-map``, ``edge-invariance``); Gamma is the product of the norm changes (`docs/MATH.md` §13).
"""
from __future__ import annotations

from flint import arb, arb_mat

from ..kernels.balls import widened
from ..kernels.certified import corner_gradient_arb, hessians_arb, reduced_map_det_arb
from ..kernels.contraction import ball_bounds, transition_bound, tube_piece_bounds, upper
from ..kernels.family_kernels import family_hessian_arb, theta_star_arb
from ..kernels.landscape import sigma_equivariance_proofs
from .replay_base import Rejected, hull, interval, number, outward

__all__ = ["DYNAMICS_KINDS", "DYNAMICS_DOMAINS", "KINDS_OF_POINTS", "dynamics_statement", "check_dynamics",
           "hessian_kinds_hold", "family_values"]

#: kind -> (premises, admitted leaf tests)
DYNAMICS_KINDS = {
    "manifold-hessian-signs": (("manifold-hessians",), ("signs",)),
    "reduced-map-diffeomorphism": (("reduced-map",), ("det-positive",)),
    "off-M-minimum": (("off-M-family",), ("family-minimum",)),
    "contraction-ball": (("pgd-map",), ("contraction",)),
    "valley-tube": (("pgd-map", "edge-invariance"), ("tube-piece",)),
}
#: kind -> (coordinates, fixed intervals by coordinate, coordinates that are points)
DYNAMICS_DOMAINS = {
    "manifold-hessian-signs": (("lam",), {}, ()),
    "reduced-map-diffeomorphism": (("kappa", "nu", "alpha", "lam"), {"kappa": (-1.0, 1.0), "nu": (-1.0, 1.0)}, ("lam",)),
    "off-M-minimum": (("lam",), {}, ("lam",)),
    "contraction-ball": (("lam", "alpha"), {}, ("lam", "alpha")),
    "valley-tube": (("kappa", "lam", "alpha"), {}, ("lam", "alpha")),
}
#: Proposition 9's classification of the five stationary points on M
KINDS_OF_POINTS = {(0, 0): "saddle", (1, 1): "min", (-1, -1): "min", (1, -1): "max", (-1, 1): "max"}


def dynamics_statement(kind, setting, dom, doc) -> str:
    """What a certificate of ``kind`` at ``setting`` (gamma, eps, d, L) over ``dom`` ({coordinate: (lo, hi)}) proves;
    ``doc`` supplies a diffeomorphism's ``alpha_upper``."""
    g, e, d, L = setting
    lam = dom["lam"]
    at = f"gamma = {g!r} (within one ulp), eps = {e!r}, d = {d}, L = {L}, lam = {lam[0]!r} (within one ulp)"
    if kind == "manifold-hessian-signs":
        return (f"at gamma = {g!r} (within one ulp), d = {d}, L = {L}: for every lam in [{lam[0]!r}, {lam[1]!r}], the "
                "Hessian of R_lam on M is positive definite at (1, 1) and (-1, -1), negative definite at (1, -1) and "
                "(-1, 1) (angle coordinates) and indefinite at (0, 0) (Proposition 9's classification)")
    if kind == "reduced-map-diffeomorphism":
        A, U, (k, n) = dom["alpha"][1], doc.get("alpha_upper"), doc.get("upper_at", [0.0, 0.0])
        up = "" if U is None else f"; det J({k!r}, {n!r}) < 0 at alpha = {U!r}, so alpha_max <= {U!r}"
        return (f"at {at}: the Jacobian determinant of the reduced PGD map on M is > 0 at every (kappa, nu) of [-1, 1]^2 "
                f"for every step size alpha in [0, {A!r}], so alpha_max >= {A!r} (Proposition 10){up}")
    if kind == "off-M-minimum":
        return (f"at {at}: for eta = +1 and -1, k = eta v*, v = theta* k* + sqrt(1 - theta*^2) w (w a unit vector "
                "orthogonal to k*, v*), with |theta*| < 1 enclosed by the checker, is a stationary point of R_lam on "
                "S^{d-1} x S^{d-1}; at eta = +1 it is a strict local minimum modulo the rotations fixing k* and v*")
    if kind == "contraction-ball":
        return (f"at {at}, alpha = {dom['alpha'][0]!r}: for G = sigma o Phi (Phi the five-overlap PGD map, sigma the "
                "certificate's sign pattern), the ball B = {x : max over the groups I of |(T^{-1} (x - c))_I|_2 <= s} "
                "(c, T, groups, s: the certificate's centre, T, groups, radius) is mapped into itself by G, a "
                "contraction there: every PGD run that enters B converges to the one fixed point p of G in B (sigma = "
                "id) or to the orbit {p, sigma p}")
    return (f"at {at}, alpha = {dom['alpha'][0]!r}: every PGD run whose state meets the valley tube's entry condition "
            f"(kappa_0 in the piece j of [{dom['kappa'][0]!r}, 1], Gamma ||z_0||_j <= delta, B = C Gamma ||z_0||_j / (1 - q)"
            " <= m, kappa_0 - B >= kappa_a; pieces, bases, delta, m: the certificate's; q, C, Gamma: derived by the "
            "checker) converges to the oracle (1, 1, 0, 0, 0)")


def hessian_kinds_hold(H, pt) -> bool:
    """The Hessian enclosure H (4 entries) at the point ``pt`` has the sign pattern of its kind (the test ``signs``)."""
    h11, h12, h21, h22 = H
    if pt == (0, 0):
        return (h11 * h22 - h12 * h21).upper() < 0  # det < 0: one positive, one negative eigenvalue
    if not (h12.is_exact() and h21.is_exact() and h12 == 0 and h21 == 0):
        return False  # in angle coordinates the Hessian at a corner is diagonal (exactly)
    if KINDS_OF_POINTS[pt] == "min":
        return h11.lower() > 0 and h22.lower() > 0
    return h11.upper() < 0 and h22.upper() < 0


def family_values(lam, g, d, L) -> dict:
    """The off-M family's enclosures on balls: theta*(+1), theta*(-1), the 5 leading minors and -mu_k at eta = 1."""
    f, _ = theta_star_arb()
    h, _ = family_hessian_arb()
    th = {eta: f(arb(eta), lam, g, arb(d))[0] for eta in (1, -1)}
    out = h(th[1], lam, g, arb(d), arb(L))
    M = arb_mat(5, 5, out[:25])
    minors = [arb_mat(k, k, [M[i, j] for i in range(k) for j in range(k)]).det() for k in range(1, 6)]
    return {"theta_star": th, "minors": minors, "minus_mu_k": out[25]}


def _matrix(x, n, what):
    if not (isinstance(x, list) and len(x) == n and all(isinstance(r, list) and len(r) == n for r in x)):
        raise Rejected(f"{what} must be a {n} x {n} list, got {x!r}")
    return [[number(v, what) for v in r] for r in x]


def _groups(x, n, what):
    ok = isinstance(x, list) and all(isinstance(gr, list) and 1 <= len(gr) <= 2 for gr in x)
    if not ok or sorted(i for gr in x for i in gr) != list(range(n)) or any(type(i) is not int for gr in x for i in gr):
        raise Rejected(f"{what} must split 0..{n - 1} into groups of one or two, got {x!r}")
    return tuple(tuple(gr) for gr in x)


def _signs(leaves, par):
    Hs = hessians_arb()
    for leaf in leaves:
        lam = hull(*interval(leaf["box"]["lam"], "leaf lam"))
        bad = [pt for pt in KINDS_OF_POINTS if not hessian_kinds_hold(Hs[pt](lam, *par), pt)]
        if bad:
            raise Rejected(f"signs leaf {leaf['box']}: the Hessian's signs at {bad[0]} are not those of a "
                           f"{KINDS_OF_POINTS[bad[0]]}")
    return {}, ""


def _diffeomorphism(doc, leaves, lam, par):
    D = reduced_map_det_arb()
    for leaf in leaves:
        k, n, a = (hull(*interval(leaf["box"][c], f"leaf {c}")) for c in ("kappa", "nu", "alpha"))
        if not D(k, n, lam, *par, a)[0].lower() > 0:
            raise Rejected(f"det-positive leaf {leaf['box']}: det J does not exclude values <= 0")
    values, U = {}, doc.get("alpha_upper")
    if U is not None:
        U, at = number(U, "alpha_upper"), doc.get("upper_at", [0.0, 0.0])
        if not (isinstance(at, list) and len(at) == 2):
            raise Rejected(f"upper_at must be a [kappa, nu] pair, got {at!r}")
        k, n = (number(x, "upper_at") for x in at)
        if not (-1 <= k <= 1 and -1 <= n <= 1 and D(arb(k), arb(n), lam, *par, arb(U))[0].upper() < 0):
            raise Rejected(f"alpha_upper {U!r}: det J({k!r}, {n!r}) is not < 0 there (or the point is off the square)")
        values["alpha_upper"], values["upper_at"] = U, (k, n)
    gk, gn = corner_gradient_arb()(lam, *par)
    m = gk if gk.lower() > gn.upper() else gn if gn.lower() > gk.upper() else None
    if m is not None:
        values["alpha_attract"] = outward(2 / m)
    tail = "" if m is None else (f"; the minima (1, 1), (-1, -1) attract for alpha below 2 / max(|g_kappa|, |g_nu|) "
                                 f"in [{values['alpha_attract'][0]!r}, {values['alpha_attract'][1]!r}]")
    return values, tail


def _family(lam, g, d, L):
    v = family_values(lam, g, d, L)
    if not all(abs(t).upper() < 1 for t in v["theta_star"].values()):
        raise Rejected(f"family-minimum: |theta*| < 1 is not shown ({v['theta_star']})")
    if not (all(m.lower() > 0 for m in v["minors"]) and v["minus_mu_k"].lower() > 0):
        raise Rejected(f"family-minimum: a leading minor or -mu_k is not > 0 ({v['minors']}, {v['minus_mu_k']})")
    th = {eta: outward(t) for eta, t in v["theta_star"].items()}
    return {"theta_star": th}, f" (theta*(+1) in [{th[1][0]!r}, {th[1][1]!r}])"


def _contraction(leaf, par, alpha):
    c = leaf.get("centre")
    if not (isinstance(c, list) and len(c) == 5):
        raise Rejected(f"contraction: centre must be five numbers, got {c!r}")
    c = [number(x, "centre") for x in c]
    T, groups = _matrix(leaf.get("T"), 5, "T"), _groups(leaf.get("groups"), 5, "groups")
    s, sigma = number(leaf.get("radius"), "radius"), leaf.get("sigma")
    if not s > 0:
        raise Rejected(f"contraction: radius must be > 0, got {s!r}")
    if not (isinstance(sigma, list) and len(sigma) == 5 and all(type(x) is int and x in (1, -1) for x in sigma)):
        raise Rejected(f"contraction: sigma must be five signs +-1, got {sigma!r}")
    if any(x != 1 for x in sigma):
        proofs = sigma_equivariance_proofs(tuple(sigma))
        if not (proofs and all(proofs.values())):
            raise Rejected(f"contraction: Phi(sigma o) = sigma Phi(o) is not proved for sigma = {sigma}")
    q, r0 = ball_bounds(c, sigma, T, groups, s, par, alpha)
    if not r0 + q < 1:
        raise Rejected(f"contraction: r0 + q = {r0!r} + {q!r} is not < 1")
    return {"q": q, "r0": r0, "radius": s, "sigma": sigma}, f" (q <= {q:.6g}, r0 <= {r0:.3g})"


def _tube(doc, leaves, par, alpha):
    delta, m = number(doc.get("delta"), "delta"), number(doc.get("margin"), "margin")
    if not (0 < delta and 0 < m):
        raise Rejected(f"valley-tube: delta and margin must be > 0, got {delta!r}, {m!r}")
    pieces, qs, Cs = [], [], []
    for leaf in sorted(leaves, key=lambda x: x["box"]["kappa"][0]):
        a, b = interval(leaf["box"]["kappa"], "leaf kappa")
        T, groups = _matrix(leaf.get("T"), 4, "T"), _groups(leaf.get("groups"), 4, "groups")
        if not b - a >= m:
            raise Rejected(f"tube-piece [{a!r}, {b!r}] is narrower than the margin m = {m!r}")
        q, C, edge_ok, step = tube_piece_bounds(a, b, m, T, groups, delta, par, alpha)
        if not (q < 1 and edge_ok and step <= m / 2):
            raise Rejected(f"tube-piece [{a!r}, {b!r}]: q = {q!r} < 1, h > 0 ({edge_ok}), step {step!r} <= m/2 not all shown")
        pieces.append((T, groups))
        qs.append(q)
        Cs.append(C)
    Gamma = arb(1)
    for (T0, g0), (T1, g1) in zip(pieces[:-1], pieces[1:]):
        Gamma *= transition_bound(T0, g0, T1, g1)
    values = {"q": max(qs), "C": max(Cs), "Gamma": upper(Gamma), "delta": delta, "margin": m, "pieces": len(pieces)}
    return values, f" (q <= {values['q']:.6g}, C <= {values['C']:.3g}, Gamma <= {values['Gamma']:.6g}, {len(pieces)} pieces)"


def check_dynamics(doc, kind, setting, domain, leaves):
    """Every leaf of a dynamics certificate (the module's list); returns (values, the conclusion's tail)."""
    g, e, d, L = setting
    dom = dict(zip(DYNAMICS_DOMAINS[kind][0], domain))
    lam = widened(dom["lam"][0])
    if kind == "manifold-hessian-signs":
        return _signs(leaves, (widened(g), arb(d), arb(L)))
    if kind == "reduced-map-diffeomorphism":
        values, tail = _diffeomorphism(doc, leaves, lam, (widened(g), arb(d), arb(L)))
        return {**values, "domain_alpha": dom["alpha"]}, tail
    if kind == "off-M-minimum":
        return _family(lam, widened(g), d, L)
    alpha = dom["alpha"][0]
    if not alpha > 0:
        raise Rejected(f"alpha must be > 0, got {alpha!r}")
    par = (lam, widened(g), widened(e), arb(d), arb(L))
    if kind == "contraction-ball":
        return _contraction(leaves[0], par, alpha)
    return _tube(doc, leaves, par, alpha)
