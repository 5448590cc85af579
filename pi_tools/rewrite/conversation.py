"""Conversation-level repairs: where tool calls, their results and failed turns sit in the entry tree.

Line-level repair (pi_tools.rewrite.repair) makes a file Pi can read; these fixes make the conversation in it one
that Pi replays as the agent loop would have written it. They work on the repaired lines of a version 3 file
(v1/v2 entries get their ids from Pi's migration, so there is nothing stable to re-parent) and keep every id:

- `relink`: a batch of tool calls must be followed by all its results before any other message (Pi defers bash,
  custom and steering messages until the batch is done). Messages stored between the calls and the last result
  are moved behind the last result, and results stored in another order than the calls are put in call order,
  by changing `parentId`s only (the lines of the batch are also put in chain order in the file, so Pi's leaf, the
  last line, stays the end of the same path).
- `trim_failed`: the errored or aborted assistant turns at the end of the active path (failed retries) leave the
  file for `OUT.rejected`, so that the last good entry is Pi's leaf again.
- `drop_malformed_calls`: tool-call blocks with an empty or non-string id or name, or arguments that are not an
  object, are removed from their message (the whole original line goes to `OUT.rejected`), with the results that
  answer them (children move up to the removed result's parent).

Every change names the audit rule it clears; what a fix was asked to do but could not is kept as a note.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from pi_tools.audit.check_blocks import never_replayed
from pi_tools.js.json_line import loads_line
from pi_tools.rewrite.repair import RepairError, RepairResult, chosen_version, load_lines, with_parent
from pi_tools.rewrite.writer import Change, entry_line
from pi_tools.session.tree import PathCycleError, SessionTree

if TYPE_CHECKING:
    from pi_tools.pi import PiVersion

INTERLEAVED, ORDER, ERRORED, REQUIRED = "tool-result-interleaved", "tool-result-order", "errored-turn", "required-fields"
DANGLING = "dangling-parent"
# Entries that may stand between a batch's calls and its results and move behind them: the messages Pi defers until
# a batch is done (bash executions, custom and extension messages, steering user messages), the messages the
# version's transformMessages holds until the batch is done (its `held_roles`: Pi 1.6's system messages) and
# entries that carry no message (the version's `messageless_types`: labels, settings; Pi 1.6's usage entries and
# context edits). Only strings are looked up: a stored role or type may be any JSON value, an object or a list too.
_MOVABLE_ROLES = ("user", "bashExecution", "custom")
_MOVABLE_MESSAGE_TYPES = ("custom_message",)


@dataclass(frozen=True)
class _Kinds:
    """Which entries of a version's files stand in a batch without closing it (silent) and which may move."""

    held_roles: frozenset[str]
    messageless_types: frozenset[str]

    @classmethod
    def of(cls, version: PiVersion) -> _Kinds:
        return cls(version.context.held_roles, version.messageless_types)

    def silent(self, entry: dict[str, Any]) -> bool:
        """Entries that put no message into the context where they stand (they close no batch)."""
        kind = entry.get("type")
        if type(kind) is str and kind in self.messageless_types:
            return True
        role = role_of(entry)
        return type(role) is str and role in self.held_roles

    def movable(self, entry: Any) -> bool:
        if not isinstance(entry, dict) or not isinstance(entry.get("id"), str):
            return False
        if self.silent(entry):
            return True
        if entry.get("type") == "message":
            return role_of(entry) in _MOVABLE_ROLES
        return entry.get("type") in _MOVABLE_MESSAGE_TYPES


def message_of(entry: Any) -> dict[str, Any] | None:
    if not isinstance(entry, dict) or entry.get("type") != "message":
        return None
    message = entry.get("message")
    return message if isinstance(message, dict) else None


def role_of(entry: Any) -> Any:
    message = message_of(entry)
    return message.get("role") if message is not None else None


def _failed(entry: Any) -> bool:
    message = message_of(entry)
    return message is not None and message.get("role") == "assistant" and never_replayed(message.get("stopReason"))


def v3_tree(result: RepairResult, source: str, option: str, version: PiVersion | None = None) -> SessionTree:
    """The tree of the repaired lines; these fixes need stable string ids, so only version 3 files."""
    tree = load_lines(result.lines, source, version)
    if tree.migrated_from is not None:
        raise RepairError(f"{source}: {option} needs a version 3 session file (this one is version "
                          f"{tree.migrated_from}; Pi migrates it when it next opens it)")
    return tree


