"""How JavaScript turns stored values into text and booleans, for values Pi interpolates without checking.

Sessions are untyped JSON, and pi-ai writes fields into template literals, ``Array.prototype.join`` and ``if``
tests as they come. A malformed session therefore yields ``data:null;base64,...`` or ``Tool "undefined"`` in the
request or error rather than a crash, and these helpers give the same text. ``UNDEFINED`` stands for a missing
property where the difference from ``null`` shows (``undefined`` prints, and joins, differently).
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any, Final

from pi_tools.providers.jsonjs import js_number_str


class _Undefined:
    """The one JS ``undefined``; a missing key read with ``mapping.get(key, UNDEFINED)``."""

    _instance: _Undefined | None = None

    def __new__(cls) -> _Undefined:
        if cls._instance is None:
            cls._instance = super().__new__(cls)
        return cls._instance

    def __repr__(self) -> str:
        return "UNDEFINED"

    def __bool__(self) -> bool:
        return False


UNDEFINED: Final = _Undefined()


def js_string(value: Any) -> str:
    """``String(value)`` (what a template literal prints) for a JSON value, ``None`` being null."""
    if isinstance(value, str):
        return value
    if value is None:
        return "null"
    if value is UNDEFINED:
        return "undefined"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float) and not math.isfinite(value):
        return "NaN" if value != value else ("Infinity" if value > 0 else "-Infinity")
    if isinstance(value, int | float):
        return js_number_str(value)
    if isinstance(value, list | tuple):
        return ",".join(js_join_piece(item) for item in value)
    if isinstance(value, dict):
        return "[object Object]"
    return str(value)


def js_join_piece(value: Any) -> str:
    """One element as ``Array.prototype.join`` writes it: null and undefined become empty."""
    return "" if value is None or value is UNDEFINED else js_string(value)


def js_truthy(value: Any) -> bool:
    """JavaScript truthiness: unlike Python, empty objects and arrays are true, and NaN is false."""
    if value is None or value is False or value is UNDEFINED:
        return False
    if isinstance(value, int | float) and not isinstance(value, bool):
        return value == value and value != 0
    if isinstance(value, str):
        return value != ""
    return True


def js_field_text(record: Mapping[str, Any], key: str) -> str:
    """``${record.key}``: a missing property prints as ``undefined``, a null one as ``null``."""
    return js_string(record[key]) if isinstance(record, dict) and key in record else "undefined"


def image_data_url(block: Mapping[str, Any]) -> str:
    """The data URL every OpenAI-style API takes for an inline image, printed as Pi's template literal does."""
    return f"data:{js_field_text(block, 'mimeType')};base64,{js_field_text(block, 'data')}"
