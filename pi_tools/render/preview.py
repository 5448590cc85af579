"""The view model of a payload preview: one row per context message, one column per target API.

Everything shown is produced by the same library functions the stages use (the context, convertToLlm, the
payload stage), so the preview cannot drift from what `pi-tools payload` reports. The only extra work done here
is bookkeeping: which stored entry each message came from, which transformMessages output and which payload
fragments belong to it (payload_map), and the notes that name each change (annotate).
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import orjson

from pi_tools.js.values import UNDEFINED, js_to_string
from pi_tools.output.words import counted
from pi_tools.providers.transform_trace import (
    AsStored,
    align_positions,
    align_transformed,
    transformed_messages,
)
from pi_tools.render import annotate
from pi_tools.render.payload_map import PayloadMap, map_payload
from pi_tools.session import SessionTree

if TYPE_CHECKING:
    from pi_tools.pi import PiVersion
    from pi_tools.session.context import ContextRules

LONG_LINES = 24
LONG_CHARS = 2400
OPAQUE_LIMIT = 200
OPAQUE_KEYS = (
    "data", "url", "image_url", "imageUrl", "$bytes", "bytes", "thinkingSignature", "signature",
    "thoughtSignature", "textSignature", "encrypted_content", "redactedContent",
)
# A JSON string value longer than OPAQUE_LIMIT under one of OPAQUE_KEYS, or any data: URL.
_OPAQUE_STRING = re.compile(
    r'("(?:' + "|".join(re.escape(k) for k in OPAQUE_KEYS) + r')": "|": "(?=data:))'
    r'((?:[^"\\\n]|\\.){' + str(OPAQUE_LIMIT) + r',}+)"'
)
_LONE_SURROGATE = re.compile(r"[\ud800-\udfff]")


class TargetError(ValueError):
    """--api/--model values that cannot be paired or resolved; the message is meant for the user."""


@dataclass
class Target:
    api: str
    model_ref: str | None = None


@dataclass
class RenderRequest:
    targets: list[Target]
    system_prompt: str | None = None
    tools: list[dict[str, Any]] | None = None
    reasoning: str | None = None
    block_images: bool = False
    leaf: str | None = None
    session_id: str | None = None
    pi: str | None = None
    """The Pi version's name (None: PI_TOOLS_PI, else the default): its catalog, adapters and transformMessages
    build the previews (the session must be read by its context rules)."""
    pi_prompt: Any = None
    """--system-prompt pi: providers.pi_prompt.PiPromptOptions (the preview carries the version's own prompt and
    tools, as `payload` does: pipeline.stages.pi_prompt_parts)."""
    notes: list[str] = field(default_factory=list)
    """What the preview says on stderr (filled by build_preview)."""

    @property
    def version(self) -> PiVersion:
        from pi_tools.pi import resolve

        return resolve(self.pi)


@dataclass
class _Synthetic:
    """Synthetic results for one target, keyed by the stored row they are inserted before (None = end).

    Each entry: {result, state, notes, fragments}.
    """

    by_position: dict[int | None, list[dict[str, Any]]] = field(default_factory=dict)


# --- targets ---------------------------------------------------------------------------------------------------


def pair_targets(apis: Sequence[str], models: Sequence[str], version: PiVersion | None = None) -> list[Target]:
    """--api and --model values → targets.

    As many --model as --api: they pair by position. Otherwise each --model goes to the first --api (in order)
    that speaks its catalog API (or borrows catalog models: providers.table.model_speaking) and has no model yet,
    and the remaining APIs use their default. --model alone (no --api) shows each model with the API it speaks.
    Models come from the catalog of `version` (default: pi.resolve()'s), which must have each API.
    """
    from pi_tools.pi import resolve
    from pi_tools.providers.catalog import find_model
    from pi_tools.providers.errors import UnknownModelError
    from pi_tools.providers.registry import absent_api_refusal, supported_apis
    from pi_tools.providers.table import is_api, model_speaking

    version = version or resolve()
    for api in apis:
        if not is_api(api):
            raise TargetError(f"--api: unknown API {api!r} (choose from {', '.join(supported_apis())})")
        refusal = absent_api_refusal(api, version.requests, f"Pi {version.name}")
        if refusal is not None:
            raise TargetError(f"--api {api}: {refusal}")
    resolved: list[tuple[str, dict[str, Any]]] = []
    for reference in models:
        try:
            resolved.append((reference, find_model(reference, version.requests.catalog)))
        except UnknownModelError as exc:
            raise TargetError(f"--model {reference}: {exc.args[0] if exc.args else exc}") from None
    if not apis:
        return [Target(str(model.get("api")), reference) for reference, model in resolved]
    targets = [Target(api) for api in apis]
    if len(models) == len(apis):
        for target, (reference, model) in zip(targets, resolved, strict=True):
            if model_speaking(target.api, model) is None:
                raise TargetError(f"--model {reference} speaks {model.get('api')}, not {target.api} (the --api in "
                                  "the same position)")
            target.model_ref = reference
        return targets
    for reference, model in resolved:
        slot = next((t for t in targets if model_speaking(t.api, model) is not None and t.model_ref is None), None)
        if slot is None:
            raise TargetError(f"--model {reference} speaks {model.get('api')}, which is not among the --api values still "
                              "without a model")
        slot.model_ref = reference
    return targets


def _target_model(target: Target, session_model: Any, catalog: str | None = None) -> tuple[dict[str, Any], str, str]:
    """(catalog model, provider/id, why this model) for one target (the model as the target's API is built with
    it: providers.table.model_speaking), from `catalog` (default the base edition's)."""
    from pi_tools.providers.catalog import DEFAULT_CATALOG, find_model, get_model
    from pi_tools.providers.errors import UnknownModelError
    from pi_tools.providers.table import find_row, model_speaking

    catalog = catalog or DEFAULT_CATALOG
    if target.model_ref:
        chosen = find_model(target.model_ref, catalog)
        return model_speaking(target.api, chosen) or chosen, target.model_ref, "--model"
    if isinstance(session_model, dict) and session_model.get("provider") and session_model.get("modelId"):
        try:
            model = get_model(str(session_model["provider"]), str(session_model["modelId"]), catalog)
        except UnknownModelError:
            model = None
        speaking = model_speaking(target.api, model) if model is not None else None
        if speaking is not None:
            return speaking, f"{speaking['provider']}/{speaking['id']}", "the session's model"
    row = find_row(target.api)
    reference = row.representative_model if row is not None else None
    if reference is None:
        raise TargetError(f"no default model for {target.api}: pass --model PROVIDER/ID")
    chosen = find_model(reference, catalog)
    return model_speaking(target.api, chosen) or chosen, reference, f"representative {target.api} model"


# --- display ---------------------------------------------------------------------------------------------------


def _escape_surrogate(match: re.Match[str]) -> str:
    return f"\\u{ord(match.group(0)):04x}"


def _shortened(match: re.Match[str]) -> str:
    body = match.group(2)
    return f'{match.group(1)}{body[:48]}… [{len(body)} characters, shortened for display]"'


def display_json(value: Any) -> str:
    """Indented JSON for people; lone surrogates (invalid in UTF-8 output) shown as `\\udxxx` escapes.

    Base64 images and encrypted signatures are unreadable and can be megabytes: past OPAQUE_LIMIT characters they
    are cut (on the JSON text, one regex pass, far cheaper than rebuilding every message).
    """
    if value is UNDEFINED:
        return "undefined"
    try:
        text = orjson.dumps(value, option=orjson.OPT_INDENT_2, default=js_to_string).decode()
    except (TypeError, orjson.JSONEncodeError) as exc:
        try:
            if "Recursion limit" in str(exc):  # past orjson's 255 levels, indenting would grow as depth squared
                raise RecursionError
            text = json.dumps(value, indent=2, ensure_ascii=False, default=js_to_string)
        except RecursionError:  # nested that deep: shown compact, written with a stack
            from pi_tools.js.json_stringify import stringify_any_depth

            text = stringify_any_depth(value)
        text = _LONE_SURROGATE.sub(_escape_surrogate, text)
    if len(text) > OPAQUE_LIMIT:
        text = _OPAQUE_STRING.sub(_shortened, text)
    return text


def fragment(label: str, value: Any) -> dict[str, Any]:
    text = display_json(value)
    lines = text.count("\n") + 1
    return {"label": label, "json": text, "lines": lines, "long": lines > LONG_LINES or len(text) > LONG_CHARS}


def _preview_text(message: Any) -> str:
    from pi_tools.session.preview import message_preview, shorten

    try:
        return shorten(message_preview(message), 140)
    except Exception:  # a preview must never stop the page; the JSON below shows the message anyway
        return ""


# --- provenance ------------------------------------------------------------------------------------------------


def _origins(tree: SessionTree, leaf: str | None, count: int, rules: ContextRules | None = None,
             ) -> list[tuple[Any, int | None]]:
    """(entry id, file line) for each context message (by the Pi version's context `rules`, default the base
    version's), or unknowns if the projection cannot be redone."""
    from pi_tools.session.context import PI_085_RULES
    from pi_tools.session.tree import PathCycleError

    rules = rules or PI_085_RULES
    try:
        path = tree.path(tree.leaf_id if leaf is None else leaf)
    except PathCycleError:
        return [(None, None)] * count
    origins: list[tuple[Any, int | None]] = []
    entries = rules.context_entries(path)
    for entry, (_, messages, _) in zip(entries, rules.projected(entries, lambda entry: entry), strict=True):
        produced = len(messages)
        if produced:
            entry_id = entry.get("id") if isinstance(entry, dict) else None
            origins.extend([(entry_id, tree.line_of(entry))] * produced)
    return origins if len(origins) == count else [(None, None)] * count


# --- the per-target pipeline -----------------------------------------------------------------------------------


def _payload_top(payload: Mapping[str, Any], api: str) -> dict[str, Any]:
    from pi_tools.providers.table import payload_items, with_payload_items

    items = payload_items(api, payload)
    if not isinstance(items, list):
        return dict(payload)
    return with_payload_items(api, dict(payload), f"[{counted(len(items), 'item')}, shown per message below]")


def _cell(state: str, notes: list[annotate.Note], fragments: list[dict[str, Any]],
          transformed: Any = None) -> dict[str, Any]:
    return {"state": state, "notes": notes, "fragments": fragments,
            "transformed": fragment("after transformMessages", transformed) if transformed is not None else None}


def _build_target(target: Target, context_doc: dict[str, Any], llm_doc: dict[str, Any], llm: list[Any],
                  llm_rows: list[int], request: RenderRequest, estimate: int | None, row_count: int,
                  ) -> tuple[dict[str, Any], list[dict[str, Any]], _Synthetic, list[dict[str, Any]]]:
    """Column header, per-row cells, synthetic results and unmatched fragments for one target."""
    from pi_tools.pipeline.stages import PayloadRequest, payload_document
    from pi_tools.providers.options import clamp_thinking_level

    version = request.version
    edition = version.requests
    model, reference, why = _target_model(target, context_doc.get("model"), edition.catalog)
    requested = request.reasoning if request.reasoning is not None else context_doc.get("thinkingLevel")
    sent_level: str | None = None
    if isinstance(requested, str) and requested != "off":
        clamped = clamp_thinking_level(model, requested)
        sent_level = None if clamped == "off" else clamped
    payload_request = PayloadRequest(api=target.api, model=reference, system_prompt=request.system_prompt,
                                     tools=request.tools, reasoning=request.reasoning,
                                     session_id=request.session_id)
    try:
        document = payload_document(llm_doc, payload_request)
    except Exception as exc:  # noqa: BLE001 - a damaged session must still render; the column shows why
        document = {"kind": "error", "error": f"{type(exc).__name__}: {exc}"}
    payload = document.get("payload") if document.get("kind") == "payload" else None
    notes = annotate.reasoning_notes(requested, sent_level, model)
    if payload is not None:
        notes.extend(annotate.max_tokens_notes(target.api, payload, model, estimate, edition))
    header = {
        "api": target.api, "model": reference, "why": why, "notes": notes,
        "error": None if payload is not None else str(document.get("error")),
        "modelInfo": {k: model.get(k) for k in ("contextWindow", "maxTokens", "input", "reasoning")},
        "top": fragment("payload (message items shown per row)", _payload_top(payload, target.api))
        if payload is not None else None,
    }

    try:
        transformed = transformed_messages(target.api, model, llm, edition)
    except Exception as exc:  # noqa: BLE001 - as above: shown, not raised
        header["error"] = header["error"] or f"transformMessages fails: {type(exc).__name__}: {exc}"
        return header | {"system": []}, [_cell("error", [], []) for _ in range(row_count)], _Synthetic(), []
    per_message, synthetic = align_transformed(llm, transformed)
    as_stored = isinstance(transformed, AsStored)
    positions, synthetic_at = align_positions(llm, transformed)
    mapping: PayloadMap | None = None
    if payload is not None:
        mapping = map_payload(target.api, payload, transformed, model, _has_system(request, llm), edition)
    placements = mapping.placements if mapping is not None else None

    # Cells for stored rows; the mapping's placements follow transformed order (messages and synthetic results).
    cells: list[dict[str, Any]] = [_cell("dropped", [], []) for _ in range(row_count)]
    synthetic_cells = _Synthetic()
    synthetic_by_index: dict[int, list[Any]] = {}
    for (position, result), (_, at) in zip(synthetic, synthetic_at, strict=True):
        synthetic_by_index.setdefault(position, []).append((result, at))
    last_assistant_row: int | None = None

    def place(message: Any, position: int | None) -> tuple[str, list[annotate.Note], list[dict[str, Any]]]:
        if placements is None:
            return "error", [], []
        placement = placements[position] if position is not None and position < len(placements) else None
        if placement is None or placement.status == "lost":
            return "lost", [annotate.lost_note(target.api)], []
        if placement.status == "skipped":
            return "skipped", [annotate.adapter_skip_note(target.api)], []
        extra_notes = annotate.adapter_notes(target.api, message, model, edition) \
            if isinstance(message, dict) and message.get("role") != "system" else []
        if placement.group_size > 1:
            extra_notes.append(annotate.grouped_note(placement.group_label, placement.group_size))
        fragments = [fragment(label, value) for label, value in placement.fragments]
        for label, value in placement.extras:
            extra_notes.append(annotate.extra_note(label))
            fragments.append(fragment(label, value))
        return "sent", extra_notes, fragments

    def place_synthetic(position: int) -> None:
        for result, at in synthetic_by_index.get(position, []):
            state, more, fragments = place(result, at)
            row_key = llm_rows[position] if position < len(llm_rows) else None
            synthetic_cells.by_position.setdefault(row_key, []).append({
                "result": result, "state": state, "fragments": fragments,
                "notes": [annotate.synthetic_note(result, last_assistant_row), *more],
            })

    for index, message in enumerate(llm):
        place_synthetic(index)
        after = per_message[index]
        # An API sending the messages as stored runs no transformMessages: nothing of it to note.
        notes_here = [] if as_stored else annotate.transform_notes(message, after, model, edition.transform)
        row = llm_rows[index]
        if after is None:
            cells[row] = _cell("turn-skipped", notes_here, [])
            continue
        if isinstance(after, dict) and after.get("role") == "system":
            # A transcript's system message (Pi 1.x): the request's system prompt, an update in place, or folded.
            where = positions[index]
            state, more, fragments = place(after, where)
            how = placements[where].system if state != "lost" and placements is not None and where is not None \
                else ""
            if state == "skipped":
                more = [annotate.system_skip_note(target.api)]
            cells[row] = _cell(state, [*notes_here, annotate.system_message_note(target.api, how), *more], fragments)
            continue
        state, more, fragments = place(after, positions[index])
        changed = after is not message and after != message
        cells[row] = _cell(state, notes_here + more, fragments, after if changed else None)
        if isinstance(after, dict) and after.get("role") == "assistant":
            last_assistant_row = row + 1
    place_synthetic(len(llm))
    unmatched = [fragment(label, value) for label, value in mapping.unmatched] if mapping else []
    header["system"] = [fragment(label, value) for label, value in mapping.system] if mapping else []
    return header, cells, synthetic_cells, unmatched


def _has_system(request: RenderRequest, llm: Sequence[Any]) -> bool:
    """Whether the payload opens with a system prompt: one is given, or the transcript records its own."""
    from pi_tools.providers.transcript import has_system_messages

    return bool(request.system_prompt) or has_system_messages(llm)


# --- the page --------------------------------------------------------------------------------------------------


def _convert(stored: list[Any], block_images: bool, passed_through: frozenset[str] | None = None,
             ) -> tuple[list[Any], list[list[annotate.Note]]]:
    """convertToLlm (plus Pi's blockImages wrapper) one message at a time, so each output knows its source."""
    from pi_tools.messages import convert_to_llm
    from pi_tools.messages.convert import PASSED_THROUGH
    from pi_tools.messages.images import replace_blocked_images
    from pi_tools.messages.roles import default_registry

    registry = default_registry()
    converted: list[Any] = []
    notes: list[list[annotate.Note]] = []
    for message in stored:
        produced = convert_to_llm([message], registry, passed_through or PASSED_THROUGH)
        result = produced[0] if produced else None
        passed = isinstance(message, dict) and message.get("role") in (passed_through or ()) and result == message
        here = [] if passed else annotate.convert_notes(message, result, isinstance(message, dict)
                                                        and registry.get(message.get("role")) is not None)
        if block_images and isinstance(result, dict) and result.get("role") in ("user", "toolResult") \
                and isinstance(result.get("content"), list):
            replaced = replace_blocked_images(result["content"])
            if replaced is not None:
                blocked = {**result, "content": replaced}
                here.extend(annotate.blocked_image_notes(result, blocked))
                result = blocked
        converted.append(result)
        notes.append(here)
    return converted, notes


def _with_pi_prompt(request: RenderRequest, llm_doc: dict[str, Any]) -> RenderRequest:
    """--system-prompt pi: the request with the version's own prompt and tools, or as it was where the transcript
    records its own (the note in request.notes says which)."""
    from dataclasses import replace

    from pi_tools.pipeline.stages import pi_prompt_parts

    prompt, tools, note = pi_prompt_parts(llm_doc, request.pi_prompt, request.tools, request.version)
    request.notes.append(note)
    if prompt is None:
        return request
    return replace(request, system_prompt=prompt, tools=tools, pi_prompt=None)


def build_preview(tree: SessionTree, request: RenderRequest) -> dict[str, Any]:
    """Everything the templates show for one session (raises ContextError, TargetError)."""
    from pi_tools.pipeline.stages import context_document, sent_context

    version = request.version
    context_doc = context_document(tree, request.leaf, version)
    stored: list[Any] = context_doc["messages"]
    converted, convert_notes = _convert(stored, request.block_images, version.passed_through)
    llm_rows = [i for i, message in enumerate(converted) if message is not None]
    llm = [converted[i] for i in llm_rows]
    llm_doc = {**context_doc, "kind": "llm", "messages": llm}
    if request.pi_prompt is not None:
        request = _with_pi_prompt(request, llm_doc)
    context: dict[str, Any] = {"systemPrompt": request.system_prompt, "messages": llm}
    if request.tools:
        context["tools"] = request.tools
    try:
        estimate: int | None = version.requests.estimate(sent_context(context, version.requests))
    except Exception:  # noqa: BLE001 - damaged content; Pi would fail too, and the payload column says how
        estimate = None

    origins = _origins(tree, request.leaf, len(stored), version.context)
    rows: list[dict[str, Any]] = []
    for index, message in enumerate(stored):
        result = converted[index]
        entry_id, line = origins[index]
        role = message.get("role") if isinstance(message, dict) else None
        llm_state = "dropped" if result is None else "same" if result is message else "changed"
        rows.append({
            "kind": "message", "number": index + 1, "role": js_to_string(role) if role is not None else "?",
            "entryId": entry_id, "line": line, "preview": _preview_text(message),
            "stored": fragment("stored AgentMessage", message),
            "llm": {"state": llm_state, "notes": convert_notes[index],
                    "fragment": fragment("convertToLlm", result) if llm_state == "changed" else None},
            "cells": [],
        })

    targets: list[dict[str, Any]] = []
    synthetic_rows: dict[int | None, list[dict[str, Any]]] = {}
    unmatched_cells: list[list[dict[str, Any]]] = []
    for column, target in enumerate(request.targets):
        header, cells, synthetic, unmatched = _build_target(
            target, context_doc, llm_doc, llm, llm_rows, request, estimate, len(stored))
        targets.append(header)
        unmatched_cells.append(unmatched)
        for row, cell in zip(rows, cells, strict=True):
            row["cells"].append(cell)
        for position, entries in synthetic.by_position.items():
            bucket = synthetic_rows.setdefault(position, [])
            for ordinal, entry in enumerate(entries):
                while len(bucket) <= ordinal:
                    bucket.append({"kind": "synthetic", "number": None, "role": "toolResult",
                                   "entryId": None, "line": None, "preview": "", "stored": None, "llm": None,
                                   "cells": [_cell("none", [], []) for _ in range(len(request.targets))]})
                synthetic_row = bucket[ordinal]
                result = entry["result"]
                synthetic_row["preview"] = f"No result provided ({js_to_string(result.get('toolName'))})"
                shown = {**result, "timestamp": "<Date.now() at request time>"}
                synthetic_row["cells"][column] = _cell(entry["state"], entry["notes"], entry["fragments"], shown)
    ordered: list[dict[str, Any]] = []
    for index, row in enumerate(rows):
        ordered.extend(synthetic_rows.get(index, []))
        ordered.append(row)
    ordered.extend(synthetic_rows.get(None, []))

    header = context_doc.get("header") or {}
    model = context_doc.get("model")
    counts: dict[str, int] = {}
    for row in ordered:
        for cell in [*(row["cells"]), row["llm"] or {"notes": []}]:
            for item in cell["notes"]:
                counts[item["code"]] = counts.get(item["code"], 0) + 1
    return {
        "source": tree.source,
        "session": {
            "id": header.get("id"), "cwd": header.get("cwd"), "version": header.get("version"),
            "leaf": js_to_string(context_doc.get("leafId")),
            "model": f"{model.get('provider')}/{model.get('modelId')}" if isinstance(model, dict) else None,
            "thinkingLevel": js_to_string(context_doc.get("thinkingLevel")),
            "messages": len(stored), "llmMessages": len(llm), "estimate": estimate,
            "diagnostics": [f"line {d.get('line')}: {d.get('code')}: {d.get('message')}"
                            for d in context_doc.get("diagnostics") or []][:50],
        },
        "options": {
            "systemPrompt": fragment("Context.systemPrompt", request.system_prompt) if request.system_prompt else None,
            "tools": [t.get("name") for t in request.tools or []],
            "reasoning": request.reasoning, "blockImages": request.block_images,
        },
        "targets": targets,
        "rows": ordered,
        "unmatched": unmatched_cells if any(unmatched_cells) else None,
        "noteCounts": dict(sorted(counts.items())),
    }
