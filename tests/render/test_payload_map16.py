"""The payload mapping under Pi 1.6 (render.payload_map, through render's preview and preflight's provenance): every
transformed message paired with the items it became, the transcript's system messages included (the system prompt,
an update in place or held until the next assistant turn, or the prompt a model folds them into), pi-messages'
items at ``context.messages``, with exact outputs for the sessions Pi 1.6 wrote (tests/data/requests16) and zero
lost or unmatched placements over every conformance16 golden (skipped without them)."""

from __future__ import annotations

import json
import re
from typing import Any

import pytest

from pi_tools.pi import resolve
from pi_tools.providers.catalog import find_model
from pi_tools.providers.table import items_key, payload_items, with_payload_items
from pi_tools.providers.transcript import has_system_messages
from pi_tools.providers.transform_trace import transformed_messages
from pi_tools.render import RenderRequest, Target, build_preview
from pi_tools.render.payload_map import map_payload
from pi_tools.session import load_session

from support.oracle_path import CONFORMANCE16

DATA = "tests/data/requests16"
EDITION = resolve("1.6").requests

# (session, api, model, the target's system fragments, per row: role, state, fragment labels, note labels), as
# render --pi 1.6 shows them (checked by hand against the payloads: conformance16 gen16_resumed085 and gen16_new).
EXPECTED: list[tuple[str, str, str, list[str], list[tuple[str, str, list[str], list[str]]]]] = \
[('gen16_resumed085', 'anthropic-messages', 'anthropic/claude-opus-4-8', [],
  [('user', 'sent', ['messages[0]'], []),
   ('assistant', 'sent', ['messages[1]'], ['text signature dropped', 'tool-call id renamed']),
   ('toolResult', 'sent', ['messages[2].content[0]'], ['result id renamed']),
   ('assistant', 'sent', ['messages[3]'],
    ['text signature dropped', 'tool-call id renamed', 'tool-call id renamed', 'tool-call id renamed']),
   ('toolResult', 'sent', ['messages[4].content[0]'], ['result id renamed', 'grouped']),
   ('toolResult', 'sent', ['messages[4].content[1]'], ['result id renamed', 'grouped']),
   ('toolResult', 'sent', ['messages[4].content[2]'], ['result id renamed', 'grouped']),
   ('assistant', 'sent', ['messages[5]'], ['text signature dropped']), ('user', 'sent', ['messages[6]'], []),
   ('assistant', 'sent', ['messages[7]'], ['tool-call id renamed']),
   ('toolResult', 'sent', ['messages[8].content[0]'], ['result id renamed']),
   ('assistant', 'sent', ['messages[9]'], []), ('system', 'sent', ['messages[11]'], ['system update']),
   ('user', 'sent', ['messages[10]'], []), ('assistant', 'sent', ['messages[12]'], ['thinking dropped']),
   ('toolResult', 'sent', ['messages[13].content[0]'], []), ('assistant', 'sent', ['messages[14]'], [])]),
 ('gen16_resumed085', 'anthropic-messages', 'anthropic/claude-sonnet-4-5', ['system'],
  [('user', 'sent', ['messages[0]'], []),
   ('assistant', 'sent', ['messages[1]'], ['text signature dropped', 'tool-call id renamed']),
   ('toolResult', 'sent', ['messages[2].content[0]'], ['result id renamed']),
   ('assistant', 'sent', ['messages[3]'],
    ['text signature dropped', 'tool-call id renamed', 'tool-call id renamed', 'tool-call id renamed']),
   ('toolResult', 'sent', ['messages[4].content[0]'], ['result id renamed', 'grouped']),
   ('toolResult', 'sent', ['messages[4].content[1]'], ['result id renamed', 'grouped']),
   ('toolResult', 'sent', ['messages[4].content[2]'], ['result id renamed', 'grouped']),
   ('assistant', 'sent', ['messages[5]'], ['text signature dropped']), ('user', 'sent', ['messages[6]'], []),
   ('assistant', 'sent', ['messages[7]'], ['tool-call id renamed']),
   ('toolResult', 'sent', ['messages[8].content[0]'], ['result id renamed']),
   ('assistant', 'sent', ['messages[9]'], []), ('system', 'sent', ['system'], ['folded into the system prompt']),
   ('user', 'sent', ['messages[10]'], []), ('assistant', 'sent', ['messages[11]'], []),
   ('toolResult', 'sent', ['messages[12].content[0]'], []), ('assistant', 'sent', ['messages[13]'], [])]),
 ('gen16_resumed085', 'openai-completions', 'deepseek/deepseek-v4-pro', [],
  [('user', 'sent', ['messages[0]'], []),
   ('assistant', 'sent', ['messages[1]'], ['text signature dropped', 'tool-call id renamed']),
   ('toolResult', 'sent', ['messages[2]'], ['result id renamed']),
   ('assistant', 'sent', ['messages[3]'],
    ['text signature dropped', 'tool-call id renamed', 'tool-call id renamed', 'tool-call id renamed']),
   ('toolResult', 'sent', ['messages[4]'], ['result id renamed']),
   ('toolResult', 'sent', ['messages[5]'], ['result id renamed']),
   ('toolResult', 'sent', ['messages[6]'], ['result id renamed']),
   ('assistant', 'sent', ['messages[7]'], ['text signature dropped']), ('user', 'sent', ['messages[8]'], []),
   ('assistant', 'sent', ['messages[9]'], ['tool-call id renamed']),
   ('toolResult', 'sent', ['messages[10]'], ['result id renamed']), ('assistant', 'sent', ['messages[11]'], []),
   ('system', 'sent', ['messages[12]'], ['system update']), ('user', 'sent', ['messages[13]'], []),
   ('assistant', 'sent', ['messages[14]'], ['thinking dropped']), ('toolResult', 'sent', ['messages[15]'], []),
   ('assistant', 'sent', ['messages[16]'], [])]),
 ('gen16_resumed085', 'openai-responses', 'openai/gpt-5.6-sol', [],
  [('user', 'sent', ['input[0]'], []), ('assistant', 'sent', ['input[1]', 'input[2]'], ['text signature dropped']),
   ('toolResult', 'sent', ['input[3]'], []),
   ('assistant', 'sent', ['input[4]', 'input[5]', 'input[6]', 'input[7]'], ['text signature dropped']),
   ('toolResult', 'sent', ['input[8]'], []), ('toolResult', 'sent', ['input[9]'], []),
   ('toolResult', 'sent', ['input[10]'], []), ('assistant', 'sent', ['input[11]'], ['text signature dropped']),
   ('user', 'sent', ['input[12]'], []), ('assistant', 'sent', ['input[13]'], []),
   ('toolResult', 'sent', ['input[14]'], []), ('assistant', 'sent', ['input[15]'], []),
   ('system', 'sent', ['input[16]', 'input[17]'], ['system update']), ('user', 'sent', ['input[18]'], []),
   ('assistant', 'sent', ['input[19]'], ['thinking dropped']), ('toolResult', 'sent', ['input[20]'], []),
   ('assistant', 'sent', ['input[21]'], [])]),
 ('gen16_resumed085', 'openai-codex-responses', 'openai-codex/gpt-5.6-sol', [],
  [('user', 'sent', ['input[0]'], []),
   ('assistant', 'sent', ['input[1]', 'input[2]'], ['text signature dropped', 'tool-call id renamed']),
   ('toolResult', 'sent', ['input[3]'], ['result id renamed']),
   ('assistant', 'sent', ['input[4]', 'input[5]', 'input[6]', 'input[7]'],
    ['text signature dropped', 'tool-call id renamed', 'tool-call id renamed', 'tool-call id renamed']),
   ('toolResult', 'sent', ['input[8]'], ['result id renamed']),
   ('toolResult', 'sent', ['input[9]'], ['result id renamed']),
   ('toolResult', 'sent', ['input[10]'], ['result id renamed']),
   ('assistant', 'sent', ['input[11]'], ['text signature dropped']), ('user', 'sent', ['input[12]'], []),
   ('assistant', 'sent', ['input[13]'], ['tool-call id renamed']),
   ('toolResult', 'sent', ['input[14]'], ['result id renamed']), ('assistant', 'sent', ['input[15]'], []),
   ('system', 'sent', ['input[16]', 'input[17]'], ['system update']), ('user', 'sent', ['input[18]'], []),
   ('assistant', 'sent', ['input[19]'], ['thinking dropped']), ('toolResult', 'sent', ['input[20]'], []),
   ('assistant', 'sent', ['input[21]'], [])]),
 ('gen16_resumed085', 'pi-messages', 'radius/balanced', [],
  [('user', 'sent', ['context.messages[0]'], []), ('assistant', 'sent', ['context.messages[1]'], []),
   ('toolResult', 'sent', ['context.messages[2]'], []), ('assistant', 'sent', ['context.messages[3]'], []),
   ('toolResult', 'sent', ['context.messages[4]'], []), ('toolResult', 'sent', ['context.messages[5]'], []),
   ('toolResult', 'sent', ['context.messages[6]'], []), ('assistant', 'sent', ['context.messages[7]'], []),
   ('user', 'sent', ['context.messages[8]'], []), ('assistant', 'sent', ['context.messages[9]'], []),
   ('toolResult', 'sent', ['context.messages[10]'], []), ('assistant', 'sent', ['context.messages[11]'], []),
   ('system', 'sent', ['context.messages[12]'], ['system update']), ('user', 'sent', ['context.messages[13]'], []),
   ('assistant', 'sent', ['context.messages[14]'], []), ('toolResult', 'sent', ['context.messages[15]'], []),
   ('assistant', 'sent', ['context.messages[16]'], [])]),
 ('gen16_new', 'openai-responses', 'openai/gpt-5.6-sol', ['input[0]', 'input[1]'],
  [('system', 'sent', ['input[0]', 'input[1]'], ['system prompt']), ('user', 'sent', ['input[2]'], []),
   ('assistant', 'sent', ['input[3]'], ['thinking dropped']), ('toolResult', 'sent', ['input[4]'], []),
   ('assistant', 'sent', ['input[5]'], []), ('user', 'sent', ['input[6]'], []),
   ('assistant', 'sent', ['input[7]'], ['thinking dropped']), ('toolResult', 'sent', ['input[8]'], []),
   ('assistant', 'sent', ['input[9]'], [])]),
 ('gen16_new', 'openai-completions', 'deepseek/deepseek-v4-pro', ['messages[0]'],
  [('system', 'sent', ['messages[0]'], ['system prompt']), ('user', 'sent', ['messages[1]'], []),
   ('assistant', 'sent', ['messages[2]'], ['thinking dropped']), ('toolResult', 'sent', ['messages[3]'], []),
   ('assistant', 'sent', ['messages[4]'], []), ('user', 'sent', ['messages[5]'], []),
   ('assistant', 'sent', ['messages[6]'], ['thinking dropped']), ('toolResult', 'sent', ['messages[7]'], []),
   ('assistant', 'sent', ['messages[8]'], [])]),
 ('gen16_new', 'pi-messages', 'radius/balanced', ['context.messages[0]'],
  [('system', 'sent', ['context.messages[0]'], ['system prompt']), ('user', 'sent', ['context.messages[1]'], []),
   ('assistant', 'sent', ['context.messages[2]'], []), ('toolResult', 'sent', ['context.messages[3]'], []),
   ('assistant', 'sent', ['context.messages[4]'], []), ('user', 'sent', ['context.messages[5]'], []),
   ('assistant', 'sent', ['context.messages[6]'], []), ('toolResult', 'sent', ['context.messages[7]'], []),
   ('assistant', 'sent', ['context.messages[8]'], [])])]


