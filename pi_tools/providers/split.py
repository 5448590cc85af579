"""One payload built part by part, so that a large conversation never exists whole as objects and can be
converted on two cores.

A conversation cut before user messages converts, part by part, to the same payload messages as it does whole,
once three things that cross the cuts are checked; where any of them does not hold, `join` answers None and the
caller builds the payload whole:

- Tool-call ids. pi-ai renames another model's tool-call ids and renames later tool results to match; a tool
  result whose id an earlier part renamed would not be renamed by its own part alone.
- The max-tokens estimate. It starts from the newest assistant whose reported usage still describes the prefix
  before it. When that assistant is in the last part, no timestamp of an earlier part is later than it and none
  is NaN, the whole conversation's estimate is the last part's.
- What only the end of a conversation gets (a cache marker on the last user turn) comes from the last part,
  which must therefore convert to at least one message.
- Tools that tool results load late (``addedToolNames``) depend on every message before them: a conversation
  holding any is built whole.
- Where an API merges a message into the one before it across a cut (Gemini's function responses after a user
  message that converts to nothing), the part that would continue the previous one refuses the join.
- What an API's conversion carries from message to message (openai-responses' item counter, mistral's
  collision-free id table, openai-completions' role of the last message) is made explicit: each part reports it
  as its `carry`, and the API's `join_parts` checks the carries in order and answers the joined message list, or
  None where the whole build would differ.

Under an edition whose requests are built from a transcript (Pi 1.x: Edition.records_prompt) the same holds for
the conversation after the transcript's leading system message, which the context's systemPrompt and tools make
and which only the last part's payload carries (its prompt and tools outside the item list, or the items its list
opens with: `build_tail`'s opening items); a part holding a system message of its own is refused before it is
built (pipeline.stages.build_claimed_parts), and the estimate's anchor is looked for in the last part's transcript.
Every hook is the edition's adapter's (`edition`).

Nothing else crosses a cut: a part's unanswered tool calls get their synthetic results at its end, exactly where
the user message that follows would have put them. Every part but the last is built as history (an API takes
part by defining `build_history` in its adapter, see contract.ApiAdapter); the last is built as a whole
payload whose message list the others' join (an API whose list opens with what only the whole payload has, a
system message, defines `build_tail` to say how many items that is). An error in any part also answers
None, so that the whole build reports exactly the error Pi reports.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from itertools import compress, repeat
from operator import eq
from typing import Any

from pi_tools.pipe.documents import EncodedItems, dump_items
from pi_tools.providers import registry
from pi_tools.providers.catalog import Model
from pi_tools.providers.edition import BASE, Edition
from pi_tools.providers.options import last_usage_index, message_timestamp
from pi_tools.providers.table import find_row, payload_items, with_payload_items

PART_BYTES = 128 << 10
"""How much message text a part of a large payload holds. Small parts are fast: a part's objects are made, used
and freed while they are still in the processor's caches. On the 100 MB benchmark session one process builds
the payload in 0.61-0.65 s from 64-256 KiB parts, 1.04 s whole and 1.25 s from 2 MiB parts."""


def can_split(api: str) -> bool:
    """Whether this API's payload may be built in parts: every API of the table (one whose adapter cannot build
    its history apart answers None from build_part, and its payload is built whole)."""
    return find_row(api) is not None


@dataclass
class Part:
    """A part of the conversation before the last, built: its payload messages and what `join` checks."""

    messages: EncodedItems
    renamed: frozenset[Any]
    """The tool-call ids this part renamed."""
    result_ids: frozenset[Any]
    """The tool-call ids this part's tool results answer."""
    latest_timestamp: float
    """The latest message timestamp of the part, NaN if one is NaN."""
    loads_tools: bool
    """Whether a tool result of the part names tools it loads."""
    continues: bool
    """Whether the part's first payload message may belong with the previous part's last."""
    carry: Any = None
    """What the API's conversion carries across the cut (see the module docstring), for its join_parts."""
    scan: Any = None
    """What build_part's `scan` made of the part's payload messages (None without one)."""


@dataclass
class Tail:
    """The last part, built as a whole payload."""

    payload: dict[str, Any]
    """The payload built from the last part alone, its message list left out (None)."""
    messages: EncodedItems
    result_ids: frozenset[Any]
    anchor_timestamp: float | None
    """Timestamp of the assistant whose usage the max-tokens estimate starts from (None: no such assistant)."""
    loads_tools: bool
    continues: bool
    carry: Any = None
    prefix: EncodedItems | None = None
    """The items the payload's list opens with that belong to no part (a system message), if any."""
    scan: Any = None
    """What build_tail's `scan` made of the part's payload messages, and of the prefix's (None without one)."""
    prefix_scan: Any = None


@dataclass
class ContentTrace:
    """Where an API's conversion put each message transformMessages gave it, recorded while it converts (for
    preflight, which must name the session entry behind a payload item: reading it off the conversion costs
    nothing, where pairing the built items with the messages afterwards costs a second transformMessages and a
    walk of both). An API records one when its adapter has ``build_history_traced``; the others leave it empty
    (`transformed` None)."""

    transformed: list[Any] | None = None
    """transformMessages' output, as the conversion walked it."""
    api: str = ""
    """The API whose conversion recorded the trace (its adapter's payload mapping reads the record)."""
    synthetic: list[int] = field(default_factory=list)
    """The positions in `transformed` of the synthetic tool results transformMessages added."""
    places: list[Any] = field(default_factory=list)
    """Per transformed message, where its payload item went, in the API's own terms (see the API's
    ``build_history_traced``)."""


