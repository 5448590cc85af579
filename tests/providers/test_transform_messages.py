"""transformMessages against the goldens and against pi-ai's documented corner cases.

Expected outputs of the hand-built cases were confirmed by running the reference ``transformMessages`` on the same
inputs under Node (with ``Date.now`` pinned).

The golden check projects both sides onto what the Anthropic adapter makes visible: per payload message its role
and its blocks (text, images, thinking with signatures, tool_use ids and names, tool_result ids, error flags and
text). The adapter-side rules used for the projection (blank filtering, grouping of consecutive tool results,
unsigned thinking sent as text) are Anthropic's ``convertMessages`` rules; everything else comes from
``transform_messages``.
"""

from __future__ import annotations

import copy
import re
from collections.abc import Iterator
from typing import Any

import pytest

from pi_tools.js.strings import js_is_blank, js_slice
from pi_tools.providers.catalog import Model, find_model, get_model
from pi_tools.providers.sanitize import sanitize_id_chars, sanitize_surrogates
from pi_tools.providers.transform_messages import transform_messages

from support.golden import case_names, expected

Block = tuple[Any, ...]
Projection = list[tuple[str, list[Block]]]


def anthropic_normalizer(tool_call_id: str, _model: Model, _source: dict[str, Any]) -> str:
    """Anthropic's id rule: id characters only, at most 64 code units."""
    return js_slice(sanitize_id_chars(tool_call_id), 0, 64)


def _tool_result_text(message: dict[str, Any]) -> str:
    return "\n".join(sanitize_surrogates(b["text"]) for b in message["content"] if b.get("type") == "text")


def project_transformed(messages: list[dict[str, Any]]) -> Projection:
    """The Anthropic adapter's view of transformed messages (blocks it would send, in order)."""
    out: Projection = []
    index = 0
    while index < len(messages):
        message = messages[index]
        role = message["role"]
        if role == "toolResult":
            blocks: list[Block] = []
            while index < len(messages) and messages[index]["role"] == "toolResult":
                result = messages[index]
                has_image = any(b.get("type") == "image" for b in result["content"])
                text = None if has_image else _tool_result_text(result)
                blocks.append(("tool_result", result["toolCallId"], bool(result["isError"]), text))
                index += 1
            out.append(("user", blocks))
            continue
        index += 1
        if role == "user":
            content = message["content"]
            if isinstance(content, str):
                if not js_is_blank(content):
                    out.append(("user", [("text", sanitize_surrogates(content))]))
                continue
            blocks = []
            for block in content:
                if block["type"] == "text":
                    if not js_is_blank(sanitize_surrogates(block["text"])):
                        blocks.append(("text", sanitize_surrogates(block["text"])))
                else:
                    blocks.append(("image", block["mimeType"]))
            if blocks:
                out.append(("user", blocks))
        elif role == "assistant":
            blocks = []
            for block in message["content"]:
                kind = block["type"]
                if kind == "text":
                    if not js_is_blank(block["text"]):
                        blocks.append(("text", sanitize_surrogates(block["text"])))
                elif kind == "thinking":
                    signature = block.get("thinkingSignature")
                    if block.get("redacted"):
                        blocks.append(("redacted_thinking", signature))
                        continue
                    signed = bool(signature) and not js_is_blank(signature)
                    if js_is_blank(block["thinking"]) and not signed:
                        continue
                    if signed:
                        blocks.append(("thinking", sanitize_surrogates(block["thinking"]), signature))
                    else:
                        blocks.append(("text", sanitize_surrogates(block["thinking"])))
                elif kind == "toolCall":
                    blocks.append(("tool_use", block["id"], block["name"]))
            if blocks:
                out.append(("assistant", blocks))
    return out


def project_payload(payload_messages: list[dict[str, Any]]) -> Projection:
    """The same view read off a golden Anthropic payload."""
    out: Projection = []
    for message in payload_messages:
        content = message["content"]
        if isinstance(content, str):
            out.append((message["role"], [("text", content)]))
            continue
        blocks: list[Block] = []
        for block in content:
            kind = block["type"]
            if kind == "text":
                blocks.append(("text", block["text"]))
            elif kind == "image":
                blocks.append(("image", block["source"]["media_type"]))
            elif kind == "thinking":
                blocks.append(("thinking", block["thinking"], block["signature"]))
            elif kind == "redacted_thinking":
                blocks.append(("redacted_thinking", block["data"]))
            elif kind == "tool_use":
                blocks.append(("tool_use", block["id"], block["name"]))
            elif kind == "tool_result":
                text = block["content"] if isinstance(block["content"], str) else None
                blocks.append(("tool_result", block["tool_use_id"], block["is_error"], text))
            else:
                blocks.append((kind,))
        out.append((message["role"], blocks))
    return out


