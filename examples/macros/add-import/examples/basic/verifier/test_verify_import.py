import json

from app import report


def test_json_imported():
    assert report.json is json
    rows = [report.Row("south", 7), report.Row("east", 1)]
    assert json.loads(report.to_json(rows)) == [{"region": "south", "total": 7}, {"region": "east", "total": 1}]
