"""The plugin's command-line options and ini keys, declared once as a table, and the one reader of their values.

Each :class:`Option` is a command-line option ``--granularity-NAME`` and, unless it has none, the ini key
``granularity_NAME`` that is its default; its help shows its default, rendered from the value. Declared apart
from the hooks so anything that builds a parser (the plugin, the ``granularity`` command) offers the same options;
``settings`` reads them once when the session is configured, through :func:`setting`.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import pytest

from ..core.defaults import (
    ALPHA,
    DEFAULT_BREAKER,
    DEFAULT_TOP_K,
    MAX_SUCCESS_DROP,
    MAX_TOKEN_INCREASE,
    TEST_TOKEN_TOLERANCE,
)
from ..core.tasks import DEFAULT_MAX_STEPS
from ..process.sandbox import MODES as SANDBOX_MODES
from ..process.sandbox import Sandbox, SandboxUnavailable
from ..process.sandbox import select as select_sandbox
from ..run.policies import RECOVERY_OVERRIDES

FAULT_SETS = ("declared", "all")
"""``--granularity-faults``: each task's declared faults, or early and late wherever a macro call is declared."""
GROUP = ("granularity", "skill granularity benchmark (pytest-granularity)")
GATE = ("granularity-gate", "gate on a baseline (pytest-granularity)")
PREFIX = "granularity"


@dataclass(frozen=True)
class Option:
    """One setting. ``help`` may name ``{default}``: the default's text (``shown``, else ``default``) goes there."""

    name: str
    help: str
    default: Any = None
    """What :func:`setting` answers when neither the option nor the ini key is given."""
    metavar: str | None = None
    type: Callable[[str], Any] = str
    """Parses the option and the ini key alike (``int``: a whole number)."""
    choices: Sequence[str] | None = None
    ini: bool = True
    """Whether an ini key ``granularity_NAME`` gives the option's default."""
    flag: bool = False
    """A switch (``store_true``): no value, and no ini key."""
    shown: Any = None
    """The default as the help shows it, when :func:`setting` has none (the code that reads the option decides)
    or the value alone would not say it (a percentage, say)."""
    group: tuple[str, str] = GROUP

    @property
    def has_ini(self) -> bool:
        return self.ini and not self.flag

    @property
    def flag_name(self) -> str:
        return f"--{PREFIX}-{self.name}" if self.name else f"--{PREFIX}"

    @property
    def ini_name(self) -> str:
        return f"{PREFIX}_{self.name.replace('-', '_')}"

    def help_text(self) -> str:
        return self.help.format(default=self.shown if self.shown is not None else self.default)


def _percent(fraction: float) -> str:
    return f"{fraction:.0%}"


