"""Bad report and run-record files given to every ``granularity`` subcommand that reads them.

Each reader (``report``, ``merge``, ``macros --report``, ``train --runs``) meets the same broken
files and must refuse each with one line naming the file, the line (for JSONL) and the field,
before doing any work; output paths are checked before any work too.
"""

from __future__ import annotations

import json
import os
import resource
import signal
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest
from bad_input_kit import assert_refused, cli, listing

from pytest_granularity.core.result import RunResult
from pytest_granularity.report.render import write_report

NESTED = "[" * 100_000 + "]" * 100_000
HUGE = "x" * 5_000_000


def _record(task: str = "t", policy: str = "micro", epoch: int = 0, **changes: object) -> dict[str, object]:
    run = RunResult(
        task=task,
        family="simple",
        policy=policy,
        fault="none",
        outcome="passed",
        mode="micro",
        steps=3,
        tokens=100,
        prompt_tokens=100,
        completion_tokens=0,
        macro_calls=0,
        stop_reason="finish",
        epoch=epoch,
    )
    return {**run.to_dict(), **changes}


def _report(folder: Path, *records: dict[str, object], name: str = "r") -> Path:
    """A valid report ``name.json`` with its ``name.jsonl``, made by the writer the plugin uses."""
    path = folder / f"{name}.json"
    write_report(path, [RunResult.from_dict(r) for r in records or (_record(),)])
    return path


def _lines(folder: Path, second: str) -> Path:
    """A valid report whose records file has ``second`` as its line 2."""
    path = _report(folder)
    records = path.with_suffix(".jsonl")
    records.write_text(records.read_text() + second + "\n")
    return path


def _byte_line(folder: Path, second: bytes) -> Path:
    """A valid report whose records file has the raw bytes ``second`` as its line 2."""
    path = _report(folder)
    records = path.with_suffix(".jsonl")
    records.write_bytes(records.read_bytes() + second + b"\n")
    return path


def _write(folder: Path, summary: bytes | None = None, records: bytes | None = None) -> Path:
    path = _report(folder)
    if summary is not None:
        path.write_bytes(summary)
    if records is not None:
        path.with_suffix(".jsonl").write_bytes(records)
    return path


def _bad_line(**fields: object) -> str:
    return json.dumps(_record(**fields))


def _missing_task() -> str:
    record = _record()
    record.pop("task")
    return json.dumps(record)


Build = Callable[[Path], Path]
BAD_FILES: list[tuple[str, Build, str]] = [
    ("missing", lambda d: d / "nope.json", "{json}: field '<file>': cannot read: No such file or directory"),
    ("folder", lambda d: (d / "r.json").mkdir() or d / "r.json", "{json}: field '<file>': cannot read: Is a directory"),
    ("summary-list", lambda d: _write(d, b"[]"), "{json}: field '<root>': [] is not of type 'object'"),
    (
        "summary-not-json",
        lambda d: _write(d, b"{oops"),
        "{json}: field '<file>': not JSON (line 1, column 2: Expecting property name enclosed in double quotes)",
    ),
    ("summary-nested", lambda d: _write(d, NESTED.encode()), "{json}: field '<file>': nested too deeply to read"),
    (
        "summary-version",
        lambda d: _write(d, b'{"schema_version": 1}'),
        "{json}: field 'schema_version': 1 is not 2 (this release reads schema version 2)",
    ),
    (
        "records-missing",
        lambda d: _report(d).with_suffix(".jsonl").unlink() or d / "r.json",
        "{jsonl}: field '<file>': cannot read: No such file or directory",
    ),
    (
        "line-not-json",
        lambda d: _lines(d, "{oops"),
        "{jsonl}:2: field '<line>': not JSON (column 2: Expecting property name enclosed in double quotes)",
    ),
    ("line-list", lambda d: _lines(d, "[1, 2]"), "{jsonl}:2: field '<root>': [1, 2] is not of type 'object'"),
    (
        "line-missing-field",
        lambda d: _lines(d, _missing_task()),
        "{jsonl}:2: field '<root>': 'task' is a required property",
    ),
    (
        "line-wrong-type",
        lambda d: _lines(d, _bad_line(tokens="many")),
        "{jsonl}:2: field 'tokens': 'many' is not of type 'integer'",
    ),
    (
        "line-negative",
        lambda d: _lines(d, _bad_line(tokens=-5)),
        "{jsonl}:2: field 'tokens': -5 is less than the minimum of 0",
    ),
    ("line-nested", lambda d: _lines(d, NESTED), "{jsonl}:2: field '<line>': nested too deeply to read"),
    (
        "line-not-utf8",
        lambda d: _byte_line(d, b'{"task": "\xff"}'),
        "{jsonl}: field '<file>': not UTF-8 text (byte * is 0xff)",
    ),
    (
        "line-huge-value",
        lambda d: _lines(d, _bad_line(tokens=[HUGE])),
        "{jsonl}:2: field 'tokens': ['xxxxxxxx*... is not of type 'integer'",
    ),
    (
        "line-unknown-outcome",
        lambda d: _lines(d, _bad_line(outcome="won")),
        "{jsonl}:2: field 'outcome': 'won' is not one of ['passed', 'failed', 'error', 'unverified']",
    ),
]


