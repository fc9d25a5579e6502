"""A shape written as a macro folder in the registry's own format, its sources as its examples.

The folder is what a person would write after docs/writing-a-macro.md: ``contract.yaml`` (the seven
parts, the parameters' JSON Schema, the derivation, the examples and where the macro came from),
``SKILL.md`` (its Agent Skill face), ``runtime.py`` (five names bound to the shared engine) and
``shape.json`` (the pattern). Each source task is an example, with its own fixture (the files before
the edit), solution and verifier, and the call that reproduces it; ``check-contracts`` replays them.
"""

from __future__ import annotations

import hashlib
import json
import re
import shutil
from collections import Counter
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import yaml

from ..core.schemas import read_yaml_mapping
from ..core.tasks import TASK_FILE, dump_task
from ..core.workspace import write_tree
from ..macros.contract import CONTRACT_FILE, SKILL_FILE
from ..macros.in_turn import made_in_turn
from .edits import Edit
from .insertions import REPLACE, container_kind, where_of
from .macro import mined_macro
from .shape import INSERTED, Shape

OWNER = "granularity macros mine"
BREAKS_VALIDATION = "breaks-validation"
ABSENT = "__granularity_absent__"
"""A value no source has: with it the pattern matches nowhere, so the call must be refused (the precondition
check's example)."""
RUNTIME = '''"""A mined macro: its pattern is shape.json beside this file, its code the shared engine (see SKILL.md)."""

from pathlib import Path

from pytest_granularity.evolution.macro import mined_macro

_MACRO = mined_macro(Path(__file__).resolve().parent)
preconditions = _MACRO.preconditions
run = _MACRO.run
validate = _MACRO.validate
derive_arguments = _MACRO.derive
pieces = _MACRO.pieces
'''
FAILING_CONFTEST = '''"""Every test fails: this example shows the validation runs the tests and refuses a red run."""

import pytest


@pytest.fixture(autouse=True)
def _granularity_validation_probe():
    pytest.fail("every test fails in the example that breaks the validation")
'''
_WORD = re.compile(r"[a-z][a-z_]{3,}")
_COMMON = frozenset(
    ["that", "this", "with", "from", "when", "must", "into", "have", "should", "they", "their", "there", "which"]
)


def macro_name(shape: Shape) -> str:
    """``mined_<kind of the unit>_<digest of the shape>``: the same shape always gets the same name. An item
    edit's kind is what it does and where (``after_dict``, ``replace_parameters``)."""
    digest = hashlib.sha1(json.dumps([shape.before, shape.template], sort_keys=True).encode()).hexdigest()[:6]
    label = str(shape.pattern.label).split(":")[0]
    if shape.kind == INSERTED:
        label = f"{where_of(shape.pattern)}_{container_kind(shape.pattern)}"
    kind = re.sub(r"(?<![_^])(?=[A-Z])", "_", label).lstrip("_").lower()
    return f"mined_{kind}_{digest}"


def write_macro(folder: Path, shape: Shape, edits: Sequence[Edit], calls: Sequence[Sequence[dict[str, Any]]]) -> str:
    """Write the macro folder (replacing one of that name); ``calls[i]``, made in turn, reproduce ``edits[i]``.
    Its name.

    An example is one call: a task of several sites is shown at its last, its fixture the files with the
    other calls made."""
    name = macro_name(shape)
    if folder.exists():
        shutil.rmtree(folder)
    folder.mkdir(parents=True)
    shape.write(folder)
    (folder / "runtime.py").write_text(RUNTIME, encoding="utf-8")
    write_tree(folder / BREAKS_VALIDATION, {"conftest.py": FAILING_CONFTEST.encode()})
    engine = mined_macro(folder)
    examples: list[dict[str, Any]] = []
    for edit, made in zip(edits, calls, strict=True):
        fixture, _ = made_in_turn(engine, edit.source.before, made[:-1])
        write_example(folder / "examples" / edit.source.task.id, edit, name, made[-1], fixture)
        examples.append({"task": f"examples/{edit.source.task.id}"})
    examples[0]["breaks_precondition"] = {"args": _absent(shape)}
    examples[0]["breaks_validation"] = {"setup": BREAKS_VALIDATION}
    contract = _contract(name, shape, edits, examples)
    (folder / CONTRACT_FILE).write_text(yaml.safe_dump(contract, sort_keys=False, width=100), encoding="utf-8")
    (folder / SKILL_FILE).write_text(_skill(name, shape, edits), encoding="utf-8")
    return name


