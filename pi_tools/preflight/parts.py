"""Preflight of a large session's next request through `payload`'s parts path, without holding the payload whole.

`pi-tools payload` builds a large session's payload in parts (`stages.payload_document_in_parts`): only one
part's messages exist as objects at a time, and each part's payload messages are kept as JSON text. Building it
whole instead, as the check of a small session does, holds every context message, every llm message and the whole
payload as objects at once (about twice payload's peak on the 100 MB benchmark session, and slower).

So for a large session preflight builds the payload exactly as `payload` does (with payload's helper process
building parts from the back where the command has one), drops the file's text (the parts are detached from it
and read their lines again from the file if a finding must be traced), and leaves the payload's items as JSON
text: the rules read item scans (scans.py) made of each part while its objects existed, in whichever process
built it, and a part's items are decoded only when a rule or a trace reads one of them. The request size is the
JSON text's own size. Decoding every part for the rules (the previous design) cost more than the rules
themselves, and held the payload's objects (about 256 MiB at peak on the 100 MB benchmark session, 403 MiB when
built whole). A finding's part is traced with the mapping its scan made while it was built where the scan
already saw that finding (scans.PartScanner), else by building only its part again (its messages from the file
text, its payload items from its JSON text) and mapping that part as the whole is mapped: the parts path joins
only where each part converts exactly as it does within the whole conversation, so a part maps alone as it maps
within the whole.

Where the parts path does not apply (a session that is small or not a clean file's, an API not built in parts)
`preflight_in_parts` answers None before touching the session. A model whose payloads are never built in parts,
or a conversation that cannot be cut, is then built whole from the planned messages; where the parts do not join,
so is it, after the parts (that rare case costs a second build).
"""

from __future__ import annotations

import os
from bisect import bisect_right
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any, overload

import orjson

from pi_tools.js.values import UNDEFINED
from pi_tools.pipe.documents import EncodedItems, LazyMessages
from pi_tools.preflight.check import PreflightRequest, PreflightResult, finding, locate, results_relink_moves
from pi_tools.preflight.fixes import PAIRING_RULES, stored_in_order
from pi_tools.preflight.provenance import NO_ORIGIN, Origin, PayloadOrigins, convert_traced, map_origins
from pi_tools.preflight.rules import Hit, iter_hits, rules_for
from pi_tools.preflight.scans import PartScanner
from pi_tools.providers.rulebook.scans import TRACE, merge, scan_names
from pi_tools.providers.rulebook.view import RequestView
from pi_tools.providers.table import items_key

PARTS_FROM = 8 << 20
"""Sessions with at least this much message text are checked through the parts path (payload's own default
threshold for building in parts, pi_tools.worker.DEFAULT_SPLIT_BYTES)."""

@dataclass
class _Chunk:
    """One piece of the payload's item list as the parts path joined it: `start` is its first item's index;
    `part` the planned part it was built from (None: items of no part, such as a system message)."""

    start: int
    encoded: EncodedItems
    part: int | None


@dataclass
class _Parts:
    """What tracing needs after the build: the planned parts, where each part's context messages start, the
    context messages' origins, and the chunks of the item list."""

    planned: list[Any]
    offsets: list[int]
    origins: Sequence[Origin]
    chunks: list[_Chunk]
    items: _LazyItems
    """The payload's items as the rules read them (a chunk decoded once, for the rules or for tracing)."""
    reach: dict[int, int] = field(default_factory=dict)
    """Per part, the last of its own items a finding points at: its mapping need go no further (map_origins'
    upto_item)."""
    traced: dict[int, tuple[list[Any] | None, Sequence[Origin], PayloadOrigins | None]] = field(default_factory=dict)
    """Per part: its llm messages (None where the mapping was made while the part was built), their origins and
    the part's payload mapping."""
    early: dict[int, tuple[int, int, PayloadOrigins]] = field(default_factory=dict)
    """Per part: (llm message count, last item mapped, payload mapping) made as the part was built
    (scans.PartScanner)."""
    starts: list[int] = field(default_factory=list)


