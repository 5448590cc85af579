"""One Codex rollout as one Pi session: the walk over its records, in order, onto the session builder.

What each record becomes (docs/import.md (Codex rollouts) has the table):
- the output items of one model response (reasoning, assistant messages, function / custom-tool / local-shell
  calls) become one assistant message, closed by the response's `token_count` (its usage) or by the next input;
- tool outputs become tool results named after their call; user input becomes user messages, except the context
  Codex writes itself (environment, AGENTS.md instructions, developer messages), kept as custom entries;
- `turn_context` gives each turn's model and effort (model and thinking level changes as Pi records them);
- `compacted` becomes a Pi compaction, `thread_rolled_back` a branch (the undone turns stay on their own branch),
  `thread_name_updated` the session's name; every other item and event is a custom entry.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pi_tools.importers.builder import SessionBuilder
from pi_tools.importers.codex import items, models
from pi_tools.importers.codex.records import LAYOUTS, Record, read
from pi_tools.importers.records import read_bytes
from pi_tools.importers.report import ImportReport

if TYPE_CHECKING:
    from pi_tools.pi import PiVersion

REMOTE_SUMMARY = ("Codex compacted the conversation before this point on OpenAI's servers, which keep the summary "
                  "encrypted: it could not be imported. The messages Codex kept follow.")
"""The summary of a compaction whose own summary only OpenAI can read (what the model is told instead)."""

ECHO_EVENTS = frozenset({"user_message", "agent_message", "agent_reasoning", "agent_reasoning_raw_content",
                         "agent_reasoning_section_break", "context_compacted"})
"""Events that repeat a response item (or the `compacted` item) for Codex's UI: left out, counted."""

_CWD = re.compile(r"<environment_context>.*?<cwd>(.*?)</cwd>", re.DOTALL)

OUTPUT_ITEMS = frozenset({"reasoning", "function_call", "custom_tool_call", "local_shell_call"})
TOOL_OUTPUTS = frozenset({"function_call_output", "custom_tool_call_output"})

DEFAULT_MODELS = {
    "rollout": ("gpt-5", "no turn context names one; gpt-5 is the model family Codex has defaulted to since August 2025"),
    "rollout-bare": ("gpt-5", "Codex CLIs of that layout record none; gpt-5 was their default from August 2025"),
    "rollout-json": ("o4-mini", "the TypeScript Codex CLI records none; o4-mini was its default"),
}
"""The model a rollout that records none is stored with, and why (Pi needs a model on every answer)."""


def iso_and_ms(stamp: str | None, fallback: str) -> tuple[str, int]:
    """Pi's entry time (`toISOString()`) and message time (ms since the epoch) of a Codex time."""
    for candidate in (stamp, fallback):
        if not isinstance(candidate, str):
            continue
        try:
            moment = datetime.fromisoformat(candidate.replace("Z", "+00:00"))
        except ValueError:
            continue
        if moment.tzinfo is None:
            moment = moment.replace(tzinfo=UTC)
        ms = int(moment.timestamp() * 1000)
        iso = datetime.fromtimestamp(ms / 1000, UTC).strftime("%Y-%m-%dT%H:%M:%S.") + f"{ms % 1000:03d}Z"
        return iso, ms
    return "1970-01-01T00:00:00.000Z", 0


@dataclass
class _Group:
    """The output items of one model response, becoming one assistant message."""

    line: int
    stamp: str | None
    content: list[dict[str, Any]] = field(default_factory=list)
    usage: dict[str, Any] | None = None
    later: list[Callable[[], None]] = field(default_factory=list)


