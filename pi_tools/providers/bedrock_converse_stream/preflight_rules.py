"""Rules of Amazon Bedrock's Converse API (ValidationException texts)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from pi_tools.js.values import js_set_key
from pi_tools.providers.rulebook.rules import Hit, rule
from pi_tools.providers.rulebook.view import RequestView, blocks, is_blank

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
            issued = {js_set_key(cid) for _, cid in _ids(previous, "toolUse", "toolUseId")} \
                if isinstance(previous, dict) and previous.get("role") == "assistant" else set()
            if len(results) > len(issued) or any(js_set_key(cid) not in issued for _, cid in results):
                yield Hit("bedrock-tool-results", view.path(i, "content", results[0][0]),
                          f"The number of toolResult blocks at messages.{i}.content exceeds the number of toolUse "
                          "blocks of previous turn.")
        if item.get("role") != "assistant":
            continue
        uses = _ids(item, "toolUse", "toolUseId")
        if not uses:
            continue
        following = items[i + 1] if i + 1 < len(items) else None
        answered = {js_set_key(cid) for _, cid in _ids(following, "toolResult", "toolUseId")} \
            if isinstance(following, dict) and following.get("role") == "user" else set()
        missing = [cid for _, cid in uses if js_set_key(cid) not in answered]
        if missing and following is not None:
            yield Hit("bedrock-tool-results", view.path(i, "content", uses[0][0]),
                      f"Expected toolResult blocks at messages.{i + 1}.content for the following Ids: "
                      + ", ".join(str(cid) for cid in missing), needs=i + 1)


@rule("bedrock-alternation", "error", "Two messages of the same role in a row, or a first message not from the user",
      API, "items",
      "A conversation must alternate between user and assistant roles. Make sure the conversation alternates "
      "between user and assistant roles and try again. / A conversation must start with a user message.",
      "https://docs.aws.amazon.com/bedrock/latest/APIReference/API_runtime_Converse.html (ValidationException)",
      "Branch with --leaf, or merge the neighbouring messages by hand (`pi-tools repair --relink` only moves messages stored between calls and their results).",
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
      "Give the blank text block text, or remove it from the entry by hand (`pi-tools repair` does not rewrite blocks).",
      """Converse refuses empty and whitespace-only text blocks.""")
def blank_text(view: RequestView) -> Iterator[Hit]:
    for i, item in enumerate(view.items):
        for j, block in enumerate(blocks(item)):
            if isinstance(block, dict) and "text" in block and is_blank(block.get("text")):
                yield Hit("bedrock-blank-text", view.path(i, "content", j),
                          f"The text field in the ContentBlock object at messages.{i}.content.{j} is blank. Add text "
                          "to the text field, and try again.")


def _thinking_on(view: RequestView) -> bool:
    fields = view.payload.get("additionalModelRequestFields")
    thinking = fields.get("thinking") if isinstance(fields, dict) else None
    return isinstance(thinking, dict) and thinking.get("type") in ("enabled", "adaptive")


def _has_tool_results(item: Any) -> bool:
    return any(isinstance(block, dict) and "toolResult" in block for block in blocks(item))


def _is_turn_start(item: Any) -> bool:
    """A user message that is not only tool results (a cache point does not count): it starts a new turn."""
    if not isinstance(item, dict) or item.get("role") != "user":
        return False
    content = [block for block in blocks(item) if not (isinstance(block, dict) and "cachePoint" in block)]
    return not content or any(not (isinstance(block, dict) and "toolResult" in block) for block in content)


def _turn_index(view: RequestView) -> tuple[list[int], list[int]]:
    """(start of the turn each request end falls in, first assistant message at or after each position)."""
    def build() -> tuple[list[int], list[int]]:
        items = view.items
        starts, start = [], 0
        for i, item in enumerate(items):
            starts.append(start)
            if _is_turn_start(item):
                start = i + 1
        starts.append(start)
        first = [len(items)] * (len(items) + 1)
        for i in range(len(items) - 1, -1, -1):
            first[i] = i if isinstance(items[i], dict) and items[i].get("role") == "assistant" else first[i + 1]
        return starts, first
    return view.cached("bedrock.turns", build)


def _block_kind(block: Any) -> str:
    """A Converse content block's kind as Anthropic's validator names it in Bedrock's message."""
    if not isinstance(block, dict):
        return "unknown"
    reasoning = block.get("reasoningContent")
    if isinstance(reasoning, dict):
        return "redacted_thinking" if "redactedContent" in reasoning else "thinking"
    return {"text": "text", "toolUse": "tool_use", "image": "image", "document": "document"}.get(
        next(iter(block), ""), next(iter(block), "unknown"))


@rule("bedrock-thinking-tool-loop", "error",
      "Claude on Bedrock with thinking on: the assistant turn of a tool loop must start with thinking", API, "tail",
      "The model returned the following errors: messages.N.content.0.type: Expected `thinking` or "
      "`redacted_thinking`, but found `text`. When `thinking` is enabled, a final `assistant` message must start "
      "with a thinking block (preceeding the lastmost set of `tool_use` and `tool_result` blocks). We recommend you "
      "include thinking blocks from previous turns. To avoid this requirement, disable `thinking`.",
      "https://docs.aws.amazon.com/bedrock/latest/userguide/claude-messages-extended-thinking.html (Bedrock's "
      "guide to Claude's extended thinking, tool use included); langchain-ai/langchain-aws#844 (recorded "
      "ConverseStream ValidationException), anomalyco/opencode#3077 (through LiteLLM: 'BedrockException The model "
      "returned the following errors: ... found `tool_use`')",
      "Send this request with thinking off (--reasoning off, or /thinking off in Pi) until the tool loop ends, or "
      "continue on the model that produced the turn (its signed thinking is then replayed as reasoningContent).",
      """Anthropic's rule (anthropic-thinking-tool-loop) as Bedrock's Claude models enforce it: Bedrock passes
      Anthropic's validation message through, prefixed with "The model returned the following errors:". With
      thinking on (additionalModelRequestFields.thinking) and a request that ends in a tool loop, the first
      assistant message of the current turn must begin with a reasoningContent block. Pi sends another model's
      thinking as text and drops thinking without a signature, so a switch in the middle of a tool loop leaves
      the turn without it. As on Anthropic, a turn whose stored first message had no thinking is accepted, and
      only Claude models are checked.""",
      applies=lambda model: "claude" in str(model.get("id", "")).lower())
def thinking_tool_loop(view: RequestView) -> Iterator[Hit]:
    end = view.end
    if end < 2 or not _thinking_on(view):
        return
    last = view.items[end - 1]
    if not isinstance(last, dict) or last.get("role") != "user" or not _has_tool_results(last):
        return
    starts, first = _turn_index(view)
    index = first[starts[end]]
    if index >= end:
        return
    content = blocks(view.items[index])
    kind = _block_kind(content[0]) if content else "nothing"
    if kind in ("thinking", "redacted_thinking"):
        return
    stored = view.source_message(index)
    if isinstance(stored, dict) and not any(isinstance(b, dict) and b.get("type") == "thinking"
                                            for b in blocks(stored)):
        return  # the turn began without thinking: accepted as it is (see anthropic-thinking-tool-loop)
    yield Hit("bedrock-thinking-tool-loop", view.path(index, "content", 0),
              f"The model returned the following errors: messages.{index}.content.0.type: Expected `thinking` or "
              f"`redacted_thinking`, but found `{kind}`. When `thinking` is enabled, a final `assistant` message "
              "must start with a thinking block (preceeding the lastmost set of `tool_use` and `tool_result` blocks).")
