"""The message lines of a clean session decoded once, into structs holding what the index's tables need.

The bulk index (session/bulk.py) decodes every line's head to check the file; the index used to parse every
line a second time with orjson, into dicts, to build its rows. Here the bulk index's own pass does both: a
slice decoder (bulk.SliceDecoder) decodes each Pi-shaped message line into structs (the `Row*` projection of
session/line_format.py) whose fields have the exact types Pi writes (so the rows need no type checks), skipping
in C what no table holds (signatures, image data, costs per part, response ids). The structs are as strict as
the index's own heads (`line_format.HeadMessageLine`), and stricter: a line that does not fit them (another
block type, a field of another type) is decoded by the index's own decoder, which decides as always whether the
file is clean, and is then parsed in full as before. The entry timestamp is kept as its string (the tables and
`usage` read the text) and checked as the index's heads check it, as a msgspec datetime, a slice at a time.

Where the two parsers differ, the rows keep orjson's reading. An integer beyond 64 bits, which orjson reads as
a float, is read as that float wherever a row takes a number (`orjson_number`; `usage` reads such counts as 0, as
it reads floats). A number beyond the double range makes orjson refuse the whole line, which `usage` then may
not count; msgspec refuses it in a field it decodes, but skips it in a field no struct holds. That matters only
on an assistant line (the only lines `usage` counts), so the assistant structs, their blocks and the entry
forbid unknown fields and decode the extra fields Pi writes (`responseId`, `duration`, signatures, ...) as
values: a line with any other field is parsed in full, as before.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

import msgspec
import orjson
from msgspec import Raw

from pi_tools.js.json_line import loads_line_lenient
from pi_tools.session.line_format import (
    DECODE_ERRORS,
    HeadMessageLine,
    RowMessageLine,
    entry_union_decoder,
)

_decode_lines = entry_union_decoder(RowMessageLine).decode_lines
_decode_line = entry_union_decoder(RowMessageLine).decode
_decode_head = entry_union_decoder(HeadMessageLine).decode  # what the index itself accepts
_decode_times = msgspec.json.Decoder(list[datetime]).decode


class LineDecoder:
    """The bulk index's slice decoder for `index`: keeps every line's struct (`heads`, file order) and the
    lines that must be parsed in full (`misfits`, line indices: the header is 0)."""

    def __init__(self) -> None:
        self.heads: list[Any] = []
        self.misfits: set[int] = set()
        self.times: list[datetime] = []
        """The timestamp of every `RowMessageLine` of `heads` (in their order) as the check decoded it."""

    def __call__(self, lines: memoryview, first: int) -> list[Any]:
        try:
            heads = _decode_lines(lines)
            times = _check_times(heads)
        except (*DECODE_ERRORS, TypeError, orjson.JSONEncodeError):
            heads, times = self._one_by_one(lines, first)
        self.heads += heads
        self.times += times
        return heads

    def _one_by_one(self, lines: memoryview, first: int) -> tuple[list[Any], list[datetime]]:
        heads: list[Any] = []
        times: list[datetime] = []
        for number, line in enumerate(bytes(lines).split(b"\n"), first):
            try:
                head = _decode_line(line)
                time = _check_times([head])
            except (*DECODE_ERRORS, TypeError, orjson.JSONEncodeError):
                head = _decode_head(line)  # raises for a line the index refuses: the file is not clean
                self.misfits.add(number)
                time = []
            heads.append(head)
            times += time
        return heads, times


def _check_times(heads: list[Any]) -> list[datetime]:
    """Every message line's timestamp decoded as the index's heads decode it (a datetime); raises where one
    does not decode."""
    stamps = [head.timestamp for head in heads if type(head) is RowMessageLine]
    return _decode_times(orjson.dumps(stamps)) if stamps else []


def arguments_value(arguments: Raw) -> Any:
    """A tool call's arguments as the rows always read them: as orjson reads them (else as the session reader
    reads a line orjson refuses)."""
    text = memoryview(arguments)
    try:
        return orjson.loads(text)
    except orjson.JSONDecodeError:
        return loads_line_lenient(text)


I64_MIN = -(1 << 63)
U64_MAX = (1 << 64) - 1


def orjson_number(value: Any) -> Any:
    """A decoded number as orjson reads it: an integer beyond 64 bits is a float."""
    if type(value) is int and not I64_MIN <= value <= U64_MAX:
        return float(value)
    return value
