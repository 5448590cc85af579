"""``Boolean(value)`` / ``if (value)``: :func:`pi_tools.js.values.js_truthy` against Node ([] and {} are true,
"" and 0 and NaN are not)."""

from __future__ import annotations

import math
from typing import Any

import pytest

from pi_tools.js.values import js_truthy

from support.nodecases import case_id, decode, node_cases


@pytest.mark.parametrize("case", node_cases("truthiness"), ids=case_id)
def test_truthiness_matches_node(case: dict[str, Any]) -> None:
    assert js_truthy(decode(case["value"])) is case["result"]


def test_nan_is_falsy() -> None:
    assert not js_truthy(math.nan) and js_truthy(math.inf)
