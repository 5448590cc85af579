"""`new Date(value).getTime()` for the timestamps Pi converts when it derives summary and custom messages.

Entry timestamps are ISO strings, but damaged files hold anything; Pi's result (a number, or NaN which JSON
writes as null) ends up in the context and even steers Mistral's max-tokens estimate, so the conversion follows
V8 itself: its date parser first reads an ES5 date-time string (date-only forms are UTC, date-times without an
offset local time) and, for anything else, falls back to its legacy parser, which reads words, numbers and
signs one token at a time (month names, am/pm, UT/GMT/Z and the US zone names, `+hhmm` offsets, parenthesised
comments, two-digit years). A number passes through TimeClip, null is 0, an array is parsed as its String(),
an object as "[object Object]". Local time is the TZ environment's zone, with V8's choice (the earlier offset)
where a local time is skipped or repeated.
"""

from __future__ import annotations

import math
import os
from datetime import datetime, timedelta
from functools import lru_cache
from typing import Any

from pi_tools.js.values import JS_WHITESPACE, UNDEFINED, js_to_string

_MAX_TIME = 8.64e15
_MAX_TIME_BEFORE_UTC = _MAX_TIME + 864e6  # V8 allows ten days of slack before converting local time
_NONE = 2**31 - 1  # V8's kNone
_MAX_DIGITS = 9  # digits of a numeral that count; the rest are read and ignored

# Token tags (V8's DateToken) and keyword types.
_INVALID, _UNKNOWN, _SPACE, _NUMBER, _SYMBOL, _END = range(-6, 0)
_MONTH, _ZONE, _TIME_SEPARATOR, _AM_PM = 1, 2, 3, 4
_KEYWORDS: list[tuple[str, int, int]] = [
    *((name, _MONTH, index + 1) for index, name in enumerate(
        ("jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"))),
    ("am", _AM_PM, 0), ("pm", _AM_PM, 12), ("ut", _ZONE, 0), ("utc", _ZONE, 0), ("z", _ZONE, 0),
    ("gmt", _ZONE, 0), ("cdt", _ZONE, -5), ("cst", _ZONE, -6), ("edt", _ZONE, -4), ("est", _ZONE, -5),
    ("mdt", _ZONE, -6), ("mst", _ZONE, -7), ("pdt", _ZONE, -7), ("pst", _ZONE, -8), ("t", _TIME_SEPARATOR, 0),
]


def _between(x: int, lo: int, hi: int) -> bool:
    return lo <= x <= hi


class _Token:
    __slots__ = ("tag", "length", "value")

    def __init__(self, tag: int, length: int, value: int) -> None:
        self.tag, self.length, self.value = tag, length, value

    def is_number(self, length: int | None = None) -> bool:
        return self.tag == _NUMBER and (length is None or self.length == length)

    def is_symbol(self, symbol: str) -> bool:
        return self.tag == _SYMBOL and self.value == ord(symbol)

    def is_sign(self) -> bool:
        return self.tag == _SYMBOL and self.value in (43, 45)

    def sign(self) -> int:
        return 44 - self.value

    def is_keyword(self) -> bool:
        return self.tag >= 0

    def is_z(self) -> bool:
        return self.tag == _ZONE and self.length == 1 and self.value == 0


_END_TOKEN = _Token(_END, 0, -1)
_INVALID_TOKEN = _Token(_INVALID, 0, -1)


def _keyword(word: str) -> tuple[int, int]:
    """(type, value) of a word by its lower-cased first three characters; longer words match months only."""
    prefix = "".join(ch.lower() if ch < "\x80" else ch for ch in word[:3])
    for name, kind, value in _KEYWORDS:
        if prefix == name and (len(word) <= 3 or kind == _MONTH):
            return kind, value
    return 0, 0  # INVALID keyword: a garbage word