class _Walk:
    """The state of one rollout's walk: the open response, the calls awaiting output, the model in force."""

    def __init__(self, builder: SessionBuilder, report: ImportReport, route: models.Route, catalog: str,
                 session_stamp: str, model_id: str | None) -> None:
        self.builder = builder
        self.report = report
        self.route = route
        self.catalog = catalog
        self.session_stamp = session_stamp
        self.model_id = model_id
        self.effort: str | None = None
        self.group: _Group | None = None
        self.awaiting_usage: dict[str, Any] | None = None
        self.calls: dict[str, tuple[str, str]] = {}
        self.answered: set[str] = set()
        self.turn_starts: list[str | None] = []
        self.user_entries: list[str] = []
        self.emitted_model: tuple[str, str] | None = None
        self.emitted_level: str | None = None
        self.previous_total: dict[str, Any] | None = None
        self.previous_context: dict[str, Any] | None = None
        self.context_tokens = 0
        self.priced: dict[str, models.PricedModel] = {}
        self.untimed = False
        self.records: list[Record] = []
        self.index = 0
        self.pending_tokens: dict[str, Any] | None = None
        self.grouped: dict[str, list[int]] = {}
        self.grouped_text: dict[str, str] = {}
        self.users_from_events = False

    # --- helpers --------------------------------------------------------------------------------------------

    def time(self, record: Record) -> tuple[str, int]:
        if record.timestamp is None:
            self.untimed = True
        return iso_and_ms(record.timestamp, self.session_stamp)

    def source_id(self, record: Record, index: int = 0) -> str:
        return f"{record.line}:{record.kind}:{index}"

    def custom(self, record: Record, custom_type: str, data: Any) -> None:
        """A custom entry now, or after the open response's message when one is open (it sits between items of
        that response in the rollout)."""
        iso, _ms = self.time(record)

        def append() -> None:
            self.builder.custom(custom_type, data, timestamp=iso, source_id=self.source_id(record))
            self.report.custom[custom_type] += 1

        if self.group is not None:
            self.group.later.append(append)
        else:
            append()

    def note_kind(self, line: int, text: str, kind: str | None = None) -> None:
        """A note said once per kind of thing (`kind`, else the text), at its first line and in its first
        words, with how many there were (at the end)."""
        key = kind or text
        if key not in self.grouped:
            self.grouped_text[key] = text
        self.grouped.setdefault(key, []).append(line)

    def priced_model(self, model_id: str) -> models.PricedModel:
        if model_id not in self.priced:
            priced = models.price_model(self.route, model_id, self.catalog)
            self.priced[model_id] = priced
            if priced.note:
                self.report.note(None, priced.note)
        return self.priced[model_id]

    # --- responses ------------------------------------------------------------------------------------------

    def open_group(self, record: Record) -> _Group:
        if self.group is None:
            self.group = _Group(record.line, record.timestamp, usage=self.pending_tokens)
            self.pending_tokens = None
        return self.group

    def precedes_its_response(self, record: Record) -> bool:
        """Whether this token count belongs to the response whose items follow it. Codex 0.6x recorded the count
        first (the items follow within milliseconds); later versions record it after the items, and the tool
        outputs may come before it. So: a count with a response open is that response's; else it is the next
        one's if the next response item is model output and either no answer awaits a count or the output
        follows at once."""
        if self.group is not None and self.group.content:
            return False
        for later in self.records[self.index + 1:]:
            if later.kind != "response_item":
                continue
            item = later.payload if isinstance(later.payload, dict) else {}
            is_output = item.get("type") in OUTPUT_ITEMS or (item.get("type") == "message"
                                                             and item.get("role") == "assistant")
            if not is_output:
                return False
            if self.awaiting_usage is None:
                return True
            _iso, then = iso_and_ms(later.timestamp, self.session_stamp)
            _iso, now = iso_and_ms(record.timestamp, self.session_stamp)
            return 0 <= then - now <= 50
        return False

    def close_group(self) -> None:
        """Append the open response as one assistant message (and the entries that waited for it)."""
        group, self.group = self.group, None
        if group is None:
            return
        if group.content:
            self.append_assistant(group)
        for append in group.later:
            append()

    def append_assistant(self, group: _Group) -> None:
        model_id = self.model_id or ""
        priced = self.priced_model(model_id)
        iso, ms = iso_and_ms(group.stamp, self.session_stamp)
        if group.stamp is None:
            self.untimed = True
        if self.emitted_model != (self.route.provider, model_id):
            self.builder.model_change(self.route.provider, model_id, timestamp=iso,
                                      source_id=f"{group.line}:model_change")
            self.report.mapped["model_change"] += 1
            self.emitted_model = (self.route.provider, model_id)
        level = models.EFFORT_LEVELS.get(self.effort or "")
        if level is not None and level != self.emitted_level:
            self.builder.thinking_level_change(level, timestamp=iso, source_id=f"{group.line}:thinking_level")
            self.report.mapped["thinking_level_change"] += 1
            self.emitted_level = level
        usage = models.usage_of(group.usage, priced.model)
        has_calls = any(block["type"] == "toolCall" for block in group.content)
        message = {"role": "assistant", "content": group.content, "api": priced.api,
                   "provider": self.route.provider, "model": model_id, "usage": usage,
                   "stopReason": "toolUse" if has_calls else "stop", "timestamp": ms}
        self.builder.message(message, timestamp=iso, source_id=f"{group.line}:assistant")
        self.report.imported["assistant"] += 1
        # The response's token count may come after its tool outputs: the usage is filled in then.
        self.awaiting_usage = message if group.usage is None else None

    def take_usage(self, record: Record, tokens: dict[str, Any]) -> None:
        """A response's token usage: the next response's when it comes first, else the open response's, else
        the last answer's that has none yet."""
        if self.precedes_its_response(record):
            self.pending_tokens = tokens
        elif self.group is not None and self.group.content:
            self.group.usage = tokens
            self.close_group()
        elif self.awaiting_usage is not None:
            message, self.awaiting_usage = self.awaiting_usage, None
            priced = self.priced_model(str(message["model"]))
            message["usage"].clear()
            message["usage"].update(models.usage_of(tokens, priced.model))
        else:
            self.note_kind(record.line, "a token count that belongs to no answer (a compaction's or a retried "
                                        "request's); kept as a custom entry, outside Pi's usage")
            self.custom(record, "codex-token-count", tokens)
            return
        self.report.mapped["token_count"] += 1

    # --- records --------------------------------------------------------------------------------------------

    def walk(self, records: list[Record]) -> None:
        """Every record in order, then the notes said once per kind; the walk's notes end up in line order."""
        first_note = len(self.report.notes)
        self.records = records
        for index, record in enumerate(records):
            self.index = index
            handler = getattr(self, f"on_{record.kind}", None)
            if handler is None:
                self.report.note(record.line, f"unknown rollout item type {record.kind!r}; kept as a custom entry")
                self.custom(record, f"codex-{record.kind}", record.payload)
                continue
            if record.kind == "session_meta" and index == 0:
                continue
            handler(record)
        self.close_group()
        unanswered = sorted(set(self.calls) - self.answered)
        if unanswered:
            self.report.note(None, f"{len(unanswered)} tool call(s) have no output in the rollout "
                                   f"({', '.join(unanswered[:5])}); Pi answers them with \"No result provided\"")
        if self.untimed:
            self.report.note(None, "records without a time are dated with the session's start")
        for key, lines in self.grouped.items():
            more = f" ({len(lines)} times)" if len(lines) > 1 else ""
            self.report.note(lines[0], self.grouped_text[key] + more)
        self.report.notes[first_note:] = sorted(self.report.notes[first_note:], key=_note_line)

    def on_session_meta(self, record: Record) -> None:
        self.close_group()
        self.custom(record, "codex-session-meta", record.payload)

    def on_state(self, record: Record) -> None:
        self.report.dropped["state marker"] += 1

    def on_turn_context(self, record: Record) -> None:
        payload = record.payload if isinstance(record.payload, dict) else {}
        if isinstance(payload.get("model"), str) and payload["model"]:
            self.model_id = payload["model"]
        if isinstance(payload.get("effort"), str):
            self.effort = payload["effort"]
        same = {k: v for k, v in payload.items() if k not in ("turn_id", "trace_id")}
        if same == self.previous_context:
            self.report.dropped["repeated turn_context"] += 1
            return
        self.previous_context = same
        self.custom(record, "codex-turn-context", payload)

    def on_compacted(self, record: Record) -> None:
        self.close_group()
        payload = record.payload if isinstance(record.payload, dict) else {}
        summary = payload.get("message")
        iso, _ms = self.time(record)
        if not isinstance(summary, str) or not summary.strip():
            self.remote_compaction(record, payload)
            return
        if first_kept_none := not self.user_entries:
            self.report.note(record.line, "a compaction before any user message: Pi keeps its summary alone")
        # Codex keeps the recent user messages beside its summary; Pi keeps a contiguous tail: from the last
        # user message on, as Pi's own compaction keeps the latest turn.
        first_kept = None if first_kept_none else self.user_entries[-1]
        self.builder.compaction(summary, first_kept_entry_id=first_kept, tokens_before=self.context_tokens,
                                timestamp=iso, source_id=self.source_id(record))
        self.report.mapped["compaction"] += 1

    def remote_compaction(self, record: Record, payload: dict[str, Any]) -> None:
        """A compaction made on OpenAI's servers: its summary is an encrypted `compaction` item only OpenAI reads,
        and `replacement_history` holds what Codex's context became (the messages it kept, then that item).

        Pi gets what can be read of it: a custom entry holding the record (the compaction keeps from it, so
        nothing before it stays in the context, in every Pi version), a compaction whose summary says why it has
        no text of its own, and the kept user and assistant messages again after it, so that the context is
        Codex's own."""
        iso, ms = self.time(record)
        kept_from = self.builder.custom("codex-compacted", payload, timestamp=iso, source_id=self.source_id(record))
        self.report.custom["codex-compacted"] += 1
        self.builder.compaction(REMOTE_SUMMARY, first_kept_entry_id=kept_from, tokens_before=self.context_tokens,
                                timestamp=iso, source_id=self.source_id(record, 1))
        self.report.mapped["compaction"] += 1
        kept = payload.get("replacement_history")
        again = 0
        for index, item in enumerate(kept if isinstance(kept, list) else [], start=2):
            if not isinstance(item, dict) or item.get("type") != "message":
                continue
            source_id = self.source_id(record, index)
            if item.get("role") == "user" and not items.is_context_message(item.get("content")):
                blocks, _lost = items.input_blocks(item.get("content"))
                self.builder.message({"role": "user", "content": blocks, "timestamp": ms}, timestamp=iso,
                                     source_id=source_id)
            elif item.get("role") == "assistant":
                model_id = self.model_id or ""
                priced = self.priced_model(model_id)
                self.builder.message({"role": "assistant", "content": [items.text_block(item)], "api": priced.api,
                                      "provider": self.route.provider, "model": model_id,
                                      "usage": models.usage_of(None, None), "stopReason": "stop",
                                      "timestamp": ms}, timestamp=iso, source_id=source_id)
            else:
                continue
            again += 1
        self.report.mapped["message kept by a compaction"] += again
        self.report.note(record.line, f"a compaction made on OpenAI's servers (its summary is encrypted): Pi's "
                                      f"summary says so, and the {again} message(s) Codex kept follow it")

    def on_event_msg(self, record: Record) -> None:
        payload = record.payload if isinstance(record.payload, dict) else {}
        kind = payload.get("type")
        if kind == "token_count":
            self.on_token_count(record, payload)
        elif kind == "user_message" and self.users_from_events:
            self.on_user_event(record, payload)
        elif kind in ECHO_EVENTS:
            self.report.dropped[f"event {kind} (repeats a response item)"] += 1
        elif kind == "thread_rolled_back":
            self.on_rollback(record, payload)
        elif kind == "thread_name_updated" and isinstance(payload.get("thread_name"), str):
            self.close_group()
            iso, _ms = self.time(record)
            self.builder.session_info(payload["thread_name"], timestamp=iso, source_id=self.source_id(record))
            self.report.mapped["session_info"] += 1
        else:
            self.custom(record, f"codex-{kind}" if isinstance(kind, str) else "codex-event", payload)

    def on_user_event(self, record: Record, payload: dict[str, Any]) -> None:
        """A user message the rollout records only as the UI's event (its response items were left out)."""
        self.close_group()
        blocks: list[dict[str, Any]] = []
        if isinstance(payload.get("message"), str):
            blocks.append({"type": "text", "text": payload["message"]})
        for url in payload.get("images") or []:
            image = items.image_block(url)
            if image is not None:
                blocks.append(image)
        if payload.get("local_images"):
            self.note_kind(record.line, "a user message's local image paths (the images are not in the rollout); "
                                        "left out")
        self.append_user(record, blocks)

    def append_user(self, record: Record, blocks: list[dict[str, Any]]) -> None:
        iso, ms = self.time(record)
        self.turn_starts.append(self.builder.leaf)
        self.user_entries.append(self.builder.message({"role": "user", "content": blocks, "timestamp": ms},
                                                      timestamp=iso, source_id=self.source_id(record)))
        self.report.imported["user"] += 1

    def on_token_count(self, record: Record, payload: dict[str, Any]) -> None:
        info = payload.get("info")
        last: Any
        total: Any = None
        if isinstance(info, dict):
            last, total = info.get("last_token_usage"), info.get("total_token_usage")
        elif "input_tokens" in payload:  # the older flat form: one response's usage
            last = payload
        else:
            self.report.dropped["token_count without usage (rate limits only)"] += 1
            return
        if total is not None and total == self.previous_total:
            self.report.dropped["repeated token_count"] += 1
            return
        if not isinstance(last, dict) and isinstance(total, dict):
            last = {key: value - (self.previous_total or {}).get(key, 0) for key, value in total.items()
                    if isinstance(value, int)}
        self.previous_total = total if isinstance(total, dict) else self.previous_total
        if not isinstance(last, dict):
            self.report.dropped["token_count without usage (rate limits only)"] += 1
            return
        self.context_tokens = models.usage_of(last, None)["totalTokens"]
        self.take_usage(record, last)

    def on_rollback(self, record: Record, payload: dict[str, Any]) -> None:
        self.close_group()
        turns = payload.get("num_turns")
        if not isinstance(turns, int) or turns < 1 or turns > len(self.turn_starts):
            self.report.note(record.line, f"a rollback of {turns!r} turn(s) the rollout does not hold; ignored")
            self.custom(record, "codex-thread_rolled_back", payload)
            return
        target = self.turn_starts[-turns]
        del self.turn_starts[-turns:]
        del self.user_entries[-turns:]
        self.builder.go_to(target)
        self.awaiting_usage = None
        self.report.mapped["branch"] += 1
        undone = "turn" if turns == 1 else f"{turns} turns"
        self.report.note(record.line, f"Codex undid the last {undone}: it stays on a branch of its own, and the "
                                      "conversation goes on from before it")

    def on_response_item(self, record: Record) -> None:
        item = record.payload if isinstance(record.payload, dict) else {}
        kind = item.get("type")
        if kind == "message":
            self.on_message(record, item)
        elif kind in OUTPUT_ITEMS:
            self.on_output_item(record, item)
        elif kind in TOOL_OUTPUTS:
            self.on_tool_output(record, item)
        else:
            self.note_kind(record.line, f"a {kind} item: Pi has no place for it; kept as a custom entry")
            self.custom(record, f"codex-{kind}" if isinstance(kind, str) else "codex-item", item)

    def on_message(self, record: Record, item: dict[str, Any]) -> None:
        role = item.get("role")
        if role == "assistant":
            self.open_group(record).content.append(items.text_block(item))
            return
        if role == "user" and not items.is_context_message(item.get("content")):
            self.close_group()
            blocks, lost = items.input_blocks(item.get("content"))
            if lost:
                self.report.note(record.line, f"{lost} part(s) of a user message that are neither text nor an "
                                              "inline image; left out")
                self.report.dropped["user message part"] += lost
            self.append_user(record, blocks)
            return
        custom_type = "codex-context" if role == "user" else f"codex-{role}-message"
        self.custom(record, custom_type, item)

    def on_output_item(self, record: Record, item: dict[str, Any]) -> None:
        group = self.open_group(record)
        if item["type"] == "reasoning":
            block, signed = items.thinking_block(item)
            if not signed:
                self.note_kind(record.line, "reasoning without encrypted content: kept as thinking Pi does not "
                                            "send back")
            group.content.append(block)
            self.report.imported["thinking"] += 1
            return
        block, problem = items.tool_call_block(item)
        if problem:
            self.note_kind(record.line, problem, "arguments not an object")
        if not block["id"]:
            self.report.note(record.line, f"a {item['type']} without a call id; left out")
            self.report.dropped["tool call without id"] += 1
            return
        group.content.append(block)
        self.calls[block["id"].split("|")[0]] = (block["name"], block["id"])
        self.report.imported["toolCall"] += 1

    def on_tool_output(self, record: Record, item: dict[str, Any]) -> None:
        self.close_group()
        call_id = item.get("call_id")
        call = self.calls.get(call_id) if isinstance(call_id, str) else None
        if call is None:
            self.report.note(record.line, f"a tool output for call {call_id!r}, which no call in the rollout made; "
                                          "left out")
            self.report.dropped["tool output without its call"] += 1
            return
        name, full_id = call
        blocks, is_error = items.output_blocks(item.get("output"))
        iso, ms = self.time(record)
        self.builder.message({"role": "toolResult", "toolCallId": full_id, "toolName": name, "content": blocks,
                              "isError": is_error, "timestamp": ms}, timestamp=iso,
                             source_id=self.source_id(record))
        self.answered.add(str(call_id))
        self.report.imported["toolResult"] += 1


