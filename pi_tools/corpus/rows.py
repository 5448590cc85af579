"""One session file as rows of the index's tables: what each entry, message, tool call and usage record is.

The file is read exactly as every other stage reads it (the bulk index for a clean file, else the line-by-line
reader, migrations and the tree; Pi's leaf, its active path, the compaction-aware context plan); this module
only describes the result. Everything is computed from the one file, so files can be indexed anywhere, in any order, and a
changed file's rows replaced without touching the others.
"""

from __future__ import annotations

import json
import re
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from itertools import islice, repeat
from operator import floordiv, sub
from typing import TYPE_CHECKING, Any

import msgspec
import orjson
from msgspec import Raw

from pi_tools.corpus.lines import I64_MIN, U64_MAX, LineDecoder, arguments_value
from pi_tools.corpus.schema import BASE, ENTRY, RESULT_ENTRY, ROLE_COUNTS, Shape, shape_of
from pi_tools.corpus.text import blocks_text, message_text, thinking_text
from pi_tools.corpus.usage import Candidate, usage_entry_rows, usage_rows
from pi_tools.js.date import js_date_ms
from pi_tools.js.json_line import loads_line_lenient
from pi_tools.session.bulk import index_clean_session
from pi_tools.session.context import (
    PI_085_RULES,
    ContextError,
    ContextRules,
    entry_message_count,
    entry_to_messages,
    plan_session_context,
)
from pi_tools.session.counts import message_count
from pi_tools.session.line_format import (
    ROLE_OF_TYPE,
    Bash,
    RowAssistant,
    RowMessageLine,
    RowText,
    RowThinking,
    RowToolResult,
    RowUser,
)
from pi_tools.session.load import tree_from_raw
from pi_tools.session.reader import RawSession, SessionReadError, parse_session_bytes, paused_gc
from pi_tools.session.spending import SpendingRules
from pi_tools.session.tree import PI_085_VOCABULARY, PathCycleError, SessionTree, Vocabulary
from pi_tools.usage.counter import MESSAGE_KIND, UsageCounter, message_usage
from pi_tools.usage.scan import scan_reads_line
from pi_tools.usage.totals import session_cost

if TYPE_CHECKING:
    from pi_tools.pi import PiVersion

Columns = dict[str, list[Any]]
FileRows = dict[str, Columns]
"""Table name -> column name -> values (one file's rows)."""

SUMMARY_ENTRIES = frozenset(("custom_message", "branch_summary", "compaction"))
"""Entry types that become context messages of their own (custom, branchSummary, compactionSummary)."""
_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)
_MS = timedelta(milliseconds=1)
_INFINITY = float("inf")
_NEWLINE = re.compile(b"\n")


class IndexInputError(Exception):
    """The file cannot be indexed at all (not a session); the message names the file, the line and the problem."""


def stamp_ms(value: Any) -> int | None:
    """Epoch milliseconds of an entry timestamp as JavaScript's Date reads it (None where it reads NaN).

    Pi writes `2026-06-28T02:49:38.179Z`; that form is read directly, anything else through the JS date parser.
    A missing or null timestamp is None (JavaScript would make null the epoch).
    """
    if type(value) is str and len(value) == 24 and value[23] == "Z" and value[10] == "T":
        try:
            return (datetime.fromisoformat(value) - _EPOCH) // _MS
        except ValueError:
            pass
    return None if value is None else js_ms(value)


STAMP_FORMAT = "%Y-%m-%dT%H:%M:%S%.3fZ"


def entry_times(texts: list[str | None], known: dict[int, int]) -> list[int | None]:
    """`stamp_ms` of every entry at once: `texts` holds the timestamps of the struct-decoded lines (None for the
    other entries, whose times `known` holds by row).

    Those timestamps all decoded as msgspec datetimes (lines.LineDecoder checks them), i.e. RFC 3339 with
    fixed-width fields, a real calendar date, year 1 or later and no leap second; of them, the 24-character
    `YYYY-MM-DDTHH:MM:SS.mmmZ` ones are exactly the strings `stamp_ms` reads with `datetime.fromisoformat`, and
    polars reads them in one pass to the same milliseconds. Any other (or any polars does not read) goes
    through `stamp_ms` itself.
    """
    import polars as pl

    if not texts:
        return []
    column = pl.Series("t", texts, dtype=pl.String)
    # (msgspec has refused leap seconds and year 0 already; polars would read them, fromisoformat does not)
    shaped = (column.str.len_bytes() == 24) & column.str.ends_with("Z") & (column.str.slice(10, 1) == "T") \
        & (column.str.slice(17, 1) != "6") & ~column.str.starts_with("0000")
    parsed = pl.DataFrame([column, shaped.alias("shaped")]).select(
        pl.when(pl.col("shaped")).then(pl.col("t").str.strptime(pl.Datetime("ms"), STAMP_FORMAT, strict=False))
        .cast(pl.Int64)).to_series()
    times: list[int | None] = parsed.to_list()
    for at in (parsed.is_null() & column.is_not_null()).arg_true().to_list():
        times[at] = stamp_ms(texts[at])
    for at, time in known.items():
        times[at] = time
    return times


_SEPARATOR = "\n"


