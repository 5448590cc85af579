"""Malformed user content and assistant items under Pi 1.6, as Pi 1.6 answers (recorded with its oracle:
`../shared/oracle16/oracle CASE`; a differential fuzz run found the first three kinds).

- 1.6's Chat Completions keeps a user message's text parts only where `item.text.length > 0` before it sanitizes
  them: a `text` that is `[]`, a number or an object without `length` is dropped, not "text.replace is not a
  function"; one that is null or missing fails on `length`.
- Its user-content conversion calls `filter` first: a number there is "msg.content.filter is not a function".
- Every 1.6 request estimates its context first (the max-tokens clamp), over the messages as stored: an assistant
  item that is an array or a string fails there, although the conversion would spread or skip it; so does a user
  content that is no list (`content is not iterable`) after the last usage the estimate starts from.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from support.message_sessions import USAGE, write_messages

COMPLETIONS = ("openai-completions", "groq/openai/gpt-oss-120b")
ANTHROPIC = ("anthropic-messages", "anthropic/claude-sonnet-4-5")
NEXT = {"role": "user", "content": [{"type": "text", "text": "next"}]}
BUILT = [{"role": "user", "content": "hi"}, {"role": "assistant", "content": "ok"}, NEXT]
"""The Chat Completions messages Pi 1.6 sends where the malformed part is dropped (no system prompt given)."""
REPLACE = "text.replace is not a function"
UNDEFINED_LENGTH = "Cannot read properties of undefined (reading 'length')"


def _session(tmp_path: Path, user: Any, assistant: list[Any] | None = None, before_anchor: bool = False) -> Path:
    """A user turn, an answer (whose usage the estimate starts from unless `assistant` is given: then it reports
    none), then the user content under test; with `before_anchor` the content under test comes first instead."""
    answer = {"role": "assistant", "content": assistant or [{"type": "text", "text": "ok"}],
              "api": "anthropic-messages", "provider": "anthropic", "model": "claude-sonnet-4-5", "stopReason": "stop",
              "usage": USAGE if assistant is None else {**USAGE, "input": 0, "output": 0, "totalTokens": 0},
              "timestamp": 2}
    first, last = (user, "next") if before_anchor else ("hi", user)
    messages = [{"role": "user", "content": first, "timestamp": 1}, answer,
                {"role": "user", "content": last, "timestamp": 3}]
    return write_messages(tmp_path / "s.jsonl", messages)


def _answer(cli: Any, path: Path, target: tuple[str, str]) -> Any:
    run = cli("payload", "--pi", "1.6", "--api", target[0], "--model", target[1], str(path))
    document = json.loads(run.stdout.splitlines()[-1])
    return document["error"] if document["kind"] == "error" else document["payload"]["messages"]


CASES: dict[str, tuple[Any, Any, Any]] = {
    # (the last user content, Pi 1.6's Chat Completions messages or error, its Anthropic error)
    "text []": ([{"type": "text", "text": []}, {"type": "text", "text": "next"}], BUILT, REPLACE),
    "text a number": ([{"type": "text", "text": 5}, {"type": "text", "text": "next"}], BUILT, REPLACE),
    "text an object": ([{"type": "text", "text": {"a": 1}}, {"type": "text", "text": "next"}], BUILT, REPLACE),
    "every part dropped": ([{"type": "text", "text": 7}], BUILT[:2], REPLACE),
    "text an object with a length": ([{"type": "text", "text": {"length": 2}}], REPLACE, REPLACE),
    "text an object with a hex length": ([{"type": "text", "text": {"length": "0x1"}}], REPLACE, REPLACE),
    "text ['x']": ([{"type": "text", "text": ["x"]}], REPLACE, REPLACE),
    "text null": ([{"type": "text", "text": None}], "Cannot read properties of null (reading 'length')",
                  "Cannot read properties of null (reading 'length')"),
    "text missing": ([{"type": "text"}], UNDEFINED_LENGTH, UNDEFINED_LENGTH),
    "content a number": (5, "content is not iterable", "content is not iterable"),
    "content an object": ({"a": 1}, "content is not iterable", "content is not iterable"),
}


@pytest.mark.parametrize("case", list(CASES))
def test_a_malformed_user_text_part(cli: Any, tmp_path: Path, case: str) -> None:
    content, completions, anthropic = CASES[case]
    path = _session(tmp_path, content)
    assert _answer(cli, path, COMPLETIONS) == completions
    assert _answer(cli, path, ANTHROPIC) == anthropic


def test_a_user_content_the_estimate_does_not_reach_fails_on_filter(cli: Any, tmp_path: Path) -> None:
    path = _session(tmp_path, 5, before_anchor=True)
    assert _answer(cli, path, COMPLETIONS) == "msg.content.filter is not a function"
    assert _answer(cli, path, ANTHROPIC) == "msg.content.map is not a function"


@pytest.mark.parametrize("item", [[{"type": "text", "text": "x"}], "abc"])
def test_an_assistant_item_the_estimate_cannot_measure(cli: Any, tmp_path: Path, item: Any) -> None:
    path = _session(tmp_path, "next", assistant=[item])
    assert _answer(cli, path, COMPLETIONS) == UNDEFINED_LENGTH
    assert _answer(cli, path, ANTHROPIC) == UNDEFINED_LENGTH
