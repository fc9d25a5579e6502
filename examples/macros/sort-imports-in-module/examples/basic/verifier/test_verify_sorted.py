import ast
from pathlib import Path

import app.main

SOURCE = Path(app.main.__file__).read_text()


def test_imports_sorted_and_kept():
    body = ast.parse(SOURCE).body
    imports = [s for s in body if isinstance(s, (ast.Import, ast.ImportFrom)) and getattr(s, "module", None) != "__future__"]
    modules = [s.names[0].name if isinstance(s, ast.Import) else s.module for s in imports]
    assert modules == ["app.report", "argparse", "json", "pathlib", "sys"]
    lines = [s.lineno for s in imports]
    assert lines == list(range(lines[0], lines[0] + len(lines)))
