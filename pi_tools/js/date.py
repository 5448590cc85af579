"""`new Date(value).getTime()` for the timestamps Pi converts when it derives summary and custom messages.

Entry timestamps are ISO strings, but damaged files hold anything; Pi's result (a number, or NaN which JSON
writes as null) ends up in the context and even steers the max-tokens estimate, so the conversion must follow
JavaScript: ISO date-only forms are UTC, date-times without an offset are local time, a number passes through
(truncated, range-checked), null is 0, and V8 also accepts a few legacy human formats.
"""

from __future__ import annotations

import calendar
import math
import re
import time
from datetime import UTC, datetime, timedelta
from email.utils import parsedate_tz
from typing import Any

_MAX_TIME = 8.64e15

_ISO = re.compile(
    r"^([+-]\d{6}|\d{4})(?:-(\d{2})(?:-(\d{2}))?)?"
    r"(?:T(\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,9}))?)?(Z|[+-]\d{2}:\d{2})?)?$"
)


def _time_clip(ms: float) -> float | None:
    if math.isnan(ms) or abs(ms) > _MAX_TIME:
        return None
    return float(math.trunc(ms)) + 0.0


def _local_offset_ms(naive: datetime) -> float:
    """Offset of local time from UTC at that wall-clock time (what V8 applies to offset-less date-times)."""
    try:
        stamp = time.mktime(naive.timetuple())
    except (OverflowError, ValueError):
        return 0.0
    return (calendar.timegm(naive.timetuple()) - stamp) * 1000.0


def _parse_iso(text: str) -> float | None:
    match = _ISO.match(text)
    if not match:
        return None
    year_s, month_s, day_s, hour_s, minute_s, second_s, fraction_s, zone = match.groups()
    if year_s == "-000000":
        return None
    year = int(year_s)
    month = int(month_s or 1)
    day = int(day_s or 1)
    hour = int(hour_s or 0)
    minute = int(minute_s or 0)
    second = int(second_s or 0)
    millis = int((fraction_s or "0")[:3].ljust(3, "0"))
    if not (1 <= month <= 12 and 1 <= day <= 31 and minute <= 59 and second <= 59):
        return None
    if hour > 24 or (hour == 24 and (minute or second or millis)):
        return None
    days = _days_from_civil(year, month, day)
    ms = float(((days * 24 + hour) * 60 + minute) * 60_000 + second * 1000 + millis)
    if zone is None and hour_s is not None:
        # Date-time without offset: local time.
        if 1 <= year <= 9999 and hour < 24:
            naive = datetime(year, month, day, hour, minute, second)
            ms -= _local_offset_ms(naive)
    elif zone and zone != "Z":
        sign = 1 if zone[0] == "+" else -1
        zh, zm = int(zone[1:3]), int(zone[4:6])
        if zh > 23 or zm > 59:
            return None
        ms -= sign * (zh * 60 + zm) * 60_000
    return float(ms)


def _days_from_civil(year: int, month: int, day: int) -> int:
    """Days since 1970-01-01 for a proleptic Gregorian date (any year)."""
    year -= month <= 2
    era = year // 400  # floor division: the C original's (year - 399) / 400 correction is already in //
    yoe = year - era * 400
    doy = (153 * (month + (-3 if month > 2 else 9)) + 2) // 5 + day - 1
    doe = yoe * 365 + yoe // 4 - yoe // 100 + doy
    return era * 146097 + doe - 719468


_LEGACY_FORMATS = (
    "%b %d %Y %H:%M:%S", "%b %d %Y %H:%M", "%b %d %Y", "%d %b %Y %H:%M:%S", "%d %b %Y %H:%M", "%d %b %Y",
    "%Y/%m/%d %H:%M:%S", "%Y/%m/%d %H:%M", "%Y/%m/%d", "%m/%d/%Y %H:%M:%S", "%m/%d/%Y %H:%M", "%m/%d/%Y",
    "%B %d %Y %H:%M:%S", "%B %d %Y", "%a %b %d %Y %H:%M:%S", "%a %b %d %Y",
)


def _parse_legacy(text: str) -> float | None:
    """A subset of V8's fallback parser: RFC 2822 and common 'Mon DD YYYY hh:mm [GMT]' forms."""
    parsed = parsedate_tz(text)
    if parsed is not None and parsed[9] is not None:
        try:
            stamp = calendar.timegm(parsed[:9]) - parsed[9]  # type: ignore[arg-type]
            return float(stamp * 1000)
        except (OverflowError, ValueError):
            return None
    cleaned = re.sub(r",", " ", text).strip()
    zone_utc = False
    for suffix in (" GMT", " UTC", " Z"):
        if cleaned.upper().endswith(suffix):
            cleaned, zone_utc = cleaned[: -len(suffix)].strip(), True
    cleaned = re.sub(r"\s+", " ", cleaned)
    for fmt in _LEGACY_FORMATS:
        try:
            naive = datetime.strptime(cleaned, fmt)
        except ValueError:
            continue
        if zone_utc:
            return (naive.replace(tzinfo=UTC) - datetime(1970, 1, 1, tzinfo=UTC)) / timedelta(
                milliseconds=1
            )
        return time.mktime(naive.timetuple()) * 1000.0
    return None


def js_date_ms(value: Any) -> float | int | None:
    """`new Date(value).getTime()`; None stands for NaN (written as null, as JSON.stringify does)."""
    if value is None:
        return 0
    if isinstance(value, bool):
        return int(value)
    if isinstance(value, (int, float)):
        clipped = _time_clip(float(value))
        return None if clipped is None else int(clipped)
    if isinstance(value, str):
        text = value.strip()
        ms = _parse_iso(text)
        if ms is None:
            ms = _parse_legacy(text)
        if ms is None:
            return None
        clipped = _time_clip(ms)
        return None if clipped is None else int(clipped)
    return None  # objects and arrays: NaN for anything a session would plausibly hold
