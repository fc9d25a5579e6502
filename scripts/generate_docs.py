"""Regenerate the generated sections of the README and the docs from the committed files they show.

A generated section is the text between ``<!-- generated: NAME -->`` and ``<!-- /generated: NAME -->``
in README.md or a page under docs/. ``GENERATORS`` maps each NAME to a function that makes the
section's text from a committed source, so a table is never edited by hand and cannot drift from
what it shows: ``tests/test_generated_docs.py`` fails when a section differs from its generator's
text, or when a marker names no generator.

    python scripts/generate_docs.py           # rewrite every generated section
    python scripts/generate_docs.py --check   # only say which sections are out of date (exit 1)
"""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import re
import statistics
import sys
from collections import Counter
from collections.abc import Callable, Iterable
from dataclasses import dataclass, fields
from pathlib import Path
from typing import Any

from pytest_granularity.cli import main as granularity
from pytest_granularity.core.distribution import requirement
from pytest_granularity.gate.metrics import ALL_FAMILIES, Summary
from pytest_granularity.gate.workflow import gate_workflow, workflow_head
from pytest_granularity.mining.miner import REASONS
from pytest_granularity.report.model_summary import HEADERS as MODEL_HEADERS
from pytest_granularity.report.render import read_summary, render_markdown, render_table

REPO = Path(__file__).resolve().parent.parent
REFERENCE_REPORT = Path(".granularity/reference/report.json")
"""The summaries of the reference agent's whole matrix, as ``--granularity-report`` wrote them (its
``.jsonl`` of run records, 9.5 MB of transcripts, is not committed: the tables need only the summaries)."""

SECTION = re.compile(
    r"(?P<start><!-- generated: (?P<name>[a-z0-9-]+) -->\n)(?P<body>.*?)(?P<end><!-- /generated: (?P=name) -->)", re.S
)
START = re.compile(r"<!-- generated: ([a-z0-9-]+) -->")


def reference_summaries(root: Path, report: Path = REFERENCE_REPORT) -> list[Summary]:
    """A committed report's summaries over all families, in the order the session printed them."""
    names = {f.name for f in fields(Summary)}
    rows = read_summary(root / report)["summaries"]
    return [
        Summary(**{**{k: v for k, v in row.items() if k in names}, "success_ci": tuple(row["success_ci"])})
        for row in rows
        if row["family"] == ALL_FAMILIES
    ]


def reference_results(root: Path) -> str:
    """The results table of every task with every policy, as ``granularity report --markdown`` prints it."""
    return render_markdown(reference_summaries(root))


def hybrid_table(root: Path) -> str:
    """The terminal table of the README's first command (``--granularity=hybrid``), in a text block."""
    rows = [s for s in reference_summaries(root) if s.policy == "hybrid"]
    return f"```text\n{render_table(rows)}\n```"


def task_families(root: Path) -> str:
    """``granularity tasks stats`` over the shipped tasks: families, macro fit and macros used."""
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        status = granularity(["tasks", "stats", str(root / "benchmark_tasks")])
    if status:
        raise RuntimeError(f"granularity tasks stats exited {status}")
    return out.getvalue().rstrip("\n")


LOCAL_MODEL = Path(".granularity/local-model")
"""The bundled model's recording: ``report.json`` (the recording session's summaries), beside the
no-model baseline's over the same tasks and policies (``no-model-baseline.json``)."""


def _all_families(path: Path) -> dict[tuple[str, str], dict[str, object]]:
    return {(r["policy"], r["fault"]): r for r in read_summary(path)["summaries"] if r["family"] == ALL_FAMILIES}


