"""Pi 1.6's context building (buildSessionProjection), beside Pi 0.85's in context.py.

What 1.6 changed in pi-coding-agent's session-manager, and nothing else:

- `usage` and `context_edit` are entry types, and `system` a message role (pi-ai's SystemMessage); none is
  diagnosed as unknown. Neither new entry contributes a message; both are tree nodes and can be the leaf.
- sessionEntryToContextMessages: a system message with null or missing content gets `content: ""`; a compaction
  with a truthy `systemMessage` gives `[systemMessage, compactionSummary]`.
- buildContextEntries drops system messages inside the latest compaction's kept range (the compaction's own
  `systemMessage` replaces them); a `firstKeptEntryId` naming the compaction itself keeps nothing, as any id not
  found before it does.
- buildSessionProjection: the latest `context_edit` per target among the compaction-aware entries (whether it
  stands before or after its target) replaces the content of the target's user, assistant, toolResult and
  custom messages, or (`replacement: null`) removes all of the target's messages; and an older compaction that
  lies inside the latest one's kept range contributes nothing (0.85 gave its summary again).

pi_tools/pi/v1_6.py selects these rules; the stages take them as they take 0.85's.
"""

from __future__ import annotations

from collections.abc import Iterator
from itertools import compress, count, repeat
from operator import eq
from typing import TYPE_CHECKING, Any

from pi_tools.js.values import UNDEFINED, js_double, js_truthy
from pi_tools.session.context import (
    MESSAGELESS_TYPES,
    ContextError,
    ContextRules,
    context_entries,
    entry_to_messages,
)
from pi_tools.session.line_format import ENTRY_TYPES
from pi_tools.session.tree import ENTRY_FIELDS, MESSAGE_FIELDS, Vocabulary

if TYPE_CHECKING:
    from pi_tools.session.bulk import BulkSession

PI_16_VOCABULARY = Vocabulary(
    entry_types=ENTRY_TYPES | {"usage", "context_edit"},
    roles=frozenset({"system"}),
    # null content is Pi's own case (sessionEntryToContextMessages makes it ""), not a gap
    message_fields={**MESSAGE_FIELDS, "system": {"content": (str, list, type(None)), "timestamp": (int, float)}},
    entry_fields={
        **ENTRY_FIELDS,
        "usage": {"kind": (str,), "provider": (str,), "model": (str,), "usage": (dict,)},
        # A missing `replacement` makes Pi throw when its target gives an editable message (ContextError then);
        # null omits the target, an object's `content` replaces its content.
        "context_edit": {"targetId": (str,), "replacement": (dict, type(None))},
    },
)

MESSAGELESS_TYPES_16 = MESSAGELESS_TYPES | {"usage", "context_edit"}
"""Pi 1.6's entry types that give the context no message: 0.85's and the two it added (a `context_edit` changes
other entries' messages, it gives none of its own)."""
PROMPT_ROLES_16 = frozenset({"system"})
"""The roles whose messages are Pi 1.6's prompt: a system message's sections are the system prompt and its
`toolsAdded` the tools' schemas, so rewrites keep them intact."""

_EDITABLE_ROLES = ("user", "assistant", "toolResult", "custom")
_BLOCK_ROLES = ("assistant", "toolResult")  # a string replacement becomes one text block


def _is_not_system_message(entry: Any) -> bool:
    if not isinstance(entry, dict) or entry.get("type") != "message":
        return True
    message = entry.get("message")
    return not (isinstance(message, dict) and message.get("role") == "system")


def _map_key(value: Any) -> Any:
    """A JavaScript Map key (SameValueZero) as a Python dict key; None for values no parsed id can equal
    (objects and arrays compare by identity)."""
    if value is UNDEFINED or value is None or type(value) is str:
        return (type(value).__name__, value)
    if type(value) is bool:
        return ("boolean", value)
    if type(value) in (int, float):
        return ("number", js_double(value) if type(value) is int else value)
    return None


def _entry_id(entry: Any) -> Any:
    return entry.get("id", UNDEFINED) if isinstance(entry, dict) else UNDEFINED


def context_entries_16(path: list[Any]) -> list[Any]:
    """buildContextEntries of 1.6: 0.85's list without the system messages of the kept range."""
    return context_entries(path, _is_not_system_message)


