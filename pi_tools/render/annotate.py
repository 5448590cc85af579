"""Names every change Pi makes to a message on its way from the session file to a provider payload.

A raw diff of two JSON documents says *that* something changed; people debugging a rejected request need to know
*which rule* changed it (a thinking block replayed as text because the model changed, a signature dropped, a
failed turn skipped). Each function here looks at one step (convertToLlm, blockImages, transformMessages, the
request options) and returns notes `{code, label, detail}`: `code` is stable (tests and styles key on it),
`label` is a short badge and `detail` the explanation with the concrete values.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from pi_tools.js.strings import js_is_blank
from pi_tools.js.values import js_to_string
from pi_tools.messages.images import BLOCKED_IMAGE_TEXT
from pi_tools.messages.types import LLM_ROLES
from pi_tools.providers.transform_trace import SKIPPED_STOP_REASONS

if TYPE_CHECKING:
    from pi_tools.providers.edition import Edition
    from pi_tools.providers.transform_messages import TransformRules

Note = dict[str, str]

CONTEXT_RESERVE_TOKENS = 4096


def note(code: str, label: str, detail: str) -> Note:
    return {"code": code, "label": label, "detail": detail}


def _quote(value: Any, limit: int = 80) -> str:
    text = value if isinstance(value, str) else js_to_string(value)
    return text if len(text) <= limit else text[: limit - 1] + "…"


def model_label(message: Mapping[str, Any]) -> str:
    return f"{js_to_string(message.get('provider'))}/{js_to_string(message.get('model'))} " \
           f"({js_to_string(message.get('api'))})"


def _list(value: Any) -> list[Any]:
    """Content as a list of blocks; damaged sessions can hold anything there."""
    return [block for block in value if isinstance(block, dict)] if isinstance(value, list) else []


def _image_count(content: Any) -> int:
    if not isinstance(content, list):
        return 0
    return sum(1 for block in content if isinstance(block, dict) and block.get("type") == "image")


# --- convertToLlm and blockImages ---------------------------------------------------------------------------


def convert_notes(stored: Any, converted: Any | None, registry_has_role: bool) -> list[Note]:
    """What convertToLlm did to one stored AgentMessage (None = it was dropped)."""
    if not isinstance(stored, dict):
        return [note("role-dropped", "dropped", "not a message object: convertToLlm skips it")]
    role = stored.get("role")
    if type(role) is str and role in LLM_ROLES:
        return []
    role_text = js_to_string(role)
    if converted is None:
        if role == "bashExecution":
            return [note("role-dropped", "excluded from context",
                         "a `!!command` run (excludeFromContext): shown to the user, never sent to the model")]
        if not registry_has_role:
            return [note("role-dropped", "unknown role dropped",
                         f"role {role_text!r} is not an LLM role and no converter is registered: not sent")]
        return [note("role-dropped", "dropped", f"the {role_text} converter returned nothing: not sent")]
    if role == "bashExecution":
        return [note("role-converted", "bash → user text",
                     f"the `!{_quote(stored.get('command'), 60)}` run becomes a user message quoting command "
                     "and output")]
    if role in ("compactionSummary", "branchSummary"):
        kind = "compaction" if role == "compactionSummary" else "branch"
        return [note("summary-to-user", f"{kind} summary → user text",
                     f"the {kind} summary is sent as a user message wrapped in <summary> tags")]
    if role == "custom":
        wrapped = " (string content wrapped in a text block)" if isinstance(stored.get("content"), str) else ""
        return [note("role-converted", "custom → user",
                     f"custom message {_quote(stored.get('customType'), 40)!r} is sent as a user message{wrapped}")]
    return [note("role-converted", f"{role_text} → {js_to_string(converted.get('role'))}",
                 f"converted by the registered {role_text} converter")]


def blocked_image_notes(before: Any, after: Any) -> list[Note]:
    """Pi's `images.blockImages` setting, applied right after convertToLlm."""
    if before is after or not isinstance(before, dict):
        return []
    count = _image_count(before.get("content"))
    if not count:
        return []
    return [note("images-blocked", "images blocked",
                 f"{count} image(s) replaced by {BLOCKED_IMAGE_TEXT!r} (blockImages setting; consecutive "
                 "placeholders merged)")]


