"""buildSessionContext: the AgentMessage[] Pi hands its agent for a leaf, with model and thinking level.

Follows pi-coding-agent's session-manager exactly: settings come from the whole path (compaction does not hide
them), messages from the compaction-aware entry list, and each entry is projected as Pi projects it (summary
and custom messages get `new Date(entry.timestamp).getTime()` timestamps).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from pi_tools.js.date import js_date_ms
from pi_tools.js.values import UNDEFINED, js_strict_equal, js_truthy
from pi_tools.session.diagnostics import Diagnostic, diagnostic
from pi_tools.session.tree import PI_085_VOCABULARY, PathCycleError, SessionTree, Vocabulary

if TYPE_CHECKING:
    from pi_tools.session.bulk import BulkSession

# Pi appends the entries after a compaction with one spread call; V8 overflows its stack above roughly this
# many arguments (measured with the reference's Node 22: 125k works, 130k fails; stack depth varies, so warn early).
PI_SPREAD_LIMIT = 120_000


class ContextError(Exception):
    """Pi itself throws while building this context; the message is the text Pi's error carries."""


@dataclass
class SessionContext:
    messages: list[Any]
    thinking_level: Any
    model: dict[str, Any] | None
    leaf_id: Any
    diagnostics: list[Diagnostic] = field(default_factory=list)


def _kept(source: dict[str, Any], pairs: tuple[tuple[str, str], ...]) -> dict[str, Any]:
    """Copy the keys that exist (JavaScript drops undefined members when serialising)."""
    return {target: source[key] for target, key in pairs if key in source}


def context_settings(path: list[Any]) -> tuple[Any, dict[str, Any] | None]:
    """Thinking level and model from the whole path (getSessionContextSettings)."""
    thinking_level: Any = "off"
    model: dict[str, Any] | None = None
    for entry in path:
        if not isinstance(entry, dict):
            continue
        entry_type = entry.get("type")
        if entry_type == "thinking_level_change":
            thinking_level = entry.get("thinkingLevel", UNDEFINED)  # a missing one: undefined, not null
        elif entry_type == "model_change":
            model = _kept(entry, (("provider", "provider"), ("modelId", "modelId")))
        elif entry_type == "message":
            message = entry.get("message", UNDEFINED)
            if message is UNDEFINED or message is None:
                kind = "undefined" if message is UNDEFINED else "null"
                raise ContextError(f"Cannot read properties of {kind} (reading 'role')")
            if isinstance(message, dict) and message.get("role") == "assistant":
                model = _kept(message, (("provider", "provider"), ("modelId", "model")))
    return thinking_level, model


def context_entries(path: list[Any], kept_filter: Callable[[Any], bool] | None = None) -> list[Any]:
    """The compaction-aware entry list (buildContextEntries): latest compaction, kept entries, the rest.

    `kept_filter` (Pi 1.6's rules, session/projection.py) says which entries of the kept range stay."""
    compaction_index = -1
    for index, entry in enumerate(path):
        if isinstance(entry, dict) and entry.get("type") == "compaction":
            compaction_index = index
    if compaction_index < 0:
        return path
    compaction = path[compaction_index]
    # Pi finds the compaction again by id (the first match wins with duplicate or missing ids).
    compaction_id = _js_id(compaction)
    if type(compaction_id) is str:
        compaction_index = next(
            i for i, entry in enumerate(path)
            if type(entry) is dict and entry.get("id") == compaction_id and type(entry.get("id")) is str
        )
    else:
        compaction_index = next(i for i, entry in enumerate(path) if js_strict_equal(_js_id(entry), compaction_id))
    first_kept = compaction.get("firstKeptEntryId", UNDEFINED)
    start = compaction_index
    for index in range(compaction_index):
        entry = path[index]
        if type(first_kept) is str and isinstance(entry, dict):  # a migrated array line has an id too
            if entry.get("id") == first_kept and type(entry.get("id")) is str:
                start = index
                break
        elif js_strict_equal(_js_id(entry), first_kept):
            start = index
            break
    kept = path[start:compaction_index]
    if kept_filter is not None:
        kept = [entry for entry in kept if kept_filter(entry)]
    return [compaction, *kept, *path[compaction_index + 1:]]


def _entry_time(entry: dict[str, Any]) -> int | float:
    """`new Date(entry.timestamp).getTime()`: a missing timestamp is undefined (NaN), not null (0); NaN is kept
    as a float NaN, which JSON writes as null but which the payload stages still compare as NaN (a stored null
    message timestamp, by contrast, is 0 to them, as Number(null) is)."""
    time = js_date_ms(entry.get("timestamp", UNDEFINED))
    return math.nan if time is None else time


