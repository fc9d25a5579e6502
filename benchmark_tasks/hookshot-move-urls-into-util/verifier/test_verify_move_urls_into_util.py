import importlib
import importlib.util
from pathlib import Path


def test_new_location_works():
    urls = importlib.import_module("hookshot.util.urls")
    parts = urls.split_url("https://Hooks.Example.com:8443/in?x=1")
    assert (parts.host, parts.port, parts.target) == ("hooks.example.com", 8443, "/in?x=1")
    assert urls.parse_query(urls.encode_query({"a": "b c"})) == {"a": ["b c"]}
    assert urls.with_query("https://e.com/h#top", {"a": 1}) == "https://e.com/h?a=1#top"


def test_old_module_is_gone():
    assert importlib.util.find_spec("hookshot.urls") is None
    assert not Path("hookshot/urls.py").exists()


def test_http_uses_the_moved_helpers():
    from hookshot.http import build_request

    request = build_request("POST", "https://e.com:8080/in?v=1", query={"x": "y"}, body=b"{}")
    assert request.target == "/in?v=1&x=y"
    assert request.headers.get("Host") == "e.com:8080"
    assert request.query == {"v": ["1"], "x": ["y"]}


def test_no_python_file_imports_the_old_module():
    sources = [p for folder in ("hookshot", "tests") for p in Path(folder).rglob("*.py")]
    offenders = [
        str(path)
        for path in sources
        if "hookshot.urls" in path.read_text(encoding="utf-8")
        or "from .urls import" in path.read_text(encoding="utf-8")
    ]
    assert offenders == []