# --- transformMessages ------------------------------------------------------------------------------------------


def is_same_model(message: Mapping[str, Any], model: Mapping[str, Any]) -> bool:
    return (
        message.get("provider") == model.get("provider")
        and message.get("api") == model.get("api")
        and message.get("model") == model.get("id")
    )


def skipped_turn_note(message: Mapping[str, Any]) -> Note:
    reason = js_to_string(message.get("stopReason"))
    error = message.get("errorMessage")
    because = f": {_quote(error, 120)}" if isinstance(error, str) and error else ""
    calls = sum(1 for block in _list(message.get("content")) if block.get("type") == "toolCall")
    orphan = f"; its {calls} tool call(s) are not replayed, so stored results for them arrive as orphans" \
        if calls else ""
    label = "errored turn skipped" if reason == "error" else "aborted turn skipped"
    return note("turn-skipped", label, f"stopReason {reason!r}{because}: transformMessages drops the whole "
                f"assistant turn{orphan}")


def _assistant_block_notes(message: Mapping[str, Any], model: Mapping[str, Any],
                           drops_foreign_thinking: bool = False) -> list[Note]:
    if is_same_model(message, model):
        return []
    source = model_label(message)
    target = f"{model.get('provider')}/{model.get('id')}"
    notes: list[Note] = []
    if drops_foreign_thinking:
        dropped = sum(1 for block in _list(message.get("content")) if block.get("type") == "thinking")
        if dropped:
            notes.append(note("thinking-dropped", "thinking dropped",
                              f"{dropped} thinking block(s) from {source} are not replayed to {target} "
                              "(transformMessages drops another model's thinking)"))
        message = {**message, "content": [block for block in _list(message.get("content"))
                                          if block.get("type") != "thinking"]}
    to_text = signatures = redacted = blank = text_signatures = thought_signatures = 0
    for block in _list(message.get("content")):
        kind = block.get("type")
        if kind == "thinking":
            if block.get("redacted"):
                redacted += 1
                continue
            thinking = block.get("thinking")
            if not thinking or (isinstance(thinking, str) and js_is_blank(thinking)):
                blank += 1
                continue
            to_text += 1
            if block.get("thinkingSignature"):
                signatures += 1
        elif kind == "text" and block.get("textSignature"):
            text_signatures += 1
        elif kind == "toolCall" and block.get("thoughtSignature"):
            thought_signatures += 1
    if to_text:
        notes.append(note("thinking-to-text", "thinking → text",
                          f"{to_text} thinking block(s) from {source} are replayed to {target} as plain text "
                          "(another model cannot verify them)"))
    if signatures:
        notes.append(note("signature-dropped", "thinking signature dropped",
                          f"{signatures} thinking signature(s) from {source} removed"))
    if redacted:
        notes.append(note("redacted-dropped", "redacted thinking dropped",
                          f"{redacted} redacted thinking block(s) only {source} can read: removed"))
    if blank:
        notes.append(note("blank-thinking-dropped", "blank thinking dropped",
                          f"{blank} empty thinking block(s) without a usable signature removed"))
    if text_signatures:
        notes.append(note("signature-dropped", "text signature dropped",
                          f"{text_signatures} text signature(s) from {source} removed"))
    if thought_signatures:
        notes.append(note("signature-dropped", "thought signature dropped",
                          f"{thought_signatures} tool-call thoughtSignature(s) from {source} removed"))
    return notes


