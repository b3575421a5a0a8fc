"""The import graph between the package's modules (issue: a codebase a newcomer can carry on). import-linter's
contracts cover packages; imports inside functions hid module cycles from them. This test reads every ``import`` of
every module (functions included) with ``ast`` and finds the strongly connected components of the graph.

Any cycle fails the test."""
import ast
import pathlib

ROOT = pathlib.Path(__file__).resolve().parent.parent / "slr_verify"
KNOWN = []


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
