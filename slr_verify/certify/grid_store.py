"""The window grid's dataset (`docs/MATH.md` §§13, 17; `docs/usage.md`, "The window over a grid"): a Zarr store
that xarray reads, written setting by setting.

Dims ``gamma2``, ``d``, ``L``, ``eps`` (coordinates: the grid's values). Per setting: the ends' exact enclosures
(``lo_lower``, ``lo_upper``, ``hi_lower``, ``hi_upper``; NaN where the certificate has no such end), their mechanisms
(``mechanism_lo``, ``mechanism_hi``: "crossing", "pitchfork", "none" = no upper end on the scanned range, "" when
not reached), ``unique_lo``, ``unique_hi`` (the lam interval of proved uniqueness), ``proved``, ``reason``,
``statement`` (the checker's conclusion), ``leaves``, ``boxes``, ``seconds``, ``certificate`` (sha256 of the
certificate's compact JSON) and ``certificate_file`` (its name under the store's ``certificates`` folder, a Zarr
group holding no array: xarray and zarr ignore it), and ``done``, set after the setting's values (a killed run never
leaves a setting marked done without them). Strings are Zarr v3 variable-length strings (NumPy's ``StringDType``
when read).
"""
from __future__ import annotations

import json
import pathlib
import warnings

import numpy as np

from ..model.outputs import check_output_path, reopen_store
from ..model.params import keywords_checked

#: the store's format tag (its attribute ``format``)
FORMAT = "slr-verify window-grid 1"
#: the grid's axes, in the order of the dims
AXES = ("gamma2", "d", "L", "eps")
#: the folder (a Zarr group without arrays) holding the certificates
CERTIFICATES = "certificates"

_FLOAT = ("lo_lower", "lo_upper", "hi_lower", "hi_upper", "unique_lo", "unique_hi", "seconds")
_STR = ("mechanism_lo", "mechanism_hi", "reason", "statement", "certificate", "certificate_file")
_INT = ("leaves", "boxes")
_BOOL = ("proved", "done")
#: every variable of a setting: {name: (dtype, fill value)}
VARIABLES = {**{v: ("float64", np.nan) for v in _FLOAT}, **{v: (str, "") for v in _STR},
             **{v: ("int64", 0) for v in _INT}, **{v: ("bool", False) for v in _BOOL}}
#: what a finished setting writes (every variable but ``done``)
ROW = tuple(v for v in VARIABLES if v != "done")


def _create(path, axes: dict, attrs: dict):
    import zarr

    root = zarr.open_group(str(path), mode="w")
    shape = tuple(len(axes[a]) for a in AXES)
    for name, (dtype, fill) in VARIABLES.items():
        root.create_array(name, shape=shape, chunks=(1,) * len(AXES), dtype=dtype, fill_value=fill,
                          dimension_names=AXES)
    for a in AXES:
        vals = np.asarray(axes[a], dtype="int64" if a in ("d", "L") else "float64")
        arr = root.create_array(a, shape=vals.shape, chunks=vals.shape, dtype=vals.dtype, dimension_names=(a,))
        arr[:] = vals
    root.create_group(CERTIFICATES, attributes={"holds": "the settings' certificates (<label>.json.gz), no array"})
    root.attrs.update({**attrs, "format": FORMAT})
    # the metadata never changes after this (only values are written): consolidated once, xarray reads it directly
    with warnings.catch_warnings():  # zarr's: consolidated metadata is not yet in the v3 specification
        warnings.filterwarnings("ignore", "Consolidated metadata", category=UserWarning)
        zarr.consolidate_metadata(str(path))
    return zarr.open_group(str(path), mode="r+")


def open_or_create(path, axes: dict, attrs: dict):
    """The store at ``path``: created (``path`` checked first, :func:`slr_verify.model.outputs.check_output_path`),
    or reopened when it holds this grid (the same ``attrs``); ``ValueError`` naming ``out`` otherwise."""

    path = pathlib.Path(path)
    want = json.loads(json.dumps({**attrs, "format": FORMAT}))
    if path.exists():
        root, have = reopen_store(path, FORMAT, "window-grid store")
        if have != want:
            raise ValueError(f"out: {str(path)!r} holds a different window grid (its values, lam range, time limit or "
                             "half width differ); choose another path")
        return root
    check_output_path(str(path), name="out")
    return _create(path, axes, attrs)


def write_setting(root, index: tuple, row: dict) -> None:
    """The setting's values, then its ``done`` flag (so a setting marked done is complete)."""
    missing = set(ROW) - set(row)
    if missing:
        raise ValueError(f"row lacks {sorted(missing)}")
    for name in ROW:
        root[name][index] = row[name]
    root["done"][index] = True


def read(root, index: tuple) -> dict:
    """A setting's stored values (Python scalars)."""
    out = {}
    for name in VARIABLES:
        x = root[name][index]
        out[name] = str(x) if VARIABLES[name][0] is str else np.asarray(x).item()
    return out


@keywords_checked
def open_window_grid(path):
    """The window grid's store as an ``xarray.Dataset`` (dims gamma2, d, L, eps; the variables of
    :mod:`slr_verify.certify.grid_store`). `docs/MATH.md` §§13, 17."""
    import xarray as xr

    if not (pathlib.Path(path) / "zarr.json").is_file():
        raise ValueError(f"path: {str(path)!r} is not a window-grid store")
    ds = xr.open_zarr(str(path))
    if ds.attrs.get("format") != FORMAT:
        raise ValueError(f"path: {str(path)!r} is not a window-grid store")
    return ds
