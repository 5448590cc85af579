"""Index a clean session file in a few passes of C instead of line by line.

Almost every session on disk is clean: each line one JSON object that Pi wrote, ids unique, every parent earlier
in the file. For such a file, msgspec decodes the line heads a few thousand lines per call (validating each line
exactly as the per-line heads do, unless the caller wants no diagnostics) and list and set operations check the
tree's invariants; only the entries of the planned context are then built (planned.py). Any run of whole lines
can be indexed apart (`line_heads`), so another process may index a file's second half (`index_elsewhere`).
Anything unusual anywhere in the file makes `index_clean_session` return None, and the caller falls back to the
line-by-line reader, which explains every problem it finds. The two readers must agree on every clean file: the
tests run both over all fixtures and compare.
"""

from __future__ import annotations

import re
import sys
from array import array
from bisect import bisect_left, bisect_right, insort
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from itertools import compress, count, islice, repeat
from operator import attrgetter, is_, ne, sub
from typing import Any, Protocol, overload

from pi_tools.js.json_line import loads_line_lenient
from pi_tools.js.values import UNDEFINED
from pi_tools.session.context import (
    PI_085_RULES,
    PI_SPREAD_LIMIT,
    ContextPlan,
    ContextRules,
    context_settings,
    entry_message_count,
    pi_cannot_load,
)
from pi_tools.session.diagnostics import Diagnostic
from pi_tools.session.line_format import (
    DECODE_ERRORS,
    ENTRY_TYPES,
    LATER_ENTRY_TYPES,
    NOT_A_MESSAGE,
    ROLE_OF_TYPE,
    BulkMessageLine,
    HeaderLine,
    IdsMessageLine,
    entry_union_decoder,
)
from pi_tools.session.migrations import header_is_current
from pi_tools.session.planned import PlannedMessages
from pi_tools.session.reader import missing_final_newline, valid_utf8
from pi_tools.session.tree import check_entry

# Every version's entry types and roles: which of them a version knows is its vocabulary's to say (diagnostics), and
# what their entries give the context its rules' (BulkSession.plan).
_decode_checked = entry_union_decoder(BulkMessageLine, ENTRY_TYPES | LATER_ENTRY_TYPES).decode_lines
_decode_unchecked = entry_union_decoder(IdsMessageLine, ENTRY_TYPES | LATER_ENTRY_TYPES).decode_lines
_PARSED_ROLES = frozenset({NOT_A_MESSAGE, "system"})
"""The lines a checked index parses in full: other entries, and system messages (the line-by-line reader's heads
never take one, so the tree checks each as a whole entry)."""
# A line break between "}" and "{": with the count check below, each line then holds exactly one whole value.
_BOUNDARY = re.compile(rb"\}\n(?=\{)")
_LINES_PER_SLICE = 4096
_SCANS_BEFORE_BY_ID = 8
_ids = attrgetter("id")
_parents = attrgetter("parentId")
_message = attrgetter("message")
_role = attrgetter("role")


