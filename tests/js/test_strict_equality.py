"""``left === right``: :func:`pi_tools.js.values.js_strict_equal` against Node for every pair of a value set
(``true`` is not ``1``, an object is only itself, undefined only undefined)."""

from __future__ import annotations

from typing import Any

import pytest

from pi_tools.js.values import js_strict_equal

from support.nodecases import decode, node_cases

CASES = node_cases("strict_equality")


@pytest.mark.parametrize("case", CASES, ids=lambda c: f"{c['left']!r}==={c['right']!r}")
def test_strict_equality_matches_node(case: dict[str, Any]) -> None:
    left, right = decode(case["left"]), decode(case["right"])
    # Node compared separate copies (structuredClone), so [] === [] is false there as between two Python lists.
    assert js_strict_equal(left, right) is case["result"]


def test_an_object_equals_itself() -> None:
    shared: dict[str, Any] = {}
    assert js_strict_equal(shared, shared) and not js_strict_equal(shared, {})
