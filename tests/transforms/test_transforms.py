"""Transforms (the transformContext stage): each keeps tool calls with their results, and behaves as named."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import pytest

from pi_tools.messages import RoleRegistry, RoleSpec, convert_to_llm, default_registry
from pi_tools.messages.builtin_roles import BUILTIN_ROLES
from pi_tools.pipeline.stages import StageInput, run_stage
from pi_tools.transforms import BUILTIN_TRANSFORMS, TransformError, checked, load_plugin
from pi_tools.transforms.units import split_units

from support.golden import CASES, expected

PLUGINS = Path(__file__).resolve().parents[1] / "data" / "plugins"


def call(call_id: str, name: str = "bash") -> dict[str, Any]:
    return {"type": "toolCall", "id": call_id, "name": name, "arguments": {"command": "ls"}}


def transcript() -> list[dict[str, Any]]:
    return [
        {"role": "compactionSummary", "summary": "earlier work", "tokensBefore": 10, "timestamp": 1},
        {"role": "user", "content": "first sk-AAAA1111", "timestamp": 2},
        {"role": "assistant", "content": [call("c1"), call("c2")], "stopReason": "toolUse", "timestamp": 3},
        {"role": "toolResult", "toolCallId": "c1", "toolName": "bash", "isError": False, "timestamp": 4,
         "content": [{"type": "text", "text": "out sk-BBBB2222"}, {"type": "image", "data": "AA", "mimeType": "image/png"}]},
        {"role": "toolResult", "toolCallId": "c2", "toolName": "bash", "isError": False, "timestamp": 5,
         "content": [{"type": "text", "text": "ok"}]},
        {"role": "bashExecution", "command": "echo sk-CCCC3333", "output": "", "exitCode": 0, "cancelled": False,
         "truncated": False, "timestamp": 6},
        {"role": "user", "content": [{"type": "image", "data": "AA", "mimeType": "image/png"},
                                     {"type": "image", "data": "BB", "mimeType": "image/png"},
                                     {"type": "text", "text": "what is this?"}], "timestamp": 7},
        {"role": "assistant", "content": [{"type": "text", "text": "a cat"}], "stopReason": "stop", "timestamp": 8},
        {"role": "custom", "customType": "memo", "content": "remember", "display": False, "timestamp": 9},
    ]


def apply(name: str, value: Any, messages: list[Any]) -> list[Any]:
    return checked(name, BUILTIN_TRANSFORMS[name].factory(value))(messages)


def test_units_keep_calls_with_results() -> None:
    units = split_units(transcript())
    assert [len(unit) for unit in units] == [1, 1, 3, 1, 1, 1, 1]


def test_keep_last_keeps_turns_and_leading_summary() -> None:
    kept = apply("keep-last", 2, transcript())
    assert [m["role"] for m in kept] == ["compactionSummary", "user", "assistant", "custom"]
    assert kept[1]["content"][-1]["text"] == "what is this?"
    kept_three = apply("keep-last", 3, transcript())
    assert [m["role"] for m in kept_three] == ["compactionSummary", "bashExecution", "user", "assistant", "custom"]
    assert apply("keep-last", 10, transcript()) == transcript()


def test_drop_role_takes_tool_call_partners_along() -> None:
    without_results = apply("drop-role", "toolResult", transcript())
    assert [m["role"] for m in without_results] == [
        "compactionSummary", "user", "bashExecution", "user", "assistant", "custom"]
    assert [m["role"] for m in apply("drop-role", "custom", transcript())][-1] == "assistant"


def test_block_images_matches_pi_placeholders() -> None:
    blocked = apply("block-images", True, transcript())
    assert blocked[3]["content"] == [{"type": "text", "text": "out sk-BBBB2222"},
                                     {"type": "text", "text": "Image reading is disabled."}]
    # Two adjacent images give one placeholder, as Pi's dedupe does.
    assert blocked[6]["content"] == [{"type": "text", "text": "Image reading is disabled."},
                                     {"type": "text", "text": "what is this?"}]
    assert transcript()[6]["content"][0]["type"] == "image"  # input untouched


def test_redact_replaces_text_arguments_and_output_but_not_signatures() -> None:
    messages = transcript()
    messages[2]["content"].append({"type": "thinking", "thinking": "key sk-DDDD4444", "thinkingSignature": "sk-SIG"})
    redacted = apply("redact", r"sk-[A-Z0-9]+", messages)
    text = json.dumps(redacted)
    assert "sk-AAAA1111" not in text and "sk-BBBB2222" not in text and "sk-CCCC3333" not in text
    assert "sk-DDDD4444" not in text
    assert redacted[5]["command"] == "echo [REDACTED]"
    assert redacted[2]["content"][2] == {"type": "thinking", "thinking": "key [REDACTED]", "thinkingSignature": "sk-SIG"}
    with pytest.raises(ValueError, match="invalid regular expression"):
        BUILTIN_TRANSFORMS["redact"].factory("(")


def test_plugin_transforms_are_loaded_and_checked(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.syspath_prepend(str(PLUGINS))
    upper = checked("upper", load_plugin("sample_plugins:uppercase_user_text"))
    assert upper(transcript())[1]["content"] == "FIRST SK-AAAA1111"
    with pytest.raises(TransformError, match="separated a tool call from its result .*c1, c2"):
        checked("broken", load_plugin("sample_plugins:drop_tool_results"))(transcript())
    with pytest.raises(TransformError, match="failed: RuntimeError: plugin bug"):
        checked("explode", load_plugin("sample_plugins:explode"))(transcript())
    with pytest.raises(TransformError, match="expects module:function"):
        load_plugin("nocolon")
    with pytest.raises(TransformError, match="cannot import"):
        load_plugin("no_such_module_xyz:f")


def test_cli_transform_pipeline(cli: Any) -> None:
    run = cli("transform", "--keep-last", "1", "--block-images", "--redact", "friendlier",
              str(CASES / "c001_tools.jsonl"))
    assert run.code == 0, run.stderr
    (document,) = run.documents()
    assert document["kind"] == "context"
    assert document["transforms"] == ["keep-last=1", "block-images", "redact"]
    golden = expected("c001_tools")["context"]["messages"]
    last_user = max(i for i, m in enumerate(golden) if m["role"] in ("user", "bashExecution", "custom"))
    assert len(document["messages"]) == len(golden) - last_user


def test_cli_plugin_that_strands_a_call_is_an_error(cli: Any) -> None:
    run = cli("transform", "--plugin", "sample_plugins:drop_tool_results", str(CASES / "c001_tools.jsonl"),
              env={"PYTHONPATH": str(PLUGINS)})
    assert run.code == 2
    (document,) = run.documents()
    assert document["kind"] == "error"
    assert "separated a tool call from its result" in document["error"]
    assert "Traceback" not in run.stderr


def test_builtin_roles_come_through_the_entry_point_group() -> None:
    from importlib.metadata import entry_points

    names = {ep.name for ep in entry_points(group="pi_tools.roles")}
    assert {"bashExecution", "custom", "branchSummary", "compactionSummary"} <= names
    assert set(default_registry().roles()) >= {spec.role for spec in BUILTIN_ROLES}


def test_a_plugin_role_converts_like_a_builtin(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.syspath_prepend(str(PLUGINS))
    module = __import__("sample_plugins")
    registry = RoleRegistry([*BUILTIN_ROLES, module.NOTE_ROLE])
    converted = convert_to_llm([{"role": "note", "text": "hi", "timestamp": 5},
                                {"role": "unknownRole", "x": 1}], registry)
    assert converted == [{"role": "user", "content": [{"type": "text", "text": "Note: hi"}], "timestamp": 5}]
    assert isinstance(module.NOTE_ROLE, RoleSpec)


def test_internal_errors_become_error_documents() -> None:
    documents: list[Any] = []
    messages: list[str] = []

    def broken(item: StageInput) -> dict[str, Any]:
        raise TypeError("unexpected")

    assert run_stage([StageInput("a.jsonl"), StageInput("b.jsonl")], broken, documents.append, messages.append) == 2
    assert documents[0] == {"kind": "error", "source": "a.jsonl", "pi": "0.85",
                            "error": "internal error (TypeError: unexpected); please report it"}
    assert messages == ["a.jsonl: internal error (TypeError: unexpected); please report it",
                        "b.jsonl: internal error (TypeError: unexpected); please report it"]


def test_python_m_entry_point_works() -> None:
    import subprocess

    result = subprocess.run([sys.executable, "-m", "pi_tools", "--help"], capture_output=True, text=True)
    assert result.returncode == 0 and "pi-tools" in result.stdout and "payload" in result.stdout