def _index(tree: SessionTree, entry: Any) -> int:
    line = tree.line_of(entry)
    assert line is not None
    return line - 1


def _kids(children: dict[Any, list[Any]], entry: dict[str, Any]) -> list[Any]:
    entry_id = entry.get("id")
    return children.get(entry_id, []) if isinstance(entry_id, str) else []


# --- relink ---------------------------------------------------------------------------------------------------


def _batch_calls(entry: Any) -> list[str]:
    """The call ids of a replayed assistant message's tool calls (empty when malformed or not unique)."""
    message = message_of(entry)
    if message is None or message.get("role") != "assistant" or never_replayed(message.get("stopReason")):
        return []
    content = message.get("content")
    if not isinstance(content, list):
        return []
    ids = [block.get("id") for block in content if isinstance(block, dict) and block.get("type") == "toolCall"]
    if not ids or not all(isinstance(i, str) and i for i in ids) or len(set(ids)) != len(ids):
        return []
    return [str(i) for i in ids]


def _segment(assistant: dict[str, Any], calls: list[str], children: dict[Any, list[Any]], kinds: _Kinds) -> list[Any]:
    """The linear run of entries below `assistant` up to the last result of its batch (results and movable
    entries only; it ends at a branch point, another message or when every call is answered)."""
    chain: list[Any] = []
    answered: set[str] = set()
    current = assistant
    while len(answered) < len(calls):
        kids = _kids(children, current)
        if len(kids) != 1:
            break
        kid = kids[0]
        message = message_of(kid)
        if message is not None and message.get("role") == "toolResult":
            call_id = message.get("toolCallId")
            if call_id not in calls or call_id in answered or not isinstance(kid.get("id"), str):
                break
            answered.add(call_id)
        elif not kinds.movable(kid):
            break
        chain.append(kid)
        current = kid
    while chain and role_of(chain[-1]) != "toolResult":
        chain.pop()
    return chain


def _describe(entry: dict[str, Any]) -> str:
    if entry.get("type") == "message":
        role = role_of(entry)
        what = {"user": "user message", "bashExecution": "bash execution", "custom": "custom message",
                "system": "system message"}.get(role, role)
        return f"{what} {entry.get('id')}"
    return f"{entry.get('type')} entry {entry.get('id')}"


def _dangling_chain(root: dict[str, Any], children: dict[Any, list[Any]], kinds: _Kinds) -> set[str]:
    """The call ids answered by the results in the linear run of results and movable entries that starts at `root`
    (an entry whose parent is not in the file)."""
    answered: set[str] = set()
    current: Any = root
    while True:
        message = message_of(current)
        if message is not None and message.get("role") == "toolResult":
            call_id = message.get("toolCallId")
            if not isinstance(call_id, str) or call_id in answered:
                break
            answered.add(call_id)
        elif not kinds.movable(current):
            break
        kids = _kids(children, current)
        if len(kids) != 1:
            break
        current = kids[0]
    return answered


def attach_dangling(result: RepairResult, source: str, version: PiVersion | None = None) -> None:
    """Give an entry whose parent is not in the file back to the batch it answers: when it starts a run of results
    (and movable entries) that answer only calls of one earlier assistant message whose branch ends before its
    batch is answered, its parentId becomes that branch's last entry. This runs before anything invents a
    `No result provided` result for those calls: the real results are in the file, their link was lost."""
    version = chosen_version(version)
    kinds = _Kinds.of(version)
    tree = v3_tree(result, source, "--relink", version)
    children = tree.children()
    lines = list(result.lines)
    attached: set[int] = set()  # positions of the assistants given their results (one dangling run each)
    for position, root in enumerate(tree.entries):
        parent = root.get("parentId") if isinstance(root, dict) else None
        if not isinstance(parent, str) or parent in tree.by_id or not isinstance(root.get("id"), str):
            continue
        answers = _dangling_chain(root, children, kinds)
        if not answers:
            continue
        batch = _batch_before(tree, children, kinds, position, answers, attached)
        if batch is None:
            continue
        assistant_position, assistant, end = batch
        attached.add(assistant_position)
        index = _index(tree, root)
        lines[index] = with_parent(lines[index], parent, end["id"])
        result.changes.append(Change(result.origins[index],
                                     f"entry {root['id']}: parentId {parent} (no such entry) -> {end['id']}: it holds "
                                     f"results of assistant {assistant['id']}'s tool calls, whose branch ended there",
                                     root["id"], "dangling-parent"))
    result.lines = lines


