"""The checker's bounded reader (``slr_verify.checker.reader``): every unreadable input raises ``Unreadable`` naming
its fault, never another exception, within the caps of time and memory it states.

Each test builds its input from the contract (a JSON text, a gzip stream, a file on disk) and asserts the exception
type and that the message names the fault (the cap, the key, the number). The caps are lowered by monkeypatch where
a real-size input would be slow; the gzip bomb and the file over MAX_COMPRESSED are real, measured with tracemalloc.
"""
import gzip
import json
import os
import random
import tracemalloc
from importlib.resources import files

import pytest

from slr_verify.checker import reader
from slr_verify.checker.reader import Unreadable, load

DEEP = b'{"a":' + b"[" * 200_000 + b"]" * 200_000 + b"}"
DOC = {"kind": "test", "lam": [0.1, 0.25], "n": -12345678901234567890, "ok": True, "none": None,
       "text": 'brackets [{ and "quotes" \\ é', "leaves": [{"box": [[0.0, 1.5e-300]], "beta": -2.5}] * 3}


def _write(tmp_path, data: bytes, name="doc.json"):
    p = tmp_path / name
    p.write_bytes(data)
    return p


def _unreadable(source, *words):
    with pytest.raises(Unreadable) as e:
        load(source)
    assert type(e.value) is Unreadable and isinstance(e.value, ValueError)
    for w in words:
        assert w in str(e.value), (w, str(e.value))
    return str(e.value)


def test_round_trip_plain_gzip_and_dict(tmp_path):
    raw = json.dumps(DOC).encode()
    assert load(_write(tmp_path, raw)) == DOC
    assert load(str(_write(tmp_path, raw, "plain.json.gz"))) == DOC          # plain, whatever the name
    assert load(_write(tmp_path, gzip.compress(raw), "gzip.json")) == DOC    # gzip, told by the magic bytes
    assert load(DOC) is DOC
    ok = b'{"a":' * 15 + b'["[[[[[[[[[[[[[[[[[[[[\\"\\\\"]' + b"}" * 15  # 16 deep; brackets in a string do not count
    assert load(_write(tmp_path, ok))


def test_committed_certificate_reads():
    p = files("slr_verify.certificates") / "window_fig5.json.gz"
    assert load(p) == json.loads(gzip.decompress(p.read_bytes()))


def test_gzip_bomb_is_streamed_not_expanded(tmp_path, monkeypatch):
    p = _write(tmp_path, gzip.compress(b" " * 50_000_000, compresslevel=1), "bomb.json.gz")  # 50 MB of JSON whitespace
    assert p.stat().st_size < 1_000_000
    monkeypatch.setattr(reader, "MAX_DECOMPRESSED", 1 << 20)
    tracemalloc.start()
    try:
        _unreadable(p, "MAX_DECOMPRESSED", "bomb.json.gz")
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 20e6, peak


def test_file_over_max_compressed_is_refused_unread(tmp_path):
    p = _write(tmp_path, b"{}")
    os.truncate(p, reader.MAX_COMPRESSED + 1)  # sparse: no disk used
    tracemalloc.start()
    try:
        _unreadable(p, "MAX_COMPRESSED", str(reader.MAX_COMPRESSED + 1))
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 1e6, peak  # stat, not read


def test_deep_nesting_is_refused_before_json(tmp_path):
    _unreadable(_write(tmp_path, DEEP), "MAX_DEPTH")
    _unreadable(_write(tmp_path, b'{"a":' * 17 + b"1" + b"}" * 17), "MAX_DEPTH = 16")
    _unreadable(_write(tmp_path, gzip.compress(b"[" * 200_000)), "MAX_DEPTH")  # truncated, deep: still the cap


def _text(rng):
    return "".join(rng.choice('[]{}",\\:aé \n') for _ in range(rng.randrange(6)))


def _nested(rng, depth):
    """A random object exactly ``depth`` deep, its strings (keys too) full of brackets, quotes and escapes."""
    node = rng.choice([[], {}, [_text(rng), 1.5], {_text(rng): None}])
    for _ in range(depth - 2):
        node = [node, _text(rng), -7] if rng.random() < 0.5 else {_text(rng): node, "k" + _text(rng): [True]}
    return {_text(rng): node, "x": [_text(rng), {}]}


