"""Conventions every public function keeps: eps defaults to 0, and an unknown keyword is
refused, never dropped.

The public API walked here is the public surface (tests/surface.py): the ``__all__`` of the modules docs/api
documents (``slr_verify``, ``slr_verify.model``, ``slr_verify.certify``, ``slr_verify.checker``, ...), each
callable once. The internal engines are not walked: keyword checking is the public surface's promise.
"""
import inspect

import pytest
import surface

import slr_verify
from slr_verify.model.params import accepts_gamma2, keywords_checked

BOGUS = "definitely_not_a_parameter"


def _public_callables():
    """(id, object) for each public function and class, each object once (by its public name)."""
    out, seen = [], set()
    for module, name in surface.public_names():
        obj = getattr(__import__(module, fromlist=[name]), name)
        if callable(obj) and id(obj) not in seen:
            seen.add(id(obj))
            out.append((f"{module}.{name}", obj))
    return out


PUBLIC = _public_callables()


def _parameters(obj):
    try:
        return inspect.signature(obj).parameters  # follows functools.wraps to the decorated function
    except (TypeError, ValueError):  # a callable without a signature (none at the time of writing)
        return {}


def test_the_walk_sees_the_public_api():
    names = {n.rsplit(".", 1)[1] for n, _ in PUBLIC}
    assert {"oracle_risk", "float_global_minimum", "pgd", "Params", "quad_risk", "sweep", "compare_predictors",
            "transformer_layer", "load", "replay", "hessian_signs", "stationary_points_on_M"} <= names
    assert {"slr_verify.checker.replay", "slr_verify.certify.alpha_diffeo"} <= {n for n, _ in PUBLIC}


# --------------------------------------------------------------------------- eps
#: eps without the default 0: a record of what was computed (a field), and a box's range of eps to draw from
EPS_RECORDS = {"slr_verify.predictors.Comparison", "slr_verify.model.ParamBox"}
TAKES_EPS = [(n, o) for n, o in PUBLIC if "eps" in _parameters(o) and n not in EPS_RECORDS]


def test_eps_defaults_to_zero_everywhere():
    """docs/usage.md: eps (the label noise) defaults to 0 in every public function that takes it."""
    assert len(TAKES_EPS) > 30
    wrong = {n: _parameters(o)["eps"].default for n, o in TAKES_EPS
             if not (isinstance(_parameters(o)["eps"].default, float) and _parameters(o)["eps"].default == 0.0)}
    assert not wrong, f"eps without the default 0.0: {wrong}"


def test_eps_default_is_the_noiseless_model():
    """Compared at the same setting without eps, the oracle's risk and the global minimum agree (both default eps to
    0: neither requires it nor defaults it otherwise; lam = 0.3 is inside Figure 4b's window)."""
    import math

    import slr_verify as slr
    from slr_verify import landscape as LS

    s = dict(lam=0.3, gamma2=0.5, d=400, L=10)
    assert slr.oracle_risk(**s) == slr.oracle_risk(eps=0.0, **s)
    assert math.isclose(slr.bayes_gap(**s), slr.oracle_risk(**s), rel_tol=1e-14)  # the Bayes risk eps^2 is 0
    assert math.isclose(LS.float_global_minimum(**s)[0], slr.oracle_risk(**s), rel_tol=1e-12)


# --------------------------------------------------------------------------- unknown keywords
#: the public catch-alls (``**kwargs``) and why none drops an unknown keyword
CATCH_ALLS = {
    "slr_verify.experiments.transformer_layer": "checks **settings against paper_settings(): ValueError naming it",
    "slr_verify.routes.claimed_digits": "forwards **kw to the function it measures, which refuses an unknown one",
    "slr_verify.dynamics.classify_point": "forwards **p to hessian_at, which refuses an unknown keyword",
    "slr_verify.certify.replay_committed": "forwards **kw to replay, which refuses an unknown keyword",
    "slr_verify.checker.replay": "the checker's replay (it imports nothing of the suite, not its keyword decorator): "
                                 "checks **options itself, ValueError naming an unknown one",
}
#: calls in which the keyword reaches the function (claimed_digits needs the function it forwards to)
CALLS = {
    "slr_verify.routes.claimed_digits": lambda f, kw: f(slr_verify.quad_zeta, 0.5, 0.5, **kw),
    "slr_verify.dynamics.classify_point": lambda f, kw: f((1, 1), lam=0.1, gamma=0.5**0.5, d=400, L=10, **kw),
    "slr_verify.certify.replay_committed": lambda f, kw: f("window_fig5.json.gz", **kw),
}
#: public functions that validate their keywords themselves and raise ValueError (not decorated)
OWN_VALUE_ERROR = {"slr_verify.experiments.transformer_layer", "slr_verify.routes.claimed_digits",
                   "slr_verify.dynamics.classify_point", "slr_verify.certify.replay_committed",
                   "slr_verify.checker.replay"}

#: the code of every accepts_gamma2 and keywords_checked wrapper
_DECORATED = {accepts_gamma2(lambda *, gamma: gamma).__code__, keywords_checked(lambda *, x: x).__code__}


def test_every_catch_all_is_accounted_for():
    catch_alls = {n for n, o in PUBLIC if any(p.kind is p.VAR_KEYWORD for p in _parameters(o).values())}
    assert catch_alls == set(CATCH_ALLS), "a new **kwargs in the public API: refuse unknown keywords, then list it"


@pytest.mark.parametrize("name, obj", PUBLIC, ids=[n for n, _ in PUBLIC])
def test_unknown_keyword_is_refused_by_name(name, obj):
    """Functions decorated by :func:`slr_verify.model.params.accepts_gamma2` (those taking gamma) or
    :func:`~slr_verify.model.params.keywords_checked`, and those in OWN_VALUE_ERROR, raise ``ValueError`` naming the
    keyword; the classes (dataclasses and records: Python's ``TypeError`` names it) and the functions listed in
    PLAIN_OK keep a plain signature. No public callable accepts it silently. Exception classes are raised, not
    called with keywords: skipped."""
    if inspect.isclass(obj) and issubclass(obj, BaseException):
        pytest.skip("an exception class")
    decorated = getattr(obj, "__code__", None) in _DECORATED or (
        inspect.isclass(obj) and getattr(obj.__init__, "__code__", None) in _DECORATED)  # Params: its __init__
    expected = ValueError if decorated or name in OWN_VALUE_ERROR else TypeError
    call = CALLS.get(name, lambda f, kw: f(**kw))
    with pytest.raises((ValueError, TypeError)) as info:
        call(obj, {BOGUS: 1})
    assert BOGUS in str(info.value), f"{name}: {info.value!r}"
    assert type(info.value) is expected, f"{name}: {type(info.value).__name__}, expected {expected.__name__}"


#: public functions left with Python's own TypeError for an unknown keyword, and why
PLAIN = {
    "slr_verify.checker.statement": "the checker imports nothing of the suite (not its keyword decorator): Python's "
                                    "TypeError names an unknown keyword",
    "slr_verify.checker.proves": "the checker imports nothing of the suite (not its keyword decorator): Python's "
                                 "TypeError names an unknown keyword",
}


def test_every_public_function_refuses_with_a_value_error():
    """An unknown keyword is a ValueError naming it. Every public function is decorated
    (accepts_gamma2 or keywords_checked) or validates its keywords itself, except those in PLAIN."""
    plain = {n for n, o in PUBLIC if not inspect.isclass(o) and n not in OWN_VALUE_ERROR
             and getattr(o, "__code__", None) not in _DECORATED and n not in CATCH_ALLS}
    assert plain == set(PLAIN)