def struct_times(texts: list[str | None], times: list[datetime], known: dict[int, int]) -> list[int | None]:
    """`entry_times`, from the datetimes lines.LineDecoder decoded the struct lines' timestamps into (`times`:
    one per str of `texts`, in order).

    A timestamp `YYYY-MM-DDTHH:MM:SS.mmmZ` is read by `stamp_ms` with `datetime.fromisoformat`, which gives
    exactly msgspec's datetime of the same text; the check that every text has that form runs on the texts
    joined (they are valid RFC 3339 datetimes, which hold no newline: when all are 24 characters long, the
    joined text has each one's `T` and `Z` at fixed strides). Any other form goes through `stamp_ms`.
    """
    present = [text for text in texts if text is not None]
    count = len(present)
    joined = _SEPARATOR.join(present)
    found: list[int | None]
    if len(joined) == 25 * count - 1 and joined[10::25] == "T" * count and joined[23::25] == "Z" * count \
            and joined[24::25] == _SEPARATOR * (count - 1):
        found = list(map(floordiv, map(sub, times, repeat(_EPOCH)), repeat(_MS)))  # (C loops: a fifth faster)
    else:
        found = [(time - _EPOCH) // _MS if len(text) == 24 and text[10] == "T" and text[23] == "Z"
                 else stamp_ms(text) for text, time in zip(present, times, strict=True)]
    take = iter(found).__next__
    stamps: list[int | None] = [None if text is None else take() for text in texts]
    for at, time in known.items():
        stamps[at] = time
    return stamps


def js_ms(value: Any) -> int | None:
    time = js_date_ms(value)
    return None if time is None or time != time else int(time)


def read_session(name: str, data: bytes,
                 vocabulary: Vocabulary = PI_085_VOCABULARY) -> tuple[SessionTree, set[int]]:
    """The file's tree, as every stage reads it (`vocabulary`: the Pi version's, which decides the diagnostics),
    and the lines orjson alone cannot read (which `usage`'s scan therefore skips); IndexInputError when Pi would
    not open the file as a session."""
    raw = parse_session_bytes(data, name)
    _check_header(raw, data)
    candidates = set(raw.refused_lines)
    if data and not data.endswith(b"\n"):
        candidates.add(data.count(b"\n") + 1)  # the reader reads a last line without newline its own way
    unread: set[int] = set()
    if candidates:
        lines = data.split(b"\n")
        unread = {number for number in candidates if not scan_reads_line(lines[number - 1])}
    try:
        return tree_from_raw(raw, vocabulary), unread
    except SessionReadError as exc:
        line = raw.line_numbers[0] if raw.line_numbers else 1
        raise IndexInputError(f"{name}:{line}: {_strip_source(str(exc), name)}") from None


def _strip_source(text: str, name: str) -> str:
    return text[len(name) + 2:] if text.startswith(name + ": ") else text


def _check_header(raw: RawSession, data: bytes) -> None:
    """Pi's header rule (the first value it keeps is a `session` header with a string id), said with its line."""
    if not data:
        raise IndexInputError(f"{raw.source}: empty file, not a session (Pi would start a new session in it)")
    if not raw.file_entries:
        raise IndexInputError(f"{raw.source}:1: not a pi session: no line holds a JSON value Pi keeps")
    header = raw.file_entries[0]
    line = raw.line_numbers[0]
    if not isinstance(header, dict) or header.get("type") != "session":
        raise IndexInputError(f"{raw.source}:{line}: not a pi session: the first JSON value is not a "
                              "session header ({\"type\":\"session\",...})")
    if not isinstance(header.get("id"), str):
        raise IndexInputError(f"{raw.source}:{line}: not a pi session: the session header's id is not a string")


def _text(value: Any) -> str | None:
    return value if type(value) is str else None


def _arguments_json(arguments: Any) -> str:
    """A tool call's arguments as JSON text (numbers beyond 64 bits, or lone surrogates, through json)."""
    try:
        return orjson.dumps(arguments).decode()
    except (TypeError, orjson.JSONEncodeError):
        return json.dumps(arguments, ensure_ascii=False)


def raw_arguments_json(raws: list[Raw]) -> list[str]:
    """`_arguments_json(arguments_value(raw))` of every struct tool call's raw arguments, with one orjson
    round trip for the whole file where that gives the raw bytes back.

    Joined as the array `[r1,r2,...]`, the round trip `orjson.dumps(orjson.loads(array))` is
    `[d1,d2,...]`, where each `di` is that call's own round trip (orjson writes an array's elements as it
    writes them alone, compact). When it equals the array, every `di` is its `ri`: both lists split the same
    text at its top-level commas (each `ri` and `di` is one JSON value, whose own commas are nested), and both
    have one piece per call, so the pieces are the same bytes. Pi writes arguments as JSON.stringify does, which
    is nearly always what orjson writes (in the generated corpus every call, in the fixtures all but three); any
    difference (another number form, an escape orjson writes otherwise, a repeated key) or any error of the
    round trip (nesting, a number or string orjson refuses) takes every call the way it always went."""
    if not raws:
        return []
    joined = b"[" + b",".join(raws) + b"]"
    try:
        same = orjson.dumps(orjson.loads(joined)) == joined
    except (orjson.JSONDecodeError, orjson.JSONEncodeError, TypeError, RecursionError):
        same = False
    if same:
        return [bytes(raw).decode() for raw in raws]
    return [_arguments_json(arguments_value(raw)) for raw in raws]


