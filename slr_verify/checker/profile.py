r"""The profile's leaf tests ``valley``, ``valley-edge``, ``value``, ``bound``, ``circle`` on Taylor models of the dual
bound's coefficients (`docs/MATH.md` §17; `docs/certificates.md`, "The checker, module by module").
"""
from __future__ import annotations

from flint import arb, ctx

from .balls import ball, centre_radius, outward, param_balls
from .decide import negative, positive
from .fields import Rejected, interval, keys, number
from .parallel import map_spans
from .premises import kernels
from .taylor import TaylorModel


class SettingBalls:
    """The setting (gamma, eps, d, L): the floats, and ``P`` their balls (:func:`.balls.param_balls`)."""

    def __init__(self, gamma, eps, d, L):
        self.gamma, self.eps, self.d, self.L = gamma, eps, d, L
        self.P, self._pre = param_balls(gamma, eps, d, L), {}

    def lam_part(self, premise, kernel, lam) -> list:
        """The premise's ``kernel_pre`` (its subexpressions free of kappa) at lam and the setting, kept for 4096 lam."""
        key = (kernel, lam, ctx.prec)
        if key not in self._pre:
            if len(self._pre) >= 4096:
                self._pre.clear()
            self._pre[key] = getattr(kernels(premise), f"{kernel}_pre")(ball(*lam), **self.P.kw())
        return self._pre[key]

    def coefficient_models(self, K, Lam) -> list:
        """Taylor models over K x Lam of the eight coefficients and det M: value and gradient at the centre, remainder
        1/2 h^T f''(xi) h over the box (Taylor's theorem along the segment), both from SymPy's closed-form derivatives
        (``coefficient_jets`` at the centre, ``coefficient_hessians`` over the box's hull; h_k^2 in [0, r_k^2])."""
        (kc, rk), (lc, rl) = centre_radius(*K), centre_radius(*Lam)
        jets = kernels("quadratic-in-v").coefficient_jets(arb(kc), self.lam_part("quadratic-in-v", "coefficient_jets", (lc, lc)))
        hess = self.lam_part("coefficient-hessians", "coefficient_hessians", Lam)
        H = kernels("coefficient-hessians").coefficient_hessians(ball(*K), hess)
        q = (arb(0).union(arb(rk) ** 2), 2 * arb(0, rk) * arb(0, rl), arb(0).union(arb(rl) ** 2))
        out = [TaylorModel(jets[i], (jets[8 + i], jets[16 + i] if rl else arb(0)),
                           (H[3 * i] * q[0] + H[3 * i + 1] * q[1] + H[3 * i + 2] * q[2]) / 2, (rk, rl)) for i in range(8)]
        return out + [kernels("dual-bound").det_m(*out)[0]]

    def kappa_model(self, K, Lam) -> TaylorModel:
        (kc, rk), (_, rl) = centre_radius(*K), centre_radius(*Lam)
        return TaylorModel.variable(arb(kc), 0, (rk, rl))

    def oracle_model(self, Lam, r) -> TaylorModel:
        """R(k*, v*) over Lam as a model in lam (mean-value form at Lam's centre; premise ``oracle-risk``)."""
        oracle = kernels("oracle-risk").oracle
        lc, rl = centre_radius(*Lam)
        u, du = oracle(arb(lc), **self.P.kw())
        rem = (oracle(ball(*Lam), **self.P.kw())[1] - du) * arb(0, rl) if rl else arb(0)
        return TaylorModel(u, (arb(0), du), rem, r)


def pair_risk(S, lam, a, b, x) -> arb:
    """R_lam at the pair k = cos b cos a k* + cos b sin a v* + sin b e (a unit vector for any reals a, b) and
    v = x / |x| on (k*, v*, e, e'), through the quadratic in v (premise ``quadratic-in-v``)."""
    A, B = arb(a), arb(b)
    xs = [arb(t) for t in x]
    nx = sum((t * t for t in xs), arb(0)).sqrt()
    x1, x2, x3, x4 = (t / nx for t in xs)
    c, a0, h11, h12, h13, h22, h23, h33, g1, g2, g3 = kernels("quadratic-in-v").trs_entries(
        B.cos() * A.cos(), B.cos() * A.sin(), B.sin(), lam, **S.P.kw())
    quad = h11 * x1 * x1 + h22 * x2 * x2 + h33 * x3 * x3 + 2 * (h12 * x1 * x2 + h13 * x1 * x3 + h23 * x2 * x3) + a0 * x4 * x4
    return c + quad - 2 * (g1 * x1 + g2 * x2 + g3 * x3)