def _absent(shape: Shape) -> dict[str, Any]:
    pinned = next((h.name for h in shape.holes if h.before), None)
    return {pinned: ABSENT} if pinned else {"files": [f"{ABSENT}.py"]}


def _contract(name: str, shape: Shape, edits: Sequence[Edit], examples: list[dict[str, Any]]) -> dict[str, Any]:
    before = shape.describe("before")
    holes = {
        h.name: {
            "type": "string",
            "minLength": 1,
            "description": f"Python code for {{{h.name}}} ({'found' if h.before else 'written'}); "
            f"in its sources: {', '.join(f'`{e}`' for e in h.examples[:4])}",
        }
        for h in shape.holes
    }
    return {
        "name": name,
        "version": "1.0.0",
        "owner": OWNER,
        "description": f"{_action(shape)} in the named files, then re-verify: the files parse and the tests pass.",
        "trigger_hint": f"Use when the request asks for this edit, with the values it gives ({len(edits)} tasks "
        f"were solved by it{', in part' if any(e.partial for e in edits) else ''}). "
        f"Do not use for a change of another shape{_unlike(shape)}.",
        "timeout_seconds": 120,
        "fallback_skill": None,
        "pinned": False,
        "probation": True,
        "keywords": keywords_of(edits),
        "parameters": {
            "type": "object",
            "additionalProperties": False,
            "required": ["files", *holes],
            "properties": {
                "files": {
                    "type": "array",
                    "minItems": 1,
                    "uniqueItems": True,
                    "items": {"type": "string", "minLength": 1},
                    "description": "Python files to change, relative to the workspace root.",
                },
                **holes,
                "tests": {
                    "type": "array",
                    "items": {"type": "string"},
                    "description": "Tests to run as validation (default: the tests the sources ran).",
                },
            },
        },
        "preconditions": {
            "check": "runtime:preconditions",
            "conditions": [
                "every file exists inside the workspace and parses",
                "every value is a Python expression",
                f"`{before}`, with the values given, occurs exactly once in every file (layout aside)",
                "the items are not there already" if shape.kind == INSERTED else "the rewrite changes something",
            ],
        },
        "side_effects": {"modify": ["{files}"]},
        "validation": {
            "check": "runtime:validate",
            "description": "every rewritten file parses and the tests pass (those named, with every test file "
            "that imports a rewritten module)",
        },
        "failure_classes": [
            "precondition_mismatch",
            "partial_side_effect",
            "validation_failure",
            "protocol_failure",
            "executor_exception",
        ],
        "fallback": {
            "tools": ["show_diff", "search", "read_file", "edit_file", "run_tests"],
            "steps": "Look at the diff; read the rewritten files; edit what the rewrite got wrong; run the tests.",
        },
        "run": "runtime:run",
        "applicability": {
            "derive": "runtime:derive_arguments",
            "description": "a place in the files where the pattern matches, and values the prompt quotes",
        },
        "pieces": {
            "find": "runtime:pieces",
            "description": "each place where the change from the files before to the files after is this edit",
        },
        "examples": examples,
        "provenance": [provenance_of(e) for e in edits],
    }