def line_lengths(data: bytes) -> list[int]:
    """Byte length of every line of the file (1-based line n at index n-1; the newline not counted)."""
    lengths: list[int] = []
    start = 0
    for match in _NEWLINE.finditer(data):
        end = match.start()
        lengths.append(end - start)
        start = end + 1
    if start < len(data):
        lengths.append(len(data) - start)
    return lengths


@dataclass
class ReadSession:
    """What the rows are made from, whichever reader read the file: every entry (file order) with its line,
    whether it is on the path to Pi's leaf and whether it gives the context a message, and the session's facts."""

    header: dict[str, Any]
    entries: list[Any]
    lines: list[int]
    active: list[bool]
    used: list[bool]
    name: str | None
    leaf: Any
    branches: int
    diagnostics: int
    context_error: str | None
    unread: set[int]
    lengths: list[int] | None = None
    """Byte length of every line (`line_lengths`), when the reader had the lines at hand."""
    times: list[datetime] | None = None
    """The timestamp of every struct entry (file order) as lines.LineDecoder decoded it, when it has them."""
    applied: set[int] = field(default_factory=set)
    """The `context_edit` entries (their `id()`) that changed the context Pi builds from the leaf."""
    extra_context: int = 0
    """Context messages beyond one per entry (a Pi 1.6 compaction's `systemMessage` before its summary)."""


@dataclass(frozen=True)
class Reading:
    """How the index reads a file for one Pi version: its context rules, its spending rules and the tables it
    writes (the code's defaults: Pi 0.85's)."""

    rules: ContextRules = PI_085_RULES
    spending: SpendingRules | None = None
    shape: Shape = BASE


BASE_READING = Reading()


def reading_of(version: PiVersion | None) -> Reading:
    """The index's reading for `version` (None: the code's defaults)."""
    if version is None:
        return BASE_READING
    shape = shape_of(version)
    if shape is BASE and version.context is PI_085_RULES:
        return BASE_READING
    return Reading(version.context, version.spending, shape)


def file_rows(name: str, data: bytes, reading: Reading = BASE_READING) -> FileRows:
    """Every table's rows for one session file (IndexInputError when it is not a session), read by `reading`'s
    rules into its tables.

    A clean file (nearly every file on disk) is indexed in bulk (session/bulk.py: its heads, tree checks,
    diagnostics and context plan in a few C passes), the others by the line-by-line reader and the tree; both
    give the same rows (tests/corpus/test_index.py compares them on every fixture). Under rules whose context the
    bulk index's own reading of its entries does not give (`bulk_entries_fit`), the tree reads it.
    """
    read = bulk_read(name, data, structs=True, rules=reading.rules)
    if read is None:
        read = tree_read(name, data, reading.rules)
    rows = session_rows(name, read, read.lengths if read.lengths is not None else line_lengths(data), len(data),
                        shape=reading.shape, spending=reading.spending)
    # The session's cost as `usage` reports it, by its own code (issue 25: one cost in every command); the usage
    # table's rows keep their per-message costs.
    rows["sessions"]["cost"] = [session_cost(data, reading.spending)]
    return rows


def tree_read(name: str, data: bytes, rules: ContextRules = PI_085_RULES) -> ReadSession:
    """Through the line-by-line reader and the session tree (any file Pi opens), by a Pi version's `rules`: what
    each planned entry gives the context is its projection (`rules.projected`: after context edits)."""
    tree, unread = read_session(name, data, rules.vocabulary)
    context_error: str | None = None
    diagnostics = len(tree.diagnostics)
    try:
        path = tree.path(tree.leaf_id)
    except PathCycleError as exc:
        path, context_error = [], str(exc)
    on_path = {id(entry) for entry in path}
    in_context: set[int] = set()
    applied: set[int] = set()
    extra = 0
    if context_error is None:
        try:
            plan = plan_session_context(tree, rules=rules)
            diagnostics += len(plan.diagnostics)
            projected = rules.projected(plan.entries, tree.materialize)
        except ContextError as exc:
            context_error = str(exc)
        else:
            for entry, (edit, messages, _) in zip(plan.entries, projected, strict=True):
                if messages:
                    in_context.add(id(entry))
                    extra += len(messages) - 1
                if edit is not None:
                    applied.add(id(edit))
    entries = tree.entries
    return ReadSession(tree.header or {}, entries, tree.line_numbers, [id(entry) in on_path for entry in entries],
                       [id(entry) in in_context for entry in entries], tree.name, tree.leaf_id,
                       len(tree.leaves()), diagnostics, context_error, unread, applied=applied,
                       extra_context=extra)


