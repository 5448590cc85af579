"""Repair a damaged session into a new file that Pi loads, losing nothing.

Lines that parse are copied byte for byte (signatures and other opaque fields must survive exactly). Damage
is undone where the intent is unambiguous: concatenated objects are split onto their own lines, a byte-order
mark is removed, invalid UTF-8 becomes the U+FFFD characters Pi reads anyway. Everything that cannot be an
entry (unparseable lines, the torn tail of an interrupted write, JSON values that are not objects) moves to
`OUT.rejected` as `LINE<TAB>original bytes`, so nothing is lost. With `close_orphans`, tool calls that never
got a result receive the `No result provided` error result Pi would synthesise in every request, stored as
real entries right after the batch they answer (see docs/repair.md).
"""

from __future__ import annotations

import json
import os
import re
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import orjson

from pi_tools.audit.check_tools import OrphanGroup, check_tool_results
from pi_tools.audit.findings import FindingSink
from pi_tools.js.errors import JsonSyntaxError
from pi_tools.js.json_line import loads_line
from pi_tools.js.values import js_set_key
from pi_tools.rewrite.writer import (
    Change,
    WriteError,
    commit,
    entry_line,
    fresh_id,
    new_entry,
    plan_targets,
    read_snapshot,
    rejected_bytes,
)
from pi_tools.session.load import tree_from_raw
from pi_tools.session.reader import SessionReadError, parse_session_bytes, validate_header
from pi_tools.session.tree import SessionTree

if TYPE_CHECKING:
    from pi_tools.pi import PiVersion

# Audit rules whose findings a repaired file no longer has (orphaned-tool-call only with close_orphans).
FIXED_RULES = frozenset({
    "malformed-line", "torn-line", "concatenated-objects", "invalid-utf8", "junk-value", "missing-final-newline",
})
ORPHAN_RULE = "orphaned-tool-call"
NO_RESULT_TEXT = "No result provided"
_BLANK = b" \t\r\x0b\x0c"


class RepairError(Exception):
    """The repair cannot be done (unreadable input, no session header, refusing to overwrite)."""


@dataclass
class RepairResult:
    """The repaired file's lines, the rejected lines with their numbers, and one message per change."""

    lines: list[bytes]
    origins: list[int]  # original line number of each output line (0 for added lines)
    rejected: list[tuple[int, bytes]] = field(default_factory=list)
    changes: list[Change] = field(default_factory=list)
    notes: list[Change] = field(default_factory=list)  # what was asked for but not done, and why
    unchanged: bool = False  # the repaired bytes equal the input's: repair_file wrote nothing

    def data(self) -> bytes:
        return b"".join(line + b"\n" for line in self.lines)

    def rejected_data(self) -> bytes:
        return rejected_bytes(self.rejected)


def _split_values(text: str) -> tuple[list[str], str]:
    """Split `{...}{...}` into complete JSON texts; the second item is an unparseable remainder ("" if none)."""
    decoder = json.JSONDecoder()
    pieces: list[str] = []
    position = 0
    length = len(text)
    while True:
        while position < length and text[position] in " \t\r":
            position += 1
        if position >= length:
            return pieces, ""
        try:
            _, end = decoder.raw_decode(text, position)
        except (ValueError, RecursionError):
            return pieces, text[position:]
        pieces.append(text[position:end])
        position = end


def _parses_as_object(piece: bytes) -> bool:
    try:
        return isinstance(loads_line(piece), dict)
    except (JsonSyntaxError, UnicodeDecodeError, RecursionError):
        return False


def repair_lines(data: bytes) -> RepairResult:
    """Line-level repair of a session file's bytes (no tree knowledge needed)."""
    segments = data.split(b"\n")
    trailing = segments.pop()
    if trailing:
        segments.append(trailing)
    result = RepairResult([], [])
    last = len(segments)
    for number, original in enumerate(segments, start=1):
        torn_candidate = bool(trailing) and number == last
        if not original.strip(_BLANK):
            if original:
                result.changes.append(Change(number, "dropped a blank line"))
            continue
        line = original
        try:
            text = line.decode("utf-8")
        except UnicodeDecodeError:
            text = line.decode("utf-8", "replace")
            line = text.encode("utf-8")
            result.changes.append(Change(number, "replaced invalid UTF-8 bytes with U+FFFD, as Pi reads them",
                                         rule="invalid-utf8"))
        if text.startswith("\ufeff"):
            text = text[1:]
            line = text.encode("utf-8", "surrogatepass")
            result.changes.append(Change(number, "removed a byte-order mark that JSON.parse rejects",
                                         rule="malformed-line"))
        try:
            value = loads_line(line)
        except (JsonSyntaxError, UnicodeDecodeError, RecursionError):
            _salvage(result, number, original, text, torn_candidate)
            continue
        if not isinstance(value, dict):
            result.rejected.append((number, original))
            result.changes.append(Change(number, "moved a JSON value that is not an entry to the .rejected file",
                                         rule="junk-value"))
            continue
        result.lines.append(line)
        result.origins.append(number)
        if torn_candidate:
            result.changes.append(Change(number, "added the missing final newline", rule="missing-final-newline"))
    return result


