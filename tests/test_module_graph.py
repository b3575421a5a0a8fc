"""The import graph between the package's modules (no cycle, no private name across modules). import-linter's
contracts cover packages; imports inside functions hid module cycles from them. This test reads every ``import`` of
every module (functions included) with ``ast`` and finds the strongly connected components of the graph.

Any cycle fails the test. So does a private name (a leading underscore, not a dunder) taken from another module of
the package, ``from .m import _x`` or ``m._x`` on an imported module: what another module needs is public, named for
what it does, with its contract in the docstring."""
import ast
import pathlib

ROOT = pathlib.Path(__file__).resolve().parent.parent / "slr_verify"
KNOWN = []
#: (importer, "module._name") pairs still allowed. It must stay empty; never add to it.
PRIVATE_KNOWN = []


def _modules():
    out = {}
    for p in ROOT.rglob("*.py"):
        parts = p.relative_to(ROOT.parent).with_suffix("").parts
        name = ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
        out[name] = p
    return out


def _targets(name, path, node, mods):
    if isinstance(node, ast.Import):
        raw = [a.name for a in node.names]
    else:
        pkg = name.split(".") if path.name == "__init__.py" else name.split(".")[:-1]
        if node.level:
            pkg = pkg[: len(pkg) - (node.level - 1)]
            base = ".".join(pkg + ([node.module] if node.module else []))
        else:
            base = node.module or ""
        raw = [f"{base}.{a.name}" if f"{base}.{a.name}" in mods else base for a in node.names]
    for t in raw:
        while t and t not in mods and "." in t:
            t = t.rsplit(".", 1)[0]
        if t in mods and t != name and mods[t].name != "__init__.py":
            yield t


def _graph():
    mods = _modules()
    g = {m: set() for m in mods}
    for m, p in mods.items():
        for node in ast.walk(ast.parse(p.read_text(encoding="utf-8"))):
            if isinstance(node, (ast.Import, ast.ImportFrom)):
                g[m].update(_targets(m, p, node, mods))
    return g


def _cycles(g):
    """Strongly connected components of more than one module (Tarjan, iteratively)."""
    index, low, on, stack, out, counter = {}, {}, set(), [], [], [0]
    for root in g:
        if root in index:
            continue
        work = [(root, iter(sorted(g[root])))]
        index[root] = low[root] = counter[0]
        counter[0] += 1
        stack.append(root)
        on.add(root)
        while work:
            v, it = work[-1]
            for w in it:
                if w not in index:
                    index[w] = low[w] = counter[0]
                    counter[0] += 1
                    stack.append(w)
                    on.add(w)
                    work.append((w, iter(sorted(g[w]))))
                    break
                if w in on:
                    low[v] = min(low[v], index[w])
            else:
                work.pop()
                if work:
                    low[work[-1][0]] = min(low[work[-1][0]], low[v])
                if low[v] == index[v]:
                    comp = set()
                    while True:
                        w = stack.pop()
                        on.discard(w)
                        comp.add(w)
                        if w == v:
                            break
                    if len(comp) > 1:
                        out.append(comp)
    return out


def test_the_detector_finds_a_planted_cycle():
    assert _cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [{"a", "b", "c"}]


def test_no_module_cycle():
    found = _cycles(_graph())
    assert [c for c in found if c not in KNOWN] == [], found


# --------------------------------------------------------------------------- private names across modules
def _private(name):
    return name.startswith("_") and not (name.startswith("__") and name.endswith("__"))


def _private_uses(name, is_package, tree, mods):
    """(importer, "module._name") for each private name the module ``name`` takes from another module of ``mods``:
    ``from m import _x`` (absolute or relative), and ``m._x`` or ``getattr(m, "_x")`` where ``m`` is bound to a
    module by an import (``import a.b as m``, ``from a import b``, or the package ``slr_verify`` itself)."""
    bound, out = _import_bindings(name, is_package, tree, mods)
    return out + _attribute_uses(name, tree, bound, mods)


