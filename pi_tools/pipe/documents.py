"""The pipe protocol: stage documents in and out as JSON Lines (one document per session per line).

Stages write with orjson in large buffered writes. A few values orjson refuses but JavaScript's JSON.stringify
writes (lone UTF-16 surrogates, which JSON.stringify escapes as \\udxxx) take a slower, equivalent path, so a
session holding them still flows through every stage. Input lines are parsed with JSON.parse semantics.
"""

from __future__ import annotations

import json
import math
import re
import sys
from bisect import bisect_right
from collections.abc import Callable, Iterator
from itertools import accumulate, islice
from typing import IO, Any

import orjson

from pi_tools.js.errors import JsonSyntaxError
from pi_tools.js.json_line import loads_line
from pi_tools.js.json_stringify import stringify_any_depth
from pi_tools.js.values import UNDEFINED, js_double
from pi_tools.messages.types import RawMessage


class DocumentError(Exception):
    """A line on stdin is neither a stage document nor part of a session file."""


def _js_scalar(value: Any) -> Any:
    """A number as JavaScript holds it: non-finite floats are null in JSON.stringify's text, and integers
    beyond 2**53 (exact in Python) are the nearest double, as V8's JSON.parse made them (js_double)."""
    if type(value) is int:
        value = js_double(value)
    if type(value) is float and not math.isfinite(value):
        return None
    return value


def _js_safe(value: Any) -> Any:
    """The document as JSON.stringify sees it, iteratively, without changing it: every number as JavaScript
    holds it (_js_scalar), undefined members left out and undefined array items null."""
    if not isinstance(value, (dict, list)):
        return None if value is UNDEFINED else _js_scalar(value)
    root: Any = {"v": value}
    stack: list[Any] = [root]
    while stack:
        node = stack.pop()
        if type(node) is dict and any(item is UNDEFINED for item in node.values()):
            for key in [key for key, item in node.items() if item is UNDEFINED]:
                del node[key]
        items = node.items() if isinstance(node, dict) else enumerate(node)
        for key, item in list(items):
            if type(item) is float or type(item) is int:
                node[key] = _js_scalar(item)
            elif item is UNDEFINED:
                node[key] = None
            elif isinstance(item, (dict, list)):
                copy = dict(item) if isinstance(item, dict) else list(item)
                node[key] = copy
                stack.append(copy)
    return root["v"]


def dumps_document(document: Any) -> bytes:
    """Serialise one document as a JSON line (bytes, newline included).

    orjson's strict-integer mode refuses integers beyond 2**53 at no cost to the others; those documents take
    the path that writes them as the doubles Pi holds (a session's 9007199254740993 is 9007199254740992 in Pi)."""
    try:
        return orjson.dumps(document, option=orjson.OPT_STRICT_INTEGER) + b"\n"
    except orjson.JSONEncodeError:
        pass
    try:
        text = json.dumps(_js_safe(document), ensure_ascii=True, separators=(",", ":"), allow_nan=False)
    except RecursionError:  # nested deeper than Python recurses (V8 parses any depth): an explicit stack
        return stringify_any_depth(document).encode("utf-8") + b"\n"
    return text.encode("ascii") + b"\n"


class LazyMessages:
    """A document's `messages` produced on demand: iterated once per use, never held whole.

    A context built from a lazily loaded session is written (or converted) message by message; anything that
    needs the whole list calls `list()` on it. A writer may ask for `json_items()` instead: the same messages,
    where possible as RawMessage text that goes to the output unparsed.
    """

    def __init__(self, produce: Callable[[], Iterator[Any]],
                 produce_json: Callable[[], Iterator[Any]] | None = None, planned: Any = None) -> None:
        self._produce = produce
        self._produce_json = produce_json
        self.planned = planned
        """The PlannedMessages (lines of a clean file) whose messages these are, or whose messages convertToLlm
        turned into these; None for any other source. What a stage needs to have part of them built elsewhere."""

    def __iter__(self) -> Iterator[Any]:
        return self._produce()

    def json_items(self) -> Iterator[Any]:
        """The messages as RawMessage text or as objects, for writing."""
        return (self._produce_json or self._produce)()


class EncodedItems:
    """List items already serialised elsewhere (by a worker process): comma-separated JSON values, written as
    they are. `count` is how many values the text holds."""

    __slots__ = ("json", "count")

    def __init__(self, json: bytes, count: int) -> None:
        self.json = json
        self.count = count


