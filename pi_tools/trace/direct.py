"""The OTLP JSON of a plain session written straight from its bytes, for the run most traces are: `-o FILE`
without content (`--content none`).

The general path builds a `Span` record with an attribute dictionary per span (mapping.py) and encodes the
records (otlp_json.py): some 1,700 spans per generated 1 MB session, about 100 ms of work per session, six
times what `usage` takes over the same files. This path reads only the fields such a trace uses (msgspec
structs, one per kind of entry and role, so that a tool result's output or a prompt's text is skipped, never
built) and writes each request's and tool call's span as bytes at once, from pieces encoded once per run.

It is an optimisation of the general path and must never differ from it: it takes only files whose reading is
plain (every line a JSON object of a known kind of entry or message, a current header, unique string ids,
parents before children: the rules of fast.py), and gives up (None) on anything else, a lone surrogate or a
value of an unexpected type included, for the general path to trace. tests/trace/test_trace_direct.py checks
that both write the same bytes for every session it takes.
"""

from __future__ import annotations

import math
from collections.abc import Collection
from typing import Any, Union

import msgspec
import orjson

from pi_tools.trace.fast import CURRENT_VERSION
from pi_tools.trace.ids import labelled_span_id, trace_id
from pi_tools.trace.mapping import (
    AGENT_NAME,
    FAILED_STOPS,
    PROVIDER_NAMES,
    UTC_MINUTES,
    TraceOptions,
    as_double,
    iso_nanos,
)
from pi_tools.trace.otlp_json import double_json, encode_span, resource_head
from pi_tools.trace.spans import KIND_INTERNAL, Event, Span
from pi_tools.usage.counter import (
    ENTRY_TIMESTAMP,
    MESSAGE_KIND,
    WIDE,
    UsageCounter,
    message_usage,
    spent_usage,
)


class _Block(msgspec.Struct, gc=False):
    type: Any = None
    id: Any = None
    name: Any = None


class _Assistant(msgspec.Struct, tag_field="role", tag="assistant", gc=False):
    content: str | list[_Block] | None = None
    provider: Any = None
    model: Any = None
    api: Any = None
    responseModel: Any = None
    responseId: Any = None
    stopReason: Any = None
    timestamp: Any = None
    usage: Any = None
    thinkingLevel: Any = None


class _ToolResult(msgspec.Struct, tag_field="role", tag="toolResult", gc=False):
    toolCallId: Any = None
    isError: Any = None


class _System(msgspec.Struct, tag_field="role", tag="system"):
    sections: dict[str, msgspec.Raw] | None = None


_InputRoles = tuple(msgspec.defstruct(f"_Role_{role}", [], tag_field="role", tag=role)
                    for role in ("user", "bashExecution", "custom", "branchSummary", "compactionSummary"))
"""Roles whose messages a trace without content only walks past: nothing of them is read."""


class _Entry(msgspec.Struct, gc=False):
    id: Any = None
    parentId: Any = None
    timestamp: Any = None


class _Header(_Entry, tag_field="type", tag="session"):
    version: Any = None


_Messages: Any = Union[(_Assistant, _ToolResult, _System, *_InputRoles, None)]  # noqa: UP007 (from a tuple)


class _Message(_Entry, tag_field="type", tag="message"):
    message: _Messages = None  # type: ignore[valid-type]


class _ModelChange(_Entry, tag_field="type", tag="model_change"):
    provider: Any = None
    modelId: Any = None


class _ThinkingChange(_Entry, tag_field="type", tag="thinking_level_change"):
    thinkingLevel: Any = None


class _Compaction(_Entry, tag_field="type", tag="compaction"):
    firstKeptEntryId: Any = None
    tokensBefore: Any = None


class _BranchSummary(_Entry, tag_field="type", tag="branch_summary"):
    fromId: Any = None


class _ContextEdit(_Entry, tag_field="type", tag="context_edit"):
    targetId: Any = None


