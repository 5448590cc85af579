"""Secrets in parsed JSON values: where they are (JSON paths, never the values) and the value with them redacted.

Opaque provider fields (signatures, encrypted reasoning), the ids that tie entries together and the base64 data
of images are never reported nor changed: a match there is noise, and a change would break what Pi sends back.
`audit --rules secret-in-session`, `scrub` and export's redaction all go through here.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

import orjson

from pi_tools.secrets.detectors import Scanner, Secret

RULE = "secret-in-session"
# Provider opaque fields (pi-ai's ThinkingContent.thinkingSignature, TextContent.textSignature,
# ToolCall.thoughtSignature, AssistantMessage.responseId; encrypted reasoning as providers name it) and the
# ids that tie entries, calls and results together: never changed, never reported.
OPAQUE_KEYS = frozenset({
    "thinkingSignature", "textSignature", "thoughtSignature", "responseId", "signature", "encrypted_content",
    "encryptedContent", "redactedContent",
})
ID_KEYS = frozenset({"id", "parentId", "toolCallId", "firstKeptEntryId", "fromId", "targetId"})
SKIPPED_KEYS = OPAQUE_KEYS | ID_KEYS


def _skipped(container: dict[str, Any], key: str) -> bool:
    """Opaque fields, ids, and the base64 `data` of image blocks (a match there is noise, and a change would
    corrupt the image) are neither reported nor changed."""
    return key in SKIPPED_KEYS or (key == "data" and container.get("type") == "image")
_IDENTIFIER = re.compile(r"[A-Za-z_$][A-Za-z0-9_$]*")


def path_key(path: str, key: str) -> str:
    return f"{path}.{key}" if _IDENTIFIER.fullmatch(key) else f"{path}[{_quote(key)}]"


def _quote(key: str) -> str:
    return '"' + key.replace("\\", "\\\\").replace('"', '\\"') + '"'


def redact_text(text: str, secrets: list[Secret]) -> str:
    pieces = []
    position = 0
    for kind, start, end in secrets:
        pieces.append(text[position:start])
        pieces.append(f"[REDACTED:{kind}]")
        position = end
    pieces.append(text[position:])
    return "".join(pieces)


def might_hold_secrets(value: Any, scanner: Scanner) -> bool:
    """False when no string of `value` can hold a secret: one anchor test over its serialised JSON (cheap).

    orjson's escaping leaves every anchor intact; opaque fields are included, so a signature can only make
    this say True, after which the exact walk (which skips them) decides.
    """
    if not scanner.anchored:
        return True
    try:
        return scanner.may_hold(orjson.dumps(value))
    except (orjson.JSONEncodeError, TypeError):
        return True  # lone surrogates or huge integers: let the walk look


def find_in_value(value: Any, scanner: Scanner, path: str = "$",
                  within: frozenset[str] | None = None) -> Iterator[tuple[str, str]]:
    """(kind, JSON path) of every secret in the strings (keys included) of a parsed JSON value; `within`: the
    anchors its serialised text was found to hold (see Scanner.find), when the caller knows them."""
    if within is None and not might_hold_secrets(value, scanner):
        return
    stack: list[tuple[Any, str]] = [(value, path)]
    while stack:
        item, where = stack.pop()
        if isinstance(item, str):
            for secret in scanner.find(item, within):
                yield secret.kind, where
        elif isinstance(item, dict):
            pending = []
            for key, child in item.items():
                for secret in scanner.find(key, within):
                    yield secret.kind, f"{where} (a key)"
                if not _skipped(item, key):
                    pending.append((child, path_key(where, key)))
            stack.extend(reversed(pending))
        elif isinstance(item, list):
            stack.extend(reversed([(child, f"{where}[{index}]") for index, child in enumerate(item)]))


def redact_value(value: Any, scanner: Scanner, within: frozenset[str] | None = None) -> Any:
    """`value` with every secret in its strings (keys included) replaced; opaque fields and ids kept."""
    if isinstance(value, str):
        secrets = scanner.find(value, within)
        return redact_text(value, secrets) if secrets else value
    if isinstance(value, dict):
        result = {}
        for key, child in value.items():
            secrets = scanner.find(key, within)
            new_key = redact_text(key, secrets) if secrets else key
            result[new_key] = child if _skipped(value, key) else redact_value(child, scanner, within)
        return result
    if isinstance(value, list):
        return [redact_value(child, scanner, within) for child in value]
    return value