def bulk_read(name: str, data: bytes, structs: bool = False, rules: ContextRules = PI_085_RULES) -> ReadSession | None:
    """Through the bulk index, for a clean file each of whose entries gives `rules`' context what the index reads of
    it (`bulk_entries_fit`; None for any other: the tree reads those).

    With `structs`, the bulk index's own pass decodes the message lines into the structs of corpus/lines.py
    (entries are then those structs, and dicts for the other lines); else every line is parsed again with
    orjson into dicts. Both give the same rows (tests/corpus/test_index_fast.py compares them on every
    fixture).
    """
    decoder = LineDecoder() if structs else None
    with paused_gc():
        bulk = index_clean_session(data, name, True, decoder)
        if bulk is None or not rules.bulk_entries_fit(bulk):
            return None
        count = len(bulk.line_ids)
        line_text = bulk.line_text
        entries: list[Any] = []
        times: list[datetime] | None = None
        refused: set[int] = set()
        loads = orjson.loads
        if decoder is None:
            for index in range(1, count):
                text = line_text(index)
                try:
                    entries.append(loads(text))
                except orjson.JSONDecodeError:
                    refused.add(index + 1)
                    entries.append(loads_line_lenient(text))
        else:
            # The other lines (and message lines that fit no struct) parsed as before, to the same dicts.
            entries = decoder.heads[1:]
            times = decoder.times if type(decoder.heads[0]) is not RowMessageLine else None
            parsed = sorted({*bulk.parsed_entries, *decoder.misfits})
            for index in parsed:
                text = line_text(index)
                if type(entries[index - 1]) is RowMessageLine:
                    times = None  # no longer one time per struct entry
                try:
                    entries[index - 1] = loads(text)
                except orjson.JSONDecodeError:
                    refused.add(index + 1)
                    entries[index - 1] = loads_line_lenient(text)
    parents = bulk.parent_lines
    active = [False] * count
    index = count - 1
    while index > 0:
        active[index] = True
        index = parents[index]
    used = [False] * count
    context_error: str | None = None
    diagnostics = len(bulk.diagnostics)
    try:
        plan = bulk.plan()
        diagnostics += len(plan.diagnostics)
        if decoder is None:
            for index in plan.entries:
                used[index] = _gives_message(entries[index - 1])
        else:
            # Every entry but the parsed ones is a message line's struct (a message: used when planned).
            deque(map(used.__setitem__, plan.entries, repeat(True)), maxlen=0)
            for index in parsed:
                if used[index]:
                    used[index] = _gives_message(entries[index - 1])
    except ContextError as exc:
        context_error = str(exc)
    session_name: str | None = None
    for entry in entries if decoder is None else [entries[index - 1] for index in parsed]:
        if type(entry) is not RowMessageLine and entry.get("type") == "session_info":
            raw = entry.get("name")
            session_name = raw.strip() or None if isinstance(raw, str) else None
    unread = {line for line in refused if not scan_reads_line(bytes(line_text(line - 1)))}
    if data and not data.endswith(b"\n") and not scan_reads_line(bytes(line_text(count - 1))):
        unread.add(count)
    distinct = set(islice(parents, 1, None))  # the lines that are some line's parent, and 0 or -1 for roots
    distinct.discard(0)
    distinct.discard(-1)
    if min(distinct, default=1) <= 0:
        distinct = {parent for parent in distinct if parent > 0}
    branches = count - 1 - len(distinct)
    return ReadSession(bulk.header, entries, list(range(2, count + 1)), active[1:], used[1:], session_name,
                       bulk.leaf_id, branches, diagnostics, context_error, unread, bulk.line_lengths(), times)


def _gives_message(entry: Any) -> bool:
    """Whether a planned entry gives the context a message."""
    return type(entry) is RowMessageLine or entry_message_count(entry) > 0


Result = tuple[Any, int, Any, bool, int, str | None]
"""(entry, line, toolCallId as found, isError is true, entry's row, text) of a tool result."""

UsageRows = Callable[[ReadSession, list[Candidate], Columns, list[int | None], "SpendingRules | None"],
                     dict[str, Any]]


def fast_usage_rows(read: ReadSession, candidates: list[Candidate], usage: Columns,
                    stamps: list[int | None], spending: SpendingRules | None = None) -> dict[str, Any]:
    """The usage rows from the candidates the entry walk collected (corpus/usage.py)."""
    return usage_rows(candidates, read.unread, usage, spending)