@pytest.mark.parametrize(("session", "api", "model", "system", "rows"), EXPECTED,
                         ids=[f"{case[0]}-{case[2]}" for case in EXPECTED])
def test_render_places_every_message_of_a_16_session(session: str, api: str, model: str, system: list[str],
                                                     rows: list[Any]) -> None:
    view = build_preview(load_session(f"{DATA}/{session}.jsonl"), RenderRequest([Target(api, model)], pi="1.6"))
    assert [fragment["label"] for fragment in view["targets"][0]["system"]] == system
    assert [(row["role"], cell["state"], [fragment["label"] for fragment in cell["fragments"]],
             [note["label"] for note in cell["notes"]]) for row in view["rows"] for cell in [row["cells"][0]]] == rows
    assert view["unmatched"] is None


def test_findings_of_pi_messages_are_traced_to_their_entries() -> None:
    """preflight's provenance reads pi-messages' items at context.messages: each item is its own message's."""
    from pi_tools.preflight.provenance import map_origins
    from pi_tools.providers.registry import build_payload

    llm = _session_llm("gen16_resumed085")
    model = find_model("radius/balanced", EDITION.catalog)
    payload = build_payload("pi-messages", model, {"messages": llm}, {"apiKey": "k"}, EDITION)
    origins = map_origins("pi-messages", model, llm, payload, True, edition=EDITION)
    assert origins.item_origin == list(range(len(llm)))
    assert origins.llm_index("context.messages[12].sections.preamble") == 12
    assert origins.llm_index("options.maxTokens") is None


