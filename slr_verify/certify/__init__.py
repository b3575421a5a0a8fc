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
  sigma o Phi, the tube around the flat valley nu = 1, ball arithmetic with no certificate); :func:`capture_certificate`
  writes the ball as a certificate; :func:`classify_runs`, :func:`sample_basins`: every run accounted for by them.
* :func:`oracle_tube`, :func:`largest_oracle_tube`: Theorem 5 in a tube around M near the oracle (an ``oracle-tube``
  certificate the checker replays): every start with (kappa, nu) in [c, 1]^2 and (theta, eta, rho) small converges to
  (k*, v*).
* :func:`oracle_window`: enclosures of the end points of the oracle's window (the profile route,
  `docs/MATH.md` §17): certified witnesses outside each end.
* :func:`window_grid`, :func:`open_window_grid`: W proved at every setting of a grid (gamma^2, d, L, eps) on Dask,
  into a resumable Zarr store with the certificates beside it (`docs/MATH.md` §§13, 17).
* :func:`global_minimiser`: the weak-duality branch and bound over the profile's quarter disk and a
  lam interval (`docs/MATH.md` §17); it writes a certificate (`docs/certificates.md`).
* :func:`log_bayes_gap_enclosure`: an enclosure of log(R_lam(k*, v*) - eps^2), Corollary 2's gap (`docs/MATH.md` §6).
* :func:`theorem5_step`, :func:`lojasiewicz`: Theorem 5 at an explicit step and the rate R1 on lam pieces
  (`docs/MATH.md` §20).
* :func:`load_committed`, :func:`replay_committed`, :func:`find_committed`: the certificates committed with the
  package (``slr_verify/certificates/``), read, replayed, or found by the statement they bind.

The independent checker of certificates is :mod:`slr_verify.checker` (:func:`slr_verify.checker.replay`; it imports
none of the searches); ``certify.replay`` is the same function, under the name the searches use.
"""
from .basins import Classification, classify_runs, sample_basins
from .capture import CaptureBall, contraction_ball
from .committed import find_committed, load_committed, replay_committed
from .corollary2 import log_bayes_gap_enclosure
from .family_proof import off_M_certificate, off_M_family_minimality, off_M_family_point
from .global_result import GlobalCertificate
from .globalmin import global_minimiser
from .grid_run import window_grid
from .grid_store import open_window_grid
from .manifold import Certificate, stationary_points_on_M
from .oracle_stability import alpha_stable
from .oracle_tube import OracleTube, largest_oracle_tube, oracle_tube
from .rate import lojasiewicz
from .reduced_map import alpha_attract, alpha_diffeo, hessian_signs
from .regions import capture_certificate
from .replay import Replay, replay  # noqa: F401  (the checker's, exported by slr_verify.checker; the searches' name)
from .theorem5 import theorem5_step
from .valley import ValleyTube, valley_tube
from .window import WindowEnclosure, oracle_window

__all__ = ["stationary_points_on_M", "Certificate", "hessian_signs", "alpha_attract", "alpha_diffeo", "alpha_stable",
           "off_M_family_point", "off_M_family_minimality", "off_M_certificate", "contraction_ball", "CaptureBall",
           "valley_tube", "ValleyTube", "capture_certificate", "classify_runs", "sample_basins",
           "Classification", "oracle_window", "WindowEnclosure", "global_minimiser", "GlobalCertificate",
           "log_bayes_gap_enclosure", "lojasiewicz", "theorem5_step", "load_committed", "replay_committed",
           "find_committed", "window_grid", "open_window_grid", "oracle_tube", "largest_oracle_tube", "OracleTube"]
