"""Macro calls derived mechanically from a package's own code.

``move_module``: each module into a new sub-package beside it, each module renamed, each
sub-package into a new sub-package. ``replace_and_verify``: a one-line ``return EXPR`` made
``return (EXPR)`` (same behaviour, so a correct macro keeps the suite green), and one line that
occurs several times (which the macro must refuse). ``summarize_module``: each module's API into
its docstring and into a new file. Selections are evenly spaced over sorted paths, so the same
sources give the same calls.
"""

from __future__ import annotations

import ast
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath
from typing import Any

SKIPPED_DIRS = {"docs", "doc", "tests", "test", "testing", "bin", "tools", "scripts", "build", "examples", "benchmarks"}
NOT_MOVED = {"__init__.py", "__main__.py", "conftest.py", "setup.py"}


@dataclass(frozen=True)
class Call:
    package: str
    macro: str
    args: dict[str, Any] = field(hash=False)
    kind: str

    @property
    def label(self) -> str:
        return f"{self.package} {self.macro} " + " ".join(f"{k}={v}" for k, v in sorted(self.args.items()))


def derive(package: str, root: Path, moves: int, others: int) -> list[Call]:
    modules = library_modules(root)
    calls = _moves(package, root, modules, moves)
    chosen = spread(modules, others)
    calls += _replacements(package, root, chosen)
    for rel in chosen:
        calls.append(Call(package, "summarize_module", {"module": rel}, "into the docstring"))
        stem = dotted(rel)
        calls.append(
            Call(package, "summarize_module", {"module": rel, "destination": f"API-{stem}.md"}, "into a new file")
        )
    return calls


def library_modules(root: Path) -> list[str]:
    """The package's importable modules (not its tests, build or docs helpers), sorted."""
    found = []
    for path in sorted(root.rglob("*.py")):
        rel = path.relative_to(root).as_posix()
        parts = PurePosixPath(rel).parts
        inside = parts[1:] if parts[0] == "src" else parts
        if len(inside) < 2 or not (path.parent / "__init__.py").is_file():
            continue
        if path.name in NOT_MOVED or path.name.startswith("test_") or path.name.endswith("_test.py"):
            continue
        if SKIPPED_DIRS & set(inside[:-1]):
            continue
        found.append(rel)
    return found


def spread(items: list[str], count: int) -> list[str]:
    """``count`` items evenly spaced over ``items`` (all of them if there are fewer)."""
    if len(items) <= count:
        return list(items)
    return [items[round(i * (len(items) - 1) / (count - 1))] for i in range(count)] if count > 1 else items[:1]


def dotted(rel: str) -> str:
    parts = list(PurePosixPath(rel).with_suffix("").parts)
    return ".".join(parts[1:] if parts[0] == "src" else parts)


def _moves(package: str, root: Path, modules: list[str], cap: int) -> list[Call]:
    packages = sorted({PurePosixPath(m).parent.as_posix() for m in modules} | _subpackages(root, modules))
    subpackages = [p for p in packages if len(PurePosixPath(p).parts) > (2 if p.startswith("src/") else 1)]
    calls = []
    for rel in subpackages:
        folder = PurePosixPath(rel)
        calls.append(
            Call(
                package,
                "move_module",
                {"source": rel, "destination": str(folder.parent / "relocated" / folder.name)},
                "package into a new sub-package",
            )
        )
    per_kind = max(1, (cap - len(calls)) // 2)
    for rel in spread(modules, per_kind):
        path = PurePosixPath(rel)
        calls.append(
            Call(
                package,
                "move_module",
                {"source": rel, "destination": str(path.parent / "relocated" / path.name)},
                "module into a new sub-package",
            )
        )
        calls.append(
            Call(
                package,
                "move_module",
                {"source": rel, "destination": str(path.parent / f"{path.stem}_renamed.py")},
                "module renamed",
            )
        )
    return calls


def _subpackages(root: Path, modules: list[str]) -> set[str]:
    tops = {
        PurePosixPath(m).parts[0] if not m.startswith("src/") else "/".join(PurePosixPath(m).parts[:2]) for m in modules
    }
    return {
        init.parent.relative_to(root).as_posix()
        for top in tops
        for init in (root / top).rglob("__init__.py")
        if not SKIPPED_DIRS & set(init.relative_to(root / top).parts[:-1])
    }


def _replacements(package: str, root: Path, modules: list[str]) -> list[Call]:
    calls, repeated = [], Counter[tuple[str, str]]()
    for rel in modules:
        source = (root / rel).read_text(encoding="utf-8")
        lines = source.splitlines()
        returns = [lines[n.lineno - 1] for n in ast.walk(ast.parse(source)) if _one_line_return(n, lines)]
        unique = [line for line in returns if source.count(line) == 1]
        if unique:
            line = unique[0]
            indent = line[: len(line) - len(line.lstrip())]
            calls.append(
                Call(
                    package,
                    "replace_and_verify",
                    {"files": [rel], "old": line, "new": f"{indent}return ({line.strip()[7:]})"},
                    "return EXPR -> return (EXPR)",
                )
            )
        repeated.update((rel, line) for line in lines if line.strip() and source.count(line + "\n") > 1)
    if repeated:
        (rel, line), _ = max(repeated.items(), key=lambda item: (item[1], item[0]))
        calls.append(
            Call(
                package,
                "replace_and_verify",
                {"files": [rel], "old": line, "new": line + "  # edited"},
                "a line that occurs several times",
            )
        )
    return calls


def _one_line_return(node: ast.AST, lines: list[str]) -> bool:
    if not isinstance(node, ast.Return) or node.value is None or node.lineno != node.end_lineno:
        return False
    line = lines[node.lineno - 1]
    return (
        line.strip().startswith("return ") and "#" not in line and ";" not in line and not line.rstrip().endswith("\\")
    )
