"""A pairing finding names `repair --relink --close-orphans` only where that repair changes the call turn behind
it; where the turn is stored complete and in place, the fix says why no repair helps (issue 25)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from pi_tools.preflight.fixes import STORED_IN_ORDER

from support.message_sessions import USAGE, write_messages

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


def _session_with(tmp_path: Path, between: dict[str, Any], answered: str = "c2", rounds: int = 0) -> Path:
    """An assistant calling c1 and c2, c1's result, `between`, then a result for `answered`; after `rounds` turns
    of long text (for the parts path)."""
    usage = USAGE
    long = [{"role": "user", "content": "words " * 300, "timestamp": 1},
            {"role": "assistant", "content": [{"type": "text", "text": "ok " * 300}], "provider": "anthropic",
             "model": "claude-sonnet-4-5", "api": "anthropic-messages", "stopReason": "stop", "timestamp": 1,
             "usage": usage}]
    messages = [
        *(long * rounds),
        {"role": "user", "content": "hi", "timestamp": 1},
        {"role": "assistant", "content": [{"type": "toolCall", "id": "c1", "name": "read", "arguments": {}},
                                          {"type": "toolCall", "id": "c2", "name": "read", "arguments": {}}],
         "provider": "anthropic", "model": "claude-sonnet-4-5", "api": "anthropic-messages",
         "stopReason": "toolUse", "timestamp": 2, "usage": usage},
        {"role": "toolResult", "toolCallId": "c1", "toolName": "read", "content": [{"type": "text", "text": "a"}],
         "isError": False, "timestamp": 3},
        between,
        {"role": "toolResult", "toolCallId": answered, "toolName": "read",
         "content": [{"type": "text", "text": "b"}], "isError": False, "timestamp": 5},
        {"role": "user", "content": "next", "timestamp": 6},
    ]
    return write_messages(tmp_path / "s.jsonl", messages, session_id="s2")


BASH = {"role": "bashExecution", "command": "ls", "output": "x", "exitCode": 0, "cancelled": False,
        "truncated": False, "timestamp": 4}


def test_a_result_behind_a_bash_execution_names_relink(cli: Any, tmp_path: Path) -> None:
    """A bash execution run while a batch was open stands between a call and its result: the result is sent
    without its call (Anthropic and OpenAI's Chat Completions refuse it), and `repair --relink` moves the bash
    execution behind the batch. The fix used to say no repair could pair the result again."""
    session = _session_with(tmp_path, BASH)
    repaired = tmp_path / "s.repaired.jsonl"
    for model, rule in (("anthropic/claude-sonnet-4-5", "anthropic-tool-result-without-use"),
                        ("openai/gpt-4o-mini", None),  # (openai-responses: Pi sends it paired)
                        ("groq/openai/gpt-oss-120b", "completions-tool-message-without-call")):
        run = cli("preflight", "--format", "json", "--model", model, str(session))
        found = [(f["rule"], f["entryId"], f["fix"]) for f in run.documents() if f["kind"] == "finding"]
        assert found == ([] if rule is None else [(rule, "e5", f"pi-tools repair {session} -o {repaired} --relink")])
    assert cli("repair", str(session), "-o", str(repaired), "--relink").code == 0
    for model in ("anthropic/claude-sonnet-4-5", "groq/openai/gpt-oss-120b"):
        after = cli("preflight", "--format", "json", "--model", model, str(repaired))
        assert [f["rule"] for f in after.documents() if f["kind"] == "finding"] == []


def test_a_result_whose_call_is_gone_still_names_no_repair(cli: Any, tmp_path: Path) -> None:
    session = _session_with(tmp_path, BASH, answered="c9")
    run = cli("preflight", "--format", "json", "--model", "anthropic/claude-sonnet-4-5", str(session))
    found = [(f["rule"], f["entryId"], f["fix"]) for f in run.documents() if f["kind"] == "finding"]
    assert found == [("anthropic-tool-result-without-use", "e5", "no repair: a result whose call is gone cannot be "
                      "paired again; remove the result entry by hand, or branch from before it (--leaf)")]


def test_the_parts_path_names_relink_too(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The check of a large session in parts (preflight/parts.py: Pi 0.85's requests) names the same fix as the
    whole build."""
    from pi_tools.preflight import session as session_module
    from pi_tools.preflight.check import PreflightRequest
    from pi_tools.preflight.parts import preflight_in_parts
    from pi_tools.session.load import load_context_source

    path = str(_session_with(tmp_path, BASH, rounds=6))
    monkeypatch.setattr(session_module, "check_whole", None)  # (built whole, it would fail here)
    request = PreflightRequest(model="anthropic/claude-sonnet-4-5", pi="0.85")
    result = preflight_in_parts(load_context_source(path, False), path, request, min_text_bytes=0, part_bytes=1)
    assert result is not None and result.error is None
    assert [(f["entryId"], f["fix"]) for f in result.findings] == [
        ("e17", f"pi-tools repair {path} -o {tmp_path / 's.repaired.jsonl'} --relink")]
