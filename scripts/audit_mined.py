"""An independent audit of mined tasks, from plain checkouts, with none of the miner's machinery.

For every kept task of a mining run: its fail-to-pass tests (``verifier.select``) must fail at the parent
with the commit's test files laid over it, and pass at the commit, each side a plain ``git archive`` of
the repository run with ``python -m pytest`` of the Python this script runs under (the project's
development environment), the checkout's own folders first on ``PYTHONPATH`` so an editable install is
not what runs. And its prompt must give every public name that the commit's changed modules define anew
and its fail-to-pass tests' files spell (a word match on the source, cruder than the miner's syntax
trees on purpose). Prints a line per task and a summary; exits 1 when a task fails:

    /path/to/clone/.venv/bin/python scripts/audit_mined.py /path/to/clone /path/to/mined-folder
"""

from __future__ import annotations

import argparse
import ast
import io
import os
import re
import subprocess
import sys
import tarfile
import tempfile
from pathlib import Path

import yaml

TIMEOUT = 600
BOOT = """import os, sys
import pytest
names = os.environ["AUDIT_NAMES"].split()
for name in [m for m in sys.modules if m.split(".")[0] in names]:
    del sys.modules[name]
sys.path[:0] = os.environ["AUDIT_ROOTS"].split(os.pathsep)
sys.exit(pytest.main(sys.argv[1:]))
"""
"""pytest first, as installed (pytest itself may run on the project: pluggy), then the checkout's folders first on
the path and the project's modules forgotten, so the tests import the checkout."""


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("clone", type=Path)
    parser.add_argument("mined", type=Path)
    args = parser.parse_args(argv)
    bad = 0
    tasks = sorted(args.mined.glob("*/task.yaml"))
    for path in tasks:
        problems = audit(args.clone.resolve(), path)
        bad += bool(problems)
        print(f"{'FAIL' if problems else 'ok  '} {path.parent.name} {'; '.join(problems)}"[:400], flush=True)
    print(f"{len(tasks) - bad} of {len(tasks)} kept tasks pass the independent audit")
    return 1 if bad else 0


def audit(clone: Path, task_file: Path) -> list[str]:
    data = yaml.safe_load(task_file.read_text(encoding="utf-8"))
    commit, parent = data["provenance"]["commit"], data["fixture_ref"]
    select = data["verifier"]["select"]
    tests = _test_files(task_file.parent / data["verifier"]["tests"])
    spec = data.get("pytest", {}).get("import_roots", {})
    folders = {f for value in spec.values() for f in ([value] if isinstance(value, str) else value)}
    roots, names = sorted(folders or {"."}), sorted(spec)
    generated = data.get("fixture_generated", [])
    problems = []
    before = _outcomes(clone, parent, tests, select, roots, names, generated)
    after = _outcomes(clone, commit, {}, select, roots, names, generated)
    passing_before = [n for n in select if before.get(n) == "passed"]
    failing_after = [n for n in select if after.get(n) != "passed"]
    if passing_before:
        problems.append(f"{len(passing_before)} pass at the parent: {passing_before[0]}")
    if failing_after:
        problems.append(
            f"{len(failing_after)} do not pass at the commit: {failing_after[0]} ({after.get(failing_after[0])})"
        )
    unnamed = _unnamed(clone, parent, commit, tests, select, data["prompt"])
    if unnamed:
        problems.append(f"underspecified: {', '.join(unnamed)}")
    return problems


def _outcomes(
    clone: Path,
    sha: str,
    tests: dict[str, bytes],
    select: list[str],
    roots: list[str],
    names: list[str],
    generated: list[str],
) -> dict[str, str]:
    with tempfile.TemporaryDirectory(prefix="audit-") as folder:
        root = Path(folder)
        archive = subprocess.run(["git", "-C", str(clone), "archive", sha], check=True, capture_output=True).stdout
        with tarfile.open(fileobj=io.BytesIO(archive)) as tar:
            tar.extractall(root, filter="data")
        for rel, content in tests.items():
            (root / rel).parent.mkdir(parents=True, exist_ok=True)
            (root / rel).write_bytes(content)
        for rel in generated:
            if (clone / rel).is_file():
                (root / rel).write_bytes((clone / rel).read_bytes())
        report = root / "audit-report.xml"
        paths = os.pathsep.join(str(root / r) for r in roots)
        env = dict(os.environ, AUDIT_ROOTS=paths, AUDIT_NAMES=" ".join(names), PYTHONDONTWRITEBYTECODE="1")
        command = [sys.executable, "-c", BOOT, "-p", "no:cacheprovider", "-p", "no:randomly", "-o", "addopts="]
        command += ["-q", f"--junitxml={report}", *select]
        try:
            subprocess.run(command, cwd=root, env=env, capture_output=True, timeout=TIMEOUT, check=False)
        except subprocess.TimeoutExpired:
            return {}
        return _junit(report) if report.exists() else {}


def _junit(report: Path) -> dict[str, str]:
    """Outcomes by node id from pytest's junit report (``classname`` dotted, ``name`` the function)."""
    import xml.etree.ElementTree as ET

    found = {}
    for case in ET.parse(report).iter("testcase"):
        parts = case.get("classname", "").split(".")
        name = case.get("name", "")
        outcome = "passed"
        for child in case:
            if child.tag in ("failure", "error"):
                outcome = "failed"
            elif child.tag == "skipped":
                outcome = "skipped"
        for cut in range(len(parts), 0, -1):  # the module path is the longest prefix that is a file
            path = "/".join(parts[:cut]) + ".py"
            found["::".join([path, *parts[cut:], name])] = outcome
    return found


def _unnamed(
    clone: Path, parent: str, commit: str, tests: dict[str, bytes], select: list[str], prompt: str
) -> list[str]:
    changed = subprocess.run(
        ["git", "-C", str(clone), "diff", "--name-only", parent, commit, "--", "*.py"], capture_output=True, text=True
    ).stdout.split()
    new: set[str] = set()
    for path in changed:
        if path in tests:
            continue
        new |= _defined(clone, commit, path) - _defined(clone, parent, path)
    files = {node.split("::")[0] for node in select}
    words = set(re.findall(r"\w+", " ".join(tests.get(f, b"").decode("utf-8", "replace") for f in files)))
    said = set(re.findall(r"\w+", prompt))
    return sorted(n for n in new & words if not n.startswith("_") and n not in said)


def _defined(clone: Path, sha: str, path: str) -> set[str]:
    shown = subprocess.run(["git", "-C", str(clone), "show", f"{sha}:{path}"], capture_output=True, text=True)
    try:
        tree = ast.parse(shown.stdout) if shown.returncode == 0 else ast.Module(body=[], type_ignores=[])
    except SyntaxError:
        return set()
    names = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            names.add(node.name)
        elif isinstance(node, ast.Assign) and node in tree.body:
            names |= {t.id for t in node.targets if isinstance(t, ast.Name)}
    return names


def _test_files(folder: Path) -> dict[str, bytes]:
    return {p.relative_to(folder).as_posix(): p.read_bytes() for p in folder.rglob("*") if p.is_file()}


if __name__ == "__main__":
    sys.exit(main())
