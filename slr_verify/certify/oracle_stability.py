r"""The step size below which the oracle is a linearly stable fixed point of PGD on the spheres, by ball arithmetic
(`docs/MATH.md` §10 and §13).

Two step sizes answer two different questions, and this module encloses the second:

* **alpha_max of Proposition 10** (:func:`~.reduced_map.alpha_diffeo`) is for *reduced PGD on M* (the map of
  (kappa, nu) on [-1, 1]^2, `docs/MATH.md` §9): below it that map is a local diffeomorphism of the whole square,
  which Theorem 5's convergence from almost every start on M needs. It says nothing of the directions off M.
* **2 / lambda_max** (:func:`alpha_stable`) is for *PGD on S^{d-1} x S^{d-1}* (Definition 1, `docs/MATH.md` §8):
  at a stationary point the derivative of the projected step is I - alpha Hess on the tangent space (Hess the
  Riemannian Hessian of R_lam), so the oracle (k*, v*) is linearly stable iff it is a strict local minimum and
  alpha lambda_max < 2. Above 2 / lambda_max the oracle repels PGD off M, whatever alpha_max says.

**Why the eigenproblem is 2 x 2.** The tangent space at (k*, v*) is k*^perp x v*^perp, of dimension 2(d - 1):
k can move towards v* (a2) or along any e orthogonal to span(k*, v*) (a_e), v towards k* (b1) or along e (b_e).
R_lam depends on (k, v) through the five overlaps only, and in the chart of
:func:`slr_verify.kernels.certified.oracle_hessian_arb` the overlaps' first and second derivatives couple a2 with b1
only (eta, theta and rho move to first order), and a_e with b_e only (kappa, nu to second order, rho = a_e b_e); nothing
couples a2, b1 with any a_e, b_e, nor two orthogonal directions e != e' (no overlap sees a_e b_e' or a_e a_e'). So the
Hessian is block diagonal: the 2 x 2 block B on (a2, b1), and d - 2 copies of the 2 x 2 block
[[-R_kappa, R_rho], [R_rho, -R_nu]] on (a_e, b_e), one per direction of an orthonormal basis of span(k*, v*)^perp.
SymPy proves R_rho = 0 at the oracle (:func:`slr_verify.symbolic.landscape.oracle_structure`), so the latter is
diagonal: its eigenvalues -R_kappa = |g_kappa| and -R_nu = |g_nu| (Lemma 6's gradient at (1, 1), Proposition 10) have
multiplicity d - 2 each, and B's two eigenvalues multiplicity 1: 2 + 2(d - 2) = 2(d - 1) in all. There are no flat
directions at the oracle (the rotations fixing k* and v* fix it).

**The enclosure.** B's entries come from the committed arb kernel ``grad_hess`` (Theorem 1's partials, premise
``pgd-map``) through the chain rule generated from SymPy; its eigenvalues by the closed form of a symmetric 2 x 2
matrix, lambda_+ = (a + c)/2 + sqrt(((a - c)/2)^2 + b^2) and lambda_- = (ac - b^2) / lambda_+, which evaluated on balls
encloses the eigenvalues of every symmetric matrix with entries in the balls. |g_kappa|, |g_nu| come from the committed
``corner_gradient`` (premise ``reduced-map``: the factored form with erfc, full relative accuracy where |g_kappa| is
1e-1000), checked against the chain rule's -R_kappa, -R_nu. lam and gamma are one ulp wide (:func:`widened`).
"""
from __future__ import annotations

import time

from flint import ctx

from ..checker.balls import param_balls
from ..kernels.balls import outward, widened
from ..kernels.certified import corner_gradient_arb, oracle_hessian_arb
from ..model.params import accepts_gamma2
from . import args as A

