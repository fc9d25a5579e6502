from __future__ import annotations

from pathlib import Path

import pytest
import yaml
from conftest import REPO

from pytest_granularity.core.schemas import load_yaml
from pytest_granularity.core.tasks import TaskError, find_task_files, load_task


def write(folder: Path, text: str) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "task.yaml").write_text(text)
    return folder / "task.yaml"


VALID = """\
id: {id}
family: simple
prompt: Fix it.
fixture: ../../minipkg
setup: setup/
solution:
  overlay: solution/
verifier:
  tests: verifier/
"""


def test_valid_task_resolves_every_path(fix_add, data_copy):
    assert fix_add.id == "fix-add"
    assert fix_add.family == "simple"
    assert fix_add.fixture == (data_copy / "minipkg").resolve()
    assert fix_add.setup.name == "setup"
    assert fix_add.verifier_timeout == 30
    assert fix_add.faults == ("early", "late")
    assert fix_add.macro.skill == "replace_and_verify" and fix_add.macro.args["files"] == ["calc/ops.py"]


def test_bare_fixture_name_is_looked_up_under_fixtures(tmp_path):
    (tmp_path / "fixtures" / "proj").mkdir(parents=True)
    folder = tmp_path / "bench" / "t1"
    (folder / "verifier").mkdir(parents=True)
    (folder / "solution").mkdir()
    write(folder, VALID.format(id="t1").replace("../../minipkg", "proj").replace("setup: setup/\n", ""))
    assert load_task(folder).fixture == (tmp_path / "fixtures" / "proj").resolve()


@pytest.mark.parametrize(
    ("change", "field", "words"),
    [
        (lambda t: t.replace("family: simple", "family: hard"), "family", "hard"),
        (lambda t: t.replace("prompt: Fix it.\n", ""), "<root>", "'prompt' is a required property"),
        (lambda t: t.replace("  tests: verifier/", "  tests: 3"), "verifier.tests", "not of type 'string'"),
        (lambda t: t + "colour: red\n", "<root>", "colour"),
        (lambda t: t + "faults: [sometimes]\n", "faults.0", "sometimes"),
        (lambda t: t.replace("id: t1", "id: other"), "id", "must equal the folder name"),
        (lambda t: t.replace("../../minipkg", "../nowhere"), "fixture", "does not exist"),
        (lambda t: t.replace("../../minipkg", "nosuchfixture"), "fixture", "no folder 'fixtures/nosuchfixture'"),
        (lambda t: t.replace("setup: setup/", "setup: missing/"), "setup", "does not exist"),
        (
            lambda t: t.replace("  overlay: solution/", "  overlay: solution/\n  delete: [../x.py]"),
            "solution.delete",
            "inside the workspace",
        ),
        (lambda t: t + "macro: {skill: move_module}\n", "macro", "'args' is a required property"),
        (lambda t: t + "  suite: tests\n", "verifier.suite", "not of type 'array'"),
        (lambda t: t + "  suite: []\n", "verifier.suite", "should be non-empty"),
        (lambda t: t + "  suite: [tests, ../elsewhere]\n", "verifier.suite", "inside the workspace"),
        (lambda t: t + "  suite: [--rootdir=/]\n", "verifier.suite", "pytest would read it as an option"),
        (lambda t: t + "  suite: ['@args.txt']\n", "verifier.suite", "pytest would read it as an option"),
        (lambda t: "id: [unclosed\n", "<file>", "not valid YAML at line"),
        (lambda t: "- a list\n", "<file>", "must be a mapping"),
    ],
)
def test_bad_task_file_names_file_and_field(data_copy, change, field, words):
    folder = data_copy / "tasks" / "t1"
    for sub in ("setup", "solution", "verifier"):
        (folder / sub).mkdir(parents=True)
    path = write(folder, change(VALID.format(id="t1")))
    with pytest.raises(TaskError) as info:
        load_task(path)
    assert info.value.path == path.resolve()
    assert info.value.field == field
    assert str(info.value).startswith(f"{path.resolve()}: field '{field}': ")
    assert words in str(info.value)


def test_the_project_suite_is_an_optional_list_of_test_paths(data_copy):
    folder = data_copy / "tasks" / "t1"
    for sub in ("setup", "solution", "verifier"):
        (folder / sub).mkdir(parents=True)
    assert load_task(write(folder, VALID.format(id="t1"))).verifier_suite == ()
    path = write(folder, VALID.format(id="t1") + "  suite: [tests, ./calc/ops.py]\n")
    assert load_task(path).verifier_suite == ("tests", "calc/ops.py")


def test_find_task_files_is_sorted_and_deduplicated(data_copy):
    tasks = data_copy / "tasks"
    found = find_task_files([tasks, tasks / "fix-add" / "task.yaml"])
    assert found == [(tasks / "fix-add" / "task.yaml").resolve()]


def test_every_task_file_reads_as_the_pure_python_loader_reads_it():
    texts = [path.read_text() for path in sorted(REPO.glob("benchmark_tasks/*/task.yaml"))]
    assert len(texts) == 80
    assert all(load_yaml(text) == yaml.safe_load(text) for text in texts)


class _StaleParserError(Exception):
    """What libyaml raises once ``yaml`` was imported again: the first import's class, not a ``yaml.YAMLError``."""


@pytest.mark.parametrize("refusal", [yaml.YAMLError, _StaleParserError], ids=["yaml-error", "stale-class"])
def test_what_libyaml_refuses_is_read_again_by_the_pure_python_loader(monkeypatch, refusal):
    class Refusing(yaml.SafeLoader):
        def get_single_data(self):
            raise refusal("refused")

    monkeypatch.setattr(yaml, "CSafeLoader", Refusing, raising=False)
    assert load_yaml("id: fix-add\n") == {"id": "fix-add"}
    with pytest.raises(yaml.MarkedYAMLError) as refused:
        load_yaml("id: [unclosed\n")
    assert refused.value.problem_mark.line == 1
