"""Certificates of the capture regions of constant-lam PGD (`docs/MATH.md` §13; `docs/certificates.md`): a
contraction ball (:func:`.capture.contraction_ball`) as a ``contraction-ball`` certificate (the oracle tube writes its
own, :func:`.oracle_tube.oracle_tube`). The search chooses the centre, the basis and the radius; the checker
(:mod:`slr_verify.checker.dynamics`) evaluates every bound again."""
from __future__ import annotations

from ..model.params import ModelSetting, keywords_checked
from .certificate import SplitTree, document


def _setting(params) -> ModelSetting:
    """The certificate's setting of a PGD region: eps = 0 (PGD on the population risk does not depend on it)."""
    return ModelSetting(gamma=params["gamma"], d=params["d"], L=params["L"])


@keywords_checked
def capture_certificate(ball) -> dict:
    """The ``contraction-ball`` certificate of a proved :class:`~.capture.CaptureBall`; ``ValueError``
    for a ball that is not proved (there is nothing to certify)."""
    if not ball.proved:
        raise ValueError(f"ball must be a proved contraction ball, got one not proved ({ball.reason})")
    p = ball.params
    tree = SplitTree(((p["lam"], p["lam"]), (p["alpha"], p["alpha"])), names=("lam", "alpha"))
    tree.leaf(tree.root, {"test": "contraction", "centre": [float(x) for x in ball.centre],
                          "T": [[float(x) for x in row] for row in ball.T], "groups": [list(g) for g in ball.groups],
                          "radius": float(ball.radius), "sigma": [int(s) for s in ball.sigma]})
    return document("contraction-ball", _setting(p), tree, prec=p.get("prec", 128))
