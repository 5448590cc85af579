"""The days a usage report covers: --since/--until/--month in the words people use ("last month", "30d").

Every form comes down to a first and a last day, both inclusive, in the report's time zone (the zone that also
decides which day a message belongs to), so "today" is the zone's today and `last-month` the zone's last
calendar month. A form that names a span (a month) gives its first day to --since and its last to --until, so
`--since 2026-03 --until 2026-05` is March to May whole.
"""

from __future__ import annotations

import re
from datetime import date, datetime, timedelta

from pi_tools.usage.errors import UsageError

DAY_FORMS = "YYYY-MM-DD, YYYYMMDD, YYYY-MM, today, yesterday, Nd, Nw, this-month or last-month"
"""What --since and --until accept, as their refusal lists it."""
MONTH_FORMS = "YYYY-MM, this or last"
_DAY = re.compile(r"(\d{4})-?(\d{2})-?(\d{2})")
_MONTH = re.compile(r"(\d{4})-(\d{2})")
_AGO = re.compile(r"(\d+)([dw])")


def today_in(timezone: str | None) -> date:
    """Today in the IANA zone (None: the local zone, TZ or the system's), as the report's days are decided."""
    if timezone is None:
        return datetime.now().astimezone().date()
    from zoneinfo import ZoneInfo

    return datetime.now(ZoneInfo(timezone)).date()


def month_span(year: int, month: int) -> tuple[date, date]:
    """The first and last day of a calendar month."""
    first = date(year, month, 1)
    following = date(year + month // 12, month % 12 + 1, 1)
    return first, following - timedelta(days=1)


def _relative_month(word: str, today: date) -> tuple[date, date] | None:
    if word == "this":
        return month_span(today.year, today.month)
    if word == "last":
        previous = today.replace(day=1) - timedelta(days=1)
        return month_span(previous.year, previous.month)
    return None


def parse_span(value: str, option: str, today: date) -> tuple[date, date]:
    """The first and last day a --since/--until value names (one day for most forms, a month for YYYY-MM and
    this-month/last-month). `Nd`/`Nw` are N days/weeks before today (`--since 30d`: the last 30 days and
    today)."""
    text = value.strip().lower()
    if text in ("today", "yesterday"):
        day = today - timedelta(days=text == "yesterday")
        return day, day
    if text in ("this-month", "last-month"):
        span = _relative_month(text.split("-")[0], today)
        assert span is not None
        return span
    ago = _AGO.fullmatch(text)
    if ago is not None:
        day = today - timedelta(days=int(ago[1]) * (7 if ago[2] == "w" else 1))
        return day, day
    try:
        match = _DAY.fullmatch(text)
        if match is not None:
            day = date(int(match[1]), int(match[2]), int(match[3]))
            return day, day
        month = _MONTH.fullmatch(text)
        if month is not None:
            return month_span(int(month[1]), int(month[2]))
    except ValueError:
        raise UsageError(f"{option} {value!r} is not a date in the calendar") from None
    raise UsageError(f"{option} {value!r} is not a date ({DAY_FORMS})")


def parse_month(value: str, today: date) -> tuple[date, date]:
    """--month: `YYYY-MM`, `this` or `last` (also `this-month`/`last-month`), as its first and last day."""
    text = value.strip().lower()
    span = _relative_month(text.removesuffix("-month"), today)
    if span is not None:
        return span
    match = _MONTH.fullmatch(text)
    if match is None:
        raise UsageError(f"--month {value!r} is not a month ({MONTH_FORMS})")
    try:
        return month_span(int(match[1]), int(match[2]))
    except ValueError:
        raise UsageError(f"--month {value!r} is not a month in the calendar") from None


def report_range(since: str | None, until: str | None, month: str | None,
                 today: date) -> tuple[str | None, str | None]:
    """The first and last day to count (ISO dates, None: unbounded) from --since, --until and --month."""
    if month is not None:
        if since is not None or until is not None:
            raise UsageError("--month names the whole range: give it without --since/--until")
        first, last = parse_month(month, today)
        return first.isoformat(), last.isoformat()
    first_day = parse_span(since, "--since", today)[0].isoformat() if since is not None else None
    last_day = parse_span(until, "--until", today)[1].isoformat() if until is not None else None
    if first_day is not None and last_day is not None and first_day > last_day:
        raise UsageError(f"--since {since!r} ({first_day}) is after --until {until!r} ({last_day})")
    return first_day, last_day
