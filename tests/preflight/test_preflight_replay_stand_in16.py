"""`preflight --replay` of a request recorded with a model the version's catalog lacks builds it with a model of the
same API. Under Pi 1.6 the representative Codex model of pi-tools' API table (openai-codex/gpt-5.5) is not in the
catalog either: the replay ended in "cannot replay (UnknownModelError ...); please report it" (a sweep of every
command over damaged sessions found it); it now takes the first 1.6 catalog model that speaks the API."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from support.message_sessions import USAGE, write_messages


def _session(tmp_path: Path) -> Path:
    messages = [
        {"role": "user", "content": "hi", "timestamp": 1},
        {"role": "assistant", "content": [{"type": "text", "text": "hello"}], "api": "openai-codex-responses",
         "provider": "openai-codex", "model": "gpt-5.4-unlisted", "stopReason": "stop", "usage": USAGE,
         "timestamp": 2},
    ]
    return write_messages(tmp_path / "s.jsonl", messages)


@pytest.mark.parametrize("pi", ["0.85", "1.6"])
def test_a_codex_request_with_an_unknown_model_is_replayed(cli: Any, tmp_path: Path, pi: str) -> None:
    run = cli("preflight", "--pi", pi, "--replay", str(_session(tmp_path)))
    assert "please report it" not in run.stdout + run.stderr
    assert (f"  not in Pi {pi}'s catalog, checked with its API's rules: openai-codex/gpt-5.4-unlisted "
            "(1 request(s))") in run.stdout
