"""Token sums beyond 64 bits, written as JavaScript writes them.

Each stored count is at most 2^64 - 1 (counter.WIDE: beyond it JSON.parse and orjson read a float, counted as 0),
but a sum of such counts can pass 2^64, which orjson cannot write (`TypeError: Integer exceeds 64-bit range`) and
polars' Int64 columns cannot hold. Pi and ccusage add tokens as JavaScript numbers (doubles), so `--format json`
writes such a sum as JSON.stringify would: the double's integer digits below 10^21
(`36000000000000000000`), exponent form from 10^21 (`3.6e+21`). csv and parquet keep integer columns and refuse
the report with a clear message instead (`too_wide`).
"""

from __future__ import annotations

import uuid
from typing import Any

import orjson

INT64_MAX = (1 << 63) - 1
_ORJSON_RANGE = (-(1 << 63), (1 << 64) - 1)


def js_number(value: int) -> str:
    """`value` as JSON.stringify writes the JavaScript number nearest to it."""
    double = float(value)
    return str(int(double)) if abs(double) < 1e21 else repr(double)


def dumps(document: Any) -> bytes:
    """orjson's bytes for `document`, with integers beyond its 64-bit range written as JavaScript numbers."""
    wide: list[int] = []
    nonce = uuid.uuid4().hex  # no string of the document can be mistaken for a marker

    def swap(value: Any) -> Any:
        if type(value) is int and not _ORJSON_RANGE[0] <= value <= _ORJSON_RANGE[1]:
            wide.append(value)
            return f"\x00{nonce}{len(wide) - 1}\x00"
        if isinstance(value, dict):
            return {key: swap(item) for key, item in value.items()}
        if isinstance(value, list):
            return [swap(item) for item in value]
        return value

    try:
        return orjson.dumps(document)
    except TypeError:
        text = orjson.dumps(swap(document))
    for index, value in enumerate(wide):
        text = text.replace(f'"\\u0000{nonce}{index}\\u0000"'.encode(), js_number(value).encode(), 1)
    return text


def too_wide(rows: list[dict[str, Any]]) -> str | None:
    """The first token count of `rows` over a 64-bit signed integer (what csv and parquet columns hold), said
    for the user, or None."""
    for row in rows:
        for name, value in row.items():
            if type(value) is int and value > INT64_MAX:
                where = ", ".join(f"{key} {row[key]}" for key in row if isinstance(row[key], str))
                return (f"the {name} sum{f' of {where}' if where else ''} is {value:,} tokens, over the 64-bit "
                        f"integers csv and parquet columns hold ({INT64_MAX:,}): use --format json (it writes such "
                        "sums as JavaScript numbers) or the table")
    return None
