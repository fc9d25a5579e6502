"""Contract compliance: does a macro keep the contract it declares?

Each check is one function and one test item, so a failure reads as a normal test failure that
names the macro, the check and the evidence. Static checks read the macro's files; dynamic
checks run the macro on the examples its contract declares (a task folder, with optional ways to
break a precondition and the validation), in the session's sandbox: with one, a write outside
the workspace fails and is evidence; without one, only writes next to the workspace are seen. A
macro that does not load, or whose replay fails, has its later dynamic checks skipped with a
pointer to the check that failed, so every defect is reported by exactly one check. The pytest
side (one item per macro and check) is ``contract_session``.
"""

from __future__ import annotations

import dataclasses
import functools
import re
import shutil
import subprocess
import sys
import tempfile
import time
import uuid
from collections import Counter
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..core.errors import GranularityError
from ..core.failures import FAILURE_CLASSES, FAULTS, FailureClass, Fault, InjectedFault
from ..core.modes import PolicyName
from ..core.run_folders import track_folder, untrack_folder
from ..core.schemas import DefinitionError, packaged_schema, read_yaml_mapping
from ..core.tasks import MacroCall, Task, TaskError, load_task
from ..core.tools import MICRO_TOOLS
from ..core.workspace import Workspace, compare, overlay
from ..macros import Macro, MacroContext, MacroOutcome, MacroRegistry, invoke, load_macro
from ..macros.contract import CONTRACT_FILE, SKILL_FILE, read_skill_front_matter, resolve_callable
from ..macros.registry import cycle_message, dependency_cycle
from ..process.sandbox import NO_SANDBOX, Sandbox
from ..verifier.verify import verify

SKILL_KEYS = frozenset({"name", "description", "license", "compatibility", "metadata", "allowed-tools"})
SKILL_NAME = re.compile(r"^[a-z0-9]+(?:-[a-z0-9]+)*$")
OWNED_ELSEWHERE = (
    "parameters",
    "failure_classes",
    "fallback",
    "preconditions.check",
    "validation.check",
    "run",
    "examples",
)
TIMEOUT_PROBE_SECONDS = 0.5
STALL_MARKER = ".granularity-stalled"


class CheckFailed(GranularityError):
    """The macro breaks its contract; the message is the evidence."""


class CheckSkipped(GranularityError):
    """The check cannot run because an earlier check failed; the message names it."""


@dataclass(frozen=True)
class Subject:
    """One macro under check, every macro name collected beside it, and the sandbox its runs use."""

    folder: Path
    names: Counter[str]
    sandbox: Sandbox = NO_SANDBOX
    folders: Mapping[str, Path] = dataclasses.field(default_factory=dict)
    """Every macro collected, by name: what this one depends on or falls back to is looked up here."""


def _require(condition: bool, evidence: str) -> None:
    if not condition:
        raise CheckFailed(evidence)


def check_contract(s: Subject) -> None:
    from jsonschema import Draft202012Validator

    data = _contract(s.folder)
    errors = [
        e
        for e in Draft202012Validator(packaged_schema("contract.schema.json")).iter_errors(data)
        if not _owned_elsewhere(e.absolute_path, e.validator, e.message)
    ]
    _require(
        not errors,
        "\n".join(
            f"{CONTRACT_FILE}: field '{'.'.join(map(str, e.absolute_path)) or '<root>'}': {e.message}" for e in errors
        ),
    )


def _owned_elsewhere(path: Any, validator: str, message: str) -> bool:
    dotted = ".".join(map(str, path))
    if validator == "required":
        return any(f"'{field}'" in message for field in ("fallback", "parameters", "failure_classes", "run"))
    return any(dotted == p or dotted.startswith(p + ".") for p in OWNED_ELSEWHERE)