def _salvage(result: RepairResult, number: int, original: bytes, text: str, torn_candidate: bool) -> None:
    """An unparseable line: split concatenated objects, else reject it (a torn tail included)."""
    pieces, rest = _split_values(text)
    encoded = [piece.encode("utf-8", "surrogatepass") for piece in pieces]
    if encoded and all(_parses_as_object(piece) for piece in encoded):
        for piece in encoded:
            result.lines.append(piece)
            result.origins.append(number)
        if rest:
            result.rejected.append((number, rest.encode("utf-8", "surrogatepass")))
            result.changes.append(Change(number, f"kept {len(encoded)} complete object(s) of a damaged line on their own "
                                                 "lines; moved the unparseable rest to the .rejected file",
                                         rule="concatenated-objects"))
        else:
            result.changes.append(Change(number, f"split {len(encoded)} concatenated objects onto their own lines",
                                         rule="concatenated-objects"))
        return
    result.rejected.append((number, original))
    if torn_candidate:
        result.changes.append(Change(number, f"dropped the torn final line ({len(original)} bytes) to the .rejected "
                                             "file", rule="torn-line"))
    else:
        result.changes.append(Change(number, "moved an unparseable line to the .rejected file", rule="malformed-line"))


def chosen_version(version: PiVersion | None) -> PiVersion:
    """The Pi version a repair reproduces: the one given, else pi.resolve()'s (--pi, PI_TOOLS_PI, the default)."""
    if version is not None:
        return version
    from pi_tools.pi import resolve

    return resolve()


def load_lines(lines: list[bytes], source: str, version: PiVersion | None = None) -> SessionTree:
    """The tree of `lines` as the Pi version reads it (its vocabulary: what it diagnoses as unknown)."""
    data = b"".join(line + b"\n" for line in lines)
    raw = parse_session_bytes(data, source)
    validate_header(raw, len(data))
    return tree_from_raw(raw, chosen_version(version).context.vocabulary)


def with_parent(line: bytes, old: str, new: str) -> bytes:
    """The entry line with parentId `old` replaced by `new`, keeping every other byte when possible."""
    pattern = re.compile(rb'("parentId"\s*:\s*)' + re.escape(orjson.dumps(old)))
    candidate, count = pattern.subn(lambda m: m.group(1) + orjson.dumps(new), line, count=1)
    if count:
        try:
            parsed = loads_line(candidate)
            original = loads_line(line)
            if isinstance(parsed, dict) and isinstance(original, dict) and parsed.get("parentId") == new \
                    and {**original, "parentId": new} == parsed:
                return candidate
        except (JsonSyntaxError, UnicodeDecodeError):
            pass
    entry = loads_line(line)
    entry["parentId"] = new
    return entry_line(entry)


