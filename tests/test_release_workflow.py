"""The release workflow builds as CI does and publishes by trusted publishing; it is not run here, so it is read.

zizmor checks it with the other workflows (tests/test_workflows_zizmor.py); this holds what zizmor does not know:
that its build is the one ``.ci/run`` runs, that the tag must name pyproject's version, and that only the publish
job can mint the token PyPI trusts.
"""

from __future__ import annotations

import os
import shutil
import subprocess

import pytest
import yaml
from conftest import REPO

BUILD = "sh scripts/release_build.sh"


def workflow() -> dict:
    return yaml.safe_load((REPO / ".github" / "workflows" / "release.yml").read_text())


def runs(job: dict) -> str:
    return "\n".join(step.get("run", "") for step in job["steps"])


def test_the_release_builds_as_ci_does_on_a_version_tag():
    document = workflow()
    assert document[True] == {"push": {"tags": ["v*"]}}  # PyYAML reads the key 'on' as True
    build = document["jobs"]["build"]
    assert BUILD in runs(build) and BUILD in (REPO / ".ci" / "run").read_text()
    assert 'test "$GITHUB_REF_NAME" = "v$version"' in runs(build)
    assert "python -m build" in (REPO / "scripts" / "release_build.sh").read_text()


def test_only_the_publish_job_mints_the_token_and_it_attests():
    document = workflow()
    assert document["permissions"] == {}
    assert document["jobs"]["build"]["permissions"] == {"contents": "read"}
    publish = document["jobs"]["publish"]
    assert publish["permissions"] == {"id-token": "write"} and publish["needs"] == "build"
    (upload,) = [s for s in publish["steps"] if s.get("uses", "").startswith("pypa/gh-action-pypi-publish@")]
    assert upload["with"] == {"attestations": True}
    assert "password" not in str(publish)


FAKE_PYTHON = """#!/bin/sh
case "$*" in
  "-m build") seq 1000 | sed 's/^/copying file /'; echo "Successfully built x.tar.gz and x.whl"; exit "$BUILD_EXIT";;
  *) echo "ran: $*";;
esac
"""


@pytest.mark.parametrize("fails", [False, True], ids=["builds", "fails"])
def test_the_release_build_prints_setuptools_file_list_only_when_it_fails(tmp_path, fails):
    """A CI log of 1,000 ``copying`` lines hides what matters; a failed build's log is all shown."""
    (tmp_path / "scripts").mkdir()
    shutil.copy(REPO / "scripts" / "release_build.sh", tmp_path / "scripts")
    (tmp_path / "bin").mkdir()
    (tmp_path / "bin" / "python").write_text(FAKE_PYTHON)
    (tmp_path / "bin" / "python").chmod(0o755)
    env = {**os.environ, "PATH": f"{tmp_path / 'bin'}:{os.environ['PATH']}", "BUILD_EXIT": str(int(fails) * 3)}
    result = subprocess.run(["sh", "scripts/release_build.sh"], cwd=tmp_path, env=env, capture_output=True, text=True)
    if fails:
        assert result.returncode == 3
        assert "copying file 1000" in result.stdout and "python -m build failed (exit 3)" in result.stderr
        assert "twine" not in result.stdout
    else:
        assert result.returncode == 0, result.stderr
        assert result.stdout.splitlines() == [
            "Successfully built x.tar.gz and x.whl",
            "ran: -m twine check --strict dist/*",
            "ran: scripts/wheel_smoke.py --dist dist",
        ]
