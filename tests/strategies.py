"""Hypothesis strategies that generate valid mathematical objects.

Realisable overlap tuples come from actual vectors: k and v are random unit vectors of R^4
(or of a lower-dimensional subspace, to hit the boundary of the realisable set), and
k* = e1, v* = e2; the overlaps are their inner products (`docs/MATH.md` §3).
"""
import numpy as np
from hypothesis import strategies as st

coord = st.floats(-1.0, 1.0, allow_nan=False, allow_infinity=False)


def _unit(vec):
    vec = np.asarray(vec, dtype=float)
    n = np.linalg.norm(vec)
    return vec / n


@st.composite
def unit_vector4(draw, support=4):
    vec = draw(st.lists(coord, min_size=support, max_size=support).filter(lambda x: np.linalg.norm(x) > 1e-3))
    full = np.zeros(4)
    full[:support] = vec
    return _unit(full)


@st.composite
def realisable_overlaps(draw):
    """(kappa, nu, theta, eta, rho) of unit k, v against k* = e1, v* = e2 in R^4."""
    k = draw(unit_vector4(support=draw(st.sampled_from([2, 3, 4]))))
    v = draw(unit_vector4(support=4))
    if draw(st.booleans()):  # sometimes put v in a random 2-plane rotated, to vary the geometry
        v = _unit(v[[1, 0, 3, 2]])
    return (float(k[0]), float(v[1]), float(v[0]), float(k[1]), float(k @ v))


params = st.fixed_dictionaries(
    {
        "lam": st.floats(0.01, 3.0),
        "gamma": st.floats(0.1, 2.0),
        "eps": st.floats(0.0, 1.0),
        "d": st.integers(4, 2000),
        "L": st.integers(1, 50),
    }
)


# ---------------------------------------------------------------------------------------------
# Bad input: what a user may pass by mistake, and the extremes of float64
# ---------------------------------------------------------------------------------------------

#: named bad values: NaN, infinities, huge (float and beyond float64), negative, zero, strings,
#: booleans, complex, None, empty, wrong shapes, arrays holding a NaN
BAD_VALUES = {
    "nan": float("nan"), "inf": float("inf"), "-inf": float("-inf"), "1e300": 1e300, "10**400": 10**400,
    "1e155": 1e155, "-1": -1.0, "0": 0, "'0.5'": "0.5", "True": True, "0.5+0j": 0.5 + 0j, "None": None, "[]": [],
    "3x2": [[0.5, 0.5], [0.5, 0.5], [0.5, 0.5]], "[0.1, nan]": np.array([0.1, float("nan")]),
    "1.5": 1.5, "object()": object(),
}


def bad_values():
    """One of :data:`BAD_VALUES`, with its label: (label, value)."""
    return st.sampled_from(sorted(BAD_VALUES.items(), key=lambda kv: kv[0]))
