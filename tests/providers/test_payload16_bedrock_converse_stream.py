"""Pi 1.6's Bedrock requests on corners the goldens do not hold, checked against the Pi 1.6 oracle's output
(support.payload16_corners; the Claude, Haiku 5, Opus 4.8 and GPT variants agree with the oracle on every
conformance16 case too)."""

from __future__ import annotations

import pytest

from pi_tools.pi import resolve
from pi_tools.providers.bedrock_converse_stream.payload16 import reasoning_fields
from pi_tools.providers.bedrock_converse_stream.wire16 import custom_user_agent
from pi_tools.providers.catalog import find_model

from support.payload16_corners import build, unmasked

PI16 = resolve("1.6")


@pytest.mark.parametrize("variant", ["payloads", "payloadsReasoning"])
def test_corners_match_the_oracle(variant: str) -> None:
    payload, wire, entry = build("bedrock-converse-stream", variant)
    assert payload == entry["payload"]
    assert (wire["url"], wire["body"]) == (entry["wire"]["url"], entry["wire"]["body"])
    assert unmasked(wire["headers"]) == unmasked(entry["wire"]["headers"])


def test_claude_error_images_follow_the_tool_results() -> None:
    turn = build("bedrock-converse-stream")[0]["messages"][2]["content"]
    assert turn[1]["toolResult"]["content"] == [{"text": "failed"}, {"text": "(image attached after the tool results)"}]
    assert turn[2] == {"text": "Images from the error result of tool call toolu_02DEF (bash):"}
    assert "image" in turn[3]


def _model(ref: str) -> dict:
    return find_model(ref, PI16.requests.catalog)


def test_adaptive_claude_binds_thinking_blocks() -> None:
    fields = reasoning_fields(_model("amazon-bedrock/anthropic.claude-opus-4-8"), {"reasoning": "high"})
    assert fields == {"thinking": {"type": "adaptive", "display": "summarized",
                                   "block_binding": {"prefix_mismatch_behavior": "drop_block"}},
                      "output_config": {"effort": "high"},
                      "anthropic_beta": ["thinking-binding-controls-2026-08-01"]}


@pytest.mark.parametrize(("ref", "level", "expected"), [
    ("amazon-bedrock/openai.gpt-oss-120b", "xhigh", {"reasoning_effort": "high"}),
    ("amazon-bedrock/openai.gpt-oss-120b", "minimal", {"reasoning_effort": "low"}),
    ("amazon-bedrock/openai.gpt-5.6-sol", "xhigh", {"reasoning": {"effort": "xhigh"}}),
    ("amazon-bedrock/openai.gpt-5.6-sol", "minimal", {"reasoning": {"effort": "low"}}),
])
def test_openai_models_take_a_reasoning_effort(ref: str, level: str, expected: dict) -> None:
    assert reasoning_fields(_model(ref), {"reasoning": level}) == expected


def test_custom_user_agent() -> None:
    assert custom_user_agent({}) == "pi/1.6.0"
    assert custom_user_agent({"identity": {"userAgent": "short"}}) == "pi"
