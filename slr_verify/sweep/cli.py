"""``slr-verify sweep``: a grid of settings on Dask into a Zarr store (see :mod:`.run`)."""
from __future__ import annotations

import sys

from ..model.cli_args import parse_values, refuse_gamma
from ..model.params import GAMMA2_MEANING
from ..model.processes import cores
from .grid import Grid


def _run(args) -> int:
    from .run import sweep

    try:
        grid = Grid(lam=parse_values("--lam", args.lam), d=parse_values("--d", args.d, integer=True),
                    L=parse_values("--L", args.L, integer=True), gamma2=parse_values("--gamma2", args.gamma2),
                    alpha=parse_values("--alpha", args.alpha), runs=args.runs, steps=args.steps, seed=args.seed,
                    schedule=args.schedule, eps=args.eps, converge_tol=args.converge_tol, max_steps=args.max_steps)
        n = sweep(grid, args.out, chunk=args.chunk, scheduler=args.scheduler, workers=args.workers,
                  progress=None if args.quiet else sys.stderr)
    except ValueError as exc:
        print(f"slr-verify sweep: error: {exc}", file=sys.stderr)
        return 2
    if not args.quiet:
        print(f"slr-verify sweep: {n} chunk(s) computed; {grid.size} grid point(s) x {grid.runs} runs in {args.out} "
              f"(xarray.open_zarr)", file=sys.stderr)
    return 0


def add_sweep_parser(sub):
    p = sub.add_parser("sweep", help="run a grid of settings (lam, d, L, gamma^2, alpha) x seeded runs on Dask into Zarr",
                       allow_abbrev=False)
    p.add_argument("--lam", required=True, help="values: a,b,c or start:stop:num[:log] (lam0 of a schedule)")
    p.add_argument("--d", default="400", help="values as for --lam (default: Figure 4b's 400)")
    p.add_argument("--L", default="10", help="values as for --lam (default: Figure 4b's 10)")
    p.add_argument("--gamma2", default="0.5", help=f"values of {GAMMA2_MEANING} as for --lam (default: Figure 4b's 0.5)")
    refuse_gamma(p)
    p.add_argument("--alpha", default="0.004", help="values of the step size as for --lam (default: Figure 4b's 0.004)")
    p.add_argument("--runs", type=int, default=100, help="sphere initialisations per grid point")
    p.add_argument("--steps", type=int, default=20000)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--schedule", choices=("constant", "decreasing"), default="constant",
                   help="constant lam, or lam_t = lam/(1 + 1e-4 t)")
    p.add_argument("--eps", type=float, default=0.0, help="the label noise (default 0, Figure 4b's; PGD on the population "
                   "risk does not depend on it)")
    p.add_argument("--converge-tol", type=float, default=0.0,
                   help="after --steps, continue at the last lam until the tangent gradient is below this (needs --max-steps)")
    p.add_argument("--max-steps", type=int, default=0,
                   help="at most this many continuation steps after --steps (needs --converge-tol); the store's 'steps' "
                        "says, per run, when it met the tolerance")
    p.add_argument("--chunk", type=int, default=1, help="grid points per task (and per Zarr chunk)")
    p.add_argument("--scheduler", default=None,
                   help="'sync' (no Dask), 'local', an address of a running scheduler (host:port); default a local "
                        "cluster (in this process with --workers 1)")
    p.add_argument("--workers", type=int, default=cores(), help=f"workers of the local cluster (default: one per core, "
                   f"{cores()} here)")
    p.add_argument("--out", required=True, help="the Zarr store (created, or resumed if it holds the same sweep)")
    p.add_argument("--quiet", action="store_true")
    p.set_defaults(func=_run)
