r"""The dynamics' leaf tests on arb balls from their premises' kernels (`docs/certificates.md`, "The dynamics'
kinds" and "The checker, module by module"; `docs/MATH.md` §§10, 12, 13).
"""
from __future__ import annotations

from flint import arb, arb_mat

from . import contraction
from .balls import ball, outward, widened
from .contraction import ball_bounds, transverse_block, transverse_tests
from .decide import at_most, below, negative, nonzero, positive
from .fields import Rejected, keys, matrix, number
from .premises import kernels


def upper_bound(doc, A):
    """A diffeomorphism's ``alpha_upper`` U (None if absent) and ``upper_at`` (kappa, nu), read and checked: U > A, the
    point in the square [-1, 1]^2 (default (0, 0))."""
    if doc.get("alpha_upper") is None:
        return None, None
    U, at = number(doc["alpha_upper"], "alpha_upper"), doc.get("upper_at", [0.0, 0.0])
    if not (isinstance(at, list) and len(at) == 2):
        raise Rejected(f"upper_at must be a [kappa, nu] pair, got {at!r}")
    k, n = (number(x, "upper_at") for x in at)
    if not U > A:
        raise Rejected(f"alpha_upper {U!r} must exceed the proved lower bound A = {A!r} of alpha_max")
    if not (-1 <= k <= 1 and -1 <= n <= 1):
        raise Rejected(f"upper_at ({k!r}, {n!r}) is off the square [-1, 1]^2")
    return U, (k, n)


#: Proposition 9's classification of the five stationary points on M
KINDS_OF_POINTS = {(0, 0): "saddle", (1, 1): "min", (-1, -1): "min", (1, -1): "max", (-1, 1): "max"}


def hessian_kinds_hold(H, pt) -> bool:
    """The Hessian enclosure H (4 entries) at ``pt`` has the sign pattern of its kind."""
    h11, h12, h21, h22 = H
    if pt == (0, 0):
        return negative(h11 * h22 - h12 * h21)  # one positive, one negative eigenvalue
    if not (h12.is_exact() and h21.is_exact() and h12 == 0 and h21 == 0):
        return False  # in angle coordinates the Hessian at a corner is diagonal, exactly
    if KINDS_OF_POINTS[pt] == "min":
        return positive(h11) and positive(h22)
    return negative(h11) and negative(h22)


def _hessian(pt):
    return getattr(kernels("manifold-hessians"), f"hessian_{'_'.join('m' if c < 0 else str(c) for c in pt)}")


def check_signs(doc, kind, S, domain, boxes):
    par = S.P.kw("gamma", "d", "L")
    for leaf, (lam,) in zip(doc["leaves"], boxes):
        keys(leaf, "signs leaf", ("box", "test"))
        bad = [pt for pt in KINDS_OF_POINTS if not hessian_kinds_hold(_hessian(pt)(ball(*lam), **par), pt)]
        if bad:
            raise Rejected(f"signs leaf {lam}: the Hessian's signs at {bad[0]} are not those of a {KINDS_OF_POINTS[bad[0]]}")
    return {}, ""


def check_diffeomorphism(doc, kind, S, domain, boxes):
    K = kernels("reduced-map")
    par = dict(lam=widened(domain[3][0]), **S.P.kw("gamma", "d", "L"))
    for leaf, (k, n, a, _) in zip(doc["leaves"], boxes):
        keys(leaf, "det-positive leaf", ("box", "test"))
        if not positive(K.det_jacobian(ball(*k), ball(*n), alpha=ball(*a), **par)[0]):
            raise Rejected(f"det-positive leaf {leaf['box']}: det J does not exclude values <= 0")
    values = {"domain_alpha": domain[2]}
    U, at = upper_bound(doc, domain[2][1])
    if U is not None:
        if not negative(K.det_jacobian(arb(at[0]), arb(at[1]), alpha=arb(U), **par)[0]):
            raise Rejected(f"alpha_upper {U!r}: det J({at[0]!r}, {at[1]!r}) is not < 0 there")
        values["alpha_upper"], values["upper_at"] = U, at
    gk, gn = K.corner_gradient(**par)
    m = gk if below(gn, gk) else gn if below(gk, gn) else None
    if m is None:
        return values, ""
    values["alpha_attract"] = outward(2 / m)
    return values, (f"; the minima (1, 1), (-1, -1) attract for alpha below 2 / max(|g_kappa|, |g_nu|) "
                    f"in [{values['alpha_attract'][0]!r}, {values['alpha_attract'][1]!r}]")


