"""Output files: a path checked before a long run, and an atomic write (the user's umask permissions).

Shared by every command that writes a result (``slr-verify pgd | sweep | experiment | certify``)."""
from __future__ import annotations

import os
import tempfile


def check_output_path(out, name="--out") -> str:
    """The absolute output path, or ``ValueError`` (naming ``name``) saying why it cannot be
    written: its folder is missing, is not writable (tried: a temporary file is created and
    removed there, so /proc or a read-only mount is caught even for root), or it is a folder."""
    path = os.path.abspath(out)
    folder = os.path.dirname(path)
    if os.path.isdir(path):
        raise ValueError(f"{name} {out!r} is a directory; give a file name")
    if not os.path.isdir(folder):
        raise ValueError(f"{name} {out!r}: the directory {folder!r} does not exist")
    try:
        fd, tmp = tempfile.mkstemp(suffix=".tmp", dir=folder)
        os.close(fd)
        os.unlink(tmp)
    except OSError as exc:
        raise ValueError(f"{name} {out!r}: the directory {folder!r} is not writable ({exc.strerror})") from None
    return path


def write_atomic(path, write):
    """Write through a temporary file in the same folder and rename; mode 0666 & ~umask."""
    folder = os.path.dirname(path)
    fd, tmp = tempfile.mkstemp(suffix=".tmp", dir=folder)
    try:
        with os.fdopen(fd, "wb") as fh:
            write(fh)
        umask = os.umask(0)
        os.umask(umask)
        os.chmod(tmp, 0o666 & ~umask)
        os.replace(tmp, path)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise


def reopen_store(path, fmt: str, what: str):
    """(group, attributes) of the Zarr store at the existing ``path``, opened for writing, whose attribute ``format``
    is ``fmt``; a ``ValueError`` naming ``out`` when it is anything else (``what``: the kind of store, in words)."""
    import zarr

    try:
        root = zarr.open_group(str(path), mode="r+")
        attrs = dict(root.attrs)
    except Exception as exc:
        raise ValueError(f"out: {str(path)!r} exists and is not a {what} ({exc})") from None
    if attrs.get("format") != fmt:
        raise ValueError(f"out: {str(path)!r} exists and is not a {what}")
    return root, attrs
