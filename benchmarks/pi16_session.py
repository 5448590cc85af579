"""A large session as Pi 1.6 writes it, made from the 100 MB benchmark session (issue 23's fixture).

Pi 1.6 starts every session with a system message and writes `usage` and `context_edit` entries, so its files
are what the context stages' readers must serve as fast as 0.85's. No generator writes 100 MB of 1.6 (the 1.6
generator, scripts/gen16, writes small sessions through Pi's own SessionManager), so this one adds to a 0.85
session, line by line and by a fixed rule (every byte a function of the input), what 1.6's sessions hold in their
shapes (see /work/shared/conformance16/cases/gen16_*.jsonl):

- a leading system message (prompt sections and `toolsAdded`) after the first entry, and a tools-only system
  message before every 40th user message (its tools removed, then added again);
- a `usage` entry (`cache_warm`) after every 8th turn's final answer, and one as the file's last line (the leaf);
- context edits after every 10th turn: an older tool result's output replaced by a short text, every third of
  them a `replacement: null` (the result removed);
- each compaction's `systemMessage` (what 1.6 writes on a compaction).

Entries are inserted only between a line and the next one that continues it (the next line's parent becomes the
new entry), so the file stays clean: unique ids, every parent earlier in the file.
"""

from __future__ import annotations

import sys
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import orjson

SECTIONS = {
    "preamble": "You are a coding assistant running inside pi, a coding agent harness. Help users inspect files, "
                "run commands, and modify code.",
    "tools": "<tools>\n- read: Read file contents\n- bash: Execute bash commands (ls, grep, find, etc.)\n"
             "- edit: Edit a file\n- write: Write a file\n</tools>",
    "guidelines": "Be concise. Prefer reading files before editing them.",
    "cwd": "<cwd>/home/dev/proj</cwd>",
}
TOOLS = [{"name": name, "description": f"The {name} tool.", "parameters": {
    "type": "object", "properties": {"path": {"type": "string"}}, "required": ["path"]}}
    for name in ("read", "bash", "edit", "write", "grep", "ls")]


def _system(sections: Mapping[str, object], timestamp: int, **tools: object) -> dict[str, object]:
    return {"role": "system", "content": "", "sections": sections, **tools, "timestamp": timestamp}


def pi16_session(source: Path, target: Path) -> Path:
    """Write `source` as Pi 1.6 would hold it (see the module's docstring) to `target`; `target`."""
    lines = source.read_bytes().split(b"\n")
    if lines and not lines[-1]:
        lines.pop()
    entries = [orjson.loads(line) for line in lines]
    out: list[bytes] = [lines[0]]
    serial = users = turns = 0
    tool_results: list[str] = []  # ids of tool results on the current chain, newest last
    previous_id: object = None  # the source's line before
    tail: object = None  # the last line written on the chain that line continues

    def insert(entry: dict[str, object], timestamp: object) -> None:
        """Write `entry` continuing the chain (the next line that continues it continues `entry`)."""
        nonlocal serial, tail
        serial += 1
        entry_id = f"z{serial:07x}"  # never a hex id of the source
        out.append(orjson.dumps({"type": entry["type"], "id": entry_id, "parentId": tail, "timestamp": timestamp,
                                 **{k: v for k, v in entry.items() if k != "type"}}))
        tail = entry_id

    for number, entry in enumerate(entries[1:], start=1):
        continues = number > 1 and entry.get("parentId") == previous_id
        if not continues:
            tool_results = []  # another branch: its own chain
        message: Any = entry.get("message") if entry.get("type") == "message" else None
        role = message.get("role") if isinstance(message, dict) else None
        if entry.get("type") == "compaction":
            entry["systemMessage"] = _system(SECTIONS, 1774417700000 + number)
        if role == "user":
            users += 1
            if users % 40 == 0 and continues:  # a tools-only system message before this prompt
                insert({"type": "message", "message": _system({}, message["timestamp"], toolsRemoved=[{"name": "ls"}],
                                                               toolsAdded=TOOLS[5:])}, entry["timestamp"])
        if continues:
            entry["parentId"] = tail
        out.append(orjson.dumps(entry))
        previous_id = tail = entry["id"]
        if number == 1:  # the leading system message, after the session's first entry
            insert({"type": "message", "message": _system(SECTIONS, 1774417700000, toolsAdded=TOOLS)},
                   entry["timestamp"])
        if role == "toolResult":
            tool_results.append(str(entry["id"]))
        if role == "assistant" and message.get("stopReason") == "stop":
            turns += 1
            if turns % 8 == 0:
                insert({"type": "usage", "kind": "cache_warm", "provider": message["provider"],
                        "model": message["model"], "usage": {
                            "input": 10, "output": 5, "cacheRead": 2000, "cacheWrite": 0, "totalTokens": 2015,
                            "cost": {"input": 0, "output": 0, "cacheRead": 0.0006, "cacheWrite": 0, "total": 0.0006}}},
                       entry["timestamp"])
            elif turns % 10 == 5 and len(tool_results) > 4:
                replacement = None if turns % 30 == 5 else {"content": "[output pruned by the extension]"}
                insert({"type": "context_edit", "targetId": tool_results[-5], "replacement": replacement},
                       entry["timestamp"])
    insert({"type": "usage", "kind": "cache_warm", "provider": "anthropic", "model": "claude-sonnet-4-5",
            "usage": {"input": 10, "output": 5, "cacheRead": 0, "cacheWrite": 0, "totalTokens": 15}},
           orjson.loads(out[-1])["timestamp"])
    target.write_bytes(b"\n".join(out) + b"\n")
    return target


if __name__ == "__main__":
    pi16_session(Path(sys.argv[1]), Path(sys.argv[2]))
