"""Rules of OpenAI's Responses API (and of Azure's and Codex's adapters of it). Pi replays earlier turns
statelessly, so every reasoning item, function call and output it sends must pair up inside the one input list.

Codex (ChatGPT's backend, openai-codex-responses) takes the same input items with ``store: false`` and checks
them the same way: its 400s for a stray output carry OpenAI's words (james-6-23/codex2api#414 relays one from
the Codex backend: "No tool call found for function call output with call_id ..."), so every rule here names it
too. Its request has no system item (the system prompt is ``instructions``), which none of these rules reads."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import Any

from pi_tools.providers.rulebook.rules import Hit, rule
from pi_tools.providers.rulebook.scans import Rows, Summary, item_scan, scanned
from pi_tools.providers.rulebook.view import RequestView

API = ("openai-responses", "azure-openai-responses", "openai-codex-responses")
CALLS = ("function_call", "custom_tool_call")
OUTPUTS = ("function_call_output", "custom_tool_call_output")
MAX_CALL_ID = 64


def _prune(scan: Summary, count: int) -> Summary:
    """The rows of a part that the rules below can act on when the request is the whole payload (scans.item_scan's
    `prune`): a call whose call_id (a string of at most 64 characters) occurs in the part exactly once as a call
    and once as an output after it is answered, and that output has its call, so neither row is kept; the
    part's answered call_ids are kept instead, as one "paired" row (the first such call's item, the call_ids):
    one row per part, not one per pair, for the main process to shift and merge (46,172 pairs in the 100 MB
    benchmark session). Each rule reads the rows of one call_id together, so this holds for the whole request
    only where no other row of it carries that call_id: `_ids` checks that after the merge and otherwise scans
    the items again (call_ids repeated across parts are rare)."""
    rows = scan["ids"]
    calls: dict[str, int] = {}  # call_id -> its row, or -1 when it occurs more than once
    outputs: dict[str, int] = {}
    for at, (_, is_call, call_id) in enumerate(rows):
        if type(call_id) is str and len(call_id) <= MAX_CALL_ID:
            seen = calls if is_call else outputs
            seen[call_id] = -1 if call_id in seen else at
    dropped: set[int] = set()
    first = -1
    paired: list[str] = []
    for call_id, at in calls.items():
        answer = outputs.get(call_id, -1)
        if at >= 0 and answer > at:
            dropped.update((at, answer))
            paired.append(call_id)
            if first < 0 or rows[at][0] < first:
                first = rows[at][0]
    if not dropped:
        return scan
    return {**scan, "ids": [row for at, row in enumerate(rows) if at not in dropped], "paired": [(first, paired)]}


def _ids(view: RequestView) -> Rows:
    """The call and output rows the rules read: without a part's answered pairs (see _prune) where the call_ids
    of those pairs occur nowhere else in the request, else every row of the items, scanned again."""
    def rows() -> Rows:
        scan = _scan(view)
        ids: Rows = scan["ids"]
        paired = scan.get("paired")
        if not paired:
            return ids
        pairs = [call_id for _, call_ids in paired for call_id in call_ids]
        pruned = set(pairs)
        if len(pruned) == len(pairs) and not any(type(row[2]) is str and row[2] in pruned for row in ids):
            return ids
        rescanned: Rows = _scan_items(view.items)["ids"]
        return rescanned
    return view.cached("responses.ids", rows)


@item_scan("responses", API, prune=_prune)
def _scan_items(items: Sequence[Any]) -> Summary:
    """The rows the rules below read (see scans.py): function calls and outputs in order (item, whether a call,
    call_id); reasoning items (item, id); the type and role of the first item and of each item after a reasoning
    item (item, type, role), which is all the rules ask of the items that follow one; "paired" is for _prune
    (a part's answered call_ids: (item, [call_id, ...]))."""
    ids: Rows = []
    reasoning: Rows = []
    heads: Rows = []
    after_reasoning = True  # a part's first item may follow a reasoning item of the part before it
    for i, item in enumerate(items):
        is_dict = isinstance(item, dict)
        kind = item.get("type") if is_dict else None
        if after_reasoning:
            heads.append((i, kind, item.get("role") if is_dict else None))
        after_reasoning = kind == "reasoning"
        if kind in CALLS:
            ids.append((i, True, item.get("call_id")))
        elif kind in OUTPUTS:
            ids.append((i, False, item.get("call_id")))
        elif after_reasoning:
            reasoning.append((i, item.get("id")))
    return {"ids": ids, "reasoning": reasoning, "heads": heads, "paired": []}


def _scan(view: RequestView) -> Summary:
    return scanned(view, "responses")


@rule("responses-output-without-call", "error", "A function_call_output whose function_call is not in the input",
      API, "items",
      "No tool call found for function call output with call_id ID.",
      "continuedev/continue#10092, agentscope-ai/AgentTeams#299 (recorded 400s, param 'input')",
      "Drop the stray result or move it after its call (`pi-tools repair`; `pi-tools audit` names it as "
      "tool-result-unmatched).",
      """Every function_call_output must answer a function_call that appears earlier in the same input.""")
def output_without_call(view: RequestView) -> Iterator[Hit]:
    seen: set[Any] = set()
    for i, is_call, call_id in _ids(view):
        if is_call:
            seen.add(call_id)
        elif call_id not in seen:
            yield Hit("responses-output-without-call", view.path(i),
                      f"No tool call found for function call output with call_id {call_id}.")


@rule("responses-call-without-output", "error", "A function_call without its function_call_output", API, "items",
      "No tool output found for function call ID.",
      "tjardoo/openai-client#124, ranxianglei/billion-context#766 (recorded 400s)",
      "Store the missing result (`pi-tools repair --close-orphans`), or branch from before the call with --leaf.",
      """A function_call in the input must be answered by a function_call_output later in the input. Pi 0.85
      answers unanswered calls with a synthetic error result, so this appears mostly outside Pi.""")
def call_without_output(view: RequestView) -> Iterator[Hit]:
    outputs: dict[Any, int] = {}
    rows = _ids(view)
    for i, is_call, call_id in rows:
        if not is_call:
            outputs.setdefault(call_id, i)
    for i, is_call, call_id in rows:
        if is_call and outputs.get(call_id, -1) < i:
            yield Hit("responses-call-without-output", view.path(i),
                      f"No tool output found for function call {call_id}.")


@rule("responses-reasoning-without-following", "error", "A reasoning item with nothing of its turn after it", API,
      "items",
      "Item 'rs_...' of type 'reasoning' was provided without its required following item.",
      "continuedev/continue#8933, vercel/ai#7099, openai/openai-node#1567 (recorded 400s)",
      "Continue with thinking off, or drop the reasoning-only assistant entry from the branch (--leaf).",
      """A replayed reasoning item must be followed by the message or function call it produced, not by the
      next user message, a tool output or the end of the input.""")
def reasoning_without_following(view: RequestView) -> Iterator[Hit]:
    count = len(view.items)
    scan = _scan(view)
    heads = view.cached("responses.heads", lambda: {row[0]: row for row in scan["heads"]})
    for i, item_id in scan["reasoning"]:
        following = heads.get(i + 1) if i + 1 < count else None
        if following is None or following[1] in OUTPUTS or (following[1] in (None, "message")
                                                             and following[2] != "assistant"):
            yield Hit("responses-reasoning-without-following", view.path(i),
                      f"Item '{item_id}' of type 'reasoning' was provided without its required following "
                      "item.", needs=min(i + 1, count - 1))


@rule("responses-call-id-length", "error", "A call_id over 64 characters", API, "items",
      "Invalid 'input[N].call_id': string too long. Expected a string with maximum length 64, but got a string with "
      "length X instead.",
      "AnswerDotAI/fastllm#45 (recorded 400, code string_above_max_length)",
      "Rewrite the call and result ids in the entries (ids other providers minted are the usual cause).",
      """call_id values of function calls and outputs are at most 64 characters.""")
def call_id_length(view: RequestView) -> Iterator[Hit]:
    for i, _, cid in _ids(view):
        if isinstance(cid, str) and len(cid) > MAX_CALL_ID:
            yield Hit("responses-call-id-length", view.path(i, "call_id"),
                      f"Invalid 'input[{i}].call_id': string too long. Expected a string with maximum length "
                      f"{MAX_CALL_ID}, but got a string with length {len(cid)} instead.")