def close_orphans(result: RepairResult, source: str, version: PiVersion | None = None) -> None:
    """Store a `No result provided` result for every tool call that never gets one, right after its batch (as the
    Pi version pairs calls and results: the roles it holds past a batch, what its context edits omit)."""
    version = chosen_version(version)
    tree = load_lines(result.lines, source, version)
    groups = check_tool_results(FindingSink(source, frozenset({ORPHAN_RULE})), tree, version.context)
    if not groups:
        return
    omitted = _omitted(tree, version)
    legacy_v1 = tree.migrated_from is not None and not _at_least_v2(tree.migrated_from)
    taken: set[Any] = set(tree.by_id)
    children = tree.children()
    inserts: dict[int, list[bytes]] = {}
    replaced: dict[int, bytes] = {}
    cut_off_results = _results_below_dangling_parents(tree)
    for group in groups.values():
        after_line = tree.line_of(group.after)
        if after_line is None:
            continue
        new_lines, last_id = _synthetic_results(group, taken, legacy_v1)
        output_index = after_line - 1
        inserts.setdefault(output_index, []).extend(new_lines)
        origin = result.origins[output_index]
        for call_id, _ in group.calls:
            result.changes.append(Change(origin, f"added a `{NO_RESULT_TEXT}` tool result for call {call_id} after "
                                                 f"entry {group.after.get('id')}", group.after.get("id"), ORPHAN_RULE))
            for cut_off in cut_off_results.get(js_set_key(call_id), []):
                at = tree.line_of(cut_off)
                result.notes.append(Change(
                    result.origins[at - 1] if at else 0,
                    f"entry {cut_off.get('id')} holds a result for call {call_id}, but its branch hangs below a parent "
                    "that is not in the file, so the call got `No result provided` (`--relink` attaches such results "
                    "to their batch first)", cut_off.get("id"), "dangling-parent"))
        if legacy_v1 or last_id is None:
            continue
        after_id = group.after.get("id")
        if not isinstance(after_id, str):
            continue
        batch_ids = {call_id for call_id, _ in _call_pairs(group)}
        for child in children.get(after_id, []):
            message = child.get("message") if child.get("type") == "message" else None
            if isinstance(message, dict) and message.get("role") == "toolResult" \
                    and js_set_key(message.get("toolCallId")) in batch_ids and id(child) not in omitted:
                continue  # a result of this batch on a sibling branch stays where it is
            child_line = tree.line_of(child)
            if child_line is None or child_line - 1 not in range(len(result.lines)):
                continue
            index = child_line - 1
            replaced[index] = with_parent(replaced.get(index, result.lines[index]), after_id, last_id)
            result.changes.append(Change(result.origins[index], f"entry {child.get('id')} now follows the added "
                                                                f"results (parentId {after_id} -> {last_id})",
                                         child.get("id"), ORPHAN_RULE))
    if legacy_v1:
        _shift_first_kept_indexes(result, inserts, replaced)
    lines: list[bytes] = []
    origins: list[int] = []
    for index, line in enumerate(result.lines):
        lines.append(replaced.get(index, line))
        origins.append(result.origins[index])
        for added in inserts.get(index, []):
            lines.append(added)
            origins.append(0)
    result.lines, result.origins = lines, origins


def _results_below_dangling_parents(tree: SessionTree) -> dict[Any, list[Any]]:
    """Tool results (by call id) on a branch whose root names a parent that is not in the file: a call's real
    result may be there, cut off from it, so inventing one is said in a note."""
    found: dict[Any, list[Any]] = {}
    dangling: dict[int, bool] = {}
    for entry in tree.entries:
        message = entry.get("message") if isinstance(entry, dict) and entry.get("type") == "message" else None
        if not isinstance(message, dict) or message.get("role") != "toolResult":
            continue
        seen: list[Any] = []
        current: Any = entry
        verdict = False
        while isinstance(current, dict) and id(current) not in dangling and len(seen) <= len(tree.entries):
            seen.append(current)
            parent = current.get("parentId")
            if parent is None:
                break
            following = tree.by_id.get(parent) if isinstance(parent, str) else None
            if following is None:
                verdict = True
                break
            current = following
        else:
            verdict = dangling.get(id(current), False)
        for walked in seen:
            dangling[id(walked)] = verdict
        if verdict:
            found.setdefault(js_set_key(message.get("toolCallId")), []).append(entry)
    return found


def _omitted(tree: SessionTree, version: PiVersion) -> set[int]:
    """The entries (by identity) that a null context edit omits from what Pi sends on some path (none for a version
    whose context edits do not count): a result omitted so is no answer, and follows the added results."""
    if not version.context.context_edits:
        return set()
    from pi_tools.audit.check_edits import has_edits, omitted_on_paths

    if not has_edits(tree):
        return set()
    return {id(tree.entries[position]) for _, positions, _ in omitted_on_paths(tree, version.context)
            for position in positions}


_INDEX_FIELD = re.compile(rb'("firstKeptEntryIndex"\s*:\s*)(\d+)(?![\d.eE])')


def _shift_first_kept_indexes(result: RepairResult, inserts: dict[int, list[bytes]],
                              replaced: dict[int, bytes]) -> None:
    """Keep v1 compactions pointing at the same entries when results are inserted before them.

    A v1 compaction names its first kept entry by position in the parsed file (header = 0), and each output
    line is one position, so an entry at position N moves by the number of lines inserted after positions < N.
    """
    for index, line in enumerate(result.lines):
        if b'"firstKeptEntryIndex"' not in line:
            continue
        match = _INDEX_FIELD.search(line)
        entry = loads_line(line)
        if match is None or not isinstance(entry, dict) or entry.get("type") != "compaction":
            continue
        position = int(match.group(2))
        shift = sum(len(added) for after, added in inserts.items() if after < position)
        if not shift or entry.get("firstKeptEntryIndex") != position:
            continue
        replaced[index] = line[:match.start(2)] + str(position + shift).encode() + line[match.end(2):]
        result.changes.append(Change(result.origins[index], f"compaction firstKeptEntryIndex {position} -> "
                                                            f"{position + shift} (it still names the same entry)",
                                     rule=ORPHAN_RULE))