#: which dynamics each step size is for (the words every report prints beside the number)
DYNAMICS = {
    "alpha_max": "reduced PGD on M: det J of the map > 0 on [-1,1]^2 for every alpha below it (Proposition 10); a "
                 "necessary condition, not a certified step: Theorem 5's proof needs Proposition 12's diffeomorphism, so "
                 "its certified step alpha_5 <= alpha_12 <= alpha_max (`certify theorem5` certifies alpha_5); it says "
                 "nothing of the directions off M",
    "alpha_stable": "PGD on the spheres (Definition 1), linear stability of the oracle: above it the oracle repels PGD "
                    "off M (2/lambda_max, lambda_max the largest eigenvalue of the Riemannian Hessian of R_lam at "
                    "(k*, v*))",
}

#: the rows of B's coordinates (a2: k towards v*, b1: v towards k*) in the chart Hessian's order (a2, a3, b1, b3)
_B = (0, 2)
#: the rows of the orthogonal block's coordinates (a3: k along e, b3: v along e), e orthogonal to k* and v*
_E = (1, 3)


def _sym2(a, b, c):
    """(lambda_+, lambda_-) of the symmetric matrix [[a, b], [b, c]] on balls: every symmetric matrix with entries in
    the balls has its eigenvalues in them. lambda_- = det / lambda_+ when lambda_+ > 0 (no cancellation for a small
    eigenvalue beside a large one), else (a + c)/2 - the root."""
    root = (((a - c) / 2) ** 2 + b * b).nonnegative_part().sqrt()
    hi = (a + c) / 2 + root
    lo = (a * c - b * b) / hi if hi.lower() > 0 else (a + c) / 2 - root
    return hi, lo


def _sign(x):
    """True if the ball is > 0, False if < 0, None if it holds 0."""
    return True if x.lower() > 0 else False if x.upper() < 0 else None


#: the relative half-width of 2/lambda_max the precision ladder aims at (lam and gamma one ulp wide give ~1e-16)
_REL_WIDTH = 1e-9
#: the ladder's top: bits beyond it are not tried
_MAX_BITS = 4096


def _ladder(prec):
    """prec, 2 prec, 4 prec, ... up to max(prec, :data:`_MAX_BITS`)."""
    bits = prec
    while True:
        yield bits
        if bits >= max(prec, _MAX_BITS):
            return
        bits = min(2 * bits, max(prec, _MAX_BITS))


def _enclose(K, lam, gamma, d, L, prec):
    """The result of :func:`alpha_stable` at ``prec`` bits (see the module's docstring), with ``rel_width`` the relative
    half-width of 2/lambda_max; None if lambda_max is not proved > 0 there."""
    with ctx.workprec(int(prec)):
        par = dict(lam=widened(lam), **param_balls(gamma, 0.0, d, L).kw("gamma", "d", "L"))
        h = K.H(**par)
        H = [h[4 * i:4 * i + 4] for i in range(4)]
        a, c, b = H[0][0], H[2][2], (H[0][2] + H[2][0]) / 2  # the true Hessian is symmetric: the mean encloses it
        b_plus, b_minus = _sym2(a, b, c)
        gk, gn = corner_gradient_arb()(**par)  # |g_kappa|, |g_nu| at (1, 1): -R_kappa, -R_nu at the oracle
        if not (H[1][1].overlaps(gk) and H[3][3].overlaps(gn) and H[1][3].contains(0) and H[3][1].contains(0)):
            raise ArithmeticError("the chain rule's orthogonal block does not meet diag(|g_kappa|, |g_nu|) of Lemma 6's "
                                  "gradient at (1, 1)")
        eig = {"B+ (k towards v*, v towards k*)": (b_plus, 1), "B- (k towards v*, v towards k*)": (b_minus, 1),
               "|g_kappa| (k along span(k*, v*)^perp)": (gk, int(d) - 2),
               "|g_nu| (v along span(k*, v*)^perp)": (gn, int(d) - 2)}
        present = [x for x, m in eig.values() if m > 0]
        top, bottom = present[0], present[0]
        for x in present[1:]:
            top, bottom = top.max(x), bottom.min(x)
        if not top.lower() > 0:
            return None
        alpha = 2 / top
        return {"alpha_stable": outward(alpha), "lambda_max": outward(top), "lambda_min": outward(bottom),
                "minimum": _sign(bottom), "eigenvalues": {n: {"enclosure": outward(x), "multiplicity": m}
                                                          for n, (x, m) in eig.items()},
                "rel_width": float(alpha.rad() / alpha.mid())}


