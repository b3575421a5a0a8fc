"""The checker's bounded reader: the one way a certificate document enters the checker, within caps on bytes, depth,
values, digits and leaves (`docs/certificates.md`, "The checker, module by module").
"""
import gzip
import io
import json
import math
import os
import stat
import zlib
from array import array
from itertools import accumulate, filterfalse

from .work import admit

MAX_COMPRESSED = 64 << 20     # bytes of the file on disk, plain or gzip (os.stat, before reading)
MAX_DECOMPRESSED = 96 << 20   # bytes of JSON text, after gzip
MAX_DEPTH = 16                # arrays and objects nested (the committed certificates: 5)
MAX_VALUES = 8_000_000        # JSON values (the committed certificates: about 15 a leaf; 1.2 GB in memory)
MAX_LEAVES = 500_000          # length of the top-level "leaves" list: 12 kernel calls a leaf at most, work.CAP
MAX_DIGITS = 30               # digits of an integer

_OTHER = bytes(sorted(set(range(256)) - set(b'"[]{},')))  # what the scan deletes
_STEP = bytes.maketrans(b"[{]}", b"\x01\x01\xff\xff")     # +1 and -1 as signed bytes


class Unreadable(ValueError):
    """The input is no certificate document the checker reads; the message names the fault."""


def _read(path) -> bytes:
    st = os.stat(path)
    if not stat.S_ISREG(st.st_mode):
        raise Unreadable(f"not a regular file ({stat.filemode(st.st_mode)})")
    if st.st_size > MAX_COMPRESSED:
        raise Unreadable(f"{st.st_size} bytes on disk, more than MAX_COMPRESSED = {MAX_COMPRESSED}")
    with open(path, "rb") as f:
        raw = f.read(st.st_size + 1)  # read(n) allocates n bytes first
    if len(raw) != st.st_size:
        raise Unreadable(f"changed while read ({st.st_size} bytes at the stat, then {len(raw)})")
    if raw[:2] != b"\x1f\x8b":
        return raw
    out = bytearray()
    with gzip.GzipFile(fileobj=io.BytesIO(raw)) as g:
        while chunk := g.read(1 << 20):  # a MiB at a time
            out += chunk
            if len(out) > MAX_DECOMPRESSED:
                raise Unreadable(f"gzip expands past MAX_DECOMPRESSED = {MAX_DECOMPRESSED} bytes")
    return out


def _scan(text) -> None:
    """Refuse UTF-8 JSON ``text`` of more values or deeper nesting than the caps, counting the brackets and commas
    outside its strings in a few passes of C loops over the bytes (a fraction of json.loads' time). It lexes as
    json.loads does up to where json.loads would fail, so json.loads never nests deeper than the count."""
    if b"\\" in text:  # escapes out: \\ first, then \" (a quote inside a string)
        text = text.replace(b"\\\\", b"").replace(b'\\"', b"")
    s = text.translate(None, _OTHER).replace(b'""', b"")  # quotes still pair up around strings
    if b'"' in s:
        s = b"".join(s.split(b'"')[::2])  # the pieces outside the strings
    values = s.count(b",") + s.count(b"[") + s.count(b"{") + 1  # >= the values json.loads would build
    if values > MAX_VALUES:
        raise Unreadable(f"about {values} values, more than MAX_VALUES = {MAX_VALUES}")
    # the first running depth outside [-MAX_DEPTH, MAX_DEPTH]; a negative one is a stray closing bracket, left to json
    within = frozenset(range(-MAX_DEPTH, MAX_DEPTH + 1)).__contains__
    if next(filterfalse(within, accumulate(array("b", s.translate(_STEP, b",")))), 0) > 0:
        raise Unreadable(f"arrays and objects nested deeper than MAX_DEPTH = {MAX_DEPTH}")


def _object(pairs):
    d = dict(pairs)
    if len(d) < len(pairs):
        seen = set()
        raise Unreadable(f"duplicate key {next(k for k, _ in pairs if k in seen or seen.add(k))!r}")
    return d


def _finite(s):  # NaN, Infinity, -Infinity, and a float that overflows: 1e400
    if not math.isfinite(f := float(s)):
        raise Unreadable(f"non-finite number {s[:40]}")
    return f


def _int(s):
    if (n := len(s) - s.startswith("-")) > MAX_DIGITS:
        raise Unreadable(f"integer of {n} digits, more than MAX_DIGITS = {MAX_DIGITS}")
    return int(s)