def local_model_results(root: Path) -> str:
    """The bundled model's success and tokens per policy and fault, beside what the no-model baseline solves."""
    model = _all_families(root / LOCAL_MODEL / "report.json")
    baseline = _all_families(root / LOCAL_MODEL / "no-model-baseline.json")
    lines = [
        "| policy | fault | runs | SmolLM2: success [95% CI] | no model, first suggestion: success | "
        "SmolLM2: tokens (mean / median) | steps (mean) |",
        "|---|---|---|---|---|---|---|",
    ]
    for (policy, fault), row in model.items():
        low, high = row["success_ci"]  # type: ignore[misc]
        other = baseline.get((policy, fault), {}).get("success_rate")
        lines.append(
            f"| {policy} | {fault} | {row['runs']} | {row['success_rate']:.3f} [{low:.3f}, {high:.3f}] | "
            f"{'-' if other is None else f'{other:.3f}'} | {row['mean_tokens']:.1f} / {row['median_tokens']:g} | "
            f"{row['mean_steps']:.2f} |"
        )
    return "\n".join(lines)


def local_model_replies(root: Path) -> str:
    """How the bundled model replied, per policy: the report's model table, and the server it talked to."""
    report = read_summary(root / LOCAL_MODEL / "report.json")
    lines = [f"| {' | '.join(MODEL_HEADERS)} |", "|---" * len(MODEL_HEADERS) + "|"]
    for row in report["model_runs"]:
        reasons = ", ".join(f"{k}={v}" for k, v in row["stop_reasons"].items())
        cells = [row["policy"], row["runs"], row["model_calls"], row["without_call"], row["cut_off"]]
        lines.append(f"| {' | '.join(map(str, cells))} | {row['cut_observations']} | {reasons} |")
    servers = ", ".join(f"`{s}`" for s in report["model_servers"])
    return "\n".join(lines) + f"\n\nServer: {servers}."


ABLATION = (
    ("off", "ablation-off.json"),
    ("listed", "ablation-listed.json"),
    ("constrained", "ablation-constrained.json"),
)
"""The macro policy without faults, each way of offering suggestions (constrained: replayed from the main recording)."""