class _UsageEntry(_Entry, tag_field="type", tag="usage"):
    kind: Any = None
    provider: Any = None
    model: Any = None
    usage: Any = None


_Quiet = tuple(msgspec.defstruct(f"_Entry_{kind}", [], bases=(_Entry,), tag_field="type", tag=kind)
               for kind in ("label", "custom", "custom_message", "session_info"))
"""Entries that are no span and no event: only their place in the tree is read."""

_DECODER = msgspec.json.Decoder(Union[(_Header, _Message, _ModelChange, _ThinkingChange,  # noqa: UP007
                                        _Compaction, _BranchSummary, _ContextEdit, _UsageEntry, *_Quiet)])


def _entries(data: bytes) -> tuple[_Header, list[_Entry], list[_Entry]] | None:
    """(header, entries in file order, the active path) of a plain file, else None (fast.py's rules)."""
    try:
        values: list[Any] = _DECODER.decode_lines(data)
    except (msgspec.DecodeError, msgspec.ValidationError, RecursionError):
        return None
    if not values or len(values) != data.count(b"\n") + (not data.endswith(b"\n")):
        return None
    header = values[0]
    if type(header) is not _Header or type(header.id) is not str or type(header.version) is not int \
            or header.version != CURRENT_VERSION:
        return None
    entries = values[1:]
    by_id: dict[str, _Entry] = {}
    for entry in entries:
        entry_id = entry.id
        if type(entry_id) is not str or entry_id in by_id or type(entry) is _Header:
            return None
        parent = entry.parentId
        if parent is not None and (type(parent) is not str or (parent and parent not in by_id)):
            return None
        by_id[entry_id] = entry
    path: list[_Entry] = []
    current = entries[-1] if entries else None
    while current is not None:
        path.append(current)
        parent = current.parentId
        current = by_id.get(parent) if type(parent) is str and parent else None
    path.reverse()
    return header, entries, path


# Pieces of OTLP JSON encoded once per run (the values repeat: models, providers, tool names, stop reasons).
_CACHE_LIMIT = 100_000
"""The caches are emptied when one grows past this many entries."""
_pairs: dict[tuple[str, Any], bytes] = {}


def _text(key: str, value: str) -> bytes:
    """A string attribute, cached (for values that repeat: never an id)."""
    encoded = _pairs.get((key, value))
    if encoded is None:
        encoded = _pairs[(key, value)] = b'{"key":%s,"value":{"stringValue":%s}}' % (
            orjson.dumps(key), orjson.dumps(value))
    return encoded


def _unique(key: bytes, value: str) -> bytes:
    """A string attribute whose value is an id (`key` its encoded head), not cached."""
    return b'%s%s}}' % (key, orjson.dumps(value))


_OP_CHAT = _text("gen_ai.operation.name", "chat")
_OP_TOOL = _text("gen_ai.operation.name", "execute_tool")
_TOOL_TYPE = _text("gen_ai.tool.type", "function")
_ABANDONED = b'{"key":"pi.branch.abandoned","value":{"boolValue":true}}'
_NOT_COUNTED = b'{"key":"pi.usage.counted","value":{"boolValue":false}}'
_ENTRY_ID = b'{"key":"pi.entry.id","value":{"stringValue":'
_RESPONSE_ID = b'{"key":"gen_ai.response.id","value":{"stringValue":'
_CALL_ID = b'{"key":"gen_ai.tool.call.id","value":{"stringValue":'
_RESULT_ID = b'{"key":"pi.tool.result.entry_id","value":{"stringValue":'
_RESULT_MISSING = _text("pi.tool.result", "missing")
_TOOL_ERROR = _text("error.type", "tool_error")
_USAGE = (b'{"key":"gen_ai.usage.input_tokens","value":{"intValue":"%d"}},'
          b'{"key":"gen_ai.usage.output_tokens","value":{"intValue":"%d"}},'
          b'{"key":"gen_ai.usage.cache_read.input_tokens","value":{"intValue":"%d"}},'
          b'{"key":"gen_ai.usage.cache_creation.input_tokens","value":{"intValue":"%d"}},'
          b'{"key":"pi.usage.input","value":{"intValue":"%d"}},'
          b'{"key":"pi.usage.output","value":{"intValue":"%d"}},'
          b'{"key":"pi.usage.cache_read","value":{"intValue":"%d"}},'
          b'{"key":"pi.usage.cache_write","value":{"intValue":"%d"}},'
          b'{"key":"pi.usage.total_tokens","value":{"intValue":"%d"}},'
          b'{"key":"pi.cost.usd","value":{"doubleValue":%s}},%s')
