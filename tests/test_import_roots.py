"""A task's import roots: the project's own names come from the workspace, whatever the Python has installed (here
a developer's checkout put ahead of everything on the path, as an editable install's .pth puts it after), and
nothing else does."""

from __future__ import annotations

from pathlib import Path

import pytest

from pytest_granularity.core.pytest_spec import PytestSpec
from pytest_granularity.process.pytest_process import run_pytest

TEST = "import pkg\n\n\ndef test_value():\n    assert pkg.VALUE == 'workspace', pkg.__file__\n"


@pytest.fixture
def workspace(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    checkout = tmp_path / "checkout" / "src" / "pkg"
    checkout.mkdir(parents=True)
    (checkout / "__init__.py").write_text("VALUE = 'checkout'\n")
    monkeypatch.setenv("PYTHONPATH", str(checkout.parent))
    root = tmp_path / "ws"
    (root / "src" / "pkg").mkdir(parents=True)
    (root / "src" / "pkg" / "__init__.py").write_text("VALUE = 'workspace'\n")
    (root / "tests").mkdir()
    (root / "tests" / "conftest.py").write_text("import pkg  # before any test: a conftest importing the package\n")
    (root / "tests" / "test_value.py").write_text(TEST)
    return root


@pytest.mark.parametrize("isolated", [False, True])
def test_the_project_is_imported_from_the_workspace_not_the_installed_checkout(workspace: Path, isolated) -> None:
    assert run_pytest(workspace, ["tests"], 60, isolated=isolated).exit_code == 1  # the checkout wins without it
    config = PytestSpec({"pkg": ("src",)}).config()
    assert run_pytest(workspace, ["tests"], 60, isolated=isolated, config=config).exit_code == 0


def test_a_name_the_workspace_lacks_is_an_import_error_never_the_installed_copy(workspace: Path) -> None:
    (workspace / "src" / "pkg" / "__init__.py").unlink()
    (workspace / "src" / "pkg").rmdir()
    run = run_pytest(workspace, ["tests"], 60, config=PytestSpec({"pkg": ("src",)}).config())
    assert run.exit_code != 0 and "No module named 'pkg' in the workspace" in run.output


def test_folders_are_tried_in_order_so_a_moved_package_resolves_on_either_side(workspace: Path) -> None:
    (workspace / "src" / "pkg").rename(workspace / "pkg")  # the parent's layout, before a move into src/
    run = run_pytest(workspace, ["tests"], 60, config=PytestSpec({"pkg": ("src", ".")}).config())
    assert run.exit_code == 0, run.output


def test_a_planted_pytest_in_the_workspace_changes_nothing(workspace: Path) -> None:
    (workspace / "pytest.py").write_text("raise SystemExit('planted')\n")
    (workspace / "_pytest").mkdir()
    (workspace / "_pytest" / "__init__.py").write_text("raise SystemExit('planted')\n")
    spec = PytestSpec({"pkg": ("src",), "pytest": (".",), "_pytest": (".",)})
    run = run_pytest(workspace, ["tests"], 60, isolated=True, config=spec.config())
    assert run.exit_code == 0 and "planted" not in run.output
