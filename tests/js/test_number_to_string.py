"""``Number.prototype.toString()``: :func:`pi_tools.js.values.js_number_to_string` against Node (shortest
round-trip digits, exponent from 1e21 and below 1e-6, integers beyond 2**53 as the double JSON.parse made)."""

from __future__ import annotations

from typing import Any

import pytest

from pi_tools.js.values import js_number_to_string

from support.nodecases import case_id, node_cases


@pytest.mark.parametrize("case", node_cases("number_to_string"), ids=case_id)
def test_number_to_string_matches_node(case: dict[str, Any]) -> None:
    assert js_number_to_string(case["value"]) == case["result"]


def test_integers_beyond_double_precision_print_as_javascript_rounded_them() -> None:
    assert js_number_to_string(2**53 + 1) == "9007199254740992"
    assert js_number_to_string(10**400) == "Infinity"
