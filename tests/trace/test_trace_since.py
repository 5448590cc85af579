"""`pi-tools trace --since DAY`: only the spans that start on or after the day's first moment (local time), under
their session's span; a session with nothing since is left out; the manifest keeps runs with another --since
apart; a day that is none is refused."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from conftest import run_cli

UTC = {"TZ": "UTC"}
USAGE = {"input": 10, "output": 2, "cacheRead": 0, "cacheWrite": 0, "totalTokens": 12,
         "cost": {"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0, "total": 0.01}}


def _assistant(entry_id: str, parent: str, stamp: str, content: list[Any]) -> dict[str, Any]:
    return {"type": "message", "id": entry_id, "parentId": parent, "timestamp": stamp,
            "message": {"role": "assistant", "content": content, "api": "anthropic-messages",
                        "provider": "anthropic", "model": "claude-x", "usage": USAGE, "stopReason": "toolUse",
                        "timestamp": 0}}


def _result(entry_id: str, parent: str, stamp: str, call: str) -> dict[str, Any]:
    return {"type": "message", "id": entry_id, "parentId": parent, "timestamp": stamp,
            "message": {"role": "toolResult", "toolCallId": call, "toolName": "bash", "content": [],
                        "isError": False, "timestamp": 0}}


TWO_DAYS = [
    {"type": "session", "version": 3, "id": "two-days", "timestamp": "2026-11-30T23:00:00.000Z", "cwd": "/p"},
    {"type": "message", "id": "u1", "parentId": None, "timestamp": "2026-11-30T23:00:01.000Z",
     "message": {"role": "user", "content": "go", "timestamp": 0}},
    _assistant("a1", "u1", "2026-11-30T23:59:59.999Z",
               [{"type": "toolCall", "id": "t1", "name": "bash", "arguments": {}}]),
    _result("r1", "a1", "2026-12-01T00:00:03.000Z", "t1"),
    {"type": "model_change", "id": "m1", "parentId": "r1", "timestamp": "2026-12-01T00:00:04.000Z",
     "provider": "anthropic", "modelId": "claude-y"},
    _assistant("a2", "m1", "2026-12-01T00:00:05.000Z",
               [{"type": "toolCall", "id": "t2", "name": "read", "arguments": {}}]),
    _result("r2", "a2", "2026-12-01T00:00:06.000Z", "t2"),
]
OLD = [
    {"type": "session", "version": 3, "id": "old", "timestamp": "2026-11-01T10:00:00.000Z", "cwd": "/p"},
    _assistant("a1", None, "2026-11-01T10:00:01.000Z", []),  # type: ignore[arg-type]
]


def _sessions(tmp_path: Path) -> Path:
    folder = tmp_path / "sessions"
    folder.mkdir()
    for name, entries in (("two-days.jsonl", TWO_DAYS), ("old.jsonl", OLD)):
        (folder / name).write_text("".join(json.dumps(entry) + "\n" for entry in entries))
    return folder


def _names(path: Path) -> list[tuple[str, str]]:
    document = json.loads(path.read_text())
    return [(span["name"], next(a["value"]["stringValue"] for a in span["attributes"] if a["key"] == "pi.entry.id")
             if span["name"] != "invoke_agent pi" else "")
            for resource in document["resourceSpans"] for scope in resource["scopeSpans"]
            for span in scope["spans"]]


def test_only_what_started_since_the_day_leaves(tmp_path: Path) -> None:
    folder = _sessions(tmp_path)
    out = tmp_path / "since.json"
    result = run_cli("trace", str(folder), "-o", str(out), "--since", "2026-12-01", env=UTC)
    assert result.code == 0, result.stderr
    assert result.stderr == (f"pi-tools: 1 session, 3 spans to {out}, 1 session with nothing since 2026-12-01\n")
    # a1's request and its tool call began on the 30th (the call's result came on the 1st): left out
    assert _names(out) == [("invoke_agent pi", ""), ("chat claude-x", "a2"), ("execute_tool read", "a2")]
    root = json.loads(out.read_text())["resourceSpans"][0]["scopeSpans"][0]["spans"][0]
    assert [event["name"] for event in root["events"]] == ["pi.model_change"]
    # the session's span is whole (its own start and end, as in every run): one copy in a back end
    everything = tmp_path / "all.json"
    assert run_cli("trace", str(folder), "-o", str(everything), env=UTC).code == 0
    whole = json.loads(everything.read_text())["resourceSpans"]
    same = next(r for r in whole if r["scopeSpans"][0]["spans"][0]["spanId"] == root["spanId"])
    first = same["scopeSpans"][0]["spans"][0]
    assert (first["startTimeUnixNano"], first["endTimeUnixNano"]) == (root["startTimeUnixNano"],
                                                                       root["endTimeUnixNano"])
    assert len(_names(everything)) == 2 + 5


def test_the_day_begins_at_local_midnight(tmp_path: Path) -> None:
    folder = _sessions(tmp_path)
    out = tmp_path / "since.json"
    # In UTC-1 the 1st begins at 01:00 UTC: nothing of the session happened then or later.
    result = run_cli("trace", str(folder), "-o", str(out), "--since", "2026-12-01", env={"TZ": "Etc/GMT+1"})
    assert result.code == 0, result.stderr
    assert result.stderr.endswith(", 2 sessions with nothing since 2026-12-01\n")
    assert json.loads(out.read_text()) == {"resourceSpans": []}


def test_a_manifest_keeps_another_since_apart(tmp_path: Path) -> None:
    folder = _sessions(tmp_path)
    manifest = tmp_path / "manifest.json"
    first = run_cli("trace", str(folder), "-o", str(tmp_path / "1.json"), "--since", "2026-12-01",
                    "--manifest", str(manifest), env=UTC)
    assert first.code == 0, first.stderr
    again = run_cli("trace", str(folder), "-o", str(tmp_path / "2.json"), "--since", "2026-12-01",
                    "--manifest", str(manifest), env=UTC)
    assert again.stderr.startswith("pi-tools: 0 sessions, 0 spans to "), again.stderr
    assert ", 2 unchanged," in again.stderr
    # Without --since the earlier history was never delivered: both files are traced afresh, whole.
    whole = run_cli("trace", str(folder), "-o", str(tmp_path / "3.json"), "--manifest", str(manifest), env=UTC)
    assert whole.stderr == f"pi-tools: 2 sessions, 7 spans to {tmp_path / '3.json'}, 0 unchanged\n"


def test_a_day_that_is_none_is_refused(tmp_path: Path) -> None:
    folder = _sessions(tmp_path)
    result = run_cli("trace", str(folder), "-o", str(tmp_path / "x.json"), "--since", "2026-02-30")
    assert (result.code, result.stderr) == (2, "pi-tools: --since '2026-02-30' is not a date in the calendar\n")
    result = run_cli("trace", str(folder), "-o", str(tmp_path / "x.json"), "--since", "soon")
    assert result.code == 2
    assert result.stderr.startswith("pi-tools: --since 'soon' is not a date (YYYY-MM-DD, ")
    assert not (tmp_path / "x.json").exists()
