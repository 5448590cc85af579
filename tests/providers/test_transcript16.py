"""Pi 1.6's transcript rules (providers/transcript.py) against pi-ai 1.6's own answers (tests/data/transcript16:
cases.json, node_answers.json recorded by record.mjs), and the system message pi-tools adds when a recorded
transcript is resumed with another prompt or tool set."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from pi_tools.providers import transcript

DATA = Path(__file__).resolve().parents[1] / "data" / "transcript16"
CASES = json.loads((DATA / "cases.json").read_text(encoding="utf-8"))
ANSWERS = json.loads((DATA / "node_answers.json").read_text(encoding="utf-8"))


def ours(messages: list[Any]) -> dict[str, Any]:
    systems = [message for message in messages if message["role"] == "system"]
    resolved = {support: dict(zip(("requestTools", "foldedSystemMessages"),
                                  transcript.resolve_transcript_tools(messages, support), strict=True))
                for support in ("none", "additions", "changes")}
    return {
        "current": transcript.current_system_message(messages),
        "prompt": transcript.current_system_prompt(messages),
        "collapsed": transcript.collapse_system_messages(messages),
        "tools": transcript.current_tools(messages),
        "declared": transcript.declared_tools(messages),
        **resolved,
        "updates": [transcript.render_system_message_update(message) for message in systems],
        "texts": [transcript.system_message_text(message) for message in systems],
    }


@pytest.mark.parametrize("index", range(len(CASES)))
def test_transcript_functions_answer_as_pi_ai(index: int) -> None:
    got = ours(CASES[index]["messages"])
    assert json.dumps(got) == json.dumps(ANSWERS[index])  # key order included


def test_normalize_context_leads_with_the_prompt_and_tools() -> None:
    tools = [{"name": "read", "description": "r", "parameters": {}}]
    user = {"role": "user", "content": "hi", "timestamp": 1}
    assert transcript.normalize_context({"systemPrompt": "P", "tools": tools, "messages": [user]}) == [
        {"role": "system", "content": "P", "toolsAdded": tools, "timestamp": 0}, user]
    assert transcript.normalize_context({"systemPrompt": "", "tools": [], "messages": [user]}) == [user]
    assert transcript.normalize_context({"tools": tools, "messages": []}) == [
        {"role": "system", "content": "", "toolsAdded": tools, "timestamp": 0}]


RECORDED = [
    {"role": "system", "content": "", "sections": {"preamble": "Be brief.", "cwd": "/w"},
     "toolsAdded": [{"name": "read", "description": "r", "parameters": {"type": "object"}},
                    {"name": "bash", "description": "b", "parameters": {}}], "timestamp": 1},
    {"role": "user", "content": "hi", "timestamp": 2},
]


def test_a_resumed_transcript_gets_no_update_when_prompt_and_tools_match() -> None:
    tools = [{"name": "read", "description": "r", "parameters": {"type": "object"}, "execute": None},
             {"name": "bash", "description": "b", "parameters": {}}]
    assert transcript.resumed_prompt_update(RECORDED, "Be brief.", [dict(t) for t in tools[1:]] + [
        {k: v for k, v in tools[0].items() if k != "execute"}], 9) is None
    assert transcript.resumed_prompt_update(RECORDED, None, None, 9) is None


def test_a_resumed_transcript_patches_the_preamble_and_declares_tool_changes() -> None:
    update = transcript.resumed_prompt_update(
        RECORDED, "Be thorough.", [{"name": "bash", "description": "b2", "parameters": {}},
                                   {"name": "grep", "description": "g", "parameters": {"type": "object"}}], 9)
    assert json.dumps(update) == json.dumps({
        "role": "system", "content": "", "sections": {"preamble": "Be thorough."}, "timestamp": 9,
        "toolsAdded": [{"name": "bash", "description": "b2", "parameters": {}},
                       {"name": "grep", "description": "g", "parameters": {"type": "object"}}],
        "toolsRemoved": [{"name": "read"}, {"name": "bash"}],
    })


def test_estimate_and_output_budget_answer_as_pi_ai() -> None:
    """options16 on every conformance16 transcript: the estimate and the clamped maxTokens for a 200k and a 40k
    window, as pi-ai 1.6 computed them (estimates.json, recorded by record_estimates.mjs)."""
    from pi_tools.pi import resolve
    from pi_tools.providers import options16
    from pi_tools.providers.catalog import get_model

    from support.oracle_path import CONFORMANCE16

    if not CONFORMANCE16.is_dir():
        pytest.skip(f"no Pi 1.6 conformance set at {CONFORMANCE16}")
    recorded = json.loads((DATA / "estimates.json").read_text(encoding="utf-8"))
    model = get_model("anthropic", "claude-sonnet-4-5", resolve("1.6").requests.catalog)
    for name, answer in recorded.items():
        with open(CONFORMANCE16 / "expected" / name, encoding="utf-8") as fh:
            doc = json.load(fh)
        inputs = doc["inputs"]
        context: dict[str, Any] = {"messages": doc["llm"]}
        if inputs["systemPrompt"] is not None:
            context["systemPrompt"] = inputs["systemPrompt"]
            if inputs["tools"]:
                context["tools"] = inputs["tools"]
        messages = transcript.normalize_context(context)
        got = [options16.estimate_context_tokens(messages),
               options16.clamp_max_tokens_to_context(model, messages, 64000),
               options16.clamp_max_tokens_to_context({**model, "contextWindow": 40000}, messages, 64000)]
        assert got == answer, name