class BulkSession:
    """A clean session indexed in bulk: what the context stages need (a leaf, a context plan, its messages).

    Entries are referred to by line index (0 is the header). Per line the index keeps only its id, its parent's
    line and its message role; only the entries of the planned context are ever parsed in full, and only while
    their messages are produced. `rules`: the Pi version's, whose vocabulary made the diagnostics and whose
    projection its plans apply.
    """

    def __init__(self, source: str, data: bytes, header: dict[str, Any], ids: list[Any],
                 line_starts: list[int], line_ends: list[int], parent_index: list[int], roles: list[Any],
                 parsed: dict[int, dict[str, Any]], diagnostics: list[Diagnostic], checked: bool,
                 jumps: list[int], rules: ContextRules = PI_085_RULES) -> None:
        self.source = source
        self.rules = rules
        self.data: bytes | None = data
        self.header = header
        self.diagnostics = diagnostics
        self._ids = ids  # per line (the header's first); unique
        self._by_id: dict[Any, int] | None = None
        self._scans = 0  # lookups made without by_id
        self.leaf_id: Any = ids[-1] if len(ids) > 1 else None
        self._line_starts = line_starts
        self._line_ends = line_ends
        self._parent_index = parent_index
        self._roles = roles
        self._parsed = parsed
        self._checked = checked
        self._jumps = jumps
        """The lines (ascending) whose parent is not the line before them: all others continue a chain."""

    @property
    def by_id(self) -> Mapping[Any, int]:
        """The line of each entry id, made when first asked for: the context of the file's last entry never
        needs it (a lookup or two go through line_of)."""
        if self._by_id is None:
            self._by_id = dict(zip(islice(self._ids, 1, None), range(1, len(self._ids)), strict=True))
        return self._by_id

    # --- read-only views for checks over every line (audit) -------------------------------------------------
    @property
    def line_ids(self) -> list[Any]:
        """The id of each line (the header's first)."""
        return self._ids

    @property
    def parent_lines(self) -> list[int]:
        """The line of each line's parent (0 or -1 for roots; the header's is -1)."""
        return self._parent_index

    @property
    def line_roles(self) -> list[Any]:
        """The message role of each line (another value for lines that are not messages)."""
        return self._roles

    @property
    def jump_lines(self) -> list[int]:
        """The lines (ascending) whose parent is not the line before them."""
        return self._jumps

    def line_lengths(self) -> list[int]:
        """The byte length of each line, its line break not counted (the header's first)."""
        return list(map(sub, self._line_ends, self._line_starts))

    @property
    def parsed_entries(self) -> Mapping[int, dict[str, Any]]:
        """The entries that are not messages, parsed in full, by line (ascending)."""
        return self._parsed

    def line_text(self, index: int) -> memoryview:
        """The JSON text of a line."""
        return memoryview(self.data or b"")[self._line_starts[index]:self._line_ends[index]]

    def is_ancestor(self, index: int, target: int) -> bool:
        """Whether line `target` is above line `index` on its path (walked a chain at a time, as _path_indices)."""
        if not 0 < target < index:
            return False
        parent_index, jumps = self._parent_index, self._jumps
        while index > 0:
            position = bisect_right(jumps, index) - 1
            low = jumps[position] if position >= 0 else 1
            if low <= target <= index:
                return True
            index = parent_index[low] if position >= 0 else 0
        return False

    def line_of(self, entry_id: Any) -> int | None:
        """The line of an entry id (None if no entry has it), without making by_id for a few lookups (past those,
        by_id is made: the targets of many context edits would each scan the ids)."""
        if not isinstance(entry_id, str):
            return None
        if self._by_id is None:
            if entry_id == self.leaf_id:
                return len(self._ids) - 1
            self._scans += 1
            if self._scans <= _SCANS_BEFORE_BY_ID:
                try:
                    return self._ids.index(entry_id, 1)
                except ValueError:
                    return None
        return self.by_id.get(entry_id)

    def _path_indices(self, leaf_id: Any) -> list[int]:
        """Line indices from root to leaf (as SessionTree.path; parents always come earlier, so no cycles)."""
        if leaf_id is None:
            return []
        index = self.line_of(leaf_id)
        if index is None:
            index = len(self._line_starts) - 1
        # Walked a chain at a time: from a line back to the last jump before it, every line's parent is the line
        # before, so the stretch is a range.
        stretches: list[range] = []
        parent_index, jumps = self._parent_index, self._jumps
        while index > 0:
            position = bisect_right(jumps, index) - 1
            low = jumps[position] if position >= 0 else 1
            stretches.append(range(low, index + 1))
            index = parent_index[low] if position >= 0 else 0
        indices: list[int] = []
        for stretch in reversed(stretches):
            indices += stretch
        return indices

    def plan(self, leaf_id: Any = UNDEFINED, rules: ContextRules | None = None) -> ContextPlan:
        """plan_session_context for a clean file, reading only the entries that decide it, by `rules` (default:
        the index's own, those it was made for).

        The settings depend only on setting changes and the last assistant of the path; the compaction is one of
        the few fully parsed entries. The planned entries are line indices (see `planned_messages`); the rules'
        kept_filter takes entries out of the kept range, and their planned_projection gives the messages of the
        few entries that give other than what the index reads of them (`projected`).
        """
        rules = self.rules if rules is None else rules
        effective_leaf = self.leaf_id if leaf_id is UNDEFINED else leaf_id
        path = self._path_indices(effective_leaf)
        parsed = self._parsed
        deciding = [index for index in sorted(parsed) if _holds(path, index)]  # the path ascends
        roles = self._roles
        last_assistant = next((i for i in reversed(path) if roles[i] == "assistant" and i not in parsed), None)
        if last_assistant is not None:
            insort(deciding, last_assistant)
        thinking_level, model = context_settings([self.entry_at(index) for index in deciding])
        compactions = [index for index in deciding if index in parsed and parsed[index].get("type") == "compaction"]
        diagnostics: list[Diagnostic] = []
        if not compactions:
            entries = path
        else:
            compaction = compactions[-1]
            position = bisect_left(path, compaction)
            first_kept = parsed[compaction].get("firstKeptEntryId")
            kept_index = self.line_of(first_kept)
            start = position
            if kept_index is not None:
                kept_position = bisect_left(path, kept_index)
                if kept_position < position and path[kept_position] == kept_index:
                    start = kept_position
            after = len(path) - 1 - position
            if after > PI_SPREAD_LIMIT:
                diagnostics.append(pi_cannot_load(after, compaction + 1, rules.who))
            kept = path[start:position]
            if rules.kept_filter is not None and kept:
                kept = list(compress(kept, map(rules.kept_filter, map(self._head, kept))))
            entries = [compaction, *kept, *path[position + 1:]]
        projected = rules.planned_projection(self, entries)
        return ContextPlan(entries, thinking_level, model, effective_leaf, diagnostics, rules, projected)

    def _head(self, index: int) -> dict[str, Any]:
        """What a kept_filter looks at of a line: a parsed entry, or a message line's type and role."""
        parsed = self._parsed.get(index)
        return parsed if parsed is not None else {"type": "message", "message": {"role": self._roles[index]}}

    def entry_at(self, index: int) -> dict[str, Any]:
        """A line's entry in full (parsed again for message lines)."""
        parsed = self._parsed.get(index)
        if parsed is not None:
            return parsed
        entry: dict[str, Any] = loads_line_lenient(memoryview(self.data or b"")[self._line_starts[index]:
                                                                                 self._line_ends[index]])
        return entry

    def origins(self, plan: ContextPlan) -> list[tuple[Any, int]]:
        """(entry id, file line) of each message the plan's entries produce, in order (clean files: line index + 1
        is the file line; a message line gives one message, a parsed entry what entry_to_messages makes of it,
        a projected one its projection's)."""
        return self.lazy_origins(plan)[:]

    def lazy_origins(self, plan: ContextPlan) -> PlanOrigins:
        """origins(plan), made only for the positions read (the index can go meanwhile): a caller that needs the
        entry of a few messages, preflight tracing its findings, then never makes a tuple per message."""
        ids, parsed, entries, projected = self._ids, self._parsed, plan.entries, plan.projected
        exceptions = [(position, produced) for position in compress(count(), map(parsed.__contains__, entries))
                      if position not in projected
                      and (produced := entry_message_count(parsed[entries[position]])) != 1]
        if projected:
            exceptions += [(position, len(messages)) for position, messages in projected.items() if len(messages) != 1]
            exceptions.sort()
        return PlanOrigins(ids, entries, exceptions)

    def planned_messages(self, plan: ContextPlan) -> PlannedMessages:
        """The messages of a plan from this session, needing nothing of the index any more (which can go)."""
        starts, ends, parsed, roles = self._line_starts, self._line_ends, self._parsed, self._roles
        entries = plan.entries
        steps: list[Any] = list(zip(map(starts.__getitem__, entries), map(ends.__getitem__, entries),
                                    map(roles.__getitem__, entries), strict=True))
        for position in compress(count(), map(parsed.__contains__, entries)):
            steps[position] = parsed[entries[position]]
        for position, messages in plan.projected.items():
            steps[position] = messages
        return PlannedMessages(self.data or b"", steps, self._checked)


