"""Rules the Anthropic Messages API enforces (also behind Bedrock's and Vertex's Claude endpoints, whose messages
quote Anthropic's). Messages quoted from recorded 400 responses: fixtures/realworld (tool_use pairing) and the
public issue threads named in each rule's `source`."""

from __future__ import annotations

import re
from bisect import bisect_left
from collections.abc import Iterator, Sequence
from typing import Any

from pi_tools.js.values import js_set_key
from pi_tools.providers.rulebook.rules import Hit, rule
from pi_tools.providers.rulebook.scans import Rows, Summary, firsts, item_scan, scanned
from pi_tools.providers.rulebook.view import RequestView, blocks

API = ("anthropic-messages",)
TOOL_NAME = re.compile(r"[a-zA-Z0-9_-]{1,128}")
TOOL_ID = re.compile(r"[a-zA-Z0-9_-]+")
IMAGE_TYPES = ("image/jpeg", "image/png", "image/gif", "image/webp")
IMAGE_BYTES = 5 * 1024 * 1024
MAX_IMAGES = 100


def _tool_uses(item: Any) -> list[tuple[int, Any]]:
    return [(j, b.get("id")) for j, b in enumerate(blocks(item))
            if isinstance(b, dict) and b.get("type") == "tool_use"]


def _tool_results(item: Any) -> list[tuple[int, Any]]:
    return [(j, b.get("tool_use_id")) for j, b in enumerate(blocks(item))
            if isinstance(b, dict) and b.get("type") == "tool_result"]


def _answered(issued: list[Any], answers: list[Any]) -> bool:
    """Whether a message's tool_result ids are exactly the tool_use ids of the message before it, as sets (so
    that neither pairing rule below reports either message)."""
    issued_keys = {js_set_key(tool_id) for tool_id in issued}
    answer_keys = {js_set_key(tool_id) for tool_id in answers}
    return issued_keys == answer_keys


def _prune(scan: Summary, count: int) -> Summary:
    """The rows of a part that the rules below can act on when the request is the whole payload (scans.item_scan's
    `prune`):

    - an assistant message whose tool_use ids the next message answers exactly (rows "paired"): neither pairing
      rule reports either message, and each reads only the other's rows, so neither message's rows are kept; a
      pair that straddles the cut is no pair of either part, and the rules relate its rows after the merge;
    - the thinking rule looks only at the last turn start and the first assistant message after it, so a part
      keeps its last turn start and the first assistant message after it (the first of the part without one:
      the turn may have started in an earlier part).
    """
    pruned = dict(scan)
    paired = {row[0] for row in scan["paired"]}
    if paired:
        pruned["uses"] = [row for row in scan["uses"] if row[0] not in paired]
        pruned["results"] = [row for row in scan["results"] if row[0] - 1 not in paired]
        pruned["paired"] = []
    turn_starts, assistants = scan["turn_starts"], scan["assistants"]
    last_start = turn_starts[-1][0] if turn_starts else -1
    first_after = next((row for row in assistants if row[0] > last_start), None)
    pruned["turn_starts"] = turn_starts[-1:]
    pruned["assistants"] = [] if first_after is None else [first_after]
    return pruned


