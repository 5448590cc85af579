"""Index a clean session file in a few passes of C instead of line by line.

Almost every session on disk is clean: each line one JSON object that Pi wrote, ids unique, every parent earlier
in the file. For such a file, msgspec decodes the line heads a few thousand lines per call (validating each line
exactly as the per-line heads do, unless the caller wants no diagnostics) and list and dict operations check the
tree's invariants; only the entries of the planned context are then built. Anything unusual anywhere in the file makes `index_clean_session` return None, and
the caller falls back to the line-by-line reader, which explains every problem it finds. The two readers must
agree on every clean file: the tests run both over all fixtures and compare.
"""

from __future__ import annotations

import pickle
import re
from bisect import bisect_left, insort
from collections.abc import Iterator, Mapping
from itertools import compress, count, islice, repeat
from operator import attrgetter, is_, ne
from typing import Any, ClassVar, Union

import msgspec
import orjson
from msgspec import Struct

from pi_tools.messages.jsvalues import UNDEFINED
from pi_tools.messages.types import RawMessage
from pi_tools.session.context import (
    PI_SPREAD_LIMIT,
    ContextPlan,
    context_settings,
    entry_to_messages,
    pi_cannot_load,
)
from pi_tools.session.diagnostics import Diagnostic
from pi_tools.session.heads import (
    DECODE_ERRORS,
    ROLE_OF_TYPE,
    MessageEntry,
    message_text,
)
from pi_tools.session.jsonparse import loads_line_lenient
from pi_tools.session.migrations import header_is_current
from pi_tools.session.reader import missing_final_newline, valid_utf8
from pi_tools.session.tree import ENTRY_TYPES, check_entry

_NOT_A_MESSAGE: Any = object()
"""The role recorded for lines that are not messages."""


class _AnyRole(Struct, gc=False):
    role: Any = None


_NO_MESSAGE = _AnyRole(role=_NOT_A_MESSAGE)


class _Header(Struct, tag_field="type", tag="session", gc=False):
    """The first line; parsed in full separately. (A second header line sends the file to the other reader.)"""

    id: str | None = None
    parentId: str | None = None
    message: ClassVar[Any] = _NO_MESSAGE


def _other_entry(entry_type: str) -> type[Struct]:
    """A non-message entry: only its ids are decoded here; the rare such lines are parsed in full later."""
    return msgspec.defstruct(f"_{entry_type}", [("id", str), ("parentId", Union[str, None])],  # noqa: UP007
                             tag_field="type", tag=entry_type, gc=False, namespace={"message": _NO_MESSAGE})


class _MessageIds(Struct, tag_field="type", tag="message", gc=False):
    """A message line as far as its context needs: ids, and a message object (whose role is kept)."""

    id: str
    parentId: str | None
    message: _AnyRole


_OTHER_TYPES = tuple(_other_entry(name) for name in sorted(ENTRY_TYPES - {"message"}))
_decode_checked = msgspec.json.Decoder(Union[(MessageEntry, _Header, *_OTHER_TYPES)]).decode_lines  # type: ignore[valid-type]  # noqa: UP007
_decode_unchecked = msgspec.json.Decoder(Union[(_MessageIds, _Header, *_OTHER_TYPES)]).decode_lines  # type: ignore[valid-type]  # noqa: UP007
# A line break between "}" and "{": with the count check below, each line then holds exactly one whole value.
_BOUNDARY = re.compile(rb"\}\n(?=\{)")
_LINES_PER_SLICE = 4096
_ids = attrgetter("id")
_parents = attrgetter("parentId")
_message = attrgetter("message")
_role = attrgetter("role")