def convert(path: str | Path, *, pi: PiVersion, report: ImportReport) -> list[SessionBuilder]:
    """The Pi session of one Codex rollout (a list, as every source's `convert`); ImportFailed when the file is
    no rollout at all."""
    rollout = read(read_bytes(str(path)), report)
    report.note(None, f"layout: {rollout.layout} ({LAYOUTS[rollout.layout]})")
    records = rollout.records
    meta = records[0].payload if records[0].kind == "session_meta" and isinstance(records[0].payload, dict) else {}
    catalog = pi.requests.catalog
    token_counts = [r.payload for r in records if r.kind == "event_msg" and isinstance(r.payload, dict)
                    and r.payload.get("type") == "token_count"]
    route = models.route(meta.get("model_provider"), token_counts, catalog)
    report.note(None, f"stored as {route.provider} ({route.api}): {route.reason}")
    stamp = meta.get("timestamp") if isinstance(meta.get("timestamp"), str) else records[0].timestamp
    session_iso, _ms = iso_and_ms(stamp, "")
    cwd = meta.get("cwd") if isinstance(meta.get("cwd"), str) else None
    if cwd is None:
        cwd = _first_context_cwd(records) or ""
        report.note(records[0].line, f"the session's metadata records no working directory; used {cwd!r}"
                    + (" (from the first turn context or environment context)" if cwd else ""))
    session_id = meta.get("id") if isinstance(meta.get("id"), str) else Path(path).stem
    builder = SessionBuilder(pi=pi, cwd=cwd, timestamp=session_iso, session_id=session_id)
    model_id = meta.get("model") if isinstance(meta.get("model"), str) else None
    if model_id is None and not any(r.kind == "turn_context" for r in records):
        model_id, why = DEFAULT_MODELS[rollout.layout]
        report.note(None, f"the rollout records no model; used {model_id} ({why})")
    if not token_counts:
        report.note(None, "the rollout records no token counts; usage is 0")
    parent = _parent_thread(meta)
    if parent is not None:
        report.note(records[0].line, f"{parent[0]} Codex session {parent[1]}: Pi links sessions by file, so the "
                                     "link is kept in the codex-session-meta entry")
    walk = _Walk(builder, report, route, catalog, session_iso, model_id)
    walk.users_from_events = not any(
        r.kind == "response_item" and isinstance(r.payload, dict) and r.payload.get("type") == "message"
        and r.payload.get("role") == "user" and not items.is_context_message(r.payload.get("content"))
        for r in records)
    if walk.users_from_events and any(r.kind == "event_msg" and isinstance(r.payload, dict)
                                      and r.payload.get("type") == "user_message" for r in records):
        report.note(None, "the rollout records the user's messages only as events; they are imported from them")
    if records[0].kind == "session_meta":
        walk.custom(records[0], "codex-session-meta", meta)
    walk.walk(records)
    return [builder]