def session_rows(name: str, read: ReadSession, lengths: list[int], size: int,
                 usage_of_file: UsageRows = fast_usage_rows, shape: Shape = BASE,
                 spending: SpendingRules | None = None) -> FileRows:
    """Every table's rows from a read file (`usage_of_file`: how the usage table is counted; the reference
    `reference_usage_rows` is what tests compare the fast one with), into the tables of `shape`, spending
    counted by `spending`'s rules (None: the code's default).

    Rows are gathered as one tuple per row and turned into columns at the end (`_columns`), and the entries
    columns a struct line gives directly are built in one comprehension each: per-value list appends were most
    of the walk's own time.
    """
    rows: FileRows = {table: shape.own_columns(table) for table in shape.tables if table != "sessions"}
    entries = read.entries
    entries_rows = rows["entries"]
    count_lines = len(lengths)
    lines = read.lines
    entries_rows["line"] = list(lines)
    count = len(lines)
    if count and lines[0] == 2 and lines[-1] == count + 1 <= count_lines:
        # Lines 2, 3, ... in file order (what the bulk reader gives, nearly always): one slice.
        entries_rows["bytes"] = lengths[1:count + 1]
    else:
        entries_rows["bytes"] = [lengths[line - 1] if line <= count_lines else 0 for line in lines]
    entries_rows["onActivePath"] = read.active
    entries_rows["inContext"] = read.used
    # The struct lines' columns at once (None elsewhere: the dict entries' values are set by the walk below).
    struct = RowMessageLine
    ids: list[Any] = [entry.id if type(entry) is struct else None for entry in entries]
    parent_ids: list[Any] = [entry.parentId if type(entry) is struct else None for entry in entries]
    types: list[Any] = ["message" if type(entry) is struct else None for entry in entries]
    # per entry: a struct line's timestamp, read for all at once (entry_times)
    stamp_texts: list[str | None] = [entry.timestamp if type(entry) is struct else None for entry in entries]
    roles: list[Any] = []
    e_role = roles.append
    message_rows: list[tuple[Any, ...]] = []  # (entry's row, provider, model, text, thinking, toolNames, isError)
    m_row = message_rows.append
    call_rows: list[tuple[Any, ...]] = []  # (entry's row, toolCallId, name, arguments: JSON text or Raw)
    c_row = call_rows.append
    dict_calls = 0  # call rows of dict entries (their arguments JSON text; a struct's are its Raw till the end)
    role_columns = shape.role_counts
    role_counts = dict.fromkeys((*role_columns.values(), "otherMessages"), 0)
    prompt_roles = shape.prompt_roles  # (empty unless the version's system messages carry the prompt)
    counts_usage_entries, applies_edits = shape.usage_entries, shape.context_edits
    usage_entries: list[Candidate] = []  # spending entries that are no message (the version's usage entries)
    edit_rows: list[tuple[Any, ...]] = []  # (entry's row, targetId, action, text, applied) of context edits
    section_rows: list[tuple[Any, ...]] = []  # (entry's row, position, section, text)
    tool_rows: list[tuple[Any, ...]] = []  # (entry's row, change, position, name, description, parameters)
    users = assistants = tool_results = bashes = customs = 0
    models: dict[str, None] = {}
    last_provider: str | None = None
    last_model: str | None = None
    activities: list[Any] = []  # the struct user and assistant messages' timestamps
    add_activity = activities.append
    calls_by_id: dict[str, list[int]] = {}  # toolCallId -> rows of `calls` with that id
    results: list[Result] = []
    last_activity: int | float | None = None
    context_messages = 0
    dict_stamps: dict[int, int] = {}  # the times of the other entries (by their row), read one by one
    candidates: list[Candidate] = []  # entries that may carry usage (assistant messages, untyped entries)

    for at, (entry, line, used) in enumerate(zip(entries, read.lines, read.used, strict=True)):
        if type(entry) is struct:
            # A Pi-shaped message line (corpus/lines.py): every field has the type Pi writes, so the checks
            # of the dict path below all pass; the same values, without them.
            message: Any = entry.message  # one of the role structs (their types told apart by `kind`)
            kind: Any = type(message)
            context_messages += used
            if kind is RowToolResult:
                tool_results += 1
                e_role("toolResult")
                content = message.content
                if len(content) == 1:  # (nearly always: one text block)
                    block = content[0]
                    text = block.text if type(block) is RowText else None
                else:
                    texts = [block.text for block in content if type(block) is RowText]
                    text = "\n".join(texts) if texts else None
                is_error = message.isError
                results.append((entry, line, message.toolCallId, is_error, at, text))
                m_row((at, None, None, text, None, [message.toolName], is_error))
            elif kind is RowAssistant:
                assistants += 1
                e_role("assistant")
                candidates.append((entry, line, at))
                provider, model = message.provider, message.model
                if model is not last_model or provider is not last_provider:  # (the same strings: no change)
                    models[f"{provider}/{model}"] = None
                    last_provider, last_model = provider, model
                texts = []
                thoughts: list[str] = []
                tool_names: list[str] = []
                for block in message.content:
                    block_kind = type(block)
                    if block_kind is RowText:
                        texts.append(block.text)
                    elif block_kind is RowThinking:
                        thoughts.append(block.thinking)
                    else:
                        call_name = block.name
                        tool_names.append(call_name)
                        call_id = block.id
                        same = calls_by_id.get(call_id)
                        if same is None:
                            calls_by_id[call_id] = [len(call_rows)]
                        else:
                            same.append(len(call_rows))
                        c_row((at, call_id, call_name, block.arguments))
                m_row((at, provider, model, "\n".join(texts) if texts else None,
                       "\n".join(thoughts) if thoughts else None, tool_names, None))
                add_activity(message.timestamp)
            elif kind is RowUser:
                users += 1
                e_role("user")
                content = message.content
                if type(content) is str:
                    text = content
                elif len(content) == 1:
                    block = content[0]
                    text = block.text if type(block) is RowText else None
                else:
                    texts = [block.text for block in content if type(block) is RowText]
                    text = "\n".join(texts) if texts else None
                m_row((at, None, None, text, None, [], None))
                add_activity(message.timestamp)
            elif kind is Bash:
                bashes += 1
                e_role("bashExecution")
                pieces = [value for value in (message.command, message.output) if value]
                m_row((at, None, None, "\n".join(pieces) if pieces else None, None, [], None))
            else:  # Custom
                customs += 1
                e_role(ROLE_OF_TYPE[kind])
                content = message.content
                if type(content) is str:
                    text = content
                else:
                    texts = [block.text for block in content if type(block) is RowText]
                    text = "\n".join(texts) if texts else None
                m_row((at, None, None, text, None, [], None))
            continue
        is_dict = type(entry) is dict
        stamp = stamp_ms(entry.get("timestamp")) if is_dict else None
        if stamp is not None:
            dict_stamps[at] = stamp
        if not is_dict:
            e_role(None)
            continue
        ids[at] = _text(entry.get("id"))
        parent_ids[at] = _text(entry.get("parentId"))
        entry_type = entry.get("type")
        types[at] = _text(entry_type)
        message = None
        if entry_type is None:
            candidates.append((entry, line, at))
        if entry_type == "message":
            message = entry.get("message")
            if type(message) is not dict:
                e_role(None)
                continue
        elif type(entry_type) is str and entry_type in SUMMARY_ENTRIES:  # a list type: unhashable
            if prompt_roles and entry_type == "compaction":
                system_message = entry.get("systemMessage")
                if type(system_message) is dict:  # (the prompt a Pi 1.6 compaction restarts the context with)
                    _prompt_rows(system_message, at, section_rows, tool_rows)
            projected = entry_to_messages(entry)
            if not projected:
                e_role(None)
                continue
            message = projected[0]
        else:
            if entry_type == "usage" and counts_usage_entries:
                usage_entries.append((entry, line, at))
            elif entry_type == "context_edit" and applies_edits:
                edit_rows.append(_edit_row(entry, at, read.applied))
            e_role(None)
            continue
        role = _text(message.get("role"))
        e_role(role)
        role_counts[role_columns.get(role or "", "otherMessages")] += 1
        if role in prompt_roles:
            _prompt_rows(message, at, section_rows, tool_rows)
        context_messages += used
        tool_names = []
        provider = model = None
        text = thinking = None
        if role == "assistant":
            if entry_type == "message":
                candidates.append((entry, line, at))
            provider, model = _text(message.get("provider")), _text(message.get("model"))
            if provider is not None or model is not None:
                models[f"{provider or ''}/{model or ''}"] = None
            content = message.get("content")
            if type(content) is list:
                # One pass for the text, the thinking and the tool calls (text.message_text and thinking_text
                # give the same strings; tests/corpus/test_index.py checks it on every fixture).
                texts = []
                thoughts = []
                for block in content:
                    if type(block) is not dict:
                        continue
                    block_type = block.get("type")
                    if block_type == "text":
                        value = block.get("text")
                        if type(value) is str:
                            texts.append(value)
                        continue
                    if block_type == "thinking":
                        value = block.get("thinking")
                        if type(value) is str:
                            thoughts.append(value)
                        continue
                    if block_type != "toolCall":
                        continue
                    call_name = _text(block.get("name"))
                    if call_name is not None:
                        tool_names.append(call_name)
                    call_id = _text(block.get("id"))
                    if call_id is not None:
                        calls_by_id.setdefault(call_id, []).append(len(call_rows))
                    dict_calls += 1
                    c_row((at, call_id, call_name, _arguments_json(block.get("arguments"))))
                text = "\n".join(texts) if texts else None
                thinking = "\n".join(thoughts) if thoughts else None
            else:
                text, thinking = message_text(message), thinking_text(message)
        else:
            text = message_text(message)
            if role == "toolResult":
                tool_name = _text(message.get("toolName"))
                if tool_name is not None:
                    tool_names.append(tool_name)
                results.append((entry, line, message.get("toolCallId"), message.get("isError") is True, at,
                                text))
        if role == "user" or role == "assistant":
            activity = message.get("timestamp")
            if type(activity) not in (int, float):
                activity = stamp
            if activity is not None and activity == activity and (last_activity is None or activity > last_activity):
                # (NaN is never greater; an infinite time, from a number past the double range that only the
                # lenient reader reads, stays infinite and is written as null, as any time JavaScript cannot hold)
                last_activity = int(activity) if abs(activity) != _INFINITY else activity
        m_row((at, provider, model, text, thinking, tool_names,
               message.get("isError") is True if role == "toolResult" else None))

    if activities:
        # The loop's rule (a later time replaces the last only when greater, truncated) ends with the truncated
        # greatest time whatever the order, so the struct messages' times take part as their greatest.
        peak = max(activities)
        if type(peak) is int and not I64_MIN <= peak <= U64_MAX:
            peak = float(peak)  # as orjson reads it (lines.orjson_number)
        if last_activity is None or peak > last_activity:
            last_activity = int(peak)
    for counted, role_name in ((users, "user"), (assistants, "assistant"), (tool_results, "toolResult"),
                               (bashes, "bashExecution"), (customs, "custom")):
        role_counts[ROLE_COUNTS[role_name]] += counted
    entries_rows.update(id=ids, parentId=parent_ids, type=types, role=roles)
    messages = rows["messages"]
    _columns(messages, (ENTRY, "provider", "model", "text", "thinking", "toolNames", "isError"), message_rows)
    calls = rows["tool_calls"]
    _columns(calls, (ENTRY, "toolCallId", "name", "arguments"), call_rows)
    arguments = calls["arguments"]
    if not dict_calls:  # every call a struct's: the column is their texts
        calls["arguments"] = raw_arguments_json(arguments)
    elif len(arguments) > dict_calls:
        raw_calls = [at for at, value in enumerate(arguments) if type(value) is not str]
        for at, text in zip(raw_calls, raw_arguments_json([arguments[at] for at in raw_calls]), strict=True):
            arguments[at] = text
    if read.times is not None:
        stamps = struct_times(stamp_texts, read.times, dict_stamps)
    else:
        stamps = entry_times(stamp_texts, dict_stamps)
    entries_rows["timestamp"] = stamps
    _pair_results(entries, read.lines, stamps, calls, calls_by_id, results)
    usage = usage_of_file(read, candidates, rows["usage"], stamps, spending)
    if counts_usage_entries:
        spent = usage_entry_rows(usage_entries, read.unread, rows["usage_entries"], spending)
        for column, value in spent.items():
            usage[column] += value
    if applies_edits:
        _columns(rows["context_edits"], (ENTRY, "targetId", "action", "text", "applied"), edit_rows)
        rows["context_edits"]["targetLine"] = _target_lines(rows["context_edits"]["targetId"], ids, read.lines)
    if prompt_roles:
        _columns(rows["system_sections"], (ENTRY, "position", "section", "text"), section_rows)
        _columns(rows["system_tools"], (ENTRY, "change", "position", "name", "description", "parameters"), tool_rows)
    header = read.header
    created = stamp_ms(header.get("timestamp"))
    leaf = read.leaf
    session: Columns = shape.own_columns("sessions")
    values: dict[str, Any] = {
        "id": _text(header.get("id")), "cwd": _text(header.get("cwd")), "name": read.name,
        "parentSession": _text(header.get("parentSession")), "created": created,
        "modified": last_activity if last_activity is not None else created, "bytes": size,
        "entries": len(entries), "messages": message_count(entries), **role_counts,
        "contextMessages": context_messages + read.extra_context, "toolCalls": len(calls[ENTRY]),
        **({"usageEntries": len(rows["usage_entries"][ENTRY])} if counts_usage_entries else {}),
        **({"contextEdits": len(rows["context_edits"][ENTRY])} if applies_edits else {}), "models": list(models),
        "leaf": leaf if type(leaf) is str else None, "branches": read.branches,
        "diagnostics": read.diagnostics, "contextError": read.context_error, **usage,
    }
    for column, value in values.items():
        session[column].append(value)
    rows["sessions"] = session
    return rows


