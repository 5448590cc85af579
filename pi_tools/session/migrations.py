"""Session format migrations v1 -> v2 -> v3, applied in memory only.

Pi rewrites a migrated file in place; pi-tools never writes the user's file, it migrates the parsed entries
and reports that Pi would rewrite it. Pi draws v1 ids at random; here the k-th generated id of a file is the
8-digit hex of k, so results are reproducible and match the reference goldens.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from itertools import count
from typing import Any

from pi_tools.js.errors import JsTypeError
from pi_tools.js.values import js_number_to_string, js_to_number, js_truthy

CURRENT_SESSION_VERSION = 3


class MigrationError(Exception):
    """Pi itself would throw while migrating (e.g. a v1 file holding a bare number line)."""


class JsArrayEntry(dict[str, Any]):
    """A JSON array line of a v1 file after migration. JavaScript hangs `id` and `parentId` on the array object
    itself: invisible in JSON, but the index holds it by that id and the next entry names it as parent, so a
    path (and the session's leaf) runs through it. As a dict it has exactly those two properties, which is all
    the tree reads; `array` is the value JSON.stringify writes for it."""

    def __init__(self, array: list[Any], entry_id: str, parent_id: Any) -> None:
        super().__init__(id=entry_id, parentId=parent_id)
        self.array = array


def sequential_ids() -> Callable[[], str]:
    """Deterministic id source: 00000001, 00000002, ... in the order ids are generated."""
    counter: Iterator[int] = count(1)
    return lambda: f"{next(counter):08x}"


def session_version(file_entries: list[Any]) -> Any:
    header = next((e for e in file_entries if isinstance(e, dict) and e.get("type") == "session"), None)
    version = header.get("version") if header is not None else None
    return 1 if version is None else version


def _js_less_than(version: Any, bound: int) -> bool:
    """`version < bound` with JavaScript's coercion of odd stored versions: strings by the numeric-literal
    grammar ("0x3" is 3, "three" NaN), booleans as 0/1, arrays through their text ([] is 0, [2] is 2), objects
    NaN; NaN compares false both ways, so such a file is neither current nor migrated."""
    return js_to_number(version) < bound


def header_is_current(header: dict[str, Any]) -> bool:
    """True when a file with this header needs no migration (False also where comparing its version throws:
    the ordinary path reports that)."""
    try:
        return not _js_less_than(session_version([header]), CURRENT_SESSION_VERSION)
    except JsTypeError:
        return False


def migrate_to_current(file_entries: list[Any], new_id: Callable[[], str] | None = None) -> bool:
    """Migrate entries in place (header included) the way Pi's migrateToCurrentVersion does; True if it ran."""
    version = session_version(file_entries)
    try:
        current = not _js_less_than(version, CURRENT_SESSION_VERSION)
    except JsTypeError as exc:  # `version >= 3` on an object with its own toString: Pi's open throws
        raise MigrationError(str(exc)) from None
    if current:
        return False
    if _js_less_than(version, 2):
        _migrate_v1_to_v2(file_entries, new_id or sequential_ids())
    _migrate_v2_to_v3(file_entries)
    return True


def _primitive(value: Any) -> str:
    """A primitive as V8 names it in "Cannot create property": its type and its string form (`boolean 'true'`,
    `number '1e+21'`)."""
    if isinstance(value, bool):
        return f"boolean '{'true' if value else 'false'}'"
    if isinstance(value, (int, float)):
        return f"number '{js_number_to_string(value)}'"
    return f"string '{value}'"


def _migrate_v1_to_v2(entries: list[Any], new_id: Callable[[], str]) -> None:
    previous_id: Any = None
    for position, entry in enumerate(entries):
        if isinstance(entry, dict) and entry.get("type") == "session":
            entry["version"] = 2
            continue
        if not isinstance(entry, dict):
            if isinstance(entry, list):
                # JavaScript hangs id/parentId on the array object (invisible in JSON) and it becomes the
                # parent of the next entry, or the leaf.
                entries[position] = JsArrayEntry(entry, new_id(), previous_id)
                previous_id = entries[position]["id"]
                continue
            raise MigrationError(f"Cannot create property 'id' on {_primitive(entry)}")
        entry_id = new_id()
        entry["id"] = entry_id
        entry["parentId"] = previous_id
        previous_id = entry_id
        if entry.get("type") == "compaction":
            index = entry.get("firstKeptEntryIndex")
            if isinstance(index, (int, float)) and not isinstance(index, bool):
                if float(index).is_integer() and 0 <= index < len(entries):
                    target = entries[int(index)]
                    if js_truthy(target) and not (isinstance(target, dict) and target.get("type") == "session"):
                        if isinstance(target, dict) and "id" in target:
                            entry["firstKeptEntryId"] = target["id"]
                        else:
                            # A forward index points at an entry without an id yet (or at a primitive): JS
                            # stores undefined over any firstKeptEntryId the line had, so it is absent.
                            entry.pop("firstKeptEntryId", None)
                del entry["firstKeptEntryIndex"]


def _migrate_v2_to_v3(entries: list[Any]) -> None:
    for entry in entries:
        if not isinstance(entry, dict):
            continue
        if entry.get("type") == "session":
            entry["version"] = 3
            continue
        if entry.get("type") == "message":
            message = entry.get("message")
            if isinstance(message, dict) and message.get("role") == "hookMessage":
                message["role"] = "custom"
