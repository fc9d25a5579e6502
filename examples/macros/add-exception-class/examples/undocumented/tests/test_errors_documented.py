"""Every error class of app.errors is listed in docs/errors.md."""

import inspect
from pathlib import Path

import app.errors

DOCS = Path(__file__).resolve().parent.parent / "docs" / "errors.md"


def test_every_error_is_documented():
    text = DOCS.read_text()
    classes = [n for n, v in vars(app.errors).items() if inspect.isclass(v) and issubclass(v, Exception)]
    assert [n for n in classes if f"`{n}`" not in text] == []
