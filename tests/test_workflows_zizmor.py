"""The workflows teams copy pass zizmor (GitHub Actions static analysis), offline.

Both this repository's own workflows and the copy-paste workflows of docs/gate.md and
docs/mining.md, extracted from the pages as printed: an action not pinned to a commit hash, a token persisted into an
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
DOCS_WORKFLOWS = {"docs-gate-workflow": ("gate.md", "granularity"), "docs-mining-workflow": ("mining.md", "mine-tasks")}
"""Each workflow a page prints to copy: its page, and the name it starts with."""


def zizmor(path: Path) -> subprocess.CompletedProcess[str]:
    assert ZIZMOR is not None
    return subprocess.run(
        [ZIZMOR, "--offline", "--no-progress", "--format", "plain", str(path)],
        capture_output=True,
        text=True,
        timeout=120,
    )


def docs_workflow(page: str, name: str) -> str:
    (block,) = re.findall(rf"```yaml\n(name: {name}\n.*?)```", (REPO / "docs" / page).read_text(), re.S)
    return block


def gate_workflow() -> str:
    return docs_workflow(*DOCS_WORKFLOWS["docs-gate-workflow"])


@pytest.mark.parametrize("shown", [None, *DOCS_WORKFLOWS], ids=["repository-workflows", *DOCS_WORKFLOWS])
def test_no_finding_that_is_not_explained_and_suppressed(shown, tmp_path):
    folder = REPO / ".github" / "workflows"
    if shown is not None:
        folder = tmp_path / ".github" / "workflows"
        folder.mkdir(parents=True)
        (folder / "granularity.yml").write_text(docs_workflow(*DOCS_WORKFLOWS[shown]))
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
    texts = [p.read_text() for p in sorted((REPO / ".github" / "workflows").glob("*.yml"))]
    texts += [docs_workflow(*shown) for shown in DOCS_WORKFLOWS.values()]
    uses = [line.strip() for text in texts for line in text.splitlines() if "uses:" in line]
    assert uses and all(re.search(r"uses: [\w.-]+/[\w.-]+@[0-9a-f]{40}  # v\d+\.\d+\.\d+$", u) for u in uses), uses