def check_parameters(s: Subject) -> None:
    from jsonschema import Draft202012Validator
    from jsonschema.exceptions import SchemaError

    schema = _contract(s.folder).get("parameters")
    if not isinstance(schema, dict):
        raise CheckFailed(f"{CONTRACT_FILE}: field 'parameters' must be a JSON Schema mapping")
    try:
        Draft202012Validator.check_schema(schema)
    except SchemaError as exc:
        raise CheckFailed(
            f"{CONTRACT_FILE}: field 'parameters.{'.'.join(map(str, exc.absolute_path))}': "
            f"not a valid JSON Schema: {exc.message}"
        ) from None
    _require(
        schema.get("type") == "object",
        f"{CONTRACT_FILE}: field 'parameters.type': the root must be 'object', not {schema.get('type')!r}",
    )


def check_skill(s: Subject) -> None:
    try:
        front = read_skill_front_matter(s.folder / SKILL_FILE)
    except DefinitionError as exc:
        raise CheckFailed(str(exc)) from None
    name, description = front.get("name"), front.get("description")
    problems = [f"key '{k}' is not allowed in Agent Skill front matter" for k in sorted(set(front) - SKILL_KEYS)]
    if not isinstance(name, str) or not (1 <= len(name) <= 64) or not SKILL_NAME.match(name):
        problems.append(f"name {name!r} must be 1-64 characters of a-z, 0-9 and single hyphens")
    elif name != s.folder.name:
        problems.append(f"name '{name}' must equal the folder name '{s.folder.name}'")
    elif name != str(_contract(s.folder).get("name", "")).replace("_", "-"):
        problems.append(f"name '{name}' must be the contract name with '-' for '_'")
    if not isinstance(description, str) or not (1 <= len(description) <= 1024):
        problems.append("description must be 1-1024 characters")
    metadata = front.get("metadata", {})
    if not isinstance(metadata, dict) or not all(
        isinstance(k, str) and isinstance(v, str) for k, v in metadata.items()
    ):
        problems.append("metadata must map strings to strings")
    _require(not problems, f"{SKILL_FILE}: " + "; ".join(problems))


def check_failure_classes(s: Subject) -> None:
    declared = _contract(s.folder).get("failure_classes")
    if not (isinstance(declared, list) and declared):
        raise CheckFailed(f"{CONTRACT_FILE}: field 'failure_classes' must list the classes the macro can end in")
    unknown = [c for c in declared if c not in FAILURE_CLASSES]
    _require(
        not unknown,
        f"{CONTRACT_FILE}: field 'failure_classes': {unknown} are not among the five ({', '.join(FAILURE_CLASSES)})",
    )


def check_fallback(s: Subject) -> None:
    contract = _contract(s.folder)
    skill, name = contract.get("fallback_skill"), contract.get("name")
    _require(
        skill is None or (skill != name and s.names[skill] > 0),
        f"{CONTRACT_FILE}: field 'fallback_skill': '{skill}' is "
        + ("this macro: a fallback is another macro" if skill == name else "not a macro checked here"),
    )
    fallback = contract.get("fallback")
    if not (isinstance(fallback, dict) and fallback.get("tools") and fallback.get("steps")):
        raise CheckFailed(
            f"{CONTRACT_FILE}: field 'fallback': "
            "a macro must declare the micro tools and steps that finish a half-done job"
        )
    tools = fallback["tools"]
    not_micro = [t for t in tools if t not in MICRO_TOOLS]
    _require(
        not not_micro,
        f"{CONTRACT_FILE}: field 'fallback.tools': {not_micro} are not micro tools ({', '.join(MICRO_TOOLS)}); "
        "a fallback never leads back to a macro",
    )


