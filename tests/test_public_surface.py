"""The documented API is the public API (docs/architecture.md, "The public surface").

A module is public when it declares ``__all__``; the public modules are exactly those docs/api documents with
``.. automodule::``, and their ``__all__`` together are the library: each name documented (a docstring, or a ``#:``
comment for a value), exported by one module only, at most 300 of them. Every other module declares no ``__all__``.
"""
import collections
import importlib
import inspect
import types

import surface

PUBLIC = surface.public_names()
LIMIT = 300


def test_the_modules_declaring_all_are_the_documented_ones():
    """An internal module that declares ``__all__`` fails here (remove it: internal modules export nothing), and so
    does a public one the API reference leaves out (add its ``.. automodule::`` to a page of docs/api)."""
    declaring, documented = set(surface.modules_declaring_all()), set(surface.documented_modules())
    assert not declaring - documented, f"__all__ in a module docs/api does not document: {sorted(declaring - documented)}"
    assert not documented - declaring, f"docs/api documents a module without __all__: {sorted(documented - declaring)}"


def test_documented_names_are_the_public_names():
    """An undocumented public name, and a documented name outside ``__all__``, both fail: the two sets are equal."""
    public, documented = set(PUBLIC), surface.documented_names()
    assert not public - documented, f"public, not documented: {sorted(public - documented)}"
    assert not documented - public, f"documented, not public: {sorted(documented - public)}"


def test_api_reference_uses_automodule_only():
    """One directive per public module keeps the reference and ``__all__`` one list: no ``autofunction`` of a name
    (it would document a name, public or not, outside the rule), no ``:members:`` list narrowing ``__all__``."""
    other = [(page, kind, arg) for page, kind, arg, opts in surface.api_directives()
             if kind != "automodule" or "members" in opts and opts["members"]]
    assert not other, other


def test_every_public_name_exists_and_carries_its_documentation():
    missing, undocumented = [], []
    for module, name in PUBLIC:
        mod = importlib.import_module(module)
        if not hasattr(mod, name):
            missing.append(f"{module}.{name}")
            continue
        obj = getattr(mod, name)
        if isinstance(obj, types.ModuleType):
            undocumented.append(f"{module}.{name} (a module: export its names, not the module)")
        elif callable(obj):
            if not surface.own_docstring(obj):
                undocumented.append(f"{module}.{name} (no docstring of its own)")
        elif not surface.data_comment(module, name):
            undocumented.append(f"{module}.{name} (a value: document it with a #: comment above `{name} = ...` "
                                f"in {module})")
    assert not missing, missing
    assert not undocumented, undocumented


def test_each_public_name_is_exported_by_one_module():
    counts = collections.Counter(name for _, name in PUBLIC)
    twice = {name: [m for m, n in PUBLIC if n == name] for name, c in counts.items() if c > 1}
    assert not twice, twice


def test_the_surface_is_small_enough_to_learn():
    assert len(PUBLIC) <= LIMIT, f"{len(PUBLIC)} public names (at most {LIMIT})"


def test_the_surface_is_what_a_researcher_calls():
    """The entry points the README and the user pages use are public, at the module that exports them; the engines
    behind them are not."""
    public = {f"{m}.{n}" for m, n in PUBLIC}
    assert {"slr_verify.risk", "slr_verify.oracle_risk", "slr_verify.quad_risk", "slr_verify.pgd",
            "slr_verify.claims.run_claims", "slr_verify.certify.global_minimiser", "slr_verify.certify.oracle_window",
            "slr_verify.checker.replay", "slr_verify.model.Params", "slr_verify.model.FIGURES",
            "slr_verify.landscape.float_window", "slr_verify.landscape.float_global_minimum",
            "slr_verify.dynamics.sgd", "slr_verify.derive.load"} <= public
    engines = {"slr_verify.kernels.generated.risk_kernel", "slr_verify.routes.mc_engine.run_blocks",
               "slr_verify.certify.dual_box.value_test", "slr_verify.model.params.check_params",
               "slr_verify.checker.runtime.ball_erf"}
    assert not engines & public


def test_the_top_level_names_resolve_lazily_to_their_homes():
    """``slr_verify``'s names are imported on first use (PEP 562); each is the object of the module that defines it."""
    import slr_verify

    for name in slr_verify.__all__:
        obj = getattr(slr_verify, name)
        assert inspect.isfunction(obj) or callable(obj), name
        assert obj.__module__.startswith("slr_verify."), (name, obj.__module__)