class PlanOrigins(Sequence[tuple[Any, int]]):
    """BulkSession.origins of a plan, as a sequence made on demand. Message k comes from plan entry k but for the
    few entries that produce other than one message (`exceptions`: (entry position, message count), in order):
    an entry of none (a label, a model change) is skipped, one of several repeats."""

    def __init__(self, ids: list[Any], entries: list[int], exceptions: list[tuple[int, int]]) -> None:
        self._ids, self._entries, self._exceptions = ids, entries, exceptions
        self._starts: list[int] = []  # the first message of each exception's entry
        shift = 0
        for position, produced in exceptions:
            self._starts.append(position + shift)
            shift += produced - 1
        self._length = len(entries) + shift

    def __len__(self) -> int:
        return self._length

    def _entry(self, message: int) -> int:
        """The plan entry message `message` comes from: after the last exception that starts at or before it,
        entries are one message each again."""
        at = bisect_right(self._starts, message) - 1
        if at < 0:
            return message
        position, produced = self._exceptions[at]
        start = self._starts[at]
        return position if message < start + produced else position + 1 + message - start - produced

    @overload
    def __getitem__(self, index: int) -> tuple[Any, int]: ...

    @overload
    def __getitem__(self, index: slice) -> list[tuple[Any, int]]: ...

    def __getitem__(self, index: int | slice) -> tuple[Any, int] | list[tuple[Any, int]]:
        if isinstance(index, slice):
            start, stop, step = index.indices(self._length)
            if step != 1:
                return [self[message] for message in range(start, stop, step)]
            return self._run(start, stop)
        if index < 0:
            index += self._length
        if not 0 <= index < self._length:
            raise IndexError("origin index out of range")
        entry = self._entries[self._entry(index)]
        return self._ids[entry], entry + 1

    def __iter__(self) -> Iterator[tuple[Any, int]]:
        return iter(self[:])

    def _run(self, start: int, stop: int) -> list[tuple[Any, int]]:
        """Messages start..stop-1 a stretch at a time: between two exceptions the entries follow the messages one
        for one (preflight maps whole parts of a large session this way: 34,000 origins for the 100 MB
        session's Gemini findings, a bisection each when taken one by one)."""
        ids, entries, starts = self._ids, self._entries, self._starts
        result: list[tuple[Any, int]] = []
        message = start
        while message < stop:
            at = bisect_right(starts, message) - 1
            shift = 0
            if at >= 0:
                position, produced = self._exceptions[at]
                if message < starts[at] + produced:  # one of the messages of an entry of several
                    entry = entries[position]
                    result.append((ids[entry], entry + 1))
                    message += 1
                    continue
                shift = position + 1 - starts[at] - produced
            end = min(stop, starts[at + 1] if at + 1 < len(starts) else stop)
            result.extend((ids[entry], entry + 1) for entry in entries[message + shift:end + shift])
            message = end
        return result


