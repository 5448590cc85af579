"""The Chat Completions request body as Pi 1.6's ``streamSimple`` hands it to ``onPayload`` (``payload.py`` holds
0.85's; what did not change is imported from there).

Pi 1.6 builds from a transcript: the context's systemPrompt and tools become a leading system message
(transcript.normalize_context), which the model's compat keeps in place (``supportsMidConvoSystemMessages``) or
collapses with every later one into one leading prompt. A system message becomes an instruction message (role
``developer`` for a reasoning model whose compat takes it, else ``system``): the first as its whole prompt, a later
one as a rendered update. Tools go in the top-level list, except those a later system message adds on a model
that takes additions in place (``supportsMidConvoToolAdditions``), which follow that message as a
``{role: "system", tools}`` entry (Kimi's form).

Beyond that, 1.6 drops empty user text parts (and a user message left empty), sends ``(no tool output)`` for a
whitespace-only tool result, writes ``strict`` only for a model that says it supports it, sends ``tools: []`` with
a tool history only where the compat requires it, keys ``prompt_cache_key`` on ``promptCacheKeyMode``, takes
sampling parameters per thinking level, and drops other models' thinking (TRANSFORM_16).
"""

from __future__ import annotations

from typing import Any

from pi_tools.js.access import block_field, block_type, content_array, copy_defined, js_join_piece
from pi_tools.js.strings import js_is_blank
from pi_tools.js.values import js_truthy
from pi_tools.providers.data_url import image_data_url
from pi_tools.providers.junk_blocks import js_length_above_zero
from pi_tools.providers.sanitize import sanitize_surrogates

from ..catalog import Model
from ..constrained_sampling import (
    grammar_input_properties,
    json_schema_tool_parameters,
    resolve_grammar,
    resolve_json_schema_strict,
)
from ..options import clamp_thinking_level, resolve_cache_retention
from ..options16 import build_base_options, resolve_sampling_params
from ..transcript import (
    declared_tools,
    normalize_context,
    render_system_message_update,
    resolve_transcript,
    resolve_transcript_tools,
    system_message_text,
)
from ..transform_messages import TRANSFORM_16, transform_messages
from .compat16 import resolve_compat16
from .payload import (
    _TOOL_IMAGES_INTRO,
    _TOOL_RESULT_BRIDGE,
    _UNSET,
    _apply_cache_markers,
    _apply_reasoning,
    _assistant_message,
    _cache_marker,
    _clamp_cache_key,
    _has_tool_history,
    _pipe_id_digests,
    _thinking_budget,
    _tool_history,
    normalize_tool_call_id,
    require_api_key,
)
from .payload import convert_tools as convert_tools_085


def tool_support(compat: dict[str, Any]) -> str:
    """How the model takes tool changes after the first request: additions in place only where both its
    mid-conversation system messages and tool additions are declared (true, not merely truthy)."""
    if compat["supportsMidConvoSystemMessages"] is True and compat["supportsMidConvoToolAdditions"] is True:
        return "additions"
    return "none"


def convert_tools(tools: list[dict[str, Any]], compat: dict[str, Any]) -> list[dict[str, Any]]:
    """Tool definitions as 0.85 writes them (``payload.convert_tools``), with 1.6's strict rule: a schema node
    without a type keeps a `prefer` tool non-strict."""
    converted: list[dict[str, Any]] = []
    supports_strict = compat["supportsStrictMode"] is not False
    for tool in tools:
        if resolve_grammar(tool, bool(compat["supportsOpenAIGrammarTools"])) is not None:
            converted.extend(convert_tools_085([tool], compat))
            continue
        strict = resolve_json_schema_strict(tool, supports_strict, typed_only=True)
        function = copy_defined({}, tool, "name", "description")
        parameters = json_schema_tool_parameters(tool, strict, typed_only=True)
        if parameters is not None or "parameters" in tool:
            function["parameters"] = parameters
        if supports_strict:
            function["strict"] = bool(strict)
        converted.append({"type": "function", "function": function})
    return converted


