"""The fast reading (trace/fast.py) gives the trace the session loader's reading gives, on every file it takes:
the fixtures, the Pi 1.6 cases and generated sessions; and it refuses the files whose reading is Pi's quirks."""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import ROOT

from pi_tools.pi import resolve
from pi_tools.trace.fast import fast_tree
from pi_tools.trace.mapping import TraceOptions, session_trace
from pi_tools.trace.task import load_tree

FILES = sorted([*(ROOT / "fixtures").rglob("*.jsonl"), *(ROOT / "tests/data/pi16/cases").glob("*.jsonl")])


@pytest.mark.parametrize("pi", ["0.85", "1.6"])
@pytest.mark.parametrize("branches", ["active", "all"])
def test_both_readings_give_the_same_trace(pi: str, branches: str) -> None:
    options = TraceOptions(branches=branches, spending=resolve(pi).spending)
    taken = 0
    for path in FILES:
        data = path.read_bytes()
        fast = fast_tree(data, str(path))
        if fast is None:
            continue
        taken += 1
        slow = load_tree(str(path), pi)
        assert session_trace(fast, options) == session_trace(slow, options), path
    assert taken >= 60  # most fixtures are plain enough (the damaged ones in fixtures/bad are not)


@pytest.mark.parametrize("name", ["duplicate_ids.jsonl", "torn_last_line.jsonl", "parent_cycle.jsonl",
                                  "junk_last.jsonl", "self_parent.jsonl"])
def test_damaged_files_go_to_the_loader(name: str) -> None:
    assert fast_tree((ROOT / "fixtures/bad" / name).read_bytes(), name) is None


def test_an_older_format_goes_to_the_loader() -> None:
    path = ROOT / "fixtures/realworld/badlogic__pi-mono__before-compaction.jsonl"
    assert fast_tree(path.read_bytes(), str(path)) is None
    assert load_tree(str(path), "0.85", fast=True).migrated_from == 1


def test_a_parent_after_its_child_goes_to_the_loader(tmp_path: Path) -> None:
    data = (b'{"type":"session","version":3,"id":"s","timestamp":"2026-01-01T00:00:00.000Z"}\n'
            b'{"type":"message","id":"b","parentId":"a","timestamp":"2026-01-01T00:00:01.000Z",'
            b'"message":{"role":"user","content":"x","timestamp":1}}\n'
            b'{"type":"message","id":"a","parentId":null,"timestamp":"2026-01-01T00:00:02.000Z",'
            b'"message":{"role":"user","content":"y","timestamp":2}}\n')
    assert fast_tree(data, "s.jsonl") is None
