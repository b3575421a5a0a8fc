r"""Certified global minimisation of R_lam through the profile (`docs/MATH.md` §§14 and 17).

The profile m(kappa, eta; lam) = min over unit v of R_lam(k, v) carries the global minimum of R_lam on
S^{d-1} x S^{d-1}, and the quarter disk kappa, eta >= 0 carries everything. A weak-duality lower bound of the
profile on boxes (:mod:`.dual_box`) is the test of a branch and bound (:mod:`.bisection`):

* where the float minimiser is the oracle at the interval's ends and middle, :func:`.oracle_proof.prove_oracle`
  proves (k*, v*) the unique global minimiser up to the symmetries for every lam of the interval;
* otherwise (a point lam), :func:`.enclosure.enclose` encloses the global minimiser in boxes and the global minimum
  between their bound and an explicit witness pair.

**Certificates.** Every proof writes a certificate (`docs/certificates.md`): the split tree, each leaf's test and
multiplier, the premises. :func:`global_minimiser` has it replayed by the independent checker
(:func:`slr_verify.certify.replay.replay`), and what it reports proved is what the checker accepted. Measured box counts
and times: `docs/findings.md`, `benchmarks/results/`.

"""
from __future__ import annotations

import time

from flint import ctx

from ..landscape.float_minimiser import minimise_profile
from ..model import validation as V
from ..model.engine import Engine, resolve
from ..model.params import accepts_gamma2
from ..model.processes import refuse_in_bootstrap
from . import args as A
from .bisection import Progress
from .dual_box import Evaluator
from .enclosure import enclose
from .global_result import GlobalCertificate
from .oracle_proof import lam_pieces, prove_oracle
from .replay import replay


@accepts_gamma2
def global_minimiser(*, lam, gamma, eps=0.0, d, L, kappa0=None, prec=64, max_boxes=2_000_000, min_width=1e-9,
                     time_limit=900.0, risk_tol=1e-13, progress=None, check=True, workers=1,
                     scheduler=None, partial=False) -> GlobalCertificate:
    """Certified global minimisation of R_lam over S^{d-1} x S^{d-1} for every lam of ``lam = (lo, hi)``
    (see the module). ``kappa0``: the valley certificate covers kappa in [kappa0, 1], the value test the rest (None:
    chosen per lam piece by :func:`.oracle_proof._kappa0`); ``max_boxes``, ``time_limit`` (seconds), ``min_width``: the budget;
    ``risk_tol``: outside W, a box around the minimiser is kept once its lower bound is within ``risk_tol`` of the witness
    (a first pass at max(risk_tol, 1e-10), then the kept boxes at ``risk_tol``: see :func:`enclose`);
    ``progress``: a file (or True for stderr) for a tqdm progress line; ``check``: replay the certificate with the
    independent checker (:func:`slr_verify.certify.replay.replay`); ``proved`` then requires its acceptance and the
    enclosures reported are the checker's; ``workers``, ``scheduler``: where the lam pieces of an oracle proof run (the
    certificate is the same tree whatever they are): ``scheduler`` None -- a local Dask cluster of ``workers``
    processes when ``workers`` > 1, else this process (the default); "sync" -- this process; "local" -- a local
    cluster; any other string -- the address of a running Dask scheduler (`docs/usage.md`, "Worker processes"); with a
    local cluster a script must call this under ``if __name__ == "__main__":`` (:mod:`slr_verify.model.processes`).
    ``partial``: an oracle proof stopped by a failed lam piece or the time limit, after its first pieces closed, returns
    the certificate of that first part [lo, x] (``proved`` stays False; ``details["proved_to"]`` is x; the checker's
    statement says exactly that). `docs/MATH.md` §17."""
    return minimise(None, lam=lam, gamma=gamma, eps=eps, d=d, L=L, kappa0=kappa0, prec=prec, max_boxes=max_boxes,
                    min_width=min_width, time_limit=time_limit, risk_tol=risk_tol, progress=progress, check=check,
                    workers=workers, scheduler=scheduler, partial=partial)


def minimise(engine, *, lam, gamma, eps, d, L, kappa0=None, prec=64, max_boxes=2_000_000, min_width=1e-9,
             time_limit=900.0, risk_tol=1e-13, progress=None, check=True, workers=1, scheduler=None,
             partial=False, caller="certify.global_minimiser"):
    """:func:`global_minimiser` on an open :class:`~slr_verify.model.engine.Engine` (None: one opened from
    ``scheduler`` and ``workers`` for an oracle proof, and closed after it; ``caller``: the public function its errors
    name)."""
    lo, hi = A.lam_interval(lam)
    setting = A.setting(gamma=gamma, eps=eps, d=d, L=L).require_d("profile")
    if kappa0 is not None:
        kappa0 = V.real("kappa0", kappa0, minimum=0.0, strict_min=True, maximum=1.0)
        if kappa0 == 1.0:
            raise ValueError("kappa0 must be < 1 (the valley certificate covers [kappa0, 1]), got 1.0")
    if not (int(prec) >= 53):
        raise ValueError(f"prec must be an integer >= 53 (bits), got {prec!r}")
    max_boxes = V.integer("max_boxes", max_boxes, 1)
    time_limit = V.real("time_limit", time_limit, minimum=0.0, strict_min=True)
    min_width = V.real("min_width", min_width, minimum=0.0, strict_min=True)
    risk_tol = V.real("risk_tol", risk_tol, minimum=0.0, strict_min=True)
    if not isinstance(check, bool):
        raise ValueError(f"check must be True or False, got {check!r}")
    if not isinstance(partial, bool):
        raise ValueError(f"partial must be True or False, got {partial!r}")
    workers = V.integer("workers", workers, 1, 64, why="processes sharing the lam pieces")
    if engine is None and resolve(scheduler, workers) == "local":
        refuse_in_bootstrap(caller, "workers", workers)
    t0 = time.time()
    deadline = t0 + float(time_limit)
    bar = Progress(progress, "global minimiser")
    try:
        with ctx.workprec(int(prec)):
            ev = Evaluator(**setting.kw())
            mids = [lo, hi, 0.5 * (lo + hi)]
            at = [minimise_profile(lam=x, **ev.kw) for x in mids]
            if all(g.is_oracle for g in at):
                own = engine is None
                if own:  # one lam piece: in this process, no cluster to start
                    one = len(lam_pieces(lo, hi)) == 1
                    engine = Engine("sync" if one else scheduler, workers, name=caller)
                try:
                    out = prove_oracle(ev, lo, hi, kappa0, int(max_boxes), float(min_width), deadline, t0, bar, engine,
                                       partial=bool(partial))
                finally:
                    if own:
                        engine.close()
            else:
                out = enclose(ev, lo, hi, at, int(max_boxes), float(min_width), float(risk_tol), deadline, t0, bar)
            if check and out.certificate is not None:
                _replayed(out)
            return out
    finally:
        bar.close()


def _replayed(out):
    """Replace the search's verdict and enclosures by the checker's."""
    r = out.replay = replay(out.certificate)
    out.proved = bool(out.proved and r.accepted)
    if not r.accepted:
        out.reason = f"the search closed but its certificate was {r.reason}"
    elif "risk" in r.values:
        out.risk = r.values["risk"]
        out.overlaps[0]["overlaps"].update({k: r.values[k] for k in ("kappa", "eta", "t", "r")})
