"""A session file made of a message list: a version 3 header, then each message as an entry whose parent is the one
before it (ids e1, e2, ...; entry timestamps a second apart), for the tests that record one odd message's fate."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

USAGE = {"input": 1, "output": 1, "cacheRead": 0, "cacheWrite": 0, "totalTokens": 2,
         "cost": {"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0, "total": 0}}
"""A usage object as Pi stores it on an answer."""


def write_messages(path: Path, messages: list[dict[str, Any]], session_id: str = "s1") -> Path:
    """`path` written as the session of `messages` (see the module); returns it."""
    lines: list[dict[str, Any]] = [
        {"type": "session", "version": 3, "id": session_id, "timestamp": "2026-01-01T00:00:00.000Z", "cwd": "/w"}]
    for number, message in enumerate(messages, 1):
        lines.append({"type": "message", "id": f"e{number}", "parentId": f"e{number - 1}" if number > 1 else None,
                      "timestamp": f"2026-01-01T00:{number // 60:02}:{number % 60:02}.000Z", "message": message})
    path.write_text("".join(json.dumps(line) + "\n" for line in lines))
    return path
