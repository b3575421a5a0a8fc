"""The oracle's window proved over a grid of settings (`docs/MATH.md` §§13, 17; `docs/usage.md`, "The window over
a grid"), on the suite's engine (:mod:`slr_verify.model.engine`), into the dataset of :mod:`.grid_store`.

* **A setting** (gamma^2, d, L, eps): :func:`slr_verify.certify.oracle_window` (W's ends enclosed and proved, one
  certificate replayed by the checker), the certificate written to ``OUT/certificates/<label>.json.gz``, its values
  and then its ``done`` flag written to the store.
* **The unit of work**: a setting per task, its lam pieces in the worker's process; when fewer settings are left than
  the engine has worker threads, the settings one after another in this process, each setting's lam pieces on the
  engine.
* **Resume**: rerun with the same arguments (another grid is refused, naming ``out``), a setting is skipped iff it is
  done, proved, its certificate file is present, the file's sha256 matches the stored one, and the checker accepts
  it again; every other setting is computed afresh.
"""
from __future__ import annotations

import gzip
import hashlib
import itertools
import math
import pathlib
import sys
import time

import numpy as np

from ..model import validation as V
from ..model.cli_args import parse_values
from ..model.engine import Engine, resolve
from ..model.outputs import check_output_path
from ..model.params import D_MINIMUMS, ModelSetting, keywords_checked
from ..model.processes import refuse_in_bootstrap
from . import certificate as C
from . import grid_store as S
from .args import setting as exact_setting
from .replay import load, replay
from .window import window_on

#: the smallest lam of the scan (the float window's, :func:`slr_verify.landscape.float_window`)
LAM_MIN = 1e-4
#: the largest lam_max taken (the value test near kappa = 0 grows fast with lam)
LAM_MAX = 1e4


def axis(name, values, *, integer=False, minimum=None, strict=False) -> tuple:
    """One axis of the grid: a number, a sequence, or text ('a,b,c' or 'start:stop:num[:log]'); distinct values;
    ``ValueError`` naming ``name`` and the constraint."""
    if isinstance(values, str):
        vals = parse_values(name, values, integer=integer)
    else:
        vals = list(np.atleast_1d(np.asarray(values, dtype=object)))
    what = f"{name} must be {'integers' if integer else 'numbers'}"
    if minimum is not None:
        what += f" {'>' if strict else '>='} {minimum:g}"
    out = []
    for x in vals:
        try:
            x = V.integer(name, x, minimum if minimum is not None else 0) if integer else \
                V.real(name, x, minimum=minimum, strict_min=strict)
        except ValueError:
            raise ValueError(f"{what}, got {values!r}") from None
        out.append(int(x) if integer else float(x))
    if not out:
        raise ValueError(f"{what}: at least one value, got {values!r}")
    if len(set(out)) != len(out):
        raise ValueError(f"{name} must not repeat a value, got {values!r}")
    return tuple(out)


def axes_of(gamma2, d, L, eps, prefix="") -> dict:
    """The grid's four axes, validated (each setting as :class:`slr_verify.model.ModelSetting` takes it)."""
    axes = {"gamma2": axis(prefix + "gamma2", gamma2, minimum=0.0, strict=True),
            "d": axis(prefix + "d", d, integer=True, minimum=D_MINIMUMS["profile"][0]),
            "L": axis(prefix + "L", L, integer=True, minimum=1),
            "eps": axis(prefix + "eps", eps, minimum=0.0)}
    for g2, d_, L_, e in itertools.product(*(axes[a] for a in S.AXES)):  # the searches' own checks, before any work
        exact_setting(gamma=ModelSetting(gamma2=g2, eps=e, d=d_, L=L_).gamma, eps=e, d=d_, L=L_).require_d("profile")
    return axes


def label(g2, d, L, eps) -> str:
    """A setting's name in the certificates folder."""
    return f"gamma2_{g2!r}_d{int(d)}_L{int(L)}_eps_{eps!r}"


