"""The workflows teams copy pass zizmor (GitHub Actions static analysis), offline.

Both this repository's own workflows and the copy-paste workflow of docs/gate.md, extracted
from the page as printed: an action not pinned to a commit hash, a token persisted into an
uploaded artifact, broad permissions or a template expanded into a shell script is a finding,
and any finding fails, unless the workflow explains and suppresses it inline
(``# zizmor: ignore[audit]``). zizmor comes from the ``test`` extra (``.ci/run`` installs it).
"""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import REPO

ZIZMOR = shutil.which("zizmor") or shutil.which("zizmor", path=str(Path(sys.executable).parent))
pytestmark = pytest.mark.skipif(ZIZMOR is None, reason="zizmor is not installed (pip install -e '.[test]')")
WORKFLOW_BLOCK = re.compile(r"```yaml\n(name: granularity\n.*?)```", re.S)


def zizmor(path: Path) -> subprocess.CompletedProcess[str]:
    assert ZIZMOR is not None
    return subprocess.run(
        [ZIZMOR, "--offline", "--no-progress", "--format", "plain", str(path)],
        capture_output=True,
        text=True,
        timeout=120,
    )


def gate_workflow() -> str:
    (block,) = WORKFLOW_BLOCK.findall((REPO / "docs" / "gate.md").read_text())
    return block


@pytest.mark.parametrize(
    "folder", [REPO / ".github" / "workflows", None], ids=["repository-workflows", "docs-gate-workflow"]
)
def test_no_finding_that_is_not_explained_and_suppressed(folder, tmp_path):
    if folder is None:
        folder = tmp_path / ".github" / "workflows"
        folder.mkdir(parents=True)
        (folder / "granularity.yml").write_text(gate_workflow())
    result = zizmor(folder)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "No findings to report" in result.stdout + result.stderr


def test_zizmor_does_find_what_the_workflows_avoid(tmp_path):
    """The check can fail: the docs' workflow with its tag instead of the hash, and a persisted token, is refused."""
    folder = tmp_path / ".github" / "workflows"
    folder.mkdir(parents=True)
    text = re.sub(r"actions/checkout@[0-9a-f]{40}  # v\S+", "actions/checkout@v4", gate_workflow())
    (folder / "granularity.yml").write_text(text.replace("          persist-credentials: false\n", ""))
    result = zizmor(folder)
    assert result.returncode != 0
    assert "unpinned-uses" in result.stdout and "artipacked" in result.stdout


def test_every_action_is_pinned_to_a_full_commit_hash_with_its_tag_beside_it():
    texts = [p.read_text() for p in sorted((REPO / ".github" / "workflows").glob("*.yml"))] + [gate_workflow()]
    uses = [line.strip() for text in texts for line in text.splitlines() if "uses:" in line]
    assert uses and all(re.search(r"uses: [\w.-]+/[\w.-]+@[0-9a-f]{40}  # v\d+\.\d+\.\d+$", u) for u in uses), uses
