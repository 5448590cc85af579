"""Tool calls and their results, on every branch of the entry tree.

Every branch, not only the active path: a stored branch can be resumed (`pi --session F` then `/tree`), so CI
must hold all of them to the rule. The walk goes from the roots down with an explicit stack, carrying for each
entry the state of the tool batch on the path above it; each entry is visited once, so the cost is linear in
the file. A batch is the list of tool calls of one assistant message; it stays open through its results (and
through entries that produce no message, such as labels or model changes), and any other message closes it.

The walk reads entries through ToolRecords: per entry position a kind and a small payload (the calls of an
assistant message, the call id and name of a result), its id, line and children. The line-by-line reader's
tree and the bulk index of a clean file (audit/clean.py) both make them, so one walk serves both readers.
"""

from __future__ import annotations

from array import array
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from pi_tools.audit.check_blocks import never_replayed
from pi_tools.audit.check_edits import has_edits, omitted_on_paths
from pi_tools.audit.findings import FindingSink
from pi_tools.js.values import js_truthy
from pi_tools.session.context import PI_085_RULES, ContextRules
from pi_tools.session.diagnostics import describe_value
from pi_tools.session.tree import SessionTree

# What an entry does to the tool batch above it.
PASSES, INTERRUPTS, ASSISTANT, ERRORED_ASSISTANT, RESULT = range(5)
"""PASSES: no message (labels, settings, a message entry without a message object); INTERRUPTS: any other
message (user, bash, custom, summaries); ASSISTANT: an assistant message that is replayed (payload: its calls);
ERRORED_ASSISTANT: one that ended in error or was aborted (payload: its calls; stop reason in `stops`);
RESULT: a tool result (payload: its toolCallId and toolName values)."""

OPEN, CLOSED, ERRORED = 0, 1, 2

Calls = tuple[tuple[str, Any], ...]  # (id, name) in call order
State = tuple[int, Calls, list[str], tuple[Any, ...], int, int, int, tuple[str, ...], int, int] | None
"""The batch as seen from an entry: (assistant position, calls, their ids, answered call ids, phase, position of
the batch chain's last entry (the assistant or a result), position of the message that closed it early (-1),
calls still unanswered when it was closed, the highest call index answered (-1), how many distinct call ids).
None: no batch."""


def _batch(position: int, calls: Calls, phase: int) -> State:
    ids = [call[0] for call in calls]
    return (position, calls, ids, (), phase, position, -1, (), -1, len(set(ids)))


@dataclass
class ToolRecords:
    """What the walk needs of each entry position (positions need not be contiguous: those of entries that are
    not objects are never reached)."""

    kinds: Sequence[int]
    payloads: Sequence[Any]
    stops: dict[int, Any]  # the stop reason of each errored assistant
    ids: Sequence[Any]  # each entry's id value as stored
    lines: Sequence[int]  # each entry's file line
    roots: list[int]
    first_kid: Sequence[int]  # each entry's first child in file order (-1: none)
    more_kids: Mapping[int, list[int]]  # the other children of entries that have several, in file order
    revisits: bool = True
    """Whether an entry can be reached twice (duplicate ids list the same children under both entries)."""


@dataclass
class OrphanGroup:
    """Calls with no result on a branch, to be answered right after `after` (used by repair)."""

    after: Any
    assistant: Any
    calls: list[tuple[str, Any]] = field(default_factory=list)


def tool_calls(message: dict[str, Any]) -> Calls:
    content = message.get("content")
    if not isinstance(content, list):
        return ()
    return tuple(
        (block["id"], block.get("name")) for block in content
        if isinstance(block, dict) and block.get("type") == "toolCall" and isinstance(block.get("id"), str)
    )


def _produces_message(entry: dict[str, Any]) -> bool:
    """Entries that put a message into the context (and so close a tool batch)."""
    entry_type = entry.get("type")
    if entry_type in ("custom_message", "compaction"):
        return True
    if entry_type == "branch_summary":
        return js_truthy(entry.get("summary"))
    return False