def _call_pairs(group: OrphanGroup) -> list[tuple[str, Any]]:
    from pi_tools.audit.check_tools import tool_calls

    return list(tool_calls(group.assistant["message"]))


def _at_least_v2(version: Any) -> bool:
    return isinstance(version, (int, float)) and not isinstance(version, bool) and version >= 2


def _synthetic_results(group: OrphanGroup, taken: set[Any], legacy_v1: bool) -> tuple[list[bytes], str | None]:
    """Entry lines for the missing results, chained from `group.after` in call order."""
    after = group.after
    after_message = after.get("message")
    stamp = after_message.get("timestamp") if isinstance(after_message, dict) else None
    stamp = stamp if isinstance(stamp, (int, float)) and not isinstance(stamp, bool) else 0
    entry_stamp = after.get("timestamp") if isinstance(after.get("timestamp"), str) else None
    parent = after.get("id")
    lines: list[bytes] = []
    for call_id, name in group.calls:
        message = {
            "role": "toolResult", "toolCallId": call_id, "toolName": name if isinstance(name, str) else "",
            "content": [{"type": "text", "text": NO_RESULT_TEXT}], "isError": True, "timestamp": stamp,
        }
        fields: dict[str, Any] = {"message": message}
        if not legacy_v1:
            entry_id = fresh_id(taken)
            fields.update({"id": entry_id, "parentId": parent})
            parent = entry_id
        if entry_stamp is not None:
            fields["timestamp"] = entry_stamp
        lines.append(entry_line(new_entry("message", fields)))
    return lines, (None if legacy_v1 else parent)


_PI_FILE_NAME = re.compile(r"(?P<stamp>\d{4}-\d\d-\d\dT\d\d-\d\d-\d\d-\d{3}Z)_(?P<id>[0-9a-fA-F-]{36})\.jsonl")
_SESSION_DIR = re.compile(r"--(?P<path>.+)--")


def _header_line(result: RepairResult, source: str, cwd: str | None) -> None:
    """Put a header built from what the file says in front of `result` (moving a broken one aside).

    Pi names session files `<timestamp>_<uuid>.jsonl` (the uuid is the session id) inside a directory named
    after the cwd (`--home-user-proj--` for /home/user/proj, see getDefaultSessionDirPath); the timestamp is
    the first entry's. Only a cwd without `-` can be read back from the directory name, so --cwd wins.
    """
    name = _PI_FILE_NAME.fullmatch(os.path.basename(source))
    if name is None:
        raise RepairError(f"{source}: --header needs Pi's file name <timestamp>_<uuid>.jsonl to know the session id")
    first = loads_line(result.lines[0]) if result.lines else None
    if isinstance(first, dict) and first.get("type") == "session":
        result.rejected.append((result.origins[0], result.lines[0]))
        result.changes.append(Change(result.origins[0], "moved the broken session header to the .rejected file",
                                     rule="invalid-header"))
        del result.lines[0], result.origins[0]
    if cwd is None:
        directory = _SESSION_DIR.fullmatch(os.path.basename(os.path.dirname(os.path.abspath(source))))
        if directory is None:
            raise RepairError(f"{source}: --header needs --cwd DIR (the session directory's name is not Pi's "
                              "--path-to-cwd-- form)")
        cwd = "/" + directory.group("path").replace("-", "/")
    stamp = None
    for line in result.lines:
        entry = loads_line(line)
        if isinstance(entry, dict) and isinstance(entry.get("timestamp"), str):
            stamp = entry["timestamp"]
            break
    if stamp is None:
        date, clock = name.group("stamp").split("T")
        stamp = f"{date}T{clock[0:2]}:{clock[3:5]}:{clock[6:8]}.{clock[9:12]}Z"
    header = new_entry("session", {"version": 3, "id": name.group("id"), "timestamp": stamp, "cwd": cwd})
    result.lines.insert(0, entry_line(header))
    result.origins.insert(0, 0)
    result.changes.append(Change(0, f"added a session header (id {name.group('id')} from the file name, timestamp "
                                    f"{stamp}, cwd {cwd}, version 3)", rule="invalid-header"))