def family_values(lam, P) -> dict:
    """The off-M family's enclosures at lam and the setting's balls P: theta*(+-1), the 5 leading minors, -mu_k at eta = 1."""
    K = kernels("off-M-family")
    th = {eta: K.theta_star(arb(eta), lam=lam, **P.kw("gamma", "d"))[0] for eta in (1, -1)}
    out = K.family_hessian(th[1], lam=lam, **P.kw("gamma", "d", "L"))
    M = arb_mat(5, 5, out[:25])
    minors = [arb_mat(k, k, [M[i, j] for i in range(k) for j in range(k)]).det() for k in range(1, 6)]
    return {"theta_star": th, "minors": minors, "minus_mu_k": out[25]}


def check_family(doc, kind, S, domain, boxes):
    keys(doc["leaves"][0], "family-minimum leaf", ("box", "test"))
    v = family_values(widened(domain[0][0]), S.P)
    if not all(below(abs(t), 1) for t in v["theta_star"].values()):
        raise Rejected(f"family-minimum: |theta*| < 1 is not shown ({v['theta_star']})")
    if not (all(positive(m) for m in v["minors"]) and positive(v["minus_mu_k"])):
        raise Rejected(f"family-minimum: a leading minor or -mu_k is not > 0 ({v['minors']}, {v['minus_mu_k']})")
    th = {eta: outward(t) for eta, t in v["theta_star"].items()}
    return {"theta_star": th}, f" (theta*(+1) in [{th[1][0]!r}, {th[1][1]!r}])"


def _groups(x, n, what):
    ok = isinstance(x, list) and all(isinstance(gr, list) and 1 <= len(gr) <= 2 for gr in x)
    if not ok or any(type(i) is not int for gr in x for i in gr) or sorted(i for gr in x for i in gr) != list(range(n)):
        raise Rejected(f"{what} must split 0..{n - 1} into groups of one or two, got {x!r}")
    return tuple(tuple(gr) for gr in x)


def _pgd_par(S, domain):
    """The balls {lam, gamma, eps, d, L} and alpha of the two PGD kinds, whose coordinates end with (lam, alpha)."""
    lam, alpha = domain[-2][0], domain[-1][0]
    if not (lam > 0 and alpha > 0):
        raise Rejected(f"lam and alpha must be > 0, got {lam!r}, {alpha!r}")
    return dict(lam=widened(lam), **S.P.kw()), alpha


def check_contraction(doc, kind, S, domain, boxes):
    par, alpha = _pgd_par(S, domain)
    if len(doc["leaves"]) != 1:
        raise Rejected("a contraction-ball certificate has one leaf")
    leaf = keys(doc["leaves"][0], "contraction leaf", ("box", "test", "centre", "T", "groups", "radius", "sigma"))
    if not (isinstance(leaf["centre"], list) and len(leaf["centre"]) == 5):
        raise Rejected(f"contraction: centre must be five numbers, got {leaf['centre']!r}")
    c = [number(x, "centre") for x in leaf["centre"]]
    T, groups = matrix(leaf["T"], 5, "T"), _groups(leaf["groups"], 5, "groups")
    s, sigma = number(leaf["radius"], "radius"), leaf["sigma"]
    if not s > 0:
        raise Rejected(f"contraction: radius must be > 0, got {s!r}")
    proved = {tuple(p) for p in kernels("pgd-map").SYMMETRIES}
    if not (isinstance(sigma, list) and all(type(x) is int for x in sigma) and tuple(sigma) in proved):
        raise Rejected(f"contraction: sigma must be one of the symmetries the premise pgd-map proves {sorted(proved)}, "
                       f"got {sigma!r}")
    q, r0 = ball_bounds(c, sigma, T, groups, s, par, alpha)
    if not below(r0 + q, 1):
        raise Rejected(f"contraction: r0 + q = {r0} + {q} is not < 1")
    return ({"q": outward(q)[1], "r0": outward(r0)[1], "radius": s, "sigma": sigma},
            f" (q <= {outward(q)[1]:.6g}, r0 <= {outward(r0)[1]:.3g})")