@item_scan("anthropic", API, prune=_prune)
def _scan_items(items: Sequence[Any]) -> Summary:
    """One pass over the messages, shared by the rules below (each reading only what it needs): a large
    session's payload holds 10^5 blocks, and a pass per rule cost more than building the payload. Rows (see
    scans.py): tool_use ids of assistant messages and tool_result ids of user messages (item, block, id); the
    assistant messages whose tool_use ids the next message answers exactly (item; see _prune); blank text
    blocks (item, path below the item, message); messages without content (item, role); ids outside the
    pattern (item, block, key, label); images (item, path below the item, base64 length or None, source type,
    media type); turn starts and assistant messages (item)."""
    uses: Rows = []
    results: Rows = []
    paired: Rows = []
    blank: Rows = []
    empty: Rows = []
    bad_ids: Rows = []
    images: Rows = []
    turn_starts: Rows = []
    assistants: Rows = []
    fullmatch = TOOL_ID.fullmatch
    issued: list[Any] | None = None  # the tool_use ids of the item before, if it is an assistant message
    issued_strings = True  # ... and whether they are all strings
    for i, item in enumerate(items):
        previous, previous_strings, issued = issued, issued_strings, None
        if not isinstance(item, dict):
            continue
        content = item.get("content")
        role = item.get("role")
        if role == "assistant":
            assistants.append((i,))
        elif role == "user" and (type(item) is not dict or type(content) is not list) and _starts_turn(content):
            turn_starts.append((i,))  # a list of blocks is judged below, in the blocks' own pass
        if type(item) is not dict:
            continue
        if content == "" or content == []:
            empty.append((i, role))
        if type(content) is not list:
            continue
        answers: list[Any] | None = None
        other = False  # a block that is not a tool_result: a user message with one starts a turn
        for j, block in enumerate(content):
            if type(block) is not dict:
                other = other or not (isinstance(block, dict) and block.get("type") == "tool_result")
                continue
            kind = block.get("type")
            if kind != "tool_result":
                other = True
            if kind == "text":
                text = block.get("text")
                if type(text) is str and (not text or text.isspace()):  # not text.strip(), without the copy
                    what = "must be non-empty" if text == "" else "must contain non-whitespace text"
                    blank.append((i, ("content", j), f"messages: text content blocks {what}"))
            elif kind == "tool_use":
                value = block.get("id")
                if role == "assistant":
                    uses.append((i, j, value))
                    if issued is None:
                        issued, issued_strings = [value], type(value) is str
                    else:
                        issued.append(value)
                        issued_strings = issued_strings and type(value) is str
                if type(value) is not str or fullmatch(value) is None:
                    bad_ids.append((i, j, "id", "tool_use.id"))
            elif kind == "tool_result":
                value = block.get("tool_use_id")
                if role == "user":
                    results.append((i, j, value))
                    if answers is None:
                        answers = [value]
                    else:
                        answers.append(value)
                if type(value) is not str or fullmatch(value) is None:
                    bad_ids.append((i, j, "tool_use_id", "tool_result.tool_use_id"))
                inner = block.get("content")
                if type(inner) is list:
                    for k, part in enumerate(inner):
                        if type(part) is not dict:
                            continue
                        if part.get("type") == "image":
                            images.append((i, ("content", j, "content", k), *_image_facts(part.get("source"))))
                        elif part.get("type") == "text":
                            text = part.get("text")
                            if type(text) is str and text != "" and text.isspace():
                                blank.append((i, ("content", j, "content", k),
                                              "messages: text content blocks must contain non-whitespace text"))
            elif kind == "image":
                images.append((i, ("content", j), *_image_facts(block.get("source"))))
        if role == "user" and (other or not content):  # _starts_turn(content)
            turn_starts.append((i,))
        if answers is not None and previous is not None and (
                (previous_strings and answers == previous) or _answered(previous, answers)):
            paired.append((i - 1,))  # the same ids in the same order (the usual case), else the same sets
    return {"uses": uses, "results": results, "paired": paired, "blank": blank, "empty": empty, "bad_ids": bad_ids,
            "images": images, "turn_starts": turn_starts, "assistants": assistants}


def _starts_turn(content: Any) -> bool:
    """Whether a user message with this content starts a new assistant turn (it is not only tool results)."""
    return not isinstance(content, list) or not content or any(
        not (isinstance(b, dict) and b.get("type") == "tool_result") for b in content)


def _image_facts(source: Any) -> tuple[Any, ...]:
    """What the image rules read of an image's source: the base64 text's length (None if it has none), whether
    the source is an object, its type and media type (never the image itself: rows travel between processes)."""
    if not isinstance(source, dict):
        return None, False, None, None
    data = source.get("data")
    return (len(data) if isinstance(data, str) else None), True, source.get("type"), source.get("media_type")


def _scan(view: RequestView) -> Summary:
    return scanned(view, "anthropic")


def _by_item(view: RequestView, kind: str) -> dict[int, list[tuple[int, Any]]]:
    """Rows (item, block, id) of the scan as {item: [(block, id), ...]}, in payload order."""
    def build() -> dict[int, list[tuple[int, Any]]]:
        grouped: dict[int, list[tuple[int, Any]]] = {}
        for i, j, tool_id in _scan(view)[kind]:
            grouped.setdefault(i, []).append((j, tool_id))
        return grouped
    return view.cached(f"anthropic.{kind}", build)


