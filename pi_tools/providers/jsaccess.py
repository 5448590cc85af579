"""V8's TypeError texts for property and method access on values of the wrong type.

pi-ai reads session data without validating it (``block.type``, ``content.filter(...)``, ``text.replace(...)``).
On a malformed session the request then fails with V8's TypeError, and Pi reports that text; adapters call these
helpers where the reference would throw, so the error a user sees is the same.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Mapping
from typing import Any

from pi_tools.providers.errors import PayloadError

PayloadBuilder = Callable[[dict[str, Any], dict[str, Any], dict[str, Any]], dict[str, Any]]


def for_of(value: Any, expression: str) -> list[Any] | str:
    """What ``for (const x of value)`` walks: an array, or a string's characters; anything else is V8's TypeError
    (``expression`` is the source text V8 names)."""
    if isinstance(value, list | str):
        return value
    raise PayloadError(f"{expression} is not iterable")


def block_field(block: Any, key: str) -> Any:
    """``block[key]`` for an item of a content list: primitives have no fields (undefined, here None), and a
    null item is V8's TypeError. Strings get here when a tool result's text was walked character by character."""
    if isinstance(block, dict):
        return block.get(key)
    if block is None:
        raise PayloadError(f"Cannot read properties of null (reading '{key}')")
    return None


def block_type(block: Any) -> Any:
    """``block.type`` (see ``block_field``)."""
    return block_field(block, "type")


def copy_defined(target: dict[str, Any], source: Mapping[str, Any], *keys: str) -> dict[str, Any]:
    """Copy only the keys ``source`` has: a missing JS property is ``undefined`` and vanishes from the JSON body,
    while a stored null is sent as null. Returns ``target``."""
    for key in keys:
        if key in source:
            target[key] = source[key]
    return target


def content_array(message: Mapping[str, Any], expression: str) -> list[Any]:
    """``message.content`` where pi-ai calls an array method on it; V8's TypeError when it is not an array.

    ``expression`` is the source text V8 quotes, e.g. ``content.filter``.
    """
    content = message.get("content")
    if isinstance(content, list):
        return content
    raise PayloadError(f"{expression} is not a function")


def require_string(value: Any, name: str, method: str) -> str:
    """``value`` where pi-ai calls ``name.method(...)`` on it; V8's TypeError text when it is not a string."""
    if isinstance(value, str):
        return value
    if value is None:
        raise PayloadError(f"Cannot read properties of undefined (reading '{method}')")
    raise PayloadError(f"{name}.{method} is not a function")


def string_field(record: Mapping[str, Any], key: str, method: str = "replace") -> str:
    """``record[key]`` where pi-ai calls a string method on it; V8's TypeError text when it is not a string."""
    value = record.get(key) if isinstance(record, dict) else None
    if isinstance(value, str):
        return value
    if value is None:
        missing = "null" if isinstance(record, dict) and key in record else "undefined"
        raise PayloadError(f"Cannot read properties of {missing} (reading '{method}')")
    raise PayloadError(f"{key}.{method} is not a function")


def malformed_input_guard(build: PayloadBuilder) -> PayloadBuilder:
    """Report Python type errors on malformed stored data as ``PayloadError``.

    Where a message has the wrong shape (a number where text belongs, say), Pi's JavaScript throws a TypeError and
    the request fails; this keeps that outcome (a failed request, not a crash), though not V8's exact wording.
    """

    @functools.wraps(build)
    def guarded(model: dict[str, Any], context: dict[str, Any], options: dict[str, Any]) -> dict[str, Any]:
        try:
            return build(model, context, options)
        except (TypeError, AttributeError) as error:
            raise PayloadError(f"TypeError: {error}") from error

    return guarded