def check_dependencies(s: Subject) -> None:
    contract = _contract(s.folder)
    needs = _names(contract.get("depends_on", []))
    if needs is None:
        raise CheckSkipped("'depends_on' is not a list of names; see its 'contract' check")
    missing = [name for name in needs if s.names[name] == 0]
    _require(not missing, f"{CONTRACT_FILE}: field 'depends_on': {missing} are not macros checked here")
    graph: dict[str, list[str]] = {str(contract.get("name")): needs}
    pending = list(needs)
    while pending:  # the macros this one reaches: a cycle among them keeps it from registering
        name = pending.pop()
        if name not in graph and name in s.folders:
            graph[name] = _names(_contract(s.folders[name]).get("depends_on", [])) or []
            pending.extend(graph[name])
    cycle = dependency_cycle(graph)
    _require(cycle is None, f"{CONTRACT_FILE}: field 'depends_on': {cycle_message(cycle or [])}")


def _names(value: Any) -> list[str] | None:
    """``depends_on`` as the schema has it (a list of names), or None: its 'contract' check fails it."""
    return value if isinstance(value, list) and all(isinstance(name, str) for name in value) else None


def check_callables(s: Subject) -> None:
    contract = _contract(s.folder)
    refs = {
        "preconditions.check": (contract.get("preconditions") or {}).get("check"),
        "validation.check": (contract.get("validation") or {}).get("check"),
        "run": contract.get("run"),
    }
    if "applicability" in contract:
        refs["applicability.derive"] = (contract.get("applicability") or {}).get("derive")
    problems = []
    for field_name, ref in refs.items():
        if not isinstance(ref, str) or ":" not in ref:
            problems.append(f"{CONTRACT_FILE}: field '{field_name}': {ref!r} is not module:function")
            continue
        try:
            resolve_callable(s.folder, s.folder / CONTRACT_FILE, field_name, ref)
        except DefinitionError as exc:
            problems.append(str(exc))
    _require(not problems, "\n".join(problems))


def check_unique_name(s: Subject) -> None:
    name: Any = _contract(s.folder).get("name")  # counted as read, so a missing name counts as none
    _require(s.names[name] == 1, f"{CONTRACT_FILE}: field 'name': '{name}' is defined by {s.names[name]} macros")


def check_replay(s: Subject) -> None:
    for example, outcome, verdict in _replays(s):
        if outcome.timed_out:
            raise CheckSkipped(f"{example.id}: the macro ran past its timeout; see the 'timeout' check")
        if outcome.outside_writes:
            raise CheckSkipped(f"{example.id}: the macro wrote outside its workspace; see the 'side-effects' check")
        _require(outcome.ok, f"example {example.id}: the macro failed ({outcome.failure_class}): {outcome.reason}")
        _require(verdict, f"example {example.id}: the macro reported success but the verifier rejected the workspace")


def check_side_effects(s: Subject) -> None:
    for example, outcome, _ in _replays(s):
        _require(
            not outcome.outside_writes,
            f"example {example.id}: the macro wrote outside the workspace: {', '.join(outcome.outside_writes)} "
            "(refused by the sandbox)",
        )
    _replayed_ok(s)
    for example, outcome, _ in _replays(s):
        _require(not outcome.violations, f"example {example.id}: " + "; ".join(outcome.violations))
        beside = _written_beside(s).get(example.id, ())
        _require(not beside, f"example {example.id}: the macro wrote outside the workspace: {', '.join(beside)}")


def check_preconditions(s: Subject) -> None:
    _replayed_ok(s)
    macro = _load(s.folder)
    for example, breaker in _examples_with(s.folder, "breaks_precondition"):
        with ExampleWorkspace(example, breaker) as ws:
            before = ws.files()
            outcome = _invoke(macro, ws, example, breaker, s.sandbox)
            changed = compare(before, ws.files())
        _require(
            outcome.failure_class == FailureClass.PRECONDITION_MISMATCH,
            f"example {example.id} with a broken precondition: expected precondition_mismatch, "
            f"got {outcome.failure_class or 'success'} ({outcome.reason})",
        )
        _require(not changed, f"example {example.id}: the refusal changed the workspace: {', '.join(changed.paths)}")


