"""A replay miss explains itself: the nearest recording, and its differences field by field."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from pytest_granularity.agents.replay_miss import differences, explain


def _tool(name: str, description: str = "") -> dict[str, Any]:
    return {"type": "function", "function": {"name": name, "description": description}}


def _request(*contents: str, tools: tuple[str, ...] = ("list_files", "finish"), **extra: Any) -> dict[str, Any]:
    messages = [{"role": "user", "content": c} for c in contents]
    return {"method": "POST", "body": {"messages": messages, "tools": [_tool(t) for t in tools], **extra}}


def _record(folder: Path, name: str, request: dict[str, Any]) -> None:
    folder.mkdir(exist_ok=True)
    (folder / f"{name}.json").write_text(json.dumps({"key": name, "request": request, "response": {}}))


def test_messages_are_compared_by_index_tools_by_name_other_keys_by_path() -> None:
    recorded = _request("fix it", "done", tools=("list_files", "replace", "finish"), stream=True)
    asked = _request("fix it", "don't", tools=("finish", "search", "list_files"), temperature=0)
    recorded["body"]["tools"][2]["function"]["description"] = "end"
    assert differences(recorded, asked) == [
        "body.messages[1].content: parts at character 3: 'done' in the recording, \"don't\" asked",
        "body.stream: only in the recording",
        "body.temperature: only in the request asked",
        "body.tools[replace]: only in the recording",
        "body.tools[search]: only in the request asked",
        "body.tools[finish].function.description: parts at character 0: 'end' in the recording, '' asked",
    ]
    reordered = _request("fix it", tools=("finish", "list_files"))
    assert differences(_request("fix it"), reordered) == ["body.tools: the same tools in another order"]
    assert differences({"n": 1, "s": [1]}, {"n": 2, "s": [1, 2]}) == [
        "n: 1 in the recording, 2 asked",
        "s: 1 items in the recording, 2 asked",
    ]


def test_the_nearest_recording_shares_the_longest_conversation_then_the_most_fields(tmp_path: Path) -> None:
    _record(tmp_path, "short", _request("fix it", stream=False))
    _record(tmp_path, "long", _request("fix it", "look", "edit", stream=False))
    _record(tmp_path, "other", _request("break it", "look", "edit", "run"))
    (tmp_path / "not-a-recording.json").write_text("{")
    clause = explain(tmp_path, _request("fix it", "look", "run"))
    assert clause.startswith("; nearest recording long (the same first 2 messages) differs in: body.messages[2]")
    assert clause.endswith("body.stream: only in the recording")
    _record(tmp_path, "same-length", _request("fix it", "look", "edit"))
    assert "nearest recording same-length " in explain(tmp_path, _request("fix it", "look", "run"))


def test_a_long_list_of_differences_is_cut_and_an_empty_folder_said(tmp_path: Path) -> None:
    assert explain(tmp_path, _request("x")) == "; the folder holds no recording"
    _record(tmp_path, "far", {f"k{i}": i for i in range(20)})
    clause = explain(tmp_path, {})
    assert clause.count("only in the recording") == 8 and clause.endswith("; and 12 more")
