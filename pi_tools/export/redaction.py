"""--redact and --scrub for exports: the session's text rewritten before anything is shown.

Every string a reader sees is rewritten (message text, thinking, tool arguments and output, bash commands,
summaries, custom content, labels, names, error messages, even the header's cwd); structural and opaque values
are not (ids, types, roles, timestamps, provider and model names, signatures, image data), since they are not
prose and altering them would break the transcript's structure or an image. The entries are copied, never
changed in place.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from typing import Any

REDACTED = "[REDACTED]"
# Keys whose string values are structure or opaque provider data, never rewritten.
KEEP_KEYS = frozenset({
    "type", "role", "id", "parentId", "targetId", "fromId", "firstKeptEntryId", "toolCallId", "timestamp",
    "thinkingSignature", "textSignature", "signature", "thoughtSignature", "encrypted_content", "redactedContent",
    "mimeType", "api", "provider", "model", "modelId", "stopReason", "responseId", "version",
})
Rewrite = Callable[[str], str]


class RedactError(ValueError):
    """A --redact pattern that is not a regular expression; the message names it."""


def make_rewrite(patterns: Sequence[str] = (), scrub: bool = False) -> Rewrite | None:
    """One function applying every --redact pattern (matches become [REDACTED]), then --scrub; None if neither."""
    compiled = []
    for pattern in patterns:
        try:
            compiled.append(re.compile(pattern))
        except re.error as exc:
            raise RedactError(f"--redact: invalid regular expression {pattern!r}: {exc}") from None
    scrubber: Rewrite | None = None
    if scrub:
        from pi_tools.secrets.detectors import scrub_text

        scrubber = scrub_text
    if not compiled and scrubber is None:
        return None

    def rewrite(text: str) -> str:
        for regex in compiled:
            text = regex.sub(REDACTED, text)
        return scrubber(text) if scrubber is not None else text

    return rewrite


def rewrite_value(value: Any, rewrite: Rewrite, key: str | None = None) -> Any:
    """A copy of a JSON value with its prose strings rewritten (iterative: tool arguments nest deeply)."""
    if isinstance(value, str):
        return value if key in KEEP_KEYS else rewrite(value)
    if not isinstance(value, (dict, list)):
        return value
    root: list[Any] = [None]
    # (source container, target container, key in the parent whose strings are kept, image block?)
    stack: list[tuple[Any, Any]] = []

    def copy_into(target: Any, slot: Any, source: Any, source_key: str | None, image: bool) -> None:
        if isinstance(source, str):
            keep = source_key in KEEP_KEYS or (image and source_key == "data")
            target[slot] = source if keep else rewrite(source)
        elif isinstance(source, dict):
            fresh: dict[str, Any] = {}
            target[slot] = fresh
            stack.append((source, fresh))
        elif isinstance(source, list):
            fresh_list: list[Any] = [None] * len(source)
            target[slot] = fresh_list
            stack.append((source, fresh_list))
        else:
            target[slot] = source

    copy_into(root, 0, value, key, False)
    while stack:
        source, target = stack.pop()
        if isinstance(source, dict):
            image = source.get("type") == "image"
            for name, item in source.items():
                copy_into(target, name, item, name, image)
        else:
            for index, item in enumerate(source):
                copy_into(target, index, item, None, False)
    return root[0]