def test_scan_depth_matches_the_document(tmp_path):
    """Random documents 14 to 18 deep: read (exactly) iff at most MAX_DEPTH = 16 deep."""
    rng = random.Random(1)
    for i in range(120):
        depth = rng.randrange(14, 19)
        doc = _nested(rng, depth)
        p = _write(tmp_path, json.dumps(doc, ensure_ascii=rng.random() < 0.5).encode(), f"{i}.json")
        if depth <= reader.MAX_DEPTH:
            assert load(p) == doc
        else:
            _unreadable(p, "MAX_DEPTH")


def test_recursion_error_is_unreadable_too(tmp_path, monkeypatch):
    monkeypatch.setattr(reader, "MAX_DEPTH", 300_000)  # the scan lets it through: json.loads recurses
    _unreadable(_write(tmp_path, DEEP), "RecursionError")


def test_caps_on_values_and_leaves(tmp_path, monkeypatch):
    monkeypatch.setattr(reader, "MAX_VALUES", 1000)
    _unreadable(_write(tmp_path, json.dumps({"x": list(range(1000))}).encode()), "MAX_VALUES")
    _unreadable({"x": [[0]] * 600}, "MAX_VALUES")
    monkeypatch.setattr(reader, "MAX_LEAVES", 10)
    leaves = {"leaves": [0] * 11}
    _unreadable(_write(tmp_path, json.dumps(leaves).encode()), "11 leaves", "MAX_LEAVES")
    _unreadable(leaves, "MAX_LEAVES")
    assert load({"leaves": [0] * 10})


@pytest.mark.parametrize("text, key", [(b'{"a":1,"b":2,"a":3}', "'a'"), (b'{"x":[{"lo":0,"hi":1,"lo":2}]}', "'lo'")])
def test_duplicate_keys(tmp_path, text, key):
    _unreadable(_write(tmp_path, text), "duplicate key", key)


@pytest.mark.parametrize("number", ["NaN", "Infinity", "-Infinity", "1e400", "-1e400"])
def test_non_finite_numbers(tmp_path, number):
    _unreadable(_write(tmp_path, b'{"a":[1,%s]}' % number.encode()), "non-finite number", number)


def test_integer_digits(tmp_path):
    _unreadable(_write(tmp_path, b'{"a":' + b"9" * 40 + b"}"), "40 digits", "MAX_DIGITS")
    assert load(_write(tmp_path, b'{"a":-' + b"9" * 30 + b"}"))["a"] == -(10**30 - 1)


@pytest.mark.parametrize("data, words", [
    ('{"a":"é"}'.encode("latin-1"), ["not UTF-8 text", "0xe9 at offset 6"]),
    (b'{"a":1} x', ["JSONDecodeError", "Extra data"]),
    (b'{"a":[1,2', ["JSONDecodeError"]),
    (b"", ["JSONDecodeError"]),
    (b"[1, 2]", ["top level", "list"]),
    (b'"text"', ["top level", "str"]),
    (gzip.compress(b'{"a":1}' * 1000)[:-30], ["EOFError"]),
    (gzip.compress(b'{"a":1}')[:-8] + b"\0\0\0\0\x07\0\0\0", ["CRC check failed"]),
    (b"\x1f\x8b not gzip", ["BadGzipFile"]),
], ids=["latin-1", "trailing", "truncated", "empty", "array", "string", "truncated-gzip", "crc", "bad-gzip"])
def test_unreadable_bytes(tmp_path, data, words):
    _unreadable(_write(tmp_path, data), "doc.json", *words)


def test_unreadable_paths(tmp_path, monkeypatch):
    _unreadable(tmp_path / "missing.json", "FileNotFoundError", "missing.json")
    _unreadable(tmp_path, "not a regular file")
    _unreadable("a\0b", "null byte")
    _unreadable(3, "dict or a path")
    p = _write(tmp_path, b"{}")

    def refused(*a, **k):
        raise PermissionError(13, "Permission denied")

    monkeypatch.setattr(reader, "open", refused, raising=False)  # root reads any file: the refusal simulated
    _unreadable(p, "PermissionError")