def materialized(messages: Any) -> list[Any]:
    """A real list of messages from a document's `messages` (lazy or not)."""
    return messages if isinstance(messages, list) else list(messages or [])


_LIST_MARKER = "\x00pi-tools-streamed-list\x00"
_LIST_MARKER_JSON = orjson.dumps(_LIST_MARKER)
_STREAM_THRESHOLD = 4096
_CHUNK = 2048


def iter_document_bytes(document: Any) -> Iterator[bytes]:
    """Serialise a document in pieces: a huge `messages` list (or the payload's message list) is written chunk by
    chunk, so a 100 MB session never exists a second time as one giant bytes object."""
    located = _long_list(document)
    if located is None:
        yield dumps_document(document)
        return
    with_marker, items = located
    prefix, _, suffix = dumps_document(with_marker).partition(_LIST_MARKER_JSON)
    yield prefix + b"["
    first = True
    iterator = items.json_items() if isinstance(items, LazyMessages) else iter(items)
    while True:
        chunk_items = list(islice(iterator, _CHUNK))
        if not chunk_items:
            break
        for piece in _item_pieces(chunk_items):
            if not piece:
                continue
            if not first:
                yield b","  # apart: EncodedItems are large, never copied to prepend a comma
            yield piece
            first = False
    yield b"]" + suffix


def _long_list(document: Any) -> tuple[dict[str, Any], Any] | None:
    """The document with its long message list replaced by a marker, and that list; None for short documents.

    A payload's conversation is found by its shape, not by its key: the list that holds EncodedItems (only a
    conversation built in parts does, and it must be streamed: orjson cannot write them), else the first long
    list. This module sits below the providers and cannot read the API table, and a key list kept here would
    have to follow every API, plug-ins included; whichever long list is streamed, the bytes written are the
    same."""
    if not isinstance(document, dict):
        return None
    messages = document.get("messages")
    if isinstance(messages, LazyMessages) or (isinstance(messages, list) and len(messages) >= _STREAM_THRESHOLD):
        return {**document, "messages": _LIST_MARKER}, messages
    payload = document.get("payload")
    if isinstance(payload, dict):
        lists = list(_payload_lists(payload, ()))
        chosen = next(((path, items) for path, items in lists if type(items[-1]) is EncodedItems), None) \
            or next(((path, items) for path, items in lists if len(items) >= _STREAM_THRESHOLD), None)
        if chosen is not None:
            path, items = chosen
            return {**document, "payload": _with_marker(payload, path)}, items
    return None


def _payload_lists(value: dict[str, Any], path: tuple[str, ...]) -> Iterator[tuple[tuple[str, ...], list[Any]]]:
    """The payload's non-empty lists with their key paths, the top level's before those of its objects (an API
    may hold its conversation in an object of the payload: pi-messages' ``context.messages``)."""
    nested: list[tuple[str, dict[str, Any]]] = []
    for key, items in value.items():
        if isinstance(items, list) and items:
            yield (*path, key), items
        elif isinstance(items, dict):
            nested.append((key, items))
    for key, inner in nested:
        yield from _payload_lists(inner, (*path, key))


def _with_marker(value: dict[str, Any], path: tuple[str, ...]) -> dict[str, Any]:
    head, *rest = path
    return {**value, head: _with_marker(value[head], tuple(rest)) if rest else _LIST_MARKER}


def _item_pieces(items: list[Any]) -> Iterator[bytes]:
    """The items' JSON in comma-separated pieces: each EncodedItems' text as it is, the runs between them by
    dump_items."""
    run: list[Any] = []
    for item in items:
        if type(item) is EncodedItems:
            if run:
                yield dump_items(run)
                run = []
            yield item.json
        else:
            run.append(item)
    if run:
        yield dump_items(run)


def dump_items(items: list[Any]) -> bytes:
    """Comma-separated JSON of the items; RawMessage text as it is where that is safe, EncodedItems as they are,
    everything else serialised."""
    kinds = set(map(type, items))
    if RawMessage not in kinds and EncodedItems not in kinds:
        return dumps_document(items)[1:-2]  # strip "[" and "]\n"
    pieces: list[Any] = []
    raw_at: set[int] = set()
    pending: list[Any] = []
    for item in items:
        if type(item) is RawMessage or type(item) is EncodedItems:
            if pending:
                pieces.append(dumps_document(pending)[1:-2])
                pending = []
            if type(item) is RawMessage:
                raw_at.add(len(pieces))
            elif not item.json:
                continue
            pieces.append(item.json)
        else:
            pending.append(item)
    if pending:
        pieces.append(dumps_document(pending)[1:-2])
    joined = b",".join(pieces)
    if not raw_at:
        return joined
    unsafe = _pieces_with_unsafe_numbers(joined, pieces)
    if not unsafe:
        return joined
    for index in unsafe & raw_at:
        pieces[index] = dumps_document(loads_line(memoryview(pieces[index])))[:-1]
    return b",".join(pieces)


