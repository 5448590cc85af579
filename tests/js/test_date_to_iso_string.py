"""``new Date(ms).toISOString()``: :func:`pi_tools.js.date.js_iso_string` against Node (truncation toward zero,
years before 0 and after 9999 in the six-digit signed form, and None where the Date is invalid: toISOString throws
there and JSON.stringify writes null), plus 2,000 random times across the whole range compared with the same
rules done by Python's datetime where it reaches (years 1-9999)."""

from __future__ import annotations

import random
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest

from pi_tools.js.date import js_iso_string

from support.nodecases import case_id, node_cases


@pytest.mark.parametrize("case", node_cases("date_to_iso_string"), ids=case_id)
def test_iso_string_matches_node(case: dict[str, Any]) -> None:
    assert js_iso_string(case["value"]) == case["result"]


def test_random_times_within_pythons_range_match_datetime() -> None:
    generator = random.Random(7)
    epoch = datetime(1970, 1, 1, tzinfo=UTC)
    for _ in range(2000):
        ms = generator.randint(-62135596800000, 253402300799999)  # 0001-01-01 to 9999-12-31
        expected = (epoch + timedelta(milliseconds=ms)).isoformat(timespec="milliseconds").replace("+00:00", "Z")
        assert js_iso_string(ms) == expected


def test_none_is_no_date() -> None:
    assert js_iso_string(None) is None