@rule("anthropic-tool-use-without-result", "error", "A tool_use block without its tool_result in the next message",
      API, "items",
      "messages.N: `tool_use` ids were found without `tool_result` blocks immediately after: ID. Each `tool_use` "
      "block must have a corresponding `tool_result` block in the next message.",
      "recorded 400 in fixtures/realworld/badlogic__pi-mono__before-compaction.jsonl line 848",
      "Store the missing result right after the call (`pi-tools repair --close-orphans` adds Pi's own 'No result "
      "provided' results), or branch from before the call with --leaf.",
      """Every assistant message's tool_use blocks must be answered, id for id, by tool_result blocks in the very
      next (user) message. Pi 0.85 adds a synthetic error result for a call that never got one, so this mostly
      appears with payloads that did not come from Pi, or with results another message separates from their
      call.""")
def tool_use_without_result(view: RequestView) -> Iterator[Hit]:
    results = _by_item(view, "results")
    count = len(view.items)
    for i, uses in _by_item(view, "uses").items():
        # Results are rows of user messages only: the next message answers nothing unless it is one.
        following = results.get(i + 1, ())
        if len(uses) == 1 == len(following) and type(uses[0][1]) is str and uses[0][1] == following[0][1]:
            continue  # one call answered by one result (most of a session): no sets needed
        answered = {js_set_key(tool_id) for _, tool_id in following}
        missing = [(j, tool_id) for j, tool_id in uses if js_set_key(tool_id) not in answered]
        if missing:
            ids = ", ".join(str(tool_id) for _, tool_id in missing)
            yield Hit("anthropic-tool-use-without-result", view.path(i, "content", missing[0][0]),
                      f"messages.{i}: `tool_use` ids were found without `tool_result` blocks immediately after: "
                      f"{ids}. Each `tool_use` block must have a corresponding `tool_result` block in the next "
                      "message.", needs=min(i + 1, count - 1))


@rule("anthropic-tool-result-without-use", "error", "A tool_result block whose tool_use is not in the previous message",
      API, "items",
      "messages.N.content.M: unexpected `tool_use_id` found in `tool_result` blocks: ID. Each `tool_result` block "
      "must have a corresponding `tool_use` block in the previous message.",
      "Anthropic Messages API validation (anthropics/anthropic-sdk-python issues; same wording on Bedrock/Vertex)",
      "Drop or re-attach the stray result: `pi-tools repair` moves results next to their calls; `pi-tools audit` "
      "names the entry (rule tool-result-unmatched).",
      """A tool_result must answer a tool_use of the assistant message immediately before it.""")
def tool_result_without_use(view: RequestView) -> Iterator[Hit]:
    uses = _by_item(view, "uses")
    for i, results in _by_item(view, "results").items():
        previous = uses.get(i - 1, ())
        if len(results) == 1 == len(previous) and type(results[0][1]) is str and results[0][1] == previous[0][1]:
            continue
        issued = {js_set_key(tool_id) for _, tool_id in previous}
        for j, tool_id in results:
            if js_set_key(tool_id) not in issued:
                yield Hit("anthropic-tool-result-without-use", view.path(i, "content", j),
                          f"messages.{i}.content.{j}: unexpected `tool_use_id` found in `tool_result` blocks: "
                          f"{tool_id}. Each `tool_result` block must have a corresponding `tool_use` block in the "
                          "previous message.")


def _positions(view: RequestView, scan: Summary, kind: str) -> list[int]:
    return view.cached(f"anthropic.{kind}.positions", lambda: firsts(scan[kind]))


def _thinking_on(view: RequestView) -> bool:
    thinking = view.payload.get("thinking")
    return isinstance(thinking, dict) and thinking.get("type") in ("enabled", "adaptive")