def entry_messages_16(entry: Any) -> list[Any]:
    """sessionEntryToContextMessages of 1.6."""
    if not isinstance(entry, dict):
        return []
    entry_type = entry.get("type")
    if entry_type == "message":
        message = entry.get("message")
        if isinstance(message, dict) and message.get("role") == "system" and message.get("content") is None:
            return [{**message, "content": ""}]
    elif entry_type == "compaction":
        messages = entry_to_messages(entry)
        system_message = entry.get("systemMessage", UNDEFINED)
        return [system_message, *messages] if js_truthy(system_message) else messages
    return entry_to_messages(entry)


def project_entry(entry: Any, edit: dict[str, Any] | None) -> list[Any]:
    """projectContextEntry: an entry's messages with its latest context edit applied."""
    messages = entry_messages_16(entry)
    if edit is None:
        return messages
    return _edited(messages, edit)


def _edited(messages: list[Any], edit: dict[str, Any]) -> list[Any]:
    """An entry's messages with a context edit applied (the messages an edit leaves alone stay the same objects)."""
    replacement = edit.get("replacement", UNDEFINED)
    if replacement is None:
        return []
    projected = []
    for message in messages:
        role = message.get("role") if isinstance(message, dict) else UNDEFINED
        if type(role) is not str or role not in _EDITABLE_ROLES:
            projected.append(message)
            continue
        if replacement is UNDEFINED:
            raise ContextError("Cannot read properties of undefined (reading 'content')")
        content = replacement.get("content", UNDEFINED) if isinstance(replacement, dict) else UNDEFINED
        if role in _BLOCK_ROLES and type(content) is str:
            content = [{"type": "text", "text": content}]
        if content is UNDEFINED:  # `{...message, content: undefined}`: JSON leaves the key out
            projected.append({key: value for key, value in message.items() if key != "content"})
        else:
            projected.append({**message, "content": content})
    return projected


