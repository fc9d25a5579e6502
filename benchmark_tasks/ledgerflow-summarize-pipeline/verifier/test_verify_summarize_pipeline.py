import ast
import re
from pathlib import Path

import ledgerflow
from ledgerflow.config import LedgerConfig
from ledgerflow.pipeline import build_default_pipeline

ROOT = Path(ledgerflow.__file__).resolve().parent.parent

def _params(fn):
    args = fn.args
    names = [a.arg for a in args.posonlyargs + args.args + args.kwonlyargs]
    if args.vararg is not None:
        names.append(args.vararg.arg)
    if args.kwarg is not None:
        names.append(args.kwarg.arg)
    return names


def public_api(source):
    """(kind, name, parameter names, first docstring line) of each public top-level def/class."""
    for node in ast.parse(source).body:
        if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            continue
        if node.name.startswith("_"):
            continue
        if isinstance(node, ast.ClassDef):
            init = next((n for n in node.body if isinstance(n, ast.FunctionDef) and n.name == "__init__"), None)
            kind, params = "class", (_params(init)[1:] if init is not None else [])
        else:
            kind, params = "def", _params(node)
        doc = ast.get_docstring(node)
        yield kind, node.name, params, (doc.strip().splitlines()[0].strip() if doc else "")


def summary_entries(summary):
    """The bullet entries of a summary, continuation lines joined, whitespace normalised."""
    entries, current = [], None
    for line in summary.splitlines() + [""]:
        stripped = line.strip()
        if stripped.startswith("- "):
            if current is not None:
                entries.append(" ".join(current.split()))
            current = stripped[2:]
        elif stripped and current is not None:
            current += " " + stripped
        elif current is not None:
            entries.append(" ".join(current.split()))
            current = None
    return entries


def check_summary(summary, source, dotted):
    assert f"Public API of {dotted}" in summary
    entries = summary_entries(summary)
    flat = " ".join(summary.split())
    api = list(public_api(source))
    assert api
    for kind, name, params, first in api:
        pattern = re.compile(rf"\b{kind}\s+{re.escape(name)}\b")
        found = [entry for entry in entries if pattern.search(entry)]
        assert found, f"the summary has no entry for {kind} {name}"
        for param in params:
            assert re.search(rf"\b{re.escape(param)}\b", found[0]), f"{name}: parameter {param} not listed"
        if first:
            assert " ".join(first.split()) in flat, f"{name}: first docstring line missing"


def test_summary_page_lists_the_public_api():
    page = ROOT / "docs" / "api" / "pipeline.md"
    assert page.is_file()
    source = (ROOT / "ledgerflow" / "pipeline.py").read_text(encoding="utf-8")
    check_summary(page.read_text(encoding="utf-8"), source, "ledgerflow.pipeline")


def test_module_still_works():
    assert build_default_pipeline(LedgerConfig()).step_names == ["clean", "dedupe", "validate", "convert", "categorise"]
