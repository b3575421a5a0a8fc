r"""The oracle's window, proved end to end (`docs/MATH.md` §§13, 17; `docs/certificates.md`, kind ``oracle-window``).

W = {lam : (k*, v*) is a global minimiser of R_lam}. Each end x of W is found on the profile route
(:func:`slr_verify.landscape.float_window`: the float end and its mechanism, read off the minimiser just outside)
and enclosed in [x - h, x + h] (h = 4e-13 by default: width <= 1e-12). One certificate carries the statement:

* **inside**: the branch and bound (:func:`slr_verify.certify.global_minimiser`) proves (k*, v*) the unique global
  minimiser up to the symmetries for every lam of [A, B] = [lo + h, hi - h]: the boxes near a tie (the competitor's
  orbit at a crossing) or near the lost curvature (k* at a pitchfork) split in lam down to the end;
* **outside each end** (the outer point of its enclosure is not in W): at a ``crossing`` an explicit pair -- the
  competitor the float search finds there, its (k, v) rounded to exact floats -- has certified risk below the
  oracle's; at a ``pitchfork`` the profile's second derivative at k* along the direction that loses it (closed form,
  `docs/MATH.md` §17) is certified < 0.

W is closed, so the connected component of W containing [A, B] is [lo, hi] with lo in [A - 2h, A] and hi in
[B, B + 2h]: the oracle is a global minimiser on all of [lo, hi], its uniqueness is proved on [A, B]. The mechanism
of each end is the one its proof uses (the pair's overlaps, or the direction whose curvature is negative). Without an
upper end on the scanned range, [A, B] runs to the range's end and the statement says no more than that.
"""
from __future__ import annotations

import math
import time
from dataclasses import dataclass, field

from flint import arb, ctx

from ..checker import replay
from ..checker.profile import SettingBalls
from ..checker.window import curvature_at
from ..kernels.balls import midpoint
from ..kernels.profile import oracle_arb
from ..landscape import float_window
from ..landscape.float_minimiser import angle_chart, local_minimum
from ..landscape.window import EndPoints
from ..model import tiers as T
from ..model import validation as V
from ..model.engine import resolve
from ..model.params import accepts_gamma2
from ..model.processes import refuse_in_bootstrap
from . import certificate as C
from .args import setting as exact_setting
from .dual_box import Box, Evaluator, strip_test
from .enclosure import certified_pair
from .globalmin import minimise


@dataclass
class WindowEnclosure(EndPoints):
    """``lo``, ``hi``: (lower, upper) enclosures of W's end points (``hi`` None: no upper end on the scanned range, or
    not reached); ``proved``: the certificate was accepted by the checker and covers the whole window found (both ends,
    or the lower end and the scanned range's end): the oracle is a global minimiser on the closed interval between the
    ends, the unique one on ``unique``; ``statement``: the checker's conclusion of an accepted certificate, also of a
    partial one (``proved`` False, the time limit or a failed lam piece stopped the search at ``unique[1]``:
    ``details["reason"]`` says what is not proved); ``mechanisms``: each end's, as its proof identifies it;
    ``certificate``, ``replay``; ``boxes``, ``seconds``; ``details``."""

    lo: tuple | None
    hi: tuple | None
    proved: bool
    mechanisms: tuple
    unique: tuple | None = None
    statement: str | None = None
    certificate: dict | None = None
    replay: object = None
    boxes: int = 0
    seconds: float = 0.0
    details: dict = field(default_factory=dict)

    @property
    def tier(self) -> str:
        """What ``proved`` rests on (`slr_verify.model.tiers`)."""
        return T.certified(self.proved)


def _witness(lam, S, kw, chart):
    """The competitor -- the profile's local minimum followed from ``chart`` (where the float window found it) to
    ``lam`` -- as an exact pair {a, b, x}, and its certified risk."""
    _, at = local_minimum(chart, lam=lam, **kw)
    return certified_pair(*angle_chart(*at), lam=lam, setting=S)


def _describe(w):
    """The competitor's pair in words: k's (kappa, eta, r) and v's components on (k*, v*, e, e')."""
    k = (math.cos(w["b"]) * math.cos(w["a"]), math.cos(w["b"]) * math.sin(w["a"]), math.sin(w["b"]))
    n = math.sqrt(sum(t * t for t in w["x"]))
    v = [t / n for t in w["x"]]
    return (f"crossing: the pair k = ({k[0]:.3g}, {k[1]:.6g}, {k[2]:.3g}) on (k*, v*, e), v = ({v[0]:.6g}, {v[1]:.3g}, "
            f"{v[2]:.6g}, {v[3]:.3g}) on (k*, v*, e, e') has lower risk than the oracle just outside")