class Projection16(ContextRules):
    """Pi 1.6's rules (buildSessionProjection); see the module's docstring for what differs from 0.85."""

    vocabulary = PI_16_VOCABULARY
    who = "Pi"  # 1.6 still spreads the entries after a compaction in one call: the same stack limit
    held_roles = frozenset({"system"})  # pi-ai's transformMessages sends a system message after pending results
    own_id_keeps_nothing = True  # appendCompaction writes its own id for a keep-nothing draft
    context_edits = True
    declares_tools = True
    kept_filter = staticmethod(_is_not_system_message)  # buildContextEntries: the kept range's system messages go

    def entry_messages(self, entry: Any) -> list[Any]:
        return entry_messages_16(entry)

    @staticmethod
    def _edits(entries: list[Any]) -> dict[Any, dict[str, Any]]:
        """The latest context edit of each target among the entries (by _map_key of the target id)."""
        edits: dict[Any, dict[str, Any]] = {}
        for entry in entries:  # edits are parsed entries (only message lines stay heads in a lazy tree)
            if isinstance(entry, dict) and entry.get("type") == "context_edit":
                key = _map_key(entry.get("targetId", UNDEFINED))
                if key is not None:
                    edits[key] = entry
        return edits

    def check(self, entries: list[Any], materialize: Any) -> None:
        """Pi throws on an edit without a `replacement` key whose target gives a message of an editable role."""
        broken = {key for key, edit in self._edits(entries).items() if "replacement" not in edit}
        if not broken:
            return
        for index, entry in enumerate(entries):
            if index > 0 and isinstance(entry, dict) and entry.get("type") == "compaction":
                continue
            key = _map_key(_entry_id(entry))
            if key in broken:
                project_entry(materialize(entry), {})  # raises ContextError as Pi throws

    def messages(self, entries: list[Any], materialize: Any) -> Iterator[Any]:
        edits = self._edits(entries)
        for index, entry in enumerate(entries):
            if index > 0 and isinstance(entry, dict) and entry.get("type") == "compaction":
                continue  # an older compaction inside the latest one's kept range: nothing
            whole = materialize(entry)
            edit = None
            if edits:
                key = _map_key(_entry_id(whole))
                edit = edits.get(key) if key is not None else None
            yield from project_entry(whole, edit)

    def projected(self, entries: list[Any], materialize: Any) -> list[tuple[Any, list[Any], list[Any]]]:
        """`messages` entry by entry: each entry's edit when it changed the entry's messages (else None), the
        messages it gives (none for an older compaction inside the kept range or a null replacement), and those
        it gives unedited (what Pi's TUI draws: an older compaction's summary too)."""
        edits = self._edits(entries)
        out: list[tuple[Any, list[Any], list[Any]]] = []
        for index, entry in enumerate(entries):
            whole = materialize(entry)
            unedited = entry_messages_16(whole)
            if index > 0 and isinstance(entry, dict) and entry.get("type") == "compaction":
                out.append((None, [], unedited))
                continue
            edit = None
            if edits:
                key = _map_key(_entry_id(whole))
                edit = edits.get(key) if key is not None else None
            if edit is None:
                out.append((None, unedited, unedited))
                continue
            messages = _edited(unedited, edit)
            changed = len(messages) != len(unedited) or any(a is not b for a, b in zip(messages, unedited, strict=True))
            out.append((edit if changed else None, messages, unedited))
        return out

    def entry_projections(self, entries: list[Any]) -> Iterator[tuple[Any, list[Any]]]:
        edits = self._edits(entries)
        for index, entry in enumerate(entries):
            if index > 0 and isinstance(entry, dict) and entry.get("type") == "compaction":
                yield entry, []
                continue
            key = _map_key(_entry_id(entry))
            yield entry, project_entry(entry, edits.get(key) if key is not None and edits else None)

    def planned_projection(self, bulk: BulkSession, entries: list[int]) -> dict[int, list[Any]]:
        """Pi 1.6's projection of a bulk plan (`entry_projections`, over the planned entries whose messages it may
        change): the compactions (an older one gives nothing, one with a `systemMessage` gives it first), the
        context edits (which give nothing, and find the latest edit of each target), the system messages (null
        content is ""), and the targets of those edits. Every other entry gives what 0.85 makes of it."""
        parsed, ids = bulk.parsed_entries, bulk.line_ids
        positions = {position for position in compress(count(), map(parsed.__contains__, entries))
                     if parsed[entries[position]].get("type") in ("compaction", "context_edit")}
        positions.update(compress(count(), map(eq, repeat("system"), map(bulk.line_roles.__getitem__, entries))))
        edits = self._edits([parsed[entries[position]] for position in sorted(positions)
                             if entries[position] in parsed])
        targets = {target for edit in edits.values() if type(target := edit.get("targetId")) is str}
        if targets:
            positions.update(compress(count(), map(targets.__contains__, map(ids.__getitem__, entries))))
        ordered = sorted(positions)
        projections = self.entry_projections([bulk.entry_at(entries[position]) for position in ordered])
        return {position: messages for position, (_, messages) in zip(ordered, projections, strict=True)}

    def bulk_entries_fit(self, bulk: BulkSession) -> bool:
        """Whether every entry gives 1.6's context what the index reads of it (0.85's projection, for audit's and
        the index's own reading of its lines): no system messages, usage or context_edit entries, and compactions
        that each have no `systemMessage`, do not keep from their own id, and keep no older compaction (checked
        for every compaction of the file, whichever leaf is asked for later)."""
        if "system" in bulk.line_roles:
            return False
        compactions = []
        for line, entry in bulk.parsed_entries.items():
            kind = entry.get("type")
            if kind in ("context_edit", "usage"):
                return False
            if kind == "compaction":
                if js_truthy(entry.get("systemMessage", UNDEFINED)) or entry.get("firstKeptEntryId") == entry.get("id"):
                    return False
                compactions.append(line)
        return not any(_keeps_an_older_compaction(bulk, line, compactions) for line in compactions[1:])


def _keeps_an_older_compaction(bulk: BulkSession, line: int, compactions: list[int]) -> bool:
    """Whether an older compaction lies on the path between compaction `line`'s first kept entry and itself
    (1.6 gives it nothing there, 0.85 its summary again). Compactions are in line order; parents come first."""
    entry = bulk.parsed_entries[line]
    kept = bulk.line_of(entry.get("firstKeptEntryId"))  # not by_id: a dict of every id for a few lookups
    if kept is None:
        return False  # keeps nothing: no older compaction comes back either way
    return any(kept <= older < line and bulk.is_ancestor(line, older) and (older == kept or bulk.is_ancestor(older, kept))
               for older in compactions if older < line)


PI_16_RULES = Projection16()

__all__ = ["MESSAGELESS_TYPES_16", "PI_16_RULES", "PI_16_VOCABULARY", "PROMPT_ROLES_16", "Projection16", "project_entry"]