def entry_record(entry: dict[str, Any], held: frozenset[str] = frozenset()) -> tuple[int, Any, Any]:
    """(kind, payload, stop reason) of one entry object, as the walk sees it (`held`: the roles the Pi version's
    transformMessages holds until a batch's results are in, which pass)."""
    if entry.get("type") == "message":
        message = entry.get("message")
        if not isinstance(message, dict):
            return PASSES, None, None
        role = message.get("role")
        if held and type(role) is str and role in held:
            return PASSES, None, None
        if role == "toolResult":
            return RESULT, (message.get("toolCallId"), message.get("toolName")), None
        if role == "assistant":
            stop = message.get("stopReason")
            if never_replayed(stop):
                return ERRORED_ASSISTANT, tool_calls(message), stop
            return ASSISTANT, tool_calls(message), None
        return INTERRUPTS, None, None
    return (INTERRUPTS if _produces_message(entry) else PASSES), None, None


def tree_records(tree: SessionTree, held: frozenset[str] = frozenset()) -> ToolRecords:
    """The walk's view of a tree from the line-by-line reader (positions: indices into tree.entries).

    Children are resolved as SessionTree.children does (a parent that is missing, unhashable, the entry itself or
    unknown makes a root), by position, with machine integers for the first child: a damaged 100 MB file's tree
    is large enough already."""
    entries = tree.entries
    by_id = tree.by_id
    kinds = bytearray(len(entries))
    payloads: list[Any] = [None] * len(entries)
    stops: dict[int, Any] = {}
    ids: list[Any] = [None] * len(entries)
    children: dict[Any, list[int]] = {}
    roots: list[int] = []
    for position, entry in enumerate(entries):
        if not isinstance(entry, dict):
            continue
        kinds[position], payloads[position], stop = entry_record(entry, held)
        if kinds[position] == ERRORED_ASSISTANT:
            stops[position] = stop
        entry_id = ids[position] = entry.get("id")
        parent = entry.get("parentId")
        if parent is None or isinstance(parent, (dict, list)) or parent == entry_id or parent not in by_id:
            roots.append(position)
        else:
            children.setdefault(parent, []).append(position)
    first_kid = array("q", [-1]) * len(entries)
    more_kids: dict[int, list[int]] = {}
    for position, entry_id in enumerate(ids):
        if not isinstance(entry_id, str) or entry_id not in children:
            continue
        kids = [kid for kid in children[entry_id] if kid != position]
        if kids:
            first_kid[position] = kids[0]
            if len(kids) > 1:
                more_kids[position] = kids[1:]
    return ToolRecords(kinds, payloads, stops, ids, tree.line_numbers, roots, first_kid, more_kids)


def _shown(value: Any, show: Callable[[Any], str] = str) -> str:
    """A stored id or name in a finding's message, as `show` writes it; a value nested deeper than Python prints
    (damaged sessions nest a thousand levels) by its kind."""
    try:
        return show(value)
    except RecursionError:
        return f"<{describe_value(value)} nested too deep to show>"


def _same(first: Any, second: Any) -> bool:
    """Whether two stored values are equal; values nested deeper than Python compares are taken as different."""
    try:
        return bool(first == second)
    except RecursionError:
        return False