def _batch_before(tree: SessionTree, children: dict[Any, list[Any]], kinds: _Kinds, before: int,
                  answers: set[str], taken: set[int]) -> tuple[int, dict[str, Any], dict[str, Any]] | None:
    """The nearest assistant message before entry `before` (positions in tree.entries) whose batch holds every call in `answers`, none of them
    answered on its branch, with the entry its branch ends at (None when there is none, or its branch goes on)."""
    for index in range(before - 1, -1, -1):
        assistant = tree.entries[index]
        calls = _batch_calls(assistant)
        if not calls or not answers <= set(calls):
            continue
        if index in taken:
            return None
        segment = _segment(assistant, calls, children, kinds)
        answered = {message_of(e)["toolCallId"] for e in segment if role_of(e) == "toolResult"}  # type: ignore[index]
        end = segment[-1] if segment else assistant
        if answered & answers or _kids(children, end) or not isinstance(end.get("id"), str):
            return None
        return index, assistant, end
    return None


def relink(result: RepairResult, source: str, version: PiVersion | None = None) -> None:
    """Move what stands between a batch's calls and its results behind the last result; results in call order.
    First, results cut off from their batch by a parent that is not in the file are attached to it again
    (attach_dangling); what still dangles afterwards is said in a note."""
    version = chosen_version(version)
    kinds = _Kinds.of(version)
    attach_dangling(result, source, version)
    tree = v3_tree(result, source, "--relink", version)
    children = tree.children()
    lines = list(result.lines)
    placement: dict[int, int] = {}  # output position -> index of the line (in result.lines) that goes there
    for assistant in tree.entries:
        calls = _batch_calls(assistant)
        if not calls:
            continue
        segment = _segment(assistant, calls, children, kinds)
        results = [e for e in segment if role_of(e) == "toolResult"]
        others = [e for e in segment if role_of(e) != "toolResult"]
        ordered = sorted(results, key=lambda e: calls.index(message_of(e)["toolCallId"]))  # type: ignore[index]
        interrupted = any(not kinds.silent(e) for e in others)  # the segment ends at a result: each stands before one
        if not interrupted and ordered == results:
            continue
        new_order = [*ordered, *others] if interrupted else _in_place_order(segment, ordered)
        rule = INTERLEAVED if interrupted else ORDER
        assistant_id = assistant["id"]
        origin = result.origins[_index(tree, assistant)]
        if interrupted:
            moved = [e for e in others if not kinds.silent(e)]
            result.changes.append(Change(result.origins[_index(tree, moved[0])],
                                         f"moved {', '.join(_describe(e) for e in others)} behind the last result of "
                                         f"assistant {assistant_id}'s tool calls (Pi defers them until a batch is done)",
                                         moved[0].get("id"), rule))
        if ordered != results:
            result.changes.append(Change(origin, f"put the results of assistant {assistant_id}'s tool calls in call "
                                                 f"order ({', '.join(calls[:len(ordered)])})", assistant_id, ORDER))
        parent = assistant_id
        for entry in new_order:
            _reparent(result, tree, lines, entry, parent, rule)
            parent = entry["id"]
        for kid in _kids(children, segment[-1]):
            if kid is not new_order[-1]:
                _reparent(result, tree, lines, kid, parent, rule)
        positions = sorted(_index(tree, e) for e in segment)
        sources = [_index(tree, e) for e in new_order]
        if positions != sources:
            placement.update(zip(positions, sources, strict=True))
            result.changes.append(Change(origin, f"put the lines of assistant {assistant_id}'s batch in their new "
                                                 "order in the file (the last line stays the end of the same path)",
                                         assistant_id, rule))
    if placement:
        result.lines = [lines[placement.get(i, i)] for i in range(len(lines))]
        result.origins = [result.origins[placement.get(i, i)] for i in range(len(lines))]
    else:
        result.lines = lines
    _left_over(result, source, frozenset({INTERLEAVED, ORDER, DANGLING}), "--relink", version)


def _in_place_order(segment: list[Any], ordered: list[Any]) -> list[Any]:
    """Results in call order in the places results had; silent entries stay where they were."""
    queue = iter(ordered)
    return [next(queue) if role_of(e) == "toolResult" else e for e in segment]


