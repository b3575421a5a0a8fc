"""Computer-assisted proofs with ball arithmetic (python-flint's arb): claims that are
inequalities or hold 'for all' parameters in a box (reference section 14).

* :func:`stationary_points_on_M` (Proposition 9): for every lam of an interval at once, the
  tangent gradient of the manifold risk vanishes on [-1, 1]^2 exactly at the five points.
"""
from .manifold import Certificate, stationary_points_on_M

__all__ = ["Certificate", "stationary_points_on_M"]
