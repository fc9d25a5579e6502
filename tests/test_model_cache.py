"""Recording model responses and replaying them with the server gone."""

from __future__ import annotations

import dataclasses
import fcntl
import json
import os
import shutil
import tempfile

import pytest
from model_stub import Script, calls, factory, settings

from pytest_granularity.agents.model_cache import _locked, request_key
from pytest_granularity.agents.stub_server import ChatServer
from pytest_granularity.run.policies import FIXED_POLICIES
from pytest_granularity.run.runner import run_task

pytest.importorskip("openai")

MICRO = FIXED_POLICIES["micro"]
FIX = ("edit_file", {"path": "calc/ops.py", "old": "SCALE = 2", "new": "SCALE = 1"})
SCRIPT = [calls(("read_file", {"path": "calc/ops.py"})), calls(FIX), calls(("finish", {}))]


def record(task, cache, answers=SCRIPT, mode="auto", session="s1"):
    with ChatServer(Script(answers)) as server:
        result = run_task(
            task, MICRO, "none", settings(factory(server.base_url, cache=cache, mode=mode, session=session))
        )
    return result, server.requests


def test_a_replay_with_the_server_gone_reproduces_the_record(fix_add, tmp_path):
    cache = tmp_path / "cassette"
    recorded, requests = record(fix_add, cache)
    files = sorted(cache.iterdir())
    assert len(files) == len(requests) == 3 and not list(cache.glob(".*"))
    entry = json.loads(files[0].read_text())
    assert (
        set(entry) == {"key", "session", "request", "response"}
        and files[0].name == f"{request_key(entry['request'])}.json"
    )
    replayed = run_task(fix_add, MICRO, "none", settings(factory(None, cache=cache, mode="replay")))
    assert replayed == recorded and replayed.success, "the same record, less timings"


def test_a_replay_miss_is_an_infrastructure_error_naming_task_and_call(fix_add, tmp_path):
    cache = tmp_path / "cassette"
    record(fix_add, cache)
    second = next(f for f in cache.iterdir() if len(json.loads(f.read_text())["request"]["messages"]) == 4)
    second.unlink()
    result = run_task(fix_add, MICRO, "none", settings(factory(None, cache=cache, mode="replay")))
    assert result.outcome == "error" and result.stop_reason == "infrastructure" and result.steps == 1
    assert "task fix-add, model call 2: no recording of this request" in result.error


def test_auto_answers_from_the_recording_and_the_key_ignores_endpoint_and_secrets(fix_add, tmp_path, monkeypatch):
    cache = tmp_path / "cassette"
    first, _ = record(fix_add, cache)
    monkeypatch.setenv("GRANULARITY_TEST_KEY", "another-key")
    second, requests = record(fix_add, cache, answers=[calls(("finish", {}))], session="s2")
    assert requests == [] and second == first


def test_record_refreshes_old_recordings_but_answers_each_request_once_per_session(fix_add, tmp_path):
    cache = tmp_path / "cassette"
    record(fix_add, cache, session="old")
    give_up = [calls(("finish", {}))]
    fresh, requests = record(fix_add, cache, answers=give_up, mode="record", session="new")
    assert len(requests) == 1 and fresh.steps == 0
    again, requests = record(fix_add, cache, answers=[calls(("list_files", {}))], mode="record", session="new")
    assert requests == [] and again == fresh


def test_recordings_of_different_shards_merge_without_conflicts(fix_add, tmp_path):
    other = dataclasses.replace(fix_add, id="fix-add-again", prompt=fix_add.prompt + "Keep the change small.\n")
    shard1, shard2, merged = tmp_path / "shard1", tmp_path / "shard2", tmp_path / "merged"
    first, _ = record(fix_add, shard1)
    second, _ = record(other, shard2)
    assert not {p.name for p in shard1.iterdir()} & {p.name for p in shard2.iterdir()}
    for shard in (shard1, shard2):
        shutil.copytree(shard, merged, dirs_exist_ok=True)
    for task, recorded in ((fix_add, first), (other, second)):
        assert run_task(task, MICRO, "none", settings(factory(None, cache=merged, mode="replay"))) == recorded


def test_recording_writes_nothing_outside_the_cache_folder(fix_add, tmp_path, monkeypatch):
    elsewhere = tmp_path / "tmp"
    elsewhere.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(elsewhere))
    record(fix_add, tmp_path / "cassette")
    assert list(elsewhere.iterdir()) == [] and len(list((tmp_path / "cassette").iterdir())) == 3


def test_the_lock_on_a_cache_folder_excludes_every_other_holder(tmp_path):
    folder = tmp_path / "cassette"
    with _locked(folder):
        other = os.open(folder, os.O_RDONLY)
        with pytest.raises(BlockingIOError):
            fcntl.flock(other, fcntl.LOCK_EX | fcntl.LOCK_NB)
    fcntl.flock(other, fcntl.LOCK_EX | fcntl.LOCK_NB)
    os.close(other)
    assert list(folder.iterdir()) == []


def test_a_replay_miss_names_the_nearest_recording_and_the_fields_that_differ(fix_add, tmp_path):
    cache = tmp_path / "cassette"
    record(fix_add, cache)
    first = next(f for f in cache.iterdir() if len(json.loads(f.read_text())["request"]["messages"]) == 2)
    other = dataclasses.replace(fix_add, prompt=fix_add.prompt + "Keep the change small.\n")
    result = run_task(other, MICRO, "none", settings(factory(None, cache=cache, mode="replay")))
    assert result.outcome == "error" and result.steps == 0, "a different conversation never replays"
    nearest = result.error.partition("nearest recording ")[2]
    assert nearest == (
        f"{first.stem} (the same first 1 messages) differs in: messages[1].content: parts at character 86: "
        "' a wrong SCALE. Fix it.\\n' in the recording, ' a wrong SCALE. Fix it.\\nKeep the change small.\\n' asked"
    )
