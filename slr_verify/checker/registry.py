r"""One entry per certificate kind (`docs/certificates.md`): its coordinates and their fixed intervals, the admitted
leaf tests, the premises (and the rule for the optional ones), the fields beyond the common ones with their domains,
the statement it proves and its test. Nothing falls through: a kind not listed here is rejected.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from functools import partial
from typing import Callable

from . import dynamics as dyn
from .fields import Rejected
from .manifold import check_manifold
from .premises import closure
from .profile import check_profile
from .theorem5 import check_theorem5, read_pieces
from .window import check_window, ends_of

#: the fields of every certificate (``search``: free facts of the run, not read)
COMMON = ("format", "kind", "statement", "setting", "domain", "prec", "premises", "tree", "leaves")
_PROFILE_PREMISES = ("quadratic-in-v", "coefficient-hessians", "dual-bound", "pd-criterion")


@dataclass(frozen=True)
class Kind:
    """A certificate kind; ``statement``: (setting, domain {coordinate: (lo, hi)}, doc) -> text; ``check``: (doc, kind,
    setting balls, domain, boxes) -> (values, the conclusion's tail); ``rule``: any other check of the domain."""

    name: str
    coordinates: tuple
    tests: tuple
    premises: tuple
    statement: Callable
    check: Callable
    fixed: dict = field(default_factory=dict)
    points: tuple = ()
    positive: tuple = ("lam",)
    rule: Callable = lambda dom: None
    fields: tuple = ()
    optional: tuple = ()
    #: the setting parameters its statement is about, and the coordinates the checker widens to a one-ulp ball
    #: (what a claim's setting and domain are compared with: :mod:`.binding`)
    about: tuple = ("gamma", "eps", "d", "L")
    widened: tuple = ()
    #: certificates inside this one, checked in full (:func:`.replay.embedded`): field -> kind
    embedded: dict = field(default_factory=dict)
    prec: tuple = (64, 256)  #: the admitted precisions (bits): the floor of every committed certificate, a cost cap
    #: premises needed when an optional field is present ({field: premise}) or a leaf has a test ({test: premise})
    uses: dict = field(default_factory=dict)
    #: what a claim may bind beside the setting and lam (:mod:`.binding`): {quantity: how}
    binds: dict = field(default_factory=dict)


def _at(s) -> str:
    """The setting as the statements print it (gamma and eps as the certificate's floats, taken within one ulp)."""
    return f"gamma = {s[0]!r} (within one ulp), eps = {s[1]!r}, d = {s[2]}, L = {s[3]}"


def _on_M(s) -> str:
    """A statement on M holds at every eps and L (on M they add a constant to R: premises ``descent``, ``manifold-*``)."""
    return f"at gamma = {s[0]!r} (within one ulp), d = {s[2]}, every eps >= 0 and every L >= 1"


def _lam(dom) -> str:
    return f"[{dom['lam'][0]!r}, {dom['lam'][1]!r}]"


def _minimiser(s, dom, doc):
    return (f"at {_at(s)}: for every lam in {_lam(dom)}, (k*, v*) is the unique global minimiser of R_lam on "
            "S^{d-1} x S^{d-1} up to the symmetries")


def _window(s, dom, doc):
    e = ends_of(doc, dom["lam"])
    (a, _), hi, (A, B) = e["lo"], e["hi"], dom["lam"]
    upper = f"hi in [{B!r}, {hi[1]!r}]" if hi is not None else f"hi >= {B!r} (W has no upper end below {B!r})"
    return (f"at {_at(s)}: the connected component [lo, hi] of W = {{lam : (k*, v*) is a global minimiser of R_lam on "
            f"S^{{d-1}} x S^{{d-1}}}} that contains [{A!r}, {B!r}] has lo in [{a!r}, {A!r}] and {upper}; "
            f"(k*, v*) is a global minimiser of R_lam for every lam in [lo, hi] and the unique one up to the "
            f"symmetries for every lam in [{A!r}, {B!r}]")


def _enclosure(s, dom, doc):
    return (f"at {_at(s)}, lam = {dom['lam'][0]!r}: the global minimum of R_lam on S^{{d-1}} x S^{{d-1}} and every global "
            "minimiser's (|kappa|, t = eta^2 / (1 - kappa^2)) lie in the enclosures the checker derives from the bound leaves")


def _stationary(s, dom, doc):
    return (f"{_on_M(s)}: for every lam in {_lam(dom)}, the tangent gradient of R_lam on M vanishes on [-1, 1]^2 exactly at "
            "(0, 0), (1, 1), (-1, -1), (1, -1), (-1, 1) (Proposition 9)")


def _at_point(s, dom):
    return f"{_at(s)}, lam = {dom['lam'][0]!r} (within one ulp)"


def _signs(s, dom, doc):
    return (f"{_on_M(s)}: for every lam in {_lam(dom)}, the Hessian "
            "of R_lam on M is positive definite at (1, 1) and (-1, -1), negative definite at (1, -1) and (-1, 1) (angle "
            "coordinates) and indefinite at (0, 0) (Proposition 9's classification)")


def _diffeomorphism(s, dom, doc):
    A = dom["alpha"][1]
    U, (k, n) = dyn.upper_bound(doc, A)[0], dyn.upper_bound(doc, A)[1] or (0.0, 0.0)
    up = "" if U is None else f"; det J({k!r}, {n!r}) < 0 at alpha = {U!r}, so alpha_max <= {U!r}"
    return (f"at {_at_point(s, dom)}: the Jacobian determinant of the reduced PGD map on M is > 0 at every (kappa, nu) "
            f"of [-1, 1]^2 for every step size alpha in [0, {A!r}], so alpha_max >= {A!r} (Proposition 10){up}")


def _family(s, dom, doc):
    return (f"at {_at_point(s, dom)}: for eta = +1 and -1, k = eta v*, v = theta* k* + sqrt(1 - theta*^2) w (w a unit "
            "vector orthogonal to k*, v*), with |theta*| < 1 enclosed by the checker, is a stationary point of R_lam on "
            "S^{d-1} x S^{d-1}; at eta = +1 it is a strict local minimum modulo the rotations fixing k* and v*")


def _contraction(s, dom, doc):
    return (f"at {_at_point(s, dom)}, alpha = {dom['alpha'][0]!r}: for G = sigma o Phi (Phi the five-overlap PGD map, "
            "sigma the certificate's sign pattern), the ball B = {x : max over the groups I of |(T^{-1} (x - c))_I|_2 <= s} "
            "(c, T, groups, s: the certificate's centre, T, groups, radius) is mapped into itself by G, a contraction "
            "there: every PGD run that enters B converges to the one fixed point p of G in B (sigma = id) or to the "
            "orbit {p, sigma p}")


def _transverse(s, dom, doc):
    k, n = dom["kappa"], dom["nu"]
    return (f"at {_at(s)}, alpha = {dom['alpha'][0]!r}: for every lam in {_lam(dom)} and (kappa, nu) in a leaf of "
            f"[{k[0]!r}, {k[1]!r}] x [{n[0]!r}, {n[1]!r}], with T "
            "the (theta, eta, rho) block of the five-overlap PGD map's Jacobian at (kappa, nu, 0, 0, 0) on M (there the "
            "Jacobian is diag(D Phi_alpha, T), premise pgd-map): on an attracting leaf ||S^-1 T S|| <= q < 1 in the norm "
            "max over the groups I of |(S^-1 y)_I|_2 (S, groups the leaf's), so T contracts it and M attracts PGD "
            "transversally to first order; on a repelling leaf det(I - T) < 0 or det(I - T^2) < 0, so T has a real eigenvalue "
            "of modulus > 1 (above 1, or below -1: a flip) and M repels to first order; an undecided leaf proves nothing")


def _oracle_tube(s, dom, doc):
    f, (k, _), (n, _), (a, b) = dyn.tube_fields(doc), dom["kappa"], dom["nu"], dom["lam"]
    lam = f"every lam in [{a!r}, {b!r}]" if a < b else f"lam = {a!r} (within one ulp)"
    return (f"at {_at(s)}, {lam} and alpha = {dom['alpha'][0]!r}: every PGD run on the spheres from a realisable start "
            f"with kappa_0 - m >= {k!r}, nu_0 - m >= {n!r} (m = {f['margin']!r}) and |T^-1 y_0|_2 <= {f['entry']!r}, "
            f"y = (theta, eta, rho) and T the certificate's, in particular every |y_0|_2 <= {f['euclidean']!r}, converges "
            f"to the oracle (kappa, nu, y) = (1, 1, 0), with |T^-1 y_t|_2 <= {f['q']!r}^t |T^-1 y_0|_2")


def _corner(dom):
    if not all(0 < dom[c][0] < dom[c][1] == 1 for c in ("kappa", "nu")):
        raise Rejected(f"domain kappa and nu must be [c, 1] with 0 < c < 1, got {dom['kappa']}, {dom['nu']}")


def _theorem5(s, dom, doc):
    pieces = read_pieces(doc, dom["lam"], dom["alpha"][1])
    rated = sum(p["mu"] is not None for p in pieces)
    rate = ("" if not rated else
            f"; (rate R1) on the {rated} pieces with a rate (mu, delta the certificate's), |Pg(x)|^2 >= mu (R(x) - R*) for "
            "every x of S_delta = {x : R(x) <= R(0, 0) - delta}, R* = R(1, 1), so that R(x_t) - R* <= (1 - alpha mu/2)^t "
            "(R(x_0) - R*) for every PGD run on M from x_0 in S_delta and every alpha in (0, alpha_8]")
    return (f"{_on_M(s)}: for every lam in {_lam(dom)}, with alpha_8, "
            f"alpha_12 and alpha_5 the certificate's on each of its {len(pieces)} lam pieces (smallest alpha_5: "
            f"{min(p['alpha_5'] for p in pieces)!r}), Phi_alpha the reduced PGD map on M and x in [-1, 1]^2: (Proposition 8) "
            "R(Phi_alpha(x)) <= R(x) - (alpha/2)|Pg(x)|^2 for every alpha in (0, alpha_8]; (Proposition 12) Phi_alpha is "
            "injective on [-1, 1]^2 with an invertible Jacobian for every alpha in (0, alpha_12], and for alpha in "
            f"(0, alpha_5] its Jacobian at (0, 0) has one eigenvalue in (0, 1) and one above 1{rate}; with Proposition 9 "
            "(the embedded certificates: on M the tangent gradient vanishes exactly at (0, 0), (1, 1), (-1, -1), (1, -1), "
            "(-1, 1), minima at (1, 1) and (-1, -1), maxima at (1, -1) and (-1, 1), a saddle at (0, 0)) and the cited "
            "theorems of Lange (2013, Prop. 12.4.1: Proposition 11) and Shub (1987, Thm III.7: Proposition 13): "
            "(Theorem 5) for every lam of the interval and every alpha in (0, alpha_5], PGD on M converges to "
            "(k*, v*) or (-k*, -v*) from every initialisation (kappa_0, nu_0) in [-1, 1]^2 outside a Lebesgue-null set")


def _alpha_from_zero(dom):
    if not dom["alpha"][0] == 0 < dom["alpha"][1]:
        raise Rejected(f"domain alpha must be [0, A] with A > 0, got {dom['alpha']}")


def _in_square(dom):
    if not all(-1 <= dom[c][0] < dom[c][1] <= 1 for c in ("kappa", "nu")):
        raise Rejected(f"domain kappa and nu must be intervals of [-1, 1], got {dom['kappa']}, {dom['nu']}")


_QUARTER = {"kappa": (0.0, 1.0), "t": (0.0, 1.0)}
_SQUARE = {"kappa": (-1.0, 1.0), "nu": (-1.0, 1.0)}
_PROFILE = ("kappa", "t", "lam")
_EDGE = {"valley-edge": "valley-edge"}

KINDS = {k.name: k for k in (
    Kind("oracle-global-minimiser", _PROFILE, ("valley", "valley-edge", "value"),
         (*_PROFILE_PREMISES, "valley", "oracle-risk"), _minimiser, check_profile, _QUARTER, uses=_EDGE),
    Kind("oracle-window", _PROFILE, ("valley", "valley-edge", "value"),
         (*_PROFILE_PREMISES, "valley", "oracle-risk", "oracle-curvature"), _window, check_window, _QUARTER,
         fields=("ends",), uses=_EDGE, binds={"ends": "ends"}),
    Kind("global-minimum-enclosure", _PROFILE, ("value", "bound"), _PROFILE_PREMISES, _enclosure,
         partial(check_profile, enclosure=True), _QUARTER, points=("lam",), fields=("witness",), optional=("circle",),
         uses={"circle": "circle"}),
    Kind("manifold-stationary-points", ("kappa", "nu", "lam"), ("exclude", "in-X"), ("manifold-sign",), _stationary,
         check_manifold, _SQUARE, fields=("r", "pieces"), about=("gamma", "d")),
    Kind("manifold-hessian-signs", ("lam",), ("signs",), ("manifold-hessians",), _signs, dyn.check_signs,
         about=("gamma", "d")),
    Kind("reduced-map-diffeomorphism", ("kappa", "nu", "alpha", "lam"), ("det-positive",), ("reduced-map",),
         _diffeomorphism, dyn.check_diffeomorphism, _SQUARE, points=("lam",), rule=_alpha_from_zero,
         optional=("alpha_upper", "upper_at"), widened=("lam",), binds={"alpha": "domain"}),
    Kind("theorem-5", ("kappa", "nu", "alpha", "lam"), ("bounds",), ("descent",), _theorem5, check_theorem5, _SQUARE,
         rule=_alpha_from_zero, fields=("pieces", "stationary", "signs"), optional=("rate",), about=("gamma", "d"),
         embedded={"stationary": "manifold-stationary-points", "signs": "manifold-hessian-signs"},
         uses={"rate": "lojasiewicz"}, binds={"alpha": "alpha_5"}),
    Kind("off-M-minimum", ("lam",), ("family-minimum",), ("off-M-family",), _family, dyn.check_family, points=("lam",),
         widened=("lam",)),
    Kind("contraction-ball", ("lam", "alpha"), ("contraction",), ("pgd-map",), _contraction, dyn.check_contraction,
         points=("lam", "alpha"), positive=("lam", "alpha"), widened=("lam",), binds={"alpha": "domain"}),
    Kind("transverse-map", ("kappa", "nu", "lam", "alpha"), ("attracting", "repelling", "undecided"), ("pgd-map",),
         _transverse, dyn.check_transverse, points=("alpha",), positive=("lam", "alpha"), rule=_in_square,
         binds={"alpha": "domain"}),
    Kind("oracle-tube", ("kappa", "nu", "lam", "alpha"), ("tube-box",), ("pgd-map", "edge-invariance"), _oracle_tube,
         dyn.check_oracle_tube, points=("alpha",), positive=("lam", "alpha"), rule=_corner,
         fields=("T", "radius", "margin", "q", "entry", "euclidean"), binds={"alpha": "domain", "tube": "tube"}),
)}


def required_premises(kind, doc) -> tuple:
    """The premises a certificate of ``kind`` rests on: the kind's, those its optional fields and leaf tests use
    (``Kind.uses``), and the premises these evaluate in turn (:data:`.premises.DEPENDS`): the writer and the checker
    both read this."""
    leaves = doc.get("leaves") if isinstance(doc.get("leaves"), list) else []
    used = {k for k in doc if doc[k] is not None} | {x.get("test") for x in leaves if isinstance(x, dict)}
    return closure(KINDS[kind].premises + tuple(p for k, p in KINDS[kind].uses.items() if k in used))