def _action(shape: Shape) -> str:
    before, after = (" ".join(shape.describe(side).split()) for side in ("before", "after"))
    where = where_of(shape.pattern) if shape.kind == INSERTED else None
    if where == REPLACE:
        return f"Rewrite the item `{before}` as `{after}`"
    if where is not None:
        return f"Add `{after}` {where} `{before}`"
    return f"Rewrite `{before}` as `{after}` wherever it occurs"


def _unlike(shape: Shape) -> str:
    return ", or one that changes what is there" if shape.kind == INSERTED else ", or one that adds or removes code"


def _indented(code: str) -> str:
    return code.replace("\n", "\n    ")


def provenance_of(edit: Edit) -> dict[str, str]:
    task = edit.source.task
    found = {"task": task.id, "source": edit.source.origin}
    if task.provenance:
        found.update({k: v for k, v in task.provenance.items() if k in ("repository", "commit")})
    return found


def keywords_of(edits: Sequence[Edit]) -> list[str]:
    """Words at least two source prompts share (the most shared first), for retrieval."""
    counts = Counter(w for e in edits for w in set(_WORD.findall(e.source.task.prompt.lower())) - _COMMON)
    return [w for w, n in sorted(counts.items(), key=lambda kv: (-kv[1], kv[0])) if n > 1][:10]


def _skill(name: str, shape: Shape, edits: Sequence[Edit]) -> str:
    front = {
        "name": name.replace("_", "-"),
        "description": f"{_action(shape)} in the named files, then check they parse and the tests pass. "
        f"Mined from the edits of {len(edits)} tasks.",
        "metadata": {"owner": OWNER, "version": "1.0.0"},
    }
    sources = "\n".join(f"- {e.source.task.id}: {e.source.origin}" for e in edits)
    holes = "\n".join(
        f"- `{h.name}`: {'what to find' if h.before else 'what to write'} (e.g. `{h.examples[0]}`)" for h in shape.holes
    )
    return (
        f"---\n{yaml.safe_dump(front, sort_keys=False, width=1000)}---\n# {front['name']}\n\n"
        f"Finds the one place in each of `files` that reads\n\n    {shape.describe('before')}\n\n(layout aside) "
        f"with the values given, and writes\n\n    {_indented(shape.describe('after'))}\n\n"
        f"{'beside it' if shape.kind == INSERTED else 'there'}. Parameters:\n\n{holes}\n\n"
        "It refuses, writing nothing, when a file lacks the pattern or holds it more than once. Afterwards the "
        "files must parse and the tests pass; when they do not, the edit is written: `show_diff` shows it, "
        "finish with `read_file`, `edit_file` and `run_tests`.\n\n"
        f"Mined by `granularity macros mine` from:\n\n{sources}\n"
    )


def write_example(folder: Path, edit: Edit, name: str, call: dict[str, Any], fixture: dict[str, bytes]) -> None:
    task, source = edit.source.task, edit.source
    raw = read_yaml_mapping(task.path)
    write_tree(folder / "fixture", fixture)
    write_tree(folder / "solution", {p: d for p, d in source.after.items() if fixture.get(p) != d})
    verifier = dict(raw["verifier"])
    if task.verifier_tests.is_dir():
        shutil.copytree(task.verifier_tests, folder / "verifier")
        verifier["tests"] = "verifier/"
    else:
        (folder / "verifier").mkdir()
        shutil.copy2(task.verifier_tests, folder / "verifier" / task.verifier_tests.name)
        verifier["tests"] = f"verifier/{task.verifier_tests.name}"
    removed = sorted(set(fixture) - set(source.after))
    data: dict[str, Any] = {
        "id": task.id,
        "family": task.family,
        "prompt": task.prompt,
        "fixture": "./fixture",
        "solution": {"overlay": "solution/", **({"delete": removed} if removed else {})},
        "verifier": verifier,
    }
    data.update({key: raw[key] for key in ("tests", "max_steps", "provenance", "pytest") if key in raw})
    data["macro"] = {"skill": name, "args": call}
    dump_task(folder / TASK_FILE, data)
