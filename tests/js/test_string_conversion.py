"""``String(value)`` (and template-literal interpolation): :func:`pi_tools.js.values.js_to_string` against Node."""

from __future__ import annotations

import math
from typing import Any

import pytest

from pi_tools.js.values import UNDEFINED, js_to_string

from support.nodecases import case_id, decode, node_cases


@pytest.mark.parametrize("case", node_cases("string_conversion"), ids=case_id)
def test_string_of_json_values_matches_node(case: dict[str, Any]) -> None:
    assert js_to_string(decode(case["value"])) == case["result"]


@pytest.mark.parametrize(("value", "expected"), [
    (math.inf, "Infinity"), (-math.inf, "-Infinity"), (math.nan, "NaN"), (-0.0, "0"), (60.0, "60"),
    ([1, None, [2, UNDEFINED]], "1,,2,"), (0.1 + 0.2, "0.30000000000000004"),
])
def test_string_of_values_json_cannot_spell(value: Any, expected: str) -> None:
    """Numbers JSON has no text for, and undefined inside an array (recorded from Node 22 by hand)."""
    assert js_to_string(value) == expected
