"""Rules of Amazon Bedrock's Converse API (ValidationException texts)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from pi_tools.audit.preflight.rules import Hit, rule
from pi_tools.audit.preflight.view import RequestView, blocks, is_blank

API = ("bedrock-converse-stream",)


def _ids(item: Any, key: str, field: str) -> list[tuple[int, Any]]:
    return [(j, b[key].get(field)) for j, b in enumerate(blocks(item))
            if isinstance(b, dict) and isinstance(b.get(key), dict)]


@rule("bedrock-tool-results", "error", "toolUse blocks not answered by toolResult blocks in the next message", API,
      "items",
      "Expected toolResult blocks at messages.N.content for the following Ids: ID / The number of toolResult blocks "
      "at messages.N.content exceeds the number of toolUse blocks of previous turn.",
      "genkit-ai/aws-bedrock-js-plugin#664, pydantic/pydantic-ai#2327, Just-Curieous/Curie#16 (recorded 400s)",
      "Store the missing results right after the call (`pi-tools repair --close-orphans`), or drop the stray ones.",
      """The user message after an assistant message with toolUse blocks must answer each of them, and may not
      carry more toolResult blocks than the previous turn had calls.""")
def tool_results(view: RequestView) -> Iterator[Hit]:
    items = view.items
    for i, item in enumerate(items):
        if not isinstance(item, dict):
            continue
        results = _ids(item, "toolResult", "toolUseId") if item.get("role") == "user" else []
        if results:
            previous = items[i - 1] if i > 0 else None
            issued = {cid for _, cid in _ids(previous, "toolUse", "toolUseId")} \
                if isinstance(previous, dict) and previous.get("role") == "assistant" else set()
            if len(results) > len(issued) or any(cid not in issued for _, cid in results):
                yield Hit("bedrock-tool-results", view.path(i, "content", results[0][0]),
                          f"The number of toolResult blocks at messages.{i}.content exceeds the number of toolUse "
                          "blocks of previous turn.")
        if item.get("role") != "assistant":
            continue
        uses = _ids(item, "toolUse", "toolUseId")
        if not uses:
            continue
        following = items[i + 1] if i + 1 < len(items) else None
        answered = {cid for _, cid in _ids(following, "toolResult", "toolUseId")} \
            if isinstance(following, dict) and following.get("role") == "user" else set()
        missing = [cid for _, cid in uses if cid not in answered]
        if missing and following is not None:
            yield Hit("bedrock-tool-results", view.path(i, "content", uses[0][0]),
                      f"Expected toolResult blocks at messages.{i + 1}.content for the following Ids: "
                      + ", ".join(str(cid) for cid in missing), needs=i + 1)


@rule("bedrock-alternation", "error", "Two messages of the same role in a row, or a first message not from the user",
      API, "items",
      "A conversation must alternate between user and assistant roles. Make sure the conversation alternates "
      "between user and assistant roles and try again. / A conversation must start with a user message.",
      "https://docs.aws.amazon.com/bedrock/latest/APIReference/API_runtime_Converse.html (ValidationException)",
      "Merge or drop the neighbouring message in the session (`pi-tools repair`), or branch with --leaf.",
      """Converse requires the messages to start with a user message and to alternate between user and
      assistant.""")
def alternation(view: RequestView) -> Iterator[Hit]:
    previous = None
    for i, item in enumerate(view.items):
        role = item.get("role") if isinstance(item, dict) else None
        if i == 0 and role != "user":
            yield Hit("bedrock-alternation", view.path(0), "A conversation must start with a user message. Try "
                      "again with a conversation that starts with a user message.")
        elif role == previous:
            yield Hit("bedrock-alternation", view.path(i), "A conversation must alternate between user and "
                      f"assistant roles (messages.{i - 1} and messages.{i} are both {role}).")
        previous = role


@rule("bedrock-blank-text", "error", "A blank text block", API, "items",
      "The text field in the ContentBlock object at messages.N.content.M is blank. Add text to the text field, and "
      "try again.",
      "NousResearch/hermes-agent#41985 (recorded ValidationException)",
      "Remove the blank text block from the entry (`pi-tools repair`), or give it text.",
      """Converse refuses empty and whitespace-only text blocks.""")
def blank_text(view: RequestView) -> Iterator[Hit]:
    for i, item in enumerate(view.items):
        for j, block in enumerate(blocks(item)):
            if isinstance(block, dict) and "text" in block and is_blank(block.get("text")):
                yield Hit("bedrock-blank-text", view.path(i, "content", j),
                          f"The text field in the ContentBlock object at messages.{i}.content.{j} is blank. Add text "
                          "to the text field, and try again.")
