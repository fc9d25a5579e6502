"""What a mined macro does, for the ``runtime.py`` every mined macro folder holds.

A call names the files and every hole's code. Its preconditions find the pattern, with those values,
exactly once in each file (structurally: layout does not matter): an anchor found twice is ambiguous, and
the call is refused before it writes anything rather than left half-done. Its run writes the after-code
there; its validation is the builtin macros' own (changed files parse, the tests pass), with the test
files that import a rewritten module added to any tests the call narrows it to (``covering``). Its ``derive`` proposes
calls from the prompt and the files alone: the before-holes are bound where the pattern matches a file,
the after-only holes take values the prompt quotes of the kind its sources had (a number for a number).
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

import libcst as cst

from ..core.test_layout import read_layout
from ..macros.checks import syntax_problems, test_problems
from ..macros.context import MacroContext, MacroError
from ..macros.derivation import named_files
from ..macros.derivation.replacements import Replacement, prompt_values, ranked_replacements
from ..macros.in_turn import made_in_turn
from ..macros.kit import existing_file
from .covering import validation_tests
from .differing import changed_tokens
from .edits import changed_python, text
from .rewrites import file_rewrites
from .shape import Shape, code_of, fill, parse_unit
from .trees import ReplaceNodes, Tree, parse_expression, parse_module, tree_of

Pair = tuple[str, str]
"""A replacement the request reader found: the text before and after."""
MAX_CALLS = 8
"""The most calls ``derive`` proposes: the likeliest first."""
MAX_FILES = 400
"""The most files ``derive`` parses for matches: a bound on its time in a large repository."""
MAX_COMBINATIONS = 64
"""The most sets of new values ``derive`` scores at one place, the reader's replacements first: a shape with
several after-only holes and a prompt with many values would otherwise score their every product."""


class ShapeMacro:
    """A mined macro's four functions over its ``shape.json``."""

    def __init__(self, folder: Path) -> None:
        self._read(folder)
        template = parse_unit(self.shape.template, self.shape.kind)
        if template is None:
            raise ValueError(f"{folder}: the shape's template does not parse as a {self.shape.kind}")
        self.template = template

    def _read(self, folder: Path) -> None:
        self.shape = Shape.read(folder)
        self.pattern = self.shape.pattern
        self.counterparts = _counterparts(self.pattern, Tree.from_json(self.shape.after))

    def preconditions(self, ctx: MacroContext) -> list[str]:
        values, reasons = self._values(ctx.args)
        if reasons:
            return reasons
        if not self._changes_with(values):
            return ["with these values the rewrite changes nothing"]
        for rel in ctx.args["files"]:
            path, missing = existing_file(ctx, rel)
            if path is None:
                reasons += missing
                continue
            module = parse_module(path.read_text(encoding="utf-8", errors="replace"))
            if module is None:
                reasons.append(f"{rel} is not Python that parses")
            else:
                reasons += self._misfits(rel, module, values, ctx.args)
        return reasons

    def run(self, ctx: MacroContext) -> str:
        values, reasons = self._values(ctx.args)
        if reasons:
            raise MacroError("; ".join(reasons))
        for rel in ctx.args["files"]:
            path = ctx.path(rel)
            module = parse_module(path.read_text(encoding="utf-8"))
            edited = self._edited(module, values) if module is not None else None
            if edited is None:
                raise MacroError(f"{rel} changed while the edit was under way")
            path.write_text(edited.code, encoding="utf-8")
        return self._summary(len(ctx.args["files"]))

    def _misfits(
        self, rel: str, module: cst.Module, values: Mapping[int, cst.BaseExpression], args: Mapping[str, Any]
    ) -> list[str]:
        """Why the call does not fit this file: the pattern, with its values, not found exactly once."""
        count = len(_places(module, self._rewrite(values)[0]))
        return [] if count == 1 else [f"{rel} has `{self._code('before', args)}` {count} times, not exactly once"]

    def _edited(self, module: cst.Module, values: Mapping[int, cst.BaseExpression]) -> cst.Module | None:
        """The module with the call's edit made, or None when its one place is not there."""
        target, written = self._rewrite(values)
        found = _places(module, target)
        return module.visit(ReplaceNodes({id(found[0]): written})) if len(found) == 1 else None

    def _summary(self, files: int) -> str:
        return f"rewrote one place in each of {files} file(s)"

    def validate(self, ctx: MacroContext) -> list[str]:
        return syntax_problems(ctx, ctx.args["files"]) or test_problems(ctx, validation_tests(ctx))

    def derive(self, prompt: str, files: Mapping[str, bytes]) -> list[dict[str, Any]]:
        """Calls the prompt and the files pin down, the likeliest first (see ``_score``); a call rewrites every
        file where its values match, or, when the prompt names some of them, those it names.

        Only a call that carries out a replacement the request states (``_grounded``) is proposed: a mined
        macro knows its shape, not when a request wants it, and its validation sees only the project's own
        tests. A call the request does not state (the shape's values matched somewhere, a new value the prompt
        happens to give) passes those tests as often as not, and is then a harmful call."""
        named = named_files(prompt, files)
        ranked = ranked_replacements(prompt, files)
        read = [(r.old, r.new) for r in ranked]
        given = {i: self._prompt_values(prompt, i) for i, h in enumerate(self.shape.holes) if not h.before}
        scored: dict[tuple[tuple[str, str], ...], tuple[float, list[str]]] = {}
        for order, (rel, bound) in enumerate(self._bindings(files, named)):
            fresh = {i: self._rewritten(bound, i, read) + values for i, values in given.items()}
            for chosen in itertools.islice(itertools.product(*fresh.values()), MAX_COMBINATIONS):
                args = {**bound, **{f"p{i}": text for i, (text, _) in zip(fresh, chosen, strict=True)}}
                score = self._score(prompt, args, bound, [at for _, at in chosen], read) + 2 * (rel in named)
                key = tuple(sorted(args.items()))
                best, where = scored.get(key, (score - order / 1e6, []))
                scored[key] = (max(best, score - order / 1e6), [*where, rel])
        calls = [
            {"files": sorted(set([f for f in where if f in named] or where)), **dict(key)}
            for key, (_, where) in sorted(scored.items(), key=lambda kv: -kv[1][0])
        ]
        return [c for c in calls if self._changes(c) and self._grounded(c, ranked)][:MAX_CALLS]

    def pieces(self, before: Mapping[str, bytes], after: Mapping[str, bytes]) -> list[dict[str, Any]]:
        """The calls that make pieces of the change from ``before`` to ``after``: each of its units (``_units``)
        that is an instance of this shape, with its values there, kept when it fits once the ones before it are
        made (a piece another one's call already made, or whose anchor it changed, is left out). The reference
        agent's calls (``coverage``, ``agents/reference.py``)."""
        outcome = Tree.from_json(self.shape.after)
        calls = []
        changed = [p for p in changed_python(before, after) if p in before and p in after]
        for rel in changed:
            for old, new in self._units(text(before[rel]), text(after[rel])):
                bound: dict[int, Tree] = {}
                if _unify(self.pattern, old, bound) and _unify(outcome, new, bound):
                    calls.append({"files": [rel], **{f"p{i}": code_of(t) for i, t in sorted(bound.items())}})
        return made_in_turn(self, {p: before[p] for p in changed}, calls)[1] if calls else []

    def _units(self, before: str, after: str) -> list[tuple[Tree, Tree]]:
        """The units a file's change rewrites, whatever else it does."""
        return [(u.before, u.after) for u in file_rewrites("", before, after, partial=True) or []]

    def _score(
        self, prompt: str, args: dict[str, str], bound: dict[str, str], given_at: list[int], read: list[Pair]
    ) -> float:
        """How well a call fits the request: up to 3 when it is a replacement the shared request reader finds
        (``macros.derivation``: "from 300 to 600", a named constant's new value), 1 for each bound value the
        prompt quotes, up to 1 for new values it gives soon after those, up to 1 for new values of the same kind
        as what they replace (a number for a number). Files the prompt names add 2 (``derive``)."""
        quoted = {v: [m.end() for m in re.finditer(rf"(?<![\w.]){re.escape(v)}(?!\w)", prompt)] for v in bound.values()}
        mentioned = [at for ends in quoted.values() for at in ends]
        return (
            3 * self._agrees(args, read)
            + sum(map(bool, quoted.values()))
            + _following(mentioned, given_at)
            + self._alike(args)
        )

    def _agrees(self, args: Mapping[str, str], read: list[Pair]) -> float:
        """1 when the call's rewrite is the request reader's likeliest replacement, less for a later one, 0 for none."""
        for rank, (old, new) in enumerate(read):
            if self._carries_out(args, old, new):
                return 1 - rank / len(read)
        return 0.0

    def _grounded(self, call: Mapping[str, Any], ranked: list[Replacement]) -> bool:
        """Whether the call carries out a replacement the request states, and none it carries out reaches a
        file the call leaves alone ("from 0.4.2 to 0.5.0 in pkg/__init__.py and pyproject.toml"): such a call
        only begins the change. Guesses are left out of both: a bare number the reader finds in a README's
        prose reaches it by chance."""
        done = [r for r in ranked if r.stated and self._carries_out(call, r.old, r.new)]
        return bool(done) and all(set(r.files) <= set(call["files"]) for r in done)

    def _carries_out(self, args: Mapping[str, Any], old: str, new: str) -> bool:
        """Whether the call's rewrite replaces ``old`` by ``new`` in the code it finds (layout aside)."""
        before, after = (" ".join(self._code(side, args).split()) for side in ("before", "after"))
        old, new = " ".join(old.split()), " ".join(new.split())
        return old in before and before.replace(old, new, 1) == after

    def _rewritten(self, bound: Mapping[str, str], index: int, read: list[Pair]) -> list[tuple[str, int]]:
        """New values for hole ``index`` from the reader's replacements applied to the code it replaces
        (``Decimal("0.1")`` with "0.1 to 0.01" read gives ``Decimal("0.01")``); a replacement of a whole line
        ("``QUANTUM = Decimal("0.1")``" by a named constant's new value) applies by the tokens it changes."""
        old_hole = self.counterparts.get(index)
        current = bound.get(f"p{old_hole}", "") if old_hole is not None else ""
        values: dict[str, int] = {}
        for pair in read:
            for old, new in (pair, changed_tokens(*pair) or pair):
                if old and old in current and old != new:
                    values.setdefault(current.replace(old, new, 1), -1)
        return list(values.items())

    def _bindings(self, files: Mapping[str, bytes], named: list[str]) -> Iterator[tuple[str, dict[str, str]]]:
        """Every place the pattern matches, as the before-holes' code, named files first; test files only when
        the shape's sources rewrote tests."""
        needles = _needles(self.pattern)
        layout = read_layout(files)
        paths = [p for p in files if p.endswith(".py") and (self.shape.tests or not layout.is_test_support(p))]
        paths = sorted(paths, key=lambda p: (p not in named, p))[:MAX_FILES]
        for rel in paths:
            text = files[rel].decode("utf-8", errors="replace")
            if not all(n in text for n in needles):
                continue
            module = parse_module(text)
            if module is None:
                continue
            for tree in tree_of(module).walk():
                bound: dict[int, Tree] = {}
                if tree.label == self.pattern.label and _unify(self.pattern, tree, bound):
                    yield rel, {f"p{i}": module.code_for_node(t.node).strip() for i, t in bound.items() if t.node}

    def _prompt_values(self, prompt: str, index: int) -> list[tuple[str, int]]:
        """The values the prompt gives of a kind hole ``index`` had in the sources, with where each ends."""
        kinds = set(self.shape.holes[index].kinds)
        found: dict[str, int] = {}
        for value in prompt_values(prompt):
            spellings = (value.text, repr(value.text), f'"{value.text}"') if value.kind == "text" else (value.text,)
            for spelled in spellings:
                parsed = parse_expression(spelled)
                if parsed is not None and type(parsed).__name__ in kinds:
                    found.setdefault(spelled, value.end)
        return list(found.items())

    def _alike(self, args: Mapping[str, str]) -> float:
        """The share of new values of the same kind as the code each replaces (a number for a number): where a
        shape's sources wrote a string or a call, a number still replaces a number."""
        pairs = [(f"p{new}", f"p{old}") for new, old in self.counterparts.items()]
        if not pairs:
            return 0.0
        same = [type(parse_expression(args[new])) is type(parse_expression(args[old])) for new, old in pairs]
        return sum(same) / len(pairs)

    def _changes(self, args: dict[str, Any]) -> bool:
        values, reasons = self._values({**args, "files": []})
        return not reasons and self._changes_with(values)

    def _changes_with(self, values: Mapping[int, cst.BaseExpression]) -> bool:
        target, written = self._rewrite(values)
        return tree_of(written) != target

    def _rewrite(self, values: Mapping[int, cst.BaseExpression]) -> tuple[Tree, cst.CSTNode]:
        """What the call finds (the before-pattern with its values) and what it writes there."""
        return _instantiated(self.pattern, {i: tree_of(v) for i, v in values.items()}), fill(self.template, values)

    def _values(self, args: Mapping[str, Any]) -> tuple[dict[int, cst.BaseExpression], list[str]]:
        values, reasons = {}, []
        for index, spec in enumerate(self.shape.holes):
            parsed = parse_expression(str(args.get(spec.name, "")))
            if parsed is None:
                reasons.append(f"{spec.name} is not a Python expression: {args.get(spec.name)!r}")
            else:
                values[index] = parsed
        return values, reasons

    def _code(self, side: str, args: Mapping[str, Any]) -> str:
        """One side's code with the call's values in its holes."""
        code = self.shape.describe(side)
        for spec in self.shape.holes:
            code = code.replace(f"{{{spec.name}}}", str(args.get(spec.name)))
        return code


