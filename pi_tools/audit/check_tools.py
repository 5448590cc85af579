"""Tool calls and their results, on every branch of the entry tree.

Every branch, not only the active path: a stored branch can be resumed (`pi --session F` then `/tree`), so CI
must hold all of them to the rule. The walk goes from the roots down with an explicit stack, carrying for each
entry the state of the tool batch on the path above it; each entry is visited once, so the cost is linear in
the file. A batch is the list of tool calls of one assistant message; it stays open through its results (and
through entries that produce no message, such as labels or model changes), and any other message closes it.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Any

from pi_tools.audit.check_blocks import NEVER_REPLAYED
from pi_tools.audit.findings import FindingSink
from pi_tools.js.values import js_truthy
from pi_tools.session.tree import SessionTree

OPEN, CLOSED, ERRORED = "open", "closed", "errored"


@dataclass(frozen=True)
class Batch:
    """The tool calls of one assistant message as seen from some entry below it."""

    assistant: dict[str, Any]
    calls: tuple[tuple[str, Any], ...]  # (id, name) in call order
    answered: tuple[str, ...] = ()
    phase: str = OPEN
    last: dict[str, Any] | None = None  # the last entry of the batch chain (the assistant or a result)
    closer: dict[str, Any] | None = None  # the message that closed the batch early
    late: tuple[str, ...] = ()  # calls still unanswered when the batch was closed


@dataclass
class OrphanGroup:
    """Calls with no result on a branch, to be answered right after `after` (used by repair)."""

    after: dict[str, Any]
    assistant: dict[str, Any]
    calls: list[tuple[str, Any]] = field(default_factory=list)


def tool_calls(message: dict[str, Any]) -> tuple[tuple[str, Any], ...]:
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


class ToolWalk:
    """One walk over the tree: findings go to the sink, unanswered calls to `orphans`."""

    def __init__(self, tree: SessionTree, sink: FindingSink) -> None:
        self.tree = tree
        self.sink = sink
        self.orphans: dict[int, OrphanGroup] = {}
        self._reported: set[tuple[int, str]] = set()

    def run(self) -> None:
        children = self.tree.children()
        visited: set[int] = set()
        stack: list[tuple[dict[str, Any], Batch | None]] = [(root, None) for root in reversed(children.get(None, []))]
        while stack:
            entry, state = stack.pop()
            if id(entry) in visited:
                continue  # a duplicate id lists the same children twice
            visited.add(id(entry))
            state = self._step(entry, state)
            entry_id = entry.get("id")
            kids = children.get(entry_id, []) if isinstance(entry_id, str) else []
            kids = [kid for kid in kids if kid is not entry]
            if not kids:
                self._close(state)
            for kid in reversed(kids):
                stack.append((kid, state))

    # --- transitions ------------------------------------------------------------------------------------
    def _step(self, entry: dict[str, Any], state: Batch | None) -> Batch | None:
        if entry.get("type") == "message":
            message = entry.get("message")
            if not isinstance(message, dict):
                return state
            role = message.get("role")
            if role == "toolResult":
                return self._result(entry, message, state)
            if role == "assistant":
                self._close(state)
                if message.get("stopReason") in NEVER_REPLAYED:
                    return Batch(entry, tool_calls(message), phase=ERRORED, last=entry)
                calls = tool_calls(message)
                return Batch(entry, calls, last=entry) if calls else None
            return self._interrupt(entry, state)
        if _produces_message(entry):
            return self._interrupt(entry, state)
        return state

    def _interrupt(self, entry: dict[str, Any], state: Batch | None) -> Batch | None:
        if state is None or state.phase == ERRORED:
            return None
        if state.phase == CLOSED:
            return state
        answered = set(state.answered)
        late = tuple(call_id for call_id, _ in state.calls if call_id not in answered)
        if not late:
            return None
        return replace(state, phase=CLOSED, closer=entry, late=late)

    def _close(self, state: Batch | None) -> None:
        """The batch ends here (next assistant message or end of branch): unanswered calls are orphans."""
        if state is None or state.phase == ERRORED:
            return
        if state.phase == OPEN:
            answered = set(state.answered)
            missing = [call for call in state.calls if call[0] not in answered]
        else:
            late = set(state.late)
            missing = [call for call in state.calls if call[0] in late]
        if not missing:
            return
        assert state.last is not None
        group = self.orphans.setdefault(id(state.last), OrphanGroup(state.last, state.assistant))
        for call in missing:
            if call not in group.calls:
                group.calls.append(call)
            key = (id(state.assistant), call[0])
            if key in self._reported:
                continue
            self._reported.add(key)
            self.sink.add(
                "orphaned-tool-call", state.assistant.get("id"), self.tree.line_of(state.assistant),
                f"tool call {call[0]} ({call[1]}) never gets a result; Pi sends `No result provided` in its place",
            )

    def _result(self, entry: dict[str, Any], message: dict[str, Any], state: Batch | None) -> Batch | None:
        call_id = message.get("toolCallId")
        name = message.get("toolName")
        entry_id = entry.get("id")
        line = self.tree.line_of(entry)
        if state is None:
            self.sink.add("tool-result-unmatched", entry_id, line,
                          f"tool result for call {call_id} ({name}) follows no assistant message with tool calls")
            return None
        where = f"assistant {state.assistant.get('id')} (line {self.tree.line_of(state.assistant)})"
        ids = [call[0] for call in state.calls]
        if state.phase == ERRORED:
            stop = state.assistant["message"].get("stopReason")
            self.sink.add("tool-result-unmatched", entry_id, line,
                          f"tool result for call {call_id} follows {where}, which ended with stopReason {stop!r} "
                          "and is never replayed; the result is sent without its call")
            return state
        if state.phase == CLOSED and call_id in state.late:
            closer = state.closer or {}
            self.sink.add("tool-result-interleaved", entry_id, line,
                          f"tool result for call {call_id} of {where} comes after another message "
                          f"({closer.get('id')}, line {self.tree.line_of(closer)}); Pi sends `No result provided` "
                          "for the call and this result out of place")
            return replace(state, late=tuple(c for c in state.late if c != call_id))
        if call_id not in ids:
            self.sink.add("tool-result-unmatched", entry_id, line,
                          f"tool result for call {call_id} ({name}) matches no tool call of {where}")
            return state
        if call_id in state.answered or state.phase == CLOSED:
            self.sink.add("tool-result-unmatched", entry_id, line,
                          f"second tool result for call {call_id} of {where}")
            return state
        call_name = state.calls[ids.index(call_id)][1]
        if name != call_name:
            self.sink.add("tool-result-name", entry_id, line,
                          f"tool result for call {call_id} is named {name!r} but the call is {call_name!r}")
        if state.answered:
            latest = max(ids.index(done) for done in state.answered)
            if ids.index(call_id) < latest:
                self.sink.add("tool-result-order", entry_id, line,
                              f"tool result for call {call_id} comes after the result for call {ids[latest]}, "
                              f"but {where} called {call_id} first")
        return replace(state, answered=(*state.answered, call_id), last=entry)


def check_tool_results(sink: FindingSink, tree: SessionTree) -> dict[int, OrphanGroup]:
    """Run the walk; returns the unanswered calls grouped by the entry they should follow."""
    walk = ToolWalk(tree, sink)
    walk.run()
    return walk.orphans
