import ast
import re
from pathlib import Path

from hookshot.signing import SIGNATURE_HEADER, TIMESTAMP_HEADER, sign_payload, verify_signature

MODULE = Path("hookshot/signing.py")
SUMMARY = Path("docs/api/signing.md")


def public_api():
    tree = ast.parse(MODULE.read_text(encoding="utf-8"))
    for node in tree.body:
        if node.name.startswith("_") if hasattr(node, "name") else True:
            continue
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            yield "def", node.name, _params(node.args), ast.get_docstring(node) or ""
        elif isinstance(node, ast.ClassDef):
            init = next((n for n in node.body if isinstance(n, ast.FunctionDef) and n.name == "__init__"), None)
            params = _params(init.args)[1:] if init is not None else []
            yield "class", node.name, params, ast.get_docstring(node) or ""


def _params(args):
    names = [a.arg for a in args.posonlyargs + args.args + args.kwonlyargs]
    names += [a.arg for a in (args.vararg, args.kwarg) if a is not None]
    return names


def bullets(text):
    items, current = [], None
    for line in text.splitlines():
        if line.lstrip().startswith("- "):
            current = [line.strip()[2:]]
            items.append(current)
        elif current is not None and line.strip():
            current.append(line.strip())
        else:
            current = None
    return [" ".join(parts) for parts in items]


def find_bullet(items, kind, name):
    pattern = re.compile(rf"^(?:async\s+)?{kind}\s+{re.escape(name)}\b")
    found = [item for item in items if pattern.match(item)]
    assert found, f"no bullet for {kind} {name}"
    return found[0]


def test_summary_has_the_header():
    text = SUMMARY.read_text(encoding="utf-8")
    assert "Public API of hookshot.signing:" in text


def test_every_public_name_is_listed_with_its_parameters_and_docstring():
    items = bullets(SUMMARY.read_text(encoding="utf-8"))
    api = list(public_api())
    assert len(api) >= 9
    for kind, name, params, doc in api:
        bullet = find_bullet(items, kind, name)
        for param in params:
            assert re.search(rf"\b{param}\b", bullet), f"{name}: parameter {param} missing"
        first_line = doc.strip().splitlines()[0] if doc.strip() else ""
        assert first_line in bullet, f"{name}: docstring line missing"


def test_private_helpers_are_not_listed():
    text = SUMMARY.read_text(encoding="utf-8")
    assert "_secret_bytes" not in text and "_as_secret_list" not in text


def test_module_still_works():
    headers = sign_payload(["new", "old"], b"{}", timestamp=1_700_000_000)
    verify_signature("old", b"{}", headers[SIGNATURE_HEADER], headers[TIMESTAMP_HEADER], now=1_700_000_000)