def witness_risk(S, lam, w, what) -> arb:
    """The certified risk of a witness {a, b, x} at ``lam`` (an exact float), finite, or Rejected."""
    keys(w, what, ("a", "b", "x"))
    if not (isinstance(w["x"], list) and len(w["x"]) == 4):
        raise Rejected(f"{what}: x must be four numbers, got {w['x']!r}")
    xs = [number(x, f"{what} x") for x in w["x"]]
    if not any(xs):
        raise Rejected(f"{what}: x must not be zero (v = x / |x|)")
    R = pair_risk(S, arb(lam), number(w["a"], f"{what} a"), number(w["b"], f"{what} b"), xs)
    if not R.is_finite():
        raise Rejected(f"{what}: its risk is not finite ({R})")
    return R


def edge_bound(S, K, Lam) -> arb:
    """min over s in [kappa_0, 1], lam in Lam of P(s) erfc(c2 s), divided by 1 + kappa_1 (a ball whose lower end the
    valley-edge test uses; premise ``valley-edge``)."""
    v = kernels("valley-edge").valley_edge(ball(K[0], 1.0), ball(*Lam), **S.P.kw("gamma", "d"))[0]
    return arb(v.lower()) / (1 + arb(K[1]))


def _positive(models) -> bool:
    return all(positive(m.range()) for m in models)


def leaf_test(S, leaf, box, U, memo):
    """One leaf on its box ((kappa), (t), (lam)): its lower bound of m (``bound``) or None; raises Rejected. ``U``:
    the oracle's model (a function of the lam box) or the witness's risk (a ball)."""
    (K, (t0, t1), Lam), test = box, leaf["test"]
    keys(leaf, f"{test} leaf {box}", ("box", "test") + (("beta",) if test in ("value", "bound") else ()))
    if (K, Lam) not in memo:
        memo[K, Lam] = S.coefficient_models(K, Lam)
    co, kap = memo[K, Lam], S.kappa_model(K, Lam)
    if test in ("valley", "valley-edge"):
        Q, *rest = kernels("valley").valley(*co[:-1], kap)
        if test == "valley" and not _positive([Q, *rest]):
            raise Rejected(f"valley leaf {box}: Q, beta, Delta, T > 0 not proved: {[str(o.range()) for o in (Q, *rest)]}")
        if test == "valley-edge":
            E = edge_bound(S, K, Lam)
            if not (_positive(rest) and positive(Q.range() + E)):
                raise Rejected(f"valley-edge leaf {box}: beta, Delta, T > 0 and Q + E > 0 not proved: "
                               f"{[str(o.range()) for o in rest]}, Q {Q.range()}, E {E}")
        return None
    beta = number(leaf["beta"], f"beta of leaf {box}")
    L0, L1, Delta, T = kernels("dual-bound").dual_line(*co, kap, arb(beta))
    if not (beta > 0 and _positive([Delta, T])):
        raise Rejected(f"{test} leaf {box}: H - mu I positive definite not proved at beta = {beta!r} "
                       f"(Delta {Delta.range()}, T {T.range()})")
    ends = [(1 - arb(t)) * L0 + arb(t) * L1 for t in (t0, t1)]
    if test == "bound":
        low = min((e.range() for e in ends), key=lambda e: e.lower())
        if not low.is_finite():
            raise Rejected(f"bound leaf {box}: its lower bound is not finite ({low})")
        return outward(low)[0]
    if callable(U):
        if ("U", Lam) not in memo:
            memo["U", Lam] = U(Lam, co[0].r)
        U = memo["U", Lam]
    F = [(e - U).range() for e in ends]
    if not all(positive(f) for f in F):
        raise Rejected(f"value leaf {box}: F > 0 not proved at beta = {beta!r}: {[str(f) for f in F]}")
    return None


def enclosure_values(W, lows, kept) -> dict:
    """An enclosure's conclusion: min R in [min(kept lows, W), W]; |kappa| over the bound leaves; eta^2 = t (1 -
    kappa^2) and r^2 = (1 - t)(1 - kappa^2), monotone in (t, kappa), at the corners of the bound leaves' hull."""
    lo = min([*map(arb, lows), arb(W.lower())], key=lambda x: x.lower())
    k_lo, k_hi = min(b[0][0] for b in kept), max(b[0][1] for b in kept)
    t_lo, t_hi = min(b[1][0] for b in kept), max(b[1][1] for b in kept)
    eta = (arb(t_lo) * (1 - arb(k_hi) ** 2)).sqrt().union((arb(t_hi) * (1 - arb(k_lo) ** 2)).sqrt())
    r = ((1 - arb(t_lo)) * (1 - arb(k_lo) ** 2)).sqrt()
    return {"risk": (outward(lo)[0], outward(W)[1]), "kappa": (k_lo, k_hi), "t": (t_lo, t_hi), "eta": outward(eta),
            "r": (0.0, outward(r)[1])}


