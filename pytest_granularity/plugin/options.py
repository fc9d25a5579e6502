"""The plugin's command-line options and ini keys: names, defaults and help, nothing read yet.

Declared apart from the hooks so anything that builds a parser (the plugin, the ``granularity``
command) offers the same options; ``settings`` reads them once when the session is configured.
"""

from __future__ import annotations

import pytest

from ..process.sandbox import MODES as SANDBOX_MODES
from ..run.policies import RECOVERY_OVERRIDES

FAULT_SETS = ("declared", "all")
"""``--granularity-faults``: each task's declared faults, or early and late wherever a macro call is declared."""


def add_options(parser: pytest.Parser) -> None:
    """The command-line options and ini keys; each ini key is the default of its option."""
    group = parser.getgroup("granularity", "skill granularity benchmark (pytest-granularity)")
    group.addoption(
        "--granularity",
        default=None,
        metavar="POLICY[,POLICY]",
        help="run every task.yaml under the given paths with these policies "
        "(micro, macro, hybrid, heuristic, learned, or all).",
    )
    group.addoption(
        "--granularity-contracts",
        action="store_true",
        help="check every macro (built-in, --granularity-macros, plugins, and macro folders given as paths) "
        "against its contract, one test per check.",
    )
    group.addoption(
        "--granularity-retrieval-k",
        type=int,
        default=None,
        metavar="K",
        help="offer only the top K macros for a task (BM25); 0 offers all (default 5).",
    )
    group.addoption(
        "--granularity-breaker",
        type=int,
        default=None,
        metavar="N",
        help="disable a macro after N consecutive malfunctions in a session; 0 never (default 5).",
    )
    group.addoption(
        "--granularity-router",
        default=None,
        metavar="PATH",
        help="the learned policy's router (default: router.json in the rootdir).",
    )
    group.addoption("--granularity-agent", default=None, metavar="NAME", help="agent to drive (default: reference).")
    group.addoption(
        "--granularity-suggestions",
        default=None,
        metavar="off|listed|constrained",
        help="how a macro phase offers the calls each macro suggests for the task: not at all, listed in its "
        "description, or as the only arguments it allows (default: off for the reference agent, which knows "
        "the answer; constrained for every other agent).",
    )
    group.addoption(
        "--granularity-max-steps",
        type=int,
        default=None,
        metavar="N",
        help="step limit per run (default: the task's, else 40).",
    )
    group.addoption("--granularity-macros", default=None, metavar="PATH", help="a folder of extra macros to register.")
    group.addoption(
        "--granularity-report",
        default=None,
        metavar="PATH",
        help="write the summaries as JSON to PATH and every run record (with transcript) to PATH with .jsonl.",
    )
    group.addoption(
        "--granularity-plot",
        default=None,
        metavar="PATH",
        help="write a PNG of success against tokens (text chart without matplotlib).",
    )
    group.addoption(
        "--granularity-html",
        default=None,
        metavar="PATH",
        help="write one self-contained HTML page: the summary, the plot, "
        "and every run's transcript, transitions, macro log and diff.",
    )
    group.addoption(
        "--granularity-shard",
        default=None,
        metavar="I/N",
        help="run only shard I of N (whole tasks, a deterministic slice); "
        "merge the shards' reports with 'granularity merge'.",
    )
    group.addoption(
        "--granularity-faults",
        default=None,
        choices=FAULT_SETS,
        help="which faulted runs to add: declared (each task's faults: list, the default) or all "
        "(early and late on every task with a reference macro call, in every family).",
    )
    group.addoption(
        "--granularity-epochs",
        type=int,
        default=None,
        metavar="N",
        help="run every task, policy and fault N times (items <task>[<policy>-e<k>]), each with its own seed; "
        "the gate then tests for significance (default 1).",
    )
    group.addoption(
        "--granularity-seed",
        type=int,
        default=None,
        metavar="S",
        help="base seed of the agent; epoch k runs with seed S + k (default 0).",
    )
    group.addoption(
        "--granularity-recovery",
        default=None,
        choices=sorted(RECOVERY_OVERRIDES),
        help="override macro-first policies' recovery: never (the no-recovery baseline) or always (always degrade).",
    )
    group.addoption(
        "--granularity-sandbox",
        default=None,
        choices=SANDBOX_MODES,
        help="run tests, verifiers and macros in a bubblewrap sandbox: "
        "auto (when bwrap works here; the default), bwrap (required), none.",
    )
    gate = parser.getgroup("granularity-gate", "gate on a baseline (pytest-granularity)")
    gate.addoption(
        "--granularity-baseline",
        default=None,
        metavar="PATH|git:REF:PATH",
        help="compare with this baseline; fail on regressions.",
    )
    gate.addoption(
        "--granularity-update-baseline",
        action="store_true",
        help="write this session's runs as the baseline (and report stale entries).",
    )
    gate.addoption(
        "--granularity-max-token-increase",
        default=None,
        metavar="PCT",
        help="fail when a policy's mean tokens rise more than this (default 5%%).",
    )
    gate.addoption(
        "--granularity-max-success-drop",
        default=None,
        metavar="X",
        help="fail when a policy's success rate drops more than this (default 0).",
    )
    gate.addoption(
        "--granularity-test-token-tolerance",
        default=None,
        metavar="PCT",
        help="fail a test whose tokens rise more than this (default 10%%).",
    )
    gate.addoption(
        "--granularity-alpha",
        default=None,
        metavar="A",
        help="with epochs: the gate's false-alarm rate when nothing changed; "
        "a drop must be significant at this level (default 0.05).",
    )
    for name, help_text in (
        ("granularity_baseline", "baseline to gate on: a path relative to the rootdir, or git:REF:PATH"),
        ("granularity_max_token_increase", "default for --granularity-max-token-increase"),
        ("granularity_max_success_drop", "default for --granularity-max-success-drop"),
        ("granularity_test_token_tolerance", "default for --granularity-test-token-tolerance"),
        ("granularity_alpha", "default for --granularity-alpha"),
    ):
        parser.addini(name, help_text, default="")
    parser.addini("granularity_retrieval_k", "default for --granularity-retrieval-k", default="")
    parser.addini("granularity_suggestions", "default for --granularity-suggestions", default="")
    parser.addini("granularity_faults", "default for --granularity-faults (declared or all)", default="")
    parser.addini("granularity_breaker", "default for --granularity-breaker", default="")
    parser.addini("granularity_epochs", "default for --granularity-epochs", default="")
    parser.addini("granularity_seed", "default for --granularity-seed", default="")
    parser.addini("granularity_agent", "agent to drive (default: reference)", default="reference")
    parser.addini("granularity_macros", "a folder of extra macros to register, relative to the rootdir", default="")
    parser.addini("granularity_sandbox", "default for --granularity-sandbox (auto, bwrap or none)", default="auto")