def _prompt_rows(message: dict[str, Any], at: int, sections: list[tuple[Any, ...]],
                 tools: list[tuple[Any, ...]]) -> None:
    """A system message's prompt sections (in their order; a text that is not a string is null) and the tools it
    adds and removes (objects, by their name, description and parameters as JSON; a string as a tool's name)."""
    found = message.get("sections")
    if type(found) is dict:
        for position, (section, text) in enumerate(found.items()):
            sections.append((at, position, section, _text(text)))
    for change, key in (("added", "toolsAdded"), ("removed", "toolsRemoved")):
        listed = message.get(key)
        if type(listed) is not list:
            continue
        for position, tool in enumerate(listed):
            if type(tool) is dict:
                parameters = _arguments_json(tool["parameters"]) if "parameters" in tool else None
                tools.append((at, change, position, _text(tool.get("name")), _text(tool.get("description")),
                              parameters))
            elif type(tool) is str:
                tools.append((at, change, position, tool, None, None))


def _edit_row(entry: dict[str, Any], at: int, applied: set[int]) -> tuple[Any, ...]:
    """(entry's row, targetId, action, text, applied) of a context edit: `removes` for a null replacement,
    `replaces` for any other (as `visibility` says it; a missing one, on which Pi throws, too), and the text of
    the replacement's content (a string as it is, text blocks joined)."""
    replacement = entry.get("replacement")
    action = "removes" if replacement is None else "replaces"
    text = blocks_text(replacement.get("content")) if type(replacement) is dict else None
    return at, _text(entry.get("targetId")), action, text, id(entry) in applied