def check_validation(s: Subject) -> None:
    _replayed_ok(s)
    macro = _load(s.folder)
    examples = _examples_with(s.folder, "breaks_validation")
    _require(
        bool(examples),
        f"{CONTRACT_FILE}: field 'examples': no example declares 'breaks_validation', "
        "so nothing shows the validation can fail",
    )
    for example, breaker in examples:
        with ExampleWorkspace(example, breaker) as ws:
            outcome = _invoke(macro, ws, example, breaker, s.sandbox)
        _require(
            outcome.failure_class == FailureClass.VALIDATION_FAILURE,
            f"example {example.id} with a broken validation: expected validation_failure, "
            f"got {outcome.failure_class or 'success'} ({outcome.reason})",
        )


def check_faults(s: Subject) -> None:
    from ..agents.reference import ReferenceAgent
    from .policies import FIXED_POLICIES
    from .runner import RunSettings, run_task

    _replayed_ok(s)
    macro = _load(s.folder)
    declared = set(macro.failure_classes)
    for example in _examples(s.folder):
        for point in FAULTS:
            with ExampleWorkspace(example, {}) as ws:
                outcome = _invoke(macro, ws, example, {}, s.sandbox, _fault_at(point))
            _require(
                outcome.failure_class in declared,
                f"example {example.id}: {'an' if point == Fault.EARLY else 'a'} {point} fault surfaced as "
                f"{outcome.failure_class}, which the contract does not declare ({', '.join(sorted(declared))})",
            )
        settings = RunSettings(agent=ReferenceAgent, macros=_registry(s, macro), sandbox=s.sandbox)
        assert example.macro is not None, "an example task without a macro call fails in _example_task"
        task = dataclasses.replace(example, macro=MacroCall(macro.name, example.macro.args))
        result = run_task(task, FIXED_POLICIES[PolicyName.HYBRID], Fault.EARLY, settings, _fault_at(Fault.EARLY))
        _require(
            result.success and result.degraded,
            f"example {example.id}: after an early fault the fallback (micro tools) did not recover: "
            f"{result.summary()}\n{result.verifier_output}",
        )


def _registry(s: Subject, macro: Macro) -> MacroRegistry:
    """The macro and the collected macros it falls back to or depends on, registered as a run registers them. A
    need that is not met is the 'fallback' or 'dependencies' check's failure: here, a skip that points to it."""
    needed = {macro.name: macro}
    pending = [macro]
    while pending:
        contract = pending.pop().contract
        for name in [*contract.get("depends_on", []), contract.get("fallback_skill")]:
            if name and name not in needed and name in s.folders:
                try:
                    needed[name] = _load(s.folders[name])
                except CheckFailed:
                    continue  # not registered: the registry says which macro needs it
                pending.append(needed[name])
    try:
        return MacroRegistry(needed.values())
    except DefinitionError as exc:
        check = "fallback" if exc.field == "fallback_skill" else "dependencies"
        raise CheckSkipped(f"{CONTRACT_FILE}: field '{exc.field}': {exc.message}; see its '{check}' check") from None


def check_timeout(s: Subject) -> None:
    macro = _load(s.folder)
    for example, outcome, _ in _replays(s):
        if outcome.timed_out:
            raise CheckFailed(
                f"example {example.id}: the macro did not finish within its timeout_seconds "
                f"({macro.contract['timeout_seconds']}s); it was stopped and classified {outcome.failure_class}"
                f" ({outcome.reason})"
            )
    example = _examples(s.folder)[0]
    token = f"granularity-stall-{uuid.uuid4().hex}"
    with ExampleWorkspace(example, {}) as ws:
        slow = dataclasses.replace(  # preconditions pass at once: the probe times the run, not their parsing
            macro,
            preconditions=_no_reasons,
            run=functools.partial(_stall, token),
            contract={**macro.contract, "timeout_seconds": TIMEOUT_PROBE_SECONDS},
        )
        outcome = _invoke(slow, ws, example, {}, s.sandbox)
        started = (ws.root / STALL_MARKER).is_file()
    _require(
        outcome.timed_out and outcome.failure_class == FailureClass.EXECUTOR_EXCEPTION,
        f"a call held past its {TIMEOUT_PROBE_SECONDS}s timeout was not stopped: "
        f"{outcome.failure_class or 'success'} ({outcome.reason})",
    )
    _require(
        started and not _outlived(token),
        f"a process the stalled call started ({'running' if started else 'never started'}) outlived the timeout",
    )


