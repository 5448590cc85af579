"""pi_tools.js.date against V8 itself: `new Date(value).getTime()` for 1,711 values (ISO forms and their near
misses, V8's legacy forms, numbers, arrays, objects), each in five time zones (UTC, half-hour and
half-hour-DST zones, a +14 zone), as Node 22 answered them (tests/data/v8_dates.json, written by
scripts/probe_v8_dates.py)."""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

import pytest

from pi_tools.js.date import _zone_for, js_date_ms

TABLE = json.loads((Path(__file__).resolve().parents[1] / "data" / "v8_dates.json").read_text())


@pytest.fixture
def zone(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> Any:
    monkeypatch.setenv("TZ", request.param)
    time.tzset()
    _zone_for.cache_clear()
    yield request.param
    monkeypatch.undo()
    time.tzset()
    _zone_for.cache_clear()


@pytest.mark.parametrize("zone", TABLE["zones"], indirect=True)
def test_every_probed_value_gives_v8s_time(zone: str) -> None:
    wrong = [(case["value"], js_date_ms(case["value"]), case[zone]) for case in TABLE["cases"]
             if js_date_ms(case["value"]) != case[zone]]
    assert wrong == []


def test_table_covers_the_forms_damaged_files_hold() -> None:
    values = {json.dumps(case["value"]) for case in TABLE["cases"]}
    for form in ["2025-08-01 10:00:00Z", " 2025-08-01T10:00:00.000Z", "2025-08-01t10:00:00z",
                 "2025-08-01T10:00:00+0530", "2025-8-1", "Aug 1 2025", "+002025-08-01", "1754042400000", "[]"]:
        assert json.dumps(form) in values or form == "[]" and "[]" in values, form
    assert len(TABLE["cases"]) > 1500


@pytest.mark.parametrize(("value", "expected"), [
    ("2025-08-01 10:00:00Z", 1754042400000),  # a space for the T: V8's legacy parser reads it
    ("2025-08-01T10:00:00+0530", 1754022600000),  # +hhmm without the colon
    ("Aug 1", 996624000000),  # no year: V8 pads the missing parts with 1, so 2001
    (["2025"], 1735689600000),  # an array is parsed as its String()
    ({"a": 1}, None), (None, 0), (True, 1), (8.64e15 + 1, None),
])
def test_examples_in_utc(value: Any, expected: int | None, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TZ", "UTC")
    _zone_for.cache_clear()
    assert js_date_ms(value) == expected
