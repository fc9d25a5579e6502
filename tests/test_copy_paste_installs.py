"""What every workflow a team is given installs can be installed: proved offline, from a wheel built here.

The workflows are the ones the docs print to copy (every YAML block with ``jobs:`` in the README and docs/) and
the one ``granularity init`` writes. Each ``pip install`` in them must name this version as
``pytest_granularity.core.distribution.requirement`` gives it (the repository at the version's tag, until the
package is on the index). Neither the repository nor the index is reachable here, so the same requirement, pinned
to this version, is resolved by pip against the wheel built from this checkout (``--no-index --find-links``), with
the dependencies already installed in the test environment in view: an extra the wheel does not declare, or a
dependency the extras add that nothing satisfies, fails; so does a wheel whose ``granularity`` does not run.
"""

from __future__ import annotations

import os
import re
import shlex
import shutil
import subprocess
import sys
import sysconfig
import tomllib
from pathlib import Path

import pytest
from conftest import REPO
from packaging.requirements import Requirement

from pytest_granularity import __version__
from pytest_granularity.core.distribution import NAME, requirement, source
from pytest_granularity.gate.init import workflow_for

YAML_BLOCK = re.compile(r"```yaml\n(.*?)```", re.S)


def copy_paste_workflows() -> dict[str, str]:
    """Every workflow a team is given, by where it is shown."""
    workflows = {}
    for page in [REPO / "README.md", *sorted((REPO / "docs").glob("*.md"))]:
        for number, block in enumerate(YAML_BLOCK.findall(page.read_text())):
            if "\njobs:" in block:
                workflows[f"{page.relative_to(REPO)} block {number}"] = block
    workflows["granularity init"] = workflow_for("origin/main", "")
    return workflows


def installs(workflow: str) -> list[str]:
    """The requirements of every ``pip install`` in a workflow's steps."""
    found = []
    for line in workflow.splitlines():
        if "pip install" in line:
            command = shlex.split(line.split("run:", 1)[-1], comments=True)
            found += [a for a in command[command.index("install") + 1 :] if not a.startswith("-")]
    return found


def test_every_workflow_a_team_is_given_names_this_version_as_the_one_place_says():
    workflows = copy_paste_workflows()
    assert {"docs/gate.md block 0", "granularity init"} <= set(workflows) and len(workflows) >= 3, sorted(workflows)
    for where, workflow in workflows.items():
        named = installs(workflow)
        assert named, f"{where}: installs nothing"
        for spec in named:
            assert spec == requirement(sorted(Requirement(spec).extras)), f"{where}: {spec}"


def test_the_source_address_is_pyprojects_one():
    """Written once, in ``[project.urls]``: the install line of every workflow and error message names it."""
    declared = tomllib.loads((REPO / "pyproject.toml").read_text())["project"]["urls"]["Source"]
    assert source() == declared
    assert requirement(["parallel"]) == f"{NAME}[parallel] @ git+{declared}@v{__version__}"


def build_wheel(folder: Path) -> Path:
    """The wheel of this checkout, built offline from a copy (the build backend is in the test extra)."""
    source = folder / "source"
    shutil.copytree(
        REPO / "pytest_granularity", source / "pytest_granularity", ignore=shutil.ignore_patterns("__pycache__")
    )
    for name in ("pyproject.toml", "README.md"):
        shutil.copy(REPO / name, source / name)
    subprocess.run(
        [sys.executable, "-m", "build", "--wheel", "--no-isolation", "--outdir", str(folder / "dist"), str(source)],
        check=True,
        capture_output=True,
        timeout=300,
    )
    (wheel,) = (folder / "dist").glob("*.whl")
    return wheel


def pip(venv: Path, *arguments: str) -> str:
    """pip of this interpreter on ``venv``, which sees only its own packages (no PYTHONPATH of a checkout)."""
    result = subprocess.run(
        [sys.executable, "-m", "pip", "--python", str(venv / "bin" / "python"), *arguments],
        capture_output=True,
        text=True,
        timeout=300,
        env={k: v for k, v in os.environ.items() if k != "PYTHONPATH"},
    )
    assert result.returncode == 0, result.stdout + result.stderr
    return result.stdout + result.stderr


def test_what_each_workflow_installs_installs_from_the_built_wheel_offline(tmp_path):
    """Run once, over every distinct requirement (building the wheel is most of its cost)."""
    specs = sorted({spec for workflow in copy_paste_workflows().values() for spec in installs(workflow)})
    wheel = build_wheel(tmp_path)
    assert wheel.name.startswith(f"pytest_granularity-{__version__}-")
    for number, spec in enumerate(specs):
        extras = sorted(Requirement(spec).extras)
        pinned = f"{NAME}[{','.join(extras)}]=={__version__}"
        venv = tmp_path / f"venv{number}"
        subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True, timeout=120)
        offline = ("install", "--no-index", "--find-links", str(wheel.parent))
        pip(venv, *offline, "--no-deps", pinned)
        # The dependencies in view: this environment's packages, after the venv's own (the wheel comes first).
        (site,) = (venv / "lib").glob("python*/site-packages")
        (site / "dependencies.pth").write_text(sysconfig.get_paths()["purelib"] + "\n")
        resolved = pip(venv, *offline, pinned)
        assert "does not provide the extra" not in resolved, f"{spec}: {resolved}"
        shown = subprocess.run(
            [str(venv / "bin" / "granularity"), "--version"], capture_output=True, text=True, timeout=120, env={}
        )
        assert shown.stdout == f"granularity {__version__}\n", f"{spec}: {shown.stdout}{shown.stderr}"
        where = subprocess.run(
            [str(venv / "bin" / "python"), "-c", "import pytest_granularity; print(pytest_granularity.__file__)"],
            capture_output=True,
            text=True,
            env={},
            cwd=tmp_path,  # not the checkout, whose package python -c would import first
            timeout=60,
        ).stdout
        assert Path(where.strip()).is_relative_to(site), f"{spec}: imported from {where}"
    # Installed from the wheel, the address is read from its metadata, which pyproject.toml wrote.
    named = subprocess.run(
        [
            str(venv / "bin" / "python"),
            "-c",
            "from pytest_granularity.core.distribution import source; print(source())",
        ],
        capture_output=True,
        text=True,
        env={},
        cwd=tmp_path,
        timeout=60,
    )
    assert named.stdout == f"{source()}\n", named.stderr
    # The check can fail: an extra the wheel lacks is named, and a version it is not is not found.
    assert "does not provide the extra 'paralel'" in pip(venv, *offline, f"{NAME}[paralel]=={__version__}")
    with pytest.raises(AssertionError, match="No matching distribution"):
        pip(venv, *offline, f"{NAME}=={__version__}.post1")
