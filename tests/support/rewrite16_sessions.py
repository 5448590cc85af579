"""Pi 1.6 sessions made for the rewrites under `--pi 1.6` (tests/rewrite/test_rewrite16.py): one damage each,
built as Pi 1.6 writes entries (a leading system message with prompt sections and tool schemas, `usage` entries,
`context_edit` entries), with explicit ids and parents, on the helpers of support.rewrite_sessions."""

from __future__ import annotations

import base64
from typing import Any

from support.rewrite_sessions import _entry, assistant, call, dump, result, text, user

SECRET = "sk-ant-api03-" + "A1b2C3d4E5f6G7h8I9j0" * 4 + "-AAAAAAAA"
"""An Anthropic API key of the documented shape (scrub's detectors find it)."""


def system(entry_id: str, parent: str | None, sections: dict[str, Any] | None = None,
           tools: list[dict[str, Any]] | None = None, removed: list[str] | None = None) -> dict[str, Any]:
    message: dict[str, Any] = {"role": "system", "content": ""}
    if sections is not None:
        message["sections"] = sections
    if tools is not None:
        message["toolsAdded"] = tools
    if removed is not None:
        message["toolsRemoved"] = removed
    message["timestamp"] = 1
    return _entry("message", entry_id, parent, message=message)


def tool(name: str, description: str = "Execute bash commands", extra: dict[str, Any] | None = None) -> dict[str, Any]:
    properties = {"command": {"type": "string", "description": "The command to run"}, **(extra or {})}
    return {"name": name, "description": description,
            "parameters": {"type": "object", "properties": properties, "required": ["command"]}}


PROMPT = {"preamble": "You are a coding assistant running inside pi.", "tools": "<tools>\n- bash\n- read\n</tools>",
          "cwd": "<cwd>\n/w\n</cwd>"}


def usage(entry_id: str, parent: str | None, note: str | None = None) -> dict[str, Any]:
    fields: dict[str, Any] = {"kind": "cache_warm", "provider": "anthropic", "model": "claude-sonnet-4-5",
                              "usage": {"input": 3, "output": 1, "cacheRead": 2000, "cacheWrite": 0,
                                        "totalTokens": 2004, "cost": {"input": 0, "output": 0, "cacheRead": 0.0006,
                                                                      "cacheWrite": 0, "total": 0.0006}}}
    if note is not None:
        fields["note"] = note
    return {**_entry("usage", entry_id, parent), **fields}


def edit(entry_id: str, parent: str | None, target: str, content: Any = None, *, null: bool = False) -> dict[str, Any]:
    return _entry("context_edit", entry_id, parent, targetId=target,
                  replacement=None if null else {"content": content})


def image(kb: int) -> dict[str, Any]:
    return {"type": "image", "data": base64.b64encode(b"\x89PNG" + b"\x00" * (kb * 1024)).decode(),
            "mimeType": "image/png"}


