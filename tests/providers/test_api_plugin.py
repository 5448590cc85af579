"""An API added from outside the package: a folder with an adapter (providers.contract.ApiAdapter), one row of the
API table registered through the ``pi_tools.apis`` entry point group, and nothing changed in pi_tools.

The toy API builds ``{"model", "messages": [{role, text}]}`` (a tool result's role is ``tool``, so the contract's
default chat-style mapping maps its items back), borrows catalog models (its row's ``borrows_models``: --model may
name any catalog model, else the session's or the row's representative model is used) and has one preflight rule.
The real CLI runs in a subprocess with the plug-in's folder on PYTHONPATH.
"""

from __future__ import annotations

import os
import re
from pathlib import Path
from typing import Any

import pytest

PLUGIN = {
    "toyapi/__init__.py": '''
from pi_tools.providers.table import ApiRow

ROW = ApiRow("toy", "toyapi", "messages", "anthropic/claude-sonnet-4-5", "A toy API", streams=False,
             borrows_models=True)
''',
    "toyapi/adapter.py": '''
from pi_tools.providers.contract import ApiAdapter


def _text(content):
    if isinstance(content, str):
        return content
    return " ".join(block.get("text", "") for block in content or []
                    if isinstance(block, dict) and block.get("type") == "text")


class ToyAdapter(ApiAdapter):
    rule_modules = ("toyapi.rules",)

    def build_payload(self, model, context, options):
        roles = {"toolResult": "tool"}
        return {"model": model["id"], "messages": [
            {"role": roles.get(m.get("role"), m.get("role")), "text": _text(m.get("content"))}
            for m in context.get("messages") or []]}


ADAPTER = ToyAdapter()
''',
    "toyapi/rules.py": '''
from pi_tools.providers.rulebook.rules import Hit, rule


@rule("toy-empty-text", "warning", "A message without text", ("toy",), "items", "empty text",
      "the toy API's documentation", "Write something.", "The toy API refuses a message whose text is empty.")
def empty_text(view):
    for index, item in enumerate(view.items[:view.end]):
        if not item.get("text"):
            yield Hit("toy-empty-text", view.path(index, "text"), "empty text")
''',
    "toyapi-0.dist-info/METADATA": "Metadata-Version: 2.1\nName: toyapi\nVersion: 0\n",
    "toyapi-0.dist-info/entry_points.txt": "[pi_tools.apis]\ntoy = toyapi:ROW\n",
}

USAGE = '"usage":{"input":10,"output":5,"cacheRead":0,"cacheWrite":0,"totalTokens":15,"cost":{"input":0,"output":0,' \
        '"cacheRead":0,"cacheWrite":0,"total":0}}'
SESSION = "\n".join([
    '{"type":"session","version":3,"id":"toy-session","timestamp":"2026-01-01T00:00:00.000Z","cwd":"/tmp"}',
    '{"type":"model_change","id":"m1","parentId":null,"timestamp":"2026-01-01T00:00:01.000Z",'
    '"provider":"anthropic","modelId":"claude-sonnet-4-5"}',
    '{"type":"message","id":"u1","parentId":"m1","timestamp":"2026-01-01T00:00:02.000Z",'
    '"message":{"role":"user","content":"Read a.txt","timestamp":1767225602000}}',
    '{"type":"message","id":"a1","parentId":"u1","timestamp":"2026-01-01T00:00:03.000Z","message":{"role":"assistant",'
    '"content":[{"type":"text","text":"Reading."},{"type":"toolCall","id":"toolu_1","name":"read",'
    '"arguments":{"path":"a.txt"}}],"api":"anthropic-messages","provider":"anthropic","model":"claude-sonnet-4-5",'
    f'{USAGE},"stopReason":"toolUse","timestamp":1767225603000}}}}',
    '{"type":"message","id":"r1","parentId":"a1","timestamp":"2026-01-01T00:00:04.000Z","message":{"role":"toolResult",'
    '"toolCallId":"toolu_1","toolName":"read","content":[{"type":"text","text":""}],"isError":false,'
    '"timestamp":1767225604000}}',
    '{"type":"message","id":"a2","parentId":"r1","timestamp":"2026-01-01T00:00:05.000Z","message":{"role":"assistant",'
    '"content":[{"type":"text","text":"It was empty."}],"api":"anthropic-messages","provider":"anthropic",'
    f'"model":"claude-sonnet-4-5",{USAGE},"stopReason":"stop","timestamp":1767225605000}}}}',
]) + "\n"

