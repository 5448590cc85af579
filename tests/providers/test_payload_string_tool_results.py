"""Tool results stored with string content, sent to a text-only model, through every adapter.

pi-ai's transformMessages walks such content with ``for...of`` (one item per character), and each adapter then
reads ``.type``/``.text`` of plain strings. Expected last messages (or errors) were captured from Node with the
same models and contexts (``streamSimple`` → ``onPayload``).
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from pi_tools.js.json_stringify import js_stringify
from pi_tools.providers import registry
from pi_tools.providers.catalog import find_model
from pi_tools.providers.errors import PayloadError

TEXT_ONLY_MODELS = {
    "anthropic-messages": "fireworks/accounts/fireworks/models/deepseek-v4-flash-0731",
    "openai-completions": "ant-ling/Ling-2.6-1T",
    "openai-responses": "cloudflare-ai-gateway/o3-mini",
    "mistral-conversations": "mistral/codestral-latest",
    "bedrock-converse-stream": "amazon-bedrock/amazon.nova-micro-v1:0",
}
MIXED = ["x", {"type": "text", "text": "y"}]
NO_OUTPUT = "(no tool output)"

EXPECTED: list[tuple[str, Any, Any]] = [
    ("anthropic-messages", "ok!", {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "call1",
                                   "content": "\n\n", "is_error": False, "cache_control": {"type": "ephemeral"}}]}),
    ("anthropic-messages", MIXED, {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "call1",
                                   "content": "\ny", "is_error": False, "cache_control": {"type": "ephemeral"}}]}),
    ("openai-completions", "ok!", {"role": "tool", "content": NO_OUTPUT, "tool_call_id": "call1"}),
    ("openai-completions", MIXED, {"role": "tool", "content": "y", "tool_call_id": "call1"}),
    ("openai-responses", "ok!", {"type": "function_call_output", "call_id": "call1", "output": NO_OUTPUT}),
    ("openai-responses", MIXED, {"type": "function_call_output", "call_id": "call1", "output": "y"}),
    ("mistral-conversations", "ok!", {"role": "tool", "toolCallId": "call1", "name": "t",
                                      "content": [{"type": "text", "text": NO_OUTPUT}]}),
    ("mistral-conversations", MIXED, {"role": "tool", "toolCallId": "call1", "name": "t",
                                      "content": [{"type": "text", "text": "y"}]}),
    ("bedrock-converse-stream", "", {"role": "user", "content": [{"toolResult": {
        "toolUseId": "call1", "content": [{"text": "<empty>"}], "status": "success"}}]}),
    ("bedrock-converse-stream", "ok!", PayloadError("Cannot read properties of undefined (reading 'replace')")),
    ("bedrock-converse-stream", MIXED, PayloadError("Cannot read properties of undefined (reading 'replace')")),
]


@pytest.fixture(autouse=True)
def _reference_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    """Node ran with no provider environment; cache retention and Bedrock settings would change the payloads."""
    for name in ("PI_CACHE_RETENTION", "AWS_BEDROCK_FORCE_CACHE", "AWS_REGION", "AWS_DEFAULT_REGION", "AWS_PROFILE"):
        monkeypatch.delenv(name, raising=False)


def _context(api: str, reference: str, content: Any) -> dict[str, Any]:
    provider, model_id = reference.split("/", 1)
    usage = {"input": 1, "output": 1, "cacheRead": 0, "cacheWrite": 0, "totalTokens": 2,
             "cost": {"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0, "total": 0}}
    return {"messages": [
        {"role": "user", "content": "hi", "timestamp": 1},
        {"role": "assistant", "content": [{"type": "toolCall", "id": "call1", "name": "t", "arguments": {}}],
         "api": api, "provider": provider, "model": model_id, "timestamp": 2, "stopReason": "toolUse",
         "usage": usage},
        {"role": "toolResult", "toolCallId": "call1", "toolName": "t", "content": content, "isError": False,
         "timestamp": 3},
    ]}


@pytest.mark.parametrize(("api", "content", "node_last"), EXPECTED)
def test_string_tool_result_content_matches_node(api: str, content: Any, node_last: Any) -> None:
    reference = TEXT_ONLY_MODELS[api]
    model = find_model(reference)
    assert "image" not in model["input"]
    build = lambda: registry.build_payload(api, model, _context(api, reference, content), {"apiKey": "k"})  # noqa: E731
    if isinstance(node_last, PayloadError):
        with pytest.raises(PayloadError) as caught:
            build()
        assert str(caught.value) == str(node_last)
        return
    payload = json.loads(js_stringify(build()))
    assert (payload.get("messages") or payload.get("input"))[-1] == node_last
