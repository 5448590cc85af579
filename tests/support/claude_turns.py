"""The turns of a conversation, read two independent ways for the tests: from a Claude Code transcript (its
chains of records, each API response's records joined by message id) and from pi-tools' rebuilt context of an
imported file. Equal lists mean every user, assistant and tool turn arrived, in order."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

Turn = tuple[str, Any]


def _text(content: Any) -> str:
    if isinstance(content, str):
        return content
    return "\n".join(block.get("text", "") for block in content if block.get("type") == "text")


def _assistant_blocks(blocks: list[dict[str, Any]], *, pi: bool) -> list[tuple[str, str]]:
    out = []
    for block in blocks:
        kind = block.get("type")
        if kind == "text":
            out.append(("text", block["text"]))
        elif kind in ("tool_use", "toolCall"):
            out.append(("call", block["id"]))
        elif kind == "thinking" and not block.get("redacted"):
            out.append(("thinking", block["thinking"]))
    return out


def source_chains(path: Path) -> dict[str, list[Turn]]:
    """Chain (`main`, or the sidechain's first record uuid) → its turns in file order (no forks assumed)."""
    chains: dict[str, list[Turn]] = {}
    chain_of: dict[str, str] = {}
    last_response: dict[str, str] = {}
    for raw in path.read_text().splitlines():
        record = json.loads(raw)
        if record.get("type") not in ("user", "assistant"):
            continue
        parent = record.get("parentUuid")
        key = "main" if not record.get("isSidechain") else chain_of.get(parent, record["uuid"])
        chain_of[record["uuid"]] = key
        turns = chains.setdefault(key, [])
        message = record["message"]
        if record["type"] == "assistant":
            blocks = _assistant_blocks(message["content"], pi=False)
            if last_response.get(key) == message.get("id") and turns and turns[-1][0] == "assistant":
                turns[-1] = ("assistant", turns[-1][1] + blocks)
            else:
                turns.append(("assistant", blocks))
            last_response[key] = message.get("id")
            continue
        last_response[key] = ""
        content = message["content"]
        if isinstance(content, str):
            turns.append(("user", content))
            continue
        results = [block for block in content if block.get("type") == "tool_result"]
        turns.extend(("toolResult", block["tool_use_id"]) for block in results)
        if len(results) < len(content):
            turns.append(("user", _text([block for block in content if block.get("type") != "tool_result"])))
    return chains


def pi_turns(context: dict[str, Any]) -> list[Turn]:
    """The turns of a `pi-tools context` document's messages."""
    turns: list[Turn] = []
    for message in context["messages"]:
        role = message["role"]
        if role == "user":
            turns.append(("user", _text(message["content"])))
        elif role == "toolResult":
            turns.append(("toolResult", message["toolCallId"]))
        elif role == "assistant":
            turns.append(("assistant", _assistant_blocks(message["content"], pi=True)))
        else:
            turns.append((role, None))
    return turns


def source_usage(paths: list[Path]) -> dict[str, int]:
    """The token totals a transcript records: each API response counted once (its last record's usage)."""
    last: dict[str, dict[str, int]] = {}
    for path in paths:
        for raw in path.read_text().splitlines():
            record = json.loads(raw)
            message = record.get("message")
            if record.get("type") != "assistant" or not isinstance(message, dict) or \
                    message.get("model") == "<synthetic>":
                continue
            usage = message.get("usage") or {}
            last[message.get("id") or record["uuid"]] = {
                "input": usage.get("input_tokens", 0), "output": usage.get("output_tokens", 0),
                "cacheRead": usage.get("cache_read_input_tokens", 0),
                "cacheWrite": usage.get("cache_creation_input_tokens", 0)}
    return {key: sum(counts[key] for counts in last.values()) for key in ("input", "output", "cacheRead",
                                                                          "cacheWrite")}