def _decode(encoded: EncodedItems) -> list[Any]:
    items: list[Any] = orjson.loads(b"[" + encoded.json + b"]") if encoded.count else []
    return items


def _message_count(part: Any) -> int:
    """How many context messages a planned part produces (PlannedMessages.message_count)."""
    count: int = part.message_count()
    return count


def preflight_in_parts(tree: Any, source: str, request: PreflightRequest, min_text_bytes: int = PARTS_FROM,
                       part_bytes: int | None = None, build_elsewhere: Any = None,
                       keep: Callable[..., None] | None = None) -> PreflightResult | None:
    """The check of `tree`'s next request through the parts path, or None where it does not apply (see the module
    docstring). `tree` must be a BulkSession the caller no longer needs: its index is dropped once the context is
    planned, as `payload` drops it.

    `build_elsewhere` is payload's stages.PartsBuilder (the payload helper's `build_parts`): another process then
    builds parts from the back while this one builds them from the front, exactly as for `payload`. Nothing
    else is asked of it: the parts come back as JSON text either way, and tracing reads the file itself.
    `keep` holds the check's large objects past it (see cli.common.keep_until_exit), as payload's build does."""
    from pi_tools.messages import default_registry
    from pi_tools.messages.convert import iter_llm_messages
    from pi_tools.pipeline.stages import PayloadRequest, llm_document, payload_document_in_parts
    from pi_tools.preflight.session import resolve_target
    from pi_tools.providers import split
    from pi_tools.session import ContextError
    from pi_tools.session.bulk import BulkSession

    if not isinstance(tree, BulkSession):
        return None
    if request.leaf is not None and request.leaf not in tree.by_id:
        raise ContextError(f"Entry {request.leaf} not found")
    from pi_tools.pi import resolve

    version = resolve(request.pi)
    plan = tree.plan(UNDEFINED if request.leaf is None else request.leaf, version.context)
    planned = tree.planned_messages(plan)
    if planned.text_size() < min_text_bytes:
        return None
    model = resolve_target(request.model, plan.model, version.requests.catalog)
    api = str(model.get("api"))
    if not split.can_split(api):
        return None
    origins = tree.lazy_origins(plan)  # made only where a finding is traced
    header = tree.header
    context_doc = {"kind": "context", "source": source, "pi": version.name, "header": header,
                   "thinkingLevel": plan.thinking_level,
                   "model": plan.model, "messages": LazyMessages(planned.__iter__, planned.json_items, planned=planned)}
    tree.__dict__.clear()  # the index goes; the planned messages keep the file's text
    del tree
    reference = f"{model['provider']}/{model['id']}"
    payload_request = PayloadRequest(api=api, model=reference, system_prompt=request.system_prompt,
                                     tools=request.tools, reasoning=request.reasoning, session_id=request.session_id)
    llm_doc = llm_document(context_doc)
    built: list[Any] = []
    # The scans' names are looked up where the parts are scanned (after the helper has its task); an API without
    # scans has empty ones, and the rules then read nothing of them (_part_scans).
    # A Pi 1.x request is checked whole: its parts build as payload builds them, but tracing a finding to a part
    # (the payload mapping of a part alone, without the transcript's leading system message) is not verified.
    from pi_tools.providers.edition import BASE

    document = None if version.requests is not BASE else payload_document_in_parts(
        llm_doc, payload_request, build_elsewhere, min_text_bytes, part_bytes, scan=PartScanner(None, api, model),
        joined=built.extend)
    if document is None:  # not cut (one part only): built whole, from the plan, the tree being gone
        from pi_tools.preflight.session import check_whole

        del llm_doc, context_doc
        return check_whole(source, request, header, plan, list(planned), list(origins))
    result = PreflightResult(source, api, reference)
    if document.get("kind") != "payload":
        result.error = f"{source}: Pi {version.name} cannot build this request: {document.get('error')}"
        return result
    payload = document["payload"]
    key = items_key(api)
    listed = payload.get(key)
    planned_parts = planned.parts(part_bytes or split.PART_BYTES)
    has_prefix = isinstance(listed, list) and len(listed) == len(planned_parts) + 1
    if (not isinstance(listed, list) or not all(isinstance(c, EncodedItems) for c in listed)
            or (not has_prefix and len(listed) != len(planned_parts))):
        # The parts did not join (or not one piece per part, so that tracing could not find a part's items).
        del document, payload, listed
        from pi_tools.preflight.session import check_whole

        return check_whole(source, request, header, plan, list(planned), list(origins))
    registry = default_registry()
    tail = list(iter_llm_messages(planned_parts[-1], registry))
    planned_parts = _detached(planned_parts, source)
    if keep is not None:
        # Held, not freed: handing 100 MB of file text back to the system here cost the command 8 ms of its
        # serial tail (payload, which exits without freeing, never pays it); the parts are detached from it, and
        # nothing after the build holds much beside it.
        keep(llm_doc, context_doc, planned)
    del llm_doc, context_doc, planned  # (without `keep`, the file's text goes here, before the view is made)
    chunks: list[_Chunk] = []
    count = 0
    size = 0
    for position, encoded in enumerate(listed):
        part = position - 1 if has_prefix else position
        chunks.append(_Chunk(count, encoded, part if part >= 0 else None))
        count += encoded.count
        size += len(encoded.json) + (1 if encoded.count and size else 0)
    items = _LazyItems(chunks, count)
    scans = _part_scans(built, chunks, has_prefix, scan_names(api))
    rest = {name: value for name, value in payload.items() if name != key}
    size += len(orjson.dumps({**rest, key: []}))
    offsets = [0]
    for planned_part in planned_parts[:-1]:
        offsets.append(offsets[-1] + _message_count(planned_part))
    parts = _Parts(planned_parts, offsets, origins, chunks, items)
    for index, piece in enumerate(built[:-1]):
        if isinstance(piece.scan, dict) and TRACE in piece.scan:
            parts.early[index] = piece.scan[TRACE]
    # The join holds only where the newest usable usage is in the last part (split.join): Pi's estimate over the
    # whole conversation is then the estimate over the last part.
    estimate_context: dict[str, Any] = {"systemPrompt": request.system_prompt, "messages": tail}
    if request.tools:
        estimate_context["tools"] = request.tools
    try:
        estimate: int | None = version.requests.estimate(estimate_context)
    except Exception:  # noqa: BLE001 - damaged content: the estimate is then unknown, the other rules still run
        estimate = None
    compact: dict[str, Any] = {**rest, key: []}  # the items stay JSON text until a rule or a trace reads one
    has_system = bool(request.system_prompt)
    view = RequestView(api, model, compact, estimate=estimate, size=size,
                       source=lambda index: _source(parts, api, model, index, has_system), scans=scans,
                       given_items=items)
    hits = list(iter_hits(rules_for(api, model, enabled=request.enabled), view))
    _note_reach(parts, hits)
    in_order = _stored_in_order(parts) if any(hit.rule in PAIRING_RULES for hit in hits) else frozenset()
    interleaved = results_relink_moves(source, hits, version.context)
    found = (finding(source, hit, api, reference, _locate(parts, api, model, hit, has_system), in_order,
                     interleaved) for hit in hits)
    result.findings = [f for f in found if f is not None]
    if keep is not None:
        keep(built, scans, parts, view, document)
    return result