def _is_turn_start(item: Any) -> bool:
    """A user message that is not only tool results: it starts a new assistant turn."""
    if not isinstance(item, dict) or item.get("role") != "user":
        return False
    content = item.get("content")
    return not isinstance(content, list) or not content or any(
        not (isinstance(b, dict) and b.get("type") == "tool_result") for b in content)


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
            assistant = isinstance(items[i], dict) and items[i].get("role") == "assistant"
            first[i] = i if assistant else first[i + 1]
        return starts, first
    return view.cached("anthropic.turns", build)


@rule("anthropic-thinking-tool-loop", "error", "With thinking on, the assistant turn of a tool loop must start with thinking",
      API, "tail",
      "messages.N.content.0.type: Expected `thinking` or `redacted_thinking`, but found `tool_use`. When `thinking` is "
      "enabled, a final `assistant` message must start with a thinking block (preceeding the lastmost set of "
      "`tool_use` and `tool_result` blocks). We recommend you include thinking blocks from previous turns. To avoid "
      "this requirement, disable `thinking`.",
      "https://docs.claude.com/en/docs/build-with-claude/extended-thinking; quoted in anomalyco/opencode#3077, "
      "mastra-ai/mastra#7799",
      "Send this request with thinking off (--reasoning off, or /thinking off in Pi) until the tool loop ends, or "
      "continue on the model that produced the turn (its signed thinking is then replayed).",
      """When the request ends in a tool loop (its last message carries tool_result blocks) and thinking is on,
      the first assistant message of the current turn (the messages after the last user message that is not only
      tool results: Anthropic's "final assistant message", spread over the loop) must begin with a thinking or
      redacted_thinking block; later steps of the loop may do without (recorded sessions show Claude 4 steps
      with bare tool_use accepted). Pi sends no thinking it cannot replay: another model's thinking becomes
      text, unsigned thinking is dropped, for example after a model switch in the middle of a tool loop. A turn
      that began without thinking (the stored message has none: thinking was off, or the model gave none) is
      accepted in the recorded sessions (badlogic large-session lines 494-506), so the rule fires only where the
      stored message had thinking that Pi does not send. Claude models only: Anthropic-compatible endpoints of
      other models (z.ai's GLM in fixtures/realworld/pinion05, lines 24-28) accept such loops.""",
      applies=lambda model: "claude" in str(model.get("id", "")).lower())
def thinking_tool_loop(view: RequestView) -> Iterator[Hit]:
    end = view.end
    if end < 2 or not _thinking_on(view):
        return
    last = view.items[end - 1]
    if not isinstance(last, dict) or last.get("role") != "user" or not _tool_results(last):
        return
    scan = _scan(view)
    turn_starts, assistants = _positions(view, scan, "turn_starts"), _positions(view, scan, "assistants")
    before = bisect_left(turn_starts, end)
    start = turn_starts[before - 1] + 1 if before else 0  # the turn the request ends in starts here
    at = bisect_left(assistants, start)
    index = assistants[at] if at < len(assistants) else len(view.items)
    if index >= end:
        return
    content = blocks(view.items[index])
    head = content[0] if content and isinstance(content[0], dict) else {}
    kind = head.get("type")
    if kind in ("thinking", "redacted_thinking"):
        return
    stored = view.source_message(index)
    if isinstance(stored, dict) and not any(isinstance(b, dict) and b.get("type") == "thinking"
                                            for b in blocks(stored)):
        return  # the turn began without thinking (thinking was off then): Anthropic accepts the loop as it is
    yield Hit("anthropic-thinking-tool-loop", view.path(index, "content", 0),
              f"messages.{index}.content.0.type: Expected `thinking` or `redacted_thinking`, but found `{kind}`. "
              "When `thinking` is enabled, a final `assistant` message must start with a thinking block (preceeding "
              "the lastmost set of `tool_use` and `tool_result` blocks).")


@rule("anthropic-empty-text", "error", "An empty or whitespace-only text block", API, "items",
      "messages: text content blocks must be non-empty / messages: text content blocks must contain non-whitespace "
      "text",
      "anthropics/claude-code#23440, nick1udwig/kibitz#78 (recorded responses)",
      "Give the blank text block text, or remove it from the entry by hand (`pi-tools repair` does not rewrite blocks).",
      """Anthropic refuses text blocks that are empty or hold only whitespace, in any message. Pi leaves blank
      text out of what it converts, so this appears with hand-made or tool-made content.""")