def _js_id(entry: Any) -> Any:
    """`entry.id` in JavaScript: undefined for junk values and entries without an id."""
    return entry.get("id", UNDEFINED) if isinstance(entry, dict) else UNDEFINED


def entry_to_messages(entry: Any) -> list[Any]:
    """Project one entry into context messages (sessionEntryToContextMessages)."""
    if not isinstance(entry, dict):
        return []
    entry_type = entry.get("type")
    if entry_type == "message":
        message = entry.get("message")
        if isinstance(message, dict) and message.get("role") in ("user", "assistant", "toolResult") \
                and message.get("content") is None:
            return [{**message, "content": []}]
        return [message]
    if entry_type == "custom_message":
        out: dict[str, Any] = {"role": "custom"}
        if "customType" in entry:
            out["customType"] = entry["customType"]
        content = entry.get("content")
        out["content"] = [] if content is None else content
        for key in ("display", "details"):
            if key in entry:
                out[key] = entry[key]
        out["timestamp"] = _entry_time(entry)
        return [out]
    if entry_type == "branch_summary" and js_truthy(entry.get("summary")):
        out = {"role": "branchSummary", "summary": entry["summary"]}
        if "fromId" in entry:
            out["fromId"] = entry["fromId"]
        out["timestamp"] = _entry_time(entry)
        return [out]
    if entry_type == "compaction":
        out = {"role": "compactionSummary", **_kept(entry, (("summary", "summary"), ("tokensBefore", "tokensBefore")))}
        out["timestamp"] = _entry_time(entry)
        return [out]
    return []


MESSAGELESS_TYPES = frozenset({"label", "model_change", "thinking_level_change", "custom", "session_info"})
"""The entry types of Pi 0.85 that are tree nodes but never give the context a message (entry_to_messages gives
none of them one): settings, labels, extensions' state and the session's name."""


def entry_message_count(entry: Any) -> int:
    """len(entry_to_messages(entry)) without making the messages (a summary's timestamp is not parsed): where a
    planned context's messages start and end is asked of every entry that is not a message line."""
    if not isinstance(entry, dict):
        return 0
    entry_type = entry.get("type")
    if entry_type in ("message", "custom_message", "compaction"):
        return 1
    return 1 if entry_type == "branch_summary" and js_truthy(entry.get("summary")) else 0


class ContextRules:
    """How one Pi version builds a context from a path: Pi 0.85's rules (this module's functions).

    A Pi version whose context building differs subclasses it beside this module (session/projection.py holds
    Pi 1.6's) and the version's module (pi_tools/pi/) selects it; the stages take the rules they are given and
    never ask which version they run.
    """

    vocabulary: Vocabulary = PI_085_VOCABULARY
    """The entry types and roles this version knows (the rest is diagnosed as unknown)."""
    who = "Pi 0.85"
    """How diagnostics name the Pi that builds contexts by these rules."""
    held_roles: frozenset[str] = frozenset()
    """Message roles that never come between a tool call and its results: transformMessages holds them until the
    batch's results are in (audit does not take them for an interruption)."""
    own_id_keeps_nothing = False
    """Whether a compaction whose firstKeptEntryId is its own id is the writer's way to keep nothing (then audit
    says so, rather than that the id does not resolve)."""
    context_edits = False
    """Whether `context_edit` entries change the context (audit then checks what each edit does)."""
    declares_tools = False
    """Whether system messages declare the tools (`toolsAdded`, `toolsRemoved`) the model may call."""
    kept_filter: Callable[[Any], bool] | None = None
    """Which entries of the latest compaction's kept range stay in the context (None: every one)."""

    def context_entries(self, path: list[Any]) -> list[Any]:
        """buildContextEntries: the compaction-aware entry list of a path."""
        return context_entries(path, self.kept_filter)

    def entry_messages(self, entry: Any) -> list[Any]:
        """sessionEntryToContextMessages: one entry's messages."""
        return entry_to_messages(entry)

    def messages(self, entries: list[Any], materialize: Any) -> Iterator[Any]:
        """The context messages of a compaction-aware entry list (each entry made whole by `materialize` only
        now, for lazy trees)."""
        entry_messages = self.entry_messages
        for entry in entries:
            yield from entry_messages(materialize(entry))

    def projected(self, entries: list[Any], materialize: Any) -> list[tuple[Any, list[Any], list[Any]]]:
        """`messages` entry by entry, for views that say what happened to each entry: per entry of the list, the
        context edit that changed its messages (None: none did; 0.85 has no edits), the messages it gives the
        context, and the messages it gives before any edit (sessionEntryToContextMessages: what Pi's TUI draws
        for it)."""
        entry_messages = self.entry_messages
        out: list[tuple[Any, list[Any], list[Any]]] = []
        for entry in entries:
            messages = entry_messages(materialize(entry))
            out.append((None, messages, messages))
        return out

    def entry_projections(self, entries: list[Any]) -> Iterator[tuple[Any, list[Any]]]:
        """Each entry of a compaction-aware entry list with the messages it gives the context (`messages`,
        entry by entry: what rewrites that keep or drop entries by their messages need)."""
        for entry in entries:
            yield entry, self.entry_messages(entry)

    def check(self, entries: list[Any], materialize: Any) -> None:
        """Raise ContextError where Pi throws while projecting these entries (0.85 never does; its throws come
        from the settings). Called while planning, so that a stage that writes the messages lazily fails before
        it writes anything."""

    def planned_projection(self, bulk: BulkSession, entries: list[int]) -> dict[int, list[Any]]:
        """The messages of the positions of a bulk plan's entry list (line indices, `kept_filter` applied) that
        do not give what the bulk index reads of them by itself (a message line its message, another entry
        entry_to_messages of it), by position; raises ContextError where Pi throws (as `check`). 0.85: none."""
        return {}

    def bulk_fits(self, bulk: BulkSession) -> bool:
        """Whether the bulk index's plan (its compaction-aware list of lines, `kept_filter` and
        `planned_projection` applied) gives this version's context for this file; if not, the file is read by
        the line-by-line reader."""
        return True

    def bulk_entries_fit(self, bulk: BulkSession) -> bool:
        """Whether every entry of this file gives this version's context what the bulk index reads of it by
        itself (planned_projection has nothing to do whatever the leaf): the views that read the index's lines
        rather than its plan's messages (audit, index) take only such files in bulk."""
        return True


