r"""zeta and zetac as the generated kernels call them (`docs/MATH.md` §4): :mod:`.special`'s enclosures on balls; on
``arb_series`` zeta integrates its closed-form partials (premise ``zeta-partials``, served by :func:`.premises.kernels`)."""
from __future__ import annotations

from flint import arb, arb_series

from .premises import kernels
from .runtime import as_ball
from .special import zeta_arb, zetac_arb

#: what the generated kernels may call
CALLABLE = ("ball_zeta", "ball_zetac")


def ball_zetac(t, g):
    return zetac_arb(as_ball(t), as_ball(g))


def ball_zeta(t, g):
    """zeta(t, g); on series (Taylor arithmetic) the constant term is the enclosure at the constant terms, the rest
    the integral of d zeta = zeta_t dt + zeta_g dg (both closed forms: `docs/MATH.md` §4)."""
    if not (isinstance(t, arb_series) or isinstance(g, arb_series)):
        return zeta_arb(as_ball(t), as_ball(g))
    n = (t if isinstance(t, arb_series) else g).prec
    t, g = (x if isinstance(x, arb_series) else arb_series([as_ball(x)], prec=n) for x in (t, g))
    c0 = lambda s: (s.coeffs() or [arb(0)])[0]  # a zero series has no coefficients
    # the coefficients of order < n of zeta(t(s), g(s)) need those of order < n - 1 of the partials only
    short = lambda s: arb_series(s.coeffs()[:n - 1], prec=n - 1)
    zt, zg = kernels("zeta-partials").zeta_partials(short(t), short(g))
    rest = (zt * t.derivative() + zg * g.derivative()).integral().coeffs()[1:n]
    out = [zeta_arb(c0(t), c0(g))] + list(rest)
    return arb_series(out + [arb(0)] * (n - len(out)), prec=n)
