r"""The transverse stability map of M (`docs/MATH.md` §13, "The transverse linearisation" and "The
transverse map"): for lam pieces and boxes of the square, where the transverse block T(kappa, nu) of the five-overlap
PGD map's Jacobian on M contracts a norm (M attracts PGD to first order off it), where it has a real eigenvalue
above 1 (M repels), and where neither is shown.

On M, DG = diag(D Phi_alpha, T) (premise ``pgd-map``, proved by SymPy). A box is **attracting** when
q = ||S^-1 T S|| < 1 over it in a group norm max_I |(S^-1 y)_I|_2 (S: the real eigenbasis of T at the box's centre,
its columns scaled by the Perron vector of the groups' block norms, which makes the bound as small as a diagonal
scaling can: the fast direction, eigenvalue about -0.7 near the oracle, is weighed against the slow ones near 1);
**repelling** when det(I - T) < 0 over it (an odd number of real eigenvalues above 1); else it is split in
(kappa, nu) down to ``min_width`` and left **undecided** (near the curves where the spectral radius crosses 1, and
where a complex pair of modulus above 1 escapes the determinant's test). The checker decides every leaf again
(kind ``transverse-map``); the statement is about T, the first order: it says nothing of the nonlinear dynamics
off M.
"""
from __future__ import annotations

import time

import numpy as np
from flint import acb_mat, arb, arb_mat, ctx

from ..checker import replay
from ..checker.balls import param_balls
from ..checker.contraction import block_norm, pgd_jacobian, transverse_block, transverse_tests
from ..checker.decide import below, negative
from ..kernels.balls import midpoint, outward
from ..model.params import accepts_gamma2
from . import args as A
from . import bisection as B
from .certificate import SplitTree, document

#: the tests of a leaf, as the certificate names them
TESTS = ("attracting", "repelling", "undecided")


def _basis(Tc):
    """(S, groups) of the float matrix Tc: real eigenvectors as columns (unit length), a complex pair as the real and
    imaginary parts of its eigenvector (a group of two); None if Tc's eigenvectors are (numerically) dependent."""
    w, V = np.linalg.eig(Tc)
    cols, groups, done = [], [], set()
    for i in np.argsort(-np.abs(w)):
        if i in done:
            continue
        if abs(w[i].imag) > 1e-12 * max(1.0, abs(w[i])):
            j = next(j for j in range(3) if j != i and j not in done and abs(w[j] - np.conj(w[i])) < 1e-9 * abs(w[i]))
            done |= {i, j}
            groups.append((len(cols), len(cols) + 1))
            cols += [V[:, i].real, V[:, i].imag]
        else:
            done.add(i)
            groups.append((len(cols),))
            cols.append(V[:, i].real)
    S = np.array(cols).T
    S = S / np.linalg.norm(S, axis=0)
    return (None, None) if np.linalg.cond(S) > 1e8 else (S, tuple(groups))


def _perron_scaled(T, S, groups):
    """S with each group's columns scaled by the Perron vector of B_IJ = (a bound of) ||(S^-1 T S)_IJ||: the group
    norm's operator bound max_I sum_J B_IJ v_J / v_I is then the spectral radius of B, the least over scalings."""
    Sm = arb_mat(S.tolist())
    M = Sm.solve(T * Sm)
    B = np.array([[midpoint(block_norm(M, I, J)) for J in groups] for I in groups])
    if not np.all(np.isfinite(B)):
        return S
    w, V = np.linalg.eig(B)
    v = np.abs(V[:, int(np.argmax(w.real))].real)
    if not np.all(v > 0):
        return S
    scale = np.ones(3)
    for g, x in zip(groups, v):
        scale[list(g)] = x / v.max()
    return S * scale


def decide(box, par, A_):
    """(test, data) for a box of (kappa, nu) at the lam ball of ``par``: ("attracting", {"S", "groups"}),
    ("repelling", {}) or None (neither shown); the checker's own tests (:mod:`slr_verify.checker.contraction`)."""
    T = transverse_block(box, par, A_)
    q, p = transverse_tests(T)
    if negative(p):
        return "repelling", {}
    Tc = np.array([[midpoint(T[i, j]) for j in range(3)] for i in range(3)])
    if not np.all(np.isfinite(Tc)):  # an enclosure without a finite centre (a wide box at a large step): undecided here
        return None
    S, groups = _basis(Tc)
    if S is None or max(abs(np.linalg.eigvals(Tc))) >= 1:
        return None
    try:
        S = _perron_scaled(T, S, groups)
        q, _ = transverse_tests(T, S.tolist(), groups)
    except ZeroDivisionError:  # S singular in arb's eyes
        return None
    if below(q, 1):
        return "attracting", {"S": S.tolist(), "groups": [list(g) for g in groups]}
    return None


