"""Write the bad-input session files the tests use (small ones are committed under fixtures/bad/).

Each file breaks one thing; the expected outputs next to them come from the reference oracle.
usage: python scripts/make_bad_inputs.py OUT_DIR [--big]   (--big adds the 40 MB line and 130k-entry files)
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

HEADER = {"type": "session", "version": 3, "id": "019a0000-0000-7000-8000-00000000bad0",
          "timestamp": "2025-08-01T10:00:00.000Z", "cwd": "/home/dev/proj"}


def line(obj: object) -> bytes:
    return json.dumps(obj, separators=(",", ":"), ensure_ascii=False).encode() + b"\n"


def msg(entry_id: str, parent: str | None, role: str, text: str, second: int, **extra: object) -> dict:
    message: dict = {"role": role, "timestamp": 1754042400000 + second * 1000}
    if role == "assistant":
        message.update({"content": [{"type": "text", "text": text}], "api": "anthropic-messages",
                        "provider": "anthropic", "model": "claude-sonnet-4-5",
                        "usage": {"input": 10, "output": 5, "cacheRead": 0, "cacheWrite": 0, "totalTokens": 15,
                                  "cost": {"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0, "total": 0}},
                        "stopReason": "stop"})
    else:
        message["content"] = text
    message.update(extra)
    return {"type": "message", "id": entry_id, "parentId": parent,
            "timestamp": f"2025-08-01T10:00:{second:02d}.000Z", "message": message}


def conversation(n: int = 4) -> list[bytes]:
    out = []
    parent = None
    for i in range(n):
        entry_id = f"e{i:07d}"
        out.append(line(msg(entry_id, parent, "user" if i % 2 == 0 else "assistant", f"turn {i}", i)))
        parent = entry_id
    return out


def small_cases() -> dict[str, bytes]:
    h = line(HEADER)
    conv = conversation()
    cases: dict[str, bytes] = {
        "empty": b"",
        "header_only": h,
        "bom": b"\xef\xbb\xbf" + h + b"".join(conv),
        "binary_garbage": bytes(range(256)) * 4,
        "nul_bytes": h + conv[0] + b'{"type":"message"\x00,"id":"x"}\n' + b"".join(conv[1:]),
        "invalid_utf8": h + conv[0] + line(msg("e0000001", "e0000000", "assistant", "cafe", 1))
        .replace(b"cafe", b"caf\xe9") + b"".join(conv[2:]),
        "torn_last_line": h + b"".join(conv) + conv[0][:40],
        "two_objects_one_line": h + conv[0] + conv[1].rstrip(b"\n") + conv[2] + b"".join(conv[3:]),
        "crlf": (h + b"".join(conv)).replace(b"\n", b"\r\n"),
        "missing_header": b"".join(conv),
        "header_numeric_id": line({**HEADER, "id": 42}) + b"".join(conv),
        "parent_cycle": h + line(msg("c1", "c3", "user", "a", 1)) + line(msg("c2", "c1", "assistant", "b", 2))
        + line(msg("c3", "c2", "user", "c", 3)),
        "self_parent": h + conv[0] + line(msg("s1", "s1", "assistant", "me", 2)),
        "dangling_parent": h + conv[0] + line(msg("d1", "nope", "assistant", "orphan", 2)) + conv[2].replace(
            b'"parentId":"e0000001"', b'"parentId":"d1"'),
        "duplicate_ids": h + b"".join(conv) + line(msg("e0000001", "e0000000", "assistant", "again", 9)),
        "unknown_types_and_roles": h + conv[0] + line({"type": "mystery", "id": "m1", "parentId": "e0000000",
                                                      "timestamp": "2025-08-01T10:00:05.000Z"})
        + line(msg("m2", "m1", "wizard", "abracadabra", 6)) + line(msg("m3", "m2", "assistant", "ok", 7)),
        "wrong_field_types": h + line({"type": "message", "id": 7, "parentId": None, "timestamp": 12,
                                       "message": {"role": "user", "content": 5, "timestamp": "x"}})
        + line({"type": "thinking_level_change", "id": "w2", "parentId": 7, "timestamp": "2025-08-01T10:00:02.000Z",
                "thinkingLevel": 3})
        + line({"type": "compaction", "id": "w3", "parentId": "w2", "timestamp": "2025-08-01T10:00:03.000Z",
                "summary": ["not", "text"], "firstKeptEntryId": 7, "tokensBefore": "many"})
        + line({"type": "message", "id": "w4", "parentId": "w3", "timestamp": "2025-08-01T10:00:04.000Z",
                "message": {"role": "bashExecution", "command": ["ls"], "output": 0, "exitCode": "1",
                            "cancelled": 0, "truncated": True, "fullOutputPath": None, "timestamp": 4}}),
        "bad_timestamps": h + conv[0] + line({"type": "compaction", "id": "t1", "parentId": "e0000000",
                                             "timestamp": "yesterday", "summary": "s", "firstKeptEntryId": "e0000000",
                                             "tokensBefore": 1})
        + line({"type": "branch_summary", "id": "t2", "parentId": "t1", "timestamp": "2025-13-45T99:00:00Z",
                "fromId": "root", "summary": "b"})
        + line({"type": "custom_message", "customType": "note", "content": "c", "display": True, "id": "t3",
                "parentId": "t2", "timestamp": "Jan 2 2025 10:00 GMT"}),
        "message_entry_without_message": h + conv[0] + line({"type": "message", "id": "x1", "parentId": "e0000000",
                                                             "timestamp": "2025-08-01T10:00:02.000Z"}),
        "junk_last": h + b"".join(conv) + b"[1,2]\n",
        "deep_nesting": h + b"".join(conv) + b"[" * 200_000 + b"]" * 200_000 + b"\n" + conv[0].replace(
            b'"e0000000","parentId":null', b'"z0000000","parentId":"e0000003"'),
        "lone_surrogate": h + conv[0].replace(b"turn 0", b"turn \\ud83d zero") + b"".join(conv[1:]),
        "huge_numbers": h + conv[0].replace(b'"content":"turn 0"', b'"content":"n","extra":1e400,"big":123456789012345678901234567890') + b"".join(conv[1:]),
    }
    return cases


def big_cases() -> dict[str, bytes]:
    h = line(HEADER)
    huge_text = "x" * (40 * 1024 * 1024)
    forty = h + line(msg("b0000000", None, "user", huge_text, 0)) + line(msg("b0000001", "b0000000", "assistant", "ok", 1))
    entries = [h]
    parent = None
    for i in range(140_000):
        entry_id = f"{i:08x}"
        entries.append(line(msg(entry_id, parent, "user" if i % 2 == 0 else "assistant", f"m{i}", i % 60)))
        parent = entry_id
        if i == 5:
            entries.append(line({"type": "compaction", "id": "cccccccc", "parentId": parent,
                                 "timestamp": "2025-08-01T10:00:05.500Z", "summary": "early",
                                 "firstKeptEntryId": "00000004", "tokensBefore": 100}))
            parent = "cccccccc"
    return {"forty_mb_line": forty, "many_entries_after_compaction": b"".join(entries)}


def main() -> None:
    out = Path(sys.argv[1])
    out.mkdir(parents=True, exist_ok=True)
    cases = small_cases()
    if "--big" in sys.argv:
        cases.update(big_cases())
    for name, data in cases.items():
        (out / f"{name}.jsonl").write_bytes(data)


if __name__ == "__main__":
    main()