def check_circle(S, circle, kept, lam) -> None:
    """The circle test (see the module) on every piece; the pieces cover the bound leaves' kappa range."""
    if not isinstance(circle, list) or not circle:
        raise Rejected(f"circle must be a non-empty list of pieces, got {circle!r}")
    pieces = sorted((interval(keys(p, "circle piece", ("kappa", "beta"))["kappa"], "circle kappa"),
                     interval(p["beta"], "circle beta")) for p in circle)
    reach, k_lo, k_hi = pieces[0][0][0], min(b[0][0] for b in kept), max(b[0][1] for b in kept)
    if reach > k_lo:
        raise Rejected(f"the circle pieces start at kappa = {reach!r}, above the bound leaves' {k_lo!r}")
    K_line = kernels("dual-bound").dual_line
    circ = kernels("circle").circle
    for (K, (bs, bb)) in pieces:
        if K[0] > reach:
            raise Rejected(f"the circle pieces leave kappa in [{reach!r}, {K[0]!r}] uncovered")
        reach = max(reach, K[1])
        if not 0 < bs < bb:
            raise Rejected(f"circle piece {K}: the bracket must have 0 < beta_s < beta_b, got {[bs, bb]}")
        co, kap = S.coefficient_models(K, (lam, lam)), S.kappa_model(K, (lam, lam))
        _, _, Delta, T = K_line(*co, kap, arb(bs))
        lo_slope, hi_slope, gap = circ(*co, kap, arb(bs))[0], circ(*co, kap, arb(bb))[0], circ(*co, kap, ball(bs, bb))[1]
        if not (_positive([Delta, T, lo_slope, gap]) and negative(hi_slope.range())):
            raise Rejected(f"circle piece {K}, beta in {[bs, bb]}: not proved (Delta {Delta.range()}, T {T.range()}, "
                           f"slopes {lo_slope.range()}, {hi_slope.range()}, L0 - L1 {gap.range()})")
    if reach < k_hi:
        raise Rejected(f"the circle pieces end at kappa = {reach!r}, below the bound leaves' {k_hi!r}")


def check_profile(doc, kind, S, domain, boxes, enclosure=False):
    """Every leaf of a profile certificate (``boxes``: the leaves' boxes from the coverage; ``enclosure``: a
    global-minimum enclosure's, against its witness); returns (values, the conclusion's tail)."""
    if enclosure:
        U = witness_risk(S, domain[2][0], doc["witness"], "the witness")
        values = {"witness_risk": outward(U)}
    else:
        U, values = S.oracle_model, {}
    leaves = doc["leaves"]

    def one(i, memo):
        try:
            return leaf_test(S, leaves[i], boxes[i], U, memo)
        except (ArithmeticError, ValueError) as e:  # a ball of a divisor or a square root's argument holds 0
            raise Rejected(f"{leaves[i].get('test')} leaf {i} {boxes[i]}: its test is undefined ({e})") from None

    def chunk(lo, hi):
        memo = {}
        return [(i, low) for i in range(lo, hi) if (low := one(i, memo)) is not None]

    found = [x for part in map_spans(chunk, len(leaves)) for x in part]
    lows, kept = [low for _, low in found], [boxes[i] for i, _ in found]
    if not enclosure:
        return values, ""
    if not kept:
        raise Rejected("an enclosure needs at least one bound leaf (the minimiser's boxes)")
    values.update(enclosure_values(U, lows, kept))
    r_text = f"r <= {values['r'][1]!r}"
    if doc.get("circle") is not None:
        check_circle(S, doc["circle"], kept, domain[2][0])
        k_lo, k_hi = values["kappa"]
        eta = (1 - arb(k_hi) ** 2).sqrt().union((1 - arb(k_lo) ** 2).sqrt())
        values.update(r=(0.0, 0.0), t=(1.0, 1.0), eta=outward(eta))
        r_text = "r = 0: every global minimiser has k in span(k*, v*)"
    return values, (f": the global minimum in {values['risk']}, |kappa| in {values['kappa']}, |eta| in {values['eta']}, "
                    f"{r_text}")
