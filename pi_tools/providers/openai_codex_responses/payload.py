"""The request body pi-ai's ``openai-codex-responses`` adapter hands to ``onPayload`` (pi-ai 0.85.1).

Codex is OpenAI's Responses API as ChatGPT's backend serves it to subscribers: the conversation goes through
the very conversion openai-responses uses (``providers.openai_responses.payload``: stored reasoning items
replayed, text item ids and phases, ``call_id|item_id`` tool-call ids), but the body around it is Codex's own:
the system prompt is ``instructions`` (never an input item), ``store: false``, ``text.verbosity``, encrypted
reasoning always included, ``tool_choice``/``parallel_tool_calls`` always sent, no output-token limit, tools'
``strict`` is ``null`` (the key present, since the models support strict mode by default), and reasoning is
sent only when an effort is asked for.

The credential shapes the request too: it is a ChatGPT OAuth access token, a JWT whose payload names the
account (``chatgpt-account-id`` header), and pi-ai fails before building anything when it cannot read one.
pi-tools' offline placeholder credential (providers.credentials) stands for a signed-in user whose account is
shown as ``<account-id>``.

`build_request_body` is pi-ai's ``buildRequestBody`` (the request options Codex's ``stream`` takes);
`build_payload` is ``streamSimple`` in front of it. Both are plain functions of (model, context, options), for
a later Pi's variant to reuse.
"""

from __future__ import annotations

import base64
import binascii
from collections.abc import Mapping
from typing import Any

from pi_tools.js.values import UNDEFINED, js_to_string, js_truthy
from pi_tools.providers.catalog import Model
from pi_tools.providers.constrained_sampling import grammar_input_properties
from pi_tools.providers.credentials import OFFLINE_API_KEY
from pi_tools.providers.errors import PayloadError, malformed_input_guard, missing_api_key
from pi_tools.providers.openai_responses.payload import (
    TOOL_CALL_PROVIDERS,
    PartCarry,
    clamp_prompt_cache_key,
    convert_messages,
    convert_part,
    convert_tools,
    make_tool_call_id_normalizer,
    split_deferred_tools,
)
from pi_tools.providers.options import build_base_options, clamp_thinking_level
from pi_tools.providers.v8json import js_json_parse

CODEX_TOOL_CALL_PROVIDERS = TOOL_CALL_PROVIDERS
"""Providers whose ``call_id|item_id`` tool-call ids Codex keeps (pi-ai's own set, the same as Responses')."""

normalize_tool_call_id = make_tool_call_id_normalizer(CODEX_TOOL_CALL_PROVIDERS)
"""Cross-model tool-call id rewrite for ``openai-codex-responses`` (``transform_messages`` calls it)."""

DEFAULT_INSTRUCTIONS = "You are a helpful assistant."
"""``instructions`` when the context has no system prompt (the Codex backend requires one)."""

JWT_CLAIM_PATH = "https://api.openai.com/auth"
OFFLINE_ACCOUNT_ID = "<account-id>"
"""The account pi-tools' offline placeholder credential names (no real token, no real account)."""

ACCOUNT_FAILURE = "Failed to extract accountId from token"

_BASE64_ALPHABET = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/")
_ASCII_WHITESPACE = "\t\n\f\r "


# --- the credential --------------------------------------------------------------------------------------------


def atob(text: str) -> str:
    """The WHATWG ``atob``: forgiving base64 (ASCII whitespace ignored, padding optional, the base64url
    characters ``-``/``_`` rejected) decoded to a string of one character per byte; ValueError where it
    throws."""
    data = "".join(char for char in text if char not in _ASCII_WHITESPACE)
    if len(data) % 4 == 0:
        if data.endswith("=="):
            data = data[:-2]
        elif data.endswith("="):
            data = data[:-1]
    if len(data) % 4 == 1 or not set(data) <= _BASE64_ALPHABET:
        raise ValueError("The string to be decoded is not correctly encoded.")
    try:
        decoded = base64.b64decode(data + "=" * (-len(data) % 4))
    except binascii.Error as error:
        raise ValueError(str(error)) from None
    return decoded.decode("latin-1")


