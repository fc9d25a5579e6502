from app import config
from app.output import report


def test_formatter_path_follows_the_move():
    assert config.FORMATTER == "app.render.to_text"
    assert report([{"name": "pens", "count": 3}, {"name": "ink", "count": 1}]) == "pens: 3\nink: 1"