def prove_setting(g2, d, L, eps, lam_max, time_limit, half_width, engine=None) -> tuple:
    """One setting: (its row of the store but the certificate's hash and file, its certificate or None). The lam
    pieces on ``engine`` (None: in this process)."""
    t0 = time.time()
    gamma = ModelSetting(gamma2=g2, eps=eps, d=d, L=L).gamma
    try:
        w = window_on(engine, gamma=gamma, eps=eps, d=int(d), L=int(L), lam_range=(LAM_MIN, lam_max),
                      time_limit=time_limit, half_width=half_width)
    except Exception as exc:  # recorded as not proved (computed afresh on resume); the grid goes on
        row = {v: S.VARIABLES[v][1] for v in S.ROW}
        row.update(reason=f"{type(exc).__name__}: {exc}", seconds=time.time() - t0)
        return row, None
    doc, r = w.certificate, w.replay
    ends = doc.get("ends", {}) if doc is not None else {}
    enc = {s: ends.get(s, {}).get("enclosure") or (math.nan, math.nan) for s in ("lo", "hi")}
    accepted = bool(r is not None and r.accepted)
    row = {"lo_lower": enc["lo"][0], "lo_upper": enc["lo"][1], "hi_lower": enc["hi"][0], "hi_upper": enc["hi"][1],
           "mechanism_lo": ends.get("lo", {}).get("mechanism", ""),
           # a partial certificate states its upper end as "none" below B': in the dataset that end is not reached
           "mechanism_hi": ends.get("hi", {}).get("mechanism", "") if w.proved else "",
           "unique_lo": w.unique[0] if w.unique else math.nan, "unique_hi": w.unique[1] if w.unique else math.nan,
           "proved": bool(w.proved and accepted), "statement": r.conclusion if accepted else "",
           "reason": "" if w.proved and accepted else str(w.details.get("reason") or (r.reason if r else "not proved")),
           "leaves": len(doc["leaves"]) if doc is not None else 0, "boxes": int(w.boxes),
           "seconds": time.time() - t0}
    return row, doc


def file_digest(path) -> str:
    """sha256 of a certificate file's JSON bytes (gunzipped when the name ends in .gz)."""
    raw = pathlib.Path(path).read_bytes()
    return hashlib.sha256(gzip.decompress(raw) if str(path).endswith(".gz") else raw).hexdigest()


def still_proved(root, out, index) -> bool:
    """Whether a stored setting is kept on resume: done, proved, its certificate file present with the stored sha256,
    and accepted by the checker again."""
    row = S.read(root, index)
    if not (row["done"] and row["proved"] and row["certificate_file"]):
        return False
    path = pathlib.Path(out) / S.CERTIFICATES / row["certificate_file"]
    if not path.is_file() or file_digest(path) != row["certificate"]:
        return False
    try:
        return bool(replay(load(str(path))).accepted)
    except Exception:  # unreadable: computed afresh
        return False


def store_setting(root, out, index, setting, row, doc) -> dict:
    """Write the setting's certificate (if any) and then its row; returns the row written."""
    row = dict(row, certificate="", certificate_file="")
    if doc is not None:
        name = label(*setting) + ".json.gz"
        C.write(doc, pathlib.Path(out) / S.CERTIFICATES / name)
        row.update(certificate=hashlib.sha256(C.compact(doc)).hexdigest(), certificate_file=name)
    S.write_setting(root, index, row)
    return row


class _Bar:
    """Settings done of total on stderr, with the slowest setting still running and its elapsed seconds."""

    def __init__(self, total, done, stream, labels):
        from tqdm import tqdm

        self.labels = labels
        self.bar = tqdm(total=total, initial=done, desc="window grid (settings)", file=stream, disable=stream is None,
                        mininterval=1.0)

    def show(self, running: dict):
        if running:
            i, t = min(running.items(), key=lambda kv: kv[1])
            self.bar.set_postfix_str(f"slowest running: {self.labels[i]} {time.time() - t:.0f} s")
        else:
            self.bar.set_postfix_str("")

    def close(self):
        self.bar.close()