READERS: dict[str, Callable[[Path, Path], list[str]]] = {
    "report": lambda path, out: ["report", str(path)],
    "merge": lambda path, out: ["merge", str(path), "-o", str(out / "merged.json")],
    "macros": lambda path, out: ["macros", "--report", str(path)],
    "train": lambda path, out: ["train", "--runs", str(path), "-o", str(out / "router.json")],
}


@pytest.mark.parametrize("reader", sorted(READERS))
@pytest.mark.parametrize(("build", "message"), [case[1:] for case in BAD_FILES], ids=[case[0] for case in BAD_FILES])
def test_every_reader_refuses_a_bad_file_in_one_line(tmp_path, capsys, reader, build, message):
    source, out = tmp_path / "in", tmp_path / "out"
    source.mkdir()
    out.mkdir()
    path = build(source)
    before = listing(tmp_path)
    ended = cli(READERS[reader](path, out), capsys)
    expected = message.format(json=path.with_suffix(".json"), jsonl=path.with_suffix(".jsonl"))
    assert_refused(ended, f"granularity {reader}: {expected}")
    assert listing(tmp_path) == before, "WROTE-OUTSIDE: a refused command wrote files"


@pytest.mark.parametrize("reader", sorted(READERS))
@pytest.mark.parametrize("suffix", [".json", ".jsonl"])
def test_a_missing_file_is_named_as_given(tmp_path, capsys, reader, suffix):
    """``report onebad.jsonl`` said that onebad.json could not be read: a file the user never named."""
    path = tmp_path / f"onebad{suffix}"
    ended = cli(READERS[reader](path, tmp_path), capsys)
    assert_refused(ended, f"granularity {reader}: {path}: field '<file>': cannot read: No such file or directory")


def test_an_error_never_repeats_a_large_input(tmp_path, capsys):
    path = _lines(tmp_path, _bad_line(task=HUGE, tokens=[HUGE]))
    ended = cli(["report", str(path)], capsys)
    assert ended.escaped is None and ended.code == 2, f"TRACEBACK: {ended.escaped}"
    assert len(ended.err) < 400, f"UNCLEAR: the error is {len(ended.err)} characters long"


# --- output paths: checked before any work -----------------------------------------------------


def _blocker(tmp_path: Path) -> Path:
    blocker = tmp_path / "blocker"
    blocker.write_text("")
    return blocker