def account_id(token: Any) -> Any:
    """pi-ai's ``extractAccountId``: the ``chatgpt_account_id`` claim of the access token (a JWT), read without
    checking its signature; PayloadError with Pi's words where the token has none. The offline placeholder
    credential names `OFFLINE_ACCOUNT_ID`."""
    if token == OFFLINE_API_KEY:
        return OFFLINE_ACCOUNT_ID
    try:
        if not isinstance(token, str):
            raise ValueError("token.split is not a function")
        parts = token.split(".")
        if len(parts) != 3:
            raise ValueError("Invalid token")
        claims = js_json_parse(atob(parts[1]))
        auth = claims.get(JWT_CLAIM_PATH) if isinstance(claims, dict) else None
        found = auth.get("chatgpt_account_id") if isinstance(auth, dict) else None
        if not js_truthy(found if found is not None else UNDEFINED):
            raise ValueError("No account ID in token")
        return found
    except (ValueError, PayloadError):
        raise PayloadError(ACCOUNT_FAILURE) from None


def codex_api_key(model: Model, options: Mapping[str, Any]) -> Any:
    """``options.apiKey``, which Codex cannot do without (no header stands in for it)."""
    api_key = options.get("apiKey")
    if not js_truthy(api_key if api_key is not None else UNDEFINED):
        raise missing_api_key(model)
    return api_key


def cache_session_id(options: Mapping[str, Any]) -> str | None:
    """The session id Codex caches under and names in its headers: none with ``cacheRetention: "none"``, else
    the session id (at most 64 code points)."""
    if options.get("cacheRetention") == "none":
        return None
    session_id = options.get("sessionId")
    return clamp_prompt_cache_key(session_id) if isinstance(session_id, str) else None


# --- the body --------------------------------------------------------------------------------------------------


def _compat_flag(model: Model, name: str, default: bool) -> Any:
    value = (model.get("compat") or {}).get(name)
    return default if value is None else value


def _deferred_mode(model: Model) -> str | None:
    if js_truthy(_compat_flag(model, "supportsAdditionalTools", False)):
        return "additional-tools"
    if js_truthy(_compat_flag(model, "supportsToolSearch", False)):
        return "tool-search"
    return None


def _tool_options(model: Model) -> dict[str, Any]:
    return {
        "strict": None,
        "supportsStrictMode": bool(_compat_flag(model, "supportsStrictMode", True)),
        "supportsOpenAIGrammarTools": bool(_compat_flag(model, "supportsOpenAIGrammarTools", False)),
    }


def _grammar_properties(model: Model, context: Mapping[str, Any]) -> dict[Any, str]:
    return grammar_input_properties(context.get("tools"), bool(_compat_flag(model, "supportsOpenAIGrammarTools",
                                                                             False)))


def build_request_body(
    model: Model,
    context: Mapping[str, Any],
    options: Mapping[str, Any],
    session_id: str | None,
    items: list[Any] | None = None,
) -> dict[str, Any]:
    """pi-ai's ``buildRequestBody``: the body for Codex's own request options (``textVerbosity``,
    ``toolChoice``, ``temperature``, ``serviceTier``, ``reasoningEffort``, ``reasoningSummary``) and the
    clamped cache session id. `items`, when given, are the already converted input items."""
    tool_options = _tool_options(model)
    deferred_mode = _deferred_mode(model)
    immediate, deferred = split_deferred_tools(context, deferred_mode is not None)
    if items is None:
        items = convert_messages(
            model,
            context,
            allowed_providers=CODEX_TOOL_CALL_PROVIDERS,
            include_system_prompt=False,
            grammar_properties=_grammar_properties(model, context),
            deferred_tools=deferred,
            deferred_mode=deferred_mode,
            tool_options=tool_options,
        )
    system_prompt = context.get("systemPrompt")
    body: dict[str, Any] = {
        "model": model.get("id"),
        "store": False,
        "stream": True,
        "instructions": system_prompt if js_truthy(system_prompt) else DEFAULT_INSTRUCTIONS,
        "input": items,
        "text": {"verbosity": options.get("textVerbosity") or "low"},
        "include": ["reasoning.encrypted_content"],
    }
    if session_id is not None:
        body["prompt_cache_key"] = session_id
    tool_choice = options.get("toolChoice")
    body["tool_choice"] = "auto" if tool_choice is None else tool_choice
    body["parallel_tool_calls"] = True
    if "temperature" in options:
        body["temperature"] = options["temperature"]
    if options.get("serviceTier") is not None:
        body["service_tier"] = options["serviceTier"]
    if immediate:
        body["tools"] = convert_tools(
            immediate,
            supports_strict_mode=tool_options["supportsStrictMode"],
            supports_grammar_tools=tool_options["supportsOpenAIGrammarTools"],
            strict=None,
        )
    effort = options.get("reasoningEffort")
    if effort is not None:
        level_map = model.get("thinkingLevelMap") or {}
        if effort == "none":
            mapped = level_map.get("off")
            effort = "none" if mapped is None else mapped
        else:
            mapped = level_map.get(effort)
            effort = effort if mapped is None else mapped
        summary = options.get("reasoningSummary")
        body["reasoning"] = {"effort": effort, "summary": "auto" if summary is None else summary}
    return body


