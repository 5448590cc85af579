"""Compatibility profile of an OpenAI-compatible endpoint (pi-ai ``detectCompat`` + ``getCompat``).

Chat Completions is spoken by dozens of hosts that each deviate a little (field names, roles, reasoning knobs).
Pi guesses a profile from the provider id and base URL, then lets the catalog's ``compat`` object override it
field by field; every payload rule downstream reads only this resolved profile, so the guess must be exact.
"""

from __future__ import annotations

from typing import Any

from ..catalog import Model

# Fields whose catalog value replaces the detected one when present (``??`` semantics: null/absent fall back).
_OVERRIDABLE = (
    "supportsStore",
    "supportsDeveloperRole",
    "supportsReasoningEffort",
    "supportsUsageInStreaming",
    "supportsFinishReason",
    "maxTokensField",
    "requiresToolResultName",
    "requiresAssistantAfterToolResult",
    "requiresThinkingAsText",
    "requiresReasoningContentOnAssistantMessages",
    "thinkingFormat",
    "vercelGatewayRouting",
    "chatTemplateKwargs",
    "chatTemplateArgs",
    "zaiToolStream",
    "supportsThinkingTokenBudget",
    "thinkingTokenBudgetField",
    "supportsStrictMode",
    "supportsOpenAIGrammarTools",
    "cacheControlFormat",
    "sendSessionAffinityHeaders",
    "deferredToolsMode",
    "sessionAffinityFormat",
    "supportsLongCacheRetention",
)


def _host_family(model: Model) -> dict[str, bool]:
    """Which known host a model talks to; the provider id or a base-URL substring is enough for each."""
    provider = str(model.get("provider", ""))
    base_url = str(model.get("baseUrl", ""))
    is_zai = provider in ("zai", "zai-coding-cn") or "api.z.ai" in base_url or "open.bigmodel.cn" in base_url
    is_together = provider == "together" or "api.together.ai" in base_url or "api.together.xyz" in base_url
    return {
        "zai": is_zai,
        "together": is_together,
        "moonshot": provider in ("moonshotai", "moonshotai-cn") or "api.moonshot." in base_url,
        "openrouter": provider == "openrouter" or "openrouter.ai" in base_url,
        "cf_workers": provider == "cloudflare-workers-ai" or "api.cloudflare.com" in base_url,
        "cf_gateway": provider == "cloudflare-ai-gateway" or "gateway.ai.cloudflare.com" in base_url,
        "nvidia": provider == "nvidia" or "integrate.api.nvidia.com" in base_url,
        "ant_ling": provider == "ant-ling" or "api.ant-ling.com" in base_url,
        "deepseek": provider == "deepseek" or "deepseek.com" in base_url.lower(),
        "grok": provider == "xai" or "api.x.ai" in base_url,
        "cerebras": provider == "cerebras" or "cerebras.ai" in base_url,
        "chutes": "chutes.ai" in base_url,
        "opencode": provider == "opencode" or "opencode.ai" in base_url,
    }


def detect_compat(model: Model) -> dict[str, Any]:
    """The profile Pi assumes for a host before the catalog's explicit ``compat`` is applied."""
    host = _host_family(model)
    provider = str(model.get("provider", ""))
    model_id = str(model.get("id", ""))
    non_standard = any(
        host[name]
        for name in (
            "nvidia",
            "cerebras",
            "grok",
            "together",
            "chutes",
            "deepseek",
            "zai",
            "moonshot",
            "opencode",
            "cf_workers",
            "cf_gateway",
            "ant_ling",
        )
    )
    use_max_tokens = any(
        host[name]
        for name in ("chutes", "deepseek", "moonshot", "cf_gateway", "together", "nvidia", "ant_ling", "zai")
    )
    developer_role_on_openrouter = host["openrouter"] and model_id.startswith(("anthropic/", "openai/"))
    if host["deepseek"]:
        thinking_format = "deepseek"
    elif host["zai"]:
        thinking_format = "zai"
    elif host["together"]:
        thinking_format = "together"
    elif host["ant_ling"]:
        thinking_format = "ant-ling"
    elif host["openrouter"]:
        thinking_format = "openrouter"
    else:
        thinking_format = "openai"
    no_effort = ("grok", "zai", "moonshot", "together", "cf_gateway", "nvidia", "ant_ling")
    return {
        "supportsStore": not non_standard,
        "supportsDeveloperRole": developer_role_on_openrouter
        or (not non_standard and not host["openrouter"]),
        "supportsReasoningEffort": not any(host[name] for name in no_effort),
        "supportsUsageInStreaming": True,
        "supportsFinishReason": True,
        "maxTokensField": "max_tokens" if use_max_tokens else "max_completion_tokens",
        "requiresToolResultName": False,
        "requiresAssistantAfterToolResult": False,
        "requiresThinkingAsText": False,
        "requiresReasoningContentOnAssistantMessages": host["deepseek"],
        "thinkingFormat": thinking_format,
        "openRouterRouting": {},
        "vercelGatewayRouting": {},
        "chatTemplateKwargs": {},
        "chatTemplateArgs": {},
        "zaiToolStream": False,
        "supportsThinkingTokenBudget": False,
        "thinkingTokenBudgetField": None,
        "supportsStrictMode": not any(
            host[name] for name in ("moonshot", "together", "cf_gateway", "nvidia")
        ),
        "supportsOpenAIGrammarTools": False,
        "cacheControlFormat": "anthropic"
        if provider == "openrouter" and model_id.startswith("anthropic/")
        else None,
        "sendSessionAffinityHeaders": False,
        "deferredToolsMode": None,
        "sessionAffinityFormat": "openrouter" if host["openrouter"] else "openai",
        "supportsLongCacheRetention": not any(
            host[name] for name in ("together", "cf_workers", "cf_gateway", "nvidia", "ant_ling")
        ),
        "vllmPriority": None,
    }


def resolve_compat(model: Model) -> dict[str, Any]:
    """Detected profile overlaid with the catalog's ``compat`` (a null/absent field keeps the detected value).

    Two fields do not follow the overlay: ``openRouterRouting`` is the catalog value or ``{}`` and
    ``vllmPriority`` only ever comes from the catalog, as in the reference.
    """
    resolved = detect_compat(model)
    explicit = model.get("compat")
    if not explicit:
        return resolved
    for field in _OVERRIDABLE:
        value = explicit.get(field)
        if value is not None:
            resolved[field] = value
    routing = explicit.get("openRouterRouting")
    resolved["openRouterRouting"] = routing if routing is not None else {}
    resolved["vllmPriority"] = explicit.get("vllmPriority")
    return resolved