OUTPUTS: list[tuple[str, list[str], str]] = [
    (
        "report-plot-folder",
        ["report", "{report}", "--plot", "{dir}"],
        "granularity report: --plot: {dir} is a folder; give the path of a file to write",
    ),
    (
        "report-plot-under-file",
        ["report", "{report}", "--plot", "{file}/p.png"],
        "granularity report: --plot: cannot create {file}/p.png: {file} is a file, not a folder",
    ),
    (
        "report-html-folder",
        ["report", "{report}", "--html", "{dir}"],
        "granularity report: --html: {dir} is a folder; give the path of a file to write",
    ),
    (
        "report-update-missing",
        ["report", "{report}", "--update", "{dir}/README.md"],
        "granularity report: {dir}/README.md: field '<file>': cannot read: No such file or directory",
    ),
    (
        "report-update-folder",
        ["report", "{report}", "--update", "{dir}"],
        "granularity report: {dir}: field '<file>': cannot read: Is a directory",
    ),
    (
        "merge-output-folder",
        ["merge", "{report}", "-o", "{dir}"],
        "granularity merge: -o: {dir} is a folder; give the path of a file to write",
    ),
    (
        "merge-output-under-file",
        ["merge", "{report}", "-o", "{file}/m.json"],
        "granularity merge: -o: cannot create {file}/m.json: {file} is a file, not a folder",
    ),
    (
        "merge-records-folder",
        ["merge", "{report}", "-o", "{dir}/m.json"],
        "granularity merge: -o: {dir}/m.jsonl is a folder; give the path of a file to write",
    ),
    (
        "train-output-folder",
        ["train", "--runs", "{report}", "-o", "{dir}"],
        "granularity train: -o: {dir} is a folder; give the path of a file to write",
    ),
    (
        "train-output-under-file",
        ["train", "--runs", "{report}", "-o", "{file}/r.json"],
        "granularity train: -o: cannot create {file}/r.json: {file} is a file, not a folder",
    ),
    (
        "train-save-runs-folder",
        ["train", "-o", "{dir}/r.json", "--save-runs", "{dir}"],
        "granularity train: --save-runs: {dir} is a folder; give the path of a file to write",
    ),
    (
        "merge-output-dev-null",
        ["merge", "{report}", "-o", "/dev/null"],
        "granularity merge: -o: /dev/null is a character device, not a regular file; give the path of a file to write",
    ),
    (
        "merge-output-fifo",
        ["merge", "{report}", "-o", "{fifo}"],
        "granularity merge: -o: {fifo} is a FIFO, not a regular file; give the path of a file to write",
    ),
    (
        "report-plot-dev-full",
        ["report", "{report}", "--plot", "/dev/full"],
        "granularity report: --plot: /dev/full is a character device, not a regular file; give the path of a file *",
    ),
    (
        "report-html-fifo",
        ["report", "{report}", "--html", "{fifo}"],
        "granularity report: --html: {fifo} is a FIFO, not a regular file; give the path of a file to write",
    ),
    (
        "train-output-dev-null",
        ["train", "--runs", "{report}", "-o", "/dev/null"],
        "granularity train: -o: /dev/null is a character device, not a regular file; give the path of a file *",
    ),
    (
        "train-tasks-missing",
        ["train", "--runs", "{report}", "--tasks", "{dir}/none", "-o", "{dir}/r.json"],
        "granularity train: --tasks: no {dir}/none/**/task.yaml found",
    ),
]


@pytest.mark.parametrize(("argv", "message"), [c[1:] for c in OUTPUTS], ids=[c[0] for c in OUTPUTS])
def test_a_bad_output_path_is_refused_before_any_work(tmp_path, capsys, argv, message):
    folder = tmp_path / "out"
    (folder / "m.jsonl").mkdir(parents=True)
    os.mkfifo(tmp_path / "pipe.json")
    fill = {"report": _report(tmp_path), "dir": folder, "file": _blocker(tmp_path), "fifo": tmp_path / "pipe.json"}
    before, devices = listing(tmp_path), set(os.listdir("/dev"))
    ended = cli([a.format(**fill) for a in argv], capsys, seconds=20)
    beside = set(os.listdir("/dev")) - devices
    for name in beside & {"null.jsonl", "full.txt"}:  # written by a defect: not left on the machine
        os.unlink(f"/dev/{name}")
    assert not beside, f"WROTE-OUTSIDE: {beside}"
    assert_refused(ended, message.format(**fill))
    assert listing(tmp_path) == before, "WROTE-OUTSIDE: a refused command wrote files"


def test_train_refuses_runs_that_do_not_cover_its_tasks_before_fitting(tmp_path, capsys):
    """A fold of tasks without runs trained on nothing: a scikit-learn traceback after 12 s, before."""
    pytest.importorskip("sklearn")
    tasks = Path(__file__).parent.parent / "benchmark_tasks"
    argv = ["train", "--runs", str(_report(tmp_path)), "--tasks", str(tasks), "-o", str(tmp_path / "router.json")]
    ended = cli(argv, capsys, seconds=20)
    assert_refused(
        ended,
        f"granularity train: --runs {tmp_path}/r.json: no micro, macro and hybrid runs without a fault for 80 of"
        f" the tasks under {tasks} (hookshot-config-log-capacity, * and 77 more); give the runs of every task"
        " (train without --runs makes them), or point --tasks at the tasks they cover",
    )
    assert not (tmp_path / "router.json").exists()