def _curvature_root(S, x, direction, h, side):
    """The float root x of the curvature along ``direction`` at k*, refined by bisection on the certified closed form
    (:func:`~slr_verify.checker.window.curvature_at`, 128 bits) until a sign change is certified within h / 4 of it: the float64
    closed form cancels, and its root can sit further from the true one than an enclosure's half-width."""
    sign_in = -1 if side == "lo" else 1  # the curvature is > 0 inside W: below the upper end, above the lower end

    def side_of(lam):  # +1 inside W (curvature > 0), -1 outside (< 0), 0 undecided
        c2 = curvature_at(S, lam, direction)[0]
        return (1 if c2 > 0 else -1 if c2 < 0 else 0) * (1 if sign_in > 0 else -1)

    w = max(16 * h, 1e-9 * x)
    a, b = x - sign_in * w, x + sign_in * w  # a inside, b outside (if the float root is within w)
    if not (side_of(a) == 1 and side_of(b) == -1):
        return x
    while abs(b - a) > h / 4:
        m = 0.5 * (a + b)
        s = side_of(m)
        if s == 0:
            return m
        a, b = (m, b) if s == 1 else (a, m)
    return 0.5 * (a + b)


#: the largest half-width a pitchfork end's enclosure may widen to (its width stays below 1e-10)
MAX_HALF_WIDTH = 3.2e-11
#: near an end the boxes split in lam down to (the ends' smaller half-width) / (2 CORNER)
CORNER = 32


def _end(side, x, mech, record, h, S, kw):
    """The record of one end (`docs/certificates.md`) and its mechanism in words; raises RuntimeError if the outer
    point cannot be shown outside W."""
    out = x - h if side == "lo" else x + h
    enc = [out, x + h] if side == "lo" else [x - h, out]
    if mech == "crossing":
        w, R = _witness(out, S, kw, record["chart"])
        U = oracle_arb()(arb(out), **S.P.kw())[0]
        if not R < U:
            raise RuntimeError(f"the competitor at lam = {out!r} is not certified below the oracle ({R} vs {U}): the "
                               f"float end {x!r} is not within {h:g} of W's {side} end")
        return {"enclosure": enc, "mechanism": "crossing", "witness": w}, _describe(w)
    direction = record.get("direction", "v*")
    x0, ev = x, Evaluator(**kw)
    while True:
        x = _curvature_root(S, x0, direction, h, side)
        inner = x + h if side == "lo" else x - h
        # the valley's corner at (kappa, lam) = (1, inner) closes only where its test passes on a box of lam-width
        # h / CORNER there (the branch and bound's boxes stop at half that): the curvature is ~ slope x h at the inner
        # point, and the test's enclosure carries the parameters' ulp balls (~1e-14); else the half-width doubles
        near = (inner, inner + h / CORNER) if side == "lo" else (inner - h / CORNER, inner)
        if strip_test(ev, Box((1.0 - h, 1.0), (0.0, 1.0), near))[0] or 2 * h > MAX_HALF_WIDTH:
            break
        h *= 2
    out = x - h if side == "lo" else x + h
    enc = [out, x + h] if side == "lo" else [x - h, out]
    c2, g1, g3 = curvature_at(S, out, direction)
    if not (c2 < 0 and g1 > 0 and g3 > 0):
        raise RuntimeError(f"the curvature along {direction} at lam = {out!r} is not certified < 0: {c2}")
    return ({"enclosure": enc, "mechanism": "pitchfork", "direction": direction},
            f"pitchfork: the profile's curvature at k* along {direction} is < 0 just outside ({midpoint(c2):.3g})")


@accepts_gamma2
def oracle_window(*, gamma, eps=0.0, d, L, half_width=4e-13, lam_range=(1e-4, 1e2), prec=64, workers=1,
                  time_limit=1800.0, progress=None, check=True, window=None, scheduler=None) -> WindowEnclosure:
    """W's two ends enclosed to 2 ``half_width`` each (a pitchfork end's half-width doubled, up to
    :data:`MAX_HALF_WIDTH`, while the valley's corner just inside does not pass its test) and proved, with the oracle's
    global minimality between them (see the module): one certificate (kind ``oracle-window``), replayed by the checker
    when ``check``. ``lam_range``: the float scan's range (an end of it is not an end of W); ``workers``,
    ``scheduler``: where the branch and bound's lam pieces run, as for :func:`~slr_verify.certify.global_minimiser` (the
    default: in this process; with a local cluster a script must call this under ``if __name__ == "__main__":``, see
    :mod:`slr_verify.model.processes`; ``slr-verify certify window`` uses every core);
    ``time_limit``: seconds for the float scan and the search; when it ends the branch and bound, the lam pieces proved
    so far (from the lower end up) make a partial certificate and statement (:class:`WindowEnclosure`), which the
    checker replays after it (in at most the search's time: it evaluates only the leaves kept);
    ``window``: a :class:`~slr_verify.landscape.Window` already computed; ``progress``: a file (or True: stderr).
    `docs/MATH.md` §§13, 17."""
    return window_on(None, gamma=gamma, eps=eps, d=d, L=L, half_width=half_width, lam_range=lam_range, prec=prec,
                     workers=workers, time_limit=time_limit, progress=progress, check=check, window=window,
                     scheduler=scheduler)