TOY_ITEMS = [{"role": "user", "text": "Read a.txt"}, {"role": "assistant", "text": "Reading."},
             {"role": "tool", "text": ""}, {"role": "assistant", "text": "It was empty."}]


@pytest.fixture
def plugin(tmp_path: Path) -> tuple[dict[str, str], str]:
    """(environment with the plug-in on PYTHONPATH, path of the session)."""
    folder = tmp_path / "plugins"
    for name, text in PLUGIN.items():
        path = folder / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text.lstrip("\n"))
    session = tmp_path / "toy.jsonl"
    session.write_text(SESSION)
    paths = [str(folder), os.environ.get("PYTHONPATH", "")]
    return {"PYTHONPATH": os.pathsep.join(p for p in paths if p)}, str(session)


def test_payload_of_a_plugin_api(cli: Any, plugin: tuple[dict[str, str], str]) -> None:
    env, session = plugin
    expected = [{"kind": "payload", "source": session, "pi": "0.85", "api": "toy", "model": "openai/gpt-5.1",
                 "payload": {"model": "gpt-5.1", "messages": TOY_ITEMS}}]
    run = cli("payload", "--api", "toy", "--model", "openai/gpt-5.1", session, env=env)
    note = (f"pi-tools: {session}: note: the request holds no system prompt and no tools: the session does not "
            "record them; pass --system-prompt pi (Pi's own) or --system-prompt TEXT and --tools-file FILE\n")
    assert (run.code, run.stderr, run.documents()) == (0, note, expected)
    run = cli("payload", "--api", "toy", session, env=env)  # the session's model, borrowed
    assert run.documents()[0]["model"] == "anthropic/claude-sonnet-4-5"
    assert run.documents()[0]["payload"]["messages"] == TOY_ITEMS


def test_preflight_lists_the_plugin_rule_after_the_builtin_apis_rules(cli: Any,
                                                                      plugin: tuple[dict[str, str], str]) -> None:
    env, session = plugin
    run = cli("preflight", "--list-rules", env=env)
    assert run.code == 0, run.stderr
    rules = dict(re.findall(r"^(\S+)  (?:error|warning|info)  .*  \[(.*)\]$", run.stdout, re.MULTILINE))
    builtin = cli("preflight", "--list-rules")
    names = re.findall(r"^(\S+)  (?:error|warning|info)  ", builtin.stdout, re.MULTILINE)
    # the toy folder's rule comes after every built-in API's, before the rules of every API (context-window...)
    first_common = names.index("context-window")
    assert list(rules) == [*names[:first_common], "toy-empty-text", *names[first_common:]]
    assert rules["toy-empty-text"] == "toy"
    assert "toy" in rules["context-window"].split(", ")


def test_render_maps_the_plugin_items_back_to_messages(cli: Any, plugin: tuple[dict[str, str], str],
                                                       tmp_path: Path) -> None:
    env, session = plugin
    out = tmp_path / "preview.html"
    run = cli("render", session, "--api", "toy", "-o", str(out), env=env)
    assert run.code == 0, run.stderr
    html = out.read_text()
    rows = html[html.index("<tbody>"):]
    found = re.findall(r'<div class="ids">entry (\w+) · line \d+</div>|<div class="loc">(messages\[\d\])</div>',
                       rows)
    assert [entry or location for entry, location in found] == [
        "u1", "messages[0]", "a1", "messages[1]", "r1", "messages[2]", "a2", "messages[3]"]
    assert "not located" not in html


def test_visibility_of_a_plugin_api(cli: Any, plugin: tuple[dict[str, str], str]) -> None:
    env, session = plugin
    run = cli("visibility", session, "--api", "toy", "--format", "json", env=env)
    assert run.code == 0, run.stderr
    settings = {"context": "settings-entry", "model": "settings-entry", "tui": "settings-entry"}
    rows = [("m1", 2, "model_change", None, False, settings), ("u1", 3, "message", "user", True, {}),
            ("a1", 4, "message", "assistant", True, {}), ("r1", 5, "message", "toolResult", True, {}),
            ("a2", 6, "message", "assistant", True, {})]
    assert run.documents() == [
        {"kind": "visibility", "source": session, "pi": "0.85", "entryId": entry, "line": line, "type": kind, "role": role,
         "stored": True, "context": shown, "model": shown, "tui": shown, "api": "toy", "reasons": reasons}
        for entry, line, kind, role, shown, reasons in rows]
