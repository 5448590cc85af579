"""``new Date(value).getTime()``: :func:`pi_tools.js.date.js_date_ms` against Node (ISO forms, date-only forms
as UTC, numbers truncated and range-checked, null as 0, V8's legacy formats). Node ran with TZ=UTC, and so do
these tests, since date-times without an offset are local time."""

from __future__ import annotations

import math
import time
from collections.abc import Iterator
from typing import Any

import pytest

from pi_tools.js.date import js_date_ms

from support.nodecases import case_id, node_cases, number


@pytest.fixture(autouse=True)
def utc(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    monkeypatch.setenv("TZ", "UTC")
    time.tzset()
    yield
    monkeypatch.undo()
    time.tzset()


@pytest.mark.parametrize("case", node_cases("date_parse"), ids=case_id)
def test_date_time_matches_node(case: dict[str, Any]) -> None:
    got = js_date_ms(case["value"])
    want = number(case["result"])
    if math.isnan(want):
        assert got is None  # NaN, which JSON writes as null
    else:
        assert got == want
