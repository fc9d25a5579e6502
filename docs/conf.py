"""Sphinx configuration of the documentation site: the README and docs/*.md, in MyST markdown.

Built strictly by ``tests/test_docs_site.py`` (and by hand: ``sphinx-build -W --keep-going -b html docs
build/docs``): every warning fails, so a broken link, a missing page or an orphan page fails CI.
"""

project = "pytest-granularity"
author = "the pytest-granularity authors"
extensions = ["myst_parser"]
source_suffix = {".md": "markdown"}
# Links to a heading (page.md#some-heading) use GitHub's anchors, so they work on GitHub and on the site.
myst_heading_anchors = 4
exclude_patterns = ["_build"]
html_theme = "furo"
html_title = "pytest-granularity"