def _session_llm(session: str) -> list[Any]:
    from pi_tools.pipeline.stages import context_document, llm_document

    version = resolve("1.6")
    tree = load_session(f"{DATA}/{session}.jsonl")
    return list(llm_document(context_document(tree, pi=version), version)["messages"])


def test_nested_items_path() -> None:
    payload = {"model": "m", "context": {"messages": [1, 2]}, "options": {}}
    assert items_key("pi-messages") == "context.messages"
    assert payload_items("pi-messages", payload) == [1, 2]
    assert payload_items("pi-messages", {"context": None}) is None
    replaced = with_payload_items("pi-messages", payload, [3])
    assert replaced == {"model": "m", "context": {"messages": [3]}, "options": {}}
    assert payload["context"]["messages"] == [1, 2]  # copied along the path, not changed
    assert with_payload_items("openai-responses", {"input": [1], "model": "m"}, []) == {"input": [], "model": "m"}
    assert payload_items("an-api-the-table-lacks", {"messages": [4]}) == [4]


def _golden_requests() -> list[Any]:
    if not CONFORMANCE16.exists():
        return []
    found = []
    for path in sorted((CONFORMANCE16 / "expected").glob("*.json")):
        doc = json.loads(path.read_text(encoding="utf-8"))
        if "inputs" in doc:
            found.append(pytest.param(path, id=path.stem))
    return found