def _holds(ascending: list[int], value: int) -> bool:
    position = bisect_left(ascending, value)
    return position < len(ascending) and ascending[position] == value


@dataclass
class LineHeads:
    """What the index keeps of a run of whole lines: where each starts and ends in the file, its id, its message
    role (NOT_A_MESSAGE for other entries), and the parents of the lines whose parent is not the line before."""

    starts: list[int]
    ends: list[int]
    ids: list[Any]
    roles: list[Any]
    other_parents: list[tuple[int, Any]]
    """(index in the run, parent id) of lines that do not continue the line before (the run's first always
    counts as one unless it starts the file: only the file's own first entry compares with "no line")."""
    first_is_header: bool

    def extend(self, later: LineHeads) -> None:
        """Append the heads of the run that follows this one."""
        shift = len(self.starts)
        self.starts += later.starts
        self.ends += later.ends
        self.ids += later.ids
        self.roles += later.roles
        self.other_parents += [(index + shift, parent) for index, parent in later.other_parents]

    def __getstate__(self) -> dict[str, Any]:
        """Compact for another process: offsets as machine integers, equal role strings as one object."""
        roles = [sys.intern(role) if type(role) is str else role for role in self.roles]
        return {**self.__dict__, "starts": array("q", self.starts), "ends": array("q", self.ends), "roles": roles}

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__dict__.update(state, starts=state["starts"].tolist(), ends=state["ends"].tolist())


class SliceDecoder(Protocol):
    """Decodes the heads of a slice of lines in the index's place, to keep more of each line on the way (audit's
    checks; see pi_tools/audit/clean.py). Its heads have the `id`, `parentId` and `message` of the index's own,
    with the same types, its message structs those of line_format.py (whose ROLE_OF_TYPE names their roles); it
    may take a line the index's own decoder refuses for a field that only makes a diagnostic (a message line's
    timestamp), whose check is then its caller's."""

    def __call__(self, lines: memoryview, first: int) -> list[Any]:
        """The heads of the lines in `lines` (lines `first`, `first + 1`, ... of the run); raises one of
        DECODE_ERRORS when a line is not clean."""