"""mapping.py's usage attributes, in its order (cost source last, then `pi.usage.counted` where false)."""
_SPAN = (b'%s%s","name":%s,"kind":%d,"startTimeUnixNano":"%d","endTimeUnixNano":"%d","attributes":[%s],'
         b'"parentSpanId":"%s","status":%s}')
_NO_STATUS = b"{}"
_ERROR_STATUS = b'{"code":2}'
_names: dict[str, bytes] = {}


def _name(name: str) -> bytes:
    encoded = _names.get(name)
    if encoded is None:
        encoded = _names[name] = orjson.dumps(name)
    return encoded


_NUMBERS = (int, float)
_ENTRY_TIMESTAMP = ENTRY_TIMESTAMP.fullmatch


def _usage_attributes(input_tokens: int, output_tokens: int, cache_read: int, cache_write: int, total: int,
                      cost: float, source: str, counted: bool, kind: str = MESSAGE_KIND) -> bytes:
    """mapping.py's usage attributes of a counted message or usage entry."""
    tail = _text("pi.cost.source", source)
    if not counted:
        tail += b"," + _NOT_COUNTED
    return _USAGE % (input_tokens + cache_read + cache_write, output_tokens, cache_read, cache_write, input_tokens,
                     output_tokens, cache_read, cache_write, total, double_json(as_double(cost)), tail)


_chat_heads: dict[tuple[Any, ...], tuple[bytes, bytes]] = {}
_chat_tails: dict[tuple[Any, ...], bytes] = {}
_tools: dict[str, tuple[bytes, bytes]] = {}


def _chat_head(provider: str | None, model: str, response_model: str | None) -> tuple[bytes, bytes]:
    """(a chat span's attributes from the provider to the response model, its name), encoded once per run."""
    pieces = []
    if provider is not None:
        pieces.append(_text("gen_ai.provider.name", PROVIDER_NAMES.get(provider, provider)))
        pieces.append(_text("pi.provider", provider))
    if model:
        pieces.append(_text("gen_ai.request.model", model))
    if response_model is not None or model:
        pieces.append(_text("gen_ai.response.model", response_model if response_model is not None else model))
    return b",".join(pieces), _name(f"chat {model}".rstrip())


def _chat_tail(stop: str | None, api: str | None, level: str | None) -> bytes:
    """A chat span's attributes from the finish reason to the thinking level, encoded once per run."""
    pieces = []
    if stop is not None:
        pieces.append(b'{"key":"gen_ai.response.finish_reasons","value":{"arrayValue":{"values":'
                      b'[{"stringValue":%s}]}}}' % orjson.dumps(stop))
    if api is not None:
        pieces.append(_text("pi.api", api))
    if level is not None:
        pieces.append(_text("pi.thinking_level", level))
    return b",".join(pieces)