def local_model_ablation(root: Path) -> str:
    """What the suggestions buy the bundled model in the macro policy: success, tokens, and how its calls failed."""
    lines = [
        "| suggestions | runs | success [95% CI] | tokens (mean) | model calls | no tool call | macro calls | "
        "refused on shape (protocol_failure) | refused by preconditions |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    for mode, name in ABLATION:
        report = read_summary(root / LOCAL_MODEL / name)
        row = _all_families(root / LOCAL_MODEL / name)[("macro", "none")]
        replies = next(r for r in report["model_runs"] if r["policy"] == "macro")
        audit = report["macro_audit"]
        calls = sum(m["calls"] for m in audit)
        shape = sum(m["failures"].get("protocol_failure", 0) for m in audit)
        refused = sum(m["failures"].get("precondition_mismatch", 0) for m in audit)
        low, high = row["success_ci"]  # type: ignore[misc]
        lines.append(
            f"| {mode} | {row['runs']} | {row['success_rate']:.3f} [{low:.3f}, {high:.3f}] | "
            f"{row['mean_tokens']:.1f} | {replies['model_calls']} | {replies['without_call']} | {calls} | {shape} | "
            f"{refused} |"
        )
    return "\n".join(lines)


MINING_RESULTS = Path(".granularity/mining")
"""What ``scripts/mine_repository.py`` kept of each real repository mined: every candidate's decision."""


def _mined(root: Path) -> list[dict[str, object]]:
    files = sorted(p for p in (root / MINING_RESULTS).glob("*.json") if not p.name.startswith(("matrix-", "speed-")))
    return [json.loads(p.read_text(encoding="utf-8")) for p in files]


def mining_results(root: Path) -> str:
    """Per repository (a column each): commits read, candidates, kept, every rejection reason counted, time."""
    results = _mined(root)
    columns: list[list[str]] = []
    for result in results:
        rows = list(result["commits"].values())  # type: ignore[attr-defined]
        reasons = Counter(row.get("reason") for row in rows if "kept" not in row)
        kept = len(rows) - sum(reasons.values())
        median = statistics.median(row.get("seconds", 0.0) for row in rows) if rows else 0.0
        columns.append(
            [
                f"[{result['name']}]({result['url']})",
                str(result["commits_read"]),
                str(len(rows)),
                f"**{kept} ({kept / len(rows):.0%})**" if rows else "0",
                *(str(reasons.get(reason, 0)) for reason in REASONS),
                f"{median:.1f}",
                f"{float(result['seconds']) / 60:.1f}",  # type: ignore[arg-type]
                "dev env" if "development" in str(result.get("environment", "")) else "plain venv",
            ]
        )
    names = ["", "commits read", "candidates", "kept", *(f"rejected: {r}" for r in REASONS)]
    names += ["seconds per candidate (median)", "minutes in all (2 jobs)", "mined from"]
    lines = ["|  | " + " | ".join(c[0] for c in columns) + " |"]
    lines.append("|---|" + "---|" * len(columns))
    lines += [f"| {names[n]} | " + " | ".join(c[n] for c in columns) + " |" for n in range(1, len(names))]
    return "\n".join(lines)


def mining_speed(root: Path) -> str:
    """Per repository: its whole suite's time and what a decided and a kept candidate cost (scripts/mining_speed.py)."""
    lines = [
        "| repository | suite (s) | decided candidate, median (s) | kept candidate, median (s) | kept, in suite runs |"
        " pytest runs per kept (median) |",
        "|---|---|---|---|---|---|",
    ]
    for path in sorted((root / MINING_RESULTS).glob("speed-*.json")):
        r = json.loads(path.read_text(encoding="utf-8"))
        lines.append(
            f"| {r['name']} | {r['suite_seconds']:.1f} | {r['decided_median_seconds']} | {r['kept_median_seconds']} |"
            f" **{r['kept_median_suites']}** | {r['kept_median_runs']} |"
        )
    return "\n".join(lines)


def mining_macro_fit(root: Path) -> str:
    """Per repository and macro: the real commits a registered macro's derived call reproduced."""
    lines = [
        "| repository | kept tasks | reproduced by a macro | by macro | derived calls tried |",
        "|---|---|---|---|---|",
    ]
    for result in _mined(root):
        kept = [row for row in result["commits"].values() if "kept" in row]  # type: ignore[attr-defined]
        by_macro = Counter(row["macro"] for row in kept if row.get("macro"))
        shown = ", ".join(f"{name} {count}" for name, count in sorted(by_macro.items())) or "-"
        tried = sum(row.get("macro_calls_tried", 0) for row in kept)
        lines.append(f"| {result['name']} | {len(kept)} | {sum(by_macro.values())} | {shown} | {tried} |")
    return "\n".join(lines)


def mining_matrix(root: Path) -> str:
    """The reference agent's whole matrix on each repository's mined tasks (its committed report), the
    learned router as trained on GranBench-Code beside the per-task oracle (the oracle gap)."""
    parts = []
    for report in sorted((root / MINING_RESULTS).glob("matrix-*.json")):
        name = report.stem.removeprefix("matrix-")
        parts.append(f"**{name}**\n\n{render_markdown(reference_summaries(root, report.relative_to(root)))}")
    return "\n\n".join(parts)


EVOLUTION_RESULTS = Path(".granularity/evolution")
"""What ``scripts/evolution_rediscovery.py`` and ``scripts/evolution_time_split.py`` measured."""


def _rate(tally: dict[str, Any]) -> str:
    low, high = tally["interval"]
    return f"{tally['solved']} of {tally['tasks']} ({tally['rate']:.3f} [{low:.3f}, {high:.3f}])"


def _macros(support: dict[str, int]) -> str:
    """Mined macros with the tasks each reproduces."""
    return ", ".join(f"{name} ({n})" for name, n in sorted(support.items())) or "none"


def evolution_rediscovery(root: Path) -> str:
    """Per held-out fold of GranBench-Code: the macros mined from the other folds' micro runs, what they solve in
    macro mode with no model, and what the builtin macros solve there."""
    path = root / EVOLUTION_RESULTS / "rediscovery.json"
    if not path.exists():
        return "(not measured yet: `python scripts/evolution_rediscovery.py`)"
    result = json.loads(path.read_text(encoding="utf-8"))
    lines = [
        "| held-out fold | tasks | macros mined from the other folds (tasks each reproduces) | solved by them | "
        "harmful | covered in part by the reference agent's calls (median share of lines) | "
        "solved by the builtins | harmful |",
        "|---|---|---|---|---|---|---|---|",
    ]
    shares = []
    for fold in result["folds"]:
        covered = [c["share"] for c in fold.get("reference_coverage", [])]
        shares += covered
        lines.append(
            f"| {fold['fold']} | {fold['held_out']} | {_macros(fold['macros'])} | {fold['mined']['solved']} | "
            f"{fold['mined']['harmful']} | {_shares(covered)} | {fold['builtin']['solved']} | "
            f"{fold['builtin']['harmful']} |"
        )
    mined, builtin = result["mined"], result["builtin"]
    lines.append(
        f"| **all** | {mined['tasks']} |  | **{_rate(mined)}** | **{mined['harmful']}** | **{_shares(shares)}** | "
        f"**{_rate(builtin)}** | **{builtin['harmful']}** |"
    )
    return "\n".join(lines)


def evolution_time_split(root: Path) -> str:
    """Per real repository: macros mined from its older mined tasks, measured on the newer ones: solved with no
    model, harmful calls, and the newer commits the reference agent's calls of them cover in part."""
    lines = [
        "| repository | older commits mined (of one shape; with pieces of one; module moves; text replacements) | "
        "shapes | macros kept | newer commits | solved by them | "
        "harmful | newer commits the reference agent's calls cover in part | their changed lines covered (median) | "
        "tokens of a solved task, macro / micro |",
        "|---|---|---|---|---|---|---|---|---|---|",
    ]
    for result in _time_splits(root):
        solved = result["newer_solved"]
        tokens = result["tokens"].values()
        shown = (
            f"{statistics.median(t['macro'] for t in tokens):.0f} / {statistics.median(t['micro'] for t in tokens):.0f}"
            if tokens
            else "-"
        )
        covered = result.get("reference_coverage")
        shares = [c["share"] for c in covered or []]
        kinds = result.get("moves", 0) + result.get("replacements", 0)
        lines.append(
            f"| {result['repository']} | {result['older']} ({result['older'] - sum(result['unused'].values()) - kinds}"
            f"; {result.get('with_pieces', '-')}; {result.get('moves', '-')}; {result.get('replacements', '-')}) | "
            f"{result['shapes']} | {_macros(result['macros'])} | "
            f"{result['newer']} | {_rate(solved)} | {solved['harmful']} | "
            f"{_covered(covered, result.get('solved_by_reference_calls', []))} | "
            f"{f'{statistics.median(shares):.2f}' if shares else '-'} | {shown} |"
        )
    return "\n".join(lines)


def evolution_partial_use(root: Path) -> str:
    """Per real repository: the newer commits the mined macros cover in part, each run through the plugin by the
    reference agent in hybrid (macro calls for the pieces, micro tools for the rest) and in micro."""
    lines = [
        "| repository | newer commits covered in part | solved, hybrid / micro | handed over (a call failed) | "
        "macro coverage (median) | steps, hybrid / micro (median) | tokens, hybrid / micro (median) | "
        "hybrid cheaper |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for result in _time_splits(root):
        runs = result.get("partial_use") or []
        if not runs:
            continue
        failed = sum(r.get("failure_class") is not None for r in runs)
        lines.append(
            f"| {result['repository']} | {len(runs)} | {sum(r['hybrid_solved'] for r in runs)} / "
            f"{sum(r['micro_solved'] for r in runs)} | {sum(r['handed_over'] for r in runs)} ({failed}) | "
            f"{_median(r['macro_coverage'] for r in runs):.2f} | {_pair(runs, 'steps')} | {_pair(runs, 'tokens')} | "
            f"{sum(r['hybrid_tokens'] < r['micro_tokens'] for r in runs)} of {len(runs)} |"
        )
    return "\n".join(lines) if len(lines) > 2 else "(not measured yet: `python scripts/evolution_time_split.py`)"


def _time_splits(root: Path) -> list[dict[str, Any]]:
    return [
        json.loads(p.read_text(encoding="utf-8")) for p in sorted((root / EVOLUTION_RESULTS).glob("time-split-*.json"))
    ]


def _median(values: Iterable[float | None]) -> float:
    return statistics.median(v or 0.0 for v in values)


def _pair(runs: list[dict[str, Any]], field: str) -> str:
    return f"{_median(r[f'hybrid_{field}'] for r in runs):.0f} / {_median(r[f'micro_{field}'] for r in runs):.0f}"


def _shares(shares: list[float]) -> str:
    return f"{len(shares)} ({statistics.median(shares):.2f})" if shares else "0"


def _covered(covered: list[dict[str, Any]] | None, solved: list[str]) -> str:
    """How many newer commits the reference agent's calls cover in part, and how many they solve alone."""
    if covered is None:
        return "not measured"
    return f"{len(covered)} ({len(solved)} solved by the calls alone)" if covered else "0"


def gate_workflow_block(root: Path) -> str:
    """docs/gate.md's workflow to copy: the one ``granularity init`` writes, run on this repository's benchmark."""
    arguments = [
        "benchmark_tasks --granularity=all -n 2 --dist loadfile",
        "--granularity-baseline=git:origin/main:.granularity/baseline.json --granularity-sandbox=bwrap",
    ]
    return f"```yaml\n{gate_workflow(arguments)}```"


HOST_STEPS = """\
      - run: npm install -g @anthropic-ai/claude-code@VERSION   # the version you recorded with
      - run: python -m pip install '{requirement}'
      - run: >-
          python -m pytest benchmark_tasks --granularity=micro,macro,hybrid -n 2
          --granularity-agent=host:claude --granularity-model=claude-sonnet-4-5
          --granularity-model-cache=.granularity/claude --granularity-model-cache-mode=replay
          --granularity-baseline=.granularity/claude-baseline.json
        env:
          ANTHROPIC_API_KEY: replay-only
"""


def host_workflow_block(root: Path) -> str:
    """docs/hosts.md's workflow to copy: a recorded agent host replayed on every pull request."""
    steps = HOST_STEPS.format(requirement=requirement(["mcp", "parallel"]))
    return f"```yaml\n{workflow_head('claude-code-gate')}{steps}```"


MINING_WORKFLOW = """\
name: mine-tasks
on:
  workflow_dispatch:
permissions:
  contents: read                # mining reads the history; nothing is written back
env:
  SHARDS: 4                     # the runners; the matrix below counts 1 to SHARDS
jobs:
  mine:
    runs-on: ubuntu-latest
    strategy:
      fail-fast: false
      matrix:
        shard: [1, 2, 3, 4]
    steps:
      - uses: actions/checkout@11d5960a326750d5838078e36cf38b85af677262  # v4.4.0
        with:
          path: repo
          fetch-depth: 0        # the whole history: a shallow clone is refused
          persist-credentials: false
      - uses: actions/setup-python@a26af69be951a213d495a4c3e4e4022e16d87065  # v5.6.0
        with:
          python-version: "3.11"
      - run: |                  # the sandbox for the tests and the cheating agents (docs/sandbox.md)
          sudo apt-get install -y bubblewrap || {{ sudo apt-get update && sudo apt-get install -y bubblewrap; }}
          sudo sysctl -w kernel.apparmor_restrict_unprivileged_userns=0 || true
      - run: python -m pip install '{requirement}'   # and your tests' dependencies, not your project
      - run: granularity tasks mine repo -o "mined-$SHARD" --shard "$SHARD/$SHARDS"
        env:
          SHARD: ${{{{ matrix.shard }}}}
      - uses: actions/upload-artifact@ea165f8d65b6e75b540449e92b4886f43607fa02  # v4.6.2
        with:
          name: mined-${{{{ matrix.shard }}}}
          path: mined-${{{{ matrix.shard }}}}/
          include-hidden-files: true   # a test tree's dotfiles are the task's too
          if-no-files-found: error
  merge:
    needs: mine
    runs-on: ubuntu-latest
    steps:
      - uses: actions/setup-python@a26af69be951a213d495a4c3e4e4022e16d87065  # v5.6.0
        with:
          python-version: "3.11"
      - run: python -m pip install '{requirement}'
      - uses: actions/download-artifact@d3f86a106a0bac45b974a628896c90dbdf5c8093  # v4.3.0
        with:
          pattern: mined-*
          path: shards/         # each shard in shards/mined-K/
      - run: granularity tasks merge shards/mined-* -o mined-tasks
      - uses: actions/upload-artifact@ea165f8d65b6e75b540449e92b4886f43607fa02  # v4.6.2
        with:
          name: mined-tasks
          path: mined-tasks/
          include-hidden-files: true   # a test tree's dotfiles are the task's too
          if-no-files-found: error
"""


def mining_workflow_block(root: Path) -> str:
    """docs/mining.md's workflow to copy: a history mined in shards on parallel runners, then merged."""
    return f"```yaml\n{MINING_WORKFLOW.format(requirement=requirement())}```"


GENERATORS: dict[str, Callable[[Path], str]] = {
    "reference-results": reference_results,
    "hybrid-table": hybrid_table,
    "task-families": task_families,
    "local-model-results": local_model_results,
    "local-model-replies": local_model_replies,
    "local-model-ablation": local_model_ablation,
    "mining-results": mining_results,
    "mining-macro-fit": mining_macro_fit,
    "mining-speed": mining_speed,
    "mining-matrix": mining_matrix,
    "evolution-rediscovery": evolution_rediscovery,
    "evolution-time-split": evolution_time_split,
    "evolution-partial-use": evolution_partial_use,
    "gate-workflow": gate_workflow_block,
    "host-workflow": host_workflow_block,
    "mining-workflow": mining_workflow_block,
}


def documents(root: Path) -> list[Path]:
    """The markdown files that may hold generated sections."""
    return [root / "README.md", *sorted((root / "docs").rglob("*.md"))]


@dataclass(frozen=True)
class Section:
    path: Path
    name: str
    text: str


def sections(path: Path) -> list[Section]:
    """Every generated section of ``path``, with its text as committed."""
    return [Section(path, m["name"], m["body"].rstrip("\n")) for m in SECTION.finditer(path.read_text())]


def unclosed(path: Path) -> list[str]:
    """Names whose start marker has no matching end marker in ``path``."""
    text = path.read_text()
    closed = {m["name"] for m in SECTION.finditer(text)}
    return [name for name in START.findall(text) if name not in closed]


def regenerate(path: Path, texts: dict[str, str]) -> str:
    """``path``'s text with every generated section replaced by its generator's text."""
    return SECTION.sub(lambda m: f"{m['start']}{texts[m['name']]}\n{m['end']}", path.read_text())


def generated_texts(root: Path, names: set[str]) -> dict[str, str]:
    """Each named section's text, made once even when several files show it."""
    unknown = sorted(names - GENERATORS.keys())
    if unknown:
        raise KeyError(f"no generator for {', '.join(unknown)}; known: {', '.join(sorted(GENERATORS))}")
    return {name: GENERATORS[name](root) for name in sorted(names)}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--check", action="store_true", help="change nothing; exit 1 if a section is out of date")
    args = parser.parse_args(argv)
    paths = documents(REPO)
    broken = [f"{p.relative_to(REPO)}: '{name}' is never closed" for p in paths for name in unclosed(p)]
    if broken:
        print("\n".join(broken), file=sys.stderr)
        return 2
    found = [s for p in paths for s in sections(p)]
    texts = generated_texts(REPO, {s.name for s in found})
    stale = [s for s in found if s.text != texts[s.name]]
    for section in stale:
        print(f"{section.path.relative_to(REPO)}: '{section.name}' is out of date", file=sys.stderr)
    if args.check:
        return 1 if stale else 0
    for path in sorted({s.path for s in stale}):
        path.write_text(regenerate(path, texts))
        print(f"regenerated {path.relative_to(REPO)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