def _anthropic_goldens() -> Iterator[Any]:
    for name in case_names():
        doc = expected(name)
        for key, entry in (doc.get("payloads") or {}).items():
            if key.split("@")[0] == "anthropic-messages" and "payload" in entry:
                yield pytest.param(name, key, id=f"{name}:{key}")


@pytest.mark.parametrize(("name", "key"), list(_anthropic_goldens()))
def test_anthropic_golden_messages(name: str, key: str) -> None:
    doc = expected(name)
    entry = doc["payloads"][key]
    model = find_model(entry["model"])
    llm = doc["llm"]
    before = copy.deepcopy(llm)
    transformed = transform_messages(llm, model, anthropic_normalizer, now_ms=lambda: 0)
    assert llm == before, "input was mutated"
    assert project_transformed(transformed) == project_payload(entry["payload"]["messages"])


def _ids(messages: list[dict[str, Any]]) -> tuple[list[str], list[str]]:
    calls = [
        b["id"] for m in messages if m["role"] == "assistant" for b in m["content"] if b["type"] == "toolCall"
    ]
    results = [m["toolCallId"] for m in messages if m["role"] == "toolResult"]
    return calls, results


# case → the rewrite it must exercise, so the golden comparison above cannot silently stop covering it.
FEATURE_CASES = {
    "c004_crossprovider": "cross-model",
    "c005_errors": "failed-turns",
    "edge_null_content": "null-content",
    "edge_openai_replay": "renamed-ids",
}


@pytest.mark.parametrize("name", sorted(FEATURE_CASES))
def test_feature_cases_exercise_the_rewrites(name: str) -> None:
    llm = expected(name)["llm"]
    model = get_model("anthropic", "claude-sonnet-4-5")
    out = transform_messages(llm, model, anthropic_normalizer, now_ms=lambda: 0)
    failed = [m for m in llm if m["role"] == "assistant" and m.get("stopReason") in ("error", "aborted")]
    kept = [m for m in out if m["role"] == "assistant"]
    assert len(kept) == sum(1 for m in llm if m["role"] == "assistant") - len(failed)
    calls, results = _ids(out)
    assert set(calls) <= set(results), "every kept tool call is answered"
    assert all(re.fullmatch(r"[a-zA-Z0-9_-]{1,64}", i) for i in calls + results)
    feature = FEATURE_CASES[name]
    if feature == "cross-model":
        assert any((m.get("provider"), m.get("model")) != ("anthropic", "claude-sonnet-4-5") for m in kept)
        synthetic = [m for m in out if m["role"] == "toolResult" and m["timestamp"] == 0 and m["isError"]]
        assert synthetic and all(
            m["content"] == [{"type": "text", "text": "No result provided"}] for m in synthetic
        )
    elif feature == "failed-turns":
        assert failed
    elif feature == "null-content":
        assert all(isinstance(m["content"], (str, list)) for m in out)
    else:
        original_calls, _ = _ids(llm)
        assert set(original_calls) - set(calls), "some cross-model ids were normalised"


# --- hand-built corner cases (transform-messages.md) ---------------------------------------------------------

TARGET: Model = {
    "id": "claude-sonnet-4-5",
    "provider": "anthropic",
    "api": "anthropic-messages",
    "input": ["text"],
}


def _assistant(content: list[Any], *, same: bool = False, stop: str = "toolUse") -> dict[str, Any]:
    origin = (
        ("anthropic", "anthropic-messages", "claude-sonnet-4-5")
        if same
        else ("openai", "openai-responses", "gpt")
    )
    return {
        "role": "assistant",
        "content": content,
        "provider": origin[0],
        "api": origin[1],
        "model": origin[2],
        "stopReason": stop,
        "timestamp": 1,
    }


def _call(call_id: str, name: str = "read", **extra: Any) -> dict[str, Any]:
    return {"type": "toolCall", "id": call_id, "name": name, "arguments": {}, **extra}


