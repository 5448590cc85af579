"""How many messages a session holds: one rule for `ls`, `index` and `export` (issue 25: they disagreed).

A message is what the conversation shows as one: a `message` entry whose `message` is an object (any role), a
custom message, a compaction summary, and a branch summary that has a summary (the entries Pi turns into
context messages: `context.entry_to_messages`). Pi's own session list counts `message` entries only; its
export and the index's messages table count the summaries and custom messages too, and a count that differs
from the table beside it is the confusion the issue reports, so the wider count is the one every command gives.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from pi_tools.session.context import entry_to_messages
from pi_tools.session.line_format import RowMessageLine

SUMMARY_ENTRIES = frozenset(("custom_message", "branch_summary", "compaction"))
"""Entry types that become a message of their own (custom, branchSummary, compactionSummary)."""


def is_message(entry: Any) -> bool:
    """Whether one parsed entry (a dict, or the index's decoded message line) counts as a message."""
    if type(entry) is RowMessageLine:
        return True
    if type(entry) is not dict:
        return False
    kind = entry.get("type")
    if kind == "message":
        return type(entry.get("message")) is dict
    return type(kind) is str and kind in SUMMARY_ENTRIES and bool(entry_to_messages(entry))


def message_count(entries: Iterable[Any]) -> int:
    """The messages among a file's entries (header excluded), by `is_message`."""
    return sum(map(is_message, entries))
