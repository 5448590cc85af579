"""The fix each finding names: the exact `pi-tools repair ...` command that clears it, or why there is none.

A rule's `fix` text explains the remedy in general; a finding names it for its own file and model, so that the
user can paste it. Only commands that clear the finding are named (those `repair --for-model` verifies by
checking again, and the stored-order repairs); for the rest the reason no rewrite of the stored history helps.
"""

from __future__ import annotations

import shlex
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from pi_tools.audit.fixes import repaired_name

if TYPE_CHECKING:
    from pi_tools.session.context import ContextRules

NEW_TURN_RULES = frozenset({"google-thought-signature", "anthropic-thinking-tool-loop", "bedrock-thinking-tool-loop"})
"""Cleared by `repair --for-model`: a new turn appended at the leaf (see pi_tools.rewrite.for_model)."""

PAIRING_RULES = frozenset({
    "anthropic-tool-use-without-result", "completions-tool-calls-without-results", "responses-call-without-output",
    "google-function-response-count", "mistral-tool-results", "bedrock-tool-results"})
"""Calls without results or results stored out of place: `repair --relink --close-orphans` stores them as Pi
sends them."""

RESULT_WITHOUT_CALL_RULES = frozenset({
    "anthropic-tool-result-without-use", "completions-tool-message-without-call", "responses-output-without-call"})
"""A result sent without its call. No repair brings back a call that is gone; but where the call is stored and a
message Pi defers (a bash execution, a steering or custom message) stands between it and this result, Pi sends
`No result provided` for the call and this result apart from it (audit's `tool-result-interleaved`), and
`repair --relink` moves that message behind the batch (see `interleaved_results`)."""
INTERLEAVED_RULE = "tool-result-interleaved"

_NO_REPAIR: dict[str, str] = {
    "anthropic-tool-result-without-use": "no repair: a result whose call is gone cannot be paired again; remove the "
                                         "result entry by hand, or branch from before it (--leaf)",
    "completions-tool-message-without-call": "no repair: a result whose call is gone cannot be paired again; remove "
                                             "the result entry by hand, or branch from before it (--leaf)",
    "responses-output-without-call": "no repair: an output whose call is gone cannot be paired again; remove the "
                                     "result entry by hand, or branch from before it (--leaf)",
    "context-window": "no repair: the history itself is too long; compact it in Pi (/compact), or make it smaller "
                      "with `pi-tools slim`",
    "request-size": "no repair: the history itself is too large; `pi-tools slim` removes large images and tool "
                    "outputs",
    "anthropic-thinking-budget": "no repair: a request option, not something stored in the session; use a lower "
                                 "thinking level (--reasoning) or a model with a larger output limit",
}


STORED_IN_ORDER = ("no repair: the session stores every result of this call turn right after it, so relinking and "
                   "closing orphans change nothing; the request splits them itself (e.g. an image in a tool result "
                   "is sent as a turn of its own): remove what splits them, such as that image, or branch from "
                   "before the turn (--leaf)")
"""A pairing finding whose call turn is stored complete and in order: its cause is what the API's adapter makes
of the batch, which no repair of the stored order reaches."""


def stored_in_order(llm: Sequence[Any], origins: Sequence[Any]) -> frozenset[Any]:
    """The entry ids of every call turn (the assistant message and its results) that the context holds complete and
    in place: an assistant with tool calls followed at once by one result for each call and nothing else. These are
    the batches `repair --relink --close-orphans` leaves as they are (it moves results to their call and closes
    calls without one), so a pairing finding there is not cleared by it. `origins[i]` is llm[i]'s (entry id, line)."""
    paired: set[Any] = set()
    index = 0
    while index < len(llm):
        message = llm[index]
        content = message.get("content") if isinstance(message, dict) else None
        if not (isinstance(message, dict) and message.get("role") == "assistant" and isinstance(content, list)):
            index += 1
            continue
        calls = [block.get("id") for block in content if isinstance(block, dict) and block.get("type") == "toolCall"]
        end = index + 1
        results: list[Any] = []
        while end < len(llm) and isinstance(llm[end], dict) and llm[end].get("role") == "toolResult":
            results.append(llm[end].get("toolCallId"))
            end += 1
        call_ids = [call for call in calls if isinstance(call, str)]
        if call_ids and len(call_ids) == len(calls) == len(results) == len(set(call_ids)) \
                and sorted(map(str, results)) == sorted(call_ids):
            paired.update(origins[position][0] for position in range(index, end) if position < len(origins))
        index = max(end, index + 1)
    paired.discard(None)
    return frozenset(paired)


def interleaved_results(source: str, rules: ContextRules) -> frozenset[Any]:
    """The entry ids of the results audit finds stored after a message that `repair --relink` moves behind their
    batch (`tool-result-interleaved`: relink's own measure of what it clears), read again from `source` as the
    version reads it; empty when `source` is no file that can be read (a document on standard input)."""
    from pi_tools.audit.checks import audit_bytes
    from pi_tools.session.reader import SessionReadError, read_session_bytes

    try:
        data = read_session_bytes(source)
    except (OSError, SessionReadError):
        return frozenset()
    found = audit_bytes(data, source, frozenset({INTERLEAVED_RULE}), rules)
    return frozenset(f.get("entryId") for f in found if f.get("rule") == INTERLEAVED_RULE and f.get("entryId"))


def fix_for(rule: str, source: str, model: str | None, general: str, in_order: bool = False,
            interleaved: bool = False) -> str:
    """The fix of one finding of `rule` in `source` for `model` (provider/id); `general`: the rule's own fix;
    `in_order`: the finding's entry is in a call turn stored complete and in place (stored_in_order), where the
    pairing repairs change nothing; `interleaved`: the finding's entry is a result `repair --relink` moves back
    to its call (interleaved_results). A command writes a new file beside the session
    (audit.fixes.repaired_name: the same name audit suggests)."""
    command = f"pi-tools repair {shlex.quote(source)} -o {shlex.quote(repaired_name(source))}"
    if rule in NEW_TURN_RULES and model:
        return f"{command} --for-model {shlex.quote(model)}"
    if rule in PAIRING_RULES:
        return STORED_IN_ORDER if in_order else f"{command} --relink --close-orphans"
    if rule in RESULT_WITHOUT_CALL_RULES and interleaved:
        return f"{command} --relink"
    if rule in _NO_REPAIR:
        return _NO_REPAIR[rule]
    return f"no repair: {general}"
