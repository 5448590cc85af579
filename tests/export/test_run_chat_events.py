"""`pi-tools run --events --format chat`: the live loop as a web chat's stream events (offline faux provider)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from pi_tools.export.chat_events import ChatStreamMapper

DATA = Path(__file__).resolve().parents[1] / "data" / "run"


def _script(tmp_path: Path, responses: list[dict[str, Any]]) -> Path:
    path = tmp_path / "script.json"
    path.write_text(json.dumps({"responses": responses}), encoding="utf-8")
    return path


def _run(cli: Any, tmp_path: Path, script: Path, prompt: str = "what is here?") -> tuple[list[dict[str, Any]], Path]:
    work = tmp_path / "work"
    work.mkdir(exist_ok=True)
    (work / "a.txt").write_text("hello\n", encoding="utf-8")
    session = tmp_path / "s.jsonl"
    run = cli("run", "--events", "--format", "chat", "--faux-script", str(script), "--session", str(session),
              "--cwd", str(work), "--tools", "read,bash", prompt)
    assert run.code in (0, 1), run.stderr
    return run.documents(), session


def _normalised(messages: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """ChatMessages with ids replaced by their position (a run's ids are its own, the export's the entries')."""
    text = json.dumps(messages)
    for index, message in enumerate(messages):
        text = text.replace(json.dumps(message["id"])[:-1], f'"#{index}')
    return json.loads(text)


def test_a_run_streams_start_deltas_tools_and_done(tmp_path: Path, cli: Any) -> None:
    events, session = _run(cli, tmp_path, DATA / "faux_first.json")
    kinds = [e["type"] for e in events]
    assert kinds[:3] == ["state", "state", "start"] and kinds[-2:] == ["state", "done"]
    assert [e["state"] for e in events if e["type"] == "state"] == [
        "agent_start", "turn_start", "turn_end", "turn_start", "turn_end", "agent_settled"]
    starts = [e["messageId"] for e in events if e["type"] == "start"]
    assert len(starts) == 2 and len(set(starts)) == 2
    first, second = starts
    assert "".join(e["text"] for e in events if e["type"] == "thinking" and e["messageId"] == first) == \
        "The user wants to know what is in the workspace; listing it is the quickest way."
    assert {e["toolCallId"] for e in events if e["type"] == "thinking"} == {f"{first}-thinking-0"}
    assert "".join(e["text"] for e in events if e["type"] == "delta" and e["messageId"] == first) == \
        "Let me look at the files in the workspace first."
    assert "".join(e["text"] for e in events if e["type"] == "delta" and e["messageId"] == second) == \
        "The workspace holds a.txt, which says hello."
    tools = [e for e in events if e["type"] == "tool"]
    assert {e["part"]["toolCallId"] for e in tools} == {"call_bash_1"} and {e["messageId"] for e in tools} == {first}
    states = [e["part"]["state"] for e in tools]
    assert states[0] == "input-streaming" and states[-1] == "output-available"
    assert states.index("input-available") < states.index("output-available")
    # Merged by toolCallId: once complete, the arguments stay on every later update.
    complete = states.index("input-available")
    assert all(e["part"]["input"] == {"command": "ls && cat a.txt"} for e in tools[complete:])
    assert tools[-1]["part"]["output"]["content"] == [{"type": "text", "text": "a.txt\nhello\n"}]
    assert "preliminary" not in tools[-1]["part"]
    done = events[-1]
    assert done["message"]["id"] == second and done["message"]["parts"] == [
        {"type": "text", "text": "The workspace holds a.txt, which says hello."}]
    # Mapped the same way as the export of the session the run wrote.
    exported = tmp_path / "export.jsonl"
    result = cli("export", str(session), "--format", "chat", "-o", str(exported))
    assert result.code == 0, result.stderr
    from_file = [json.loads(line) for line in exported.read_text(encoding="utf-8").splitlines()]
    assert _normalised(done["messages"]) == _normalised(from_file)
    assert done["messages"][1]["parts"][2] == tools[-1]["part"]


def test_errors_and_failed_tools(tmp_path: Path, cli: Any) -> None:
    script = _script(tmp_path, [
        {"content": [{"type": "toolCall", "id": "c1", "name": "bash", "arguments": {"command": "echo no; exit 3"}}]},
        {"content": [{"type": "text", "text": "partial"}], "stopReason": "error", "errorMessage": "overloaded"},
    ])
    events, _ = _run(cli, tmp_path, script)
    final_tool = [e for e in events if e["type"] == "tool"][-1]["part"]
    assert final_tool["state"] == "output-error" and "exit" in final_tool["errorText"].lower()
    assert "output" not in final_tool
    errors = [e for e in events if e["type"] == "error"]
    second = [e["messageId"] for e in events if e["type"] == "start"][1]
    assert errors == [{"type": "error", "messageId": second, "stopReason": "error", "errorText": "overloaded"}]
    assert events[-1]["type"] == "done"
    assert events[-1]["message"]["parts"][-1] == {"type": "data-error",
                                                 "data": {"stopReason": "error", "errorMessage": "overloaded"}}


def test_format_chat_needs_events(cli: Any, tmp_path: Path) -> None:
    run = cli("run", "--format", "chat", "hi", "--session", str(tmp_path / "s.jsonl"))
    assert run.code == 2 and "--format chat: only with --events" in run.stderr


def test_mapper_keeps_streamed_arguments_until_complete() -> None:
    mapper = ChatStreamMapper("r")
    mapper.map({"type": "message_start", "message": {"role": "assistant", "content": []}})
    partial = {"role": "assistant", "content": [{"type": "toolCall", "id": "t", "name": "read_file",
                                                 "arguments": {"path": "sr"}}]}
    streaming = mapper.map({"type": "message_update", "message": partial,
                            "assistantMessageEvent": {"type": "toolcall_delta", "contentIndex": 0}})
    assert streaming == [{"type": "tool", "messageId": "r-a0", "part": {
        "type": "tool-ReadFile", "toolCallId": "t", "state": "input-streaming", "input": {"path": "sr"}}}]
    done = mapper.map({"type": "message_update", "message": partial, "assistantMessageEvent": {
        "type": "toolcall_end", "contentIndex": 0,
        "toolCall": {"type": "toolCall", "id": "t", "name": "read_file", "arguments": {"path": "src"}}}})
    assert done[0]["part"] == {"type": "tool-ReadFile", "toolCallId": "t", "state": "input-available",
                               "input": {"path": "src"}}
    started = mapper.map({"type": "tool_execution_start", "toolCallId": "t", "toolName": "read_file",
                          "args": {"path": "ignored"}})
    assert started[0]["part"]["input"] == {"path": "src"}
