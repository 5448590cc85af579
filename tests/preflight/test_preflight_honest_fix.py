"""A pairing finding names `repair --relink --close-orphans` only where that repair changes the call turn behind
it; where the turn is stored complete and in place, the fix says why no repair helps (issue 25)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from pi_tools.preflight.fixes import STORED_IN_ORDER

C016 = "fixtures/conformance/cases/c016_compaction.jsonl"


def test_a_split_the_request_makes_names_no_repair(cli: Any) -> None:
    run = cli("preflight", "--format", "json", "--model", "google/gemini-2.5-flash", C016)
    assert run.code == 1
    pairing = [(f["line"], f["fix"]) for f in run.documents() if f["rule"] == "google-function-response-count"]
    assert pairing == [(25, STORED_IN_ORDER), (28, STORED_IN_ORDER)]
    assert STORED_IN_ORDER == (
        "no repair: the session stores every result of this call turn right after it, so relinking and closing "
        "orphans change nothing; the request splits them itself (e.g. an image in a tool result is sent as a turn "
        "of its own): remove what splits them, such as that image, or branch from before the turn (--leaf)")
    repair = cli("repair", C016, "--relink", "--close-orphans", "--dry-run")
    assert repair.stderr.endswith("nothing to repair; wrote nothing\n")  # what the fix says


def test_a_result_stored_out_of_place_names_the_repair_that_clears_it(cli: Any, tmp_path: Path) -> None:
    header = {"type": "session", "version": 3, "id": "s1", "timestamp": "2026-01-01T00:00:00.000Z", "cwd": "/w"}
    usage = {"input": 1, "output": 1, "cacheRead": 0, "cacheWrite": 0, "totalTokens": 2,
             "cost": {"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0, "total": 0}}
    messages = [
        {"role": "user", "content": "hi", "timestamp": 1},
        {"role": "assistant", "content": [{"type": "toolCall", "id": "c1", "name": "bash", "arguments": {}},
                                          {"type": "toolCall", "id": "c2", "name": "bash", "arguments": {}}],
         "provider": "google", "model": "gemini-2.5-flash", "api": "google-generative-ai", "stopReason": "toolUse",
         "timestamp": 2, "usage": usage},
        {"role": "toolResult", "toolCallId": "c1", "toolName": "bash", "content": [{"type": "text", "text": "a"}],
         "isError": False, "timestamp": 3},
        {"role": "user", "content": "and?", "timestamp": 4},
        {"role": "toolResult", "toolCallId": "c2", "toolName": "bash", "content": [{"type": "text", "text": "b"}],
         "isError": False, "timestamp": 5},
    ]
    lines, parent = [header], None
    for number, message in enumerate(messages, 1):
        lines.append({"type": "message", "id": f"e{number}", "parentId": parent,
                      "timestamp": "2026-01-01T00:00:01.000Z", "message": message})
        parent = f"e{number}"
    session = tmp_path / "s.jsonl"
    session.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")
    run = cli("preflight", "--format", "json", "--model", "google/gemini-2.5-flash", str(session))
    fixes = {f["fix"] for f in run.documents() if f["rule"] == "google-function-response-count"}
    repaired = tmp_path / "s.repaired.jsonl"
    assert fixes == {f"pi-tools repair {session} -o {repaired} --relink --close-orphans"}
    assert cli("repair", str(session), "-o", str(repaired), "--relink", "--close-orphans").code == 0
    after = cli("preflight", "--format", "json", "--model", "google/gemini-2.5-flash", str(repaired))
    assert [f["rule"] for f in after.documents()] == []
