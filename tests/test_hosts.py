"""The hosts' tables: what each host is told, checked without starting it."""

from __future__ import annotations

import json
from pathlib import Path

from pytest_granularity.agents.hosts import OPENCODE, Launch


def test_opencode_waits_for_the_proxy_s_answer_and_for_a_call_as_long_as_the_harness_does(tmp_path: Path) -> None:
    """opencode's own limits (300 s for a reply, 60 s for a tool call) would make it ask its model again, or
    read a call as failed, where the harness still waits: a recorded conversation then depends on the
    machine's speed, and its replay asks what was never recorded."""
    launch = Launch("go", "m", "http://127.0.0.1:1/v1", ("relay",), tmp_path, None, 420.0, 900.0)
    config = json.loads(OPENCODE.files(launch)["opencode.json"])
    options = config["provider"]["granularity"]["options"]
    assert (options["headerTimeout"], options["chunkTimeout"]) == (450_000, 450_000)
    assert config["mcp"]["granularity"]["timeout"] == 900_000
