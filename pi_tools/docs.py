"""The pipe protocol: stage documents in and out as JSON Lines (one document per session per line).

Stages write with orjson in large buffered writes. A few values orjson refuses but JavaScript's JSON.stringify
writes (lone UTF-16 surrogates, which JSON.stringify escapes as \\udxxx) take a slower, equivalent path, so a
session holding them still flows through every stage. Input lines are parsed with JSON.parse semantics.
"""

from __future__ import annotations

import json
import math
import sys
from collections.abc import Callable, Iterator
from itertools import islice
from typing import IO, Any

import orjson

from pi_tools.session.jsonparse import JsonSyntaxError, loads_line


class DocumentError(Exception):
    """A line on stdin is neither a stage document nor part of a session file."""


def _js_safe(value: Any) -> Any:
    """Replace non-finite floats by None (JSON.stringify writes null), iteratively."""
    if isinstance(value, float):
        return value if math.isfinite(value) else None
    if not isinstance(value, (dict, list)):
        return value
    root: Any = {"v": value}
    stack: list[Any] = [root]
    while stack:
        node = stack.pop()
        items = node.items() if isinstance(node, dict) else enumerate(node)
        for key, item in list(items):
            if isinstance(item, float) and not math.isfinite(item):
                node[key] = None
            elif isinstance(item, (dict, list)):
                copy = dict(item) if isinstance(item, dict) else list(item)
                node[key] = copy
                stack.append(copy)
    return root["v"]


def dumps_document(document: Any) -> bytes:
    """Serialise one document as a JSON line (bytes, newline included)."""
    try:
        return orjson.dumps(document) + b"\n"
    except orjson.JSONEncodeError:
        pass
    try:
        text = json.dumps(_js_safe(document), ensure_ascii=True, separators=(",", ":"), allow_nan=False)
    except RecursionError:
        raise ValueError("value nested too deeply to serialise") from None
    return text.encode("ascii") + b"\n"


class LazyMessages:
    """A document's `messages` produced on demand: iterated once per use, never held whole.

    A context built from a lazily loaded session is written (or converted) message by message; anything that
    needs the whole list calls `list()` on it.
    """

    def __init__(self, produce: Callable[[], Iterator[Any]]) -> None:
        self._produce = produce

    def __iter__(self) -> Iterator[Any]:
        return self._produce()


def materialized(messages: Any) -> list[Any]:
    """A real list of messages from a document's `messages` (lazy or not)."""
    return messages if isinstance(messages, list) else list(messages or [])


_LIST_MARKER = "\x00pi-tools-streamed-list\x00"
_LIST_MARKER_JSON = orjson.dumps(_LIST_MARKER)
_STREAM_THRESHOLD = 4096
_CHUNK = 2048


def iter_document_bytes(document: Any) -> Iterator[bytes]:
    """Serialise a document in pieces: a huge `messages`/`payload.messages` list is written chunk by chunk, so
    a 100 MB session never exists a second time as one giant bytes object."""
    messages = document.get("messages") if isinstance(document, dict) else None
    lazy = isinstance(messages, LazyMessages)
    if not lazy and (not isinstance(messages, list) or len(messages) < _STREAM_THRESHOLD):
        yield dumps_document(document)
        return
    prefix, _, suffix = dumps_document({**document, "messages": _LIST_MARKER}).partition(_LIST_MARKER_JSON)
    yield prefix + b"["
    first = True
    iterator = iter(messages)  # type: ignore[arg-type]
    while True:
        chunk_items = list(islice(iterator, _CHUNK))
        if not chunk_items:
            break
        chunk = dumps_document(chunk_items)[1:-2]  # strip "[" and "]\n"
        yield chunk if first else b"," + chunk
        first = False
    yield b"]" + suffix


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
                self._stream.write(b"".join(self._pending))
                self._stream.flush()
            except BrokenPipeError:
                # The reader went away (e.g. `| head`); stop quietly as Unix tools do.
                raise SystemExit(0) from None
            self._pending.clear()
            self._size = 0


def error_document(source: str, message: str) -> dict[str, Any]:
    return {"kind": "error", "source": source, "error": message}


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