def test_dict_source_checks():
    deep = {}
    for _ in range(19):
        deep = {"a": deep}
    _unreadable(deep, "MAX_DEPTH")  # 20 deep
    _unreadable({"a": [[[[[[[[[[[[[[[[0]]]]]]]]]]]]]]]]}, "MAX_DEPTH = 16")  # 17 deep
    assert load({"a": [[[[[[[[[[[[[[[0]]]]]]]]]]]]]]]})                     # 16 deep
    loop = {}
    loop["self"] = loop
    _unreadable(loop, "MAX_DEPTH")
    _unreadable({"a": [1.0, float("nan")]}, "non-finite number nan")
    _unreadable({"a": {1: 2}}, "key is not a string", "1")
    _unreadable({"a": -(10**30)}, "MAX_DIGITS")
    assert load({"a": 10**30 - 1, "b": [True, None, "s", 0.5, (1, 2)]})
    _unreadable({"a": {1, 2}}, "not a JSON value", "set")


def test_corrupted_documents_raise_only_unreadable(tmp_path):
    """Random byte edits and truncations of a plain and a gzip document: a dict or Unreadable, nothing else."""
    rng = random.Random(0)
    raw = json.dumps(DOC).encode()
    for k, base in enumerate((raw, gzip.compress(raw))):
        for i in range(150):
            b = bytearray(base)
            for _ in range(rng.randint(1, 4)):
                b[rng.randrange(len(b))] = rng.choice(b'[]{}",:\\0e-9 \x00\x1f\x8b\xff')
            data = bytes(b[: rng.randrange(1, len(b) + 1)] if i % 3 == 0 else b)
            try:
                assert isinstance(load(_write(tmp_path, data, f"{k}-{i}.json")), dict)  # new files: fast on ext4
            except Unreadable:
                pass


@pytest.mark.parametrize("data, fault", [(DEEP, "MAX_DEPTH"), (b'{"a":1,"a":2}', "duplicate key 'a'")], ids=["deep", "dup"])
def test_cli_replay_exits_2_on_unreadable(tmp_path, capsys, data, fault):
    from slr_verify.cli import main

    p = _write(tmp_path, data)
    try:
        code = main(["certify", "replay", str(p)])
    except SystemExit as e:
        code = e.code
    assert code == 2
    err = capsys.readouterr().err
    assert "unreadable" in err and fault in err, err


def test_the_caps_are_the_documented_ones():
    """docs/certificates.md states these caps; a cap raised by mistake is caught here (the tests above lower them to
    stay fast)."""
    assert (reader.MAX_COMPRESSED, reader.MAX_DECOMPRESSED) == (64 * 2**20, 96 * 2**20)
    assert (reader.MAX_DEPTH, reader.MAX_VALUES, reader.MAX_LEAVES, reader.MAX_DIGITS) == (16, 8_000_000, 500_000, 30)


def test_the_value_cap_is_inclusive(monkeypatch):
    """A document of exactly MAX_VALUES values is read; one more is not."""
    monkeypatch.setattr(reader, "MAX_VALUES", 11)
    assert reader.load({"x": list(range(9))})  # 1 (the object) + 1 (the list) + 9 numbers = 11
    _unreadable({"x": list(range(10))}, "MAX_VALUES")


def test_the_text_scans_value_cap_is_inclusive(monkeypatch):
    """The byte scan before json.loads (reader._scan: commas + opening brackets + 1, outside strings) counts exactly the
    values of a document without empty containers; at exactly MAX_VALUES it lets the text through, one more it refuses."""
    monkeypatch.setattr(reader, "MAX_VALUES", 12)
    text = json.dumps({"x": list(range(9)), "s": "a, [b] {c}"}).encode()  # 1 + 1 + 9 + 1 = 12; the string's brackets
    reader._scan(text)                                                    # and comma are not counted
    monkeypatch.setattr(reader, "MAX_VALUES", 11)
    with pytest.raises(reader.Unreadable, match="MAX_VALUES"):
        reader._scan(text)