class _Walk:
    """One session's walk (mapping._Builder's, for a trace without content), writing spans as it goes."""

    def __init__(self, header: _Header, path: list[_Entry], options: TraceOptions) -> None:
        session_id: str = header.id
        self.session_id = session_id
        self.trace_id = trace_id(session_id)
        self.head = b'{"traceId":"%s","spanId":"' % self.trace_id.encode()
        self.label = session_id.encode("utf-8", "surrogatepass")
        self.root_id = self.span_id(b"\x00session")
        self.root_bytes = self.root_id.encode()
        self.conversation = _unique(b'{"key":"gen_ai.conversation.id","value":{"stringValue":', session_id)
        self.counter = UsageCounter("UTC", options.cost, options.spending)
        self.spans: list[Any] = []
        """(id, encoded span) pairs, and tool spans still open (lists: see `tool_call`), in the order made."""
        self.events: list[Event] = []
        self.tools: dict[str, list[Any]] = {}
        self.thinking: str | None = None
        self.first: int | None = iso_nanos(header.timestamp)
        self.last: int | None = self.first
        self.start: int | None = None
        self.end: int | None = None
        self.active = {id(entry) for entry in path}

    def span_id(self, label: bytes) -> str:
        return labelled_span_id(self.label + label)

    def spanned(self, start: int, end: int) -> None:
        if self.start is None or start < self.start:
            self.start = start
        if self.end is None or end > self.end:
            self.end = end

    def marked(self, entry: _Entry, pieces: list[bytes]) -> None:
        pieces.append(_unique(_ENTRY_ID, entry.id))
        if id(entry) not in self.active:
            pieces.append(_ABANDONED)

    def event(self, name: str, entry: _Entry, now: int, attributes: dict[str, Any]) -> None:
        attributes["pi.entry.id"] = entry.id
        if id(entry) not in self.active:
            attributes["pi.branch.abandoned"] = True
        self.events.append(Event(name, now, attributes))

    def run(self, entries: list[_Entry]) -> None:
        """The walk. Requests, tool calls and results, most of a session, are handled inline with the names they
        use bound locally (a method call and an attribute lookup per span were a third of the work); the rest
        goes to `other`."""
        now = self.first
        first = self.first
        last = self.last
        low = high = None  # the earliest start and the latest end of the spans made
        utc_minutes = UTC_MINUTES
        active = self.active
        tools = self.tools
        spans = self.spans
        append = spans.append
        conversation = self.conversation
        head = self.head
        root = self.root_bytes
        label = self.label
        usage_of = self.usage
        dumps = orjson.dumps
        for entry in entries:
            stamp = entry.timestamp
            # iso_nanos, with Pi's own form (`2026-01-01T00:00:00.000Z`) read here
            if type(stamp) is str and len(stamp) == 24 and stamp[23] == "Z" and stamp[19] == "." \
                    and stamp[16] == ":" and (minute := utc_minutes.get(stamp[:16])) is not None \
                    and (digits := stamp[17:19] + stamp[20:23]).isdigit() and digits.isascii() \
                    and digits < "60000":
                now = minute + int(digits) * 1_000_000
            else:
                nanos = iso_nanos(stamp)
                if nanos is not None:
                    now = nanos
                elif now is None:
                    continue
            if first is None or now < first:
                first = now
            if last is None or now > last:
                last = now
            if type(entry) is not _Message:
                self.first, self.last = first, last
                self.other(entry, now)
                continue
            message: Any = entry.message  # type: ignore[attr-defined]
            role = type(message)
            if role is _ToolResult:
                call_id = message.toolCallId
                span = tools.get(call_id) if type(call_id) is str else None
                if span is None or span[5] is not None:
                    continue
                span[5] = entry.id
                if now > span[2]:
                    span[3] = now
                if high is None or span[3] > high:
                    high = span[3]
                if message.isError is True:
                    span[6] = True
                continue
            if role is not _Assistant:
                if role is _System:
                    self.other(entry, now)
                continue
            # A request: its chat span (mapping._Builder.chat), then a span per tool call (.tool_call).
            entry_id = entry.id
            abandoned = id(entry) not in active
            encoded_entry = b'%s%s}}' % (_ENTRY_ID, dumps(entry_id))
            provider = message.provider
            model = message.model
            response_model = message.responseModel
            key = (provider if type(provider) is str else None, model if type(model) is str else "",
                   response_model if type(response_model) is str else None)
            chat = _chat_heads.get(key)
            if chat is None:
                chat = _chat_heads[key] = _chat_head(*key)
            pieces = [_OP_CHAT, conversation]
            if chat[0]:
                pieces.append(chat[0])
            response_id = message.responseId
            if type(response_id) is str:
                pieces.append(b'%s%s}}' % (_RESPONSE_ID, dumps(response_id)))
            stop = message.stopReason
            level = message.thinkingLevel
            api = message.api
            tail_key = (stop if type(stop) is str else None, api if type(api) is str else None,
                        level if type(level) is str else self.thinking)
            tail = _chat_tails.get(tail_key)
            if tail is None:
                tail = _chat_tails[tail_key] = _chat_tail(*tail_key)
            if tail:
                pieces.append(tail)
            if type(message.usage) is dict:
                counted = usage_of(entry, message.usage, provider, model)
                if counted is not None:
                    pieces.append(counted)
            pieces.append(encoded_entry)
            if abandoned:
                pieces.append(_ABANDONED)
            status = _NO_STATUS
            if stop in FAILED_STOPS:
                status = _ERROR_STATUS
                pieces.append(_text("error.type", stop))
            start = message.timestamp
            if type(start) is int and 0 < start <= 1e15:
                start *= 1_000_000
            elif type(start) is float and start == start and 0 < start <= 1e15:
                start = int(round(start * 1_000_000))
            else:
                start = now
            if start > now:
                start = now
            if low is None or start < low:
                low = start
            if high is None or now > high:
                high = now
            entry_label = label + b"\x00entry\x00" + entry_id.encode("utf-8", "surrogatepass")
            span_id = labelled_span_id(entry_label)
            append((span_id, _SPAN % (head, span_id.encode(), chat[1], 3, start, now, b",".join(pieces), root,
                                      status)))
            content = message.content
            if type(content) is not list:
                continue
            tool_label = label + b"\x00tool\x00" + entry_id.encode("utf-8", "surrogatepass") + b"\x00"
            for position, block in enumerate(content):
                if block.type != "toolCall":
                    continue
                call_id = block.id
                name = block.name if type(block.name) is str else ""
                tool = _tools.get(name)
                if tool is None:
                    tool = _tools[name] = (_text("gen_ai.tool.name", name) + b"," + _TOOL_TYPE,
                                           _name(f"execute_tool {name}".rstrip()))
                if type(call_id) is str:
                    pieces = [_OP_TOOL, conversation, tool[0], b'%s%s}}' % (_CALL_ID, dumps(call_id)),
                              encoded_entry]
                    span_id = labelled_span_id(tool_label + call_id.encode("utf-8", "surrogatepass"))
                else:
                    pieces = [_OP_TOOL, conversation, tool[0], encoded_entry]
                    span_id = labelled_span_id(tool_label + f"#{position}".encode())
                if abandoned:
                    pieces.append(_ABANDONED)
                # An open tool span: [id, name, start, end, attribute pieces, result entry id, failed,
                # awaited]; only the first call of an id awaits a result (mapping.py: the others, and calls
                # without an id, are left without the mark of a missing result).
                span = [span_id, tool[1], now, now, pieces, None, False, False]
                append(span)
                if type(call_id) is str and call_id not in tools:
                    tools[call_id] = span
                    span[7] = True
        self.first, self.last = first, last
        if low is not None:
            self.spanned(low, high)  # type: ignore[arg-type]

    def other(self, entry: _Entry, now: int) -> None:
        """An entry other than a request or a tool result: an event on the session's span, or a usage span."""
        kind = type(entry)
        if kind is _Message:
            message = entry.message  # type: ignore[attr-defined]
            attributes: dict[str, Any] = {}
            if message.sections is not None:
                attributes["pi.system.sections"] = list(message.sections)
            self.event("pi.system_prompt", entry, now, attributes)
        elif kind is _ModelChange:
            self.event("pi.model_change", entry, now, {
                "pi.provider": str(entry.provider),  # type: ignore[attr-defined]
                "gen_ai.request.model": str(entry.modelId)})  # type: ignore[attr-defined]
        elif kind is _ThinkingChange:
            level = entry.thinkingLevel  # type: ignore[attr-defined]
            self.thinking = level if isinstance(level, str) else None
            self.event("pi.thinking_level_change", entry, now, {"pi.thinking_level": str(level)})
        elif kind is _Compaction:
            attributes = {"pi.compaction.first_kept_entry_id": str(entry.firstKeptEntryId)}  # type: ignore[attr-defined]
            tokens = entry.tokensBefore  # type: ignore[attr-defined]
            if type(tokens) is int or (type(tokens) is float and math.isfinite(tokens)):
                attributes["pi.compaction.tokens_before"] = int(tokens)
            self.event("pi.compaction", entry, now, attributes)
        elif kind is _BranchSummary:
            self.event("pi.branch_summary", entry, now,
                       {"pi.branch_summary.from_id": str(entry.fromId)})  # type: ignore[attr-defined]
        elif kind is _ContextEdit:
            self.event("pi.context_edit", entry, now,
                       {"pi.context_edit.target_id": str(entry.targetId)})  # type: ignore[attr-defined]
        elif kind is _UsageEntry:
            self.spending(entry, now)  # type: ignore[arg-type]

    def usage(self, entry: _Entry, usage: dict[str, Any], provider: Any, model: Any) -> bytes | None:
        """The usage attributes of an assistant message, as `usage` counts it: counter.usage_of's checks on the
        fields already read, then counter.spent_usage; Pi's usual usage object (integer counts, a stored cost
        other than 0 that the cost mode takes as it is and no provider billed) by those rules inlined, as
        usage's own scan inlines them (a third of the walk was this call)."""
        stamp = entry.timestamp
        get = usage.get
        input_tokens = get("input")
        output_tokens = get("output")
        if type(input_tokens) not in _NUMBERS or type(output_tokens) not in _NUMBERS \
                or type(stamp) is not str or _ENTRY_TIMESTAMP(stamp) is None:
            return None
        cache_read = get("cacheRead", 0)
        cache_write = get("cacheWrite", 0)
        total = get("totalTokens")
        cost = get("cost")
        counter = self.counter
        if type(input_tokens) is int and type(output_tokens) is int and type(cache_read) is int \
                and type(cache_write) is int and type(total) is int and type(cost) is dict \
                and 0 <= input_tokens <= WIDE and 0 <= output_tokens <= WIDE and 0 <= cache_read <= WIDE \
                and 0 <= cache_write <= WIDE and 0 <= total <= WIDE and "cacheWrite1h" not in usage \
                and type(stored := cost.get("total")) is float and stored != 0 and not counter.recompute_all \
                and not (counter.provider_billed and cost.get("totalFromProvider") is True):
            key = (stamp.encode(), total)
            counted = key not in counter.seen
            if counted:
                counter.seen.add(key)
            if counter.day_of(stamp) is None:
                return None
            return _usage_attributes(input_tokens, output_tokens, cache_read, cache_write, total, stored, "stored",
                                     counted)
        spent = spent_usage(counter, stamp, None, provider, model, usage)
        return None if spent is None else _usage_attributes(*spent)

    def entry_usage(self, entry: _UsageEntry) -> bytes | None:
        """The usage attributes of a Pi 1.x usage entry where the version counts it (rare: by way of a minimal
        entry through counter.message_usage)."""
        counted = message_usage(self.counter, {
            "type": "usage", "timestamp": entry.timestamp, "usage": entry.usage, "kind": entry.kind,
            "provider": entry.provider, "model": entry.model})
        return None if counted is None else _usage_attributes(
            counted.input, counted.output, counted.cacheRead, counted.cacheWrite, counted.totalTokens, counted.cost,
            counted.costSource, counted.counted)

    def add(self, span_id: str, span: bytes) -> None:
        self.spans.append((span_id, span))

    def spending(self, entry: _UsageEntry, now: int) -> None:
        usage = self.entry_usage(entry)
        if usage is None:
            return
        kind = entry.kind
        kind = kind if isinstance(kind, str) and kind and kind != MESSAGE_KIND else "usage"
        model = entry.model
        provider = entry.provider
        pieces = [usage, _text("gen_ai.operation.name", kind), self.conversation, _text("pi.entry.type", "usage")]
        if type(provider) is str:
            pieces.append(_text("gen_ai.provider.name", PROVIDER_NAMES.get(provider, provider)))
            pieces.append(_text("pi.provider", provider))
        if type(model) is str:
            pieces.append(_text("gen_ai.request.model", model))
        self.marked(entry, pieces)
        span_id = self.span_id(b"\x00entry\x00" + entry.id.encode("utf-8", "surrogatepass"))
        self.spanned(now, now)
        self.add(span_id, _SPAN % (self.head, span_id.encode(), _name(f"{kind} {model or ''}".rstrip()), 3, now, now,
                                   b",".join(pieces), self.root_bytes, _NO_STATUS))

    def closed(self, span: list[Any]) -> bytes:
        """An open tool span's bytes, now that its result is known (or known missing)."""
        span_id, name, start, end, pieces, result, failed, awaited = span
        if result is None:
            if awaited:
                pieces.append(_RESULT_MISSING)
        else:
            pieces.append(_unique(_RESULT_ID, result))
            if failed:
                pieces.append(_TOOL_ERROR)
        return _SPAN % (self.head, span_id.encode(), name, KIND_INTERNAL, start, end, b",".join(pieces),
                        self.root_bytes, _ERROR_STATUS if failed else _NO_STATUS)

    def root(self, header: _Header, options: TraceOptions, path: list[_Entry]) -> Span:
        start = (self.first if self.start is None else min(self.first, self.start)) \
            if self.first is not None else 0
        end = self.last or start
        if self.end is not None and self.end > end:
            end = self.end
        attributes: dict[str, Any] = {
            "gen_ai.operation.name": "invoke_agent",
            "gen_ai.agent.name": AGENT_NAME,
            "gen_ai.conversation.id": self.session_id,
            "pi.branches": options.branches,
            "pi.session.version": header.version,
        }
        if path:
            attributes["pi.session.leaf_id"] = path[-1].id
        return Span(self.root_id, None, f"invoke_agent {AGENT_NAME}", KIND_INTERNAL, start, end, attributes,
                    self.events)