def _renamed_calls(before: Mapping[str, Any], after: Mapping[str, Any]) -> list[Note]:
    """Compares the ids transformMessages actually produced: tool calls are never dropped, so they pair up."""
    old = [b for b in _list(before.get("content")) if b.get("type") == "toolCall"]
    new = [b for b in _list(after.get("content")) if b.get("type") == "toolCall"]
    return [
        note("tool-call-id-renamed", "tool-call id renamed",
             f"{js_to_string(a.get('id'))} → {js_to_string(b.get('id'))} (this API's id rules)")
        for a, b in zip(old, new, strict=False)
        if a.get("id") != b.get("id")
    ]


def transform_notes(before: Any, after: Any | None, model: Mapping[str, Any],
                    rules: TransformRules | None = None) -> list[Note]:
    """What transformMessages did to one convertToLlm message for one target model (None = skipped), by the Pi
    version's `rules` (default: the base edition's)."""
    if not isinstance(before, dict):
        return []
    role = before.get("role")
    if after is None:
        if role == "assistant" and before.get("stopReason") in SKIPPED_STOP_REASONS:
            return [skipped_turn_note(before)]
        return [note("unmapped", "not found", "transformMessages output could not be matched to this message")]
    notes: list[Note] = []
    if before.get("content") is None and after.get("content") == []:
        notes.append(note("content-null", "null content → []", "missing content is sent as an empty list"))
    if role in ("user", "toolResult") and "image" not in (model.get("input") or ()):
        count = _image_count(before.get("content"))
        if count:
            notes.append(note("image-downgraded", "images replaced",
                              f"{model.get('provider')}/{model.get('id')} takes text only: {count} image(s) "
                              "replaced by an '(image omitted …)' placeholder"))
    if role == "assistant":
        notes.extend(_assistant_block_notes(before, model, rules is not None and rules.drops_foreign_thinking))
        notes.extend(_renamed_calls(before, after))
    elif role == "toolResult" and before.get("toolCallId") != after.get("toolCallId"):
        notes.append(note("tool-result-id-renamed", "result id renamed",
                          f"toolCallId {js_to_string(before.get('toolCallId'))} → "
                          f"{js_to_string(after.get('toolCallId'))} to follow its renamed tool call"))
    return notes


def synthetic_note(result: Mapping[str, Any], assistant_row: int | None) -> Note:
    where = f" of the assistant turn #{assistant_row}" if assistant_row is not None else ""
    return note("synthetic-result", "synthetic result added",
                f"tool call {js_to_string(result.get('toolCallId'))} ({js_to_string(result.get('toolName'))})"
                f"{where} has no stored result before the next turn: transformMessages adds an error result "
                "'No result provided'")


# --- request-level notes ---------------------------------------------------------------------------------------


def payload_max_tokens(api: str, payload: Mapping[str, Any], edition: Edition | None = None,
                       ) -> tuple[str, Any] | None:
    """(field path, value) of the output-token limit the payload carries, as the API's adapter finds it."""
    from pi_tools.providers.edition import BASE
    from pi_tools.providers.registry import adapter

    return adapter(api, edition or BASE).max_tokens_field(payload)


def max_tokens_notes(api: str, payload: Mapping[str, Any], model: Mapping[str, Any],
                     estimate: int | None, edition: Edition | None = None) -> list[Note]:
    """Compare the payload's output-token limit with the model's own maximum and explain a clamp (by the output
    budget of `edition`, default the base edition's)."""
    from pi_tools.providers.edition import BASE

    found = payload_max_tokens(api, payload, edition)
    model_max = model.get("maxTokens")
    if found is None or not isinstance(found[1], int) or not isinstance(model_max, int):
        return []
    field, sent = found
    window = model.get("contextWindow") or 0
    if sent >= model_max:
        return [note("max-tokens", "max tokens", f"{field} = {sent} (the model's maximum {model_max})")]
    if estimate is None:
        return [note("max-tokens-clamped", "max tokens clamped",
                     f"{field} = {sent}, below the model's maximum {model_max} (context estimate unavailable)")]
    room = window - estimate - CONTEXT_RESERVE_TOKENS
    budget = (edition or BASE).output_room(window, estimate)
    if budget != room:
        return [note("max-tokens-clamped", "max tokens clamped",
                     f"{field} = {sent}, below the model's maximum {model_max}: the context estimate is {estimate} "
                     f"tokens, and Pi's output budget leaves {budget} of {window} (context window) after it and "
                     "its safety margin")]
    return [note("max-tokens-clamped", "max tokens clamped",
                 f"{field} = {sent}, below the model's maximum {model_max}: the context estimate is {estimate} "
                 f"tokens, and {window} (context window) − {estimate} − {CONTEXT_RESERVE_TOKENS} (reserve) "
                 f"leaves {room}")]


