"""Scrub on a planted corpus of 70+ kinds of secret, each in every place a session stores text: message text,
tool arguments, tool output, bash output, custom entries and system-prompt sections (Pi 1.6's system messages).
Every secret goes, the rest of every line stays as it was (signatures and ids included)."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

from pi_tools.rewrite.scrub import scrub_bytes
from pi_tools.secrets.detectors import Scanner, find_secrets

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from support.secret_corpus import corpus, kind_of  # noqa: E402

SIGNATURE = "EqQBCkYIBxgCKkB" + "sk-ant-api03-" + "A" * 40 + "ghp_" + "b" * 36
ID = "AKIA" + "B" * 16


def _entries(text: str) -> list[dict[str, Any]]:
    """The same text in each place a session stores text."""
    return [
        {"type": "message", "id": "u1", "parentId": None, "message": {"role": "user", "content": [
            {"type": "text", "text": f"please use {text} here"}]}},
        {"type": "message", "id": "a1", "parentId": "u1", "message": {"role": "assistant", "responseId": ID,
            "content": [{"type": "thinking", "thinking": "hm", "thinkingSignature": SIGNATURE},
                        {"type": "toolCall", "id": "call_" + ID, "name": "bash",
                         "arguments": {"command": f"echo '{text}'", "env": {"K": text}}}]}},
        {"type": "message", "id": "r1", "parentId": "a1", "message": {"role": "toolResult", "toolCallId": "call_" + ID,
            "content": [{"type": "text", "text": f"out:\n{text}\n"}], "details": {"stdout": text}}},
        {"type": "message", "id": "b1", "parentId": "r1", "message": {"role": "bashExecution", "command": "cat .env",
                                                                      "output": f"X=1\n{text}\n"}},
        {"type": "custom", "id": "c1", "parentId": "b1", "customType": "notes", "data": {"note": text}},
        {"type": "message", "id": "s1", "parentId": "c1", "message": {  # Pi 1.6: prompt sections in a system message
            "role": "system", "content": "", "sections": {"preamble": "You are a coding assistant.",
                                                          "env": f"<env>\n{text}\n</env>"}, "timestamp": 1}},
    ]


def test_the_corpus_has_60_kinds_and_each_is_found_alone() -> None:
    kinds = {kind_of(key) for key in corpus()}
    assert len(kinds) >= 60
    for key, (value, text) in corpus().items():
        found = find_secrets(text)
        assert [(s.kind, text[s.start:s.end]) for s in found] == [(kind_of(key), value)], key


def test_every_secret_in_every_place_is_redacted_and_nothing_else_changes() -> None:
    header = {"type": "session", "version": 3, "id": "sess", "timestamp": "2026-01-01T00:00:00.000Z", "cwd": "/w"}
    for key, (value, text) in corpus().items():
        lines = [header, *_entries(text)]
        data = ("\n".join(json.dumps(line, separators=(",", ":")) for line in lines) + "\n").encode()
        result = scrub_bytes(data, Scanner())
        out = result.data()
        assert value.encode() not in out, key
        assert json.dumps(value)[1:-1].encode() not in out, key
        marker = f"[REDACTED:{kind_of(key)}]"
        clean = [header, *_entries(text.replace(value, marker))]
        assert [json.loads(line) for line in out.splitlines()] == clean, key
        assert len(result.found) == 8 and {f.kind for f in result.found} == {kind_of(key)}, key
        assert out.splitlines()[0] == data.splitlines()[0]
        assert json.dumps(SIGNATURE).encode() in out and out.count(ID.encode()) == 3


def test_entropy_is_opt_in_and_never_takes_digests_or_uuids() -> None:
    key = "Zq8" + "x7Lm2Pw9Rt4Vb6Nc1Kd3Hs5Jf0Gy"
    text = f'config.auth_key = "{key}"'
    assert find_secrets(text) == []
    found = Scanner(entropy=True).find(text)
    assert [(s.kind, text[s.start:s.end]) for s in found] == [("generic-api-key", key)]
    # A name that says password, secret or API key is enough without --entropy (assigned-secret).
    named = f'config.api_key = "{key}"'
    assert [(s.kind, named[s.start:s.end]) for s in find_secrets(named)] == [("assigned-secret", key)]
    for value in ("9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08",  # sha256
                  "2fd4e1c67a2d28fced849ee1bb76e7391b93eb12",  # sha1 / a commit
                  "0f8fad5b-d9cb-469f-a165-70867728950e"):  # uuid
        assert Scanner(entropy=True).find(f'secret_token = "{value}"') == []


def test_scrub_cli_entropy_option(tmp_path: Path, cli: Any) -> None:
    key = "Zq8" + "x7Lm2Pw9Rt4Vb6Nc1Kd3Hs5Jf0Gy"
    header = {"type": "session", "version": 3, "id": "sess", "timestamp": "2026-01-01T00:00:00.000Z", "cwd": "/w"}
    entry = {"type": "message", "id": "u1", "parentId": None, "timestamp": "2026-01-01T00:00:01.000Z",
             "message": {"role": "user", "content": f'config.auth_key = "{key}"', "timestamp": 1}}
    path = tmp_path / "s.jsonl"
    path.write_text(json.dumps(header) + "\n" + json.dumps(entry) + "\n")
    plain = cli("scrub", str(path), "--check")
    assert (plain.code, plain.stdout) == (0, f"{path}: 0 secret(s) found\n")
    run = cli("scrub", str(path), "--check", "--entropy")
    assert run.code == 1
    assert run.stdout == (f"{path}:2: entry u1: found generic-api-key at $.message.content\n"
                          f"{path}: 1 secret(s) found\n")
