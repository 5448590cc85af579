"""Generate replay sessions whose assistant turns come from a given home model.

The transcript packs the replay corner cases of Chat Completions into one session: several thinking blocks with
each replay field name, reasoning_details and legacy encrypted details, blank text/thinking, images in user
messages and tool results, an empty tool result, Kimi ``addedToolNames``, a foreign turn with a Responses-style
tool-call id, an empty and an aborted assistant, an empty user message and a lone surrogate.
"""

from __future__ import annotations

import json
import pathlib
import sys
from typing import Any

IMG = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg=="
USAGE = {
    "input": 900,
    "output": 60,
    "cacheRead": 0,
    "cacheWrite": 0,
    "totalTokens": 960,
    "cost": {"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0, "total": 0},
}


def session(home_provider: str, home_model: str, sid: str, level: str = "high") -> list[dict[str, Any]]:
    api = "openai-completions"
    lines: list[dict[str, Any]] = [
        {"type": "session", "version": 3, "id": sid, "timestamp": "2025-08-01T10:00:00.000Z", "cwd": "/w"}
    ]
    n = [0]
    parent: list[str | None] = [None]
    ts = [1754042400000]

    def add(entry: dict[str, Any]) -> None:
        n[0] += 1
        eid = f"e{n[0]:07d}"
        ts[0] += 1000
        entry = {
            "type": entry.pop("type", "message"),
            "id": eid,
            "parentId": parent[0],
            "timestamp": f"2025-08-01T10:00:{n[0]:02d}.000Z",
            **entry,
        }
        if "message" in entry:
            entry["message"].setdefault("timestamp", ts[0])
        lines.append(entry)
        parent[0] = eid

    def asst(
        content: list[dict[str, Any]],
        stop: str = "toolUse",
        provider: str = home_provider,
        model: str = home_model,
        a: str = api,
        **extra: Any,
    ) -> None:
        add(
            {
                "message": {
                    "role": "assistant",
                    "content": content,
                    "api": a,
                    "provider": provider,
                    "model": model,
                    "usage": USAGE,
                    "stopReason": stop,
                    **extra,
                }
            }
        )

    def result(cid: str, name: str, content: list[dict[str, Any]], **extra: Any) -> None:
        add(
            {
                "message": {
                    "role": "toolResult",
                    "toolCallId": cid,
                    "toolName": name,
                    "content": content,
                    "isError": False,
                    **extra,
                }
            }
        )

    add({"type": "thinking_level_change", "thinkingLevel": level})
    add(
        {
            "message": {
                "role": "user",
                "content": [
                    {"type": "text", "text": "Look at this screenshot \ud83d\ude00 and lone \ud800 end"},
                    {"type": "image", "data": IMG, "mimeType": "image/png"},
                ],
            }
        }
    )
    asst(
        [
            {
                "type": "thinking",
                "thinking": "First I should read the file.",
                "thinkingSignature": "reasoning_content",
            },
            {"type": "thinking", "thinking": "Then run the tests.", "thinkingSignature": "reasoning_content"},
            {"type": "text", "text": "Reading."},
            {"type": "text", "text": "   "},
            {"type": "text", "text": " Now."},
            {
                "type": "toolCall",
                "id": "call_1",
                "name": "read",
                "arguments": {"path": "a.txt", "2": "x", "1": 1.0},
            },
        ]
    )
    result(
        "call_1",
        "read",
        [
            {"type": "text", "text": "line one"},
            {"type": "image", "data": IMG, "mimeType": "image/jpeg"},
            {"type": "text", "text": "line two"},
        ],
        addedToolNames=["bash"],
    )
    asst(
        [
            {"type": "thinking", "thinking": "Plain reasoning field.", "thinkingSignature": "reasoning"},
            {"type": "toolCall", "id": "call_2", "name": "bash", "arguments": {"command": "ls"}},
            {"type": "toolCall", "id": "call_3", "name": "bash", "arguments": {"command": "pwd"}},
        ]
    )
    result("call_2", "bash", [{"type": "image", "data": IMG, "mimeType": "image/png"}])
    result("call_3", "bash", [])
    add({"message": {"role": "user", "content": "Continue please."}})
    details = [
        {
            "type": "reasoning.text",
            "text": "Detailed thought",
            "signature": "sig==",
            "format": "anthropic-claude-v1",
            "index": 0,
        },
        {
            "type": "reasoning.encrypted",
            "data": "ENCRYPTED",
            "id": "rd_1",
            "format": "openai-responses-v1",
            "index": 1,
        },
    ]
    asst(
        [
            {"type": "thinking", "thinking": "Detailed thought", "thinkingSignature": json.dumps(details)},
            {"type": "text", "text": "Here is the summary."},
        ],
        stop="stop",
    )
    add({"message": {"role": "user", "content": "And the legacy call?"}})
    legacy = json.dumps(
        {"type": "reasoning.encrypted", "id": "rd_legacy", "data": "LEGACY", "format": "openai-responses-v1"}
    )
    asst(
        [
            {"type": "thinking", "thinking": "   ", "thinkingSignature": "reasoning_text"},
            {
                "type": "toolCall",
                "id": "call_4",
                "name": "read",
                "arguments": {"path": "b.txt"},
                "thoughtSignature": legacy,
            },
        ]
    )
    result("call_4", "read", [{"type": "text", "text": "bbb"}])
    asst(
        [
            {"type": "thinking", "thinking": "text reasoning", "thinkingSignature": "reasoning_text"},
            {"type": "text", "text": "Done with b."},
        ],
        stop="stop",
    )
    add({"message": {"role": "user", "content": []}})
    add({"message": {"role": "user", "content": "Try another provider's turn."}})
    asst(
        [
            {"type": "thinking", "thinking": "foreign thinking", "thinkingSignature": "reasoning_content"},
            {"type": "text", "text": "Foreign text."},
            {
                "type": "toolCall",
                "id": "call_X|fc_abcdefabcdefabcdefabcdefabcdefabcdefabcdef",
                "name": "bash",
                "arguments": {"command": "echo hi"},
            },
        ],
        provider="openai",
        model="gpt-5.1",
        a="openai-responses",
    )
    result("call_X|fc_abcdefabcdefabcdefabcdefabcdefabcdefabcdef", "bash", [{"type": "text", "text": "hi"}])
    asst([], stop="stop")
    asst([{"type": "text", "text": "partial"}], stop="aborted")
    add(
        {
            "message": {
                "role": "user",
                "content": "Last question, with an image.",
            }
        }
    )
    add({"message": {"role": "user", "content": [{"type": "image", "data": IMG, "mimeType": "image/webp"}]}})
    return lines


if __name__ == "__main__":  # manual use: python sessions.py PROVIDER MODEL OUT LEVEL
    provider, model, out, level = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4]
    lines = session(provider, model, "019b0000-0000-7000-8000-00000000c0de", level)
    pathlib.Path(out).write_text("".join(json.dumps(line) + "\n" for line in lines))