def _import_bindings(name, is_package, tree, mods):
    """(names bound to modules of ``mods`` by the imports of ``name``, the private names those imports take)."""
    pkg = name.split(".") if is_package else name.split(".")[:-1]
    bound, out = {}, []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for a in node.names:
                if a.name.split(".")[0] == "slr_verify":
                    bound[a.asname or "slr_verify"] = a.name if a.asname else "slr_verify"
        elif isinstance(node, ast.ImportFrom):
            base = ".".join(pkg[: len(pkg) - (node.level - 1)] + ([node.module] if node.module else [])) \
                if node.level else (node.module or "")
            if base.split(".")[0] != "slr_verify":
                continue
            for a in node.names:
                if f"{base}.{a.name}" in mods:
                    bound[a.asname or a.name] = f"{base}.{a.name}"
                elif _private(a.name) and base != name:
                    out.append((name, f"{base}.{a.name}"))
    return bound, out


def _attribute_uses(name, tree, bound, mods):
    """(importer, "module._name") for each ``m._x`` or ``getattr(m, "_x")`` on a name ``m`` bound to a module."""
    out = []
    for node in ast.walk(tree):
        attr = None
        if isinstance(node, ast.Attribute):
            chain, base = [node.attr], node.value
            while isinstance(base, ast.Attribute):
                chain.insert(0, base.attr)
                base = base.value
            attr = (base, chain)
        elif (isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "getattr"
              and len(node.args) >= 2 and isinstance(node.args[1], ast.Constant) and isinstance(node.args[1].value, str)):
            attr = (node.args[0], [node.args[1].value])
        if attr is None or not isinstance(attr[0], ast.Name) or attr[0].id not in bound:
            continue
        target = bound[attr[0].id]
        for part in attr[1]:
            if f"{target}.{part}" in mods:
                target = f"{target}.{part}"
                continue
            if _private(part) and target != name:
                out.append((name, f"{target}.{part}"))
            break
    return out


def _private_imports(sources):
    """Every cross-module private use in ``sources``: {module: (is_package, source text)}."""
    out = []
    for m, (is_package, text) in sources.items():
        out += _private_uses(m, is_package, ast.parse(text), sources)
    return sorted(set(out))


def test_the_detector_finds_planted_private_imports():
    sources = {
        "slr_verify": (True, "__version__ = '1'"),
        "slr_verify.a": (False, "def _engine():\n    pass\ndef _own():\n    return _engine()"),
        "slr_verify.b": (False, "from .a import _engine"),
        "slr_verify.c": (False, "def f():\n    from slr_verify import a\n    return a._engine()"),
        "slr_verify.d": (False, "import slr_verify.a as m\nx = getattr(m, '_engine')"),
        "slr_verify.e": (False, "import slr_verify.a\nx = slr_verify.a._engine"),
        "slr_verify.f": (False, "from . import a, __version__\nfrom .a import _own as _alias_is_fine_when_public\n"),
        "slr_verify.g": (False, "from . import a\nfrom numpy import _private_of_numpy\nx = a.__name__, a.public"),
    }
    assert _private_imports(sources) == [
        ("slr_verify.b", "slr_verify.a._engine"), ("slr_verify.c", "slr_verify.a._engine"),
        ("slr_verify.d", "slr_verify.a._engine"), ("slr_verify.e", "slr_verify.a._engine"),
        ("slr_verify.f", "slr_verify.a._own")]


def test_no_private_name_imported_from_another_module():
    sources = {m: (p.name == "__init__.py", p.read_text(encoding="utf-8")) for m, p in _modules().items()}
    found = _private_imports(sources)
    new = [u for u in found if u not in PRIVATE_KNOWN]
    assert new == [], "private names imported across modules (make them public, or move them): %s" % new
    gone = [u for u in PRIVATE_KNOWN if u not in found]
    assert gone == [], "PRIVATE_KNOWN lists uses that are gone: remove them %s" % gone
