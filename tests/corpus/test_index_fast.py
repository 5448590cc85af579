"""The index's fast paths give exactly the rows of the reference ones, as the tables' frames, on every fixture
(bad, real-world, conformance and fuzz sessions; both readers where the bulk one takes the file)."""

from __future__ import annotations

import re
from datetime import datetime
from pathlib import Path
from typing import Any

import orjson
import polars as pl
import pytest
from polars.testing import assert_frame_equal

from pi_tools.corpus.rows import (
    IndexInputError,
    ReadSession,
    bulk_read,
    line_lengths,
    reference_usage_rows,
    session_rows,
    tree_read,
)
from pi_tools.corpus.schema import TABLES
from pi_tools.corpus.task import RowsBatch

ROOT = Path(__file__).resolve().parents[2]
FIXTURES = sorted(path for folder in ("bad", "realworld", "conformance", "fuzz")
                  for path in (ROOT / "fixtures" / folder).rglob("*.jsonl"))


def frames_of(name: str, rows: dict[str, Any]) -> dict[str, pl.DataFrame]:
    batch = RowsBatch()
    batch.add(name, rows)
    return batch.frames()


def frames(name: str, read: ReadSession, data: bytes, reference: bool) -> dict[str, pl.DataFrame]:
    if reference:
        rows = session_rows(name, read, line_lengths(data), len(data), reference_usage_rows)
    else:
        rows = session_rows(name, read, line_lengths(data), len(data))
    return frames_of(name, rows)


def test_there_are_fixtures_of_every_kind() -> None:
    assert {path.relative_to(ROOT / "fixtures").parts[0] for path in FIXTURES} == \
        {"bad", "realworld", "conformance", "fuzz"}
    assert len(FIXTURES) > 100


@pytest.mark.parametrize("path", FIXTURES, ids=lambda path: str(path.relative_to(ROOT / "fixtures")))
def test_fast_rows_equal_the_reference_rows(path: Path) -> None:
    data = path.read_bytes()
    name = str(path.relative_to(ROOT))
    readers = []
    bulk = bulk_read(name, data)
    if bulk is not None:
        readers.append(bulk)
    try:
        readers.append(tree_read(name, data))
    except IndexInputError:
        assert bulk is None
        return
    for read in readers:
        try:
            fast = frames(name, read, data, reference=False)
        except RecursionError:  # index_batch reports "nesting too deep": the reference must fail alike
            with pytest.raises(RecursionError):
                frames(name, read, data, reference=True)
            continue
        expected = frames(name, read, data, reference=True)
        assert list(fast) == list(expected) and set(fast) == set(TABLES)
        for table, built in fast.items():
            assert_frame_equal(built, expected[table], check_exact=True)


def struct_and_dict_frames(name: str, data: bytes) -> tuple[dict[str, pl.DataFrame], dict[str, pl.DataFrame]] | None:
    """The rows of a clean file through the struct-decoded entries (what `index` uses) and through the entries
    parsed by orjson with the reference usage count; None when the bulk index does not take the file."""
    structs = bulk_read(name, data, structs=True)
    dicts = bulk_read(name, data, structs=False)
    assert (structs is None) == (dicts is None)
    if structs is None or dicts is None:
        return None
    return frames(name, structs, data, reference=False), frames(name, dicts, data, reference=True)


@pytest.mark.parametrize("path", FIXTURES, ids=lambda path: str(path.relative_to(ROOT / "fixtures")))
def test_struct_decoded_rows_equal_the_parsed_reference_rows(path: Path) -> None:
    data = path.read_bytes()
    try:
        found = struct_and_dict_frames(str(path.relative_to(ROOT)), data)
    except RecursionError:
        return  # index_batch reports "nesting too deep" (the reference test above checks both fail alike)
    if found is None:
        return
    fast, expected = found
    assert list(fast) == list(expected)
    for table, built in fast.items():
        assert_frame_equal(built, expected[table], check_exact=True)


def test_most_clean_fixture_lines_are_struct_decoded() -> None:
    """The struct path is taken (else the test above compares the dict path with itself)."""
    from pi_tools.session.line_format import RowMessageLine as MessageLine

    decoded = parsed = timed = untimed = 0
    for path in FIXTURES:
        data = path.read_bytes()
        read = bulk_read(str(path), data, structs=True)
        if read is not None:
            decoded += sum(type(entry) is MessageLine for entry in read.entries)
            parsed += sum(type(entry) is dict for entry in read.entries)
            if read.times is not None:  # the decoder's datetimes, one per struct entry
                assert len(read.times) == sum(type(entry) is MessageLine for entry in read.entries)
                timed += 1
            untimed += read.times is None
    assert decoded > 5 * parsed > 0
    assert timed > 10 * untimed