def test_train_writes_its_router_into_a_folder_it_creates(tmp_path, capsys):
    """Correct handling: a missing folder for ``-o`` is made, as for every other output."""
    pytest.importorskip("sklearn")
    runs = Path(__file__).parent.parent / ".granularity" / "training-runs.jsonl"
    if not runs.is_file():
        pytest.skip("no committed training runs")
    target = tmp_path / "new" / "folder" / "router.json"
    ended = cli(["train", "--runs", str(runs), "-o", str(target)], capsys, seconds=120)
    assert ended.escaped is None, f"TRACEBACK: {ended.escaped}"
    assert ended.code == 0 and json.loads(target.read_text())["format"]


def test_train_on_tasks_of_one_family_is_refused_before_any_run(fix_add, tmp_path, capsys):
    """Held-out evaluation trains without each family: with one, scikit-learn was given no rows (a traceback,
    after every run was made)."""
    pytest.importorskip("sklearn")
    folder = fix_add.path.parent
    ended = cli(["train", "--tasks", str(folder), "-o", str(tmp_path / "r.json")], capsys, seconds=20)
    assert_refused(
        ended,
        f"granularity train: --tasks {folder}: 1 task(s), all of the family simple; training holds out each family"
        " in turn, so it needs tasks of at least two families",
    )
    assert not (tmp_path / "r.json").exists()


def test_train_elsewhere_keeps_its_runs_beside_its_router_not_in_this_repository(tmp_path, capsys, monkeypatch):
    """``train -o ELSEWHERE`` rewrote ``.granularity/training-runs.jsonl`` of the folder it ran in."""
    pytest.importorskip("sklearn")
    from pytest_granularity.routing import training

    committed = Path(__file__).parent.parent / ".granularity" / "training-runs.jsonl"
    tasks = Path(__file__).parent.parent / "benchmark_tasks"
    monkeypatch.setattr(training, "fresh_runs", lambda root: training.read_runs(committed))
    here, elsewhere = tmp_path / "repo", tmp_path / "elsewhere"
    here.mkdir()
    monkeypatch.chdir(here)
    ended = cli(["train", "--tasks", str(tasks), "-o", str(elsewhere / "router.json")], capsys, seconds=120)
    assert ended.escaped is None and ended.code == 0, f"TRACEBACK: {ended.escaped or ended.err[-300:]}"
    assert listing(here) == set(), f"WROTE-OUTSIDE: {listing(here)}"
    assert (elsewhere / ".granularity" / "training-runs.jsonl").is_file()


ODD_RECORDS = {
    "tool-call-a-string": (
        {"transcript": [{"role": "assistant", "content": None, "tool_calls": ["read_file"]}]},
        "field 'transcript.0.tool_calls.0': 'read_file' is not of type 'object'",
    ),
    "function-a-string": (
        {"transcript": [{"role": "assistant", "content": None, "tool_calls": [{"function": "read_file"}]}]},
        "field 'transcript.0.tool_calls.0.function': 'read_file' is not of type 'object'",
    ),
    "tool_call-a-string": (
        {"transcript": [{"role": "assistant", "tool_call": "read_file"}]},
        "field 'transcript.0.tool_call': 'read_file' is not of type 'object'",
    ),
    "content-not-text": (
        {"transcript": [{"role": "user", "content": ["fix", "it"]}]},
        "field 'transcript.0.content': ['fix', 'it'] is not of type 'string', 'null'",
    ),
}


@pytest.mark.parametrize("case", sorted(ODD_RECORDS))
def test_report_verbose_and_html_refuse_a_record_the_writer_never_writes(tmp_path, capsys, case):
    """These records passed the schema, then raised inside the renderers: the schema now holds the message format."""
    fields, message = ODD_RECORDS[case]
    path = _lines(tmp_path, json.dumps(_record("u", **fields)))
    ended = cli(["report", str(path), "-v", "--html", str(tmp_path / "page.html")], capsys)
    assert_refused(ended, f"granularity report: {path.with_suffix('.jsonl')}:2: {message}")
    assert not (tmp_path / "page.html").exists()


def test_report_verbose_and_html_read_phases_without_test_time(tmp_path, capsys):
    """Correct handling of a schema-valid record: phases without pytest's ``tests`` time had none."""
    path = _report(tmp_path, _record(phases={"agent": 1.5, "verify": 0.5}))
    ended = cli(["report", str(path), "-v", "--html", str(tmp_path / "page.html")], capsys)
    assert ended.escaped is None and ended.code == 0, f"TRACEBACK: {ended.escaped or ended.err[-300:]}"
    assert (tmp_path / "page.html").is_file()


