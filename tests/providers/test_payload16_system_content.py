"""A Pi 1.x system message whose content is not text nor a list of blocks, as Pi 1.6 answers (recorded with its
oracle: `../shared/oracle16/oracle CASE`; a differential fuzz run found the first). pi-ai's contentText calls
`content.filter`: an object or a number fails every API there (pi-tools read it as no text and built the request),
a null block fails on `block.type`, and a text block's `text` is joined as JavaScript joins it. The request's
note on a missing system prompt must not trip over such a message either (it ended in an internal error)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from support.message_sessions import write_messages

MODELS = {"anthropic-messages": "anthropic/claude-sonnet-4-5", "openai-completions": "groq/openai/gpt-oss-120b",
          "openai-responses": "openai/gpt-5.1", "google-generative-ai": "google/gemini-2.5-flash",
          "mistral-conversations": "mistral/mistral-medium-latest",
          "bedrock-converse-stream": "amazon-bedrock/anthropic.claude-sonnet-4-5-20250929-v1:0"}
CASES = {
    "an object": ({"0": {"type": "text", "text": "t"}}, "content.filter is not a function"),
    "a number": (5, "content.filter is not a function"),
    "a null block": ([None], "Cannot read properties of null (reading 'type')"),
}


def _session(tmp_path: Path, content: Any) -> Path:
    return write_messages(tmp_path / "s.jsonl", [{"role": "system", "content": content, "timestamp": 1},
                                                 {"role": "user", "content": "q1", "timestamp": 1086}])


@pytest.mark.parametrize("case", list(CASES))
def test_a_system_content_pi_cannot_read_fails_every_api(cli: Any, tmp_path: Path, case: str) -> None:
    content, error = CASES[case]
    path = _session(tmp_path, content)
    for api, model in MODELS.items():
        run = cli("payload", "--pi", "1.6", "--api", api, "--model", model, str(path))
        assert "internal error" not in run.stderr, api
        assert json.loads(run.stdout.splitlines()[-1])["error"] == error, api


def test_text_that_is_a_number_is_joined_as_javascript_joins(cli: Any, tmp_path: Path) -> None:
    path = _session(tmp_path, [{"type": "text", "text": 5}, {"type": "text", "text": "b"}])
    run = cli("payload", "--pi", "1.6", "--api", "openai-completions", "--model", MODELS["openai-completions"],
              str(path))
    assert json.loads(run.stdout.splitlines()[-1])["payload"]["messages"][0] == {"role": "system",
                                                                                 "content": "5\nb"}
