"""``scripts/compare_records.py``: two reports' run records compared field for field, timings aside."""

from __future__ import annotations

import json
import sys

from conftest import REPO

sys.path.insert(0, str(REPO / "scripts"))

import compare_records


def write(path, *runs):
    path.write_text("".join(json.dumps(run) + "\n" for run in runs), encoding="utf-8")
    return path


def run(task, tokens, seconds, policy="micro"):
    key = {"task": task, "policy": policy, "fault": "none", "epoch": 0, "seed": 0}
    return {**key, "tokens": tokens, "phases": {"agent": seconds}, "macro_log": [{"seconds": seconds, "ok": True}]}


def test_timings_are_left_out_and_every_other_field_counts(tmp_path, capsys):
    a = write(tmp_path / "a.jsonl", run("t1", 10, 0.5), run("t2", 20, 0.1))
    same = write(tmp_path / "same.jsonl", run("t1", 10, 9.0), run("t2", 20, 3.0))
    assert compare_records.main([str(a), str(same)]) == 0
    assert "2 matched, 0 differ" in capsys.readouterr().out
    other = write(tmp_path / "other.jsonl", run("t1", 11, 0.5), run("t3", 20, 0.1))
    assert compare_records.main([str(a), str(other)]) == 1
    out = capsys.readouterr().out
    assert "1 matched, 1 differ" in out and "  tokens: 1" in out
    assert "only in a: 1" in out and "only in b: 1" in out
