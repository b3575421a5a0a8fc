"""The paper's settings for the tests, from the one definition (``slr_verify.model.settings.FIGURES``)."""
from slr_verify.model.settings import FIGURES

#: Figure 4b (and 7b): gamma^2 = 1/2, d = 400, L = 10, lam = 0.1, alpha = 4e-3
FIG4B = FIGURES["4b"]
#: the model at Figure 4b's setting, without lam
G4B = dict(gamma=FIG4B.gamma, d=FIG4B.d, L=FIG4B.L)
#: ... and with its lam
P4B = dict(lam=FIG4B.lam0, **G4B)