def empty_text(view: RequestView) -> Iterator[Hit]:
    for i, rest, message in _scan(view)["blank"]:
        yield Hit("anthropic-empty-text", view.path(i, *rest), message)


@rule("anthropic-empty-message", "error", "A message with no content", API, "items",
      "messages.N: all messages must have non-empty content except for the optional final assistant message",
      "Anthropic Messages API validation (the same wording in Bedrock's Claude errors)",
      "Give the stored message content, or branch around the entry with --leaf.",
      """Every message but a final assistant one must have content: an empty string or an empty block list is
      refused.""")
def empty_message(view: RequestView) -> Iterator[Hit]:
    count = len(view.items)
    for i, role in _scan(view)["empty"]:
        final_assistant = i == count - 1 and role == "assistant"
        if not final_assistant:
            yield Hit("anthropic-empty-message", view.path(i, "content"),
                      f"messages.{i}: all messages must have non-empty content except for the optional final "
                      "assistant message")


@rule("anthropic-tool-id", "error", "A tool_use id or tool_use_id outside [a-zA-Z0-9_-]", API, "items",
      "messages.N.content.M.tool_use.id: String should match pattern '^[a-zA-Z0-9_-]+$'",
      "Anthropic Messages API schema (HKUDS/nanobot#4356 quotes the 400)",
      "Pi rewrites other providers' ids itself; an id that still fails was stored for this model by something "
      "else: rewrite the call and its result ids in the entries.",
      """Tool call ids sent to Anthropic must match ^[a-zA-Z0-9_-]+$ (Pi also cuts them to 64 characters).""")
def tool_id(view: RequestView) -> Iterator[Hit]:
    for i, j, key, label in _scan(view)["bad_ids"]:
        yield Hit("anthropic-tool-id", view.path(i, "content", j, key),
                  f"messages.{i}.content.{j}.{label}: String should match pattern '^[a-zA-Z0-9_-]+$'")


@rule("anthropic-tool-name", "error", "A tool name outside ^[a-zA-Z0-9_-]{1,128}$", API, "request",
      "tools.N.custom.name: String should match pattern '^[a-zA-Z0-9_-]{1,128}$'",
      "home-assistant/core#147760 (recorded 400; older deployments said {1,64}: apify/tester-mcp-client#11)",
      "Rename the tool in --tools (dots and spaces are the usual culprits, e.g. `server.tool` -> `server_tool`).",
      """Anthropic tool names are 1-128 characters of letters, digits, `_` and `-`.""")
def tool_name(view: RequestView) -> Iterator[Hit]:
    for i, tool in enumerate(view.tools):
        name = tool.get("name") if isinstance(tool, dict) else None
        if "name" in (tool if isinstance(tool, dict) else {}) and \
                (not isinstance(name, str) or TOOL_NAME.fullmatch(name) is None):
            yield Hit("anthropic-tool-name", f"tools[{i}].name",
                      f"tools.{i}.custom.name: String should match pattern '^[a-zA-Z0-9_-]{{1,128}}$'")


def _images(view: RequestView) -> list[tuple[int, str, Any, bool, Any, Any]]:
    """(item, path, base64 length, source is an object, source type, media type) of every image block, in tool
    results too."""
    return view.cached("anthropic.images", lambda: [(i, view.path(i, *rest), *facts)
                                                    for i, rest, *facts in _scan(view)["images"]])


@rule("anthropic-image-size", "error", "A base64 image over 5 MB", API, "items",
      "messages.N.content.M.image.source.base64: image exceeds 5 MB maximum: X bytes > 5242880 bytes",
      "anthropics/claude-code#19631, daya0576/pi-imessage#5 (recorded 400s)",
      "Shrink or drop the image in the entry; Pi's blockImages setting (pi-tools render --block-images shows the "
      "effect) replaces images with a placeholder.",
      """Anthropic measures the limit on the base64 text: 5,242,880 characters.""")
