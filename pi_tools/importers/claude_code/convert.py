"""One Claude Code transcript (its records in file order) as Pi sessions: the main one and one per sidechain.

Claude Code stores a tree: every record names its parent (`parentUuid`), an edited or retried message forks
from an older one, and one API response is written as several records (one per content block) that share the
message id. The walk keeps the tree: each record's entry hangs under the Pi entry of its parent (`go_to`), the
records of one response become one Pi assistant message, and a record that gives no entry of its own passes
its parent on, so whatever hangs below it still finds its place. Records Pi has no place for become custom
entries the model never sees; everything filled in or left out is a note in the report.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from pi_tools.importers.builder import SessionBuilder
from pi_tools.importers.claude_code.blocks import Mapped, assistant_blocks, tool_result_content, user_blocks
from pi_tools.importers.models import ModelRef, pi_usage, resolve_model
from pi_tools.importers.records import Record
from pi_tools.importers.report import ImportReport
from pi_tools.importers.stamps import iso, stamp_ms

if TYPE_CHECKING:
    from pi_tools.pi import PiVersion

PROVIDER = "anthropic"
SYNTHETIC_MODEL = "<synthetic>"
"""The model Claude Code names on the assistant records it writes itself (API errors, "No response requested.")."""
CUSTOM_PREFIX = "claude-code:"
THINKING_LEVELS = frozenset({"off", "minimal", "low", "medium", "high", "xhigh"})
_STOP_REASONS = {"end_turn": "stop", "pause_turn": "stop", "stop_sequence": "stop", "max_tokens": "length",
                 "tool_use": "toolUse", "refusal": "error"}
_TITLE_FIELDS = {"summary": "summary", "custom-title": "customTitle", "ai-title": "aiTitle"}


@dataclass
class _Response:
    """The Pi assistant message being filled from the records of one API response."""

    message_id: str
    message: dict[str, Any]
    model: ModelRef
    stop_known: bool


@dataclass
class _Chain:
    """One Pi session being built from one chain of records (the main one, or a sidechain)."""

    builder: SessionBuilder
    label: str
    entries_of: dict[str, str] = field(default_factory=dict)
    """Source uuid → the Pi entry its children hang under."""
    calls: dict[str, str] = field(default_factory=dict)
    """Tool call id → tool name, for the results."""
    model: ModelRef | None = None
    thinking_level: str | None = None
    response: _Response | None = None
    responses: list[_Response] = field(default_factory=list)
    by_id: dict[str, _Response] = field(default_factory=dict)
    state_at: dict[str, tuple[ModelRef | None, str | None]] = field(default_factory=dict)
    """Pi entry → the model and thinking level in force there (a fork takes its parent's)."""
    compaction: Record | None = None
    todos: Any = None
    last_ms: int | None = None
    messages: int = 0


class ClaudeCodeConverter:
    """Walks one transcript's records into Pi sessions, counting and noting in `report`."""

    def __init__(self, *, pi: PiVersion, report: ImportReport, source_session: str,
                 sub_agent_file: bool = False) -> None:
        """`sub_agent_file`: the records are a sub-agent's transcript read with its session (no note that it
        holds only sidechains: that is what such a file is)."""
        self.sub_agent_file = sub_agent_file
        self.pi = pi
        self.report = report
        self.source_session = source_session
        self.fill_ins: Counter[str] = Counter()
        self.chains: dict[str, _Chain] = {}
        self.chain_of_uuid: dict[str, str] = {}
        self.titles: list[Record] = []
        self.models_noted: set[str] = set()
        self.cwd: str | None = None
        self.start_ms: int | None = None

    # --- the chains -----------------------------------------------------------------------------------------

    def _chain(self, key: str, record: Record) -> _Chain:
        chain = self.chains.get(key)
        if chain is None:
            stamp = stamp_ms(record.value.get("timestamp")) or self.start_ms or 0
            session = self.source_session if key == "main" else f"{self.source_session}/{key}"
            builder = SessionBuilder(pi=self.pi, cwd=self.cwd or "/", timestamp=iso(stamp), session_id=session)
            chain = _Chain(builder, "the session" if key == "main" else f"sidechain {key}")
            self.chains[key] = chain
        return chain

    def _chain_key(self, record: Record) -> str:
        value = record.value
        if not value.get("isSidechain"):
            return "main"
        agent = value.get("agentId")
        if isinstance(agent, str) and agent:
            return f"agent-{agent}"
        parent = value.get("parentUuid")
        if isinstance(parent, str) and parent in self.chain_of_uuid:
            return self.chain_of_uuid[parent]
        uuid = value.get("uuid")
        return f"sidechain-{uuid if isinstance(uuid, str) else record.line}"

    # --- the walk -------------------------------------------------------------------------------------------

    def run(self, records: list[Record]) -> list[SessionBuilder]:
        for record in records:
            cwd = record.value.get("cwd")
            if self.cwd is None and isinstance(cwd, str) and cwd:
                self.cwd = cwd
            stamp = stamp_ms(record.value.get("timestamp"))
            if self.start_ms is None and stamp is not None:
                self.start_ms = stamp
        if self.cwd is None:
            self.report.note(None, "no record names a working directory; the session's cwd is /")
        for record in records:
            self._record(record)
        main = self.chains.get("main")
        if main is not None and main.messages == 0 and len(self.chains) > 1:
            del self.chains["main"]
            if main.builder.entries:
                self.report.custom.subtract(Counter(entry["customType"][len(CUSTOM_PREFIX):]
                                                    for entry in main.builder.entries
                                                    if entry["type"] == "custom"))
                self.report.dropped["record outside any conversation"] += len(main.builder.entries)
                self.report.note(None, f"{len(main.builder.entries)} record(s) outside any conversation "
                                       "(no main-chain message) dropped")
            main = None
        if main is None and self.chains and not self.sub_agent_file:
            self.report.note(None, "every message is a sidechain's (a sub-agent transcript); each sidechain is "
                                   "a session of its own")
        self._finish()
        builders = [chain.builder for chain in self.chains.values() if chain.builder.entries]
        if main is not None:
            for builder in builders:
                if builder is not main.builder:
                    builder.parent = main.builder
                    self.report.mapped["sidechain session"] += 1
        return builders

    def _stamp(self, chain: _Chain, record: Record) -> int:
        stamp = stamp_ms(record.value.get("timestamp"))
        snapshot = record.value.get("snapshot")
        if stamp is None and isinstance(snapshot, dict):  # a file-history-snapshot keeps its time inside
            stamp = stamp_ms(snapshot.get("timestamp"))
        if stamp is None:
            stamp = chain.last_ms if chain.last_ms is not None else (self.start_ms or 0)
            self.fill_ins["a record without a timestamp took the one before it"] += 1
        chain.last_ms = stamp
        return stamp

    def _place(self, chain: _Chain, record: Record) -> None:
        """Move the chain's leaf under the record's parent (a fork when the parent is older)."""
        parent = record.value.get("parentUuid")
        if isinstance(parent, str) and parent:
            entry = chain.entries_of.get(parent)
            if entry is not None:
                if entry != chain.builder.leaf:
                    chain.response = None
                    # A fork: the model and thinking level are those of the branch it leaves.
                    chain.model, chain.thinking_level = chain.state_at.get(entry, (chain.model,
                                                                                   chain.thinking_level))
                chain.builder.go_to(entry)
            else:
                self.report.note(record.line, f"its parent {parent} is not in the file; it follows the record "
                                              "before it")
        elif chain.messages and record.value.get("type") in ("user", "assistant"):
            chain.response = None
            if record.value.get("logicalParentUuid") is None:
                self.report.note(record.line, f"a new root in {chain.label} (no parent): a Pi tree root too")
            chain.builder.go_to(None)

    def _remember(self, chain: _Chain, record: Record) -> None:
        if chain.builder.leaf is not None:
            chain.state_at[chain.builder.leaf] = (chain.model, chain.thinking_level)
        uuid = record.value.get("uuid")
        if isinstance(uuid, str) and uuid:
            chain.entries_of[uuid] = chain.builder.leaf or ""
            if chain.builder.leaf is None:
                chain.entries_of.pop(uuid)

    def _record(self, record: Record) -> None:
        value = record.value
        kind = value.get("type")
        if not isinstance(kind, str):
            self.report.dropped["record without a type"] += 1
            self.report.note(record.line, "a record without a type; dropped")
            return
        if kind in _TITLE_FIELDS and not value.get("uuid"):
            self.titles.append(record)
            return
        key = self._chain_key(record)
        uuid = value.get("uuid")
        if isinstance(uuid, str):
            self.chain_of_uuid[uuid] = key
        chain = self._chain(key, record)
        if kind == "user":
            self._place(chain, record)
            self._user(chain, record)
        elif kind == "assistant":
            self._place(chain, record)
            self._assistant(chain, record)
        elif kind == "system" and value.get("subtype") == "compact_boundary":
            self._compact_boundary(chain, record)
        else:
            self._place(chain, record)
            name = kind if kind != "system" else f"system:{value.get('subtype') or 'event'}"
            chain.builder.custom(CUSTOM_PREFIX + name, value, timestamp=iso(self._stamp(chain, record)),
                                 source_id=self._source_id(record))
            self.report.custom[name] += 1
            if kind not in _KNOWN_RECORDS and kind != "system":
                self.report.note(record.line, f"unknown record type {kind!r}; kept as a custom entry")
        self._remember(chain, record)

    @staticmethod
    def _source_id(record: Record) -> str:
        uuid = record.value.get("uuid")
        return uuid if isinstance(uuid, str) and uuid else f"line {record.line}"

    # --- users and tool results -----------------------------------------------------------------------------

    def _user(self, chain: _Chain, record: Record) -> None:
        value = record.value
        stamp = self._stamp(chain, record)
        self._settings(chain, record, stamp)
        message = value.get("message")
        content = message.get("content") if isinstance(message, dict) else None
        if chain.compaction is not None and value.get("isCompactSummary"):
            self._compaction(chain, chain.compaction, content, stamp)
            return
        if chain.compaction is not None:
            self._compaction(chain, chain.compaction, None, stamp)
        if "toolUseResult" in value:
            self.fill_ins["a tool result's display data (toolUseResult) was left out: Pi's tool results keep "
                          "what the model saw"] += 1
            self.report.dropped["toolUseResult"] += 1
        if isinstance(content, str):
            if content == "":
                self.report.dropped["empty user message"] += 1
                self.report.note(record.line, "an empty user message; dropped")
                return
            self._append_user(chain, record, content, stamp, "")
            return
        if not isinstance(content, list):
            self.report.dropped["user record without content"] += 1
            self.report.note(record.line, "a user record without message content; dropped")
            return
        pending: list[Any] = []
        part = 0
        for block in content:
            if isinstance(block, dict) and block.get("type") == "tool_result":
                if pending:
                    self._user_blocks(chain, record, pending, stamp, f"#{part}")
                    part += 1
                    pending = []
                self._tool_result(chain, record, block, stamp, f"#{part}")
                part += 1
            else:
                pending.append(block)
        if pending:
            self._user_blocks(chain, record, pending, stamp, f"#{part}")
        if not content:
            self.report.dropped["empty user message"] += 1
            self.report.note(record.line, "an empty user message; dropped")

    def _user_blocks(self, chain: _Chain, record: Record, blocks: list[Any], stamp: int, part: str) -> None:
        mapped = user_blocks(blocks)
        self._dropped(record, mapped)
        if mapped.blocks:
            self._append_user(chain, record, mapped.blocks, stamp, part)

    def _append_user(self, chain: _Chain, record: Record, content: Any, stamp: int, part: str) -> None:
        message = {"role": "user", "content": content, "timestamp": stamp}
        chain.builder.message(message, timestamp=iso(stamp), source_id=self._source_id(record) + part)
        chain.response = None
        chain.messages += 1
        self.report.imported["user"] += 1

    def _tool_result(self, chain: _Chain, record: Record, block: dict[str, Any], stamp: int, part: str) -> None:
        call_id = block.get("tool_use_id")
        name = chain.calls.get(call_id) if isinstance(call_id, str) else None
        if name is None:
            chain.builder.custom(CUSTOM_PREFIX + "tool-result-without-call", block, timestamp=iso(stamp),
                                 source_id=self._source_id(record) + part)
            self.report.custom["tool result without its call"] += 1
            self.report.note(record.line, f"a tool result for {call_id!r}, a call that is not in "
                                          f"{chain.label}; kept as a custom entry (the model cannot be sent a "
                                          "result without its call)")
            return
        mapped = tool_result_content(block.get("content"))
        self._dropped(record, mapped)
        message = {"role": "toolResult", "toolCallId": call_id, "toolName": name, "content": mapped.blocks,
                   "isError": block.get("is_error") is True, "timestamp": stamp}
        chain.builder.message(message, timestamp=iso(stamp), source_id=self._source_id(record) + part)
        chain.response = None
        chain.messages += 1
        self.report.imported["toolResult"] += 1

    def _settings(self, chain: _Chain, record: Record, stamp: int) -> None:
        """Thinking level and todo list, as Claude Code repeats them on its user records."""
        metadata = record.value.get("thinkingMetadata")
        if isinstance(metadata, dict):
            level = "off" if metadata.get("disabled") else metadata.get("level")
            if isinstance(level, str) and level != chain.thinking_level:
                if level in THINKING_LEVELS:
                    chain.builder.thinking_level_change(level, timestamp=iso(stamp),
                                                        source_id=self._source_id(record) + "/thinking")
                    self.report.mapped["thinking_level_change"] += 1
                else:
                    self.report.note(record.line, f"thinking level {level!r} is not one of Pi's; not recorded")
                chain.thinking_level = level
        todos = record.value.get("todos")
        if isinstance(todos, list) and todos and todos != chain.todos:
            chain.builder.custom(CUSTOM_PREFIX + "todos", todos, timestamp=iso(stamp),
                                 source_id=self._source_id(record) + "/todos")
            self.report.custom["todos"] += 1
        if isinstance(todos, list):
            chain.todos = todos
        plan = record.value.get("planContent")
        if isinstance(plan, str) and plan:
            chain.builder.custom(CUSTOM_PREFIX + "plan", plan, timestamp=iso(stamp),
                                 source_id=self._source_id(record) + "/plan")
            self.report.custom["plan"] += 1

    # --- assistants -----------------------------------------------------------------------------------------

    def _assistant(self, chain: _Chain, record: Record) -> None:
        value = record.value
        stamp = self._stamp(chain, record)
        if chain.compaction is not None:
            self._compaction(chain, chain.compaction, None, stamp)
        message = value.get("message")
        if not isinstance(message, dict):
            self.report.dropped["assistant record without a message"] += 1
            self.report.note(record.line, "an assistant record without a message; dropped")
            return
        model_name = message.get("model")
        if model_name == SYNTHETIC_MODEL or value.get("isApiErrorMessage"):
            self._synthetic(chain, record, message, stamp)
            return
        mapped = assistant_blocks(message.get("content"))
        self._dropped(record, mapped)
        for block in mapped.blocks:
            if block["type"] == "toolCall":
                chain.calls[block["id"]] = block["name"]
        message_id = message.get("id")
        response = chain.response
        if response is not None and isinstance(message_id, str) and message_id == response.message_id:
            response.message["content"].extend(mapped.blocks)
            self._usage_and_stop(response, message, record)
            self.report.mapped["assistant record joined to its response"] += 1
            return
        earlier = chain.by_id.get(message_id) if isinstance(message_id, str) and message_id else None
        if not isinstance(model_name, str) or not model_name:
            if chain.model is None:
                self.report.dropped["assistant message without a model"] += 1
                self.report.note(record.line, "an assistant message without a model, before any model is "
                                              "known; dropped")
                return
            model = chain.model
            self.fill_ins["an assistant message without a model took the session's model"] += 1
        else:
            model = self._model(chain, model_name, record)
        self._model_change(chain, model, record, stamp)
        pi_message: dict[str, Any] = {"role": "assistant", "content": mapped.blocks, "api": model.api,
                                      "provider": model.provider, "model": model.model_id,
                                      "usage": pi_usage(model, input_tokens=0, output_tokens=0, cache_read=0,
                                                        cache_write=0),
                                      "stopReason": "stop", "timestamp": stamp}
        if isinstance(message_id, str) and message_id:
            pi_message["responseId"] = message_id
        response = _Response(message_id if isinstance(message_id, str) else "", pi_message, model, False)
        if earlier is not None:
            # One response split by records between its blocks (tool results written before its next block):
            # two Pi messages, its usage counted once, on the first, from the latest record.
            self._usage_and_stop(earlier, message, record)
            self._usage_and_stop(response, {"stop_reason": message.get("stop_reason")}, record)
            self.fill_ins["a response split by other records became two assistant messages; its usage is "
                          "counted once, on the first"] += 1
        else:
            self._usage_and_stop(response, message, record)
            if response.message_id:
                chain.by_id[response.message_id] = response
        chain.builder.message(pi_message, timestamp=iso(stamp), source_id=self._source_id(record))
        chain.response = response if response.message_id else None
        chain.responses.append(response)
        chain.messages += 1
        self.report.imported["assistant"] += 1

    def _model(self, chain: _Chain, name: str, record: Record) -> ModelRef:
        model = resolve_model(self.pi, PROVIDER, name)
        if name in self.models_noted:
            return model
        self.models_noted.add(name)
        if model.entry is None:
            self.report.note(record.line, f"model {name!r} is not in Pi {self.pi.name}'s catalog; kept as "
                                          f"{PROVIDER}/{name}, unpriced")
        elif model.provider != PROVIDER:
            self.report.note(record.line, f"model {name!r} is {model.provider}'s in Pi's catalog")
        return model

    def _model_change(self, chain: _Chain, model: ModelRef, record: Record, stamp: int) -> None:
        if chain.model is not None and (chain.model.provider, chain.model.model_id) == (model.provider,
                                                                                      model.model_id):
            return
        chain.builder.model_change(model.provider, model.model_id, timestamp=iso(stamp),
                                   source_id=self._source_id(record) + "/model")
        chain.model = model
        self.report.mapped["model_change"] += 1

    def _usage_and_stop(self, response: _Response, message: dict[str, Any], record: Record) -> None:
        usage = message.get("usage")
        if isinstance(usage, dict):
            creation = usage.get("cache_creation")
            one_hour = creation.get("ephemeral_1h_input_tokens") if isinstance(creation, dict) else None
            response.message["usage"] = pi_usage(
                response.model, input_tokens=_count(usage.get("input_tokens")),
                output_tokens=_count(usage.get("output_tokens")),
                cache_read=_count(usage.get("cache_read_input_tokens")),
                cache_write=_count(usage.get("cache_creation_input_tokens")),
                cache_write_1h=_count(one_hour) if one_hour is not None else None)
        reason = message.get("stop_reason")
        if isinstance(reason, str):
            mapped = _STOP_REASONS.get(reason)
            if mapped is None:
                self.report.note(record.line, f"stop reason {reason!r} is not one Pi knows; recorded as stop")
                mapped = "stop"
            response.message["stopReason"] = mapped
            if reason == "refusal":
                response.message["errorMessage"] = "The model refused to complete the request"
            response.stop_known = True

    def _synthetic(self, chain: _Chain, record: Record, message: dict[str, Any], stamp: int) -> None:
        """Claude Code's own assistant records: API errors become Pi's error messages (never sent again);
        others (an interrupted turn's "No response requested.") keep their text."""
        model = chain.model or resolve_model(self.pi, PROVIDER, SYNTHETIC_MODEL)
        mapped = assistant_blocks(message.get("content"))
        text = "\n".join(block["text"] for block in mapped.blocks if block["type"] == "text")
        is_error = bool(record.value.get("isApiErrorMessage"))
        pi_message: dict[str, Any] = {"role": "assistant", "content": [] if is_error else mapped.blocks,
                                      "api": model.api, "provider": model.provider, "model": model.model_id,
                                      "usage": pi_usage(model, input_tokens=0, output_tokens=0, cache_read=0,
                                                        cache_write=0),
                                      "stopReason": "error" if is_error else "stop", "timestamp": stamp}
        if is_error:
            pi_message["errorMessage"] = text or str(record.value.get("error") or "API error")
        chain.builder.message(pi_message, timestamp=iso(stamp), source_id=self._source_id(record))
        chain.response = None
        chain.messages += 1
        kind = "API error" if is_error else "Claude Code's own assistant text"
        self.report.mapped[f"assistant ({kind})"] += 1
        self.fill_ins[f"{kind} ({SYNTHETIC_MODEL}) was recorded under the session's model "
                      f"{model.provider}/{model.model_id} with no usage"] += 1

    # --- compactions ----------------------------------------------------------------------------------------

    def _compact_boundary(self, chain: _Chain, record: Record) -> None:
        if chain.compaction is not None:
            self._compaction(chain, chain.compaction, None, self._stamp(chain, record))
        logical = record.value.get("logicalParentUuid")
        entry = chain.entries_of.get(logical) if isinstance(logical, str) else None
        if entry is not None:
            chain.builder.go_to(entry)
        elif isinstance(logical, str):
            self.report.note(record.line, f"the compaction's previous record {logical} is not in the file; "
                                          "it follows the record before it")
        chain.compaction = record
        chain.response = None

    def _compaction(self, chain: _Chain, boundary: Record, content: Any, stamp: int) -> None:
        """The compaction of `boundary`, summarised by `content` (the summary record's), else by its own text."""
        chain.compaction = None
        if isinstance(content, list):
            content = "\n".join(str(block.get("text") or "") for block in content
                                if isinstance(block, dict) and block.get("type") == "text")
        summary = content if isinstance(content, str) and content else None
        if summary is None:
            summary = str(boundary.value.get("content") or "Conversation compacted")
            self.report.note(boundary.line, "a compaction without its summary record; its summary is the "
                                            "boundary's text")
        metadata = boundary.value.get("compactMetadata")
        before = metadata.get("preTokens") if isinstance(metadata, dict) else None
        if not isinstance(before, int):
            before = 0
            self.report.note(boundary.line, "a compaction without preTokens; tokensBefore is 0")
        chain.builder.compaction(summary, first_kept_entry_id=None, tokens_before=before,
                                 timestamp=iso(stamp_ms(boundary.value.get("timestamp")) or stamp),
                                 source_id=self._source_id(boundary))
        uuid = boundary.value.get("uuid")
        if isinstance(uuid, str) and chain.builder.leaf is not None:
            chain.entries_of[uuid] = chain.builder.leaf
        self.report.mapped["compaction"] += 1

    # --- the end --------------------------------------------------------------------------------------------

    def _finish(self) -> None:
        for chain in self.chains.values():
            if chain.compaction is not None:
                self._compaction(chain, chain.compaction, None, chain.last_ms or 0)
            for response in chain.responses:
                if not response.stop_known:
                    calls = any(block["type"] == "toolCall" for block in response.message["content"])
                    response.message["stopReason"] = "toolUse" if calls else "stop"
                    self.fill_ins["an assistant message without a stop reason got toolUse when it calls tools, "
                                  "else stop"] += 1
            if chain.calls:
                answered = {entry["message"].get("toolCallId") for entry in chain.builder.entries
                            if entry["type"] == "message" and entry["message"].get("role") == "toolResult"}
                missing = [call for call in chain.calls if call not in answered]
                if missing:
                    self.report.note(None, f"{len(missing)} tool call(s) in {chain.label} have no result (an "
                                           "interrupted turn); Pi sends them with its own error result")
        main = self.chains.get("main") or next(iter(self.chains.values()), None)
        if main is not None and self.titles:
            chosen = self.titles[-1]
            for record in self.titles:
                if record.value.get("type") == "custom-title":
                    chosen = record
            field_name = _TITLE_FIELDS[chosen.value["type"]]
            title = chosen.value.get(field_name)
            if isinstance(title, str) and title.strip():
                main.builder.session_info(title, timestamp=iso(main.last_ms or self.start_ms or 0),
                                          source_id=f"title line {chosen.line}")
                self.report.mapped["session_info (title)"] += 1
            for record in self.titles:
                if record is not chosen:
                    main.builder.custom(CUSTOM_PREFIX + record.value["type"], record.value,
                                        timestamp=iso(main.last_ms or self.start_ms or 0),
                                        source_id=f"title line {record.line}")
                    self.report.custom[record.value["type"]] += 1
        for text, count in sorted(self.fill_ins.items()):
            self.report.note(None, f"{count} × {text}")

    def _dropped(self, record: Record, mapped: Mapped) -> None:
        for kind, why in mapped.dropped:
            self.report.dropped[kind] += 1
            self.report.note(record.line, f"{kind} left out: {why}")


_KNOWN_RECORDS = frozenset({"file-history-snapshot", "queue-operation", "progress", "attachment", "last-prompt",
                            "pr-link", "agent-name", "tag", "summary", "custom-title", "ai-title"})
"""Claude Code's record types besides user, assistant and system: kept as custom entries without a note."""


def _count(value: Any) -> int:
    return value if isinstance(value, int) and not isinstance(value, bool) and value >= 0 else 0
