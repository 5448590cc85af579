"""Which session entry each part of a payload came from.

Three steps, each reusing the function that does the job elsewhere: the context plan says which entry produced
each context message (`BulkSession.origins`, or the tree's own entries); convertToLlm is applied message by message
so each Message keeps its origin; and render's payload mapping (`render.payload_map.map_payload`, fed with
transformMessages' output as the preview feeds it) pairs every payload fragment with the transformed message it
was built from. A synthetic "No result provided" result points at the assistant message whose call it answers.
"""

from __future__ import annotations

import re
from bisect import bisect_left
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from pi_tools.messages import default_registry
from pi_tools.messages.convert import PASSED_THROUGH, iter_llm_messages
from pi_tools.session import SessionTree
from pi_tools.session.bulk import BulkSession
from pi_tools.session.context import PI_085_RULES, ContextPlan, ContextRules, plan_session_context

if TYPE_CHECKING:
    from pi_tools.providers.edition import Edition

Origin = tuple[Any, "int | None"]  # (entry id, file line)
NO_ORIGIN: Origin = (None, None)


@dataclass
class TracedContext:
    """A context's messages (AgentMessage[]) and, position by position, the entry each came from."""

    plan: ContextPlan
    messages: list[Any]
    origins: list[Origin]


def trace_context(tree: SessionTree | BulkSession, leaf: Any, rules: ContextRules = PI_085_RULES) -> TracedContext:
    """buildSessionContext for `leaf` (UNDEFINED: the session's own leaf) by a Pi version's `rules`, with each
    message's entry (a BulkSession is made only where its plan is the version's: session.load.context_source)."""
    if isinstance(tree, BulkSession):
        plan = tree.plan(leaf, rules)
        origins: list[Origin] = list(tree.origins(plan))
        messages = list(tree.planned_messages(plan))
        return TracedContext(plan, messages, origins)
    plan = plan_session_context(tree, leaf, rules)
    messages, origins = [], []
    for entry, (_, produced, _) in zip(plan.entries, rules.projected(plan.entries, tree.materialize), strict=True):
        entry_id = entry.get("id") if isinstance(entry, dict) else None
        origin = (entry_id if isinstance(entry_id, str) else None, tree.line_of(entry))
        messages.extend(produced)
        origins.extend([origin] * len(produced))
    return TracedContext(plan, messages, origins)


def convert_traced(messages: Sequence[Any], origins: Sequence[Origin],
                   passed_through: frozenset[str] = PASSED_THROUGH) -> tuple[list[Any], list[Origin]]:
    """convertToLlm one message at a time (it never merges messages), keeping each result's origin;
    `passed_through`: the roles the Pi version's convertToLlm returns as they are."""
    registry = default_registry()
    bulk = list(iter_llm_messages(messages, registry, passed_through))
    if len(bulk) == len(messages):  # nothing dropped (the usual case): one pass, origins as they are
        return bulk, list(origins)
    llm: list[Any] = []
    kept: list[Origin] = []
    for message, origin in zip(messages, origins, strict=True):
        for converted in iter_llm_messages([message], registry, passed_through):
            llm.append(converted)
            kept.append(origin)
    return llm, kept


@dataclass
class PayloadOrigins:
    """Payload fragments (labels such as ``messages[4]`` or ``messages[4].content[1]``) -> llm message index."""

    by_label: dict[str, int]
    item_origin: list[int]  # per payload item: the first llm message it holds (len(llm) for items of none)

    def llm_index(self, path: str) -> int | None:
        """The llm message behind a payload path: its longest mapped prefix."""
        candidate = path
        while candidate:
            found = self.by_label.get(candidate)
            if found is not None:
                return found
            cut = max(candidate.rfind("."), candidate.rfind("["))
            if cut <= 0:
                return None
            candidate = candidate[:cut]
        return None


def _item_index(label: str, key: str) -> int | None:
    """The index of the item a fragment label (`key[i]`, `key[i].content[2]`) lies in; None for a label outside
    the items (the system prompt's fields)."""
    start = len(key)
    if not label.startswith(key) or label[start:start + 1] != "[":
        return None
    end = label.find("]", start)
    if end < 0:
        return None
    try:
        return int(label[start + 1:end])
    except ValueError:
        return None


