"""``Number(value)``: :func:`pi_tools.js.values.js_to_number` against Node (strings by JS's numeric grammar)."""

from __future__ import annotations

from typing import Any

import pytest

from pi_tools.js.values import UNDEFINED, js_to_number

from support.nodecases import case_id, decode, node_cases, number, same_number


@pytest.mark.parametrize("case", [c for c in node_cases("number_conversion") if c["value"] != {"$undefined": True}],
                         ids=case_id)
def test_number_of_json_values_matches_node(case: dict[str, Any]) -> None:
    assert same_number(js_to_number(decode(case["value"])), number(case["result"]))


def test_number_of_undefined_is_nan() -> None:
    """Node: ``Number(undefined)`` is NaN (JSON values never hold undefined, but a missing field reads as it)."""
    assert [c["result"] for c in node_cases("number_conversion") if c["value"] == {"$undefined": True}] == ["NaN"]
    assert js_to_number(UNDEFINED) != js_to_number(UNDEFINED)
