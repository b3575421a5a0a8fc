"""Derivations kept on disk (slr_verify.symbolic.stored): a stored result is the derivation's own result (compared
with a fresh derivation by srepr), a damaged file is derived again, and the key follows the mathematics."""
import pickle

import sympy as sp

from slr_verify.symbolic import profile_dual, risk
from slr_verify.symbolic import stored as st

CALLS = []


@st.stored
def _square_plus(n):
    CALLS.append(n)
    x = sp.Symbol("x", real=True)
    return sp.expand((x + n) ** 2)


def test_stored_results_equal_fresh_derivations():
    """Theorem 1's Hessian (erf, the zeta functions of the symbolic layer, 25 entries) and the dual line's algebra,
    stored, against their undecorated functions derived again here."""
    for fn in (risk.theorem1_hessian, profile_dual.dual_line_algebra):
        fresh = sp.srepr(fn.fresh())
        assert sp.srepr(fn()) == fresh
        path = st._path(fn.__wrapped__, ())
        if path.is_file():  # what a later process reads (written by this process or an earlier one)
            assert sp.srepr(pickle.loads(path.read_bytes())) == fresh
        # the round trip itself: in a cold cache fn() above was derived here, which proves nothing about the store
        assert sp.srepr(pickle.loads(pickle.dumps(fn.fresh()))) == fresh


def test_round_trip_damaged_file_and_bypass(tmp_path, monkeypatch):
    monkeypatch.setenv("SLR_VERIFY_CACHE", str(tmp_path))
    _square_plus.cache_clear()
    CALLS.clear()
    first = _square_plus(3)
    path = st._path(_square_plus.__wrapped__, (3,))
    assert path.is_file() and pickle.loads(path.read_bytes()) == first
    _square_plus.cache_clear()
    assert _square_plus(3) == first and CALLS == [3]  # read back, not derived
    path.write_bytes(b"not a pickle")
    _square_plus.cache_clear()
    assert _square_plus(3) == first and CALLS == [3, 3]  # damaged: derived again, and rewritten
    assert pickle.loads(path.read_bytes()) == first
    monkeypatch.setenv("SLR_VERIFY_DERIVE_FRESH", "1")
    _square_plus.cache_clear()
    assert _square_plus(3) == first and CALLS == [3, 3, 3]


def test_key_follows_arguments_and_sources(monkeypatch):
    k1, k2 = st._path(_square_plus.__wrapped__, (3,)), st._path(_square_plus.__wrapped__, (4,))
    assert k1 != k2
    monkeypatch.setattr(st, "source_digest", lambda: "another-source")
    assert st._path(_square_plus.__wrapped__, (3,)) != k1