def map_origins(api: str, model: dict[str, Any], llm: Sequence[Any], payload: dict[str, Any],
                has_system_prompt: bool, upto_item: int | None = None, edition: Edition | None = None,
                ) -> PayloadOrigins:
    """Pair payload fragments with llm messages (see the module docstring).

    With `upto_item`, only the payload's items up to that one are needed: the mapping walks messages and items
    in step, so a prefix of both maps exactly as the whole does (what comes after a cut is reported as lost, and
    is not used). The prefix of messages is grown until it reaches past that item, so a finding early in a large
    session is traced without mapping the rest.
    """
    from pi_tools.providers.table import items_key, payload_items, with_payload_items

    key = items_key(api)
    items = payload_items(api, payload)
    count = len(items) if isinstance(items, list) else 0
    if upto_item is None or upto_item + 1 >= count:
        return _map_origins(api, model, llm, payload, has_system_prompt, edition)
    cut_items = upto_item + 2  # one more item than needed: the item itself must not be the last slot
    messages = min(len(llm), 2 * cut_items + 16)
    while True:
        partial = with_payload_items(api, payload, items[:cut_items]) if isinstance(items, list) else payload
        origins = _map_origins(api, model, llm[:messages], partial, has_system_prompt, edition)
        reached = origins.item_origin[upto_item] if upto_item < len(origins.item_origin) else None
        # Trust the prefix when the item was placed by a message well inside the cut (not by the fill-in of
        # unplaced items, and not by a message whose tool results or synthetic answers lie past the cut).
        if messages >= len(llm) or (reached is not None and f"{key}[{upto_item}]" in _placed_items(origins, key)
                                    and reached + 2 < messages):
            return origins
        messages = min(len(llm), messages * 2)


def _placed_items(origins: PayloadOrigins, key: str) -> set[str]:
    """The item labels (`key[i]`) the mapping placed a fragment in."""
    opening = f"{key}["
    return {label[:label.find("]", len(opening)) + 1] for label in origins.by_label if label.startswith(opening)}


def _map_origins(api: str, model: dict[str, Any], llm: Sequence[Any], payload: dict[str, Any],
                 has_system_prompt: bool, edition: Edition | None = None) -> PayloadOrigins:
    from pi_tools.providers.table import items_key, payload_items
    from pi_tools.providers.transform_trace import align_positions, transformed_messages
    from pi_tools.render.payload_map import map_payload

    transformed = transformed_messages(api, model, llm, edition)
    positions, synthetic = align_positions(llm, transformed)
    # transformed position -> llm index; a synthetic result answers the last assistant message before it
    order = [0] * len(transformed)
    for index, position in enumerate(positions):
        if position is not None:
            order[position] = index
    answering = 0
    assistants = [index for index, message in enumerate(llm)
                  if isinstance(message, dict) and message.get("role") == "assistant"]
    for before, position in synthetic:
        answering = assistants[bisect_left(assistants, before) - 1] if assistants and assistants[0] < before else 0
        order[position] = answering
    mapping = map_payload(api, payload, transformed, model, has_system_prompt, edition)
    by_label: dict[str, int] = {}
    key = items_key(api)
    items = payload_items(api, payload)
    count = len(items) if isinstance(items, list) else 0
    item_origin = [len(llm)] * count
    for placement, llm_index in zip(mapping.placements, order, strict=False):
        for label, _ in [*placement.fragments, *placement.extras]:
            by_label.setdefault(label, llm_index)
            item = _item_index(label, key)
            if item is not None and item < count:
                item_origin[item] = min(item_origin[item], llm_index)
    _with_the_message_before(item_origin, len(llm))
    return PayloadOrigins(by_label, item_origin)


def _with_the_message_before(item_origin: list[int], unmatched: int) -> None:
    """Items the mapping left unmatched (origin `unmatched`) belong with the message before them (adapter-made
    items)."""
    last = 0
    for i, origin in enumerate(item_origin):
        if origin == unmatched:
            item_origin[i] = last
        last = item_origin[i]


def traced_origins(llm: Sequence[Any], items: Sequence[Any], trace: Any) -> PayloadOrigins | None:
    """A Gemini part's mapping from the ContentTrace its conversion recorded (providers.split.ContentTrace, by
    google_generative_ai.payload.build_history_traced), exactly as map_origins maps the whole part, or None where
    that cannot be promised: the caller then maps it with map_origins.

    map_origins pairs the built contents with the transformed messages by walking both (render.payload_map), and
    the trace says where each message actually went. The two agree wherever the walk's expectations hold, which
    is checked here message by message with the walk's own tests (its kinds and expected item counts, asked of an
    assistant message only where it made no content: the converter keeps a part only where the walk counts one):
    a message the walk expects an item of made one (and one it expects none of made none), no user content opens
    the way a "Tool result image:" content does, and no function response joins a response turn after a message
    that made nothing (the walk closes the turn there). Everything the walk places, each message places here: its content,
    its function response part, the "Tool result image:" content of its images (the walk attaches that to the
    result before it)."""
    from pi_tools.providers.mapping import ASSISTANT, RESULT, USER
    from pi_tools.providers.registry import adapter

    transformed = trace.transformed
    places = trace.places
    if transformed is None or len(places) != len(transformed):
        return None
    units = adapter(trace.api).units  # the mapping of the API whose conversion recorded the trace
    kinds = {"user": USER, "assistant": ASSISTANT, "toolResult": RESULT}  # payload_map.kind_of_message's
    open_turn, skipped_since = -1, False  # the response turn a next result may join; whether a message made none
    for message, place in zip(transformed, places, strict=True):
        if type(message) is not dict:
            return None
        role = message.get("role")
        if type(role) is not str:
            return None
        kind = kinds.get(role)  # None: the walk's EXTRA, a message it expects nothing of
        if kind == RESULT:
            turn = place[0]
            if turn == open_turn and skipped_since:
                return None
            open_turn, skipped_since = (turn if place[2] < 0 else -1), False
            continue
        made = place >= 0
        if kind == ASSISTANT and made:
            pass  # the converter keeps a part only where _google_units counts one: the walk expects this content
        elif made != (kind is not None and units(message, {}) > 0):
            return None
        if made:
            open_turn = -1
            if kind == USER:
                content = items[place]
                parts = content.get("parts") if isinstance(content, dict) else None
                if parts and isinstance(parts[0], dict) and parts[0].get("text") == "Tool result image:":
                    return None
        else:
            skipped_since = True
    order = _llm_order(llm, len(transformed), set(trace.synthetic))
    count = len(items)
    item_origin = [len(llm)] * count
    for place, llm_index in zip(places, order, strict=False):
        if type(place) is int:
            if 0 <= place < count and llm_index < item_origin[place]:
                item_origin[place] = llm_index
            continue
        turn, _, image = place
        if turn < count and llm_index < item_origin[turn]:
            item_origin[turn] = llm_index
        if 0 <= image < count and llm_index < item_origin[image]:
            item_origin[image] = llm_index
    _with_the_message_before(item_origin, len(llm))
    return TracedOrigins(places, order, item_origin)


