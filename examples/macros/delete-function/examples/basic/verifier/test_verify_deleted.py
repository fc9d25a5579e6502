import inspect

import app.textutil


def test_legacy_slug_deleted():
    assert not hasattr(app.textutil, "legacy_slug")
    assert "Deprecated" not in inspect.getsource(app.textutil)
    assert app.textutil.slugify("A b") == "a-b"
