import ast
import re
from pathlib import Path

MODULE = Path("inventory/reorder.py")

def _params(args):
    names = [a.arg for a in args.posonlyargs + args.args]
    if args.vararg:
        names.append(args.vararg.arg)
    names += [a.arg for a in args.kwonlyargs]
    if args.kwarg:
        names.append(args.kwarg.arg)
    return names


def public_api(path):
    """Public top-level classes and functions of ``path``: name -> (parameters, docstring).

    A class's parameters are those of its own ``__init__``; classes without one (dataclasses)
    are only required by name, since their generated signature is not in the source.
    """
    tree = ast.parse(Path(path).read_text(encoding="utf-8"))
    api = {}
    for node in tree.body:
        if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)) or node.name.startswith("_"):
            continue
        if isinstance(node, ast.ClassDef):
            init = next((n for n in node.body if isinstance(n, ast.FunctionDef) and n.name == "__init__"), None)
            params = _params(init.args)[1:] if init is not None else []
        else:
            params = _params(node.args)
        api[node.name] = (params, ast.get_docstring(node) or "")
    return api


def assert_summarized(summary, path):
    """Every public name appears on one line with all its parameters and its docstring's start."""
    lines = summary.splitlines()
    for name, (params, doc) in public_api(path).items():
        entries = [line for line in lines if re.search(rf"\b{re.escape(name)}\b", line)]
        assert entries, f"{name} is missing from the summary"
        complete = [line for line in entries if all(re.search(rf"\b{re.escape(p)}\b", line) for p in params)]
        assert complete, f"{name}: no summary line names all parameters {params}"
        if doc:
            start = " ".join(doc.split()[:3])
            assert any(start in " ".join(line.split()) for line in complete), f"{name}: docstring line missing"


def module_docstring():
    return ast.get_docstring(ast.parse(MODULE.read_text(encoding="utf-8"))) or ""


def test_docstring_keeps_its_introduction():
    assert module_docstring().startswith("Reorder planning:")


def test_docstring_lists_public_api():
    names = set(public_api(MODULE))
    assert {"ReorderSuggestion", "moving_average", "average_daily_demand", "days_until_stockout",
            "reorder_point", "suggest_reorders"} <= names
    assert_summarized(module_docstring(), MODULE)


def test_module_still_works():
    from inventory.models import Product
    from inventory.reorder import ReorderSuggestion, moving_average, suggest_reorders

    assert moving_average([1, 2, 3], 2) == [1.5, 2.5]
    bolt = Product("BOL-0001", "Hex bolt", "0.12", "0.35")
    assert suggest_reorders([bolt], {"BOL-0001": 10}) == [ReorderSuggestion("BOL-0001", 10, 10, 10)]