def _stored_in_order(parts: _Parts) -> frozenset[Any]:
    """fixes.stored_in_order over every part, one part's messages at a time (a call turn never spans two parts:
    they are cut before user messages); only asked for when a pairing rule was hit."""
    paired: set[Any] = set()
    for index, planned in enumerate(parts.planned):
        messages = list(planned)
        first = parts.offsets[index]
        llm, llm_origins = convert_traced(messages, parts.origins[first:first + len(messages)])
        paired |= stored_in_order(llm, llm_origins)
    return frozenset(paired)


class _Window(Sequence[Origin]):
    """`length` origins from `first` on, read where asked: a traced part's findings need the entries of a few of
    its messages, where a slice makes one origin per message (the 212 findings of the 100 MB benchmark session lie
    in 170 parts of about 550 messages each)."""

    def __init__(self, origins: Sequence[Origin], first: int, length: int) -> None:
        self._origins, self._first, self._length = origins, first, length

    def __len__(self) -> int:
        return self._length

    @overload
    def __getitem__(self, index: int) -> Origin: ...

    @overload
    def __getitem__(self, index: slice) -> list[Origin]: ...

    def __getitem__(self, index: int | slice) -> Origin | list[Origin]:
        if isinstance(index, slice):
            return [self[i] for i in range(*index.indices(self._length))]
        if index < 0:
            index += self._length
        if not 0 <= index < self._length:
            raise IndexError("origin index out of range")
        return self._origins[self._first + index]


