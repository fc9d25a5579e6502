import json

from app.cli import main


def test_main_reports_cwd():
    assert "cwd" in json.loads(main())
