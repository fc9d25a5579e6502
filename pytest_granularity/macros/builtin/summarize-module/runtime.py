"""summarize_module: write a module's public API summary where the task asks for it."""

from __future__ import annotations

import ast
from collections.abc import Mapping

from pytest_granularity import MacroContext
from pytest_granularity.core.modnames import dotted_name
from pytest_granularity.core.workspace import PathEscape
from pytest_granularity.macros.derivation.summaries import summaries
from pytest_granularity.macros.kit import is_docstring

QUOTE = '"""'


def api_lines(tree: ast.Module) -> list[str]:
    """One line per public top-level class or function: ``- def name(sig) -> ret: first line``."""
    lines = []
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and not node.name.startswith("_"):
            returns = f" -> {ast.unparse(node.returns)}" if node.returns else ""
            kind = "async def" if isinstance(node, ast.AsyncFunctionDef) else "def"
            lines.append(f"- {kind} {node.name}({ast.unparse(node.args)}){returns}: {_first_line(node)}")
        elif isinstance(node, ast.ClassDef) and not node.name.startswith("_"):
            lines.append(f"- class {node.name}({_class_signature(node)}): {_first_line(node)}")
    return lines


def summary(ctx: MacroContext, tree: ast.Module) -> str:
    return f"Public API of {dotted_name(ctx.args['module'])}:\n\n" + "\n".join(api_lines(tree)) + "\n"


def preconditions(ctx: MacroContext) -> list[str]:
    try:
        module = ctx.path(ctx.args["module"])
        destination = ctx.path(ctx.args["destination"]) if "destination" in ctx.args else None
    except PathEscape as exc:
        return [str(exc)]
    if module.suffix != ".py" or not module.is_file():
        return [f"{ctx.args['module']} is not a Python module"]
    try:
        tree = ast.parse(module.read_text(encoding="utf-8"))
    except SyntaxError as exc:
        return [f"{ctx.args['module']} does not parse (line {exc.lineno})"]
    reasons = []
    if not api_lines(tree):
        reasons.append(f"{ctx.args['module']} has no public top-level class or function")
    if destination is not None and destination.exists():
        reasons.append(f"the destination {ctx.args['destination']} already exists")
    if destination is None and _docstring_node(tree) is not None and not _plain_docstring(ctx, tree):
        reasons.append("the module docstring is not a plain triple-double-quoted string")
    return reasons


def run(ctx: MacroContext) -> str:
    module = ctx.path(ctx.args["module"])
    source = module.read_text(encoding="utf-8")
    text = summary(ctx, ast.parse(source))
    if "destination" in ctx.args:
        target = ctx.path(ctx.args["destination"])
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(text, encoding="utf-8")
        return f"wrote the API summary of {ctx.args['module']} to {ctx.args['destination']}"
    module.write_text(_with_docstring(source, text), encoding="utf-8")
    return f"appended the API summary to the docstring of {ctx.args['module']}"


def validate(ctx: MacroContext) -> list[str]:
    try:
        tree = ast.parse(ctx.path(ctx.args["module"]).read_text(encoding="utf-8"))
    except SyntaxError as exc:
        return [f"{ctx.args['module']} no longer parses (line {exc.lineno})"]
    if "destination" in ctx.args:
        written = ctx.path(ctx.args["destination"]).read_text(encoding="utf-8")
    else:
        written = ast.get_docstring(tree, clean=False) or ""
    return [f"the summary lacks or misstates: {line}" for line in api_lines(tree) if line not in written]


def _with_docstring(source: str, text: str) -> str:
    tree = ast.parse(source)
    node = _docstring_node(tree)
    lines = source.splitlines(keepends=True)
    if node is None:
        return f"{QUOTE}{text}{QUOTE}\n\n" + source
    body = node.value.value.rstrip()
    new = f"{QUOTE}{body}\n\n{text}{QUOTE}\n"
    return "".join(lines[: node.lineno - 1]) + new + "".join(lines[node.end_lineno :])


def _docstring_node(tree: ast.Module) -> ast.Expr | None:
    first = tree.body[0] if tree.body else None
    return first if first is not None and is_docstring(first) else None


def _plain_docstring(ctx: MacroContext, tree: ast.Module) -> bool:
    node = _docstring_node(tree)
    segment = ast.get_source_segment(ctx.path(ctx.args["module"]).read_text(encoding="utf-8"), node) or ""
    return segment.startswith(QUOTE) and segment.endswith(QUOTE) and "\\" not in segment and QUOTE not in segment[3:-3]


def _first_line(node: ast.AST) -> str:
    doc = ast.get_docstring(node)  # type: ignore[arg-type]
    return doc.strip().splitlines()[0] if doc and doc.strip() else "(no docstring)"


def _class_signature(node: ast.ClassDef) -> str:
    for item in node.body:
        if isinstance(item, ast.FunctionDef) and item.name == "__init__":
            args = item.args
            return ast.unparse(args.__class__(**{**args.__dict__, "args": args.args[1:]}))
    fields = [
        ast.unparse(item.target) + f": {ast.unparse(item.annotation)}"
        for item in node.body
        if isinstance(item, ast.AnnAssign) and isinstance(item.target, ast.Name) and not item.target.id.startswith("_")
    ]
    return ", ".join(fields)


def derive_arguments(prompt: str, files: Mapping[str, bytes]) -> list[dict[str, str]]:
    """Summaries the prompt pins down: a module it names, into its docstring or into a new file it names."""
    return summaries(prompt, files)