def _target_lines(targets: list[str | None], ids: list[Any], lines: list[int]) -> list[int | None]:
    """The line of each target's entry (the last entry with that id, as Pi's index keeps it; None for none)."""
    if not targets:
        return []
    line_of: dict[str, int] = {}
    for entry_id, line in zip(ids, lines, strict=True):
        if entry_id is not None:
            line_of[entry_id] = line
    return [None if target is None else line_of.get(target) for target in targets]


def _columns(table: Columns, names: tuple[str, ...], rows: list[tuple[Any, ...]]) -> None:
    """Set `table`'s `names` columns from one tuple per row (the columns stay empty lists when there are none)."""
    if rows:
        for column, values in zip(names, zip(*rows, strict=True), strict=True):
            table[column] = list(values)


def _pair_results(entries: list[Any], entry_lines: list[int], stamps: list[int | None], calls: Columns,
                  calls_by_id: dict[str, list[int]], results: list[Result]) -> None:
    """Give each tool call its result: the first toolResult (file order) answering its id.

    When several calls share an id (a branch retried the turn), a result belongs to the call whose assistant
    entry is its nearest ancestor; failing that, to the last such call above it in the file.
    """
    call_rows = calls[ENTRY]  # each call's assistant entry (its row)
    count = len(call_rows)
    result_text: list[Any] = [None] * count
    result_line: list[Any] = [None] * count
    result_entry: list[Any] = [None] * count
    is_error: list[Any] = [None] * count
    ms_to_result: list[Any] = [None] * count
    lines = [entry_lines[at] for at in calls[ENTRY]]
    by_id: dict[str, Any] = {}  # entry id -> entry (the later wins, as in Pi's index), made when first needed
    for entry, line, call_id, error, at, text in results:
        candidates = calls_by_id.get(call_id) if type(call_id) is str else None
        if not candidates:
            continue
        if len(candidates) == 1:  # (_nearest_call's first case, inline: nearly every result)
            chosen = candidates[0]
            if lines[chosen] >= line:
                continue
        else:
            nearest = _nearest_call(entries, entry, line, candidates, call_rows, lines, by_id)
            if nearest is None:
                continue
            chosen = nearest
        if result_line[chosen] is not None:
            continue
        result_text[chosen] = text
        result_line[chosen] = line
        result_entry[chosen] = at
        is_error[chosen] = error
        start, stamp = stamps[call_rows[chosen]], stamps[at]
        ms_to_result[chosen] = stamp - start if stamp is not None and start is not None else None
    calls["result"], calls["resultLine"], calls[RESULT_ENTRY] = result_text, result_line, result_entry
    calls["isError"], calls["msToResult"] = is_error, ms_to_result


