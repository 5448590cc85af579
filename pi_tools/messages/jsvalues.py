"""JavaScript value coercions that Pi's string templates apply to whatever a session file holds.

Pi builds texts such as ``Ran `${command}``` from fields that a damaged or hand-edited file may store with the
wrong type; JavaScript then stringifies them (``undefined``, ``null``, ``[object Object]``, ``1,2``). Matching
Pi byte for byte on such files needs the same coercion, so it lives here, in the lowest layer.
"""

from __future__ import annotations

import math
from typing import Any

UNDEFINED: Any = type("Undefined", (), {"__repr__": lambda self: "undefined", "__bool__": lambda self: False})()
"""Sentinel for a JavaScript ``undefined`` (a missing key), distinct from JSON ``null``."""


def js_number_to_string(value: float | int) -> str:
    """Format a number as JavaScript's ``String(number)`` does (integral floats without ``.0``)."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        if abs(value) < 10**21:
            return str(value)
        value = float(value)
    if math.isnan(value):
        return "NaN"
    if math.isinf(value):
        return "Infinity" if value > 0 else "-Infinity"
    if value == 0:
        return "0"
    if value.is_integer() and abs(value) < 1e21:
        return str(int(value))
    text = repr(value)
    if "e" in text:
        mantissa, exponent = text.split("e")
        exp = int(exponent)
        if -7 < exp < 21:
            # Python switches to exponent notation earlier than JavaScript does.
            return format(value, "f").rstrip("0").rstrip(".") if exp < 0 else str(int(value))
        mantissa = mantissa.rstrip("0").rstrip(".") if "." in mantissa else mantissa
        return f"{mantissa}e{'+' if exp > 0 else '-'}{abs(exp)}"
    return text


def js_to_string(value: Any) -> str:
    """``String(value)`` / template-literal interpolation for a JSON-derived value."""
    if value is UNDEFINED:
        return "undefined"
    if value is None:
        return "null"
    if isinstance(value, str):
        return value
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float)):
        return js_number_to_string(value)
    if isinstance(value, list):
        return ",".join("" if item is None else js_to_string(item) for item in value)
    return "[object Object]"


def js_truthy(value: Any) -> bool:
    """JavaScript truthiness of a JSON value (every object and array is truthy, NaN is not)."""
    if isinstance(value, (dict, list)):
        return True
    if isinstance(value, float) and math.isnan(value):
        return False
    return bool(value)