class ToolWalk:
    """One walk over the records: findings go to the sink, unanswered calls to `orphans` (by the position of the
    entry they should follow)."""

    def __init__(self, records: ToolRecords, sink: FindingSink) -> None:
        self.records = records
        self.sink = sink
        self.orphans: dict[int, tuple[int, list[tuple[str, Any]]]] = {}  # after -> (assistant, calls)
        self._reported: set[tuple[int, str]] = set()

    def run(self) -> None:
        records = self.records
        kinds, payloads, first_kid, more_kids = records.kinds, records.payloads, records.first_kid, records.more_kids
        close, interrupt, result = self._close, self._interrupt, self._result
        visited: set[int] | None = set() if records.revisits else None
        stack: list[tuple[int, State]] = [(root, None) for root in reversed(records.roots)]
        while stack:
            position, state = stack.pop()
            while True:
                if visited is not None:
                    if position in visited:
                        break  # a duplicate id lists the same children twice
                    visited.add(position)
                kind = kinds[position]
                if kind == RESULT:
                    state = result(position, payloads[position], state)
                elif kind == ASSISTANT:
                    if state is not None and (state[4] != OPEN or len(state[3]) != state[9]):
                        close(state)  # (a batch whose calls all have results closes without a word)
                    calls = payloads[position]
                    state = _batch(position, calls, OPEN) if calls else None
                elif kind == INTERRUPTS:
                    if state is not None:
                        state = interrupt(position, state)
                elif kind == ERRORED_ASSISTANT:
                    close(state)
                    state = _batch(position, payloads[position], ERRORED)
                kid = first_kid[position]
                if kid < 0:
                    close(state)
                    break
                more = more_kids.get(position)
                if more is not None:
                    stack.extend((other, state) for other in reversed(more))
                position = kid  # the first child goes on at once, as if pushed last and popped

    # --- transitions ------------------------------------------------------------------------------------
    def _interrupt(self, position: int, state: State) -> State:
        if state is None or state[4] == ERRORED:
            return None
        if state[4] == CLOSED:
            return state
        answered = set(state[3])
        late = tuple(call_id for call_id, _ in state[1] if call_id not in answered)
        if not late:
            return None
        return (*state[:4], CLOSED, state[5], position, late, *state[8:])

    def _close(self, state: State) -> None:
        """The batch ends here (next assistant message or end of branch): unanswered calls are orphans."""
        if state is None or state[4] == ERRORED:
            return
        assistant, calls, _, answered, phase, last, _, late, _, distinct = state
        if phase == OPEN:
            if len(answered) == distinct:
                return  # every call answered (answered ids are distinct ids of the calls): the usual end of a batch
            answered_ids = set(answered)
            missing = [call for call in calls if call[0] not in answered_ids]
        else:
            late_ids = set(late)
            missing = [call for call in calls if call[0] in late_ids]
        if not missing:
            return
        group = self.orphans.setdefault(last, (assistant, []))[1]
        records = self.records
        for call in missing:
            if not any(_same(call, other) for other in group):
                group.append(call)
            key = (assistant, call[0])
            if key in self._reported:
                continue
            self._reported.add(key)
            self.sink.add(
                "orphaned-tool-call", records.ids[assistant], records.lines[assistant],
                f"tool call {call[0]} ({_shown(call[1])}) never gets a result; Pi sends `No result provided` in its "
                "place",
            )

    def _where(self, assistant: int) -> str:
        return f"assistant {self.records.ids[assistant]} (line {self.records.lines[assistant]})"

    def _result(self, position: int, payload: tuple[Any, Any], state: State) -> State:
        call_id, name = payload
        records, sink = self.records, self.sink
        if state is None:
            sink.add("tool-result-unmatched", records.ids[position], records.lines[position],
                     f"tool result for call {_shown(call_id)} ({_shown(name)}) follows no assistant message with "
                     "tool calls")
            return None
        assistant, calls, ids, answered, phase, _, closer, late, latest, distinct = state
        if phase == OPEN and call_id not in answered:
            # (calls' ids are strings: any other value matches none, and list.index would print it in its error)
            index = ids.index(call_id) if type(call_id) is str and call_id in ids else -1
            if index >= 0:  # the usual case: a call of this batch answered for the first time
                call_name = calls[index][1]
                if not _same(name, call_name):
                    sink.add("tool-result-name", records.ids[position], records.lines[position],
                             f"tool result for call {call_id} is named {_shown(name, repr)} but the call is "
                             f"{_shown(call_name, repr)}")
                if index < latest:
                    sink.add("tool-result-order", records.ids[position], records.lines[position],
                             f"tool result for call {call_id} comes after the result for call {ids[latest]}, "
                             f"but {self._where(assistant)} called {call_id} first")
                return (assistant, calls, ids, (*answered, call_id), phase, position, closer, late,
                        index if index > latest else latest, distinct)
        entry_id, line = records.ids[position], records.lines[position]
        if phase == ERRORED:
            sink.add("tool-result-unmatched", entry_id, line,
                     f"tool result for call {_shown(call_id)} follows {self._where(assistant)}, which ended with "
                     f"stopReason {records.stops[assistant]!r} and is never replayed; the result is sent without its "
                     "call")
            return state
        if phase == CLOSED and call_id in late:
            sink.add("tool-result-interleaved", entry_id, line,
                     f"tool result for call {call_id} of {self._where(assistant)} comes after another message "
                     f"({records.ids[closer]}, line {records.lines[closer]}); Pi sends `No result provided` "
                     "for the call and this result out of place")
            return (*state[:7], tuple(c for c in late if c != call_id), latest, distinct)
        if call_id not in ids:
            sink.add("tool-result-unmatched", entry_id, line,
                     f"tool result for call {_shown(call_id)} ({_shown(name)}) matches no tool call of "
                     f"{self._where(assistant)}")
            return state
        sink.add("tool-result-unmatched", entry_id, line,
                 f"second tool result for call {call_id} of {self._where(assistant)}")
        return state


