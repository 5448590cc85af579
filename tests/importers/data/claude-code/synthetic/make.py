"""Writes the synthetic Claude Code transcripts beside it (run from anywhere: python make.py).

Each one shows one thing the real ones do not, in the record shapes Claude Code 2.x writes (compared with the
real transcripts in ../real and the record types community parsers list): rich.jsonl (signed and redacted
thinking, images, a model change, a fork, a compaction, hooks, snapshots, todos, an API error, a title, one
response written as several records) and the damaged or odd ones the importer must diagnose per file.
"""

from __future__ import annotations

import json
from pathlib import Path

HERE = Path(__file__).resolve().parent
SESSION = "7d1c2f4e-0b1a-4c55-9d7e-2f3a4b5c6d7e"
CWD = "/home/dev/app"
PNG = ("iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==")


def envelope(uuid: str | None, parent: str | None, stamp: str, **fields: object) -> dict[str, object]:
    record: dict[str, object] = {"parentUuid": parent, "isSidechain": False, "userType": "external", "cwd": CWD,
                                 "sessionId": SESSION, "version": "2.0.76", "gitBranch": "main"}
    record.update(fields)
    if uuid is not None:
        record["uuid"] = uuid
    record["timestamp"] = stamp
    return record


def user(uuid: str, parent: str | None, stamp: str, content: object, **extra: object) -> dict[str, object]:
    return envelope(uuid, parent, stamp, type="user", message={"role": "user", "content": content}, **extra)


def usage(inp: int, out: int, read: int = 0, write: int = 0, one_hour: int = 0) -> dict[str, object]:
    return {"input_tokens": inp, "cache_creation_input_tokens": write, "cache_read_input_tokens": read,
            "cache_creation": {"ephemeral_5m_input_tokens": write - one_hour, "ephemeral_1h_input_tokens": one_hour},
            "output_tokens": out, "service_tier": "standard"}


def assistant(uuid: str, parent: str | None, stamp: str, message_id: str, model: str, content: list[object],
              stop: str | None, use: dict[str, object], **extra: object) -> dict[str, object]:
    message = {"model": model, "id": message_id, "type": "message", "role": "assistant", "content": content,
               "stop_reason": stop, "stop_sequence": None, "usage": use}
    return envelope(uuid, parent, stamp, message=message, requestId=f"req_{message_id}", type="assistant", **extra)


SONNET = "claude-sonnet-4-5-20250929"
OPUS = "claude-opus-4-5-20251101"


