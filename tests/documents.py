"""Copies of certificate documents for the corruption tests: a pickle round trip, an exact deep copy of the JSON-like
tree (dicts, lists, strings, floats, ints) about ten times faster than ``copy.deepcopy`` on documents of 10^4 leaves;
a corrupted document restated, and the checker's rejection of it."""
import pickle

from slr_verify.checker import Rejected, replay, statement


def clone(doc):
    """An independent deep copy of ``doc`` (every value and type preserved)."""
    return pickle.loads(pickle.dumps(doc, protocol=pickle.HIGHEST_PROTOCOL))


def restated(doc):
    """``doc`` with the statement its (corrupted) fields give, so that a rejection comes from the mathematics, not the
    text (unchanged when its fields give none: the replay says why)."""
    try:
        doc["statement"] = statement(doc)
    except Rejected:
        pass
    return doc


def rejected(doc, *words):
    """The checker's replay of ``doc``, asserted a rejection whose reason names every one of ``words``."""
    r = replay(doc)
    assert not r.accepted, r.reason
    assert all(w in r.reason for w in words), r.reason
    return r
