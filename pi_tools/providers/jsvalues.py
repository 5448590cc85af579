"""JavaScript value semantics for provider events Pi reads without validating them.

Decoders read untrusted event shapes the way pi-ai's JavaScript does: a missing member is ``undefined`` (not
``null``), property reads on ``null``/``undefined`` throw V8's ``TypeError`` text, and ``+=``/template literals
convert values with ``String()``. Those texts and decisions reach ``errorMessage`` and the settled content.
"""

from __future__ import annotations

from typing import Any

from pi_tools.messages.jsvalues import UNDEFINED, js_strict_equal, js_to_string, js_truthy

__all__ = ["ABSENT", "JsTypeError", "UNDEFINED", "assign_or_drop", "js_field", "js_map_key", "js_member", "js_prop",
           "js_strict_equal", "js_to_string", "js_truthy"]


class JsTypeError(Exception):
    """What V8 throws for a property read on ``null``/``undefined``; adapters report its message."""


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


def js_map_key(value: Any) -> Any:
    """A dict key with JS ``Map`` identity (SameValueZero): ``1`` and ``1.0`` match, ``true`` and ``1`` do not,
    and an object or array only matches itself (a fresh key is never found again)."""
    if value is ABSENT:
        return ("undefined",)
    if value is None:
        return ("null",)
    if isinstance(value, bool):
        return ("bool", value)
    if isinstance(value, (int, float)):
        return ("number", value)
    if isinstance(value, str):
        return ("string", value)
    return ("object", object())


def js_prop(value: Any, key: str) -> Any:
    """``value[key]`` for a non-nullish JSON value: :data:`ABSENT` when it is not an object holding ``key``."""
    return value.get(key, ABSENT) if isinstance(value, dict) else ABSENT


def assign_or_drop(target: dict[str, Any], key: str, value: Any) -> None:
    """``target[key] = value`` where assigning ``undefined`` makes the key vanish from the JSON."""
    if value is ABSENT:
        target.pop(key, None)
    else:
        target[key] = value