_TRACED_PATH = re.compile(r"contents\[(0|[1-9][0-9]*)\](?:\.parts\[(0|[1-9][0-9]*)\])?")


class TracedOrigins(PayloadOrigins):
    """A Gemini part's mapping as its conversion recorded it (traced_origins): per transformed message its place
    and llm message, the labels (`contents[3]`, `contents[4].parts[1]`) read off them only when asked.

    Most parts a finding is traced in are asked one path; making every label of the part (about 550 for a part
    of the 100 MB benchmark session, 170 parts there), in the process that built it and again to send them to
    the one that reports, cost more than the rest of the mapping. A path is answered by one walk of the places,
    exactly as the labels would answer it (tests/preflight/test_preflight_trace.py asks both every label and
    more)."""

    def __init__(self, places: list[Any], order: list[int], item_origin: list[int]) -> None:
        self.places = places
        self.order = order
        self.item_origin = item_origin
        self._by_label: dict[str, int] | None = None

    @property
    def by_label(self) -> dict[str, int]:
        if self._by_label is None:
            by_label: dict[str, int] = {}
            for place, llm_index in zip(self.places, self.order, strict=False):
                if type(place) is int:
                    if place >= 0:
                        by_label.setdefault(f"contents[{place}]", llm_index)
                    continue
                turn, part, image = place
                by_label.setdefault(f"contents[{turn}].parts[{part}]", llm_index)
                if image >= 0:
                    by_label.setdefault(f"contents[{image}]", llm_index)
            self._by_label = by_label
        return self._by_label

    @by_label.setter
    def by_label(self, value: dict[str, int]) -> None:
        self._by_label = value

    def llm_index(self, path: str) -> int | None:
        """PayloadOrigins.llm_index without the labels: the longest of the path's prefixes that is a label, of
        the two forms there are, `contents[T].parts[P]` then `contents[T]` (a prefix ends where the path does or
        at a `.` or `[`)."""
        if self._by_label is not None:
            return super().llm_index(path)
        match = _TRACED_PATH.match(path)
        if match is None:
            return None
        turn = int(match.group(1))
        if match.group(2) is not None and path[match.end():match.end() + 1] in ("", ".", "["):
            part = int(match.group(2))
            for place, llm_index in zip(self.places, self.order, strict=False):
                if type(place) is not int and place[0] == turn and place[1] == part:
                    return int(llm_index)
        if path[match.end(1) + 1:match.end(1) + 2] not in ("", ".", "["):
            return None
        for place, llm_index in zip(self.places, self.order, strict=False):
            if place == turn if type(place) is int else place[2] == turn:
                return int(llm_index)
        return None


def _llm_order(llm: Sequence[Any], count: int, synthetic: set[int]) -> list[int]:
    """Per transformed message (of `count`, the synthetic results at these positions), the llm message it points
    at: as _map_origins pairs them (render.preview._align_transformed, then a synthetic result points at the last
    assistant message before it)."""
    from pi_tools.providers.transform_trace import SKIPPED_STOP_REASONS

    order: list[int] = []
    cursor = 0
    answering = 0
    for index, message in enumerate(llm):
        while cursor < count and cursor in synthetic:
            order.append(answering)
            cursor += 1
        is_dict = isinstance(message, dict)
        if is_dict and message.get("role") == "assistant":
            if message.get("stopReason") not in SKIPPED_STOP_REASONS and cursor < count:
                order.append(index)
                cursor += 1
            answering = index
        elif cursor < count:
            order.append(index)
            cursor += 1
    order.extend([answering] * (count - cursor))
    return order