def _note_line(note: str) -> int:
    """The source line a note names (`line N: ...`), 0 for the file as a whole (those come first)."""
    head, sep, _rest = note.partition(": ")
    number = head.removeprefix("line ")
    return int(number) if sep and head.startswith("line ") and number.isdigit() else 0


def _parent_thread(meta: dict[str, Any]) -> tuple[str, str] | None:
    """How this session came from another: a fork (`forked_from_id`) or a sub-agent (`source.subagent`)."""
    forked = meta.get("forked_from_id")
    if isinstance(forked, str) and forked:
        return "forked from", forked
    source = meta.get("source")
    subagent = source.get("subagent") if isinstance(source, dict) else None
    spawn = subagent.get("thread_spawn") if isinstance(subagent, dict) else None
    parent = spawn.get("parent_thread_id") if isinstance(spawn, dict) else None
    if isinstance(parent, str) and parent:
        return "a sub-agent of", parent
    return None


def _first_context_cwd(records: list[Record]) -> str | None:
    """The working directory of the first turn context, or of the first `<environment_context>` message."""
    for record in records:
        payload = record.payload if isinstance(record.payload, dict) else {}
        if record.kind == "turn_context" and isinstance(payload.get("cwd"), str):
            return str(payload["cwd"])
        if record.kind == "response_item" and payload.get("type") == "message":
            found = _CWD.search(items.text_of(payload.get("content")))
            if found:
                return found.group(1).strip()
    return None