PI_085_RULES = ContextRules()


@dataclass
class ContextPlan:
    """Everything about a context except its messages: which entries produce them, and the settings.

    Separating the plan from the messages lets stages stream the messages (parse, convert, write, forget)
    instead of holding a whole large session in memory.
    """

    entries: list[Any]
    thinking_level: Any
    model: dict[str, Any] | None
    leaf_id: Any
    diagnostics: list[Diagnostic]
    rules: ContextRules = PI_085_RULES
    projected: dict[int, list[Any]] = field(default_factory=dict)
    """A bulk plan's `rules.planned_projection`: the messages of the entries (by position) that give other than
    what the index reads of them."""


def plan_session_context(tree: SessionTree, leaf_id: Any = UNDEFINED,
                         rules: ContextRules = PI_085_RULES) -> ContextPlan:
    """Path, settings and compaction-aware entry list for a leaf (default: the session's own leaf)."""
    effective_leaf = tree.leaf_id if leaf_id is UNDEFINED else leaf_id
    diagnostics: list[Diagnostic] = []
    try:
        path = tree.path(effective_leaf)
    except PathCycleError as exc:
        raise ContextError(str(exc)) from None
    thinking_level, model = context_settings(path)
    selected = rules.context_entries(path)
    rules.check(selected, tree.materialize)
    if len(selected) != len(path):
        after = len(path) - 1 - next(
            i for i in range(len(path) - 1, -1, -1)
            if isinstance(path[i], dict) and path[i].get("type") == "compaction"
        )
        if after > PI_SPREAD_LIMIT:
            diagnostics.append(pi_cannot_load(after, tree.line_of(path[-after - 1]), rules.who))
    return ContextPlan(selected, thinking_level, model, effective_leaf, diagnostics, rules)


def pi_cannot_load(after: int, compaction_line: int | None, who: str = "Pi 0.85") -> Diagnostic:
    return diagnostic(
        "pi-cannot-load",
        f"{after} entries follow the latest compaction on this path; {who} overflows its stack past "
        f"about {PI_SPREAD_LIMIT} (Maximum call stack size exceeded) and cannot open this session",
        compaction_line, "warning")


def iter_context_messages(tree: SessionTree, entries: list[Any],
                          rules: ContextRules = PI_085_RULES) -> Iterator[Any]:
    """The context messages of planned entries, each entry parsed in full only now (lazy trees)."""
    return rules.messages(entries, tree.materialize)


def build_session_context(tree: SessionTree, leaf_id: Any = UNDEFINED,
                          rules: ContextRules = PI_085_RULES) -> SessionContext:
    """Context for `leaf_id` (default: the session's own leaf, as Pi reloads it), by a Pi version's rules
    (default: Pi 0.85's)."""
    plan = plan_session_context(tree, leaf_id, rules)
    messages = list(iter_context_messages(tree, plan.entries, rules))
    return SessionContext(messages, plan.thinking_level, plan.model, plan.leaf_id, plan.diagnostics)