OPTIONS: tuple[Option, ...] = (
    Option(
        "",
        "run every task.yaml under the given paths with these policies "
        "(micro, macro, hybrid, heuristic, learned, or all).",
        metavar="POLICY[,POLICY]",
        ini=False,
    ),
    Option(
        "contracts",
        "check every macro (built-in, --granularity-macros, plugins, and macro folders given as paths) "
        "against its contract, one test per check.",
        flag=True,
    ),
    Option(
        "retrieval-k",
        "offer only the top K macros for a task (BM25); 0 offers all (default {default}).",
        DEFAULT_TOP_K,
        "K",
        int,
    ),
    Option(
        "breaker",
        "disable a macro after N consecutive malfunctions in a session; 0 never (default {default}).",
        DEFAULT_BREAKER,
        "N",
        int,
    ),
    Option("router", "the learned policy's router (default: router.json in the rootdir).", metavar="PATH", ini=False),
    Option("agent", "agent to drive (default: {default}).", "reference", "NAME"),
    Option(
        "suggestions",
        "how a macro phase offers the calls each macro suggests for the task: not at all, listed in its "
        "description, or as the only arguments it allows (default: off for the reference agent, which knows "
        "the answer; constrained for every other agent).",
        metavar="off|listed|constrained",
    ),
    Option(
        "max-steps",
        "step limit per run (default: the task's, else {default}).",
        metavar="N",
        type=int,
        ini=False,
        shown=str(DEFAULT_MAX_STEPS),
    ),
    Option("macros", "a folder of extra macros to register (the ini key's: relative to the rootdir).", metavar="PATH"),
    Option(
        "report",
        "write the summaries as JSON to PATH and every run record (with transcript) to PATH with .jsonl.",
        metavar="PATH",
        ini=False,
    ),
    Option(
        "plot",
        "write a PNG of success against tokens (text chart without matplotlib).",
        metavar="PATH",
        ini=False,
    ),
    Option(
        "html",
        "write one self-contained HTML page: the summary, the plot, "
        "and every run's transcript, transitions, macro log and diff.",
        metavar="PATH",
        ini=False,
    ),
    Option(
        "shard",
        "run only shard I of N (whole tasks, a deterministic slice); "
        "merge the shards' reports with 'granularity merge'.",
        metavar="I/N",
        ini=False,
    ),
    Option(
        "faults",
        "which faulted runs to add: declared (each task's faults: list, the default) or all "
        "(early and late on every task with a reference macro call, in every family).",
        FAULT_SETS[0],
        choices=FAULT_SETS,
    ),
    Option(
        "epochs",
        "run every task, policy and fault N times (items <task>[<policy>-e<k>]), each with its own seed; "
        "the gate then tests for significance (default {default}).",
        1,
        "N",
        int,
    ),
    Option("seed", "base seed of the agent; epoch k runs with seed S + k (default {default}).", 0, "S", int),
    Option(
        "recovery",
        "override macro-first policies' recovery: never (the no-recovery baseline) or always (always degrade).",
        choices=sorted(RECOVERY_OVERRIDES),
        ini=False,
    ),
    Option(
        "sandbox",
        "run tests, verifiers and macros in a bubblewrap sandbox: "
        "auto (when bwrap works here; the default), bwrap (required), none.",
        "auto",
        choices=SANDBOX_MODES,
    ),
    Option(
        "baseline",
        "compare with this baseline (a path relative to the rootdir, or git:REF:PATH); fail on regressions.",
        metavar="PATH|git:REF:PATH",
        group=GATE,
    ),
    Option(
        "update-baseline",
        "write this session's runs as the baseline (and report stale entries).",
        flag=True,
        group=GATE,
    ),
    Option(
        "max-token-increase",
        "fail when a policy's mean tokens rise more than this (default {default}).",
        metavar="PCT",
        shown=_percent(MAX_TOKEN_INCREASE),
        group=GATE,
    ),
    Option(
        "max-success-drop",
        "fail when a policy's success rate drops more than this (default {default}).",
        metavar="X",
        shown=f"{MAX_SUCCESS_DROP:g}",
        group=GATE,
    ),
    Option(
        "test-token-tolerance",
        "fail a test whose tokens rise more than this (default {default}).",
        metavar="PCT",
        shown=_percent(TEST_TOKEN_TOLERANCE),
        group=GATE,
    ),
    Option(
        "alpha",
        "with epochs: the gate's false-alarm rate when nothing changed; "
        "a drop must be significant at this level (default {default}).",
        metavar="A",
        shown=f"{ALPHA:g}",
        group=GATE,
    ),
)
"""Every option of the main plugin, in the order ``pytest --help`` lists them (the model plugin has its own)."""


def add_options(parser: pytest.Parser, options: Sequence[Option] = OPTIONS) -> None:
    """The options and their ini keys, each ini key the default of its option."""
    for option in options:
        group = parser.getgroup(*option.group)
        help_text = option.help_text().replace("%", "%%")  # argparse formats help with %
        if option.flag:
            group.addoption(option.flag_name, action="store_true", help=help_text)
            continue
        group.addoption(
            option.flag_name,
            default=None,
            metavar=option.metavar,
            type=None if option.type is str else option.type,
            choices=option.choices,
            help=help_text,
        )
        if option.has_ini:
            among = f" ({', '.join(option.choices)})" if option.choices else ""
            parser.addini(option.ini_name, f"default for {option.flag_name}{among}", default="")


def setting(config: pytest.Config, option: Option) -> Any:
    """The option if given, else its ini key, else its default; an ini key is parsed as the option is."""
    value = config.getoption(option.flag_name)
    if value is not None and value != "":
        return value
    raw = config.getini(option.ini_name) if option.has_ini else ""
    if not raw:
        return option.default
    try:
        return option.type(raw)
    except ValueError:
        kind = "a whole number" if option.type is int else "valid"
        raise pytest.UsageError(f"{option.ini_name}: '{raw}' is not {kind}") from None


def named(name: str, options: Sequence[Option] = OPTIONS) -> Option:
    return next(option for option in options if option.name == name)


def whole_number(config: pytest.Config, name: str) -> int:
    """A whole-number setting (:func:`setting`), never negative."""
    option = named(name)
    value = int(setting(config, option))
    if value < 0:
        raise pytest.UsageError(f"{option.flag_name}: {value} must not be negative")
    return value


def sandbox_of(config: pytest.Config) -> Sandbox:
    """The sandbox ``--granularity-sandbox`` (or the ini key) asks for, checked to work here."""
    mode = setting(config, named("sandbox"))
    if mode not in SANDBOX_MODES:
        raise pytest.UsageError(f"granularity_sandbox: '{mode}' is not one of {', '.join(SANDBOX_MODES)}")
    try:
        return select_sandbox(mode)
    except SandboxUnavailable as exc:
        raise pytest.UsageError(str(exc)) from None