SOURCE = ROOT / "fixtures" / "conformance" / "cases" / "c001_tools.jsonl"
ASSISTANT = b'"role":"assistant"'


def last_timestamp(line: bytes, value: bytes) -> bytes:
    """The message's own timestamp (the line's last) set to `value`."""
    head, _, tail = line.rpartition(b'"timestamp":')
    number = len(tail) - len(tail.lstrip(b"0123456789.-"))
    return head + b'"timestamp":' + value + tail[number:]


# Numbers msgspec and orjson read differently, and lines the structs do not fit, put into the fixture's
# assistant lines: the rows must still be orjson's.
VARIANTS: dict[str, Any] = {
    "wide input tokens": lambda line: line.replace(b'"usage":{"input":', b'"usage":{"input":123456789012345678901234,"x":'),
    "wide negative total": lambda line: line.replace(b'"usage":{', b'"usage":{"totalTokens":-92233720368547758090,'),
    "float input tokens": lambda line: line.replace(b'"usage":{"input":', b'"usage":{"input":12.0,"x":'),
    "negative cache read": lambda line: re.sub(rb'"cacheRead":\d+', b'"cacheRead":-1,"cacheWrite1h":7', line, count=1),
    "no total and a reasoning count": lambda line: re.sub(rb'"totalTokens":\d+,', b'"reasoning":3,', line),
    "cost not an object": lambda line: line.replace(b'"cost":{', b'"cost":"free","was":{'),
    "wide stored cost": lambda line: line.replace(b'"total":', b'"total":18446744073709551616,"was":'),
    "wide message time": lambda line: last_timestamp(line, b"98765432109876543210987"),
    "overflowing unknown field": lambda line: line.replace(ASSISTANT + b",", ASSISTANT + b',"extra":1e400,'),
    "overflowing known field": lambda line: line.replace(ASSISTANT + b",", ASSISTANT + b',"duration":-1E+999,'),
    "overflowing block field": lambda line: line.replace(b'{"type":"toolCall",', b'{"type":"toolCall","extra":[2e308],'),
    "overflowing arguments": lambda line: line.replace(b'"arguments":{', b'"arguments":{"n":1e309,'),
    "wide arguments": lambda line: line.replace(b'"arguments":{', b'"arguments":{"n":123456789012345678901234567890,'),
    "arguments orjson writes otherwise": lambda line: line.replace(
        b'"arguments":{', b'"arguments":{"e":1E2,"s":"\\u00e9","d":1,"d":2, "sp" : [1.0],'),
    "unknown block": lambda line: line.replace(b'"content":[', b'"content":[{"type":"image","data":"","mimeType":"x"},'),
    "unknown entry field": lambda line: line.replace(b'{"type":"message",', b'{"type":"message","extra":{"a":1e500},'),
}


@pytest.mark.parametrize("variant", VARIANTS)
def test_numbers_the_parsers_read_differently_give_orjsons_rows(variant: str) -> None:
    lines = SOURCE.read_bytes().split(b"\n")
    changed = 0
    for index, line in enumerate(lines):
        new = VARIANTS[variant](line) if ASSISTANT in line and b'"toolCall"' in line else line
        if new != line and changed < 3:
            lines[index] = new
            changed += 1
    assert changed
    data = b"\n".join(lines)
    structs, dicts = bulk_read("variant.jsonl", data, structs=True), bulk_read("variant.jsonl", data)
    assert structs is not None and dicts is not None, "the bulk index no longer takes the variant: it tests nothing"
    try:
        expected = frames("variant.jsonl", dicts, data, reference=True)
    except TypeError as exc:  # a time beyond Int64 (main's behaviour too): the struct path must fail alike
        with pytest.raises(TypeError, match=re.escape(str(exc).splitlines()[0])):
            frames("variant.jsonl", structs, data, reference=False)
        return
    fast = frames("variant.jsonl", structs, data, reference=False)
    for table, built in fast.items():
        assert_frame_equal(built, expected[table], check_exact=True)


@pytest.mark.parametrize("names", [
    [["read", "bash"], [], ["edit"], ["", ""], ["a", ""]],
    [["read"], [""], []],  # one empty name: written as [] (as the index always wrote it)
    [[], []],
    [],
    [["has\x1fseparator"], ["read", "bash"], [""]],  # a name with the separator: the lists as they are
    [["x", "y\x1f"], ["\x1f"]],
])
def test_tool_name_lists_are_the_rows_lists(names: list[list[str]]) -> None:
    from pi_tools.corpus.task import _string_lists

    holds_separator = any("\x1f" in name for row in names for name in row)
    expected = names if holds_separator else [[] if row == [""] else row for row in names]
    built = _string_lists("toolNames", names)
    assert built.dtype == pl.List(pl.String) and built.to_list() == expected