def _reparent(result: RepairResult, tree: SessionTree, lines: list[bytes], entry: dict[str, Any], parent: str,
              rule: str) -> None:
    old = entry.get("parentId")
    if old == parent:
        return
    index = _index(tree, entry)
    lines[index] = with_parent(lines[index], old, parent) if isinstance(old, str) else _set_parent(lines[index], parent)
    result.changes.append(Change(result.origins[index], f"entry {entry.get('id')}: parentId {old} -> {parent}",
                                 entry.get("id"), rule))


def _set_parent(line: bytes, parent: str) -> bytes:
    entry = loads_line(line)
    entry["parentId"] = parent
    return entry_line(entry)


def _left_over(result: RepairResult, source: str, rules: frozenset[str], option: str, version: PiVersion) -> None:
    """What the fix was meant to clear but audit (as the version reads the file) still finds: said, as notes
    (lines are input lines)."""
    from pi_tools.audit.checks import audit_bytes

    for finding in audit_bytes(result.data(), source, rules, version.context):
        line = finding.get("line")
        origin = result.origins[line - 1] if isinstance(line, int) and 0 < line <= len(result.origins) else 0
        what = f"left entry {finding.get('entryId')} dangling" if finding["rule"] == DANGLING else "left this as it is"
        result.notes.append(Change(origin, f"{option} {what}: {finding['message']}", finding.get("entryId"),
                                   finding["rule"]))


# --- trim-failed --------------------------------------------------------------------------------------------


def trim_failed(result: RepairResult, source: str, version: PiVersion | None = None) -> None:
    """The failed assistant turns at the end of the active path go to the .rejected file."""
    tree = v3_tree(result, source, "--trim-failed", version)
    try:
        path = tree.path()
    except PathCycleError as exc:
        raise RepairError(f"{source}: --trim-failed cannot find the active path: {exc}") from None
    children = tree.children()
    trail: list[Any] = []
    for entry in reversed(path):
        if not _failed(entry) and not _answers_failed(entry, path):
            break
        inside = {id(e) for e in trail}
        if any(id(kid) not in inside for kid in _kids(children, entry)):
            break  # another branch goes on from here: removing it would cut that branch off
        trail.append(entry)
    while trail and not _failed(trail[-1]):
        trail.pop()  # the trail starts at a failed assistant turn
    if not trail:
        return
    good = path[len(path) - len(trail) - 1] if len(path) > len(trail) else None
    if good is None or not isinstance(good.get("id"), str):
        result.notes.append(Change(result.origins[_index(tree, trail[-1])],
                                   "--trim-failed left the failed turns: no good entry comes before them",
                                   trail[-1].get("id"), ERRORED))
        return
    removed = {_index(tree, e) for e in trail}
    for entry in reversed(trail):
        index = _index(tree, entry)
        what = "failed assistant turn" if _failed(entry) else "tool result of a failed turn"
        stop = (message_of(entry) or {}).get("stopReason")
        result.changes.append(Change(result.origins[index], f"moved the {what} {entry.get('id')}"
                                     + (f" (stopReason {stop})" if _failed(entry) else "")
                                     + " at the end of the active path to the .rejected file",
                                     entry.get("id"), ERRORED))
    good_index = _index(tree, good)
    keep = [i for i in range(len(result.lines)) if i not in removed]
    result.rejected.extend((result.origins[i], result.lines[i]) for i in sorted(removed))
    if keep and keep[-1] != good_index:
        keep.remove(good_index)
        keep.append(good_index)
        result.changes.append(Change(result.origins[good_index], f"moved the line of entry {good['id']} to the end of "
                                     "the file, so that it is Pi's leaf (the last line)", good["id"], ERRORED))
    result.changes.append(Change(result.origins[good_index], f"entry {good['id']} is the leaf again", good["id"],
                                 ERRORED))
    result.lines = [result.lines[i] for i in keep]
    result.origins = [result.origins[i] for i in keep]


def _answers_failed(entry: Any, path: list[Any]) -> bool:
    """A tool result below a failed turn (Pi never replays either)."""
    if role_of(entry) != "toolResult":
        return False
    position = next(i for i, e in enumerate(path) if e is entry)
    for earlier in reversed(path[:position]):
        if role_of(earlier) == "toolResult":
            continue
        return _failed(earlier)
    return False


# --- drop-malformed-calls ---------------------------------------------------------------------------------------