def stream_options(model: Model, context: Mapping[str, Any], options: Mapping[str, Any]) -> dict[str, Any]:
    """What ``streamSimple`` hands Codex's ``stream``: the base options, the tool choice and the reasoning
    level clamped to the model (none when off). Fails as Pi does without a credential."""
    api_key = codex_api_key(model, options)
    codex = build_base_options(model, context, options, api_key)
    if options.get("toolChoice") is not None:
        codex["toolChoice"] = options["toolChoice"]
    level = options.get("reasoning")
    clamped = clamp_thinking_level(model, level) if js_truthy(level) else None
    if clamped is not None and clamped != "off":
        codex["reasoningEffort"] = clamped
    return codex


@malformed_input_guard
def build_payload(model: Model, context: dict[str, Any], options: dict[str, Any]) -> dict[str, Any]:
    """The body ``streamSimple`` passes to ``onPayload`` for an ``openai-codex-responses`` model."""
    codex = stream_options(model, context, options)
    account_id(codex["apiKey"])
    return build_request_body(model, context, codex, cache_session_id(codex))


# --- in parts (see pi_tools.providers.split; the item counter is carried as openai-responses carries it) -----


def build_history(
    model: Model, context: dict[str, Any], options: dict[str, Any]
) -> tuple[list[Any], dict[str, str], PartCarry]:
    """The input items of a conversation's first part, the tool-call ids it renamed and its carry."""
    renamed: dict[str, str] = {}
    deferred_mode = _deferred_mode(model)
    _, deferred = split_deferred_tools(context, deferred_mode is not None)
    items, carry = convert_part(
        model,
        context,
        allowed_providers=CODEX_TOOL_CALL_PROVIDERS,
        grammar_properties=_grammar_properties(model, context),
        deferred_tools=deferred,
        deferred_mode=deferred_mode,
        tool_options=_tool_options(model),
        id_map=renamed,
    )
    return items, renamed, carry


@malformed_input_guard
def _build_tail_payload(model: Model, context: dict[str, Any], options: dict[str, Any]) -> dict[str, Any]:
    codex = stream_options(model, context, options)
    account_id(codex["apiKey"])
    deferred_mode = _deferred_mode(model)
    _, deferred = split_deferred_tools(context, deferred_mode is not None)
    items, carry = convert_part(
        model,
        context,
        allowed_providers=CODEX_TOOL_CALL_PROVIDERS,
        grammar_properties=_grammar_properties(model, context),
        deferred_tools=deferred,
        deferred_mode=deferred_mode,
        tool_options=_tool_options(model),
        id_map=None,
    )
    return {"body": build_request_body(model, context, codex, cache_session_id(codex), items), "carry": carry}


def build_tail(model: Model, context: dict[str, Any], options: dict[str, Any]) -> tuple[dict[str, Any], PartCarry, int]:
    """The payload of a conversation's last part and its carry; its input opens with no item of its own (the
    system prompt is ``instructions``)."""
    built = _build_tail_payload(model, context, options)
    return built["body"], built["carry"], 0


def account_header(options: Mapping[str, Any]) -> str:
    """The ``chatgpt-account-id`` header value of a request made with these options."""
    return js_to_string(account_id(options.get("apiKey")))