def _user_message(message: dict[str, Any]) -> dict[str, Any] | None:
    """A user turn; empty text parts are left out, and a message left with no part is not sent."""
    content = message.get("content")
    if isinstance(content, str):
        return {"role": "user", "content": sanitize_surrogates(content)}
    parts: list[dict[str, Any]] = []
    for item in content or []:
        if item.get("type") == "text":
            text = item["text"]
            if type(text) is str:
                if len(text) > 0:
                    parts.append({"type": "text", "text": sanitize_surrogates(text)})
            elif js_length_above_zero(text):  # kept, then sanitizeSurrogates throws: registry.js_failure says how
                raise TypeError("text.replace is not a function")
        else:
            parts.append({"type": "image_url", "image_url": {"url": image_data_url(item)}})
    if not parts:
        return None
    return {"role": "user", "content": parts}


def _tool_result_message(message: dict[str, Any], compat: dict[str, Any]) -> tuple[dict[str, Any], bool]:
    """One tool result (a whitespace-only text counts as none) and whether it holds images."""
    blocks = content_array(message, "toolMsg.content.filter")
    text = "\n".join(js_join_piece(block_field(block, "text")) for block in blocks if block_type(block) == "text")
    has_images = any(block_type(block) == "image" for block in blocks)
    body = text if not js_is_blank(text) else "(see attached image)" if has_images else "(no tool output)"
    converted: dict[str, Any] = {"role": "tool", "content": sanitize_surrogates(body)}
    if "toolCallId" in message:
        converted["tool_call_id"] = message["toolCallId"]
    if compat["requiresToolResultName"] and message.get("toolName"):
        converted["name"] = message["toolName"]
    return converted, has_images


def convert_messages(model: Model, transcript: list[dict[str, Any]], compat: dict[str, Any],
                     grammar_properties: dict[Any, str], state: dict[str, Any] | None = None,
                     id_map: dict[str, str] | None = None) -> list[dict[str, Any]]:
    """The ``messages`` array of a (resolved) transcript.

    `state`, when given, receives what a part of a transcript carries to the next (payload.join_parts):
    ``last_role`` (_UNSET when no message but system ones set it), ``leading_users`` (the user messages before
    the first other message that set it: each would get a bridge after tool results of the part before) and
    ``opening`` (the items the leading system messages made); `id_map` receives the renamed tool-call ids."""
    digests = _pipe_id_digests(transcript, model)
    normalizer = normalize_tool_call_id if not digests else (
        lambda tool_call_id, target, assistant: normalize_tool_call_id(tool_call_id, target, assistant, digests))
    messages = transform_messages(transcript, model, normalizer, id_map=id_map, rules=TRANSFORM_16)
    folded = resolve_transcript_tools(transcript, tool_support(compat))[1]  # type: ignore[arg-type]
    instruction_role = "developer" if model.get("reasoning") and compat["supportsDeveloperRole"] else "system"
    # The assistant conversion of 0.85 writes "" for a null content where the host needs an assistant message
    # after tool results; 1.6 also does so where the host refuses a null content.
    assistant_compat = {**compat, "requiresAssistantAfterToolResult": bool(
        compat["requiresAssistantAfterToolResult"] or compat["requiresNonNullAssistantContent"])}
    bridge_after_tools = bool(compat["requiresAssistantAfterToolResult"])
    accepts_images = "image" in (model.get("input") or [])
    converted: list[dict[str, Any]] = []
    last_role: Any = _UNSET
    system_index = 0
    leading_users = 0
    opening: int | None = None
    index = 0
    count = len(messages)
    while index < count:
        message = messages[index]
        role = message.get("role")
        if state is not None and role != "system":
            if opening is None:
                opening = len(converted)
            if role == "user" and last_role in (_UNSET, "system"):
                leading_users += 1
        if bridge_after_tools and last_role == "toolResult" and role == "user":
            converted.append({"role": "assistant", "content": _TOOL_RESULT_BRIDGE})
        if role == "system":
            added = (message.get("toolsAdded") or []) if system_index >= folded else []
            system_index += 1
            if len(added) > 0:
                converted.append({"role": "system", "tools": convert_tools(added, compat)})
            text = system_message_text(message) if index == 0 else render_system_message_update(message)
            if len(text) > 0:
                converted.append({"role": instruction_role, "content": sanitize_surrogates(text)})
        elif role == "user":
            user = _user_message(message)
            if user is None:
                index += 1
                continue
            converted.append(user)
        elif role == "assistant":
            assistant = _assistant_message(message, model, assistant_compat, grammar_properties)
            if assistant is None:
                index += 1
                continue
            converted.append(assistant)
        elif role == "toolResult":
            image_parts: list[dict[str, Any]] = []
            while index < count and messages[index].get("role") == "toolResult":
                result = messages[index]
                tool_message, has_images = _tool_result_message(result, compat)
                converted.append(tool_message)
                if has_images and accepts_images:
                    image_parts.extend({"type": "image_url", "image_url": {"url": image_data_url(block)}}
                                       for block in result["content"] if block_type(block) == "image")
                index += 1
            if image_parts:
                if bridge_after_tools:
                    converted.append({"role": "assistant", "content": _TOOL_RESULT_BRIDGE})
                converted.append({"role": "user",
                                  "content": [{"type": "text", "text": _TOOL_IMAGES_INTRO}, *image_parts]})
                last_role = "user"
            else:
                last_role = "toolResult"
            continue
        index += 1
        last_role = role
    if state is not None:
        state["last_role"] = _UNSET if last_role == "system" else last_role
        state["leading_users"] = leading_users
        state["opening"] = len(converted) if opening is None else opening
    return converted


