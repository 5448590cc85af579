"""A tool result's text block whose `text` is not a string, on every API, as Pi 0.85 answers it (recorded with
the reference oracle: `../shared/oracle/oracle CASE --apis default`). Beside an image, Anthropic's converter
called pi-tools' surrogate sanitizer on the object and ended in "internal error (AttributeError ...)"; Pi
fails the request with V8's "text.replace is not a function" (a mutation sweep found it)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

MODELS = {"anthropic-messages": "anthropic/claude-sonnet-4-5", "openai-completions": "groq/openai/gpt-oss-120b",
          "openai-responses": "openai/gpt-5.1", "google-generative-ai": "google/gemini-2.5-flash",
          "mistral-conversations": "mistral/mistral-medium-latest",
          "bedrock-converse-stream": "amazon-bedrock/anthropic.claude-sonnet-4-5-20250929-v1:0"}
IMAGE = {"type": "image", "data": "iVBORw0KGgo=", "mimeType": "image/png"}
REPLACE = "text.replace is not a function"
ONLY_SOME = {"anthropic-messages": REPLACE, "mistral-conversations": REPLACE, "bedrock-converse-stream": REPLACE}
CASES: dict[str, tuple[list[Any], dict[str, str]]] = {
    # (the result's content, Pi's error per API: the others build the request)
    "object beside an image": ([{"type": "text", "text": {"a": 1}}, IMAGE], ONLY_SOME),
    "number beside an image": ([{"type": "text", "text": 5}, IMAGE], ONLY_SOME),
    "array beside an image": ([{"type": "text", "text": ["x"]}, IMAGE], ONLY_SOME),
    "object alone": ([{"type": "text", "text": {"a": 1}}],
                     {"mistral-conversations": REPLACE, "bedrock-converse-stream": REPLACE}),
    "missing beside an image": ([{"type": "text"}, IMAGE],
                                dict.fromkeys(MODELS, "Cannot read properties of undefined (reading 'length')")),
    "null beside an image": ([{"type": "text", "text": None}, IMAGE],
                             dict.fromkeys(MODELS, "Cannot read properties of null (reading 'length')")),
}
USAGE = {"input": 1, "output": 1, "cacheRead": 0, "cacheWrite": 0, "totalTokens": 2,
         "cost": {"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0, "total": 0}}


def _session(tmp_path: Path, content: list[Any]) -> Path:
    entries = [
        {"type": "session", "version": 3, "id": "s1", "timestamp": "2026-01-01T00:00:00.000Z", "cwd": "/w"},
        {"type": "message", "id": "a1", "parentId": None, "timestamp": "2026-01-01T00:00:01.000Z",
         "message": {"role": "user", "content": [{"type": "text", "text": "hi"}], "timestamp": 1}},
        {"type": "message", "id": "a2", "parentId": "a1", "timestamp": "2026-01-01T00:00:02.000Z",
         "message": {"role": "assistant", "content": [{"type": "toolCall", "id": "c1", "name": "ls", "arguments": {}}],
                     "api": "anthropic-messages", "provider": "anthropic", "model": "claude-sonnet-4-5",
                     "stopReason": "toolUse", "usage": USAGE, "timestamp": 2}},
        {"type": "message", "id": "a3", "parentId": "a2", "timestamp": "2026-01-01T00:00:03.000Z",
         "message": {"role": "toolResult", "toolCallId": "c1", "toolName": "ls", "content": content,
                     "isError": False, "timestamp": 3}},
    ]
    path = tmp_path / "s.jsonl"
    path.write_text("".join(json.dumps(entry) + "\n" for entry in entries))
    return path


@pytest.mark.parametrize("case", list(CASES))
def test_payload_fails_where_pi_fails_and_builds_where_pi_builds(cli: Any, tmp_path: Path, case: str) -> None:
    content, errors = CASES[case]
    path = _session(tmp_path, content)
    for api, model in MODELS.items():
        run = cli("payload", "--api", api, "--model", model, str(path))
        assert "internal error" not in run.stdout + run.stderr and "Traceback" not in run.stderr, (api, run.stderr)
        [document] = run.documents()
        if api in errors:
            assert (run.code, document["kind"], document["error"]) == (2, "error", errors[api]), api
        else:
            assert (run.code, document["kind"]) == (0, "payload"), (api, document)


def test_preflight_says_pi_cannot_build_it(cli: Any, tmp_path: Path) -> None:
    path = _session(tmp_path, CASES["object beside an image"][0])
    run = cli("preflight", "--model", MODELS["anthropic-messages"], "--format", "json", str(path))
    [document] = run.documents()
    assert document == {"kind": "error", "source": str(path),
                        "error": f"{path}: Pi 0.85 cannot build this request: {REPLACE}"}
