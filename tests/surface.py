"""The package's public surface, read from the sources and from the API reference (docs/api). Used by
tests/test_public_surface.py (the surface's rules) and tests/test_public_api.py (the conventions every public
function keeps).

The rule (docs/architecture.md, "The public surface"): a module is public when it declares ``__all__``, and the public
modules are exactly those the API reference documents with ``.. automodule::``; their ``__all__`` is the library.
Every other module declares no ``__all__``: its names are the suite's internals (importable, not promised).
"""
import ast
import importlib
import pathlib
import re

ROOT = pathlib.Path(__file__).resolve().parent.parent
PACKAGE = ROOT / "slr_verify"
API = ROOT / "docs" / "api"

#: ``.. directive:: argument`` in an eval-rst block, and its ``:option: value`` lines
_DIRECTIVE = re.compile(r"^\.\.\s+(auto\w+)::\s*(\S+)\s*$")
_OPTION = re.compile(r"^\s+:([\w-]+):\s*(.*)$")


def module_paths():
    """{dotted name: path} of every module of the package, read from the file tree (nothing imported)."""
    out = {}
    for p in sorted(PACKAGE.rglob("*.py")):
        parts = p.relative_to(ROOT).with_suffix("").parts
        out[".".join(parts[:-1] if parts[-1] == "__init__" else parts)] = p
    return out


def _all_nodes(tree):
    for node in tree.body:
        targets = node.targets if isinstance(node, ast.Assign) else \
            [node.target] if isinstance(node, (ast.AugAssign, ast.AnnAssign)) else []
        if any(isinstance(t, ast.Name) and t.id == "__all__" for t in targets):
            yield node


def declares_all(path) -> bool:
    """Whether the module at ``path`` assigns ``__all__`` at its top level."""
    return any(True for _ in _all_nodes(ast.parse(path.read_text(encoding="utf-8"))))


def modules_declaring_all():
    return sorted(name for name, path in module_paths().items() if declares_all(path))


def api_directives():
    """[(page, directive, argument, {option: value})] of the autodoc directives of docs/api/*.md."""
    out = []
    for page in sorted(API.glob("*.md")):
        lines = page.read_text(encoding="utf-8").splitlines()
        for i, line in enumerate(lines):
            m = _DIRECTIVE.match(line)
            if not m:
                continue
            options = {}
            for follow in lines[i + 1:]:
                o = _OPTION.match(follow)
                if not o:
                    break
                options[o.group(1)] = o.group(2).strip()
            out.append((page.name, m.group(1), m.group(2), options))
    return out


def documented_modules():
    """The modules the API reference documents with their members (``.. automodule::`` without ``:no-members:``)."""
    return sorted({arg for _, kind, arg, opts in api_directives() if kind == "automodule" and "no-members" not in opts})


def public_names():
    """[(module, name)] of the public surface: each documented module's ``__all__``, in order."""
    return [(m, n) for m in documented_modules() for n in getattr(importlib.import_module(m), "__all__", [])]


def documented_names():
    """{(module, name)} that the API reference's directives document, as autodoc reads them: an ``automodule`` with
    members documents the ``__all__`` of its module (or the ``:members:`` it lists); ``autofunction`` and the
    like document one name each."""
    out = set()
    for _, kind, arg, opts in api_directives():
        if kind == "automodule":
            if "no-members" in opts:
                continue
            listed = [n.strip() for n in opts.get("members", "").split(",") if n.strip()]
            out.update((arg, n) for n in (listed or getattr(importlib.import_module(arg), "__all__", ["<no __all__>"])))
        else:
            module, name = arg.rsplit(".", 1)
            out.add((module, name))
    return out


def data_comment(module, name) -> str:
    """The ``#:`` comment (Sphinx's documentation of a module-level value) above ``name = ...`` in ``module``'s
    source, or ``""``: autodoc documents a value exported by a module only from such a comment in that module."""
    path = module_paths()[module]
    lines = path.read_text(encoding="utf-8").splitlines()
    for node in ast.parse("\n".join(lines)).body:
        if isinstance(node, (ast.Assign, ast.AnnAssign)):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            if any(isinstance(t, ast.Name) and t.id == name for t in targets):
                comment, i = [], node.lineno - 2
                while i >= 0 and lines[i].lstrip().startswith("#:"):
                    comment.insert(0, lines[i].lstrip()[2:].strip())
                    i -= 1
                return " ".join(comment)
    return ""


def own_docstring(obj) -> str:
    """The docstring written for ``obj`` (not one a dataclass or a named tuple generates from its fields, not one
    inherited from a base class)."""
    doc = (vars(obj).get("__doc__") if isinstance(obj, type) else getattr(obj, "__doc__", None)) or ""
    if isinstance(obj, type) and doc.startswith(f"{obj.__name__}("):
        return ""
    return doc.strip()
