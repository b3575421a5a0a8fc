"""Computer-assisted proofs with ball arithmetic (python-flint's arb): claims that are
inequalities or hold 'for all' parameters in a box (`docs/MATH.md` §14).

* :func:`stationary_points_on_M` (Proposition 9): for every lam of an interval at once, the
  tangent gradient of the manifold risk vanishes on [-1, 1]^2 exactly at the five points.
* :func:`hessian_signs`, :func:`alpha_attract`, :func:`alpha_diffeo` (Proposition 10): the
  classification for every lam of an interval, the attraction step size, and a certified bracket
  of alpha_max (det J > 0 on the whole square below it); each writes a certificate. alpha_max is for reduced PGD on M.
* :func:`alpha_stable`: enclosures of lambda_max, the largest eigenvalue of the Riemannian Hessian at the oracle on
  the spheres, and of 2 / lambda_max, the step above which the oracle repels PGD on the spheres (Definition 1).
* :func:`off_M_family_point`, :func:`off_M_family_minimality`, :func:`off_M_certificate`: the stationary point
  off M and its local minimality.
* :func:`contraction_ball`, :func:`valley_tube`: the capture regions of sphere-initialised PGD (a contraction ball of
  sigma o Phi, the tube around the flat valley nu = 1); :func:`capture_certificate`, :func:`tube_certificate` write
  them as certificates; :func:`classify_runs`, :func:`sample_basins`: every run accounted for by them.
* :func:`oracle_window`: enclosures of the end points of the oracle's window (the profile route,
  `docs/MATH.md` §17): certified witnesses outside each end.
* :func:`global_minimiser`: the weak-duality branch and bound over the profile's quarter disk and a
  lam interval (`docs/MATH.md` §17); it writes a certificate (`docs/certificates.md`).
* :func:`replay`: the independent checker of certificates (it imports none of the searches).
"""
from .basins import Classification, classify_runs, sample_basins
from .capture import CaptureBall, contraction_ball
from .family_proof import off_M_certificate, off_M_family_minimality, off_M_family_point
from .global_result import GlobalCertificate
from .globalmin import global_minimiser
from .manifold import Certificate, stationary_points_on_M
from .oracle_stability import alpha_stable
from .reduced_map import alpha_attract, alpha_diffeo, hessian_signs
from .regions import capture_certificate, tube_certificate
from .replay import Replay, replay
from .valley import ValleyTube, valley_tube
from .window import WindowEnclosure, oracle_window

__all__ = ["Certificate", "stationary_points_on_M", "hessian_signs", "alpha_attract", "alpha_diffeo", "alpha_stable",
           "off_M_family_point",
           "off_M_family_minimality", "off_M_certificate", "capture_certificate", "tube_certificate",
           "oracle_window", "WindowEnclosure", "global_minimiser", "GlobalCertificate", "replay", "Replay", "CaptureBall",
           "contraction_ball", "ValleyTube", "valley_tube", "Classification", "classify_runs", "sample_basins"]
