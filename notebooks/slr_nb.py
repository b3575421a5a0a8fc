"""Small helpers shared by the notebooks: quick mode, the figure folder, the trajectory plot.

* ``SLR_QUICK=1`` (any value but "" or "0") lowers repetitions and steps (:func:`scale`), for CI.
* ``SLR_FIGURES_DIR`` is where figures are written (default: ``figures/`` next to the notebooks,
  i.e. under the kernel's working directory).
* Plots use the headless Agg backend; :func:`save` writes a PNG (dpi 100) and displays it.
"""
from __future__ import annotations

import os
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402

QUICK = os.environ.get("SLR_QUICK", "").strip() not in ("", "0")
FIGDIR = Path(os.environ.get("SLR_FIGURES_DIR") or Path.cwd() / "figures")

#: quick mode: this many repetitions, and 1/QUICK_STEP_DIVISOR of the steps
QUICK_RUNS = 4
QUICK_STEP_DIVISOR = 20

plt.rcParams.update({"font.size": 10, "axes.titlesize": 10, "figure.dpi": 100})


def scale(runs, steps):
    """(runs, steps) of the paper, or the quick-mode ones."""
    if QUICK:
        return min(runs, QUICK_RUNS), max(1, steps // QUICK_STEP_DIVISOR)
    return runs, steps


def mode_text(runs, steps):
    return f"{'quick mode: ' if QUICK else ''}{runs} runs, {steps:,} steps"


def write_png(fig, path):
    """Write ``fig`` to ``path`` as the committed figures are written (dpi 100, an 8-bit palette) and close it."""
    fig.savefig(path, dpi=100, bbox_inches="tight")
    plt.close(fig)
    try:  # an 8-bit palette keeps the committed PNGs small (~3x)
        from PIL import Image as PILImage

        with PILImage.open(path) as im:
            small = im.convert("RGB").quantize(colors=256, method=PILImage.Quantize.MEDIANCUT)
        small.save(path, optimize=True)
    except Exception:  # pragma: no cover - Pillow missing or too old: keep the RGBA PNG
        pass
    return path


def save(fig, name):
    """Write ``FIGDIR/name.png`` (:func:`write_png`) and show it in the notebook (nothing is shown by Agg itself)."""
    FIGDIR.mkdir(parents=True, exist_ok=True)
    path = write_png(fig, FIGDIR / f"{name}.png")
    try:
        from IPython.display import Image, display

        display(Image(filename=str(path)))
    except ImportError:  # pragma: no cover - outside IPython
        pass
    return path


def fold(tr):
    """The symmetry (k, v) -> (-k, -v) of the risk maps PGD trajectories to PGD trajectories and
    flips kappa, nu, theta, eta (not rho). Per run, s = sign(nu_T) (1 if nu_T = 0)."""
    s = np.sign(tr.nu[-1])
    return np.where(s == 0, 1.0, s)


def flip_sign(tr):
    """(s kappa_t, s nu_t) with s from :func:`fold`; distance to M and risk are unchanged."""
    s = fold(tr)
    return tr.kappa * s, tr.nu * s


#: where a run is at the last logged step, with the colour its trajectory is drawn in
GROUPS = (("near +-(k*, v*)", "C0"), ("near k = +-v*", "C3"), ("elsewhere", "0.45"))


def horizon_groups(tr, tol=0.05):
    """Per run, the index in :data:`GROUPS` of where it is at the last logged step T (a snapshot,
    not an end point: a run may still be moving): near the oracle +-(k*, v*) (kappa_T > 0.9,
    nu_T > 0.99 after folding, as in :func:`summary`), near the stationary point k = +-v*
    off M (|kappa_T|, |nu_T|, |rho_T| < tol, |eta_T| > 1 - tol; `docs/MATH.md` §13), or elsewhere."""
    kappa, nu = flip_sign(tr)
    oracle = (kappa[-1] > 0.9) & (nu[-1] > 0.99)
    at_v = ((np.abs(tr.kappa[-1]) < tol) & (np.abs(tr.nu[-1]) < tol) & (np.abs(tr.rho[-1]) < tol)
            & (np.abs(tr.eta[-1]) > 1 - tol))
    return np.where(oracle, 0, np.where(at_v, 1, 2))


def plot_runs(tr, excess, *, title, excess_label, floor=1e-300, groups=None):
    """Four panels against the step: kappa_t, nu_t (sign-folded), distance to M (log axis, exact
    zeros clipped at ``floor``), excess risk (symmetric-log axis: it can be negative, the oracle
    is not always the minimiser); every run faint, the median over runs bold.

    With ``groups`` (per run, an index in :data:`GROUPS`, e.g. from :func:`horizon_groups`) the
    runs are coloured by group and each group has its own median and count: runs that split
    between end points are not summarised by one median that lies between them."""
    kappa, nu = flip_sign(tr)
    panels = [
        (kappa, r"$\kappa_t = k_t^\top k^\star$ (sign-folded)", "linear", "C0"),
        (nu, r"$\nu_t = v_t^\top v^\star$ (sign-folded)", "linear", "C1"),
        (tr.distance_to_M, r"distance to $\mathcal{M}$: $\sqrt{\theta_t^2+\eta_t^2+\rho_t^2}$", "log", "C2"),
        (excess, excess_label, "symlog", "C3"),
    ]
    runs = np.shape(kappa)[1]
    T = int(np.asarray(tr.step)[-1])
    fig, axes = plt.subplots(1, 4, figsize=(16, 3.6))
    for ax, (y, label, yscale, c) in zip(axes, panels):
        y = np.asarray(y, dtype=float)
        if yscale == "log":
            y = np.maximum(y, floor)
        if groups is None:
            ax.plot(tr.step, y, color=c, alpha=0.25, lw=0.7)
            ax.plot([], [], color=c, alpha=0.4, lw=0.7, label=f"{runs} runs")
            ax.plot(tr.step, np.median(y, axis=1), color=c, lw=2.2, label="median")
        else:
            for g, (name, gc) in enumerate(GROUPS):
                sel = np.asarray(groups) == g
                if not sel.any():
                    continue
                ax.plot(tr.step, y[:, sel], color=gc, alpha=0.3, lw=0.7)
                ax.plot(tr.step, np.median(y[:, sel], axis=1), color=gc, lw=2.2,
                        label=f"{name} at $t={T:,}$: {sel.sum()} of {runs} (median bold)")
        if yscale == "symlog":
            ax.set_yscale("symlog", linthresh=1e-8)
            ax.axhline(0, color="k", lw=0.6)
        else:
            ax.set_yscale(yscale)
        ax.set_xlabel("step $t$")
        ax.ticklabel_format(axis="x", style="sci", scilimits=(3, 3))
        ax.set_ylabel(label)
        ax.grid(alpha=0.3)
        if groups is None or ax is axes[0]:
            ax.legend(loc="best", fontsize=8 if groups is None else 7)
    axes[0].set_ylim(-1.05, 1.05)
    axes[1].set_ylim(-1.05, 1.05)
    fig.suptitle(title, y=1.02)
    fig.tight_layout()
    return fig


def summary(tr, excess):
    """Final overlaps per run (sign-folded), distance to M and excess risk, as a printed table."""
    kappa, nu = flip_sign(tr)
    s = fold(tr)
    th, et = tr.theta[-1] * s, tr.eta[-1] * s
    print(f"{'run':>4} {'kappa_T':>8} {'nu_T':>8} {'theta_T':>8} {'eta_T':>8} {'rho_T':>8} {'dist_M':>9} {'excess':>10}")
    for r in range(np.shape(kappa)[1]):
        print(f"{r:4d} {kappa[-1, r]:8.4f} {nu[-1, r]:8.4f} {th[r]:8.4f} {et[r]:8.4f} {tr.rho[-1, r]:8.4f} "
              f"{tr.distance_to_M[-1, r]:9.2e} {excess[-1, r]:10.2e}")
    groups = horizon_groups(tr)
    near, at_v = groups == 0, groups == 1
    print(f"near +-(k*, v*) at the end (kappa_T > 0.9, nu_T > 0.99 after folding): {near.sum()} of {near.size} runs")
    print(f"near k = +-v* at the end (|kappa_T|, |nu_T|, |rho_T| < 0.05, |eta_T| > 0.95): {at_v.sum()} of {at_v.size} runs")
    print(f"off M at the end (distance > 1e-3): {(tr.distance_to_M[-1] > 1e-3).sum()}; "
          f"below the oracle risk at lam_T (excess < 0): {(excess[-1] < 0).sum()}")


def figure(fig, seed=0):
    """Figures 4a, 4b, 7a, 7b in one place: draw the runs of the setting
    ``slr_verify.model.settings.FIGURES[fig]`` (k*, v*, k0, v0 per run, seeded), run PGD (the
    d-free five-overlap runner from a sphere initialisation, the full-dimensional runner from M),
    plot the four panels (runs coloured by where they are at the last step, :func:`horizon_groups`),
    save ``fig<fig>.png`` and print the per-run summary. Returns
    (trajectory, excess risk over the oracle at the same lam)."""
    from slr_verify import oracle_risk
    from slr_verify.dynamics import overlap_pgd, pgd
    from slr_verify.model.overlaps import Overlaps
    from slr_verify.model.sampling import draw_problem
    from slr_verify.model.settings import FIGURES

    S = FIGURES[fig]
    runs, steps = scale(S.runs, S.steps)
    every = max(1, steps // 500)
    print(S.describe(), "->", mode_text(runs, steps))
    k0, v0, ks, vs = draw_problem(np.random.default_rng(seed), runs, S.d, on_M=S.init == "M")
    common = dict(lam=S.lam, gamma=S.gamma, L=S.L, alpha=S.alpha, steps=steps, every=every)
    if S.init == "M":  # full-dimensional: measures the float64 drift off M
        tr = pgd(k0, v0, ks, vs, **common)
    else:  # exact and d-free (`docs/MATH.md` §12)
        tr = overlap_pgd(Overlaps.from_vectors(k0, v0, ks, vs), d=S.d, **common)
    excess = tr.risk - oracle_risk(lam=tr.lam, gamma=S.gamma, eps=0.0, d=S.d, L=S.L)[:, None]
    where = r"$\mathcal{M}$" if S.init == "M" else "the sphere"
    title = (rf"Figure {fig} (paper): init on {where}, $d={S.d}$, $L={S.L}$, $\gamma^2={S.gamma2}$, "
             rf"$\lambda_t={S.lam_text}$, $\alpha={S.alpha:g}$ ({mode_text(runs, steps)})")
    save(plot_runs(tr, excess, title=title, excess_label=r"$R_{\lambda_t}(k_t,v_t) - R_{\lambda_t}(k^\star,v^\star)$",
                   groups=horizon_groups(tr)), f"fig{fig}")
    summary(tr, excess)
    print(f"max distance to M over the run: {tr.distance_to_M.max():.2e}; min excess risk: {excess.min():.2e}")
    return tr, excess