def reasoning_notes(requested: Any, sent: str | None, model: Mapping[str, Any]) -> list[Note]:
    target = f"{model.get('provider')}/{model.get('id')}"
    if not isinstance(requested, str) or requested == "off":
        return [note("reasoning", "reasoning off", "no thinking level is passed (session level off)")]
    if sent is None:
        return [note("reasoning-clamped", "reasoning clamped to off",
                     f"thinking level {requested!r} clamps to 'off' for {target}: no reasoning option is passed")]
    if sent != requested:
        return [note("reasoning-clamped", "reasoning clamped",
                     f"thinking level {requested!r} is not supported by {target}: Pi sends {sent!r}")]
    return [note("reasoning", f"reasoning {sent}", f"thinking level {sent!r} passed to streamSimple")]


def adapter_notes(api: str, message: Mapping[str, Any], model: Mapping[str, Any],
                  edition: Edition | None = None) -> list[Note]:
    """Changes an adapter itself makes to a message it sends (only rules that hold for every model of the API):
    the API's adapter (for `edition`, default the base edition) names them."""
    from pi_tools.providers.edition import BASE
    from pi_tools.providers.registry import adapter

    return adapter(api, edition or BASE).adapter_notes(message, model)


def adapter_skip_note(api: str) -> Note:
    return note("adapter-skipped", "not sent",
                f"the {api} adapter leaves this message out: nothing in it survives conversion (blank text, "
                "empty content)")


def system_message_note(api: str, how: str = "") -> Note:
    """What became of one of the transcript's system messages (Pi 1.x): `how` is the mapping's placement.system,
    "prompt" (the leading one), "update" (sent in place) or "folded" (into the leading prompt)."""
    if how == "prompt":
        return note("system-message", "system prompt",
                    f"the transcript's leading system message is the {api} request's system prompt")
    if how == "update":
        return note("system-message", "system update",
                    f"the model keeps later system messages: the {api} request carries this one in the conversation "
                    "as a system update (changed sections framed by name, tool changes declared in place), where it "
                    "stands or held until the next assistant turn")
    if how == "folded":
        return note("system-message", "folded into the system prompt",
                    f"the model takes no system message mid-conversation: the {api} request folds every one into its "
                    "leading system prompt (later sections replace earlier ones by name)")
    return note("system-message", "system message",
                f"the transcript's system messages become the {api} request's system prompt (folded into one where "
                "the model takes none later) or, where the model keeps them, system updates in place: see the "
                "target's system fields and the items added by the adapter")


def system_skip_note(api: str) -> Note:
    return note("adapter-skipped", "not sent",
                f"the {api} request has no item of this system message: it changes no section, and the tools it "
                "changes (if any) are in the request's top-level tool list")


def grouped_note(label: str, size: int) -> Note:
    return note("results-grouped", "grouped",
                f"sent with {size - 1} other tool result(s) in one message ({label})")


def lost_note(api: str) -> Note:
    return note("unmapped", "not located",
                f"this message should appear in the {api} payload but the preview could not locate its item; "
                "see the unmatched items at the end")


def extra_note(label: str) -> Note:
    return note("adapter-added", "added by adapter", f"{label} is inserted by the adapter itself")


def codes(notes: Sequence[Note]) -> list[str]:
    return [n["code"] for n in notes]