def check_transverse(doc, kind, S, domain, boxes):
    (K0, K1), (N0, N1), lam = domain[:3]
    alpha, P, area = arb(domain[3][0]), S.P.kw(), (K1 - K0) * (N1 - N0)
    vol, q_max = dict.fromkeys(("attracting", "repelling", "undecided"), 0.0), 0.0
    for leaf, (k, n, la, _) in zip(doc["leaves"], boxes):
        test = leaf.get("test")
        keys(leaf, f"{test} leaf", ("box", "test", "S", "groups") if test == "attracting" else ("box", "test"))
        vol[test] += (k[1] - k[0]) * (n[1] - n[0]) * ((la[1] - la[0]) / (lam[1] - lam[0]) if lam[1] > lam[0] else 1) / area
        if test == "undecided":
            continue
        T = transverse_block((k, n), dict(lam=ball(*la), **P), alpha)
        try:
            q, p = transverse_tests(T, *((matrix(leaf["S"], 3, "S"), _groups(leaf["groups"], 3, "groups"))
                                         if test == "attracting" else ()))
        except ZeroDivisionError:
            raise Rejected(f"attracting leaf {leaf['box']}: S is not invertible") from None
        if not (below(q, 1) if test == "attracting" else negative(p)):
            raise Rejected(f"{test} leaf {leaf['box']}: " + (f"q = {q} < 1" if q is not None else
                           f"det(I - T) or det(I - T^2) = {p} < 0") + " is not shown")
        q_max = max(q_max, outward(q)[1]) if q is not None else q_max
    a, r, u = (round(v, 6) for v in vol.values())
    return ({"fractions": dict(zip(vol, (a, r, u))), "q_max": q_max},
            f" (of the domain: attracting {a:.4f} with q <= {q_max!r}, repelling {r:.4f}, undecided {u:.4f})")


def tube_fields(doc) -> dict:
    """An oracle tube's T (invertible), radius r, margin m, q in (0, 1), entry r_0 <= r and Euclidean radius r_e, read."""
    f = {k: number(doc[k], k, positive=True) for k in ("radius", "margin", "q", "entry", "euclidean")}
    if not (f["q"] < 1 and f["entry"] <= f["radius"]):
        raise Rejected(f"oracle-tube: q < 1 and entry <= radius must hold (q = {f['q']!r}, entry = {f['entry']!r})")
    return dict(f, T=matrix(doc["T"], 3, "T"))


def check_oracle_tube(doc, kind, S, domain, boxes):
    (k_lo, _), (n_lo, _), _, (alpha, _) = domain
    f, A, C = tube_fields(doc), arb(alpha), arb(0)
    m, q = arb(f["margin"]), arb(f["q"])
    if not (below(k_lo + m, 1) and below(n_lo + m, 1)):
        raise Rejected(f"oracle-tube: D = [kappa_lo + m, 1] x [nu_lo + m, 1] is empty (m = {f['margin']!r})")
    Tm = arb_mat([[arb(x) for x in row] for row in f["T"]])
    if not nonzero(Tm.det()):
        raise Rejected("oracle-tube: T is not invertible")
    for leaf, (k, n, la, _) in zip(doc["leaves"], boxes):
        keys(leaf, "tube-box leaf", ("box", "test"))
        lam = ball(*la) if la[0] < la[1] else widened(la[0])
        contracts, Cb, ok = contraction.oracle_box_bounds((k, n), Tm, f["radius"], dict(lam=lam, **S.P.kw()), A, q)
        if not (contracts and ok):
            raise Rejected(f"tube-box leaf {leaf['box']}: contraction below q ({contracts}), progress on M ({ok}) not both shown")
        C = Cb.upper() if Cb.upper() > C else C  # exact ends (a union's radius would round to 30 bits)
    if not at_most(arb(f["entry"]) * C, m * (1 - q)):
        raise Rejected(f"oracle-tube: entry * C <= margin * (1 - q) is not shown (C <= {C.upper()})")
    if not contraction.norm_below(Tm.inv(), arb(f["entry"]) / arb(f["euclidean"])):
        raise Rejected("oracle-tube: ||T^-1||_2 < entry / euclidean is not shown")
    values = {"tube": {"kappa": k_lo, "nu": n_lo, **{k: f[k] for k in ("margin", "entry", "euclidean", "q")}}, "C": outward(C)[1]}
    return values, f" (C <= {values['C']:.4g}, {len(boxes)} boxes)"