@accepts_gamma2
def transverse_map(*, lam, gamma, eps=0.0, d, L, alpha, kappa=(-1.0, 1.0), nu=(-1.0, 1.0), pieces=1, min_width=2.0**-9,
                   budget=400_000, prec=64, progress=None):
    """The transverse map over ``kappa`` x ``nu`` (intervals of [-1, 1]) x lam (``lam``: LO:HI as a pair, cut into
    ``pieces`` equal pieces) at step
    ``alpha``: {"proved" (the checker accepts the certificate), "fractions" {test: fraction of the domain's volume},
    "q_max", "boxes", "seconds", "failure", "certificate"} (kind ``transverse-map``). Boxes narrower than
    ``min_width`` in both kappa and nu stay undecided; ``progress(boxes)`` every 2,000 boxes."""
    lo, hi = A.lam_interval(lam)
    lam0, gamma, eps, d, L = A.model(lo, gamma, eps, d, L)
    alpha = A.V.real("alpha", alpha, minimum=0.0, strict_min=True, maximum=10.0)
    pieces = A.V.integer("pieces", pieces, 1, 1000, why="lam pieces")
    min_width = A.V.real("min_width", min_width, minimum=1e-6, maximum=2.0)
    prec, budget = A.precision(prec), A.budget(budget)
    kappa, nu = (A.V.interval(name, iv, minimum=-1.0, maximum=1.0) for name, iv in (("kappa", kappa), ("nu", nu)))
    t0 = time.perf_counter()
    tree = SplitTree((kappa, nu, (lo, hi), (alpha, alpha)), names=("kappa", "nu", "lam", "alpha"))
    cuts = [lo + (hi - lo) * k / pieces for k in range(1, pieces)] if hi > lo else []
    roots = tree.grid(tree.root, 2, cuts) if cuts else [tree.root]
    P = param_balls(gamma, eps, d, L).kw()
    count, area = dict.fromkeys(TESTS, 0.0), (kappa[1] - kappa[0]) * (nu[1] - nu[0])

    def step(i, box):
        got = decide(box, dict(lam=arb(box[2][0]).union(arb(box[2][1])), **P), A_)
        if got is None and not B.too_small(box, min_width, axes=(0, 1)):
            return B.Split(B.widest(box, axes=(0, 1)))
        test, data = got or ("undecided", {})
        wk, wn, wl = B.widths(box[:3])
        count[test] += wk * wn * (wl / (hi - lo) if hi > lo else 1.0) / area
        return B.Leaf({"test": test, **data})

    with ctx.workprec(int(prec)):
        A_ = arb(alpha)
        run = B.run(tree, step, roots=roots, budget=budget, tick=B.every(2000, progress))
    if not run.proved:
        return _result(False, None, count, run.boxes, t0, run.failure)
    doc = document("transverse-map", A.setting(gamma=gamma, eps=eps, d=d, L=L), tree, prec=prec)
    r = replay(doc)  # what is proved is what the checker accepts
    if not r.accepted:
        return _result(False, None, count, run.boxes, t0, f"the checker rejects the certificate: {r.reason}")
    return _result(True, doc, count, run.boxes, t0, None, r.values.get("q_max"))


def _result(proved, doc, count, n, t0, failure, q_max=None):
    return {"proved": proved, "fractions": count, "q_max": q_max, "boxes": n, "seconds": time.perf_counter() - t0,
            "failure": failure, "certificate": doc}


@accepts_gamma2
def saddle_escape(*, lam, gamma, eps=0.0, d, L, alpha, prec=128):
    """The saddle (0, 0) of M as PGD leaves it (`docs/MATH.md` §13, "The transverse map"): the Jacobian there is
    diag(D Phi_alpha, T), each with one eigenvalue above 1. Returns {"within": the one of D Phi_alpha (the unstable
    direction within M), "off": the one of T (off M), both (lo, hi) enclosures by arb's eigenvalue enclosure of the
    point Jacobian at ``prec`` bits, "gap": (lo, hi) of within - off, "direction": T's unstable eigenvector in (theta,
    eta, rho), unit, float}. Enclosures in arb, not a certificate: the claim that uses them says numeric."""
    lam, gamma, eps, d, L = A.model(lam, gamma, eps, d, L)
    alpha = A.V.real("alpha", alpha, minimum=0.0, strict_min=True, maximum=10.0)
    with ctx.workprec(A.precision(prec)):
        D = pgd_jacobian([arb(0)] * 5, dict(lam=arb(lam), **param_balls(gamma, eps, d, L).kw()), arb(alpha))
        blocks = {"within": (0, 1), "off": (2, 3, 4)}
        top = {}
        for name, ix in blocks.items():
            E, R = acb_mat([[D[i, j] for j in ix] for i in ix]).eig(right=True)
            k = max(range(len(ix)), key=lambda i: midpoint(E[i].real))
            if not (E[k].imag.contains(0) and E[k].real.lower() > 1):
                raise ArithmeticError(f"the saddle's {name} block has no eigenvalue certified real and > 1")
            top[name] = (E[k].real, [midpoint(R[i, k].real) for i in range(len(ix))])
        gap = top["within"][0] - top["off"][0]
        v = np.array(top["off"][1])
    return {"within": outward(top["within"][0]), "off": outward(top["off"][0]), "gap": outward(gap),
            "direction": (v / np.linalg.norm(v) * np.sign(v[np.argmax(abs(v))])).tolist()}
