"""Pi 1.6's Gemini requests (google-generative-ai and google-vertex) on corners the goldens do not hold, checked
against the Pi 1.6 oracle's output (support.payload16_corners)."""

from __future__ import annotations

import pytest

from pi_tools.pi import resolve
from pi_tools.providers import registry
from pi_tools.providers.catalog import find_model
from pi_tools.providers.errors import PayloadError
from pi_tools.providers.google_generative_ai.payload16 import rewrite_const_as_enum, uses_thinking_level

from support.payload16_corners import build, unmasked

KEYS = ("google-generative-ai", "google-vertex@google-vertex/gemini-3.1-pro-preview")


@pytest.mark.parametrize("variant", ["payloads", "payloadsReasoning"])
@pytest.mark.parametrize("key", KEYS)
def test_corners_match_the_oracle(key: str, variant: str) -> None:
    payload, wire, entry = build(key, variant)
    assert payload == entry["payload"]
    assert (wire["method"], wire["url"], wire["body"]) == (entry["wire"]["method"], entry["wire"]["url"],
                                                           entry["wire"]["body"])
    assert unmasked(wire["headers"]) == unmasked(entry["wire"]["headers"])


def test_system_messages_fold_into_the_instruction_and_tools_accumulate() -> None:
    config = build("google-generative-ai")[0]["config"]
    assert config["systemInstruction"] == "You are pi.\n\n<cwd>/tmp/y</cwd>\n\nBe brief."
    assert [d["name"] for d in config["tools"][0]["functionDeclarations"]] == ["bash", "read"]
    assert list(config)[-2:] == ["automaticContinuation", "thinkingConfig"]
    assert config["automaticContinuation"] is False


def test_automatic_continuation_stays_out_of_the_body() -> None:
    wire = build("google-generative-ai")[1]
    assert "automaticContinuation" not in wire["body"]["generationConfig"]


def test_whitespace_only_tool_output_is_sent_empty() -> None:
    contents = build("google-generative-ai")[0]["contents"]
    assert contents[2]["parts"][0]["functionResponse"]["response"] == {"output": ""}


def test_vertex_function_responses_are_reordered_on_the_wire() -> None:
    body = build(KEYS[1])[1]["body"]
    response = body["contents"][2]["parts"][1]["functionResponse"]
    assert list(response) == ["id", "name", "parts", "response"]


def test_const_as_enum() -> None:
    schema = {"type": "object", "properties": {
        "a": {"const": "x"}, "b": {"const": 2.5}, "c": {"const": True}, "d": {"const": "y", "enum": ["y"]},
        "const": {"type": "string"}}, "examples": [{"const": "kept"}], "items": [{"const": 1}]}
    assert rewrite_const_as_enum(schema) == {"type": "object", "properties": {
        "a": {"enum": ["x"]}, "b": {"enum": [2.5]}, "c": {"const": True}, "d": {"const": "y", "enum": ["y"]},
        "const": {"type": "string"}}, "examples": [{"const": "kept"}], "items": [{"enum": [1]}]}


@pytest.mark.parametrize(("model_id", "expected"), [
    ("gemini-2.5-flash", False), ("gemini-3-flash-preview", True), ("gemini-3.1-pro-preview", True),
    ("gemini-3.8-flash", True), ("gemini-4-argon", True), ("gemini-flash-latest", True), ("gemma-4-31b-it", True),
    ("gemini-3.1-flash-lite", True), ("gemini-robotics-er-2-preview", False),
])
def test_which_models_take_a_thinking_level(model_id: str, expected: bool) -> None:
    assert uses_thinking_level(model_id) is expected


def test_an_unmapped_google_level_fails_as_pi_does() -> None:
    pi16 = resolve("1.6")
    model = find_model("google-vertex/gemini-4-hydrogen", pi16.requests.catalog)
    with pytest.raises(PayloadError, match=r"Unsupported Google thinking level mapping for "
                                           r"google-vertex/gemini-4-hydrogen: xhigh -> xhigh"):
        registry.build_payload("google-vertex", model, {"messages": [{"role": "user", "content": "hi"}]},
                               {"apiKey": "k", "reasoning": "xhigh"}, pi16.requests)
