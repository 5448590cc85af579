"""A tool result whose content is a string, under Pi 1.6, as Pi 1.6 answers (recorded with its oracle:
`../shared/oracle16/oracle CASE`; a differential fuzz run found it). An error result goes first through
splitErrorToolResultImages, which calls `msg.content.filter` (Anthropic, and Claude on Bedrock; Google's and
Mistral's conversions call the same first): pi-tools walked the string's characters there and failed later, with
the words of the next step (`content.some`, or a Bedrock `replace`)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from support.message_sessions import USAGE, write_messages

MODELS = {"anthropic-messages": "anthropic/claude-sonnet-4-5", "openai-completions": "groq/openai/gpt-oss-120b",
          "openai-responses": "openai/gpt-5.1", "google-generative-ai": "google/gemini-2.5-flash",
          "mistral-conversations": "mistral/mistral-medium-latest",
          "bedrock-converse-stream": "amazon-bedrock/anthropic.claude-sonnet-4-5-20250929-v1:0"}
FILTER = "msg.content.filter is not a function"
PI_ANSWERS = {  # isError -> Pi 1.6's error per API (None: the request is built)
    True: {"anthropic-messages": FILTER, "openai-completions": None,
           "openai-responses": "content.filter is not a function", "google-generative-ai": FILTER,
           "mistral-conversations": FILTER, "bedrock-converse-stream": FILTER},
    False: {"anthropic-messages": "content.some is not a function", "openai-completions": None,
            "openai-responses": "content.filter is not a function", "google-generative-ai": FILTER,
            "mistral-conversations": FILTER,
            "bedrock-converse-stream": "Cannot read properties of undefined (reading 'replace')"},
}


def _session(tmp_path: Path, is_error: bool) -> Path:
    messages = [
        {"role": "user", "content": "hi", "timestamp": 1},
        {"role": "assistant", "content": [{"type": "toolCall", "id": "c1", "name": "bash", "arguments": {}}],
         "api": "anthropic-messages", "provider": "anthropic", "model": "claude-sonnet-4-5", "stopReason": "toolUse",
         "usage": USAGE, "timestamp": 2},
        {"role": "toolResult", "toolCallId": "c1", "toolName": "bash", "content": "plain", "isError": is_error,
         "timestamp": 3},
    ]
    return write_messages(tmp_path / "s.jsonl", messages)


@pytest.mark.parametrize("is_error", [True, False])
def test_a_string_result_fails_where_pi_16_fails(cli: Any, tmp_path: Path, is_error: bool) -> None:
    path = _session(tmp_path, is_error)
    answers = {}
    for api, model in MODELS.items():
        run = cli("payload", "--pi", "1.6", "--api", api, "--model", model, str(path))
        document = json.loads(run.stdout.splitlines()[-1])
        answers[api] = document.get("error") if document["kind"] == "error" else None
    assert answers == PI_ANSWERS[is_error]
