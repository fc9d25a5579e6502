import ast
import re
from pathlib import Path

from hookshot.events import Event
from hookshot.schema import SchemaError, SchemaRegistry, SchemaViolation, validate

MODULE = Path("hookshot/schema.py")


def module_docstring():
    return ast.get_docstring(ast.parse(MODULE.read_text(encoding="utf-8"))) or ""


def public_api():
    tree = ast.parse(MODULE.read_text(encoding="utf-8"))
    for node in tree.body:
        if not hasattr(node, "name") or node.name.startswith("_"):
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


def test_docstring_keeps_its_text_and_gains_the_summary():
    doc = module_docstring()
    assert doc.startswith("Validate event payloads against a small subset of JSON Schema.")
    assert "``$.items[1].quantity``" in doc
    assert "Public API of hookshot.schema:" in doc


def test_every_public_name_is_listed_with_its_parameters_and_docstring():
    items = bullets(module_docstring().split("Public API of hookshot.schema:", 1)[-1])
    api = list(public_api())
    assert {name for _, name, _, _ in api} >= {
        "SchemaViolation", "SchemaError", "json_type_name", "validate", "SchemaRegistry"
    }
    for kind, name, params, doc in api:
        bullet = find_bullet(items, kind, name)
        for param in params:
            assert re.search(rf"\b{param}\b", bullet), f"{name}: parameter {param} missing"
        first_line = doc.strip().splitlines()[0] if doc.strip() else ""
        assert first_line in bullet, f"{name}: docstring line missing"


def test_private_helpers_are_not_listed():
    doc = module_docstring()
    for helper in ("_validate_node", "_check_bounds", "_matches_type", "_validate_object"):
        assert helper not in doc


def test_module_still_works():
    registry = SchemaRegistry({"ping": {"type": "object", "required": ["id"]}})
    assert registry.check(Event("ping", {"id": 1})) == []
    assert validate({"a": 1}, {"required": ["b"]}) == [
        SchemaViolation("$", "missing required property 'b'")
    ]
    try:
        registry.validate_event(Event("ping", {}))
    except SchemaError as exc:
        assert exc.event_name == "ping"
    else:
        raise AssertionError("SchemaError not raised")