class BulkSession:
    """A clean session indexed in bulk: what the context stages need (a leaf, a context plan, its messages).

    Entries are referred to by line index (0 is the header). Per line the index keeps only its id, its parent's
    line and its message role; only the entries of the planned context are ever parsed in full, and only while
    their messages are produced.
    """

    def __init__(self, source: str, data: bytes, header: dict[str, Any], leaf_id: str | None,
                 line_starts: list[int], line_ends: list[int], parent_index: list[int], roles: list[Any],
                 by_id: dict[str, int], parsed: dict[int, dict[str, Any]], diagnostics: list[Diagnostic],
                 checked: bool) -> None:
        self.source = source
        self.data: bytes | None = data
        self.header = header
        self.diagnostics = diagnostics
        self.by_id: Mapping[Any, int] = by_id
        self.leaf_id: Any = leaf_id
        self._line_starts = line_starts
        self._line_ends = line_ends
        self._parent_index = parent_index
        self._roles = roles
        self._parsed = parsed
        self._checked = checked

    def _path_indices(self, leaf_id: Any) -> list[int]:
        """Line indices from root to leaf (as SessionTree.path; parents always come earlier, so no cycles)."""
        if leaf_id is None:
            return []
        index = self.by_id.get(leaf_id) if isinstance(leaf_id, str) else None
        if index is None:
            index = len(self._line_starts) - 1
        indices: list[int] = []
        parent_index = self._parent_index
        while index > 0:
            indices.append(index)
            index = parent_index[index]
        indices.reverse()
        return indices

    def plan(self, leaf_id: Any = UNDEFINED) -> ContextPlan:
        """plan_session_context for a clean file, reading only the entries that decide it.

        The settings depend only on setting changes and the last assistant of the path; the compaction is one of
        the few fully parsed entries. The planned entries are line indices (see `planned_messages`).
        """
        effective_leaf = self.leaf_id if leaf_id is UNDEFINED else leaf_id
        path = self._path_indices(effective_leaf)
        parsed = self._parsed
        deciding = [index for index in path if index in parsed]
        roles = self._roles
        last_assistant = next((i for i in reversed(path) if roles[i] == "assistant" and i not in parsed), None)
        if last_assistant is not None:
            insort(deciding, last_assistant)
        thinking_level, model = context_settings([self._entry(index) for index in deciding])
        compactions = [index for index in deciding if index in parsed and parsed[index].get("type") == "compaction"]
        diagnostics: list[Diagnostic] = []
        if not compactions:
            return ContextPlan(path, thinking_level, model, effective_leaf, diagnostics)
        compaction = compactions[-1]
        position = bisect_left(path, compaction)
        first_kept = parsed[compaction].get("firstKeptEntryId")
        kept_index = self.by_id.get(first_kept) if isinstance(first_kept, str) else None
        start = position
        if kept_index is not None:
            kept_position = bisect_left(path, kept_index)
            if kept_position < position and path[kept_position] == kept_index:
                start = kept_position
        after = len(path) - 1 - position
        if after > PI_SPREAD_LIMIT:
            diagnostics.append(pi_cannot_load(after, compaction + 1))
        return ContextPlan([compaction, *path[start:position], *path[position + 1:]], thinking_level, model,
                           effective_leaf, diagnostics)

    def _entry(self, index: int) -> dict[str, Any]:
        """A line's entry in full (parsed again for message lines)."""
        parsed = self._parsed.get(index)
        if parsed is not None:
            return parsed
        entry: dict[str, Any] = loads_line_lenient(memoryview(self.data or b"")[self._line_starts[index]:
                                                                                 self._line_ends[index]])
        return entry

    def planned_messages(self, plan: ContextPlan) -> PlannedMessages:
        """The messages of a plan from this session, needing nothing of the index any more (which can go)."""
        starts, ends, parsed, roles = self._line_starts, self._line_ends, self._parsed, self._roles
        steps: list[Any] = [
            parsed[index] if index in parsed else (starts[index], ends[index], roles[index])
            for index in plan.entries
        ]
        return PlannedMessages(self.data or b"", steps, self._checked)


_CONTENT_ROLES = ("user", "assistant", "toolResult")