def run_grid(axes, out, *, lam_max, time_limit, half_width, scheduler, workers, progress, prove=prove_setting,
             stop_after=None) -> dict:
    """The grid (see the module) into the store ``out``; ``prove``: the per-setting computation (tests inject one).
    Returns {"computed": settings computed now, "skipped": settings kept}."""
    attrs = {"lam_range": [LAM_MIN, lam_max], "time_limit": time_limit, "half_width": half_width,
             "axes": {a: list(axes[a]) for a in S.AXES}}
    mode = resolve(scheduler, workers)
    if mode == "local":
        refuse_in_bootstrap("certify.window_grid", "workers", workers)
    if pathlib.Path(out).exists():
        S.open_or_create(out, axes, attrs)  # another grid's store is refused before any cluster starts
    else:
        check_output_path(str(out), name="out")
    settings = [(i, (g2, d, L, e)) for i, (g2, d, L, e) in enumerate(
        (g2, d, L, e) for g2 in axes["gamma2"] for d in axes["d"] for L in axes["L"] for e in axes["eps"])]
    shape = tuple(len(axes[a]) for a in S.AXES)
    index = lambda i: tuple(int(j) for j in np.unravel_index(i, shape))  # noqa: E731
    engine = Engine(mode, workers, name="certify.window_grid")
    bar = None
    try:
        root = S.open_or_create(out, axes, attrs)
        todo = [(i, s) for i, s in settings if not still_proved(root, out, index(i))]
        kept = len(settings) - len(todo)
        if stop_after is not None:
            todo = todo[:stop_after]
        bar = _Bar(len(settings), kept, progress, {i: label(*s) for i, s in settings})
        computed = 0
        args = (lam_max, time_limit, half_width)
        if engine.client is not None and len(todo) < engine.threads:
            for i, s in todo:  # one setting at a time here, its lam pieces on the cluster
                bar.show({i: time.time()})
                row, doc = prove(*s, *args, engine)
                store_setting(root, out, index(i), s, row, doc)
                computed += 1
                bar.bar.update(1)
        else:
            running = lambda: {todo[j][0]: t for j, t in engine.running.items()}  # noqa: E731
            for k, (row, doc) in engine.run(prove, [(*s, *args) for _, s in todo], tick=lambda: bar.show(running())):
                i, s = todo[k]
                store_setting(root, out, index(i), s, row, doc)
                computed += 1
                bar.bar.update(1)
                bar.show(running())
        return {"computed": computed, "skipped": kept}
    finally:
        if bar is not None:
            bar.close()
        engine.close()


@keywords_checked
def window_grid(*, gamma2, d, L, eps=0.0, out, lam_max=100.0, time_limit=1800.0, half_width=4e-13, scheduler=None,
                workers=1, progress=None) -> dict:
    """The oracle's window W proved at every setting of the grid gamma2 x d x L x eps (each: a number, a sequence, or
    text 'a,b,c' / 'start:stop:num[:log]'), into the Zarr store ``out`` (created; or resumed when it holds this grid:
    see :mod:`slr_verify.certify.grid_run`; read it with :func:`open_window_grid`). Per setting:
    :func:`oracle_window` over lam in [1e-4, ``lam_max``] (at most 1e4) within ``time_limit`` seconds, the ends'
    enclosures of half width ``half_width``; its certificate in ``out/certificates/`` replayed by the checker.
    ``scheduler``, ``workers``: the engine's (None: a local Dask cluster of ``workers`` processes when ``workers`` > 1,
    else this process; "sync"; "local"; or a scheduler's address). ``progress``: a stream (None: quiet). Returns
    {"computed", "skipped"}: settings computed in this call and settings kept from the store. `docs/MATH.md` §§13,
    17."""
    axes = axes_of(gamma2, d, L, eps)
    lam_max = V.real("lam_max", lam_max, minimum=LAM_MIN, strict_min=True, maximum=LAM_MAX,
                     why="the end of the scanned range of lam")
    time_limit = V.real("time_limit", time_limit, minimum=0.0, strict_min=True, why="seconds per setting")
    half_width = V.real("half_width", half_width, minimum=0.0, strict_min=True, maximum=5e-7,
                        why="the ends' half-widths")
    workers = V.integer("workers", workers, 1, 1024)
    if progress is True:
        progress = sys.stderr
    return run_grid(axes, out, lam_max=lam_max, time_limit=time_limit, half_width=half_width, scheduler=scheduler,
                    workers=workers, progress=progress)
