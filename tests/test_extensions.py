"""Registration hooks seen through ``extensions``: agents, policies and the run-record hook, and the public API."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys

import pytest
from conftest import DATA, REPO

import pytest_granularity


@pytest.fixture
def project(pytester: pytest.Pytester):
    shutil.copytree(DATA, pytester.path, dirs_exist_ok=True)
    shutil.copy(REPO / "router.json", pytester.path / "router.json")
    return pytester


def test_an_agent_name_registered_twice_is_a_usage_error_naming_both(project):
    project.makeconftest(
        """
        from pytest_granularity.agents.reference import ReferenceAgent

        def pytest_granularity_agents(config):
            return {"reference": ReferenceAgent}
        """
    )
    result = project.runpytest("tasks", "--granularity=micro")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*agent 'reference' is registered by both pytest-granularity and *conftest.py"])


def test_a_registered_policy_is_selectable_and_every_record_reaches_the_run_hook(project):
    project.makeconftest(
        """
        import dataclasses, json
        from pytest_granularity import MICRO, Policy

        def pytest_granularity_policies(config, macros):
            return [Policy("plain", lambda task, workspace: MICRO, lambda event: False, uses_macros=False)]

        def pytest_granularity_run_finished(config, result):
            with open(config.rootpath / "finished.jsonl", "a") as out:
                out.write(json.dumps([result.task, result.policy, result.outcome]) + "\\n")
        """
    )
    result = project.runpytest("tasks", "--granularity=plain,micro")
    result.assert_outcomes(passed=2)
    finished = [json.loads(line) for line in (project.path / "finished.jsonl").read_text().splitlines()]
    assert sorted(finished) == [["fix-add", "micro", "passed"], ["fix-add", "plain", "passed"]]


def test_a_registered_policy_may_not_take_a_built_in_name(project):
    project.makeconftest(
        """
        from pytest_granularity.run.policies import FIXED_POLICIES

        def pytest_granularity_policies(config, macros):
            return [FIXED_POLICIES["hybrid"]]
        """
    )
    result = project.runpytest("tasks", "--granularity=micro")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*policy 'hybrid' is registered by both pytest-granularity and *conftest.py"])


def test_the_public_api_resolves_every_name_without_loading_model_clients():
    for name in pytest_granularity.__all__:
        assert getattr(pytest_granularity, name) is not None, name
    code = "import sys, pytest_granularity; print(sorted(m for m in ('openai', 'sklearn', 'yaml') if m in sys.modules))"
    assert subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout == "[]\n"


def test_the_granularity_command_sees_the_macros_a_pytest_run_sees(pytester):
    """The ini key and a conftest (registering a macro folder and an agent): both commands list both macros."""
    for name in ("from-ini", "from-conftest"):
        macro = pytester.path / name / name
        shutil.copytree(REPO / "examples/macros/rename-constant", macro)
        contract = macro / "contract.yaml"
        contract.write_text(contract.read_text().replace("name: rename_constant", f"name: {name.replace('-', '_')}"))
        skill = macro / "SKILL.md"
        skill.write_text(skill.read_text().replace("name: rename-constant", f"name: {name}"))
    pytester.makeini("[pytest]\ngranularity_macros = from-ini\n")
    pytester.makeconftest(
        """
        from pathlib import Path
        from pytest_granularity.agents.reference import ReferenceAgent

        def pytest_granularity_macro_folders(config):
            return [Path(__file__).parent / "from-conftest"]

        def pytest_granularity_agents(config):
            return {"mine": ReferenceAgent}
        """
    )
    result = pytester.run(sys.executable, "-m", "pytest_granularity.cli", "macros")
    assert result.ret == 0, result.stderr.str()
    listed = [line.split()[0] for line in result.outlines[2:]]
    assert listed == ["from_conftest", "from_ini", "move_module", "replace_and_verify", "summarize_module"]
    exported = pytester.run(sys.executable, "-m", "pytest_granularity.cli", "export-mcp")
    assert {t["name"] for t in json.loads(exported.stdout.str())["tools"]} >= {"from_conftest", "from_ini"}
