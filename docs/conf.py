"""Sphinx configuration of helmlite's documentation site (``make docs``: warnings are errors)."""
import sys
from pathlib import Path

DOCS = Path(__file__).resolve().parent
sys.path.insert(0, str(DOCS / "_ext"))
sys.path.insert(0, str(DOCS.parent))  # helmlite from this checkout, for autodoc and the generated references

import helmlite  # noqa: E402

project = "helmlite"
author = "the helmlite authors"
copyright = "2026, the helmlite authors"
release = helmlite.__version__

extensions = ["myst_parser", "sphinx.ext.autodoc", "reference"]
source_suffix = {".md": "markdown"}
exclude_patterns = ["_build", "_ext", "check_links.py"]
root_doc = "index"

myst_enable_extensions = ["colon_fence", "deflist"]
myst_heading_anchors = 3  # "page.md#a-heading" links resolve, and a missing anchor is a warning (an error here)

autodoc_member_order = "bysource"
autodoc_default_options = {"members": True, "undoc-members": False}
autodoc_typehints = "description"

html_theme = "furo"
html_title = "helmlite"
html_static_path = []
html_show_sourcelink = False