@accepts_gamma2
def alpha_stable(*, lam, gamma, d, L, prec=128):
    """Enclosures of lambda_max, the largest eigenvalue of the Riemannian Hessian of R_lam at the oracle (k*, v*) on
    S^{d-1} x S^{d-1}, and of alpha_stable = 2 / lambda_max: PGD on the spheres (Definition 1) has the oracle as a
    linearly stable fixed point iff the oracle is a strict local minimum (``minimum``) and alpha < 2 / lambda_max
    (`docs/MATH.md` §13; the module's docstring says why the eigenproblem is two 2 x 2 blocks, and how it differs from
    Proposition 10's alpha_max, which is for reduced PGD on M). eps moves no derivative: there is no eps.

    Returns {"alpha_stable": (lo, hi), "lambda_max": (lo, hi), "lambda_min": (lo, hi), "minimum" (True: every
    eigenvalue > 0, proved; False: one < 0, proved; None: undecided), "eigenvalues": {name: {"enclosure": (lo, hi),
    "multiplicity"}} (B's two, and |g_kappa|, |g_nu| of the d - 2 orthogonal directions), "dynamics" (what each step
    size is for, :data:`DYNAMICS`), "prec" (the bits used), "seconds"}; every (lo, hi) a ball's ends rounded outward to
    floats. ``prec`` is the first precision: it is doubled (up to 4096 bits) until 2/lambda_max is enclosed to a
    relative 1e-9 (tiny lam needs it: B's entries cancel to lam^2 d sizes); ``minimum`` is reported as decided then.
    ``ValueError`` names a parameter outside the model's ranges (d >= 2, at most 2^53; prec 53 to 10000 bits);
    ``ArithmeticError`` if lambda_max is still not proved > 0 at the ladder's top."""
    lam, gamma, _, d, L = A.model(lam, gamma, 0.0, d, L)
    prec = A.precision(prec)
    K = oracle_hessian_arb()
    if not all(K.proofs.values()):
        raise RuntimeError(f"the block structure of the oracle's Hessian is not proved: {K.proofs}")
    cross = {(i, j) for i in _B for j in _E} | {(j, i) for i in _B for j in _E}
    if not cross <= set(K.zero):
        raise RuntimeError(f"the chain rule couples the in-plane and orthogonal directions: zero entries {K.zero}")
    t0 = time.perf_counter()
    for bits in _ladder(prec):  # the B entries lose ~ their size's bits to cancellation where lam is tiny
        out = _enclose(K, lam, gamma, d, L, bits)
        if out is not None and out["rel_width"] < _REL_WIDTH:
            break
    if out is None:
        raise ArithmeticError(f"lambda_max is not proved > 0 at up to {bits} bits (lam, gamma, d, L = {lam!r}, {gamma!r}, "
                              f"{d}, {L})")
    del out["rel_width"]
    out.update(dynamics=dict(DYNAMICS), prec=bits, seconds=time.perf_counter() - t0)
    return out


def unstable_at(stability, alpha) -> bool:
    """Whether the oracle is a linearly unstable fixed point of PGD on the spheres at step ``alpha``, proved by the
    enclosures of :func:`alpha_stable` (``stability``, its result): a proved saddle there (unstable at every step), or a
    proved strict minimum with ``alpha`` above the upper end of 2/lambda_max. False when neither is proved."""
    m = stability["minimum"]
    return m is False or (m is True and alpha > stability["alpha_stable"][1])
