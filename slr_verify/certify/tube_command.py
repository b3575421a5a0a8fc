"""``slr-verify certify oracle-tube``: Theorem 5 in a tube around M near the oracle at any setting
(:mod:`.oracle_tube`; `docs/MATH.md` §13, "A tube around M")."""
from __future__ import annotations

import json

from ..model.cli_args import SETTING_KEYS, add_model_options, model_setting


def _run(a) -> int:
    from .certificate import check_output_path, write
    from .oracle_tube import largest_oracle_tube

    out_path = check_output_path(a.out, force=a.force) if a.out else None  # before the search

    try:
        lam = [float(x) for x in str(a.lam).split(":")] if ":" in str(a.lam) else float(a.lam)
    except ValueError:
        raise ValueError(f"--lam must be a number or LO:HI, got {a.lam!r}") from None
    try:
        corners = [float(x) for x in a.corners.split(",")]
    except ValueError:
        raise ValueError(f"--corners must be numbers c in (0, 1) separated by commas, got {a.corners!r}") from None
    if isinstance(lam, list) and len(lam) != 2:
        raise ValueError(f"--lam must be a number or LO:HI, got {a.lam!r}")
    p = model_setting({k: getattr(a, k) for k in SETTING_KEYS}, options=True).kw()
    p.pop("eps")  # PGD does not depend on eps
    t = largest_oracle_tube(lam=lam, alpha=a.alpha, corners=corners, margin=a.margin, budget=a.budget, **p)
    out = {"proved": t.proved, "lam": t.params["lam"], "alpha": a.alpha, "D": [list(x) for x in t.D],
           "margin": t.margin, "q": t.q, "C": t.C, "radius": t.radius, "entry": t.entry,
           "euclidean_entry": t.euclidean_entry() if t.proved else 0.0, "T": t.T.tolist(), "boxes": t.boxes,
           "seconds": round(t.seconds, 2), "reason": t.reason, "tier": t.tier if t.proved else "not proved"}
    if t.proved and out_path is not None:
        out["certificate"] = str(write(t.certificate, out_path))
    if a.json:
        print(json.dumps(out, indent=1))
    elif t.proved:
        (c, _), (n0, _) = t.D
        lam_text = f"every lam in [{lam[0]:g}, {lam[-1]:g}]" if isinstance(lam, list) else f"lam = {lam:g}"
        print(f"PROVED ({t.tier}): at {lam_text} and alpha = {a.alpha:g}, PGD on the spheres converges to (k*, v*) from "
              f"every realisable start with kappa in [{c:g}, 1], nu in [{n0:g}, 1] and |T^-1 (theta, eta, rho)|_2 <= "
              f"{t.entry:.4g} (so from every |(theta, eta, rho)|_2 <= {t.euclidean_entry():.4g}); the transverse overlaps "
              f"contract by q = {t.q:.9g} a step ({t.boxes} boxes, {t.seconds:.1f} s; T in --json)"
              + (f"; the oracle-tube certificate the checker accepted: {out['certificate']}" if "certificate" in out else ""))
    else:
        print(f"NOT PROVED: {t.reason}")
    return 0 if t.proved else 1


def add_parser(cs):
    s = cs.add_parser("oracle-tube", aliases=["tube"], help="Theorem 5 in a tube around M near the oracle (an oracle-tube "
                      "certificate the checker replays): "
                      "a corner [c, 1]^2 of M and a radius across it from which PGD converges to (k*, v*)",
                      allow_abbrev=False)
    add_model_options(s, extra={"d": "at least 4"})
    s.add_argument("--lam", required=True, help="a lam, or a narrow LO:HI (every lam of it; T fixed at the middle)")
    s.add_argument("--alpha", type=float, required=True, help="the step size (the paper's Figure 4b: 0.004)")
    s.add_argument("--corners", default="0.8,0.9,0.95,0.99", help="the corners c of D = [c, 1]^2 tried, largest D first")
    s.add_argument("--margin", type=float, default=0.01, help="the margin m below D tested (default 0.01)")
    s.add_argument("--budget", type=int, default=20_000, help="boxes per radius tried (default 20,000)")
    s.add_argument("--json", action="store_true", help="print the tube as JSON")
    s.add_argument("--out", help="write the oracle-tube certificate here (.json or .json.gz; checked before the search)")
    s.add_argument("--force", action="store_true", help="overwrite --out if it exists")
    s.set_defaults(func=_run)