def _result(call_id: str, text: str = "ok") -> dict[str, Any]:
    return {
        "role": "toolResult",
        "toolCallId": call_id,
        "toolName": "read",
        "content": [{"type": "text", "text": text}],
        "isError": False,
        "timestamp": 2,
    }


def _synthetic(call_id: str, name: str = "read", ts: int = 42) -> dict[str, Any]:
    return {
        "role": "toolResult",
        "toolCallId": call_id,
        "toolName": name,
        "content": [{"type": "text", "text": "No result provided"}],
        "isError": True,
        "timestamp": ts,
    }


def test_thinking_rules_cross_and_same_model() -> None:
    cross = _assistant(
        [
            {"type": "thinking", "thinking": "secret", "redacted": True, "thinkingSignature": "x"},
            {"type": "thinking", "thinking": " \ufeff\n", "thinkingSignature": "sig"},
            {"type": "thinking", "thinking": "visible", "thinkingSignature": "sig"},
            {"type": "text", "text": "hi", "textSignature": "ts"},
        ],
        stop="stop",
    )
    same = {**cross, "provider": "anthropic", "api": "anthropic-messages", "model": "claude-sonnet-4-5"}
    out_cross, out_same = transform_messages([cross, same], TARGET)
    assert out_cross["content"] == [{"type": "text", "text": "visible"}, {"type": "text", "text": "hi"}]
    assert out_same["content"] == same["content"]
    # A signed but empty thinking block survives only for the same model; U+001C is not JS whitespace.
    same_empty = {
        **same,
        "content": [
            {"type": "thinking", "thinking": "", "thinkingSignature": "enc"},
            {"type": "thinking", "thinking": "\x1c"},
        ],
    }
    assert transform_messages([same_empty], TARGET)[0]["content"] == same_empty["content"]


def test_tool_call_ids_and_orphans() -> None:
    messages = [
        {"role": "user", "content": "go", "timestamp": 0},
        _assistant([_call("call|a.b", thoughtSignature="t"), _call("keep", name="bash")]),
        _result("call|a.b"),
        {"role": "user", "content": "interrupt", "timestamp": 3},
        _assistant([_call("x1")], stop="error"),
        _result("x1", "late"),
        _assistant([_call("same|id")], same=True),
    ]
    frozen = copy.deepcopy(messages)
    out = transform_messages(messages, TARGET, anthropic_normalizer, now_ms=lambda: 42)
    assert messages == frozen
    assert [m["role"] for m in out] == [
        "user",
        "assistant",
        "toolResult",
        "toolResult",
        "user",
        "toolResult",
        "assistant",
        "toolResult",
    ]
    assert out[1]["content"] == [
        {"type": "toolCall", "id": "call_a_b", "name": "read", "arguments": {}},
        {"type": "toolCall", "id": "keep", "name": "bash", "arguments": {}},
    ]
    assert out[2]["toolCallId"] == "call_a_b"
    assert out[3] == _synthetic("keep", "bash")
    assert out[5]["toolCallId"] == "x1"  # orphan result after a dropped error turn is kept
    assert out[6]["content"][0]["id"] == "same|id"  # same-model ids are never renamed
    assert out[7] == _synthetic("same|id")


def test_flat_id_map_renames_later_results_with_a_reused_id() -> None:
    messages = [
        _assistant([_call("dup.1")]),
        _result("dup.1"),
        _assistant([_call("dup.1")], same=True),
        _result("dup.1"),
    ]
    out = transform_messages(messages, TARGET, anthropic_normalizer, now_ms=lambda: 0)
    # The second result is renamed away from its own (same-model) call, which is then answered synthetically.
    assert [m["toolCallId"] for m in out if m["role"] == "toolResult"] == ["dup_1", "dup_1", "dup.1"]
    assert out[2]["content"][0]["id"] == "dup.1"
    assert out[-1] == _synthetic("dup.1", ts=0)


def test_error_turn_flushes_pending_calls_before_late_results() -> None:
    messages = [_assistant([_call("a")], same=True), _assistant([], stop="aborted"), _result("a")]
    out = transform_messages(messages, TARGET, now_ms=lambda: 7)
    assert out == [messages[0], _synthetic("a", ts=7), messages[2]]