@pytest.mark.skipif(not CONFORMANCE16.exists(), reason="conformance16 goldens not available")
@pytest.mark.parametrize("path", _golden_requests())
def test_goldens_map_every_item(path: Any) -> None:
    """Every conformance16 payload (each key, reasoning off and on): nothing lost, nothing unmatched, every item
    of the list placed, and every system message placed by what the model does with it."""
    doc = json.loads(path.read_text(encoding="utf-8"))
    llm = doc["llm"]
    has_system = bool(doc["inputs"]["systemPrompt"]) or has_system_messages(llm)
    checked = 0
    for variant in ("payloads", "payloadsReasoning"):
        for key, entry in (doc.get(variant) or {}).items():
            if "payload" not in entry:
                continue
            api = key.split("@")[0]
            model = find_model(entry["model"], EDITION.catalog)
            transformed = transformed_messages(api, model, llm, EDITION)
            mapping = map_payload(api, entry["payload"], transformed, model, has_system, EDITION)
            assert mapping.unmatched == [], (key, variant)
            assert [p.status for p in mapping.placements if p.status == "lost"] == [], (key, variant)
            label = items_key(api)
            covered = [int(m.group(1)) for where, _ in mapping.system
                       for m in [re.match(re.escape(label) + r"\[(\d+)\]$", where)] if m]
            for message, placement in zip(transformed, mapping.placements, strict=True):
                if message.get("role") == "system":
                    assert placement.status == "sent" and placement.fragments, (key, variant)
                    assert placement.system in ("prompt", "update", "folded"), (key, variant)
                    if placement.system != "update":
                        assert placement.fragments == mapping.system, (key, variant)
                        continue
                for where, _ in placement.fragments + placement.extras:
                    match = re.match(re.escape(label) + r"\[(\d+)\]", where)
                    if match and (not covered or covered[-1] != int(match.group(1))):
                        covered.append(int(match.group(1)))
            # in order, but for an update Anthropic holds until the next assistant turn (after a user message)
            assert sorted(set(covered)) == list(range(len(payload_items(api, entry["payload"])))), (key, variant)
            checked += 1
    assert checked