def _nearest_call(entries: list[Any], entry: Any, line: int, candidates: list[int], call_rows: list[int],
                  lines: list[int], by_id: dict[str, Any]) -> int | None:
    if len(candidates) == 1:
        return candidates[0] if lines[candidates[0]] < line else None
    if not by_id:
        for item in entries:
            if type(item) is RowMessageLine:
                by_id[item.id] = item
            elif type(item) is dict and type(item.get("id")) is str:
                by_id[item["id"]] = item
    by_entry = {id(entries[call_rows[index]]): index for index in candidates}
    current: Any = entry
    for _ in range(len(entries)):
        kind = type(current)
        parent = current.parentId if kind is RowMessageLine else current.get("parentId") if kind is dict else None
        current = by_id.get(parent) if type(parent) is str else None
        if current is None:
            break
        found = by_entry.get(id(current))
        if found is not None:
            return found
    above = [index for index in candidates if lines[index] < line]
    return above[-1] if above else None


def reference_usage_rows(read: ReadSession, candidates: list[Candidate], usage: Columns,
                         stamps: list[int | None], spending: SpendingRules | None = None) -> dict[str, Any]:
    """The usage table's rows for the file through `usage`'s counter (`counter.message_usage`) over every entry,
    each read as the dict `usage` reads, and the session's sums of what `usage` counts (lines its scan cannot
    read get a row, not counted, and take no part in its de-duplication). The reference the fast count (which
    reads struct lines directly) is tested against."""
    totals: dict[str, Any] = {"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0, "totalTokens": 0, "cost": 0.0}
    entries, unread = [_usage_dict(entry) for entry in read.entries], read.unread
    counter = UsageCounter("UTC", spending=spending)
    rows: list[tuple[Any, ...]] = []
    for entry, line, stamp, active in zip(entries, read.lines, stamps, read.active, strict=True):
        found = message_usage(counter, entry, line not in unread)
        if found is None or found.kind != MESSAGE_KIND:  # (usage entries have a table of their own)
            continue
        message = entry["message"]
        provider, model, api, entry_id = message.get("provider"), message.get("model"), message.get("api"), \
            entry.get("id")
        rows.append((line, entry_id if type(entry_id) is str else None,
                     provider if type(provider) is str else None, model if type(model) is str else None,
                     api if type(api) is str else None, stamp, found.input, found.output, found.cacheRead,
                     found.cacheWrite, found.totalTokens, found.cost, found.costSource, found.counted, active))
    names = ("line", "entryId", "provider", "model", "api", "timestamp", "input", "output", "cacheRead",
             "cacheWrite", "totalTokens", "cost", "costSource", "counted", "onActivePath")
    usage.clear()  # every column its own (the fast rows take some from the entries table)
    for index, name in enumerate(names):
        usage[name] = [row[index] for row in rows]
    for name in ("input", "output", "cacheRead", "cacheWrite", "totalTokens", "cost"):
        totals[name] += sum(value for value, counted in zip(usage[name], usage["counted"], strict=True) if counted)
    return totals


def _usage_dict(entry: Any) -> Any:
    """A struct-decoded message line as the dict the usage scan reads (every field it looks at), else `entry`."""
    if type(entry) is not RowMessageLine:
        return entry
    message = entry.message
    fields: dict[str, Any] = {"role": ROLE_OF_TYPE[type(message)]}
    if type(message) is RowAssistant:
        usage = message.usage  # a line_format.RowUsage: as a dict of the fields the line holds (defaults left out)
        fields.update(provider=message.provider, model=message.model, api=message.api,
                      usage=None if usage is None else msgspec.to_builtins(usage))
    return {"type": "message", "id": entry.id, "parentId": entry.parentId, "timestamp": entry.timestamp,
            "message": fields}
