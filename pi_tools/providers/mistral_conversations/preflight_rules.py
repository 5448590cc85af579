"""Rules of Mistral's chat API (the Conversations adapter sends the same message list)."""

from __future__ import annotations

import re
from collections.abc import Iterator

from pi_tools.providers.rulebook.rules import Hit, rule
from pi_tools.providers.rulebook.view import RequestView

API = ("mistral-conversations",)
MISTRAL_ID = re.compile(r"[a-zA-Z0-9]{9}")


@rule("mistral-tool-call-id", "error", "A tool call id that is not 9 letters or digits", API, "items",
      "Tool call id was ID but must be a-z, A-Z, 0-9, with a length of 9.",
      "jackmpcollins/magentic#276, anomalyco/opencode#1680, nearai/ironclaw#1241 (recorded 400s)",
      "Pi maps other providers' ids to 9-character ids itself; an id that still fails was stored for Mistral by "
      "something else: rewrite the call and result ids in the entries.",
      """Mistral validates every tool call id (assistant tool calls and tool messages) against [a-zA-Z0-9]{9}.""")
def tool_call_id(view: RequestView) -> Iterator[Hit]:
    for i, item in enumerate(view.items):
        if not isinstance(item, dict):
            continue
        calls = item.get("toolCalls")
        for j, call in enumerate(calls if isinstance(calls, list) else []):
            cid = call.get("id") if isinstance(call, dict) else None
            if not isinstance(cid, str) or MISTRAL_ID.fullmatch(cid) is None:
                yield Hit("mistral-tool-call-id", view.path(i, "toolCalls", j, "id"),
                          f"Tool call id was {cid} but must be a-z, A-Z, 0-9, with a length of 9.")
        if item.get("role") == "tool":
            cid = item.get("toolCallId")
            if not isinstance(cid, str) or MISTRAL_ID.fullmatch(cid) is None:
                yield Hit("mistral-tool-call-id", view.path(i, "toolCallId"),
                          f"Tool call id was {cid} but must be a-z, A-Z, 0-9, with a length of 9.")


@rule("mistral-tool-results", "error", "Tool calls and tool messages that do not pair up", API, "items",
      "Not the same number of function calls and responses",
      "Mistral chat completion validation (mistral-common's validator raises the same text)",
      "Store the missing results right after the call (`pi-tools repair --close-orphans`).",
      """The tool messages after an assistant message with tool calls must answer each of them.""")
def tool_results(view: RequestView) -> Iterator[Hit]:
    items = view.items
    for i, item in enumerate(items):
        calls = item.get("toolCalls") if isinstance(item, dict) else None
        if not isinstance(calls, list) or not calls:
            continue
        k = i + 1
        while k < len(items) and isinstance(items[k], dict) and items[k].get("role") == "tool":
            k += 1
        if k - i - 1 != len(calls):
            yield Hit("mistral-tool-results", view.path(i, "toolCalls", 0),
                      f"Not the same number of function calls and responses ({len(calls)} call(s), {k - i - 1} tool "
                      "message(s) after them)", needs=min(k, len(items) - 1))