class PlannedMessages:
    """A planned context's messages, produced from the file's text each time they are iterated.

    Holds the file's bytes and, per planned entry, either its line span and role (message lines) or the parsed
    entry (the few others), so a stage can drop the session index before the messages are built.
    """

    def __init__(self, data: bytes, steps: list[Any], text_is_checked: bool) -> None:
        self._data = data
        self._base = 0  # file offset of self._data[0]
        self._steps = steps
        self._text_is_checked = text_is_checked  # valid UTF-8, so a message's own text can be written as it is

    def __iter__(self) -> Iterator[Any]:
        """The context messages as objects (message lines parsed now)."""
        self._keep_only_context_lines()
        view = memoryview(self._data)
        base = self._base
        loads = orjson.loads
        for step in self._steps:
            if type(step) is dict:
                yield from entry_to_messages(step)
                continue
            line = view[step[0] - base:step[1] - base]
            try:
                message = loads(line)["message"]
            except orjson.JSONDecodeError:  # what orjson refuses and JSON.parse accepts (lone surrogates)
                message = loads_line_lenient(line)["message"]
            if message.get("content") is None and message.get("role") in _CONTENT_ROLES:
                message = {**message, "content": []}  # as entry_to_messages; only unchecked lines can lack it
            yield message

    def text_size(self) -> int:
        """Bytes of file text between the first and the last message line (0 without message lines)."""
        spans = [step for step in self._steps if type(step) is tuple]
        return spans[-1][1] - spans[0][0] if spans else 0

    def parts(self, size: int) -> list[PlannedMessages]:
        """The messages cut before user message lines into parts of about `size` bytes of line text, sharing
        this file text. The last part holds an assistant line (what payload estimates start from), else it
        joins the part before it."""
        steps = self._steps
        cuts = [0]
        part_start: int | None = None
        for position, step in enumerate(steps):
            if type(step) is not tuple:
                continue
            if part_start is None:
                part_start = step[0]
            elif step[2] == "user" and step[0] - part_start >= size:
                cuts.append(position)
                part_start = step[0]
        while len(cuts) > 1 and not any(type(step) is tuple and step[2] == "assistant" for step in steps[cuts[-1]:]):
            cuts.pop()
        bounds = [*cuts, len(steps)]
        parts = []
        for first, last in zip(bounds, bounds[1:], strict=False):
            part = PlannedMessages(self._data, steps[first:last], self._text_is_checked)
            part._base = self._base
            parts.append(part)
        return parts

    def __getstate__(self) -> dict[str, Any]:
        """Pickled with only the stretch of text its lines need (another process builds it)."""
        spans = [step for step in self._steps if type(step) is tuple]
        start = spans[0][0] if spans else self._base
        end = max(step[1] for step in spans) if spans else self._base
        text = pickle.PickleBuffer(memoryview(self._data)[start - self._base:end - self._base])
        return {"_data": text, "_base": start, "_steps": self._steps, "_text_is_checked": self._text_is_checked}

    def __setstate__(self, state: dict[str, Any]) -> None:
        state["_data"] = bytes(state["_data"])  # already bytes from protocol 5; a copy only from older ones
        self.__dict__.update(state)

    def _keep_only_context_lines(self) -> None:
        """Before messages are built in bulk, keep only the stretch of the file holding the context's lines when
        that is much less than the file (after a compaction, often half): once the session is dropped, the rest
        of the file's bytes go before the messages take their place."""
        spans = [step for step in self._steps if type(step) is tuple]
        if not spans or self._base:
            return
        start, end = min(span[0] for span in spans), max(span[1] for span in spans)
        if 4 * (end - start) < 3 * len(self._data):
            self._data = self._data[start:end]
            self._base = start

    def json_items(self) -> Iterator[Any]:
        """The same messages for writing: a message line's message as its own JSON text (RawMessage), unparsed."""
        if not self._text_is_checked:
            yield from self
            return
        view = memoryview(self._data)
        for step in self._steps:
            if type(step) is dict:
                yield from entry_to_messages(step)
                continue
            yield RawMessage(step[2], message_text(view[step[0] - self._base:step[1] - self._base]))