def _no_reasons(ctx: MacroContext) -> list[str]:
    return []


def _stall(token: str, ctx: MacroContext) -> str:
    """A macro's work held up by a child process past any timeout: the probe for enforcement.

    The child carries ``token`` on its command line, so it can be found from outside a PID
    namespace too; module-level, so a sandboxed macro process can import it.
    """
    process = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)", token])
    (ctx.root / STALL_MARKER).write_text(token)
    process.wait()
    return "finished"


def _outlived(token: str) -> bool:
    """Whether a process with ``token`` on its command line still runs (a zombie has none)."""
    for _ in range(50):
        if not any(token.encode() in _command_line(p) for p in Path("/proc").iterdir() if p.name.isdigit()):
            return False
        time.sleep(0.02)
    return True


def _command_line(proc: Path) -> bytes:
    try:
        return (proc / "cmdline").read_bytes()
    except OSError:
        return b""


STATIC: dict[str, Callable[[Subject], None]] = {
    "contract": check_contract,
    "parameters": check_parameters,
    "skill": check_skill,
    "failure-classes": check_failure_classes,
    "fallback": check_fallback,
    "dependencies": check_dependencies,
    "callables": check_callables,
    "unique-name": check_unique_name,
}
DYNAMIC: dict[str, Callable[[Subject], None]] = {
    "replay": check_replay,
    "side-effects": check_side_effects,
    "preconditions": check_preconditions,
    "validation": check_validation,
    "faults": check_faults,
    "timeout": check_timeout,
}
CHECKS = {**STATIC, **DYNAMIC}


def run_check(name: str, subject: Subject) -> None:
    """Run one check; raises CheckFailed with the evidence, or CheckSkipped."""
    if name in DYNAMIC:
        try:
            _load(subject.folder)
        except CheckFailed:
            raise CheckSkipped("the macro does not load; see its 'callables' and static checks") from None
        try:
            check_dependencies(subject)
        except CheckFailed:
            raise CheckSkipped("the macro cannot be registered; see its 'dependencies' check") from None
    CHECKS[name](subject)


def _contract(folder: Path) -> dict[str, Any]:
    try:
        return read_yaml_mapping(folder / CONTRACT_FILE)
    except DefinitionError as exc:
        raise CheckFailed(str(exc)) from None


@functools.cache
def _load(folder: Path) -> Macro:
    try:
        return load_macro(folder)
    except DefinitionError as exc:
        raise CheckFailed(str(exc)) from None


def _examples_with(folder: Path, key: str) -> list[tuple[Task, dict[str, Any]]]:
    entries = _contract(folder).get("examples", [])
    return [(_example_task(folder, e["task"]), _breaker(folder, e[key])) for e in entries if key in e]


def _breaker(folder: Path, spec: dict[str, Any]) -> dict[str, Any]:
    return {"args": spec.get("args", {}), "setup": (folder / spec["setup"]) if "setup" in spec else None}


def _examples(folder: Path) -> list[Task]:
    entries = _contract(folder).get("examples", [])
    _require(bool(entries), f"{CONTRACT_FILE}: field 'examples': declare at least one example task to replay")
    return [_example_task(folder, e["task"]) for e in entries]


def _example_task(folder: Path, rel: str) -> Task:
    try:
        task = load_task(folder / rel)
    except TaskError as exc:
        raise CheckFailed(f"example {rel}: {exc}") from None
    _require(task.macro is not None, f"example {rel}: its task.yaml has no 'macro' call to replay")
    return task