def malformed_reason(block: Any) -> tuple[str, str | None] | None:
    """Why a tool-call block cannot be replayed, and the rule that reports it (None: no rule does)."""
    if not isinstance(block, dict) or block.get("type") != "toolCall":
        return None
    call_id, name, arguments = block.get("id"), block.get("name"), block.get("arguments")
    if not isinstance(call_id, str):
        return "its id is not a string", REQUIRED
    if not isinstance(name, str):
        return "its name is not a string", REQUIRED
    if not isinstance(arguments, dict):
        return f"its arguments are {_kind(arguments)}, not an object (Pi's /tree fails on it)", REQUIRED
    if not call_id:
        return "its id is empty", "anthropic-tool-id"
    if not name:
        return "its name is empty", None
    return None


def _kind(value: Any) -> str:
    if value is None:
        return "null"
    return {list: "an array", str: "a string", bool: "a boolean"}.get(type(value), "a number")


def drop_malformed_calls(result: RepairResult, source: str, version: PiVersion | None = None) -> None:
    """Remove malformed tool calls from their messages, and the results that answer them."""
    tree = v3_tree(result, source, "--drop-malformed-calls", version)
    children = tree.children()
    replaced: dict[int, bytes] = {}
    removed: dict[int, Any] = {}  # index -> the removed result entry
    for entry in tree.entries:
        message = message_of(entry)
        content = message.get("content") if message is not None and message.get("role") == "assistant" else None
        if not isinstance(content, list):
            continue
        bad = [(i, block, found) for i, block in enumerate(content) if (found := malformed_reason(block)) is not None]
        if not bad or message is None:
            continue
        index = _index(tree, entry)
        kept_ids = {b.get("id") for b in content if isinstance(b, dict) and b.get("type") == "toolCall"
                    and malformed_reason(b) is None}
        changed = dict(entry)
        changed["message"] = {**message, "content": [b for i, b in enumerate(content) if i not in {j for j, _, _ in bad}]}
        replaced[index] = entry_line(changed)
        result.rejected.append((result.origins[index], result.lines[index]))
        dropped_ids = []
        for position, block, (why, rule) in bad:
            result.changes.append(Change(result.origins[index], f"removed tool call content[{position}] "
                                         f"({_call_label(block)}) of assistant {entry.get('id')}: {why}; the original "
                                         "line is in the .rejected file", entry.get("id"), rule))
            call_id = block.get("id")
            if _hashable(call_id) and call_id not in kept_ids:
                dropped_ids.append((call_id, rule))
        for answer, rule in _answers(entry, dict(dropped_ids), children):
            answer_index = _index(tree, answer)
            removed[answer_index] = answer
            result.changes.append(Change(result.origins[answer_index], f"moved tool result {answer.get('id')} (it "
                                         f"answers a removed call of assistant {entry.get('id')}) to the .rejected file",
                                         answer.get("id"), rule))
    if not replaced:
        return
    lines = [replaced.get(i, line) for i, line in enumerate(result.lines)]
    for answer in removed.values():
        for kid in _kids(children, answer):
            kid_index = _index(tree, kid)
            if kid_index in removed:
                continue
            new_parent = _surviving_parent(answer, removed, tree)
            lines[kid_index] = with_parent(lines[kid_index], answer["id"], new_parent) if new_parent is not None \
                else _set_parent_null(lines[kid_index])
            result.changes.append(Change(result.origins[kid_index], f"entry {kid.get('id')}: parentId {answer['id']} "
                                         f"-> {new_parent}", kid.get("id"), REQUIRED))
    result.rejected.extend((result.origins[i], result.lines[i]) for i in sorted(removed))
    result.rejected.sort(key=lambda item: item[0])
    keep = [i for i in range(len(lines)) if i not in removed]
    result.lines = [lines[i] for i in keep]
    result.origins = [result.origins[i] for i in keep]


def _hashable(value: Any) -> bool:
    return isinstance(value, (str, int, float, bool)) or value is None


def _call_label(block: dict[str, Any]) -> str:
    call_id, name = block.get("id"), block.get("name")
    shown_id = call_id if isinstance(call_id, str) and call_id else repr(call_id)
    shown_name = name if isinstance(name, str) and name else repr(name)
    return f"call {shown_id}, {shown_name}"


