"""The release workflow builds as CI does and publishes by trusted publishing; it is not run here, so it is read.

zizmor checks it with the other workflows (tests/test_workflows_zizmor.py); this holds what zizmor does not know:
that its build is the one ``.ci/run`` runs, that the tag must name pyproject's version, and that only the publish
job can mint the token PyPI trusts.
"""

from __future__ import annotations

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