def test_entry_times_read_at_once_are_stamp_ms() -> None:
    """The vectorised read of struct lines' timestamps gives `stamp_ms` of every string, whatever its shape
    (the struct lines' own are RFC 3339 datetimes; here any near miss too: leap seconds, year 0, bad dates,
    other widths, separators and offsets)."""
    import random

    from pi_tools.corpus.rows import entry_times, stamp_ms

    rng = random.Random(14)
    texts: list[str | None] = [None, "", "2026-06-28T02:49:38.179Z", "2024-02-29T23:59:59.999Z",
                               "2023-02-29T00:00:00.000Z", "0000-01-01T00:00:00.000Z", "0001-01-01T00:00:00.000Z",
                               "1969-12-31T23:59:59.999Z", "2026-06-30T23:59:60.000Z", "2026-06-30T24:00:00.000Z",
                               "12026-6-28T02:49:38.179Z", "2026-06-28T2:49:38.1795Z", "2026-06-28t02:49:38.179z"]
    for _ in range(20000):
        year = rng.choice([rng.randint(0, 9999), rng.randint(1960, 2100), rng.randint(10000, 99999)])
        fields = (rng.randint(0, 13), rng.randint(0, 32), rng.randint(0, 25), rng.randint(0, 61), rng.randint(0, 61))
        fraction = rng.choice([f"{rng.randint(0, 999):03d}", str(rng.randint(0, 99999)), str(rng.randint(0, 9))])
        sep, zone = rng.choice("TTTt "), rng.choice(["Z", "Z", "z", "+00:00", ""])
        wide = "{:04d}-{:02d}-{:02d}{{}}{:02d}:{:02d}:{:02d}".format(year, *fields)
        narrow = "{}-{}-{}{{}}{}:{}:{}".format(year, *fields)
        texts.append(rng.choice([wide, narrow]).format(sep) + "." + fraction + zone)
    known = {0: 5, 1: -7}
    expected = [stamp_ms(text) for text in texts]
    expected[0], expected[1] = 5, -7
    assert entry_times(texts, known) == expected
    assert sum(value is not None for value in expected) > 5000
    # From the datetimes the struct decoder checked them as (only texts msgspec reads are struct lines' own):
    # all in Pi's form (the joined check), and mixed with every other form msgspec reads.
    import msgspec

    from pi_tools.corpus.rows import struct_times

    decode = msgspec.json.Decoder(datetime).decode
    valid: list[str | None] = [None, None]
    for text in texts[2:]:
        try:
            decode(orjson.dumps(text))
        except msgspec.ValidationError:
            continue
        valid.append(text)
    assert sum(text is not None and len(text) != 24 for text in valid) > 1000
    pi_form = [None, None, *(text for text in valid if text is not None and len(text) == 24 and text[10] == "T"
                            and text[23] == "Z")]
    for case in (valid, pi_form, pi_form[:3], [None, None]):
        times = [decode(orjson.dumps(text)) for text in case if text is not None]
        assert struct_times(case, times, known) == [5, -7, *(stamp_ms(text) for text in case[2:])]


RAW_ARGUMENTS = [
    b'{"path":"a.py","n":1,"f":0.5,"ok":true,"none":null,"list":[1,"two",{"x":[]}]}', b'{}', b'[]', b'"text"',
    b'{"s":"\\u00e9\\n\\"\\\\ \\u001f","u":"\xc3\xa9\xe2\x82\xac"}', b'{"slash":"\\/"}', b'{"a" : 1}',
    b'{"d":1,"d":2}', b'{"e":1e21}', b'{"e":1E2,"f":1.0,"z":-0.0,"g":1.5e-7}', b'{"big":123456789012345678901234}',
    b'{"huge":1e400}', b'{"lone":"\\ud800"}', b'[' * 300 + b']' * 300, b'{"k":12345678901234567890}',
]


@pytest.mark.parametrize("count", [1, 2, len(RAW_ARGUMENTS)])
def test_raw_arguments_are_their_round_trip(count: int) -> None:
    """One round trip for all of a file's raw tool-call arguments gives each call's own round trip, whether the
    raw bytes are what orjson writes (then they are taken as they are) or not (an escape, a number form, a
    space, a repeated key; a number or a nesting orjson refuses)."""
    import msgspec

    from pi_tools.corpus.lines import arguments_value
    from pi_tools.corpus.rows import _arguments_json, raw_arguments_json

    for start in range(len(RAW_ARGUMENTS)):
        raws = [msgspec.Raw(text) for text in (RAW_ARGUMENTS * 2)[start:start + count]]
        assert raw_arguments_json(raws) == [_arguments_json(arguments_value(raw)) for raw in raws]
    compact = [msgspec.Raw(text) for text in RAW_ARGUMENTS[:4]]
    assert raw_arguments_json(compact) == [text.decode() for text in RAW_ARGUMENTS[:4]]
    assert raw_arguments_json([]) == []