def _fault(v, depth):
    """What is wrong with the value ``v`` at ``depth`` alone (None: nothing)."""
    if isinstance(v, (dict, list, tuple)):
        if depth > MAX_DEPTH:
            return f"arrays and objects nested deeper than MAX_DEPTH = {MAX_DEPTH}"
        if isinstance(v, dict) and not all(isinstance(k, str) for k in v):
            return f"a key is not a string: {next(k for k in v if not isinstance(k, str))!r}"
    elif isinstance(v, float) and not math.isfinite(v):
        return f"non-finite number {v}"
    elif isinstance(v, int) and not isinstance(v, bool) and abs(v) >= 10**MAX_DIGITS:
        return f"integer of more than MAX_DIGITS = {MAX_DIGITS} digits"
    elif not isinstance(v, (str, int, float, type(None))):
        return f"not a JSON value: a {type(v).__name__}"
    return None


def _path(doc, target):
    """The path (``setting.gamma``, ``leaves[3].box.kappa[0]``) of the value ``target`` in ``doc`` (found again after
    the walk, so that the walk itself builds no strings)."""
    stack = [(doc, "", 1)]
    while stack:
        v, at, depth = stack.pop()
        if v is target:
            return at or "the document"
        if isinstance(v, (dict, list, tuple)) and depth <= MAX_DEPTH:
            items = v.items() if isinstance(v, dict) else ((f"[{i}]", x) for i, x in enumerate(v))
            stack.extend((x, (f"{at}.{k}" if at else k) if isinstance(v, dict) else f"{at}{k}", depth + 1) for k, x in items)
    return "a value"


def _walk(doc) -> None:
    """The checks of the JSON text, on a document in memory (iteratively; a cycle ends past MAX_DEPTH); a fault names
    the path of the value. The common values take the short way (a document of 2e4 leaves is walked in ~0.1 s)."""
    stack, values, big = [(doc, 1)], 1, 10**MAX_DIGITS
    while stack:
        v, depth = stack.pop()
        t = type(v)
        if t is float and v - v == 0 or t is str or t is bool or v is None or t is int and -big < v < big:
            continue
        why = _fault(v, depth)
        if why is not None:
            raise Unreadable(f"{_path(doc, v)}: {why}")
        if isinstance(v, (dict, list, tuple)):
            values += len(v)
            if values > MAX_VALUES:
                raise Unreadable(f"more than MAX_VALUES = {MAX_VALUES} values")
            stack.extend((x, depth + 1) for x in (v.values() if isinstance(v, dict) else v))


def _top(doc) -> dict:
    if not isinstance(doc, dict):
        raise Unreadable(f"the top level is a {type(doc).__name__}, not a JSON object")
    if isinstance(doc.get("leaves"), (list, tuple)) and len(doc["leaves"]) > MAX_LEAVES:
        raise Unreadable(f"{len(doc['leaves'])} leaves, more than MAX_LEAVES = {MAX_LEAVES}")
    admit(doc, Unreadable)  # its predicted work within the cap (:mod:`.work`); the meter set
    return doc


def load(source) -> dict:
    """The document ``source`` (a dict, or the path of a JSON or gzip JSON file), checked; else Unreadable."""
    if isinstance(source, dict):
        _walk(source)
        return _top(source)
    if not isinstance(source, (str, os.PathLike)):
        raise Unreadable(f"a certificate is a dict or a path, got {type(source).__name__}")
    try:
        raw = _read(source)
        try:
            text = raw.decode("utf-8")
        except UnicodeDecodeError as e:  # random bytes: say what the file is not, not the codec's words
            raise Unreadable(f"not a JSON document, plain or gzip: byte {raw[e.start]:#04x} at offset {e.start} is "
                             "not UTF-8 text") from None
        _scan(raw)
        return _top(json.loads(text, object_pairs_hook=_object, parse_constant=_finite, parse_float=_finite,
                               parse_int=_int))
    except Unreadable as e:
        raise Unreadable(f"certificate {os.fspath(source)!r}: {e}") from None
    except (OSError, EOFError, zlib.error, ValueError, RecursionError) as e:  # ValueError: JSON, UTF-8, a NUL in the path
        raise Unreadable(f"certificate {os.fspath(source)!r}: {type(e).__name__}: {e}") from None