def line_heads(data: bytes | bytearray, start: int, end: int, check_all_lines: bool, offset: int = 0,
               ends_file: bool = True, decoder: SliceDecoder | None = None) -> LineHeads | None:
    """The heads of the lines of data[start:end], a run of whole lines at file offset `offset + start`; None
    when the run is not made of clean lines.

    A run that does not end the file must end with "}" and a line break (as between any two lines), so that
    runs indexed apart accept exactly what the whole file would. A `decoder` (checked runs only) decodes the
    lines instead of the index's own.
    """
    if not data.startswith(b"{", start, end):
        return None
    if not ends_file and not data.endswith(b"}\n", start, end):
        return None
    ends_with_newline = data.endswith(b"\n", start, end)
    base = offset
    line_starts = [start + base, *(match.end() + base for match in _BOUNDARY.finditer(data, start, end))]
    line_count = len(line_starts)
    if data.count(b"\n", start, end) != line_count - (0 if ends_with_newline else 1):
        return None  # a line break elsewhere: blank lines, CRLF, a value spread over lines
    if check_all_lines:
        text = data if isinstance(data, bytes) and (start, end) == (0, len(data)) else bytes(data[start:end])
        if not valid_utf8(text):
            return None  # the line-by-line reader reports each bad byte
    last_end = end - 1 if ends_with_newline else end
    line_ends = [*(line_start - 1 for line_start in islice(line_starts, 1, None)), last_end + base]
    # Decoded in slices of lines, keeping only ids, parents and roles, so the heads of a large file never all
    # exist at once (less memory to fault in, and half the peak).
    decode = _decode_checked if check_all_lines else _decode_unchecked
    role_of_type = ROLE_OF_TYPE
    view = memoryview(data)
    ids: list[Any] = []
    parents: list[Any] = []
    roles: list[Any] = []
    first_is_header = False
    for first in range(0, line_count, _LINES_PER_SLICE):
        last = min(first + _LINES_PER_SLICE, line_count)
        lines = view[line_starts[first] - base:line_ends[last - 1] - base]
        try:
            heads = decode(lines) if decoder is None else decoder(lines, first)
        except DECODE_ERRORS:
            return None
        if len(heads) != last - first:
            return None
        ids += map(_ids, heads)
        parents += map(_parents, heads)
        messages = map(_message, heads)  # for other entries, one whose role is NOT_A_MESSAGE
        if check_all_lines:
            roles += map(role_of_type.get, map(type, messages), repeat(NOT_A_MESSAGE))
        else:
            roles += map(_role, messages)
        if first == 0:
            first_is_header = type(heads[0]) is HeaderLine
    starts_file = start + base == 0
    previous: list[Any] = [None, *ids[:-1]]
    if starts_file and line_count > 1:
        previous[1] = None  # the header's id is nobody's parent: the first entry compares with "no line"
    differs = list(map(ne, parents, previous))
    if not starts_file:
        differs[0] = True
    other_parents = [(index, parents[index]) for index in compress(count(), differs)]
    return LineHeads(line_starts, line_ends, ids, roles, other_parents, first_is_header)


def second_half_search_start(size: int) -> int:
    """Where the search for a file's "second half" starts: 45% in. The other process starts earlier, while this
    one imports and reads the file, but reads its own half and shares the two cores with that reading."""
    return size * 9 // 20


def second_half_start(data: bytes) -> int:
    """Where a file's "second half" starts: the first line start past second_half_search_start (0 when there is
    none). Computed alike by a process that reads the second half itself (pi_tools.engine.helper), so both agree."""
    found = data.find(b"}\n{", second_half_search_start(len(data)))
    return 0 if found < 0 else found + 2


class LineHeadsElsewhere(Protocol):
    """Another process indexing the second half of a file (see pi_tools.engine.helper)."""

    def expect(self, source: str, data: bytes, start: int) -> bool:
        """Whether heads of `data` from `start` on may come; checking they are of these very bytes starts now."""

    def line_heads(self) -> LineHeads | None:
        """Those heads (waiting for them), or None when they are not of these bytes after all."""


