import ast
import re
from datetime import datetime, timezone
from pathlib import Path
from unittest.mock import patch

MODULE = Path("inventory/reservations.py")
SUMMARY = Path("docs/api/reservations.md")

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


def test_summary_file_lists_public_api():
    assert SUMMARY.is_file()
    assert "ReservationBook" in public_api(MODULE)
    assert_summarized(SUMMARY.read_text(encoding="utf-8"), MODULE)


def test_summary_names_the_module():
    assert "inventory.reservations" in SUMMARY.read_text(encoding="utf-8")


def test_private_names_are_left_out():
    assert "_now" not in SUMMARY.read_text(encoding="utf-8")


def test_module_still_works():
    from inventory.reservations import ReservationBook
    from inventory.stock import StockLedger

    ledger = StockLedger()
    ledger.receive("BOL-0001", "A-01-01", 4)
    with patch("inventory.reservations._now", return_value=datetime(2024, 3, 1, tzinfo=timezone.utc)):
        book = ReservationBook(ledger, ttl_minutes=5)
        reservation = book.reserve("BOL-0001", 3, "SO-1")
        book.fulfil(reservation.reservation_id)
    assert ledger.quantity("BOL-0001") == 1