def _sends_prompt_cache_key(model: Model, compat: dict[str, Any], retention: str) -> bool:
    mode = compat.get("promptCacheKeyMode") or "auto"
    if retention == "none":
        return False
    if mode == "enabled":
        return True
    return mode == "auto" and ("api.openai.com" in str(model.get("baseUrl", "")) or (
        retention == "long" and bool(compat["supportsLongCacheRetention"])))


def build_params(model: Model, transcript: list[dict[str, Any]], request: dict[str, Any], compat: dict[str, Any],
                 retention: str, grammar_properties: dict[Any, str],
                 record: dict[str, Any] | None = None) -> dict[str, Any]:
    """pi-ai 1.6 ``buildParams`` for a resolved transcript and already-resolved request options. `record`, when
    given, receives what joining this transcript to parts before it must check (payload.join_parts)."""
    request_tools, _ = resolve_transcript_tools(transcript, tool_support(compat))  # type: ignore[arg-type]
    messages = convert_messages(model, transcript, compat, grammar_properties, record)
    marker = _cache_marker(compat, retention)
    # prompt_cache_key and prompt_cache_retention are set from the start, possibly undefined: that fixes their
    # place when sampling parameters fill them in later.
    params: dict[str, Any] = {"model": model.get("id"), "messages": messages, "stream": True}
    params["prompt_cache_key"] = (_clamp_cache_key(request.get("sessionId"))
                                  if _sends_prompt_cache_key(model, compat, retention) else None)
    params["prompt_cache_retention"] = "24h" if retention == "long" and compat["supportsLongCacheRetention"] else None
    placeholders = {key for key in ("prompt_cache_key", "prompt_cache_retention") if params[key] is None}

    if compat["supportsUsageInStreaming"] is not False:
        params["stream_options"] = {"include_usage": True}
    if compat["supportsStore"]:
        params["store"] = False
    max_tokens = request.get("maxTokens")
    if js_truthy(max_tokens):
        params["max_tokens" if compat["maxTokensField"] == "max_tokens" else "max_completion_tokens"] = max_tokens
    if request.get("temperature") is not None:
        params["temperature"] = request["temperature"]

    if record is not None:
        record["before_tools"] = list(params)
    if request_tools:
        params["tools"] = convert_tools(request_tools, compat)
        if compat["zaiToolStream"]:
            params["tool_stream"] = True
    elif compat["requiresToolsWithToolHistory"] and _has_tool_history(transcript):
        params["tools"] = []
    marked = None
    if marker is not None:
        marked = _apply_cache_markers(messages, params.get("tools"), marker)
    if record is not None:
        record["marker"] = marker is not None
        record["marked"] = marked
        record["tool_history"] = (None if request_tools or not compat["requiresToolsWithToolHistory"]
                                  else _tool_history(transcript))
    if js_truthy(request.get("toolChoice")):
        params["tool_choice"] = request["toolChoice"]
    if compat.get("vllmPriority") is not None:
        params["priority"] = compat["vllmPriority"]

    budget_field = compat["thinkingTokenBudgetField"] or (
        "thinking_token_budget" if compat["supportsThinkingTokenBudget"] else None)
    budget = _thinking_budget(model, request, params)
    _apply_reasoning(params, model, compat, request.get("reasoningEffort"), budget)
    if budget_field and budget is not None:
        params[budget_field] = budget

    explicit = model.get("compat") or {}
    if js_truthy(explicit.get("openRouterRouting")):
        params["provider"] = explicit["openRouterRouting"]
    gateway: Any = explicit.get("vercelGatewayRouting")
    if isinstance(gateway, dict) and (js_truthy(gateway.get("only")) or js_truthy(gateway.get("order"))):
        gateway_options: dict[str, Any] = {}
        if js_truthy(gateway.get("only")):
            gateway_options["only"] = gateway["only"]
        if js_truthy(gateway.get("order")):
            gateway_options["order"] = gateway["order"]
        params["providerOptions"] = {"gateway": gateway_options}
    sampling = resolve_sampling_params(model, request.get("reasoningEffort") or "off", request.get("samplingParams"))
    if sampling:
        params.update(sampling)
        placeholders.difference_update(sampling)
    for key in placeholders:
        del params[key]
    return params