class _Scanner:
    """V8's DateStringTokenizer over InputReader: numbers, the symbols : - + . ), words (characters from 'A'
    up, so every non-ASCII character too), white space, parenthesised text, anything else unknown."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.pos = 0
        self.next = self._scan()

    def _scan(self) -> _Token:
        text, pos = self.text, self.pos
        if pos >= len(text) or text[pos] == "\x00":
            return _END_TOKEN
        ch = text[pos]
        if "0" <= ch <= "9":
            end = pos
            while end < len(text) and "0" <= text[end] <= "9":
                end += 1
            self.pos = end
            return _Token(_NUMBER, end - pos, int(text[pos : pos + min(end - pos, _MAX_DIGITS)]))
        if ch in ":-+.)":
            self.pos = pos + 1
            return _Token(_SYMBOL, 1, ord(ch))
        if ch >= "A":
            end = pos
            while end < len(text) and text[end] >= "A":
                end += 1
            self.pos = end
            kind, value = _keyword(text[pos:end])
            return _Token(kind, end - pos, value)
        if ch in JS_WHITESPACE:
            self.pos = pos + 1
            return _Token(_SPACE, 1, -1)
        if ch == "(":
            balance = 0
            while True:
                current = text[pos] if pos < len(text) else "\x00"
                if current == ")":
                    balance -= 1
                elif current == "(":
                    balance += 1
                pos += 1
                if not (balance > 0 and pos < len(text) and text[pos] != "\x00"):
                    break
            self.pos = pos
            return _Token(_UNKNOWN, 1, -1)
        self.pos = pos + 1
        return _Token(_UNKNOWN, 1, -1)

    def take(self) -> _Token:
        token = self.next
        self.next = self._scan()
        return token

    def skip(self, symbol: str) -> bool:
        if self.next.is_symbol(symbol):
            self.next = self._scan()
            return True
        return False


class _Day:
    def __init__(self) -> None:
        self.comp: list[int] = []
        self.named_month = _NONE
        self.iso = False

    def add(self, n: int) -> bool:
        if len(self.comp) < 3:
            self.comp.append(n)
            return True
        return False

    def write(self) -> tuple[int, int, int] | None:
        if not self.comp:
            return None
        # V8 pads the missing components with 1 before it looks at them, so its "only one or two
        # components" branches never run: "Aug 1" and "8/1" are in the year 1, i.e. 2001.
        comp = self.comp + [1] * (3 - len(self.comp))
        if self.named_month == _NONE:
            if self.iso or not _between(comp[0], 1, 31):
                year, month, day = comp
            else:
                month, day, year = comp
        else:
            month = self.named_month
            if not _between(comp[0], 1, 31):
                year, day = comp[0], comp[1]
            else:
                day, year = comp[0], comp[1]
        if not self.iso:
            if _between(year, 0, 49):
                year += 2000
            elif _between(year, 50, 99):
                year += 1900
        if not _between(month, 1, 12) or not _between(day, 1, 31) or not -(2**30) <= year < 2**30:
            return None
        return year, month - 1, day


class _Time:
    def __init__(self) -> None:
        self.comp: list[int] = []
        self.hour_offset = _NONE

    def empty(self) -> bool:
        return not self.comp

    def expecting(self, n: int) -> bool:
        index = len(self.comp)
        return (index == 1 and _between(n, 0, 59)) or (index == 2 and _between(n, 0, 59)) \
            or (index == 3 and _between(n, 0, 999))

    def add(self, n: int) -> bool:
        if len(self.comp) < 4:
            self.comp.append(n)
            return True
        return False

    def add_final(self, n: int) -> bool:
        if not self.add(n):
            return False
        self.comp += [0] * (4 - len(self.comp))
        return True

    def write(self) -> tuple[int, int, int, int] | None:
        hour, minute, second, millisecond = self.comp + [0] * (4 - len(self.comp))
        if self.hour_offset != _NONE:
            if not _between(hour, 0, 12):
                return None
            hour = hour % 12 + self.hour_offset
        if not (_between(hour, 0, 23) and _between(minute, 0, 59) and _between(second, 0, 59)
                and _between(millisecond, 0, 999)):
            if hour != 24 or minute or second or millisecond:
                return None
        return hour, minute, second, millisecond


class _Zone:
    def __init__(self) -> None:
        self.sign = _NONE
        self.hour = _NONE
        self.minute = _NONE

    def set(self, offset_hours: int) -> None:
        self.sign = -1 if offset_hours < 0 else 1
        self.hour = offset_hours * self.sign
        self.minute = 0

    def expecting(self, n: int) -> bool:
        return self.hour != _NONE and self.minute == _NONE and _between(n, 0, 59)

    def is_utc(self) -> bool:
        return self.hour == 0 and self.minute == 0

    def empty(self) -> bool:
        return self.hour == _NONE

    def write(self) -> tuple[bool, int | None]:
        """(ok, offset in seconds or None for local time)."""
        if self.sign == _NONE:
            return True, None
        hour = 0 if self.hour == _NONE else self.hour
        minute = 0 if self.minute == _NONE else self.minute
        total = (hour * 3600 + minute * 60) % 2**32  # unsigned arithmetic, as V8 does it
        if total > 2**30 - 1:
            return False, None
        return True, -total if self.sign < 0 else total


def _milliseconds(token: _Token) -> int:
    """The first three significant digits of a fraction, from its value and its number of digits."""
    number, length = token.value, token.length
    if length == 1:
        return number * 100
    if length == 2:
        return number * 10
    if length > 3:
        length = min(length, _MAX_DIGITS)
        return number // 10 ** (length - 3)
    return number


def _parse_es5(scanner: _Scanner, day: _Day, time: _Time, zone: _Zone) -> _Token:
    """ParseES5DateTime: the ISO form, or the token the legacy parser continues with (END: done; INVALID)."""
    if scanner.next.is_sign():
        sign_token = scanner.take()
        if not scanner.next.is_number(6):
            return sign_token
        sign = sign_token.sign()
        year = scanner.take().value
        if sign < 0 and year == 0:
            return sign_token
        day.add(sign * year)
    elif scanner.next.is_number(4):
        day.add(scanner.take().value)
    else:
        return scanner.take()
    if scanner.skip("-"):
        if not scanner.next.is_number(2) or not _between(scanner.next.value, 1, 12):
            return scanner.take()
        day.add(scanner.take().value)
        if scanner.skip("-"):
            if not scanner.next.is_number(2) or not _between(scanner.next.value, 1, 31):
                return scanner.take()
            day.add(scanner.take().value)
    if scanner.next.tag != _TIME_SEPARATOR:
        if scanner.next.tag != _END:
            return scanner.take()
    else:
        scanner.take()
        if not scanner.next.is_number(2) or not _between(scanner.next.value, 0, 24):
            return _INVALID_TOKEN
        hour_is_24 = scanner.next.value == 24
        time.add(scanner.take().value)
        if not scanner.skip(":"):
            return _INVALID_TOKEN
        if not scanner.next.is_number(2) or not _between(scanner.next.value, 0, 59) \
                or (hour_is_24 and scanner.next.value > 0):
            return _INVALID_TOKEN
        time.add(scanner.take().value)
        if scanner.skip(":"):
            if not scanner.next.is_number(2) or not _between(scanner.next.value, 0, 59) \
                    or (hour_is_24 and scanner.next.value > 0):
                return _INVALID_TOKEN
            time.add(scanner.take().value)
            if scanner.skip("."):
                if not scanner.next.is_number() or (hour_is_24 and scanner.next.value > 0):
                    return _INVALID_TOKEN
                time.add(_milliseconds(scanner.take()))
        if scanner.next.is_z():
            scanner.take()
            zone.set(0)
        elif scanner.next.is_symbol("+") or scanner.next.is_symbol("-"):
            zone.sign = 1 if scanner.take().value == ord("+") else -1
            if scanner.next.is_number(4):
                hour_minute = scanner.take().value
                hour, minute = hour_minute // 100, hour_minute % 100
                if not _between(hour, 0, 23) or not _between(minute, 0, 59):
                    return _INVALID_TOKEN
                zone.hour, zone.minute = hour, minute
            else:
                if not scanner.next.is_number(2) or not _between(scanner.next.value, 0, 23):
                    return _INVALID_TOKEN
                zone.hour = scanner.take().value
                if not scanner.skip(":"):
                    return _INVALID_TOKEN
                if not scanner.next.is_number(2) or not _between(scanner.next.value, 0, 59):
                    return _INVALID_TOKEN
                zone.minute = scanner.take().value
        if scanner.next.tag != _END:
            return _INVALID_TOKEN
    if zone.empty() and time.empty():
        zone.set(0)  # date-only forms are UTC
    day.iso = True
    return _END_TOKEN


def _parse_fields(text: str) -> tuple[int, int, int, int, int, int, int, int | None] | None:
    """DateParser::Parse: (year, month0, day, hour, minute, second, ms, utc offset seconds or None)."""
    scanner = _Scanner(text)
    day, time, zone = _Day(), _Time(), _Zone()
    token = _parse_es5(scanner, day, time, zone)
    if token.tag == _INVALID:
        return None
    has_read_number = bool(day.comp)
    while token.tag != _END:
        if token.tag == _NUMBER:
            has_read_number = True
            n = token.value
            if scanner.skip(":"):
                if scanner.skip(":"):
                    if not time.empty():
                        return None
                    time.add(n)
                    time.add(0)
                else:
                    if not time.add(n):
                        return None
                    if scanner.next.is_symbol("."):
                        scanner.take()
            elif scanner.skip(".") and time.expecting(n):  # the "." is consumed either way, as in V8
                time.add(n)
                if not scanner.next.is_number():
                    return None
                time.add_final(_milliseconds(scanner.take()))
            elif zone.expecting(n):
                zone.minute = n
            elif time.expecting(n):
                time.add_final(n)
                peek = scanner.next
                if peek.tag not in (_END, _SPACE) and not peek.is_z() and not peek.is_sign():
                    return None
            else:
                if not day.add(n):
                    return None
                scanner.skip("-")
        elif token.is_keyword():
            kind, value = token.tag, token.value
            if kind == _AM_PM and not time.empty():
                time.hour_offset = value
            elif kind == _MONTH:
                day.named_month = value
                scanner.skip("-")
            elif kind == _ZONE and has_read_number:
                zone.set(value)
            else:
                if has_read_number:
                    return None
                if scanner.next.is_number():
                    return None
        elif token.is_sign() and (zone.is_utc() or not time.empty()):
            zone.sign = -1 if token.sign() < 0 else 1
            n, length = 0, 0
            if scanner.next.is_number():
                number = scanner.take()
                n, length = number.value, number.length
            has_read_number = True
            if scanner.next.is_symbol(":"):
                zone.hour, zone.minute = n, _NONE
            elif length in (1, 2):
                zone.hour, zone.minute = n, 0
            elif length in (3, 4):
                zone.hour, zone.minute = n // 100, n % 100
            else:
                return None
        elif (token.is_sign() or token.is_symbol(")")) and has_read_number:
            return None
        token = scanner.take()
    date = day.write()
    clock = time.write()
    ok, offset = zone.write()
    if date is None or clock is None or not ok:
        return None
    return (*date, *clock, offset)


def _days_from_civil(year: int, month: int, day: int) -> int:
    """Days since 1970-01-01 for a proleptic Gregorian date (any year; month 1-12, day may overflow)."""
    year -= month <= 2
    era = year // 400  # floor division: correct for negative years too
    yoe = year - era * 400
    doy = (153 * (month + (-3 if month > 2 else 9)) + 2) // 5
    doe = yoe * 365 + yoe // 4 - yoe // 100 + doy
    return era * 146097 + doe - 719468 + day - 1


@lru_cache(maxsize=8)
def _zone_for(name: str | None) -> Any:
    """The tz database zone of the TZ environment (None: the system's, else UTC)."""
    from zoneinfo import ZoneInfo

    candidates = [name] if name else []
    try:
        link = os.path.realpath("/etc/localtime")
        if "zoneinfo/" in link:
            candidates.append(link.split("zoneinfo/", 1)[1])
    except OSError:
        pass
    for candidate in candidates:
        key = candidate[1:] if candidate.startswith(":") else candidate
        try:
            return ZoneInfo(key)
        except (ValueError, OSError, KeyError):
            continue
    return None


def _local_to_utc(local_ms: float) -> float:
    """V8's DateCache::ToUTC: local wall-clock milliseconds to UTC, taking the offset in force before a
    transition where the wall-clock time is skipped or repeated (ICU's LOCAL_FORMER)."""
    zone = _zone_for(os.environ.get("TZ"))
    if zone is None:
        return local_ms
    days, rest = divmod(int(local_ms), 86_400_000)
    # Years outside datetime's range take an equivalent year of the 400-year Gregorian cycle.
    civil = datetime(1970, 1, 1) + timedelta(days=days % 146097)
    cycles = days // 146097
    year = civil.year + 400 * cycles
    shift = 0
    if year > 9000:
        shift = (year - 2000) // 400 * 400
    elif year < 1600:
        shift = (year - 1200) // 400 * 400
    try:
        wall = civil.replace(year=year - shift) + timedelta(milliseconds=rest)
    except ValueError:
        return local_ms
    offset = wall.replace(tzinfo=zone, fold=0).utcoffset()
    return local_ms - (offset.total_seconds() * 1000 if offset is not None else 0)


def _parse_string(text: str) -> float:
    fields = _parse_fields(text)
    if fields is None:
        return math.nan
    year, month0, day, hour, minute, second, millisecond, offset = fields
    date = float(_days_from_civil(year, month0 + 1, day) * 86_400_000
                 + ((hour * 60 + minute) * 60 + second) * 1000 + millisecond)
    if offset is None:
        if abs(date) > _MAX_TIME_BEFORE_UTC:
            return math.nan
        date = _local_to_utc(date)
    else:
        date -= offset * 1000.0
        if abs(date) > _MAX_TIME:
            return math.nan
    return date


def _time_clip(ms: float) -> int | None:
    if math.isnan(ms) or abs(ms) > _MAX_TIME:
        return None
    return int(math.trunc(ms))


def js_date_ms(value: Any) -> int | None:
    """`new Date(value).getTime()`; None stands for NaN (written as null, as JSON.stringify does)."""
    if value is None:
        return 0
    if value is UNDEFINED:
        return None
    if isinstance(value, bool):
        return int(value)
    if isinstance(value, (int, float)):
        return _time_clip(float(value))
    if isinstance(value, (list, tuple)):
        value = js_to_string(value)  # ToPrimitive: an array becomes its joined text, which is then parsed
    elif not isinstance(value, str):
        value = "[object Object]"
    return _time_clip(_parse_string(value))


def _civil_from_days(days: int) -> tuple[int, int, int]:
    """(year, month, day) of a day count from 1970-01-01, proleptic Gregorian, any year (JS dates reach
    275,760 years either side, far past what Python's datetime holds)."""
    days += 719468
    era = days // 146097
    day_of_era = days - era * 146097
    year_of_era = (day_of_era - day_of_era // 1460 + day_of_era // 36524 - day_of_era // 146096) // 365
    day_of_year = day_of_era - (365 * year_of_era + year_of_era // 4 - year_of_era // 100)
    shifted_month = (5 * day_of_year + 2) // 153
    day = day_of_year - (153 * shifted_month + 2) // 5 + 1
    month = shifted_month + 3 if shifted_month < 10 else shifted_month - 9
    return year_of_era + era * 400 + (1 if month <= 2 else 0), month, day


def js_iso_string(ms: float | int | None) -> str | None:
    """`new Date(ms).toISOString()`, or None where the date is invalid (NaN, or beyond 8.64e15 ms, where
    toISOString throws and JSON.stringify of the Date gives null). Years past 9999 or before 0 take JavaScript's
    six-digit signed form (+010000-01-01T00:00:00.000Z)."""
    if ms is None:
        return None
    clipped = _time_clip(float(ms))
    if clipped is None:
        return None
    days, in_day = divmod(clipped, 86_400_000)
    year, month, day = _civil_from_days(days)
    hours, rest = divmod(in_day, 3_600_000)
    minutes, rest = divmod(rest, 60_000)
    seconds, millis = divmod(rest, 1000)
    year_text = f"{year:04d}" if 0 <= year <= 9999 else f"{'+' if year > 0 else '-'}{abs(year):06d}"
    return f"{year_text}-{month:02d}-{day:02d}T{hours:02d}:{minutes:02d}:{seconds:02d}.{millis:03d}Z"
