"""The declared surface of the package, measured: every module's ``__all__``, the names exported by more than one
module, and the names the API reference documents (issue 38, item 2).

Run ``python benchmarks/public_surface.py`` (optionally ``--inventory build/html/objects.inv`` to count the names a
built API reference documents). It imports every module of the package (the experiments' optional extras are not
needed: their modules import them lazily) and prints one line per figure.
"""
import argparse
import importlib
import pkgutil
from collections import Counter

import slr_verify


def modules():
    """Every module of the package, by dotted name (the committed generated kernels of the checker included)."""
    out = [slr_verify.__name__]
    for info in pkgutil.walk_packages(slr_verify.__path__, prefix="slr_verify."):
        if info.name.rsplit(".", 1)[1] != "__main__":
            out.append(info.name)
    return sorted(out)


def exports():
    """{module name: its ``__all__`` (a list)} for every module that declares one."""
    out = {}
    for name in modules():
        mod = importlib.import_module(name)
        if hasattr(mod, "__all__"):
            out[name] = list(mod.__all__)
    return out


def figures(exported):
    entries = sum(len(v) for v in exported.values())
    counts = Counter(n for v in exported.values() for n in set(v))
    return {"modules": len(modules()), "modules exporting": sum(1 for v in exported.values() if v),
            "__all__ entries": entries, "names": len(counts),
            "names exported by more than one module": sum(1 for c in counts.values() if c > 1)}


def documented(inventory):
    """The Python objects (functions, classes, data, exceptions) a built Sphinx inventory lists, module-qualified."""
    from sphinx.util.inventory import InventoryFile

    with open(inventory, "rb") as f:
        inv = InventoryFile.load(f, "", lambda a, b: b)
    kinds = {"py:function", "py:class", "py:data", "py:exception"}
    return sorted(name for kind, items in inv.items() if kind in kinds for name in items)


def distinct_objects(paths):
    """How many distinct Python objects the dotted ``paths`` name (a class is listed at its public path and at its
    canonical one, where it is defined; a value such as a string may be shared, and counts once per path)."""
    seen = set()
    for path in paths:
        module, name = path.rsplit(".", 1)
        try:
            obj = getattr(importlib.import_module(module), name)
        except (ImportError, AttributeError):
            seen.add(path)
            continue
        seen.add(id(obj) if callable(obj) else path)
    return len(seen)


if __name__ == "__main__":
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--inventory", help="a built API reference's objects.inv")
    ap.add_argument("--list", action="store_true", help="print every module's exports")
    args = ap.parse_args()
    exported = exports()
    for k, v in figures(exported).items():
        print(f"{k}: {v}")
    if args.inventory:
        docs = set(documented(args.inventory))
        print(f"documented entries: {len(docs)}; distinct objects: {distinct_objects(docs)}; "
              f"distinct short names: {len({d.rsplit('.', 1)[1] for d in docs})}")
        public = {f"{m}.{n}" for m, v in exported.items() for n in v}
        print(f"exported, not in the built reference: {sorted(public - docs)}")
        print(f"in the built reference, not exported: {sorted(docs - public)}")
    if args.list:
        for m, v in exported.items():
            print(m, len(v), " ".join(v))