def direct_resource_spans(data: bytes, options: TraceOptions, version: str, service: str,
                          sent: Collection[str] = ()) -> tuple[bytes | None, tuple[str, ...], int] | None:
    """(the session's `resourceSpans` element, None when no span is new; the ids of its spans, tool calls without
    a result left out; how many spans the element holds), or None when this path does not take the file."""
    if options.content != "none" or options.since is not None:
        return None
    if max(len(_pairs), len(_names), len(_chat_heads), len(_chat_tails), len(_tools)) > _CACHE_LIMIT:
        for cache in (_pairs, _names, _chat_heads, _chat_tails, _tools):
            cache.clear()  # (a corpus of many distinct models or tool names)
    read = _entries(data)
    if read is None:
        return None
    header, entries, path = read
    try:
        walk = _Walk(header, path, options)
        walk.run(path if options.branches == "active" else entries)
        root = walk.root(header, options, path)
        ids = [root.span_id]
        spans = []
        if root.span_id not in sent:
            spans.append(encode_span(walk.head, root))
        for span in walk.spans:
            if type(span) is list:
                if span[5] is not None or not span[7]:
                    ids.append(span[0])
                if span[0] not in sent:
                    spans.append(walk.closed(span))
            else:
                ids.append(span[0])
                if span[0] not in sent:
                    spans.append(span[1])
        if not spans:
            return None, tuple(ids), 0
        return b"".join((resource_head(version, service), b",".join(spans), b"]}]}")), tuple(ids), len(spans)
    except TypeError:  # orjson.JSONEncodeError: a lone surrogate (the general path writes it well formed)
        return None