def window_on(engine, *, gamma, eps=0.0, d, L, half_width=4e-13, lam_range=(1e-4, 1e2), prec=64, workers=1,
              time_limit=1800.0, progress=None, check=True, window=None, scheduler=None) -> WindowEnclosure:
    """:func:`oracle_window` with its lam pieces on an open :class:`~slr_verify.model.engine.Engine` (None: one opened
    from ``scheduler`` and ``workers`` for the branch and bound)."""
    setting = exact_setting(gamma=gamma, eps=eps, d=d, L=L).require_d("profile")  # d, L exact in the certificate
    h = V.real("half_width", half_width, minimum=0.0, strict_min=True, maximum=5e-7, why="the ends' half-widths")
    prec = V.integer("prec", prec, 53, 4096, why="bits of the ball arithmetic")
    time_limit = V.real("time_limit", time_limit, minimum=0.0, strict_min=True)
    workers = V.integer("workers", workers, 1, 64, why="processes of the branch and bound")
    if engine is None and resolve(scheduler, workers) == "local":
        refuse_in_bootstrap("certify.oracle_window", "workers", workers)
    if not isinstance(check, bool):
        raise ValueError(f"check must be True or False, got {check!r}")
    t0 = time.time()
    kw = {"gamma": setting.gamma, "eps": setting.eps, "d": int(setting.d), "L": int(setting.L)}
    w = window if window is not None else float_window(lam_range=lam_range, **kw)
    S = SettingBalls(*kw.values())
    fail = lambda why, **more: WindowEnclosure(None, None, False, (w.mechanism_lo, w.mechanism_hi), seconds=time.time() - t0,
                                               details={"reason": why, **more})
    if w.mechanism_lo is None:
        return fail("W has no lower end on the scanned range: widen lam_range")
    with ctx.workprec(int(prec)):
        ends, words = {}, {}
        try:
            ends["lo"], words["lo"] = _end("lo", w.lo, w.mechanism_lo, w.mechanism_records.get("lo", {}), h, S, kw)
            if w.mechanism_hi is None:
                ends["hi"], words["hi"] = {"mechanism": "none"}, f"none: no upper end of W below {w.hi!r} (the scan's end)"
            else:
                ends["hi"], words["hi"] = _end("hi", w.hi, w.mechanism_hi, w.mechanism_records.get("hi", {}), h, S, kw)
        except RuntimeError as e:
            return fail(str(e))
        A = ends["lo"]["enclosure"][1]  # the ends as refined by their proofs, not the float scan's
        B = ends["hi"]["enclosure"][0] if "enclosure" in ends["hi"] else w.hi
        # the boxes near an end split in lam down to ~h: the valley's corner at (kappa, lam) = (1, hi) closes only there
        h_min = min(abs(e["enclosure"][1] - e["enclosure"][0]) / 2 for e in ends.values() if "enclosure" in e)
        g = minimise(engine, lam=(A, B), prec=prec, workers=workers, scheduler=scheduler, check=False,
                     min_width=h_min / (2 * CORNER),
                     progress=progress, time_limit=max(1.0, time_limit - (time.time() - t0)), partial=True,
                     caller="certify.oracle_window", **kw)
        details = {"float_window": (w.lo, w.hi), "search": g.details, "reason": g.reason}
        if g.certificate is None:
            return fail(f"the branch and bound over [{A!r}, {B!r}] did not close: {g.reason}", search=g.details)
        if not g.proved:  # its first part [A, x] closed: the statement is about that part only
            B = g.details["proved_to"]
            ends["hi"] = {"mechanism": "none"}
            words["hi"] = (f"not reached: proved up to lam = {B!r} only (the float scan's upper end: {w.hi!r}, "
                           f"{w.mechanism_hi or 'the range end'})")
            details["reason"] = (f"W is proved on [{A!r}, {B!r}] only; not proved: lam in ({B!r}, {w.hi!r}] and the upper "
                                 f"end. {g.reason}")
        doc = C.as_window(g.certificate, ends)
    r = replay(doc) if check else None
    ok = bool(r is not None and r.accepted)
    lo = tuple(ends["lo"]["enclosure"])
    hi = tuple(ends["hi"]["enclosure"]) if "enclosure" in ends["hi"] else None
    return WindowEnclosure(lo, hi, ok and g.proved, (words["lo"], words["hi"]), (A, B), r.conclusion if ok else None,
                           doc, r, g.boxes, time.time() - t0, details)
