"""One session's entries as GenAI spans: the session an `invoke_agent` span, each assistant message a `chat` span,
each tool call an `execute_tool` span, and the moments that are no request (model and thinking changes,
compactions, branch summaries, Pi 1.x system prompts and context edits) events on the session's span.

Times are the session's own: an entry's ISO `timestamp` is when Pi appended it, so a chat span ends there and
starts at the message's own `timestamp` (when Pi began the request), and a tool call runs from its assistant
message's entry to its result's. Tokens and cost are `usage`'s (usage/counter.py), so that a back end's sums equal
`pi-tools usage` over the same files (`--branches all` against `usage --scope all`, `active` against `--scope
active`). The mapping table is docs/trace.md's.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from datetime import datetime
from typing import TYPE_CHECKING, Any

import orjson

from pi_tools.trace.content import Content
from pi_tools.trace.ids import span_id, trace_id
from pi_tools.trace.spans import (
    KIND_CLIENT,
    KIND_INTERNAL,
    STATUS_ERROR,
    Attributes,
    Event,
    SessionTrace,
    Span,
)
from pi_tools.usage.counter import MESSAGE_KIND, UsageCounter, message_usage

if TYPE_CHECKING:
    from pi_tools.session.spending import SpendingRules
    from pi_tools.session.tree import SessionTree

BRANCHES = ("active", "all")
AGENT_NAME = "pi"

PROVIDER_NAMES = {
    "anthropic": "anthropic",
    "openai": "openai",
    "google": "gcp.gemini",
    "google-gemini-cli": "gcp.gemini",
    "amazon-bedrock": "aws.bedrock",
    "mistral": "mistral_ai",
    "groq": "groq",
    "xai": "x_ai",
    "deepseek": "deepseek",
    "perplexity": "perplexity",
    "cohere": "cohere",
}
"""Pi's provider ids whose GenAI `gen_ai.provider.name` is a well-known value of the conventions; any other
provider is sent under its Pi id (the conventions allow custom values). `pi.provider` always holds Pi's id.
Pi's Vertex and Azure provider ids are also API names, which only providers/ may spell (tests/architecture): they
go under their Pi ids."""

FAILED_STOPS = ("error", "aborted")
"""Assistant stop reasons that end a request in error (the span's status is ERROR, `error.type` the reason)."""


@dataclass(frozen=True)
class TraceOptions:
    """What one run exports: `content` (none, redacted, full), `branches` (active, all), the cost mode, the Pi
    version's spending rules (usage's) and `since`, travelling with each file's job to the workers."""

    content: str = "none"
    branches: str = "active"
    cost: str = "auto"
    spending: SpendingRules | None = None
    since: int | None = None
    """`--since`: Unix nanoseconds; only spans that start then or later (and events then or later) are exported,
    under their session's span (`since_then`)."""


_MINUTES: dict[str, int] = {}
"""Unix seconds per timestamp minute and zone: a session's entries share a few minutes, and parsing a date is
most of what reading a timestamp costs."""
_MINUTES_LIMIT = 100_000
UTC_MINUTES: dict[str, int] = {}
"""Unix nanoseconds per `YYYY-MM-DDTHH:MM` of the UTC stamps Pi writes (filled by the general reading)."""


def iso_nanos(stamp: Any) -> int | None:
    """Unix nanoseconds of an ISO 8601 timestamp as Pi writes entries' (None for anything else)."""
    if type(stamp) is not str:
        return None
    if len(stamp) == 24 and stamp[23] == "Z" and stamp[19] == ".":
        # Pi's own form (`2026-01-01T00:00:00.000Z`), most of a session's stamps: the general reading below,
        # unrolled (seconds and milliseconds read as one number: `digits < "60000"` is seconds <= 59).
        minute = UTC_MINUTES.get(stamp[:16])
        if minute is not None and stamp[16] == ":":
            digits = stamp[17:19] + stamp[20:23]
            if digits.isdigit() and digits.isascii() and digits < "60000":
                return minute + int(digits) * 1_000_000
    if len(stamp) < 20 or stamp[16] != ":":
        return None
    seconds = stamp[17:19]
    if not (seconds.isascii() and seconds.isdigit()) or seconds > "59":
        return None
    rest = stamp[19:]
    fraction = 0
    if rest[:1] == ".":
        end = 1
        while end < len(rest) and rest[end] in "0123456789":
            end += 1
        if end == 1:
            return None
        # The fraction from the text: no float rounding of nanoseconds.
        fraction = int((rest[1:end] + "000000000")[:9])
        rest = rest[end:]
    key = stamp[:16] + rest
    minute = _MINUTES.get(key)
    if minute is None:
        try:
            moment = datetime.fromisoformat(stamp[:16] + ":00" + rest)
        except ValueError:
            return None
        if moment.tzinfo is None:
            return None
        if len(_MINUTES) > _MINUTES_LIMIT:
            _MINUTES.clear()  # (a worker's run over a long corpus: some 350 minutes per generated session)
            UTC_MINUTES.clear()
        minute = _MINUTES[key] = int(moment.timestamp())
        if rest == "Z":
            UTC_MINUTES[stamp[:16]] = minute * 1_000_000_000
    return (minute + int(seconds)) * 1_000_000_000 + fraction


def as_double(value: int | float) -> float:
    """A cost as a double attribute: an integer too large for a double is infinite, as JSON.parse reads it."""
    try:
        return float(value)
    except OverflowError:
        return math.inf


def _millis_nanos(value: Any) -> int | None:
    if type(value) not in (int, float) or value != value or value <= 0 or value > 1e15:
        return None
    return int(value) * 1_000_000 if type(value) is int else int(round(value * 1_000_000))


def _text_of(content: Any) -> str:
    """The text blocks of a message's content (a string, or a list of blocks) joined, for status messages."""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "\n".join(block.get("text", "") for block in content
                         if isinstance(block, dict) and isinstance(block.get("text"), str))
    return ""


def _parts(content: Any) -> list[dict[str, Any]]:
    """A message's content as the conventions' message parts (text, reasoning, tool_call, other blocks by type)."""
    if isinstance(content, str):
        return [{"type": "text", "content": content}]
    parts: list[dict[str, Any]] = []
    if not isinstance(content, list):
        return parts
    for block in content:
        if not isinstance(block, dict):
            continue
        kind = block.get("type")
        if kind == "text":
            parts.append({"type": "text", "content": block.get("text")})
        elif kind == "thinking":
            parts.append({"type": "reasoning", "content": block.get("thinking")})
        elif kind == "toolCall":
            parts.append({"type": "tool_call", "id": block.get("id"), "name": block.get("name"),
                          "arguments": block.get("arguments")})
        elif kind == "image":
            parts.append({"type": "blob", "modality": "image", "mime_type": block.get("mimeType")})
        else:
            parts.append({"type": str(kind)})
    return parts


def _input_message(message: dict[str, Any]) -> dict[str, Any] | None:
    """A non-assistant message as an input message of the conventions (None for roles that are no input)."""
    role = message.get("role")
    if role == "user":
        return {"role": "user", "parts": _parts(message.get("content"))}
    if role == "toolResult":
        return {"role": "tool", "parts": [{"type": "tool_call_response", "id": message.get("toolCallId"),
                                           "response": _text_of(message.get("content"))}]}
    if role == "bashExecution":
        return {"role": "user", "parts": [{"type": "text", "content": f"$ {message.get('command')}\n"
                                                                      f"{message.get('output')}"}]}
    if role in ("custom", "branchSummary", "compactionSummary"):
        return {"role": "user", "parts": _parts(message.get("content", message.get("summary")))}
    return None


def _json(value: Any) -> str:
    """A value as JSON text for an attribute. What orjson refuses (a lone surrogate, which UTF-8 cannot hold, or
    nesting past its 255 levels) is written as JSON.stringify writes it: surrogates escaped as `\\udXXX`, any
    depth."""
    try:
        return orjson.dumps(value, option=orjson.OPT_NON_STR_KEYS).decode()
    except TypeError:  # orjson.JSONEncodeError
        from pi_tools.js.json_stringify import stringify_any_depth

        return stringify_any_depth(value)


class _Builder:
    """The walk over one session's exported entries, building the spans as it goes."""

    def __init__(self, tree: SessionTree, options: TraceOptions, content: Content) -> None:
        self.tree = tree
        self.options = options
        self.content = content
        header = tree.header or {}
        self.session_id = header["id"] if isinstance(header.get("id"), str) else tree.source
        self.trace_id = trace_id(self.session_id)
        self.root_id = span_id(self.session_id, "session")
        self.counter = UsageCounter("UTC", options.cost, options.spending)
        self.spans: list[Span] = []
        self.events: list[Event] = []
        self.tools: dict[str, Span] = {}
        self.thinking: str | None = None
        self.position = 0
        """The entry's place in the walk: the id of an entry without one of its own (Pi's tree indexes none)."""
        self.first: int | None = iso_nanos(header.get("timestamp"))
        self.last: int | None = self.first
        self.path = tree.path(tree.leaf_id)
        self.active = {id(entry) for entry in self.path}

    def run(self) -> SessionTrace:
        entries = self.path if self.options.branches == "active" else self.tree.entries
        now = self.first
        for self.position, entry in enumerate(entries):
            if not isinstance(entry, dict):
                continue
            stamp = iso_nanos(entry.get("timestamp"))
            now = stamp if stamp is not None else now
            if now is None:
                continue
            if self.first is None or now < self.first:
                self.first = now
            if self.last is None or now > self.last:
                self.last = now
            self.entry(entry, now)
        for tool in self.tools.values():
            if "pi.tool.result.entry_id" not in tool.attributes:
                tool.attributes["pi.tool.result"] = "missing"
        # The session's span covers its children: a request's own start (its message's timestamp) can precede
        # the header's time (by 5 ms in fixtures/realworld/badlogic__pi-mono__session.jsonl), and back ends
        # draw a child outside its parent badly.
        start = min([self.first, *(span.start for span in self.spans)]) if self.first is not None else 0
        end = max([self.last or start, *(span.end for span in self.spans)])
        root = Span(self.root_id, None, f"invoke_agent {AGENT_NAME}", KIND_INTERNAL, start, end,
                    self.root_attributes(), self.events)
        return SessionTrace(self.tree.source, self.session_id, self.trace_id, [root, *self.spans])

    def root_attributes(self) -> Attributes:
        header = self.tree.header or {}
        attributes: Attributes = {
            "gen_ai.operation.name": "invoke_agent",
            "gen_ai.agent.name": AGENT_NAME,
            "gen_ai.conversation.id": self.session_id,
            "pi.branches": self.options.branches,
        }
        version = header.get("version")
        if type(version) is int:
            attributes["pi.session.version"] = version
        leaf = self.path[-1].get("id") if self.path and isinstance(self.path[-1], dict) else None
        if isinstance(leaf, str):
            attributes["pi.session.leaf_id"] = leaf
        cwd = self.content.text(header.get("cwd"))
        if cwd is not None:
            attributes["pi.session.cwd"] = cwd
        return attributes

    def marked(self, entry: dict[str, Any], attributes: Attributes) -> Attributes:
        """The entry's id, and on an abandoned branch (`--branches all`) the mark saying so."""
        entry_id = entry.get("id")
        if isinstance(entry_id, str):
            attributes["pi.entry.id"] = entry_id
        if id(entry) not in self.active:
            attributes["pi.branch.abandoned"] = True
        return attributes

    def event(self, name: str, entry: dict[str, Any], now: int, attributes: Attributes) -> None:
        self.events.append(Event(name, now, self.marked(entry, attributes)))

    def entry(self, entry: dict[str, Any], now: int) -> None:
        kind = entry.get("type")
        if kind == "message" or kind is None:
            message = entry.get("message")
            if not isinstance(message, dict):
                return
            role = message.get("role")
            if role == "assistant":
                self.chat(entry, message, now)
            elif role == "toolResult":
                self.tool_result(entry, message, now)
            elif role == "system":
                attributes: Attributes = {}
                sections = message.get("sections")
                if isinstance(sections, dict):
                    attributes["pi.system.sections"] = [str(key) for key in sections]
                text = self.content.value(message.get("content"))
                if text is not None:
                    attributes["pi.system.content"] = text if isinstance(text, str) else _json(text)
                self.event("pi.system_prompt", entry, now, attributes)
        elif kind == "model_change":
            attributes = {"pi.provider": str(entry.get("provider")), "gen_ai.request.model": str(entry.get("modelId"))}
            self.event("pi.model_change", entry, now, attributes)
        elif kind == "thinking_level_change":
            level = entry.get("thinkingLevel")
            self.thinking = level if isinstance(level, str) else None
            self.event("pi.thinking_level_change", entry, now, {"pi.thinking_level": str(level)})
        elif kind == "compaction":
            attributes = {"pi.compaction.first_kept_entry_id": str(entry.get("firstKeptEntryId"))}
            tokens = entry.get("tokensBefore")
            if type(tokens) is int or (type(tokens) is float and math.isfinite(tokens)):
                attributes["pi.compaction.tokens_before"] = int(tokens)  # (1e400 reads as infinity: left out)
            summary = self.content.text(entry.get("summary"))
            if summary is not None:
                attributes["pi.compaction.summary"] = summary
            self.event("pi.compaction", entry, now, attributes)
        elif kind == "branch_summary":
            attributes = {"pi.branch_summary.from_id": str(entry.get("fromId"))}
            summary = self.content.text(entry.get("summary"))
            if summary is not None:
                attributes["pi.branch_summary.summary"] = summary
            self.event("pi.branch_summary", entry, now, attributes)
        elif kind == "context_edit":
            attributes = {"pi.context_edit.target_id": str(entry.get("targetId"))}
            replacement = self.content.value(entry.get("replacement"))
            if replacement is not None:
                attributes["pi.context_edit.replacement"] = _json(replacement)
            self.event("pi.context_edit", entry, now, attributes)
        else:
            self.spending(entry, now)

    def usage_attributes(self, entry: dict[str, Any], attributes: Attributes) -> None:
        """Tokens and cost as `usage` counts them: GenAI's (input including the cache) and Pi's own buckets."""
        counted = message_usage(self.counter, entry)
        if counted is None:
            return
        attributes["gen_ai.usage.input_tokens"] = counted.input + counted.cacheRead + counted.cacheWrite
        attributes["gen_ai.usage.output_tokens"] = counted.output
        attributes["gen_ai.usage.cache_read.input_tokens"] = counted.cacheRead
        attributes["gen_ai.usage.cache_creation.input_tokens"] = counted.cacheWrite
        attributes["pi.usage.input"] = counted.input
        attributes["pi.usage.output"] = counted.output
        attributes["pi.usage.cache_read"] = counted.cacheRead
        attributes["pi.usage.cache_write"] = counted.cacheWrite
        attributes["pi.usage.total_tokens"] = counted.totalTokens
        attributes["pi.cost.usd"] = as_double(counted.cost)
        attributes["pi.cost.source"] = counted.costSource
        if not counted.counted:
            attributes["pi.usage.counted"] = False

    def chat(self, entry: dict[str, Any], message: dict[str, Any], now: int) -> None:
        provider = message.get("provider")
        model = message.get("model")
        model_name = model if isinstance(model, str) else ""
        attributes: Attributes = {
            "gen_ai.operation.name": "chat",
            "gen_ai.conversation.id": self.session_id,
        }
        if isinstance(provider, str):
            attributes["gen_ai.provider.name"] = PROVIDER_NAMES.get(provider, provider)
            attributes["pi.provider"] = provider
        if model_name:
            attributes["gen_ai.request.model"] = model_name
        response_model = message.get("responseModel")
        if isinstance(response_model, str) or model_name:
            attributes["gen_ai.response.model"] = response_model if isinstance(response_model, str) else model_name
        if isinstance(message.get("responseId"), str):
            attributes["gen_ai.response.id"] = message["responseId"]
        stop = message.get("stopReason")
        if isinstance(stop, str):
            attributes["gen_ai.response.finish_reasons"] = [stop]
        if isinstance(message.get("api"), str):
            attributes["pi.api"] = message["api"]
        level = message.get("thinkingLevel")
        level = level if isinstance(level, str) else self.thinking
        if level is not None:
            attributes["pi.thinking_level"] = level
        self.usage_attributes(entry, attributes)
        start = _millis_nanos(message.get("timestamp"))
        if start is None or start > now:
            start = now
        span = Span(self.chat_id(entry), self.root_id, f"chat {model_name}".rstrip(), KIND_CLIENT, start, now,
                    self.marked(entry, attributes))
        if stop in FAILED_STOPS:
            span.status = STATUS_ERROR
            attributes["error.type"] = stop
            span.status_message = self.content.text(message.get("errorMessage")) or ""
        if self.content.enabled:
            output = {"role": "assistant", "parts": _parts(message.get("content"))}
            if isinstance(stop, str):
                output["finish_reason"] = stop
            attributes["gen_ai.output.messages"] = _json(self.content.value([output]))
            attributes["gen_ai.input.messages"] = _json(self.content.value(self.inputs_before(entry)))
        self.spans.append(span)
        content = message.get("content")
        if isinstance(content, list):
            for position, block in enumerate(content):
                if isinstance(block, dict) and block.get("type") == "toolCall":
                    self.tool_call(entry, block, position, now)

    def chat_id(self, entry: dict[str, Any]) -> str:
        entry_id = entry.get("id")
        return span_id(self.session_id, "entry", entry_id if isinstance(entry_id, str) else f"#{self.position}")

    def inputs_before(self, entry: dict[str, Any]) -> list[dict[str, Any]]:
        """The messages since the previous assistant message on the entry's own branch: what this request added
        to the conversation (the whole context would repeat the session in every span)."""
        found: list[dict[str, Any]] = []
        by_id = self.tree.by_id
        parent = entry.get("parentId")
        steps = 0
        while isinstance(parent, str) and parent in by_id and steps < len(self.tree.entries):
            steps += 1
            current = by_id[parent]
            if not isinstance(current, dict):
                break
            message = current.get("message") if current.get("type") == "message" else None
            if isinstance(message, dict):
                if message.get("role") == "assistant":
                    break
                converted = _input_message(message)
                if converted is not None:
                    found.append(converted)
            parent = current.get("parentId")
        found.reverse()
        return found

    def tool_call(self, entry: dict[str, Any], block: dict[str, Any], position: int, now: int) -> None:
        call_id = block.get("id")
        name = block.get("name")
        name = name if isinstance(name, str) else ""
        entry_id = entry.get("id")
        attributes: Attributes = {
            "gen_ai.operation.name": "execute_tool",
            "gen_ai.conversation.id": self.session_id,
            "gen_ai.tool.name": name,
            "gen_ai.tool.type": "function",
        }
        if isinstance(call_id, str):
            attributes["gen_ai.tool.call.id"] = call_id
        arguments = self.content.value(block.get("arguments"))
        if arguments is not None:
            attributes["gen_ai.tool.call.arguments"] = _json(arguments)
        key = call_id if isinstance(call_id, str) else f"#{position}"  # a call without an id: its place
        span = Span(span_id(self.session_id, "tool", entry_id if isinstance(entry_id, str) else "", key),
                    self.root_id, f"execute_tool {name}".rstrip(), KIND_INTERNAL, now, now,
                    self.marked(entry, attributes))
        self.spans.append(span)
        if isinstance(call_id, str) and call_id not in self.tools:
            self.tools[call_id] = span

    def tool_result(self, entry: dict[str, Any], message: dict[str, Any], now: int) -> None:
        call_id = message.get("toolCallId")
        span = self.tools.get(call_id) if isinstance(call_id, str) else None  # (an id that is an object: no call)
        if span is None or "pi.tool.result.entry_id" in span.attributes:
            return  # a result without its call (or a second one) is no span of its own
        entry_id = entry.get("id")
        span.attributes["pi.tool.result.entry_id"] = entry_id if isinstance(entry_id, str) else ""
        span.end = max(now, span.start)
        result = self.content.text(_text_of(message.get("content"))) if self.content.enabled else None
        if result is not None:
            span.attributes["gen_ai.tool.call.result"] = result
        if message.get("isError") is True:
            span.status = STATUS_ERROR
            span.attributes["error.type"] = "tool_error"
            span.status_message = result or ""

    def spending(self, entry: dict[str, Any], now: int) -> None:
        """A Pi 1.x usage entry (cache warming) where the version counts it: a span of its own kind, with the
        tokens and cost `usage` counts for it, so that the trace's sums are `usage`'s."""
        attributes: Attributes = {}
        self.usage_attributes(entry, attributes)
        if not attributes:
            return
        kind = entry.get("kind")
        kind = kind if isinstance(kind, str) and kind and kind != MESSAGE_KIND else "usage"
        model = entry.get("model")
        provider = entry.get("provider")
        attributes["gen_ai.operation.name"] = kind
        attributes["gen_ai.conversation.id"] = self.session_id
        attributes["pi.entry.type"] = "usage"
        if isinstance(provider, str):
            attributes["gen_ai.provider.name"] = PROVIDER_NAMES.get(provider, provider)
            attributes["pi.provider"] = provider
        if isinstance(model, str):
            attributes["gen_ai.request.model"] = model
        self.spans.append(Span(self.chat_id(entry), self.root_id, f"{kind} {model or ''}".rstrip(), KIND_CLIENT,
                               now, now, self.marked(entry, attributes)))


def session_trace(tree: SessionTree, options: TraceOptions, content: Content | None = None) -> SessionTrace:
    """The trace of one loaded session (`options.branches`: the active path, or every entry of the file)."""
    if options.branches not in BRANCHES:
        raise ValueError(f"--branches: expected one of {', '.join(BRANCHES)}, got {options.branches!r}")
    return _Builder(tree, options, content or Content(options.content)).run()

