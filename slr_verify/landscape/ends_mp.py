r"""The window's ends at 30 digits by the mpmath profile (`docs/MATH.md` §17): an independent route for the
certified enclosures of :func:`slr_verify.certify.oracle_window`.

No ball arithmetic, no dual bound, no closed-form curvature: only the profile's trust-region subproblem solved in
mpmath (:func:`slr_verify.landscape.trs.profile_mp`) and Theorem 1's oracle risk in mpmath.

* a **crossing** end is the root of D(lam) = min_N m_lam - R_lam(k*, v*), N a neighbourhood of the competitor: the
  minimum by a pattern search in the angle chart on the mpmath profile (steps 1e-3 down to 1e-14), the root by the
  secant method from the float end;
* a **pitchfork** end is the root of the second difference 2 (m(h) - m(0)) / h^2 of the mpmath profile at k* along the
  direction that loses its curvature (h = 1e-9: the quartic term adds O(h^2) ~ 1e-18 to the curvature).
"""
from __future__ import annotations

import mpmath

from ..kernels.generated import risk_kernel_mp
from ..model.params import keywords_checked
from .trs import profile_mp


def _chart_min(a, b, lam, kw, dps):
    """min of the mpmath profile near the angle chart's (a, b) (clipped to [0, pi/2]^2): a 3 x 3 pattern search."""
    half = mpmath.pi / 2
    m_at = lambda a, b: profile_mp(mpmath.cos(b) * mpmath.cos(a), mpmath.cos(b) * mpmath.sin(a), lam=lam, dps=dps, **kw)[0]
    a, b = mpmath.mpf(a), mpmath.mpf(b)
    m, h = m_at(a, b), mpmath.mpf("1e-3")
    while h > mpmath.mpf("1e-14"):
        best = None
        for i in (-1, 0, 1):
            for j in (-1, 0, 1):
                if i or j:
                    p = (min(max(a + i * h, 0), half), min(max(b + j * h, 0), half))
                    v = m_at(*p)
                    if v < m and (best is None or v < best[0]):
                        best = (v, p)
        if best is None:
            h /= 4
        else:
            m, (a, b) = best[0], best[1]
    return m, (a, b)


def _oracle(lam, kw):
    """Theorem 1 at the oracle's overlaps (kappa, nu, theta, eta, rho) = (1, 1, 0, 0, 0), in mpmath."""
    return risk_kernel_mp()(1, 1, 0, 0, 0, mpmath.mpf(lam), mpmath.mpf(kw["gamma"]), mpmath.mpf(kw["eps"]), kw["d"], kw["L"])


def _crossing(x, chart, kw, dps):
    state = {"chart": chart}

    def D(lam):
        m, state["chart"] = _chart_min(*state["chart"], lam, kw, dps)
        return m - _oracle(lam, kw)

    return mpmath.findroot(D, (mpmath.mpf(x) * (1 - mpmath.mpf("1e-9")), mpmath.mpf(x) * (1 + mpmath.mpf("1e-9"))),
                           solver="secant", tol=mpmath.mpf(10) ** (-2 * dps + 8))


def _pitchfork(x, direction, kw, dps, h="1e-9"):
    h = mpmath.mpf(h)

    def c2(lam):
        k = mpmath.sqrt(1 - h**2)
        m1 = profile_mp(k, h if direction == "v*" else 0, lam=lam, dps=dps + 20, **kw)[0]
        m0 = profile_mp(1, 0, lam=lam, dps=dps + 20, **kw)[0]
        return 2 * (m1 - m0) / h**2

    return mpmath.findroot(c2, (mpmath.mpf(x) * (1 - mpmath.mpf("1e-9")), mpmath.mpf(x) * (1 + mpmath.mpf("1e-9"))),
                           solver="secant", tol=mpmath.mpf(10) ** (-2 * dps + 8))


@keywords_checked
def ends_mp(window, *, gamma, eps=0.0, d, L, dps=30) -> dict:
    """{"lo": mpf or None, "hi": mpf or None}: the ends of ``window`` (a :class:`~slr_verify.landscape.Window`, whose
    float ends, mechanisms and records -- the competitor's chart, the direction of the lost curvature -- start the
    refinement) at ``dps`` digits (see the module). `docs/MATH.md` §§13, 17."""
    kw = {"gamma": float(gamma), "eps": float(eps), "d": int(d), "L": int(L)}
    out = {}
    with mpmath.workdps(dps + 10):
        for side, x, mech in (("lo", window.lo, window.mechanism_lo), ("hi", window.hi, window.mechanism_hi)):
            rec = window.mechanism_records.get(side, {})
            if mech == "crossing":
                out[side] = _crossing(x, rec["chart"], kw, dps)
            elif mech == "pitchfork":
                out[side] = _pitchfork(x, rec.get("direction", "v*"), kw, dps)
            else:
                out[side] = None
    return out