def request_options(model: Model, transcript: list[dict[str, Any]], options: dict[str, Any]) -> dict[str, Any]:
    """``streamSimple``'s options for this API: the 1.6 base options (output budget over the transcript), tool
    choice, the clamped reasoning effort and the thinking budgets."""
    require_api_key(model, options)
    base = build_base_options(model, transcript, options)
    reasoning = options.get("reasoning")
    clamped = clamp_thinking_level(model, reasoning) if reasoning else None
    return {
        **base,
        "toolChoice": options.get("toolChoice"),
        "reasoningEffort": None if clamped == "off" else clamped,
        "thinkingBudgets": options.get("thinkingBudgets"),
    }


_CLOUDFLARE_PLACEHOLDERS = ("CLOUDFLARE_ACCOUNT_ID", "CLOUDFLARE_GATEWAY_ID")


def cloudflare_target(model: Model, options: dict[str, Any]) -> Model:
    """Cloudflare's providers fill the account and gateway placeholders of the endpoint from the request's own
    provider environment (``options.env``; not the process's)."""
    env = options.get("env")
    if not env:
        return model
    base_url = str(model.get("baseUrl", ""))
    for name in _CLOUDFLARE_PLACEHOLDERS:
        value = env.get(name)
        if value is not None:
            base_url = base_url.replace("{" + name + "}", str(value))
    return model if base_url == model.get("baseUrl") else {**model, "baseUrl": base_url}