def _tool_results(messages: Sequence[dict[str, Any]]) -> list[dict[str, Any]]:
    return list(compress(messages, map(eq, map(dict.get, messages, repeat("role")), repeat("toolResult"))))


def _result_ids(results: list[dict[str, Any]]) -> frozenset[Any]:
    return frozenset(map(dict.get, results, repeat("toolCallId")))


def _loads_tools(results: list[dict[str, Any]]) -> bool:
    return any(map(dict.get, results, repeat("addedToolNames")))


def build_part(api: str, model: Model, context: dict[str, Any], options: dict[str, Any],
               scan: Callable[..., Any] | None = None, edition: Edition = BASE) -> Part | None:
    """A part before the last, or None where this API or model cannot build one apart (raises what building
    it raises). `scan` is called with the part's payload messages while they are objects, its llm messages and
    its EncodedItems (preflight's rules read what it returns instead of decoding the text again), and, where
    `scan` asks for one (its `traced` is true), the ContentTrace of the part's conversion."""
    trace = ContentTrace() if getattr(scan, "traced", False) else None
    history = registry.build_history(api, model, context, options, trace, edition)
    if history is None:
        return None
    converted, renamed, *carried = history
    messages = context.get("messages") or []
    results = _tool_results(messages)
    encoded, carry = registry.encode_part(api, converted, carried[0] if carried else None, edition)
    if scan is None:
        scanned = None
    else:
        scanned = scan(converted, messages, encoded) if trace is None else scan(converted, messages, encoded, trace)
    return Part(encoded, frozenset(renamed), _result_ids(results), _latest_timestamp(messages), _loads_tools(results),
                registry.starts_by_continuing(api, converted, edition), carry, scanned)


def build_tail(api: str, model: Model, context: dict[str, Any], options: dict[str, Any],
               scan: Callable[..., Any] | None = None, edition: Edition = BASE) -> Tail:
    """The last part (raises what building it raises); `scan` as for build_part, with the payload messages
    only. Under an edition whose requests are built from a transcript (`records_prompt`), the estimate's anchor
    is found in the transcript the payload is built from: the leading system message counts in its search."""
    messages = context.get("messages") or []
    payload, carry, opening = registry.build_tail(api, model, context, options, edition)
    converted = payload_items(api, payload)
    conversation = converted[opening:]
    encoded, carry = registry.encode_part(api, conversation, carry, edition)
    if edition.records_prompt:
        from pi_tools.providers.transcript import normalize_context

        transcript = normalize_context(context)
        anchor = last_usage_index(transcript)
        anchored = None if anchor is None else transcript[anchor]
    else:
        anchor = last_usage_index(messages)
        anchored = None if anchor is None else messages[anchor]
    results = _tool_results(messages)
    return Tail(
        payload=with_payload_items(api, payload, None),
        messages=encoded,
        result_ids=_result_ids(results),
        anchor_timestamp=None if anchored is None else message_timestamp(anchored),
        loads_tools=_loads_tools(results),
        continues=registry.starts_by_continuing(api, conversation, edition),
        carry=carry,
        prefix=EncodedItems(dump_items(converted[:opening]), opening) if opening else None,
        scan=scan(conversation) if scan is not None else None,
        prefix_scan=scan(converted[:opening]) if scan is not None and opening else None,
    )


def _latest_timestamp(messages: Sequence[dict[str, Any]]) -> float:
    """The latest timestamp among the messages as the estimate compares them (NaN if any is NaN)."""
    stamps: list[Any] = list(map(dict.get, messages, repeat("timestamp")))
    if set(map(type, stamps)) <= {int}:  # as Pi writes them: milliseconds
        latest: float = max(stamps, default=-math.inf)
        return latest
    latest = -math.inf
    for message in messages:
        timestamp = message_timestamp(message)
        if timestamp != timestamp:
            return math.nan
        if timestamp > latest:
            latest = timestamp
    return latest


def join(api: str, parts: Sequence[Part], tail: Tail, edition: Edition = BASE) -> dict[str, Any] | None:
    """The whole payload from its parts in order, or None when building them apart would not give exactly the
    payload of the whole conversation."""
    if tail.anchor_timestamp is None or tail.messages.count == 0 or tail.loads_tools or tail.continues:
        return None
    renamed: set[Any] = set()
    for index, part in enumerate(parts):
        if (part.loads_tools or (index > 0 and part.continues) or not part.latest_timestamp <= tail.anchor_timestamp
                or not renamed.isdisjoint(part.result_ids)):
            return None
        renamed.update(part.renamed)
    if not renamed.isdisjoint(tail.result_ids):
        return None
    joined = registry.join_parts(api, list(parts), tail, edition)
    if joined is None:
        return None
    messages = [tail.prefix, *joined] if tail.prefix is not None else joined
    return with_payload_items(api, tail.payload, messages)