@dataclass(frozen=True)
class ConversationFixes:
    """The conversation-level repairs asked for (pi_tools.rewrite.conversation and .for_model)."""

    relink: bool = False
    trim_failed: bool = False
    drop_malformed_calls: bool = False
    for_model: str | None = None
    reasoning: str | None = None
    fix: bool = False  # what preflight finds for for_model (None: the session's model), fixed where a rewrite can


def repair_bytes(data: bytes, source: str, *, close_orphaned_calls: bool = False, header: bool = False,
                 cwd: str | None = None, fixes: ConversationFixes | None = None,
                 version: PiVersion | None = None) -> RepairResult:
    """The whole repair in memory, as the Pi `version` reads sessions (None: pi.resolve()'s); raises RepairError
    when the result would not be a session.

    Order: lines, header, malformed calls (their results go too), relink, failed turns, orphans (closed where
    the batch now ends), then what the target model still refuses; last, for a version whose context edits
    count, the edits whose target a fix set aside follow it to the .rejected file."""
    version = chosen_version(version)
    fixes = fixes or ConversationFixes()
    if fixes.for_model is not None or fixes.fix:
        from pi_tools.pi import requests_refusal

        option = "--fix" if fixes.fix else "--for-model"
        refusal = requests_refusal(version, f"repair {option}")
        if refusal is not None:
            raise RepairError(f"{source}: {option}: {refusal}")
    result = repair_lines(data)
    try:
        load_lines(result.lines, source, version)
    except SessionReadError:
        if not header:
            raise RepairError(f"{source}: no line holds a valid session header; nothing to repair into a session "
                              "(--header builds one)") from None
        if not result.lines:
            raise RepairError(f"{source}: no line holds an entry; nothing to repair into a session") from None
        _header_line(result, source, cwd)
        try:
            load_lines(result.lines, source, version)
        except SessionReadError as exc:
            raise RepairError(f"{source}: still not a session with the header added: {exc}") from None
    if fixes.drop_malformed_calls or fixes.relink or fixes.trim_failed:
        from pi_tools.rewrite import conversation

        before = conversation.entry_ids(result.lines) if version.context.context_edits else None
        if fixes.drop_malformed_calls:
            conversation.drop_malformed_calls(result, source, version)
        if fixes.relink:
            conversation.relink(result, source, version)
        if fixes.trim_failed:
            conversation.trim_failed(result, source, version)
        if before is not None:
            conversation.follow_removed_targets(result, source, before, version)
    if close_orphaned_calls:
        close_orphans(result, source, version)
    if fixes.fix:
        from pi_tools.rewrite.for_model import fix_findings

        fix_findings(result, source, fixes.for_model, fixes.reasoning, version)
    elif fixes.for_model is not None:
        from pi_tools.rewrite.for_model import for_model

        for_model(result, source, fixes.for_model, fixes.reasoning, version)
    result.rejected.sort(key=lambda item: item[0])
    return result


def repair_file(source: str, out: str | None, *, force: bool = False, close_orphaned_calls: bool = False,
                in_place: bool = False, dry_run: bool = False, header: bool = False,
                cwd: str | None = None, fixes: ConversationFixes | None = None,
                version: PiVersion | None = None) -> RepairResult:
    """Repair `source` into `out` (and `out.rejected` when lines were set aside) through the session writer.

    `source` is only replaced with `in_place` (keeping a backup, see pi_tools.rewrite.writer); `dry_run`
    checks the targets and computes the repair but writes nothing, and so does a repair whose bytes equal the
    input's (`result.unchanged`).
    """
    try:
        only_looking = dry_run and out is None and not in_place
        targets = None if only_looking else plan_targets(source, out, in_place=in_place, force=force)
        snapshot = read_snapshot(source)
    except WriteError as exc:
        raise RepairError(str(exc)) from None
    result = repair_bytes(snapshot.data, source, close_orphaned_calls=close_orphaned_calls, header=header, cwd=cwd,
                          fixes=fixes, version=version)
    # An unchanged copy would only be a second name for the same bytes (and --in-place a pointless backup).
    result.unchanged = not result.rejected and result.data() == snapshot.data
    if dry_run or targets is None or result.unchanged:
        return result
    try:
        commit(snapshot, targets, result.data(), result.rejected_data())
    except WriteError as exc:
        raise RepairError(str(exc)) from None
    return result