def provider_target(model: Model, options: dict[str, Any]) -> tuple[Model, str | None]:
    """(the model with the endpoint its provider resolves, the deployment name Azure sends as the request's model
    when it differs from the model id). Azure resolves its endpoint before anything else (a missing one fails
    the request); Cloudflare fills its placeholders (cloudflare_target); other providers' models are themselves."""
    if str(model.get("provider")).startswith("cloudflare-"):
        return cloudflare_target(model, options), None
    if model.get("provider") != "azure":
        return model, None
    from pi_tools.providers.openai_responses.payload import azure_deployment_name, azure_endpoint

    env = dict(options.get("env") or {})  # the request's own endpoint options win over the environment
    explicit_url = options.get("azureBaseUrl")
    if isinstance(explicit_url, str) and explicit_url.strip():
        env["AZURE_OPENAI_BASE_URL"] = explicit_url
    if options.get("azureResourceName"):
        env["AZURE_OPENAI_RESOURCE_NAME"] = options["azureResourceName"]
    scoped = {**options, "env": env}
    resolved = {**model, "baseUrl": azure_endpoint(model, scoped)[0]}
    deployment = options.get("azureDeploymentName") or azure_deployment_name(model, scoped)
    return resolved, (deployment if deployment != model.get("id") else None)


def build_payload(model: Model, context: dict[str, Any], options: dict[str, Any],
                  record: dict[str, Any] | None = None) -> dict[str, Any]:
    """The params object Pi 1.6 passes to ``onPayload`` for this model, context (``{systemPrompt?, tools?,
    messages}``) and SimpleStreamOptions (`record`: see build_params)."""
    model, deployment = provider_target(model, options)
    transcript = normalize_context(context)
    request = request_options(model, transcript, options)
    compat = resolve_compat16(model)
    resolved = resolve_transcript(transcript, compat["supportsMidConvoSystemMessages"])
    grammar_properties = grammar_input_properties(declared_tools(resolved),
                                                  bool(compat["supportsOpenAIGrammarTools"]))
    params = build_params(model, resolved, request, compat, resolve_cache_retention(options), grammar_properties,
                          record)
    return params if deployment is None else {**params, "model": deployment}


def build_history(model: Model, context: dict[str, Any],
                  options: dict[str, Any]) -> tuple[list[dict[str, Any]], dict[str, str], dict[str, Any]]:
    """The messages of a part of the transcript before its last (providers.split), holding no system message (the
    leading one, made of the context's systemPrompt and tools, opens the last part), the tool-call ids it renamed,
    and its carry for payload.join_parts: the convert_messages state, what the part says about tool history,
    whether bridges are made."""
    model, _ = provider_target(model, options)
    compat = resolve_compat16(model)
    resolved = resolve_transcript(normalize_context({**context, "messages": []}),
                                  compat["supportsMidConvoSystemMessages"])
    grammar_properties = grammar_input_properties(declared_tools(resolved),
                                                  bool(compat["supportsOpenAIGrammarTools"]))
    messages = context.get("messages") or []
    state: dict[str, Any] = {}
    renamed: dict[str, str] = {}
    converted = convert_messages(model, messages, compat, grammar_properties, state, renamed)
    state["tool_history"] = _tool_history(messages)
    state["bridges"] = bool(compat["requiresAssistantAfterToolResult"])
    return converted, renamed, state


def build_tail(model: Model, context: dict[str, Any], options: dict[str, Any]) -> tuple[dict[str, Any], Any, int]:
    """The payload of the transcript's last part (built as build_payload builds it), its carry (as
    build_history's, plus where the cache marker went and whether the whole history decides the tools), and how
    many items its message list opens with that the leading system message made."""
    record: dict[str, Any] = {}
    params = build_payload(model, context, options, record)
    opening = record["opening"]
    if record["marked"] is not None:
        record["marked"] -= opening
    record["bridges"] = bool(resolve_compat16(provider_target(model, options)[0])["requiresAssistantAfterToolResult"])
    return params, record, opening
