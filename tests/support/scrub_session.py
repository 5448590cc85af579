"""A session with a secret of every kind planted in every kind of field, across two branches.

Deterministic (no randomness, fixed timestamps), so the reference oracle's digest of the scrubbed file can be
recorded once (tests/rewrite/test_scrub.py) and CI needs no Node.
"""

from __future__ import annotations

import hashlib
import json
from typing import Any


def _chars(seed: str, length: int, alphabet: str = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789") -> str:
    out = []
    counter = 0
    while len(out) < length:
        digest = hashlib.sha256(f"{seed}:{counter}".encode()).digest()
        out.extend(alphabet[b % len(alphabet)] for b in digest)
        counter += 1
    return "".join(out[:length])


def _hex(seed: str, length: int) -> str:
    return _chars(seed, length, "0123456789abcdef")


def planted() -> dict[str, tuple[str, str]]:
    """kind -> (the secret value itself, the text it is planted in)."""
    values = {
        "private-key": "-----BEGIN RSA PRIVATE KEY-----\nMIIE" + _chars("pk", 60) + "\n-----END RSA PRIVATE KEY-----",
        "anthropic-api-key": "sk-ant-api03-" + _chars("ant", 40),
        "openrouter-api-key": "sk-or-v1-" + _hex("or", 64),
        "openai-api-key": "sk-proj-" + _chars("oai", 48),
        "aws-access-key-id": "AKIA" + _chars("aws", 16, "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567"),
        "aws-secret-access-key": _chars("awss", 40, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJ0123456789/+"),
        "github-token": "ghp_" + _chars("gh", 36),
        "gitlab-token": "glpat-" + _chars("gl", 20),
        "slack-token": "xoxb-" + _hex("sl", 12) + "-" + _chars("sl2", 24),
        "google-api-key": "AIza" + _chars("goog", 35),
        "google-oauth-client-secret": "GOCSPX-" + _chars("gocs", 28),
        "stripe-key": "sk_live_" + _chars("st", 24),
        "huggingface-token": "hf_" + _chars("hf", 34),
        "groq-api-key": "gsk_" + _chars("groq", 52),
        "xai-api-key": "xai-" + _chars("xai", 80),
        "npm-token": "npm_" + _chars("npm", 36),
        "pypi-token": "pypi-AgEIcHlwaS5vcmc" + _chars("pypi", 70),
        "sendgrid-api-key": "SG." + _chars("sg1", 22) + "." + _chars("sg2", 43),
        "digitalocean-token": "dop_v1_" + _hex("do", 64),
        "telegram-bot-token": "123456789:AA" + _chars("tg", 33),
        "azure-storage-key": _chars("az", 86, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789+/") + "==",
        "jwt": "eyJhbGciOiJIUzI1NiJ9.eyJ" + _chars("jwt1", 30) + "." + _chars("jwt2", 43),
        "bearer-token": _chars("bearer", 32),
        "url-password": "p4ss-" + _chars("url", 12),
    }
    wrappers = {
        "aws-secret-access-key": "export AWS_SECRET_ACCESS_KEY={}",
        "azure-storage-key": "DefaultEndpointsProtocol=https;AccountName=acct;AccountKey={};EndpointSuffix=core",
        "bearer-token": "curl -H 'Authorization: Bearer {}' https://api.example.com",
        "url-password": "git clone https://deploy:{}@git.example.com/org/repo.git",
    }
    return {kind: (value, wrappers.get(kind, "use {} now").format(value)) for kind, value in values.items()}


# Opaque provider fields that look like secrets (they even contain secret-shaped text): never changed.
SIGNATURE = "EqQBCkYIBxgCKkB" + _chars("sig", 60) + " sk-ant-api03-" + _chars("sigant", 40)
TEXT_SIGNATURE = json.dumps({"v": 1, "id": "msg_" + _chars("ts", 20), "token": "ghp_" + _chars("tsgh", 36)})
THOUGHT_SIGNATURE = "CiQB" + _chars("thought", 80) + "AKIA" + _chars("th", 16, "ABCDEFGHIJKLMNOPQRSTUVWXYZ")
RESPONSE_ID = "resp_" + _chars("resp", 40)
ENCRYPTED = json.dumps({"type": "reasoning", "id": "rs_1", "encrypted_content": "gAAAA" + _chars("enc", 120),
                        "summary": []})


def session_lines() -> list[dict[str, Any]]:
    every = " ; ".join(text for _, text in planted().values())

    def s() -> str:
        """Every kind of secret, in this field."""
        return every

    stamp = "2025-06-01T10:00:00.000Z"
    usage = {"input": 10, "output": 5, "cacheRead": 0, "cacheWrite": 0, "totalTokens": 15,
             "cost": {"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0, "total": 0}}

    def entry(entry_id: str, parent: str | None, entry_type: str, **fields: Any) -> dict[str, Any]:
        return {"type": entry_type, "id": entry_id, "parentId": parent, "timestamp": stamp, **fields}

    def assistant(entry_id: str, parent: str, n: int) -> dict[str, Any]:
        return entry(entry_id, parent, "message", message={
            "role": "assistant", "content": [
                {"type": "thinking", "thinking": f"thinking about {s()}", "thinkingSignature": SIGNATURE},
                {"type": "thinking", "thinking": "", "thinkingSignature": ENCRYPTED, "redacted": True},
                {"type": "text", "text": f"answer {s()}", "textSignature": TEXT_SIGNATURE},
                {"type": "toolCall", "id": f"call_{n}", "name": "bash",
                 "arguments": {"command": s(), "env": {"TOKEN": s()}, "list": [s()]},
                 "thoughtSignature": THOUGHT_SIGNATURE},
            ], "api": "anthropic-messages", "provider": "anthropic", "model": "claude-sonnet-4-5",
            "usage": usage, "stopReason": "toolUse", "timestamp": 1748772000000 + n, "responseId": RESPONSE_ID})

    def result(entry_id: str, parent: str, n: int) -> dict[str, Any]:
        return entry(entry_id, parent, "message", message={
            "role": "toolResult", "toolCallId": f"call_{n}", "toolName": "bash",
            "content": [{"type": "text", "text": f"output: {s()}"}],
            "details": {"stdout": s(), "nested": [{"deep": s()}]}, "isError": False,
            "timestamp": 1748772000100 + n})

    return [
        {"type": "session", "version": 3, "id": "0197a1b2-scrub-test", "timestamp": stamp, "cwd": "/home/u/proj"},
        entry("a0000001", None, "model_change", provider="anthropic", modelId="claude-sonnet-4-5"),
        entry("a0000002", "a0000001", "message", message={"role": "user", "content": f"please {s()}",
                                                          "timestamp": 1748772000000}),
        assistant("a0000003", "a0000002", 1),
        result("a0000004", "a0000003", 1),
        entry("a0000005", "a0000004", "message", message={
            "role": "bashExecution", "command": s(), "output": s(), "exitCode": 0, "cancelled": False,
            "truncated": False, "timestamp": 1748772000200}),
        entry("a0000006", "a0000005", "custom", customType="ext", data={"config": s(), "n": [1, s()]}),
        {"type": "custom_message", "customType": "note", "content": [{"type": "text", "text": s()}], "display": True,
         "details": {"why": s()}, "id": "a0000007", "parentId": "a0000006", "timestamp": stamp},
        entry("a0000008", "a0000007", "compaction", summary=f"summary {s()}", firstKeptEntryId="a0000005",
              tokensBefore=1000, details={"readFiles": [s()], "modifiedFiles": []}),
        entry("a0000009", "a0000008", "message", message={"role": "user", "content": [
            {"type": "text", "text": s()}], "timestamp": 1748772000300}),
        assistant("a000000a", "a0000009", 2),
        result("a000000b", "a000000a", 2),
        # An abandoned branch from a0000004, and its summary on the active branch.
        entry("b0000001", "a0000004", "message", message={"role": "user", "content": s(), "timestamp": 1748772000400}),
        assistant("b0000002", "b0000001", 3),
        result("b0000003", "b0000002", 3),
        entry("a000000c", "a000000b", "branch_summary", fromId="b0000003", summary=f"branch: {s()}",
              details={"files": [s()]}),
        entry("a000000d", "a000000c", "session_info", name=f"session {s()}"),
        entry("a000000e", "a000000d", "label", targetId="a0000002", label=s()),
        entry("a000000f", "a000000e", "message", message={"role": "user", "content": f"last {s()}",
                                                          "timestamp": 1748772000500}),
    ]


def session_bytes() -> bytes:
    return b"".join(json.dumps(line, ensure_ascii=False, separators=(",", ":")).encode() + b"\n"
                    for line in session_lines())
