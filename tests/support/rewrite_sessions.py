"""Sessions made for each conversation-level repair (tests/rewrite/test_repair_conversation.py): one damage
each, built the way Pi writes entries, with explicit ids and parents so that branches and file order can be
chosen."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

USAGE = {"input": 10, "output": 5, "cacheRead": 0, "cacheWrite": 0, "totalTokens": 15,
         "cost": {"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0, "total": 0}}
HEADER = {"type": "session", "version": 3, "id": "0198a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b",
          "timestamp": "2026-01-01T00:00:00.000Z", "cwd": "/w"}


def _entry(kind: str, entry_id: str, parent: str | None, **fields: Any) -> dict[str, Any]:
    number = int(entry_id[1:]) if entry_id[1:].isdigit() else 0
    return {"type": kind, "id": entry_id, "parentId": parent, "timestamp": f"2026-01-01T00:00:{number:02d}.000Z",
            **fields}


def user(entry_id: str, parent: str | None, text: str) -> dict[str, Any]:
    return _entry("message", entry_id, parent, message={"role": "user", "content": [{"type": "text", "text": text}],
                                                        "timestamp": 1})


def assistant(entry_id: str, parent: str | None, content: list[Any], stop: str = "toolUse",
              provider: str = "anthropic", model: str = "claude-sonnet-4-5", api: str = "anthropic-messages",
              **extra: Any) -> dict[str, Any]:
    return _entry("message", entry_id, parent, message={
        "role": "assistant", "content": content, "api": api, "provider": provider, "model": model, "usage": USAGE,
        "stopReason": stop, "timestamp": 2, **extra})


def text(value: str) -> dict[str, Any]:
    return {"type": "text", "text": value}


def call(call_id: Any, name: Any = "bash", arguments: Any = None) -> dict[str, Any]:
    return {"type": "toolCall", "id": call_id, "name": name,
            "arguments": {"command": "ls"} if arguments is None else arguments}


def result(entry_id: str, parent: str | None, call_id: Any, name: str = "bash") -> dict[str, Any]:
    return _entry("message", entry_id, parent, message={
        "role": "toolResult", "toolCallId": call_id, "toolName": name, "content": [text(f"output of {call_id}")],
        "isError": False, "timestamp": 3})


def bash(entry_id: str, parent: str | None) -> dict[str, Any]:
    return _entry("message", entry_id, parent, message={
        "role": "bashExecution", "command": "git status", "output": "clean", "exitCode": 0, "cancelled": False,
        "truncated": False, "timestamp": 4})


def custom_message(entry_id: str, parent: str | None) -> dict[str, Any]:
    return {"type": "custom_message", "customType": "todo", "content": "remember the tests", "display": True,
            "id": entry_id, "parentId": parent, "timestamp": "2026-01-01T00:00:30.000Z"}


def dump(entries: list[dict[str, Any]]) -> bytes:
    return b"".join(json.dumps(e, separators=(",", ":"), ensure_ascii=False).encode() + b"\n"
                    for e in [HEADER, *entries])


# A batch of two calls with a bash execution, a custom (extension) message and a steering user message stored
# between the calls and their results, as an extension or a hand edit leaves them.
INTERLEAVED = [
    user("e1", None, "fix the build"),
    assistant("e2", "e1", [text("looking"), call("call_1"), call("call_2", "read", {"path": "a.py"})]),
    bash("e3", "e2"),
    result("e4", "e3", "call_1"),
    custom_message("e5", "e4"),
    user("e6", "e5", "also check the docs"),
    result("e7", "e6", "call_2", "read"),
    assistant("e8", "e7", [text("done")], stop="stop"),
    user("e9", "e8", "thanks"),
]
# Results stored in another order than the calls, and a label in between (it carries no message: stays).
OUT_OF_ORDER = [
    user("e1", None, "go"),
    assistant("e2", "e1", [call("call_1"), call("call_2"), call("call_3")]),
    result("e3", "e2", "call_3"),
    _entry("label", "e4", "e3", targetId="e2", label="batch"),
    result("e5", "e4", "call_1"),
    result("e6", "e5", "call_2"),
    assistant("e7", "e6", [text("ok")], stop="stop"),
]
# Failed retries at the leaf; an abandoned branch's lines sit between them, so after trimming the last good
# entry's line must move to the end of the file to be Pi's leaf again.
FAILED_TRAIL = [
    user("e1", None, "hello"),
    assistant("e2", "e1", [text("hi")], stop="stop"),
    user("e3", "e2", "write the report"),
    assistant("e4", "e3", [], stop="error", errorMessage="overloaded_error: Overloaded"),
    user("e5", "e2", "an older question"),
    assistant("e6", "e5", [text("an older answer")], stop="stop"),
    assistant("e7", "e4", [text("part")], stop="aborted", errorMessage="Request was aborted"),
]
# Tool calls Pi cannot replay: arguments null (Pi's /tree fails on it), an empty id, an empty name, a numeric id;
# each has a result, and one good call stays with its result.
MALFORMED = [
    user("e1", None, "go"),
    assistant("e2", "e1", [text("calling"), call("call_1", "bash", None) | {"arguments": None}, call("", "read", {}),
                           call("call_3", "", {}), call("call_4"), call(7, "bash", {})]),
    result("e3", "e2", "call_1"),
    result("e4", "e3", ""),
    result("e5", "e4", "call_3"),
    result("e6", "e5", "call_4"),
    result("e7", "e6", 7),
    assistant("e8", "e7", [text("done")], stop="stop"),
]
THINKING = {"type": "thinking_level_change", "id": "e0", "parentId": None, "timestamp": "2026-01-01T00:00:00.000Z",
            "thinkingLevel": "high"}
# A tool loop begun on GPT-5.1 (its thinking is signed for OpenAI), to be continued on Claude with thinking on.
FOREIGN_LOOP = [
    THINKING,
    user("e1", "e0", "hi"),
    assistant("e2", "e1", [{"type": "thinking", "thinking": "plan", "thinkingSignature": "sig"}, call("toolu_1")],
              provider="openai", model="gpt-5.1", api="openai-responses"),
    result("e3", "e2", "toolu_1"),
]
# A tool loop begun on Gemini 2.5 (no thought signatures), to be continued on Gemini 3.
GEMINI_LOOP = [
    user("e1", None, "hi"),
    assistant("e2", "e1", [call("c1")], provider="google", model="gemini-2.5-flash", api="google-generative-ai"),
    result("e3", "e2", "c1"),
]

MADE = {"interleaved": INTERLEAVED, "out_of_order": OUT_OF_ORDER, "failed_trail": FAILED_TRAIL,
        "malformed_calls": MALFORMED, "foreign_loop": FOREIGN_LOOP, "gemini_loop": GEMINI_LOOP}


def renamed(entries: list[dict[str, Any]], prefix: str, root: str) -> list[dict[str, Any]]:
    """The entries with ids prefixed (unique in a bigger file), hung below `root`."""
    ids = {e["id"] for e in entries}
    return [{**e, "id": prefix + e["id"], "parentId": prefix + e["parentId"] if e["parentId"] in ids else root}
            for e in entries]


def big_session(path: Path, damage: list[str], entries: int = 30000, with_trail: bool = True) -> None:
    """~30 MB of plain turns, then the made sessions named in `damage` one below the other (and failed retries
    at the leaf): long enough to be killed in the middle of a rewrite."""
    lines = [json.dumps({"type": "session", "version": 3, "id": "kill", "timestamp": "2025-01-01T00:00:00.000Z",
                         "cwd": "/"})]
    parent = ""
    for number in range(entries):
        entry_id = f"{number:08x}"
        lines.append(json.dumps({"type": "message", "id": entry_id, "parentId": parent or None,
                                 "timestamp": "2025-01-01T00:00:00.000Z",
                                 "message": {"role": "user", "content": "x" * 1000, "timestamp": number}}))
        parent = entry_id
    tail: list[dict[str, Any]] = []
    for index, name in enumerate(damage):
        tail += renamed(MADE[name], f"{name[0]}{index}", tail[-1]["id"] if tail else parent)
    if with_trail:
        tail += renamed([FAILED_TRAIL[3], FAILED_TRAIL[6]], "t", tail[-1]["id"])
    lines.extend(json.dumps(e) for e in tail)
    path.write_text("\n".join(lines) + "\n")