def test_images_downgraded_for_text_only_models() -> None:
    image = {"type": "image", "data": "AA", "mimeType": "image/png"}
    user_placeholder = "(image omitted: model does not support images)"
    tool_placeholder = "(tool image omitted: model does not support images)"
    messages: list[dict[str, Any]] = [
        {"role": "user", "content": [image, image, {"type": "text", "text": "t"}, image], "timestamp": 0},
        {"role": "user", "content": [{"type": "text", "text": user_placeholder}, image], "timestamp": 0},
        {
            "role": "toolResult",
            "toolCallId": "c",
            "toolName": "read",
            "content": [image],
            "isError": False,
            "timestamp": 0,
        },
        {"role": "user", "content": None, "timestamp": 0},
    ]
    out = transform_messages(messages, TARGET)
    assert out[0]["content"] == [
        {"type": "text", "text": user_placeholder},
        {"type": "text", "text": "t"},
        {"type": "text", "text": user_placeholder},
    ]
    assert out[1]["content"] == [{"type": "text", "text": user_placeholder}]
    assert out[2]["content"] == [{"type": "text", "text": tool_placeholder}]
    assert out[3]["content"] == []
    vision = transform_messages(messages, {**TARGET, "input": ["text", "image"]})
    assert vision[0] is messages[0]
    assert messages[3]["content"] is None


def test_astral_characters_count_as_two_id_code_units() -> None:
    out = transform_messages([_assistant([_call("p😀q")]), _result("p😀q")], TARGET, anthropic_normalizer)
    assert out[0]["content"][0]["id"] == "p__q" and out[1]["toolCallId"] == "p__q"


def test_default_clock_is_wall_time_in_ms() -> None:
    import time

    before = int(time.time() * 1000)
    out = transform_messages([_assistant([_call("z")], same=True)], TARGET)
    assert before <= out[-1]["timestamp"] <= int(time.time() * 1000) + 1


# --- tool-result content that is not a block list (expected values from Node's transformMessages) ---------------


def _raw_result(content: Any) -> dict[str, Any]:
    return {"role": "toolResult", "toolCallId": "a", "toolName": "t", "content": content, "isError": False,
            "timestamp": 1}


@pytest.mark.parametrize(
    ("content", "node_content"),
    [
        # for...of walks a string by code points: an astral character stays whole, a lone surrogate is its own item.
        ("ab😀\ud800c", ["a", "b", "😀", "\ud800", "c"]),
        ("", []),
        (["x", {"type": "image", "data": "d", "mimeType": "image/png"}, 7],
         ["x", {"type": "text", "text": "(tool image omitted: model does not support images)"}, 7]),
    ],
)
def test_text_only_model_walks_string_tool_results_like_for_of(content: Any, node_content: list[Any]) -> None:
    out = transform_messages([_raw_result(content)], TARGET)
    assert out[0]["content"] == node_content


@pytest.mark.parametrize(
    ("content", "node_error"),
    [
        (5, "content is not iterable"),
        (True, "content is not iterable"),
        ({"type": "text"}, "content is not iterable"),
        ([None], "Cannot read properties of null (reading 'type')"),
    ],
)
def test_text_only_model_rejects_what_for_of_rejects(content: Any, node_error: str) -> None:
    from pi_tools.js.errors import JsTypeError

    with pytest.raises(JsTypeError) as caught:
        transform_messages([_raw_result(content)], TARGET)
    assert str(caught.value) == node_error


def test_vision_model_leaves_string_tool_results_alone() -> None:
    message = _raw_result("plain")
    assert transform_messages([message], {**TARGET, "input": ["text", "image"]})[0]["content"] == "plain"


def _foreign_thinking(*thinking: Any) -> dict[str, Any]:
    return {"role": "assistant", "content": [{"type": "thinking", "thinking": value} for value in thinking],
            "api": "x", "provider": "y", "model": "z", "stopReason": "stop", "timestamp": 1}


@pytest.mark.parametrize("thinking", [12, []])
def test_non_string_thinking_fails_like_trim(thinking: Any) -> None:
    """Node: ``block.thinking.trim is not a function`` for any truthy non-string thinking."""
    from pi_tools.providers.errors import PayloadError

    with pytest.raises(PayloadError, match=r"^block\.thinking\.trim is not a function$"):
        transform_messages([_foreign_thinking(thinking)], TARGET)


def test_falsy_or_js_blank_thinking_is_dropped() -> None:
    """Node keeps only U+001C here: 0 is falsy and U+FEFF is JS whitespace, U+001C is not."""
    out = transform_messages([_foreign_thinking(0, " \ufeff", "\x1c")], TARGET)
    assert out[0]["content"] == [{"type": "text", "text": "\x1c"}]
