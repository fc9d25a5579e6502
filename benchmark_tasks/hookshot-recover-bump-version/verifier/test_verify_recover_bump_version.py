import tomllib
from pathlib import Path

import hookshot


def test_package_version():
    assert hookshot.__version__ == "0.5.0"


def test_pyproject_version():
    data = tomllib.loads(Path("pyproject.toml").read_text(encoding="utf-8"))
    assert data["project"]["version"] == "0.5.0"


def test_readme_install_command():
    readme = Path("README.md").read_text(encoding="utf-8")
    assert "hookshot==0.5.0" in readme
    assert "0.4.2" not in readme