def _answers(assistant: dict[str, Any], dropped: dict[Any, Any], children: dict[Any, list[Any]]
             ) -> Iterable[tuple[Any, Any]]:
    """The results below `assistant` (the run of results that follows it, on every branch) that answer a dropped
    call id."""
    if not dropped:
        return
    stack = list(_kids(children, assistant))
    while stack:
        entry = stack.pop()
        message = message_of(entry)
        if message is None or message.get("role") != "toolResult":
            continue
        call_id = message.get("toolCallId")
        if _hashable(call_id) and call_id in dropped and isinstance(entry.get("id"), str):
            yield entry, dropped[call_id]
        stack.extend(_kids(children, entry))


def _surviving_parent(entry: dict[str, Any], removed: dict[int, Any], tree: SessionTree) -> str | None:
    """The nearest ancestor of `entry` that stays in the file."""
    removed_ids = {e.get("id") for e in removed.values()}
    parent = entry.get("parentId")
    while isinstance(parent, str) and parent in removed_ids:
        parent = tree.by_id[parent].get("parentId")
    return parent if isinstance(parent, str) else None


def _set_parent_null(line: bytes) -> bytes:
    entry = loads_line(line)
    entry["parentId"] = None
    return entry_line(entry)


# --- context edits whose target a fix set aside -------------------------------------------------------------


def entry_ids(lines: list[bytes]) -> set[str]:
    """The string ids of the entries of `lines` (lines that are no entry or have no string id give none)."""
    ids: set[str] = set()
    for line in lines:
        try:
            entry = loads_line(line)
        except Exception:  # noqa: BLE001 - a line that does not parse holds no entry
            continue
        if isinstance(entry, dict) and type(entry.get("id")) is str:
            ids.add(entry["id"])
    return ids


def follow_removed_targets(result: RepairResult, source: str, before: set[str], version: PiVersion) -> None:
    """Context edits whose target was an entry of the file (`before`: its ids when the fixes began) that a fix
    moved to the .rejected file follow it there: an edit that points at nothing changes nothing, and a file
    reassembled from OUT and OUT.rejected has both again. Their children move up to the nearest entry that
    stays; when an edit was the last line, that entry's line goes to the end, so Pi's leaf is on the same path."""
    while True:
        tree = load_lines(result.lines, source, version)
        gone = before - {key for key in tree.by_id if type(key) is str}
        edits = {_index(tree, entry): entry for entry in tree.entries
                 if isinstance(entry, dict) and entry.get("type") == "context_edit"
                 and type(entry.get("id")) is str and type(entry.get("targetId")) is str
                 and entry["targetId"] in gone}
        if not edits:
            return
        children = tree.children()
        lines = list(result.lines)
        for index, edit in sorted(edits.items()):
            result.changes.append(Change(result.origins[index], f"moved context edit {edit['id']} to the .rejected "
                                         f"file: its target {edit['targetId']} is there (it would edit nothing)",
                                         edit["id"], "context-edit-no-effect"))
        for edit in edits.values():
            for kid in _kids(children, edit):
                kid_index = _index(tree, kid)
                if kid_index in edits:
                    continue
                new_parent = _surviving_parent(edit, edits, tree)
                lines[kid_index] = with_parent(lines[kid_index], edit["id"], new_parent) if new_parent is not None \
                    else _set_parent_null(lines[kid_index])
                result.changes.append(Change(result.origins[kid_index], f"entry {kid.get('id')}: parentId "
                                             f"{edit['id']} -> {new_parent}", kid.get("id"), "context-edit-no-effect"))
        result.rejected.extend((result.origins[i], result.lines[i]) for i in sorted(edits))
        result.rejected.sort(key=lambda item: item[0])
        keep = [i for i in range(len(lines)) if i not in edits]
        last = len(lines) - 1
        if last in edits:
            leaf_parent = _surviving_parent(edits[last], edits, tree)
            parent_entry = tree.by_id.get(leaf_parent) if leaf_parent is not None else None
            parent_index = _index(tree, parent_entry) if parent_entry is not None else None
            if parent_index is not None and keep:
                if keep[-1] != parent_index:
                    keep.remove(parent_index)
                    keep.append(parent_index)
                    result.changes.append(Change(result.origins[parent_index], f"moved the line of entry {leaf_parent} "
                                                 "to the end of the file, so that it is Pi's leaf (the last line)",
                                                 leaf_parent, "context-edit-no-effect"))
                result.changes.append(Change(result.origins[parent_index], f"entry {leaf_parent} is the leaf again",
                                             leaf_parent, "context-edit-no-effect"))
        result.lines = [lines[i] for i in keep]
        result.origins = [result.origins[i] for i in keep]
