"""The provider's own words against the rebuilt request: is the rejected request the one the file rebuilds?

A rejection that names a place and an id (Anthropic: "messages.236: `tool_use` ids were found without
`tool_result` blocks immediately after: toolu_...") says what the request that was sent held there. When the
request rebuilt from the file answers that very call in the very next message, the file is not the history that
was sent (an entry was removed or moved after the request: a hand-edited file, an older Pi's ordering), and a
prediction from it would be a guess dressed as a verdict. `--replay` then reports the request not reproducible
with this reason instead of counting it in the confusion matrix.

Only contradictions are reported: a rejection the rules do not predict and the file does not contradict stays a
miss in the matrix (the rules are what is measured).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

_ANTHROPIC_UNANSWERED = re.compile(
    r"messages\.(\d+): `tool_use` ids were found without `tool_result` blocks immediately after: "
    r"([A-Za-z0-9_\-]+(?:, *[A-Za-z0-9_\-]+)*)")


def _ids(message: Any, kind: str, key: str) -> list[str]:
    content = message.get("content") if isinstance(message, dict) else None
    if not isinstance(content, list):
        return []
    return [str(block.get(key)) for block in content if isinstance(block, dict) and block.get("type") == kind]


def contradiction(payload: Any, end: int, error: str | None, line_of: Callable[[int], int | None]) -> str | None:
    """The reason, when the rebuilt request's first `end` messages answer a call the provider's error names as
    unanswered (`line_of` gives a message's session line); None when the error names nothing this checks or
    agrees with the file. The error's words and the payload's block types (`tool_use`, `tool_result`: the
    Messages API's) say which API it is; another API's payload holds no such blocks."""
    if not error or not isinstance(payload, dict):
        return None
    named = _ANTHROPIC_UNANSWERED.search(error)
    messages = payload.get("messages")
    if named is None or not isinstance(messages, list):
        return None
    position, wanted = int(named.group(1)), [i.strip() for i in named.group(2).split(",")]
    messages = messages[:end]
    for index, message in enumerate(messages[:-1]):
        calls = _ids(message, "tool_use", "id")
        found = [i for i in wanted if i in calls]
        if not found:
            continue
        leading: list[str] = []
        content = messages[index + 1].get("content") if isinstance(messages[index + 1], dict) else None
        for block in content if isinstance(content, list) else []:
            if not (isinstance(block, dict) and block.get("type") == "tool_result"):
                break
            leading.append(str(block.get("tool_use_id")))
        if all(i in leading for i in found):
            return (f"the provider found {', '.join(found)} unanswered at messages.{position}, but the request "
                    f"rebuilt from the file has that call at messages[{index}] (line {line_of(index)}) and its "
                    f"result opening messages[{index + 1}] (line {line_of(index + 1)}): the history sent differs "
                    "from the file's (an entry was removed or moved after the request)")
        return None
    return None
