"""The ids and the active path of a clean session file, from one msgspec pass over its bytes.

Search needs, of every line, only its id and its parent's: enough to walk from the leaf back to the root. A
file Pi wrote and nothing damaged (one JSON object per line, a current header, unique string ids, every parent
earlier in the file) is decoded in a single `decode_lines` call that keeps three fields per line, several
times faster than the bulk index the context stages use (which validates and keeps more). Anything else
returns None, and the caller reads the file line by line as Pi does (migrations, duplicate ids, damage).
"""

from __future__ import annotations

from bisect import bisect_right
from itertools import compress, islice
from operator import attrgetter, ne
from typing import Any

import msgspec

from pi_tools.session.line_format import LooseIds
from pi_tools.session.migrations import header_is_current

_decode = msgspec.json.Decoder(LooseIds).decode_lines
_ids = attrgetter("id")
_parents = attrgetter("parentId")
_types = attrgetter("type")


def clean_heads(data: bytes) -> tuple[list[Any], set[int]] | None:
    """(id of each line, the 0-based indices of the lines on the active path), or None for a file that is not
    clean. Line 0 is the header; the leaf is the last line, as Pi's index leaves it."""
    try:
        heads = _decode(data)
    except (msgspec.DecodeError, msgspec.ValidationError, RecursionError):  # nested too deep: the line reader's
        return None
    count = len(heads)
    if count < 2 or count != data.count(b"\n") + (0 if data.endswith(b"\n") else 1):
        return None  # blank lines, values spread over lines or sharing one: the line-by-line reader
    header = heads[0]
    if header.type != "session" or type(header.id) is not str \
            or not header_is_current({"type": "session", "version": header.version}):
        return None
    ids = list(map(_ids, heads))
    parents = list(map(_parents, heads))
    second_header = "session" in list(map(_types, islice(heads, 1, None)))  # a type may be any JSON value
    del heads
    if second_header:
        return None  # Pi keeps a second header line out of its tree
    if set(map(type, islice(ids, 1, None))) != {str}:
        return None  # ids missing or not strings: Pi's index has its own rules for those
    entry_ids = set(islice(ids, 1, None))
    if "" in entry_ids or len(entry_ids) != count - 1:
        return None  # empty or repeated ids: likewise
    del entry_ids
    if not set(map(type, parents)) <= {str, type(None)}:
        return None
    # Nearly every entry's parent is the line before; the others ("jumps") must name an earlier line, else a
    # cycle could hide in the file.
    previous: list[Any] = [None, None, *islice(ids, 1, count - 1)]
    jumps = [index for index in compress(range(count), map(ne, parents, previous)) if index > 0]
    by_id: dict[Any, int] = {}
    if jumps:
        wanted = {parents[index] for index in jumps} - {None}
        by_id = {entry_id: index for index, entry_id in enumerate(ids) if index and entry_id in wanted}
        for index in jumps:
            parent = parents[index]
            if parent is None:
                continue
            target = by_id.get(parent)
            if target is None or target >= index:
                return None
    active: set[int] = set()
    index = count - 1
    while index > 0:  # a chain at a time: between jumps every line's parent is the line before
        position = bisect_right(jumps, index) - 1
        low = jumps[position] if position >= 0 else 1
        active.update(range(low, index + 1))
        parent = parents[low]
        index = by_id[parent] if parent is not None and position >= 0 else 0
    return ids, active

