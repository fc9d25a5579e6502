import tomllib
from pathlib import Path

import inventory


def test_bumped():
    pyproject = tomllib.loads(Path("pyproject.toml").read_text())
    assert pyproject["project"]["version"] == "1.5.0"
    assert pyproject["project"]["dependencies"] == ["attrs>=21.4.2"]
    assert inventory.__version__ == "1.5.0"
