from unittest import mock

from app.output import report


def test_report_uses_formatter():
    with mock.patch("app.render.to_text", lambda item: item["name"].upper()):
        assert report([{"name": "pens", "count": 3}]) == "PENS"