class _OnceSink(FindingSink):
    """A sink that takes each finding once (the walks of several paths meet the same entries)."""

    def __init__(self, sink: FindingSink) -> None:
        super().__init__(sink.source, sink.enabled)
        self.findings = sink.findings
        self._seen: set[tuple[Any, ...]] = set()

    def add(self, rule_id: str, entry_id: Any, line: int | None, message: str) -> None:
        key = (rule_id, entry_id if isinstance(entry_id, str) else None, line, message)
        if key not in self._seen:
            self._seen.add(key)
            super().add(rule_id, entry_id, line, message)


def check_tool_results(sink: FindingSink, tree: SessionTree,
                       rules: ContextRules = PI_085_RULES) -> dict[int, OrphanGroup]:
    """Run the walk on a tree; returns the unanswered calls grouped by the entry they should follow (keyed by
    that entry's identity).

    `rules`, the Pi version's: the roles its transformMessages holds pass; where its context edits omit entries
    (a file with `context_edit` entries), the pairing is judged on what Pi sends: one walk per leaf's path, the
    omitted entries passing, each finding reported once."""
    records = tree_records(tree, rules.held_roles)
    if rules.context_edits and has_edits(tree):
        once = _OnceSink(sink)
        orphans: dict[int, tuple[int, list[tuple[str, Any]]]] = {}
        for path, omitted, replaced in omitted_on_paths(tree, rules):
            if not path:
                continue
            kinds = bytearray(records.kinds)
            for position in omitted:
                kinds[position] = PASSES
            payloads = records.payloads
            if any(kinds[position] in (ASSISTANT, ERRORED_ASSISTANT) for position in replaced):
                payloads = list(payloads)  # a replaced assistant message calls what its new content calls
                for position, content in replaced.items():
                    if kinds[position] in (ASSISTANT, ERRORED_ASSISTANT):
                        payloads[position] = tool_calls({"content": content})
            first_kid = array("q", [-1]) * len(kinds)
            for parent, kid in zip(path, path[1:], strict=False):
                first_kid[parent] = kid
            walk = ToolWalk(ToolRecords(kinds, payloads, records.stops, records.ids, records.lines,
                                        [path[0]], first_kid, {}, revisits=False), once)
            walk.run()
            for after, group in walk.orphans.items():
                orphans.setdefault(after, group)
    else:
        walk = ToolWalk(records, sink)
        walk.run()
        orphans = walk.orphans
    entries = tree.entries
    return {
        id(entries[after]): OrphanGroup(entries[after], entries[assistant], calls)
        for after, (assistant, calls) in orphans.items()
    }