def index_clean_session(data: bytes, source: str, check_all_lines: bool = True) -> BulkSession | None:
    """A BulkSession for a clean file, or None when anything at all needs the line-by-line reader.

    `check_all_lines=False` skips what only produces diagnostics (the UTF-8 and field checks of every line and
    the checks of other entries), for stages that report none: the context is the same, the diagnostics empty.
    """
    if not data.startswith(b"{"):
        return None
    ends_with_newline = data.endswith(b"\n")
    line_starts = [0, *(match.end() for match in _BOUNDARY.finditer(data))]
    line_count = len(line_starts)
    if data.count(b"\n") != line_count - (0 if ends_with_newline else 1):
        return None  # a line break elsewhere: blank lines, CRLF, a value spread over lines
    if check_all_lines and not valid_utf8(data):
        return None  # the line-by-line reader reports each bad byte
    size = len(data) - 1 if ends_with_newline else len(data)
    line_ends = [*(start - 1 for start in islice(line_starts, 1, None)), size]
    # Decoded in slices of lines, keeping only ids, parents and roles, so the heads of a large file never all
    # exist at once (less memory to fault in, and half the peak).
    decode = _decode_checked if check_all_lines else _decode_unchecked
    view = memoryview(data)
    ids: list[Any] = []
    parents: list[Any] = []
    roles: list[Any] = []
    for first in range(0, line_count, _LINES_PER_SLICE):
        last = min(first + _LINES_PER_SLICE, line_count)
        try:
            heads = decode(view[line_starts[first]:line_ends[last - 1]])
        except DECODE_ERRORS:
            return None
        if len(heads) != last - first:
            return None
        ids += map(_ids, heads)
        parents += map(_parents, heads)
        messages = map(_message, heads)  # _NO_MESSAGE for other entries
        if check_all_lines:
            roles += map(ROLE_OF_TYPE.get, map(type, messages), repeat(_NOT_A_MESSAGE))
        else:
            roles += map(_role, messages)
        if first == 0 and type(heads[0]) is not _Header:
            return None
    header = loads_line_lenient(view[:line_ends[0]])
    if not (isinstance(header, dict) and isinstance(header.get("id"), str) and header_is_current(header)):
        return None
    del ids[0], parents[0]  # the header's
    by_id = dict(zip(ids, range(1, line_count), strict=True))
    if len(by_id) != len(ids) or "" in by_id:
        return None  # duplicate ids (or an empty id, which Pi's walk treats as no parent)
    # Index of each line's parent (0 or -1 for roots). Nearly every entry continues the line before it; only the
    # others are looked up, and their parent must exist and come earlier (else a cycle is possible).
    parent_index = list(range(-1, line_count - 1))
    previous_ids = [None, *ids[:-1]]
    for position in compress(count(), map(ne, parents, previous_ids)):
        parent = parents[position]
        line = position + 1
        if parent is None:
            parent_index[line] = -1
            continue
        target = by_id.get(parent)
        if target is None or target >= line:
            return None  # a dangling parent, or one later in the file
        parent_index[line] = target
    diagnostics: list[Diagnostic] = []
    if not ends_with_newline and check_all_lines:
        diagnostics.append(missing_final_newline(line_count))
    parsed: dict[int, dict[str, Any]] = {}
    for index in compress(count(1), map(is_, islice(roles, 1, None), repeat(_NOT_A_MESSAGE))):
        entry = loads_line_lenient(view[line_starts[index]:line_ends[index]])
        if entry.get("type") == "session":
            return None  # a second header line
        parsed[index] = entry
        if check_all_lines:
            check_entry(entry, entry["type"], entry["id"], index + 1, diagnostics)
    return BulkSession(source, data, header, ids[-1] if ids else None, line_starts, line_ends, parent_index, roles,
                       by_id, parsed, diagnostics, check_all_lines)
