"""Pi 1.6's Mistral requests on corners the goldens do not hold, checked against the Pi 1.6 oracle's output
(support.payload16_corners) and pi-ai 1.6's rules."""

from __future__ import annotations

import pytest

from pi_tools.providers.mistral_conversations.payload16 import convert_transcript, reasoning_options

from support.payload16_corners import build, unmasked


@pytest.mark.parametrize("variant", ["payloads", "payloadsReasoning"])
def test_corners_match_the_oracle(variant: str) -> None:
    payload, wire, entry = build("mistral-conversations", variant)
    assert payload == entry["payload"]
    assert (wire["url"], wire["body"]) == (entry["wire"]["url"], entry["wire"]["body"])
    assert unmasked(wire["headers"]) == unmasked(entry["wire"]["headers"])


def test_folded_system_prompt_and_tools() -> None:
    payload = build("mistral-conversations")[0]
    assert payload["messages"][0] == {"role": "system", "content": "You are pi.\n\n<cwd>/tmp/y</cwd>\n\nBe brief."}
    assert [tool["function"]["strict"] for tool in payload["tools"]] == [False, False]
    assert payload["reasoningEffort"] == "none"


def test_system_messages_kept_in_place_render_updates() -> None:
    messages = [
        {"role": "system", "content": "Base.", "sections": {"a": "A"}},
        {"role": "user", "content": "hi"},
        {"role": "system", "content": "", "sections": {"a": "B", "gone": None}},
        {"role": "system", "content": ""},
    ]
    assert convert_transcript(messages, True) == [
        {"role": "system", "content": "Base.\n\nA"},
        {"role": "user", "content": "hi"},
        {"role": "system", "content": 'Updated system prompt section "a":\n\nB\n\nRemoved system prompt section "gone".'},
    ]


@pytest.mark.parametrize(("model", "level", "expected"), [
    ({"reasoning": True, "thinkingLevelMap": {"off": "none", "high": "high"}}, None, (None, "none")),
    ({"reasoning": True, "thinkingLevelMap": {"off": "none", "high": "high"}}, "high", (None, "high")),
    ({"reasoning": True, "thinkingLevelMap": {"low": None}}, "medium", (None, "high")),
    ({"reasoning": True, "thinkingLevelMap": {}}, None, (None, None)),
    ({"reasoning": True}, "medium", ("reasoning", None)),
    ({"reasoning": True}, None, (None, None)),
    ({"reasoning": False, "thinkingLevelMap": {"off": "none"}}, "high", (None, None)),
])
def test_reasoning_follows_the_level_map(model: dict, level: str | None, expected: tuple) -> None:
    assert reasoning_options(model, {"reasoning": level} if level else {}) == expected