# A batch whose results have a system message (a section change), a usage entry, a context edit and a steering
# user message stored between them: Pi 1.6 holds the system message until the batch is done and the other two
# give no message, so only the user message interrupts the batch.
INTERLEAVED16 = [
    system("e0", None, PROMPT, [tool("bash"), tool("read", "Read a file")]),
    user("e1", "e0", "fix the build"),
    assistant("e2", "e1", [text("looking"), call("call_1"), call("call_2", "read", {"path": "a.py"})]),
    result("e3", "e2", "call_1"),
    system("e4", "e3", {"cwd": "<cwd>\n/w/sub\n</cwd>"}),
    usage("e5", "e4"),
    edit("e6", "e5", "e1", "fix the build, please"),
    user("e7", "e6", "also check the docs"),
    result("e8", "e7", "call_2", "read"),
    assistant("e9", "e8", [text("done")], stop="stop"),
    usage("e10", "e9", "extension override"),
]
# Only held and silent entries between the results, the results out of call order: they are put in call order,
# the system message, usage entry and edit stay where they are.
OUT_OF_ORDER16 = [
    system("e0", None, PROMPT, [tool("bash")]),
    user("e1", "e0", "go"),
    assistant("e2", "e1", [call("call_1"), call("call_2")]),
    result("e3", "e2", "call_2"),
    system("e4", "e3", None, [tool("grep", "Search files")]),
    edit("e5", "e4", "e3", "output of call_2, shortened"),
    result("e6", "e5", "call_1"),
    assistant("e7", "e6", [text("ok")], stop="stop"),
]
# Calls without results: one never answered (a usage entry is the leaf below the batch), one whose result a null
# context edit omits (Pi 1.6 sends the call without it).
ORPHANS16 = [
    system("e0", None, PROMPT, [tool("bash")]),
    user("e1", "e0", "go"),
    assistant("e2", "e1", [call("call_1"), call("call_2")]),
    result("e3", "e2", "call_1"),
    edit("e4", "e3", "e3", null=True),
    usage("e5", "e4"),
]
# Malformed calls whose results context edits change: the results go, and the edits that targeted them follow
# (one of them is the last line, Pi's leaf, so its parent becomes the last line).
MALFORMED16 = [
    system("e0", None, PROMPT, [tool("bash")]),
    user("e1", "e0", "go"),
    assistant("e2", "e1", [text("calling"), call("", "read", {}), call("call_2")]),
    result("e3", "e2", ""),
    result("e4", "e3", "call_2"),
    edit("e5", "e4", "e3", "no output"),
    edit("e6", "e5", "e4", "output of call_2, edited"),
    assistant("e7", "e6", [text("done")], stop="stop"),
    edit("e8", "e7", "e3", null=True),
]
# A failed turn at the leaf that an edit standing before it on the path targets: the turn goes, the edit follows,
# and the user message before them is the leaf again.
FAILED16 = [
    system("e0", None, PROMPT, [tool("bash")]),
    user("e1", "e0", "hello"),
    assistant("e2", "e1", [text("hi")], stop="stop"),
    user("e3", "e2", "write the report"),
    edit("e4", "e3", "e5", "a shorter failure"),
    assistant("e5", "e4", [], stop="error", errorMessage="overloaded_error: Overloaded"),
]
# Large images and outputs in every place Pi 1.6 keeps content: a tool result, a user message, an edit's
# replacement of a tool result (string and blocks) and of a user message, and a system message whose prompt
# section and tool schema are long (never shortened).
BIG16 = [
    system("e0", None, {**PROMPT, "skills": "<skills>" + "s" * 9000 + "</skills>"},
           [tool("bash", "Execute bash commands. " + "d" * 9000)]),
    user("e1", "e0", "look at this"),
    _entry("message", "e2", "e1", message={"role": "user", "content": [text("screenshot"), image(40)],
                                            "timestamp": 1}),
    assistant("e3", "e2", [call("call_1"), call("call_2")]),
    result("e4", "e3", "call_1") | {"message": {"role": "toolResult", "toolCallId": "call_1", "toolName": "bash",
                                                "content": [text("line\n" * 3000)], "isError": False,
                                                "timestamp": 3}},
    result("e5", "e4", "call_2"),
    edit("e6", "e5", "e4", "short again"),
    edit("e7", "e6", "e5", "x" * 12000),
    edit("e8", "e7", "e2", [text("the screenshot, again"), image(30)]),
    edit("e9", "e8", "e1", [text("y" * 12000)]),
    assistant("e10", "e9", [text("seen")], stop="stop"),
    usage("e11", "e10"),
]
# Secrets in every place Pi 1.6 stores text: a prompt section, a tool's description and parameter schema, a
# removed tool's name, an edit's replacement (string and blocks), a usage entry's note, a compaction's
# systemMessage, and the ordinary places.
SECRETS16 = [
    system("e0", None, {**PROMPT, "env": f"<env>ANTHROPIC_API_KEY={SECRET}</env>"},
           [tool("bash", f"Execute bash commands (key {SECRET})",
                 {"token": {"type": "string", "default": SECRET, "description": "the token"}})]),
    user("e1", "e0", f"my key is {SECRET}"),
    assistant("e2", "e1", [text("noted"), call("call_1", "bash", {"command": f"echo {SECRET}"})]),
    result("e3", "e2", "call_1"),
    edit("e4", "e3", "e3", f"output with {SECRET}"),
    edit("e5", "e4", "e1", [text(f"edited: {SECRET}")]),
    usage("e6", "e5", f"warmed with {SECRET}"),
    system("e7", "e6", {"env": None}, None, [f"tool-{SECRET}"]),
    _entry("compaction", "e8", "e7", summary=f"the user shared {SECRET}", firstKeptEntryId="e5", tokensBefore=900,
           systemMessage={"role": "system", "content": "", "sections": {**PROMPT, "env": f"<env>{SECRET}</env>"},
                          "toolsAdded": [tool("bash")], "timestamp": 5}),
    user("e9", "e8", "go on"),
]

MADE16 = {"interleaved16": INTERLEAVED16, "out_of_order16": OUT_OF_ORDER16, "orphans16": ORPHANS16,
          "malformed16": MALFORMED16, "failed16": FAILED16, "big16": BIG16, "secrets16": SECRETS16}

__all__ = ["MADE16", "SECRET", "dump"]
