"""pi_tools.messages.jsvalues, the package's one copy of JavaScript value semantics, against Node 22's outputs."""

from __future__ import annotations

import math
from typing import Any

import pytest

from pi_tools.js.values import UNDEFINED, js_number_to_string, js_strict_equal, js_to_number, js_to_string

# (value, Number(value)) as printed by Node 22; None stands for NaN.
NUMBER_CASES: list[tuple[Any, float | None]] = [
    (None, 0), (True, 1), ("", 0), (" 12 ", 12), ("1e3", 1000), ("0x1F", 31), ("Infinity", math.inf),
    ("-Infinity", -math.inf), ("inf", None), ("1_0", None), ("12px", None), (".5", 0.5), ("5.", 5), ([], 0),
    ([7], 7), ([1, 2], None), ({}, None), ("\ufeff3", 3), ("\x1c3", None),
]

# (value, String(value)) as printed by Node 22.
STRING_CASES: list[tuple[Any, str]] = [
    (UNDEFINED, "undefined"), (None, "null"), (True, "true"), (60.0, "60"), (1e21, "1e+21"), (1e-7, "1e-7"),
    (0.000001, "0.000001"), (123456789012345680000, "123456789012345680000"), (-0.0, "0"), (math.inf, "Infinity"),
    (math.nan, "NaN"), ([1, None, [2, 3]], "1,,2,3"), ({"a": 1}, "[object Object]"), (0.1 + 0.2, "0.30000000000000004"),
]


@pytest.mark.parametrize(("value", "expected"), NUMBER_CASES)
def test_number_conversion(value: Any, expected: float | None) -> None:
    result = js_to_number(value)
    assert math.isnan(result) if expected is None else result == expected


@pytest.mark.parametrize(("value", "expected"), STRING_CASES)
def test_string_conversion(value: Any, expected: str) -> None:
    assert js_to_string(value) == expected


def test_integers_beyond_double_precision_print_as_javascript_rounded_them() -> None:
    assert js_number_to_string(2**53 + 1) == "9007199254740992"


def test_strict_equality() -> None:
    assert js_strict_equal(1, 1.0) and js_strict_equal("a", "a") and js_strict_equal(UNDEFINED, UNDEFINED)
    assert not js_strict_equal(True, 1) and not js_strict_equal("1", 1) and not js_strict_equal(None, UNDEFINED)
    assert not js_strict_equal([], [])