# Digits and "+" become "0", "E" becomes "e", and what can stand before or after a number (",[]}-", blanks)
# becomes ":". A number with a positive exponent of 3 digits or more then reads "0e000...:", and one with 16
# or more digits before any fraction ":000...". Only such number texts may read back as another value than
# parsing and re-serialising gives (1e999 is Infinity, written as null; 16 digits can exceed 2**53, which
# V8 rounds to the nearest double).
# Negative exponents, signs and long fractions read back the same. Hashes ("...3e01427f...") are told apart by
# what follows the digits; anything else that merely looks like such a number is re-encoded, to be safe.
_NUMBER_SHAPES = bytes.maketrans(b"123456789+E,[]}- \t", b"0000000000e:::::::")
_BIG_EXPONENT = b"0e000"
_EXPONENT_END = re.compile(b"0*:")
_LONG_INTEGER = b":" + b"0" * 16


def _pieces_with_unsafe_numbers(joined: bytes, pieces: list[Any]) -> set[int]:
    """Indices of the comma-joined pieces whose text holds an unsafe number shape."""
    shapes = joined.translate(_NUMBER_SHAPES)
    hits: list[int] = []
    find = shapes.find
    position = find(_BIG_EXPONENT)
    while position >= 0:
        if _EXPONENT_END.match(shapes, position + len(_BIG_EXPONENT)):
            hits.append(position)
        position = find(_BIG_EXPONENT, position + 1)
    position = find(_LONG_INTEGER)
    while position >= 0:
        hits.append(position + 1)
        position = find(_LONG_INTEGER, position + 1)
    if not hits:
        return set()
    ends = list(accumulate(len(piece) + 1 for piece in pieces))
    return {bisect_right(ends, position) for position in hits}


class DocumentWriter:
    """Buffered JSON Lines writer for stdout (or any binary stream)."""

    def __init__(self, stream: IO[bytes] | None = None, buffer_size: int = 1 << 20) -> None:
        self._stream = stream if stream is not None else sys.stdout.buffer
        self._pending: list[bytes] = []
        self._size = 0
        self._limit = buffer_size

    def write(self, document: Any) -> None:
        for data in iter_document_bytes(document):
            self._pending.append(data)
            self._size += len(data)
            if self._size >= self._limit:
                self.flush()

    def flush(self) -> None:
        if self._pending:
            try:
                for piece in self._pending:  # large pieces go straight out, never copied into one
                    self._stream.write(piece)
                self._stream.flush()
            except BrokenPipeError:
                # The reader went away (e.g. `| head`); stop quietly as Unix tools do.
                raise SystemExit(0) from None
            self._pending.clear()
            self._size = 0


def error_document(source: str, message: str, pi: str | None = None) -> dict[str, Any]:
    """A stage's failure for one input; `pi`: the Pi version the stage ran as (every stage document names it)."""
    if pi is None:
        return {"kind": "error", "source": source, "error": message}
    return {"kind": "error", "source": source, "pi": pi, "error": message}


def is_session_header(value: Any) -> bool:
    return isinstance(value, dict) and value.get("type") == "session" and "kind" not in value


def looks_like_session(data: bytes) -> bool:
    """True when the first non-blank line of `data` is a session header (or a BOM-damaged one)."""
    for line in data.split(b"\n", 64)[:64]:
        if not line.strip():
            continue
        if line.startswith(b"\xef\xbb\xbf"):
            return True
        try:
            return is_session_header(loads_line(line))
        except (JsonSyntaxError, UnicodeDecodeError):
            return False
    return False


def iter_documents(data: bytes, source: str = "<stdin>") -> Iterator[Any]:
    """Parse stage documents, one per non-blank line; a bad line raises DocumentError naming it."""
    for number, line in enumerate(data.split(b"\n"), start=1):
        if not line.strip():
            continue
        try:
            yield loads_line(line)
        except (JsonSyntaxError, UnicodeDecodeError) as exc:
            raise DocumentError(f"{source}:{number}: not a JSON document: {exc}") from None