def rich() -> list[dict[str, object]]:
    t = "2026-01-05T10:00:{:02d}.000Z".format
    return [
        {"type": "summary", "summary": "Greeting script", "leafUuid": "a7"},
        {"type": "file-history-snapshot", "messageId": "u1",
         "snapshot": {"messageId": "u1", "trackedFileBackups": {}, "timestamp": t(0)}, "isSnapshotUpdate": False},
        user("u1", None, t(1), "Write hello.py that prints a greeting",
             thinkingMetadata={"level": "high", "disabled": False, "triggers": []}, todos=[]),
        assistant("a1", "u1", t(2), "msg_01", SONNET,
                  [{"type": "thinking", "thinking": "A one-line script will do.", "signature": "EqQBsig01=="}],
                  None, usage(10, 5, 0, 1000, 200)),
        assistant("a2", "a1", t(3), "msg_01", SONNET,
                  [{"type": "tool_use", "id": "toolu_01", "name": "Write",
                    "input": {"file_path": "/home/dev/app/hello.py", "content": "print('hello')\n"}}],
                  "tool_use", usage(10, 60, 0, 1000, 200)),
        envelope("p1", "a2", t(4), type="progress", toolUseID="toolu_01",
                 data={"type": "hook_progress", "hookEvent": "PostToolUse", "hookName": "PostToolUse:Write"}),
        user("u2", "p1", t(5), [{"tool_use_id": "toolu_01", "type": "tool_result",
                                 "content": "File created successfully at: /home/dev/app/hello.py"}],
             toolUseResult={"type": "create", "filePath": "/home/dev/app/hello.py"}),
        assistant("a3", "u2", t(6), "msg_02", SONNET, [{"type": "text", "text": "Done: hello.py prints hello."}],
                  "end_turn", usage(3, 12, 1010, 80)),
        envelope("s1", "a3", t(7), type="system", subtype="stop_hook_summary", hookCount=1,
                 hookInfos=[{"command": "ruff check ."}], level="suggestion"),
        user("u3", "s1", t(8), [{"type": "image", "source": {"type": "base64", "media_type": "image/png",
                                                             "data": PNG}},
                                {"type": "text", "text": "What does this screenshot show?"}]),
        assistant("a4", "u3", t(9), "msg_03", OPUS,
                  [{"type": "redacted_thinking", "data": "EmwKAhgBEgy3redacted=="},
                   {"type": "text", "text": "A single white pixel."}], "end_turn", usage(40, 9, 1090, 0)),
        user("u4", "a3", t(10), "Actually, make it say hi instead"),
        assistant("a5", "u4", t(11), "msg_04", SONNET,
                  [{"type": "tool_use", "id": "toolu_02", "name": "Edit",
                    "input": {"file_path": "/home/dev/app/hello.py", "old_string": "hello", "new_string": "hi"}}],
                  "tool_use", usage(6, 30, 1100, 20)),
        user("u5", "a5", t(12), [{"tool_use_id": "toolu_02", "type": "tool_result", "is_error": True,
                                  "content": [{"type": "text", "text": "File has not been read yet."}]}]),
        envelope("a6", "u5", t(13), type="assistant", isApiErrorMessage=True, error="overloaded",
                 message={"id": "fa1ce0b0-0000-4000-8000-000000000001", "model": "<synthetic>", "role": "assistant",
                          "type": "message", "stop_reason": "stop_sequence", "stop_sequence": "",
                          "usage": usage(0, 0), "content": [{"type": "text",
                                                             "text": "API Error: 529 Overloaded"}]}),
        envelope("c1", None, t(14), type="system", subtype="compact_boundary", content="Conversation compacted",
                 isMeta=False, level="info", logicalParentUuid="a6",
                 compactMetadata={"trigger": "manual", "preTokens": 12345}),
        user("u6", "c1", t(15), "This session is being continued from a previous conversation. Summary: the user "
                                "asked for hello.py; it prints hello; changing it to hi failed (file not read).",
             isCompactSummary=True, isVisibleInTranscriptOnly=True),
        user("u7", "u6", t(16), "Now add a test",
             todos=[{"content": "Add a test", "status": "pending", "activeForm": "Adding a test"}]),
        assistant("a7", "u7", t(17), "msg_05", SONNET, [{"type": "text", "text": "Added test_hello.py."}],
                  "end_turn", usage(5, 20, 0, 1500)),
        {"type": "queue-operation", "operation": "enqueue", "timestamp": t(18), "sessionId": SESSION,
         "content": "and run it"},
    ]


def damaged() -> dict[str, str]:
    """Name → file text."""
    t = "2026-01-06T09:00:{:02d}.000Z".format
    def line(record: object) -> str:
        return json.dumps(record, separators=(",", ":"))
    ok = [user("d1", None, t(1), "list the files"),
          assistant("d2", "d1", t(2), "msg_d2", SONNET, [{"type": "text", "text": "There are two."}], "end_turn",
                    usage(4, 5))]
    text = "".join(line(record) + "\n" for record in ok)
    return {
        "torn-last-line.jsonl": text + line(user("d3", "d2", t(3), "and the hidden ones?"))[:57],
        "result-without-call.jsonl": text + line(user("d3", "d2", t(3), [
            {"tool_use_id": "toolu_gone", "type": "tool_result", "content": "a.txt\nb.txt"}])) + "\n"
        + line(assistant("d4", "d3", t(4), "msg_d4", SONNET, [{"type": "text", "text": "Listed."}], "end_turn",
                         usage(9, 3))) + "\n",
        "unknown-type.jsonl": text + line(envelope("x1", "d2", t(3), type="telemetry-blob", payload={"k": 1}))
        + "\n" + line(user("d3", "x1", t(4), "thanks")) + "\n",
        "not-json-line.jsonl": line(ok[0]) + "\n" + "{this is not json\n" + line(ok[1]) + "\n" + "[1, 2]\n",
        "title-only.jsonl": line({"type": "summary", "summary": "An old session", "leafUuid": "gone"}) + "\n",
        "empty.jsonl": "",
    }


def main() -> None:
    (HERE / "rich.jsonl").write_text("".join(json.dumps(record, separators=(",", ":")) + "\n" for record in rich()))
    for number, (name, text) in enumerate(damaged().items(), start=1):
        # Each damaged file is a session of its own (its own sessionId, hence its own Pi file).
        (HERE / name).write_text(text.replace(SESSION, f"d0000000-0000-4000-8000-{number:012d}"))

if __name__ == "__main__":
    main()