def image_size(view: RequestView) -> Iterator[Hit]:
    for i, path, length, _, _, _ in _images(view):
        if length is not None and length > IMAGE_BYTES:
            head = path.replace(f"{view.key}[{i}]", f"messages.{i}").replace("[", ".").replace("]", "")
            yield Hit("anthropic-image-size", path, f"{head}.image.source.base64: image exceeds 5 MB maximum: "
                      f"{length} bytes > {IMAGE_BYTES} bytes")


@rule("anthropic-image-media-type", "error", "An image media type Anthropic does not take", API, "items",
      "messages.N.content.M.image.source.base64.media_type: Input should be 'image/jpeg', 'image/png', 'image/gif' "
      "or 'image/webp'",
      "https://docs.claude.com/en/docs/build-with-claude/vision (supported formats); schema validation wording",
      "Convert the image to PNG or JPEG in the entry, or drop it.",
      """Only JPEG, PNG, GIF and WebP images are accepted.""")
def image_media_type(view: RequestView) -> Iterator[Hit]:
    for _item, path, _, is_object, kind, media_type in _images(view):
        if is_object and kind == "base64" and media_type not in IMAGE_TYPES:
            yield Hit("anthropic-image-media-type", path,
                      f"{path}.source.media_type: Input should be 'image/jpeg', 'image/png', 'image/gif' or "
                      f"'image/webp' (got {media_type!r})")


@rule("anthropic-image-count", "error", "More than 100 images in one request", API, "tail",
      "Too many images: a request may contain at most 100 images",
      "https://docs.claude.com/en/docs/build-with-claude/vision (\"up to 100 images per API request\")",
      "Compact the session (older screenshots go into the summary) or drop images from old entries.",
      """The API refuses requests with more than 100 images (20 on claude.ai).""")
def image_count(view: RequestView) -> Iterator[Hit]:
    images = _images(view)
    within = [image for image in images if image[0] < view.end]
    if len(within) > MAX_IMAGES:
        yield Hit("anthropic-image-count", within[MAX_IMAGES][1],
                  f"Too many images: {len(within)} in this request, at most {MAX_IMAGES} are accepted",
                  needs=within[MAX_IMAGES][0])


@rule("anthropic-thinking-budget", "error", "max_tokens not above the thinking budget, or a budget under 1024",
      API, "request",
      "`max_tokens` must be greater than `thinking.budget_tokens` / thinking.enabled.budget_tokens: Input should be "
      "greater than or equal to 1024",
      "https://docs.claude.com/en/docs/build-with-claude/extended-thinking#max-tokens; themaximalist/llm.js#30",
      "Use a lower thinking level (--reasoning) or a model with a larger output limit.",
      """With manual thinking, budget_tokens must be at least 1024 and below max_tokens.""")
def thinking_budget(view: RequestView) -> Iterator[Hit]:
    from pi_tools.providers.options import CONTEXT_SAFETY_TOKENS, output_room

    thinking = view.payload.get("thinking")
    if not isinstance(thinking, dict) or thinking.get("type") != "enabled":
        return
    budget, max_tokens = thinking.get("budget_tokens"), view.payload.get("max_tokens")
    if isinstance(budget, (int, float)) and budget < 1024:
        yield Hit("anthropic-thinking-budget", "thinking.budget_tokens",
                  f"thinking.enabled.budget_tokens: Input should be greater than or equal to 1024 (got {budget})")
    if isinstance(budget, (int, float)) and isinstance(max_tokens, (int, float)) and max_tokens <= budget:
        window = view.model.get("contextWindow")
        if isinstance(window, (int, float)) and window > 0 and isinstance(view.estimate, int):
            if view.estimate > window:
                return  # the input alone is over the window: context-window names that cause
            room = output_room(window, view.estimate)
            if room <= budget:
                yield Hit("anthropic-thinking-budget", "max_tokens",
                          f"`max_tokens` must be greater than `thinking.budget_tokens` ({max_tokens} <= {budget}): "
                          f"Pi clamps max_tokens to the room the context leaves (window {int(window)} - about "
                          f"{view.estimate} input tokens (Pi's estimate) - {CONTEXT_SAFETY_TOKENS} margin)")
                return
        yield Hit("anthropic-thinking-budget", "max_tokens",
                  f"`max_tokens` must be greater than `thinking.budget_tokens` ({max_tokens} <= {budget})")