def test_report_verbose_shows_control_characters_in_a_record_escaped(tmp_path, capsys):
    """A record's fields are data: an escape sequence in one must not drive the terminal printing the report."""
    path = _report(tmp_path, _record("t\x1b[2J\x1b]0;owned\x07", error="boom\x1b[31m", notes=["\x9b1m"]))
    ended = cli(["report", str(path), "-v"], capsys)
    assert ended.escaped is None and ended.code == 0, f"TRACEBACK: {ended.escaped}"
    for raw in ("\x1b", "\x07", "\x9b"):
        assert raw not in ended.out, f"ACCEPTED: {raw!r} printed raw"
    assert "t\\x1b[2J\\x1b]0;owned\\x07" in ended.out, f"UNCLEAR: {ended.out[-400:]!r}"


# --- merging: only shards of one session -------------------------------------------------------


def test_merge_refuses_reports_of_different_epochs(tmp_path, capsys):
    one = _report(tmp_path, _record("a"), name="one")
    three = _report(tmp_path, *(_record("b", epoch=e) for e in range(3)), name="three")
    ended = cli(["merge", str(one), str(three), "-o", str(tmp_path / "m.json")], capsys)
    assert_refused(
        ended,
        f"granularity merge: {three.with_suffix('.jsonl')} holds epochs 0, 1, 2 but {one.with_suffix('.jsonl')}"
        " holds epoch 0: merge only the shards of one session",
    )
    assert not (tmp_path / "m.json").exists()


def test_merge_refuses_reports_of_different_generators(tmp_path, capsys):
    one, two = _report(tmp_path, _record("a"), name="one"), _report(tmp_path, _record("b"), name="two")
    summary = json.loads(two.read_text())
    two.write_text(json.dumps({**summary, "generator": "pytest-granularity 0.0.1"}))
    ended = cli(["merge", str(one), str(two), "-o", str(tmp_path / "m.json")], capsys)
    assert_refused(
        ended,
        f"granularity merge: {two} was written by pytest-granularity 0.0.1, {one} by pytest-granularity *:"
        " merge only the shards of one session",
    )


def test_merge_of_shards_of_one_session_is_correct(tmp_path, capsys):
    one, two = _report(tmp_path, _record("a"), name="one"), _report(tmp_path, _record("b"), name="two")
    ended = cli(["merge", str(one), str(two), "-o", str(tmp_path / "m.json")], capsys)
    assert ended.escaped is None and ended.code == 0, f"TRACEBACK: {ended.escaped or ended.err}"
    assert len((tmp_path / "m.jsonl").read_text().splitlines()) == 2


def test_merge_refuses_a_run_in_two_reports(tmp_path, capsys):
    one, two = _report(tmp_path, _record("a"), name="one"), _report(tmp_path, _record("a"), name="two")
    ended = cli(["merge", str(one), str(two), "-o", str(tmp_path / "m.json")], capsys)
    assert_refused(ended, "granularity merge: runs appear in more than one report: [('a', 'micro', 'none', 0)]")


def _file_size_limit(size: int) -> Callable[[], None]:
    def limit() -> None:
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # a write past the limit fails with EFBIG, as on a full disk
        resource.setrlimit(resource.RLIMIT_FSIZE, (size, resource.RLIM_INFINITY))

    return limit


def test_a_write_that_fails_at_the_end_of_a_session_names_the_file_and_fails_it(project):
    """A full disk at the end of a session was a traceback without the file's name. A limit on the size of any file
    a process writes makes a write fail the same way, at the write and not the open, with no disk filled."""
    out = project.path / "out" / "r.json"
    command = [sys.executable, "-m", "pytest", "tasks", "--granularity=micro", f"--granularity-report={out}"]
    run = subprocess.run(
        [*command, "-p", "no:cacheprovider", "-q", "-s"],
        cwd=project.path,
        preexec_fn=_file_size_limit(1024),
        capture_output=True,
        text=True,
        timeout=120,
    )
    text = run.stdout + run.stderr
    assert "Traceback" not in text and "INTERNALERROR" not in text, f"TRACEBACK: {text[-600:]}"
    assert run.returncode == pytest.ExitCode.TESTS_FAILED, f"ACCEPTED: exit {run.returncode}: {text[-400:]}"
    assert f"ERROR: could not write {out}: File too large" in text, f"UNCLEAR: {text[-600:]}"
