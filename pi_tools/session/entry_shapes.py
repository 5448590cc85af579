"""The shapes of the entries Pi's SessionManager appends, and the bytes it writes for one.

Every writer of new entries (the rewrites, the importers) needs the key order of Pi's append methods and
`JSON.stringify`'s bytes; they live here once, below both, so that no writer copies them.
"""

from __future__ import annotations

from typing import Any

from pi_tools.js.json_stringify import js_stringify

# Key order of the entries Pi's SessionManager appends (session-manager.ts, append* methods); keys a caller
# adds beyond these follow in the order given. Pi's JSON.stringify drops undefined values, so absent keys are
# simply not written.
ENTRY_KEY_ORDER: dict[str, tuple[str, ...]] = {
    "message": ("type", "id", "parentId", "timestamp", "message"),
    "thinking_level_change": ("type", "id", "parentId", "timestamp", "thinkingLevel"),
    "model_change": ("type", "id", "parentId", "timestamp", "provider", "modelId"),
    "compaction": ("type", "id", "parentId", "timestamp", "summary", "firstKeptEntryId", "tokensBefore",
                   "details", "usage", "fromHook"),
    "branch_summary": ("type", "id", "parentId", "timestamp", "fromId", "summary", "details", "usage",
                       "fromHook"),
    "custom": ("type", "customType", "data", "id", "parentId", "timestamp"),
    "custom_message": ("type", "customType", "content", "display", "details", "id", "parentId", "timestamp"),
    "session_info": ("type", "id", "parentId", "timestamp", "name"),
    "label": ("type", "id", "parentId", "timestamp", "targetId", "label"),
    "session": ("type", "version", "id", "timestamp", "cwd", "parentSession"),
}


def entry_line(entry: dict[str, Any]) -> bytes:
    """The bytes Pi writes for `entry` (without the newline): JSON.stringify in the dict's own key order."""
    return js_stringify(entry).encode("utf-8")


def new_entry(entry_type: str, fields: dict[str, Any]) -> dict[str, Any]:
    """An entry of `entry_type` with its keys in the order Pi's append method gives them."""
    order = ENTRY_KEY_ORDER.get(entry_type, ("type", "id", "parentId", "timestamp"))
    values = {"type": entry_type, **fields}
    entry = {key: values[key] for key in order if key in values}
    entry.update((key, value) for key, value in values.items() if key not in entry)
    return entry