class ExampleWorkspace:
    """An example's workspace, inside a sandbox folder so writes next to it can be seen."""

    def __init__(self, task: Task, breaker: dict[str, Any]) -> None:
        self.sandbox = Path(tempfile.mkdtemp(prefix="granularity-contract-")).resolve()
        track_folder(self.sandbox)
        self.workspace = Workspace.for_task(task, self.sandbox)
        if breaker.get("setup") is not None:
            overlay(self.workspace.root, breaker["setup"])
            self.workspace = Workspace(self.workspace.root)

    def __enter__(self) -> Workspace:
        return self.workspace

    def __exit__(self, *exc: object) -> None:
        self.outside = sorted(p.name for p in self.sandbox.iterdir() if p != self.workspace.root)
        shutil.rmtree(self.sandbox, ignore_errors=True)
        untrack_folder(self.sandbox)


def _invoke(
    macro: Macro, ws: Workspace, task: Task, breaker: dict[str, Any], sandbox: Sandbox, fault: Any = None
) -> MacroOutcome:
    assert task.macro is not None
    args = {k: v for k, v in {**task.macro.args, **breaker.get("args", {})}.items() if v is not None}
    context = MacroContext(ws, args, task.tests, 60.0, sandbox=sandbox, pytest_config=task.pytest_config)
    return invoke(macro, context, fault) if fault else invoke(macro, context)


def _fault_at(point: str) -> Any:
    def fault(name: str, macro: str, args: dict[str, Any], root: Path) -> None:
        if name == point:
            raise InjectedFault(f"injected {point} fault in {macro}")

    return fault


@functools.cache
def _replay_cache(folder: Path, sandbox: Sandbox) -> tuple[tuple[Task, MacroOutcome, bool, tuple[str, ...]], ...]:
    macro = _load(folder)
    results = []
    for example in _examples(folder):
        manager = ExampleWorkspace(example, {})
        with manager as ws:
            outcome = _invoke(macro, ws, example, {}, sandbox)
            verdict = outcome.ok and verify(example, ws, sandbox).accepted
        results.append((example, outcome, verdict, tuple(manager.outside)))
    return tuple(results)


def _replays(s: Subject) -> list[tuple[Task, MacroOutcome, bool]]:
    return [(t, o, v) for t, o, v, _ in _replay_cache(s.folder, s.sandbox)]


def _written_beside(s: Subject) -> dict[str, tuple[str, ...]]:
    return {t.id: beside for t, _, _, beside in _replay_cache(s.folder, s.sandbox)}


def _replayed_ok(s: Subject) -> None:
    for example, outcome, verdict in _replays(s):
        if not (outcome.ok and verdict):
            raise CheckSkipped(f"example {example.id} does not replay green; see the 'replay' check")


def macro_folders_to_check(roots: list[Path]) -> list[Path]:
    """Built-in macros plus every macro folder under ``roots``, each once, in a stable order."""
    from ..macros.contract import BUILTIN_FOLDER
    from ..macros.registry import macro_folders

    folders = [*macro_folders(BUILTIN_FOLDER)]
    for root in roots:
        folders.extend(macro_folders(root))
    unique = list(dict.fromkeys(f.resolve() for f in folders))
    return sorted(unique, key=lambda f: (f.name, str(f)))


def contract_names(folders: list[Path]) -> Counter[str]:
    names: Counter[str] = Counter()
    for folder in folders:
        try:
            names[str(read_yaml_mapping(folder / CONTRACT_FILE).get("name"))] += 1
        except DefinitionError:
            continue
    return names


def contract_folders(folders: list[Path]) -> dict[str, Path]:
    """The collected macros' folders by name (of two with one name, the last: ``unique-name`` fails them)."""
    named = {}
    for folder in folders:
        try:
            named[str(read_yaml_mapping(folder / CONTRACT_FILE).get("name"))] = folder
        except DefinitionError:
            continue
    return named
