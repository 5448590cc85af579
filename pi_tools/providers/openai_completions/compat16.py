"""The compatibility profile of an OpenAI-compatible endpoint as Pi 1.6 resolves it (``compat.py`` holds 0.85's).

What 1.6 changed in the guess made before the catalog's ``compat`` is laid over it:

- the ``developer`` role is assumed for OpenAI itself only (provider ``openai`` or an api.openai.com URL; 0.85 also
  gave it to every standard host and to OpenRouter's anthropic/ and openai/ models);
- strict tool schemas are never assumed (a model must say ``supportsStrictMode``);
- OpenRouter sends its session-affinity header by default;
- new fields: ``requiresNonNullAssistantContent`` and ``requiresToolsWithToolHistory`` (both off unless the
  catalog says so), ``supportsMidConvoSystemMessages`` / ``supportsMidConvoToolAdditions`` (system messages and
  tool additions kept in place), ``promptCacheKeyMode`` (catalog only, no guess);
- ``deferredToolsMode`` is gone (tool additions come from the transcript's system messages).
"""

from __future__ import annotations

from typing import Any

from ..catalog import Model
from .compat import detect_compat

_OVERRIDABLE = (
    "supportsStore",
    "supportsDeveloperRole",
    "supportsReasoningEffort",
    "supportsUsageInStreaming",
    "supportsFinishReason",
    "maxTokensField",
    "requiresToolResultName",
    "requiresAssistantAfterToolResult",
    "requiresNonNullAssistantContent",
    "requiresToolsWithToolHistory",
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
    "supportsMidConvoSystemMessages",
    "supportsMidConvoToolAdditions",
    "cacheControlFormat",
    "sendSessionAffinityHeaders",
    "sessionAffinityFormat",
    "supportsLongCacheRetention",
)


def _is_openai(model: Model) -> bool:
    return model.get("provider") == "openai" or "api.openai.com" in str(model.get("baseUrl", ""))


def _is_openrouter(model: Model) -> bool:
    return model.get("provider") == "openrouter" or "openrouter.ai" in str(model.get("baseUrl", ""))


def detect_compat16(model: Model) -> dict[str, Any]:
    """The profile Pi 1.6 assumes for a host before the catalog's explicit ``compat`` is applied."""
    detected = detect_compat(model)
    del detected["deferredToolsMode"]
    openrouter = _is_openrouter(model)
    detected.update(
        {
            "supportsDeveloperRole": _is_openai(model),
            "requiresNonNullAssistantContent": False,
            "requiresToolsWithToolHistory": False,
            "supportsStrictMode": False,
            "supportsMidConvoSystemMessages": False,
            "supportsMidConvoToolAdditions": False,
            "sendSessionAffinityHeaders": openrouter,
            "promptCacheKeyMode": None,
        }
    )
    return detected


def resolve_compat16(model: Model) -> dict[str, Any]:
    """The detected profile overlaid with the catalog's ``compat`` (null or absent fields keep the guess);
    ``openRouterRouting`` is the catalog's or ``{}``, ``promptCacheKeyMode`` and ``vllmPriority`` the catalog's."""
    resolved = detect_compat16(model)
    explicit = model.get("compat")
    if not explicit:
        return resolved
    for field in _OVERRIDABLE:
        value = explicit.get(field)
        if value is not None:
            resolved[field] = value
    routing = explicit.get("openRouterRouting")
    resolved["openRouterRouting"] = routing if routing is not None else {}
    resolved["promptCacheKeyMode"] = explicit.get("promptCacheKeyMode")
    resolved["vllmPriority"] = explicit.get("vllmPriority")
    return resolved
