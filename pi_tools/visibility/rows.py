"""Which reader gets each stored entry: the runtime context, the model, Pi's terminal UI (storage gets all).

People debugging a session ask "did the model see this?" and "why is this not on screen?". The answers come
from four different mechanisms in Pi (the active path, compaction, convertToLlm plus the provider's
transformMessages, and the TUI's renderer), so each row names the mechanism that said no. Custom roles are
decided by the role registry (`model_hidden` / `tui_hidden`), never by role names here.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from pi_tools.js.values import UNDEFINED, js_set_key
from pi_tools.messages.roles import UNDRAWN, RoleRegistry, default_registry
from pi_tools.session.context import PI_085_RULES, ContextRules, context_entries
from pi_tools.session.tree import ENTRY_TYPES, SessionTree

if TYPE_CHECKING:
    from pi_tools.pi import PiVersion
    from pi_tools.providers.edition import Edition

LLM_ROLES = frozenset({"user", "assistant", "toolResult"})
SETTINGS_TYPES = ("model_change", "thinking_level_change")  # a tuple: stored types may be unhashable

# Reason codes (stable: tools match on them). Each says which mechanism left the entry out.
OTHER_BRANCH = "other-branch"  # not on the path from the root to the leaf
COMPACTED_AWAY = "compacted-away"  # on the path, but before the latest compaction's first kept entry
SETTINGS_ENTRY = "settings-entry"  # model/thinking changes: read as settings, never a message
LABEL_ENTRY = "label-entry"
SESSION_INFO_ENTRY = "session-info-entry"
CUSTOM_ENTRY = "custom-entry"  # extension data: never in the context; TUI only through an extension renderer
EMPTY_SUMMARY = "empty-summary"  # a branch summary with empty text projects to no message
UNKNOWN_ENTRY_TYPE = "unknown-entry-type"
NOT_AN_ENTRY = "not-an-entry"  # a JSON value that is not an object (Pi keeps it, ignores it)
BAD_MESSAGE = "bad-message"  # a message entry without a message object
UNKNOWN_ROLE = "unknown-role"  # convertToLlm drops roles it does not know; the TUI renders nothing
DROPPED_BY_CONVERSION = "dropped-by-convertToLlm"
ERRORED_TURN = "errored-turn-skipped"  # transformMessages drops assistant turns that stopped with error/aborted
NO_TEXT = "no-text"  # a user message whose text blocks join to "" (e.g. image only) renders nothing
UNMATCHED_TOOL_RESULT = "unmatched-tool-result"  # no rendered, still-pending tool call with this id
# Pi 1.6's (only its sessions hold what they name):
EDITED_AWAY = "removed-by-context-edit"  # the latest context_edit of the entry has `replacement: null`
OLDER_COMPACTION = "older-compaction"  # a compaction inside the latest one's kept range gives the model nothing
SUPERSEDED_SYSTEM = "superseded-by-compaction"  # a system message in the latest compaction's kept range
USAGE_ENTRY = "usage-entry"  # spending (cache warming, ...): no message; Pi's TUI draws none by default
CONTEXT_EDIT_ENTRY = "context-edit-entry"  # changes another entry's messages; none of its own
SYSTEM_MESSAGE = "system-message"  # sent to the model, never drawn by Pi's TUI


@dataclass
class VisibilityRow:
    entry: Any
    line: int
    context: str | None  # None = yes, else the reason for no
    model: str | None
    tui: str | None
    edit: dict[str, Any] | None = None
    """Pi 1.6's context edits: on an edited entry, the edit and what the model gets instead (`by`, `line`,
    `action` replaced/removed, and for a replacement the `content` sent); on a context_edit entry, its `target`
    and `action`, and whether it `applied`."""

    def document(self, source: str, api: str | None, pi: str | None = None) -> dict[str, Any]:
        entry = self.entry if isinstance(self.entry, dict) else {}
        message = entry.get("message") if entry.get("type") == "message" else None
        entry_id = entry.get("id")
        row: dict[str, Any] = {
            "kind": "visibility", "source": source, **({"pi": pi} if pi is not None else {}),
            "entryId": entry_id if isinstance(entry_id, str) else None, "line": self.line,
            "type": entry.get("type") if isinstance(entry.get("type"), str) else None,
            "role": message.get("role") if isinstance(message, dict) and isinstance(message.get("role"), str)
            else None,
            "stored": True, "context": self.context is None, "model": self.model is None, "tui": self.tui is None,
        }
        if api is not None:
            row["api"] = api
        row["reasons"] = {name: reason for name, reason in
                          (("context", self.context), ("model", self.model), ("tui", self.tui)) if reason}
        if self.edit is not None:
            row["edit"] = self.edit
        return row


def representative_model(api: str, tree: SessionTree, path: list[Any], catalog: str | None = None) -> dict[str, Any]:
    """The model transformMessages runs for: the session's current model if it speaks `api`, else the first
    catalog model that does (only same-model checks depend on the choice, and they do not hide anything). An API
    that borrows catalog models (providers.table.model_speaking) takes the session's model, else the first.
    `catalog`: the Pi version's (default: the base edition's)."""
    from pi_tools.providers.catalog import DEFAULT_CATALOG, all_models, get_model
    from pi_tools.providers.errors import UnknownModelError
    from pi_tools.providers.table import model_speaking
    from pi_tools.session.context import context_settings

    catalog = catalog or DEFAULT_CATALOG
    try:
        _, current = context_settings(path)
    except Exception:  # noqa: BLE001 - a broken path only loses the preference for the session's own model
        current = None
    if current and isinstance(current.get("provider"), str) and isinstance(current.get("modelId"), str):
        try:
            speaking = model_speaking(api, get_model(current["provider"], current["modelId"], catalog))
            if speaking is not None:
                return speaking
        except UnknownModelError:
            pass
    for model in all_models(catalog=catalog):
        speaking = model_speaking(api, model)
        if speaking is not None:
            return speaking
    raise ValueError(f"no catalog model speaks the API {api!r}")


def _context_reason(entry: Any, entry_types: frozenset[str] = ENTRY_TYPES) -> str | None:
    """Why an entry on the context list still adds no message (None when it adds one); `entry_types`: those the
    Pi version knows."""
    if not isinstance(entry, dict):
        return NOT_AN_ENTRY
    entry_type = entry.get("type")
    if entry_type in SETTINGS_TYPES:
        return SETTINGS_ENTRY
    if entry_type == "label":
        return LABEL_ENTRY
    if entry_type == "session_info":
        return SESSION_INFO_ENTRY
    if entry_type == "custom":
        return CUSTOM_ENTRY
    if entry_type == "branch_summary":
        return EMPTY_SUMMARY
    if entry_type == "message":
        return BAD_MESSAGE
    if type(entry_type) is not str or entry_type not in entry_types:
        return UNKNOWN_ENTRY_TYPE
    if entry_type == "usage":
        return USAGE_ENTRY
    if entry_type == "context_edit":
        return CONTEXT_EDIT_ENTRY
    return None


def _model_reason(message: Any, registry: RoleRegistry, passed_through: frozenset[str] = LLM_ROLES) -> str | None:
    """Why convertToLlm leaves a context message out (None when it is converted; `passed_through`: the roles the
    Pi version's convertToLlm returns as they are)."""
    if not isinstance(message, dict):
        return BAD_MESSAGE
    role = message.get("role")
    if type(role) is str and role in passed_through:
        return None
    spec = registry.get(role)
    if spec is None:
        return UNKNOWN_ROLE
    if spec.to_llm(message) is None:
        return spec.model_hidden(message) or DROPPED_BY_CONVERSION
    return None


def _errored_turns(messages: list[Any], model: dict[str, Any], api: str, edition: Edition | None = None) -> set[int]:
    """Indexes (into `messages`) of LLM messages that transformMessages (`edition`'s, default the base edition's)
    drops for this model.

    transformMessages only ever removes assistant turns and only inserts synthetic tool results (stamped here
    with an impossible time so they can be told apart), so walking both lists in order pairs them up. The system
    messages it may hold past a tool batch's results are never dropped: they are left out of the walk. An API
    sending the messages as stored (no transformMessages) drops none.
    """
    from pi_tools.providers.edition import BASE
    from pi_tools.providers.registry import adapter, normalize_tool_call_id_for
    from pi_tools.providers.transform_messages import transform_messages

    edition = edition or BASE
    if adapter(api, edition).sends_messages_as_stored:
        return set()
    synthetic_stamp = -1
    transformed = transform_messages(messages, model, normalize_tool_call_id_for(api, edition),
                                     now_ms=lambda: synthetic_stamp, rules=edition.transform)
    kept = [m for m in transformed if not (m.get("timestamp") == synthetic_stamp and _is_synthetic(m))
            and m.get("role") != "system"]
    dropped: set[int] = set()
    position = 0
    for index, message in enumerate(messages):
        if message.get("role") == "system":
            continue
        candidate = kept[position] if position < len(kept) else None
        if candidate is not None and candidate.get("role") == message.get("role") \
                and candidate.get("timestamp") == message.get("timestamp"):
            position += 1
        else:
            dropped.add(index)
    return dropped


def _is_synthetic(message: dict[str, Any]) -> bool:
    from pi_tools.providers.transform_messages import MISSING_RESULT_TEXT

    content = message.get("content")
    return message.get("role") == "toolResult" and message.get("isError") is True \
        and isinstance(content, list) and len(content) == 1 \
        and content[0] == {"type": "text", "text": MISSING_RESULT_TEXT}


def _user_text(message: dict[str, Any]) -> str:
    """The text Pi's TUI shows for a user message: the string, or its text blocks joined."""
    content = message.get("content")
    if isinstance(content, str):
        return content
    if not isinstance(content, list):
        return ""
    return "".join(str(block.get("text")) for block in content
                   if isinstance(block, dict) and block.get("type") == "text")


class _TuiReplay:
    """Pi's renderSessionItems in miniature: what reaches the chat, including tool-result matching."""

    def __init__(self, registry: RoleRegistry, undrawn: frozenset[str] = UNDRAWN) -> None:
        self.registry = registry
        self.undrawn = undrawn
        self.pending_calls: set[Any] = set()

    def reasons(self, messages: list[Any]) -> str | None:
        """An entry's messages drawn in order: None when one of them is drawn, else the first one's reason."""
        found = [self.reason(message) for message in messages]
        return None if None in found else found[0]

    def reason(self, message: Any) -> str | None:
        if not isinstance(message, dict):
            return BAD_MESSAGE
        role = message.get("role")
        if role == "assistant":
            content = message.get("content")
            failed = message.get("stopReason") in ("error", "aborted")
            for block in content if isinstance(content, list) else []:
                if isinstance(block, dict) and block.get("type") == "toolCall" and not failed:
                    self.pending_calls.add(js_set_key(block.get("id")))
            return None
        if role == "toolResult":
            call_id = js_set_key(message.get("toolCallId"))  # as the TUI's Map: true is not 1, an object only itself
            if call_id not in self.pending_calls:
                return UNMATCHED_TOOL_RESULT
            self.pending_calls.discard(call_id)
            return None
        if role == "user":
            return None if _user_text(message) else NO_TEXT
        if type(role) is str and role in self.undrawn:
            return SYSTEM_MESSAGE
        spec = self.registry.get(role)
        if spec is None:
            return UNKNOWN_ROLE
        return spec.tui_hidden(message)


def visibility_rows(tree: SessionTree, leaf_id: Any = UNDEFINED, api: str | None = None,
                    version: PiVersion | None = None) -> Iterator[VisibilityRow]:
    """One row per stored entry (file order) for the leaf (default: the session's own leaf), as the Pi `version`
    builds and draws contexts (None: Pi 0.85)."""
    registry = default_registry()
    rules: ContextRules = version.context if version is not None else PI_085_RULES
    passed_through = version.passed_through if version is not None else LLM_ROLES
    undrawn = version.undrawn_roles if version is not None else UNDRAWN
    entry_types = rules.vocabulary.entry_types
    path = tree.path(tree.leaf_id if leaf_id is UNDEFINED else leaf_id)
    on_path = {id(entry) for entry in path}
    selected = rules.context_entries(path)
    in_context = {id(entry) for entry in selected}
    superseded = {id(entry) for entry in context_entries(path)} - in_context  # what 1.6 drops of the kept range

    # Walk the context list in order, as Pi builds the context and renders the chat.
    verdicts: dict[int, tuple[str | None, str | None, str | None]] = {}
    edits: dict[int, dict[str, Any]] = {}
    tui = _TuiReplay(registry, undrawn)
    sent: list[Any] = []
    sent_owner: list[int] = []
    for entry, (edit, messages, drawn) in zip(selected, rules.projected(selected, tree.materialize), strict=True):
        if isinstance(entry, dict) and entry.get("type") == "custom":
            verdicts[id(entry)] = (CUSTOM_ENTRY, CUSTOM_ENTRY, CUSTOM_ENTRY)
            continue
        if not drawn or not isinstance(drawn[0], dict):
            reason = _context_reason(entry, entry_types)
            verdicts[id(entry)] = (reason, reason, reason)
            continue
        tui_reason = tui.reasons(drawn)
        if edit is not None:
            edits[id(entry)] = _edit_of(tree, edit, messages)
        if not messages:
            reason = EDITED_AWAY if edit is not None else OLDER_COMPACTION
            verdicts[id(entry)] = (reason, reason, tui_reason)
            continue
        model_reasons = []
        for message in messages:
            model_reason = _model_reason(message, registry, passed_through)
            model_reasons.append(model_reason)
            if model_reason is None and type(message.get("role")) is str and message["role"] in passed_through:
                sent.append(message)
                sent_owner.append(id(entry))
            elif model_reason is None:
                spec = registry.get(message.get("role"))
                converted = spec.to_llm(message) if spec is not None else None
                sent.append(converted)
                sent_owner.append(id(entry))
        verdicts[id(entry)] = (None, None if None in model_reasons else model_reasons[0], tui_reason)
    if api is not None and sent:
        edition = version.requests if version is not None else None
        model = representative_model(api, tree, path, edition.catalog if edition is not None else None)
        for index in _errored_turns(sent, model, api, edition):
            context_reason, _, tui_reason = verdicts[sent_owner[index]]
            verdicts[sent_owner[index]] = (context_reason, ERRORED_TURN, tui_reason)
    applied = {id(edit_entry["entry"]): edit_entry["action"] for edit_entry in edits.values()}

    for entry, line in zip(tree.entries, tree.line_numbers, strict=True):
        verdict = verdicts.get(id(entry))
        if verdict is None:
            if not isinstance(entry, dict):
                reason = NOT_AN_ENTRY
            elif id(entry) in on_path and entry.get("type") in SETTINGS_TYPES:
                reason = SETTINGS_ENTRY  # settings are read from the whole path, compaction or not
            elif id(entry) in in_context:  # listed but produced nothing above (cannot happen; stay safe)
                reason = _context_reason(entry, entry_types) or BAD_MESSAGE
            elif id(entry) in superseded:
                reason = SUPERSEDED_SYSTEM
            else:
                reason = COMPACTED_AWAY if id(entry) in on_path else OTHER_BRANCH
            verdict = (reason, reason, reason)
        edit_info = edits.get(id(entry))
        if edit_info is not None:
            edit_info = {key: value for key, value in edit_info.items() if key != "entry"}
        elif isinstance(entry, dict) and entry.get("type") == "context_edit" and "context_edit" in entry_types:
            target = entry.get("targetId")
            replacement = entry.get("replacement", UNDEFINED)
            edit_info = {"target": target if isinstance(target, str) else None,
                         "action": "removes" if replacement is None else "replaces",
                         "applied": id(entry) in applied}
        yield VisibilityRow(entry, line, *verdict, edit=edit_info)


def _edit_of(tree: SessionTree, edit: dict[str, Any], messages: list[Any]) -> dict[str, Any]:
    """What a context edit did to the entry it targets: which edit, and what the model gets instead."""
    edit_id = edit.get("id")
    info: dict[str, Any] = {"entry": edit, "by": edit_id if isinstance(edit_id, str) else None,
                            "line": tree.line_of(edit), "action": "removed" if not messages else "replaced"}
    if messages:
        info["content"] = [message.get("content") if isinstance(message, dict) else None for message in messages] \
            if len(messages) > 1 else (messages[0].get("content") if isinstance(messages[0], dict) else None)
    return info


def render_table(rows: list[VisibilityRow], width: int = 120) -> str:
    """A table for people: line, id, what it is, the three verdicts and the reasons, then a short preview."""
    from pi_tools.session.preview import entry_preview, shorten

    def mark(reason: str | None) -> str:
        return "yes" if reason is None else "no"

    headers = ["line", "id", "type/role", "context", "model", "tui", "why not", "text"]
    body: list[list[str]] = []
    for row in rows:
        entry = row.entry if isinstance(row.entry, dict) else {}
        message = entry.get("message") if entry.get("type") == "message" else None
        kind = str(entry.get("type", "?")) if entry else type(row.entry).__name__
        if isinstance(message, dict):
            kind = f"{kind}/{message.get('role')}"
        reasons = []
        for reason in (row.context, row.model, row.tui):
            if reason and reason not in reasons:
                reasons.append(reason)
        if row.edit is not None and "by" in row.edit:  # which edit: beside its reason, or as the reason to look
            if row.edit["action"] == "removed":
                reasons = [f"{reason} {row.edit['by']}" if reason == EDITED_AWAY else reason for reason in reasons]
            else:
                reasons.append(f"replaced by {row.edit['by']}")
        entry_id = entry.get("id")
        body.append([str(row.line), str(entry_id) if entry_id is not None else "-", kind, mark(row.context),
                     mark(row.model), mark(row.tui), ", ".join(reasons), ""])
    widths = [max(len(cells[i]) for cells in [headers, *body]) for i in range(len(headers) - 1)]
    preview_width = max(20, width - sum(widths) - 2 * len(widths))
    lines = ["  ".join(h.ljust(w) for h, w in zip(headers, widths, strict=False)) + "  text"]
    for row, cells in zip(rows, body, strict=True):
        preview = shorten(_preview(row, entry_preview), preview_width)
        lines.append("  ".join(c.ljust(w) for c, w in zip(cells, widths, strict=False)) + "  " + preview)
    return "\n".join(line.rstrip() for line in lines) + "\n"


def _preview(row: VisibilityRow, entry_preview: Any) -> str:
    """The entry's one-line text; for an entry a context edit replaced, what the model gets instead after it."""
    text: str = entry_preview(row.entry)
    if row.edit is not None and row.edit.get("action") == "replaced":
        from pi_tools.session.preview import message_text

        content = row.edit.get("content")
        text += " ⇒ sent: " + message_text({"content": content})
    return text