class _LazyItems(Sequence[Any]):
    """The payload's items, each chunk decoded from its JSON text on first use (and kept): the rules read the
    scans made while the parts were built (scans.py), so most chunks are never decoded."""

    def __init__(self, chunks: list[_Chunk], count: int) -> None:
        self._chunks = chunks
        self._starts = [chunk.start for chunk in chunks]
        self._count = count
        self._decoded: dict[int, list[Any]] = {}

    def __len__(self) -> int:
        return self._count

    def chunk(self, position: int) -> list[Any]:
        """The items of chunk `position`, decoded."""
        items = self._decoded.get(position)
        if items is None:
            items = self._decoded[position] = _decode(self._chunks[position].encoded)
        return items

    @overload
    def __getitem__(self, index: int) -> Any: ...

    @overload
    def __getitem__(self, index: slice) -> list[Any]: ...

    def __getitem__(self, index: int | slice) -> Any:
        if isinstance(index, slice):
            return [self[i] for i in range(*index.indices(self._count))]
        if index < 0:
            index += self._count
        if not 0 <= index < self._count:
            raise IndexError("payload item index out of range")
        position = bisect_right(self._starts, index) - 1
        return self.chunk(position)[index - self._starts[position]]

    def __iter__(self) -> Iterator[Any]:
        for position in range(len(self._chunks)):
            yield from self.chunk(position)


def _part_scans(built: list[Any], chunks: list[_Chunk], has_prefix: bool,
                names: tuple[str, ...]) -> dict[str, Any] | None:
    """The item scans of the whole payload from those made of each part as it was built (None where one is
    missing: the rules then scan the items themselves)."""
    if not names or not built:
        return None
    pieces = [part.scan for part in built]
    if has_prefix:
        pieces.insert(0, built[-1].prefix_scan)
    if len(pieces) != len(chunks) or any(piece is None for piece in pieces):
        return None
    return merge([(chunk.start, piece) for chunk, piece in zip(chunks, pieces, strict=True)])


def _detached(planned_parts: list[Any], path: str) -> list[Any]:
    """The planned parts without the file's text, reading their lines again from the file when a finding is
    traced (a session file is read, never written, and the trace reads only the lines of the hit's part); the
    parts as they are when `path` is not a regular file."""
    if not os.path.isfile(path):
        return planned_parts

    def read(start: int, end: int) -> bytes:
        with open(path, "rb") as handle:
            handle.seek(start)
            return handle.read(end - start)

    detached = [part.without_text() for part in planned_parts]
    for part in detached:
        part.fetch_text_with(read)
    return detached


def _note_reach(parts: _Parts, hits: Sequence[Hit]) -> None:
    """How far into each part the findings reach (parts.reach), so that a part is mapped only up to its last
    finding: the mapping walks messages and items in step, so a prefix maps exactly as the whole part does."""
    for hit in hits:
        if hit.item is None:
            continue
        chunk = _chunk_of(parts, hit.item)
        if chunk.part is not None:
            local = hit.item - chunk.start
            parts.reach[chunk.part] = max(parts.reach.get(chunk.part, local), local)


def _chunk_items(parts: _Parts, chunk: _Chunk) -> list[Any]:
    """A chunk's items (decoded once, shared with the rules' view)."""
    return parts.items.chunk(parts.chunks.index(chunk))