def _counterparts(before: Tree, after: Tree) -> dict[int, int]:
    """Each after-only hole and the before-hole in its place (``{p0} = {p1}`` -> ``{p0} = {p2}``: 2 replaces 1)."""
    found: dict[int, int] = {}
    if after.is_hole and before.is_hole and after.hole != before.hole:
        found[after.hole] = before.hole
    elif not after.is_hole and not before.is_hole and len(after.children) == len(before.children):
        for b, a in zip(before.children, after.children, strict=True):
            found.update(_counterparts(b, a))
    return found


def _following(mentioned: list[int], values: list[int]) -> float:
    """Near 1 for new values that the prompt gives just after it quotes the code they replace, 0 for none."""
    if not values:
        return 0.0
    gaps = [min((at - m for m in mentioned if m <= at), default=None) for at in values]
    return sum(1 / (1 + gap / 100) for gap in gaps if gap is not None) / len(values)


def _instantiated(pattern: Tree, values: Mapping[int, Tree]) -> Tree:
    if pattern.is_hole:
        return values[pattern.hole]
    return Tree(pattern.label, tuple(_instantiated(c, values) for c in pattern.children))


def _unify(pattern: Tree, tree: Tree, bound: dict[int, Tree]) -> bool:
    """Whether ``tree`` is an instance of ``pattern``; ``bound`` gets each hole's subtree (one per hole)."""
    if pattern.is_hole:
        if not isinstance(tree.node, cst.BaseExpression):
            return False
        return bound.setdefault(pattern.hole, tree) == tree
    if pattern.label != tree.label or len(pattern.children) != len(tree.children):
        return False
    return all(_unify(p, t, bound) for p, t in zip(pattern.children, tree.children, strict=True))


def _places(module: cst.Module, target: Tree) -> list[cst.CSTNode]:
    return [t.node for t in tree_of(module).walk() if t == target and t.node is not None]


def _needles(pattern: Tree) -> list[str]:
    """The pattern's names and literals: text a file must hold for the pattern to match in it."""
    values = (t.label.partition(":")[2] for t in pattern.walk())
    return [value for value in values if value.strip(".")]
