"""A stopReason, entry type or role that is a JSON object or array: Pi compares them with strings (never equal),
so they are simply not "error", not a movable type, not a turn's start. The checks asked frozensets instead,
which cannot hash a dict or a list: `audit` and `repair --relink` ended in a TypeError traceback and
`transform --keep-last` in "failed: TypeError" (a mutation sweep over the fixtures found them)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from pi_tools.audit.check_blocks import never_replayed

USAGE = {"input": 1, "output": 1, "cacheRead": 0, "cacheWrite": 0, "totalTokens": 2,
         "cost": {"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0, "total": 0}}
MODEL = {"api": "anthropic-messages", "provider": "anthropic", "model": "claude-sonnet-4-5"}


def _session(tmp_path: Path) -> Path:
    entries: list[dict[str, Any]] = [
        {"type": "session", "version": 3, "id": "s1", "timestamp": "2026-01-01T00:00:00.000Z", "cwd": "/w"},
        {"type": "message", "id": "a1", "parentId": None, "timestamp": "2026-01-01T00:00:01.000Z",
         "message": {"role": "user", "content": [{"type": "text", "text": "hi"}], "timestamp": 1}},
        {"type": "message", "id": "a2", "parentId": "a1", "timestamp": "2026-01-01T00:00:02.000Z",
         "message": {"role": "assistant", "content": [{"type": "toolCall", "id": "c1", "name": "ls", "arguments": {}}],
                     **MODEL, "stopReason": {"type": "toolCall"}, "usage": USAGE, "timestamp": 2}},
        {"type": {"x": 1}, "id": "z1", "parentId": "a2", "timestamp": "2026-01-01T00:00:02.500Z"},
        {"type": "message", "id": "z2", "parentId": "z1", "timestamp": "2026-01-01T00:00:02.600Z",
         "message": {"role": {"r": 1}, "content": "odd", "timestamp": 2}},
        {"type": "message", "id": "a3", "parentId": "z2", "timestamp": "2026-01-01T00:00:03.000Z",
         "message": {"role": "toolResult", "toolCallId": "c1", "toolName": "ls",
                     "content": [{"type": "text", "text": "a"}], "isError": False, "timestamp": 3}},
        {"type": "message", "id": "a4", "parentId": "a3", "timestamp": "2026-01-01T00:00:04.000Z",
         "message": {"role": "assistant", "content": [{"type": "text", "text": "done"}], **MODEL,
                     "stopReason": ["stop"], "usage": USAGE, "timestamp": 4}},
    ]
    path = tmp_path / "s.jsonl"
    path.write_text("".join(json.dumps(entry) + "\n" for entry in entries))
    return path


def test_audit_of_a_file_whose_only_odd_field_is_a_stop_reason(cli: Any, tmp_path: Path) -> None:
    """Every line well formed but a stopReason object: the audit of a clean file's index (audit/clean.py)."""
    path = _session(tmp_path)
    lines = path.read_text().splitlines(keepends=True)
    path.write_text("".join(line for number, line in enumerate(lines) if number not in (3, 4)).replace(
        '"parentId": "z2"', '"parentId": "a2"'))
    run = cli("audit", "--format", "json", str(path))
    _clean(run)
    assert [(doc["rule"], doc["entryId"]) for doc in run.documents()] == [("required-fields", "a2"),
                                                                         ("required-fields", "a4")]


def _clean(run: Any) -> None:
    assert "Traceback" not in run.stderr and "TypeError" not in run.stdout + run.stderr, run.stderr[-2000:]


@pytest.mark.parametrize("value", [{"type": "toolCall"}, ["error"], [], {}, None, 1, "stop", "errors"])
def test_a_stop_reason_that_is_not_error_or_aborted(value: Any) -> None:
    assert never_replayed(value) is False


def test_error_and_aborted_are_never_replayed() -> None:
    assert never_replayed("error") and never_replayed("aborted")


def test_audit_reports_the_odd_fields(cli: Any, tmp_path: Path) -> None:
    run = cli("audit", "--format", "json", str(_session(tmp_path)))
    _clean(run)
    assert run.code == 1
    found = [(doc["rule"], doc["entryId"], doc["message"]) for doc in run.documents()]
    assert [(rule, entry) for rule, entry, _ in found] == [
        ("required-fields", "a2"), ("unknown-entry-type", "z1"), ("unknown-role", "z2"),
        ("tool-result-interleaved", "a3"), ("required-fields", "a4")]  # and no errored-turn
    assert found[0][2] == "assistant message: 'stopReason' is an object"
    assert found[4][2] == "assistant message: 'stopReason' is a list"


def test_repair_relinks_and_trims_without_failing(cli: Any, tmp_path: Path) -> None:
    run = cli("repair", "--relink", "--trim-failed", "--close-orphans", "--dry-run", str(_session(tmp_path)))
    _clean(run)
    session = _session(tmp_path)
    assert (run.code, run.stdout) == (3, f"{session}:6: note: --relink left this as it is: tool result for call c1 of "
                                         "assistant a2 (line 3) comes after another message (z2, line 5); Pi sends "
                                         "`No result provided` for the call and this result out of place "
                                         "[tool-result-interleaved]\n")
    assert run.stderr == f"pi-tools: {session}: nothing to repair; wrote nothing\n"


def test_transform_keep_last_counts_turns_by_string_roles(cli: Any, tmp_path: Path) -> None:
    run = cli("transform", "--keep-last", "1", str(_session(tmp_path)))
    _clean(run)
    assert run.code == 0
    [document] = run.documents()
    assert document["kind"] == "context"
    assert [message["role"] for message in document["messages"]] == ["user", "assistant", {"r": 1}, "toolResult",
                                                                     "assistant"]