def _chunk_of(parts: _Parts, item: int) -> _Chunk:
    if len(parts.starts) != len(parts.chunks):
        parts.starts = [chunk.start for chunk in parts.chunks]
    return parts.chunks[bisect_right(parts.starts, item) - 1]


def _traced_part(parts: _Parts, api: str, model: dict[str, Any], index: int, has_system: bool,
                 messages_needed: bool = False) -> tuple[list[Any] | None, Sequence[Origin], PayloadOrigins | None]:
    """A part's llm messages, their origins and its payload mapping (cached): the mapping made while the part was
    built, where there is one and no context message of the part was dropped by convertToLlm (the origins are
    then the context messages' own), else built again from the file text (also when the messages are needed)."""
    early = parts.early.get(index)
    if early is not None and index not in parts.traced and not messages_needed:
        first = parts.offsets[index]
        reach = parts.reach.get(index)
        if (index + 1 < len(parts.offsets) and early[0] == parts.offsets[index + 1] - first
                and reach is not None and reach <= early[1]):  # every finding of the part within the mapping
            parts.traced[index] = (None, _Window(parts.origins, first, early[0]), early[2])
    if index in parts.traced and messages_needed and parts.traced[index][0] is None:
        del parts.traced[index]
    if index not in parts.traced:
        planned = parts.planned[index]
        messages = list(planned)
        first = parts.offsets[index]
        llm, llm_origins = convert_traced(messages, parts.origins[first:first + len(messages)])
        chunk = next(chunk for chunk in parts.chunks if chunk.part == index)
        key = RequestView(api, model, {}).key
        # The last part is the one built as a whole payload, with the system prompt: its items follow the items
        # of no part (a system message), if the API has any.
        last = index == len(parts.planned) - 1
        prefix = _chunk_items(parts, parts.chunks[0]) if last and parts.chunks[0].part is None else []
        reach = parts.reach.get(index)
        mapping = map_origins(api, model, llm, {key: [*prefix, *_chunk_items(parts, chunk)]}, has_system and last,
                              upto_item=None if reach is None else reach + len(prefix))
        if prefix:
            mapping = PayloadOrigins(_shift_labels(mapping.by_label, -len(prefix), key),
                                     mapping.item_origin[len(prefix):])
        parts.traced[index] = (llm, llm_origins, mapping)
    return parts.traced[index]


def _shift_labels(by_label: dict[str, int], shift: int, key: str) -> dict[str, int]:
    shifted: dict[str, int] = {}
    for label, value in by_label.items():
        local = _shift_path(label, shift, key)
        if local is not None:
            shifted[local] = value
    return shifted


def _shift_path(path: str, shift: int, key: str) -> str | None:
    """``messages[40].content[1]`` with its item index moved by `shift` (None below 0 or for other paths)."""
    opening = f"{key}["
    if not path.startswith(opening):
        return None
    close = path.find("]", len(opening))
    index = int(path[len(opening):close]) + shift
    return None if index < 0 else f"{opening}{index}{path[close:]}"


def _locate(parts: _Parts, api: str, model: dict[str, Any], hit: Hit, has_system: bool) -> Origin:
    if hit.item is None:
        return NO_ORIGIN
    chunk = _chunk_of(parts, hit.item)
    if chunk.part is None:
        return NO_ORIGIN
    llm, llm_origins, mapping = _traced_part(parts, api, model, chunk.part, has_system)
    key = RequestView(api, model, {}).key
    local = _shift_path(hit.path, -chunk.start, key)
    if local is None:
        return NO_ORIGIN
    return locate(Hit(hit.rule, local, hit.message), mapping, llm_origins)


def _source(parts: _Parts, api: str, model: dict[str, Any], index: int, has_system: bool) -> Any:
    """The llm message payload item `index` was built from (the rules' view.source_message)."""
    chunk = _chunk_of(parts, index)
    if chunk.part is None:
        return None
    llm, _, mapping = _traced_part(parts, api, model, chunk.part, has_system, messages_needed=True)
    local = index - chunk.start
    origin: Sequence[int] = mapping.item_origin if mapping is not None else []
    return llm[origin[local]] if llm is not None and local < len(origin) and origin[local] < len(llm) else None