_heads_elsewhere: list[LineHeadsElsewhere] = []


def index_elsewhere(provider: LineHeadsElsewhere) -> None:
    """Let another process index the second half of files (for stages that need no diagnostics)."""
    _heads_elsewhere.append(provider)


def index_clean_session(data: bytes, source: str, check_all_lines: bool = True,
                        decoder: SliceDecoder | None = None, rules: ContextRules = PI_085_RULES) -> BulkSession | None:
    """A BulkSession for a clean file, or None when anything at all needs the line-by-line reader.

    `check_all_lines=False` skips what only produces diagnostics (the UTF-8 and field checks of every line and
    the checks of other entries), for stages that report none: the context is the same, the diagnostics empty.
    Then the lines of the file's second half may come indexed from elsewhere (index_elsewhere). A `decoder`
    (with `check_all_lines` only) decodes the line heads in the index's place (see SliceDecoder). `rules`: the
    Pi version's, whose vocabulary checks the entries (entry types and roles it does not know are diagnosed as
    the line-by-line reader diagnoses them) and whose projection the session's plans apply.
    """
    cut = len(data)
    helper = None
    if not check_all_lines and _heads_elsewhere:
        start = second_half_start(data)
        helper = next((provider for provider in _heads_elsewhere if start and provider.expect(source, data, start)),
                      None)
        if helper is not None:
            cut = start
    heads = line_heads(data, 0, cut, check_all_lines, ends_file=helper is None,
                       decoder=decoder if check_all_lines else None)
    if heads is None or not heads.first_is_header:
        return None
    if helper is not None:
        tail = helper.line_heads() or line_heads(data, cut, len(data), False)
        if tail is None:
            return None
        heads.extend(tail)
    line_starts, line_ends, ids, roles = heads.starts, heads.ends, heads.ids, heads.roles
    line_count = len(line_starts)
    ends_with_newline = data.endswith(b"\n")
    view = memoryview(data)
    header = loads_line_lenient(view[:line_ends[0]])
    if not (isinstance(header, dict) and isinstance(header.get("id"), str) and header_is_current(header)):
        return None
    entry_ids = set(islice(ids, 1, None))
    if len(entry_ids) != line_count - 1 or "" in entry_ids:
        return None  # duplicate ids (or an empty id, which Pi's walk treats as no parent)
    del entry_ids
    wanted = {parent for line, parent in heads.other_parents if line > 0 and parent is not None}
    parent_lines = {ids[line]: line for line in compress(range(1, line_count), map(wanted.__contains__,
                                                                                   islice(ids, 1, None)))}
    # Index of each line's parent (0 or -1 for roots). Nearly every entry continues the line before it; only the
    # others are looked up, and their parent must exist and come earlier (else a cycle is possible).
    parent_index = list(range(-1, line_count - 1))
    for line, parent in heads.other_parents:
        if line == 0:
            continue  # the header
        if parent is None:
            parent_index[line] = -1
            continue
        target = parent_lines.get(parent)
        if target is None or target >= line:
            return None  # a dangling parent, or one later in the file
        parent_index[line] = target
    diagnostics: list[Diagnostic] = []
    if not ends_with_newline and check_all_lines:
        diagnostics.append(missing_final_newline(line_count))
    parsed: dict[int, dict[str, Any]] = {}
    vocabulary = rules.vocabulary
    # Checked, system messages are parsed too (checked, in file order, then forgotten); roles are strings then.
    to_parse = map(_PARSED_ROLES.__contains__, islice(roles, 1, None)) if check_all_lines else \
        map(is_, islice(roles, 1, None), repeat(NOT_A_MESSAGE))
    for index in compress(count(1), to_parse):
        entry = loads_line_lenient(view[line_starts[index]:line_ends[index]])
        if roles[index] is NOT_A_MESSAGE:
            if entry.get("type") == "session":
                return None  # a second header line
            parsed[index] = entry
        if check_all_lines:
            check_entry(entry, entry["type"], entry["id"], index + 1, diagnostics, vocabulary=vocabulary)
    jumps = [line for line, _ in heads.other_parents if line > 0]
    return BulkSession(source, data, header, ids, line_starts, line_ends, parent_index, roles, parsed, diagnostics,
                       check_all_lines, jumps, rules)
