"""Property reads as JavaScript does them, and V8's ``TypeError`` texts where they fail.

Pi reads stored sessions and provider events without validating them (``block.type``, ``content.filter(...)``,
``text.replace(...)``, ``for (const x of value)``). A missing member is ``undefined`` (not ``null``) and can vanish
from a JSON body; a read on ``null`` throws. The helpers here give the same values and raise
:class:`~pi_tools.js.errors.JsTypeError` with V8's text where the reference would throw; ``expression`` arguments
are the source text V8 quotes.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from pi_tools.js.errors import JsTypeError
from pi_tools.js.values import UNDEFINED, js_to_string

#: Marks a member that is absent (JS ``undefined``), as opposed to present with JSON ``null`` (``None``).
ABSENT: Any = UNDEFINED

def js_member(container: dict[str, Any], key: str, reading: str) -> Any:
    """``container[key]`` that must be an object because the adapter goes on to read ``reading`` from it.

    Pi does not validate event shapes, so a missing object surfaces as V8's ``TypeError`` text in
    ``errorMessage``; this reproduces that text. Non-object values read as themselves (their properties are
    then ``undefined``, see :func:`js_field`).
    """
    value = container.get(key, ABSENT) if isinstance(container, dict) else ABSENT
    if value is ABSENT:
        raise JsTypeError(f"Cannot read properties of undefined (reading '{reading}')")
    if value is None:
        raise JsTypeError(f"Cannot read properties of null (reading '{reading}')")
    return value


def js_field(value: Any, key: str) -> Any:
    """``value?.[key]`` for plain JSON data: ``None`` for anything that is not an object holding ``key``."""
    return value.get(key) if isinstance(value, dict) else None


def js_prop(value: Any, key: str) -> Any:
    """``value[key]`` for a non-nullish JSON value: :data:`ABSENT` when it is not an object holding ``key``."""
    return value.get(key, ABSENT) if isinstance(value, dict) else ABSENT


def assign_or_drop(target: dict[str, Any], key: str, value: Any) -> None:
    """``target[key] = value`` where assigning ``undefined`` makes the key vanish from the JSON."""
    if value is ABSENT:
        target.pop(key, None)
    else:
        target[key] = value


def for_of(value: Any, expression: str) -> list[Any] | str:
    """What ``for (const x of value)`` walks: an array, or a string's characters; anything else is V8's TypeError
    (``expression`` is the source text V8 names)."""
    if isinstance(value, list | str):
        return value
    raise JsTypeError(f"{expression} is not iterable")


def block_field(block: Any, key: str) -> Any:
    """``block[key]`` for an item of a content list: primitives have no fields (undefined, here None), and a
    null item is V8's TypeError. Strings get here when a tool result's text was walked character by character."""
    if isinstance(block, dict):
        return block.get(key)
    if block is None:
        raise JsTypeError(f"Cannot read properties of null (reading '{key}')")
    return None


def block_type(block: Any) -> Any:
    """``block.type`` (see ``block_field``)."""
    if type(block) is dict:  # nearly every block: one call instead of two
        return block.get("type")
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
    raise JsTypeError(f"{expression} is not a function")


def require_string(value: Any, name: str, method: str) -> str:
    """``value`` where pi-ai calls ``name.method(...)`` on it; V8's TypeError text when it is not a string (a
    stored null reads as null, UNDEFINED, what ``get(key, UNDEFINED)`` gives for a missing key, as undefined)."""
    return string_receiver(value, name, method)


def string_field(record: Mapping[str, Any], key: str, method: str = "replace") -> str:
    """``record[key]`` where pi-ai calls a string method on it; V8's TypeError text when it is not a string."""
    value = record.get(key) if isinstance(record, dict) else None
    if isinstance(value, str):
        return value
    if value is None:
        missing = "null" if isinstance(record, dict) and key in record else "undefined"
        raise JsTypeError(f"Cannot read properties of {missing} (reading '{method}')")
    raise JsTypeError(f"{key}.{method} is not a function")


def js_join_piece(value: Any) -> str:
    """One element as ``Array.prototype.join`` writes it: null and undefined become empty."""
    return "" if value is None or value is UNDEFINED else js_to_string(value)


def js_field_text(record: Mapping[str, Any], key: str) -> str:
    """``${record.key}``: a missing property prints as ``undefined``, a null one as ``null``."""
    return js_to_string(record[key]) if isinstance(record, dict) and key in record else "undefined"


def array_receiver(value: Any, name: str, method: str) -> list[Any]:
    """``value`` where JavaScript calls ``name.method(...)`` on it, an array method: a list, else V8's TypeError
    (null and undefined have no properties; anything else lacks the method)."""
    if type(value) is list:
        return value
    if value is None or value is UNDEFINED:
        raise JsTypeError(f"Cannot read properties of {'null' if value is None else 'undefined'} (reading '{method}')")
    raise JsTypeError(f"{name}.{method} is not a function")


def string_receiver(value: Any, name: str, method: str) -> str:
    """``value`` where JavaScript calls ``name.method(...)`` on it: a string, else V8's TypeError (null and
    undefined have no properties; anything else lacks the string method)."""
    if type(value) is str:
        return value
    if value is None or value is UNDEFINED:
        raise JsTypeError(f"Cannot read properties of {'null' if value is None else 'undefined'} (reading '{method}')")
    raise JsTypeError(f"{name}.{method} is not a function")
