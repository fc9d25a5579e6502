import app.report


def test_os_import_removed():
    assert not hasattr(app.report, "os")
    assert app.report.render([{"x": 1}]) == '{"x": 1}'
