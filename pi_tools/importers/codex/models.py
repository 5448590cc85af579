"""Which Pi provider, API and catalog model a Codex turn corresponds to, and its usage and cost as Pi stores them.

Codex talks to OpenAI in one of two ways, and a rollout says which:
- signed in with ChatGPT, its requests go to ChatGPT's Codex backend (Pi's `openai-codex` provider, API
  `openai-codex-responses`). That backend answers with the `x-codex-*` rate-limit headers, which Codex records
  as each `token_count` event's `rate_limits` (primary/secondary windows, the plan, credits);
- with an API key, to the Responses API (Pi's `openai` provider, API `openai-responses`), which sends no such
  headers: `rate_limits` stays null.
So a rollout with a recorded rate-limit window is a ChatGPT session, one whose token counts all have none is an
API-key session, and one without token counts (the older layouts) says nothing: it is taken as `openai` and noted.
A `model_provider` other than `openai` in the session's metadata (Azure, Ollama, OpenRouter, ...) is kept as the
provider's name.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from pi_tools.providers.catalog import Model, all_models, calculate_cost, get_model, providers
from pi_tools.providers.errors import UnknownModelError

CHATGPT = "openai-codex"
"""Pi's provider for ChatGPT sign-ins (the API is its catalog models' API, ChatGPT's Codex backend)."""
API_KEY = "openai"
"""Pi's provider for API keys (the API is its catalog models' API, OpenAI's Responses API: Codex's own)."""

EFFORT_LEVELS = {"none": "off", "minimal": "minimal", "low": "low", "medium": "medium", "high": "high",
                 "xhigh": "xhigh"}
"""Codex's reasoning efforts as Pi's thinking levels (Codex's `none` is Pi's `off`)."""


@dataclass(frozen=True)
class Route:
    """The provider and API a session's turns are stored under, and why."""

    provider: str
    api: str
    reason: str


def has_rate_limits(payload: Any) -> bool:
    """Whether a `token_count` event records a ChatGPT rate-limit window."""
    limits = payload.get("rate_limits") if isinstance(payload, dict) else None
    return isinstance(limits, dict) and any(isinstance(limits.get(key), dict) for key in ("primary", "secondary"))


def route(model_provider: Any, token_counts: list[Any], catalog: str) -> Route:
    """The session's provider from its metadata and its `token_count` events (see the module's docstring); the
    API is the one the catalog's models of that provider speak."""
    if isinstance(model_provider, str) and model_provider and model_provider != "openai":
        known = model_provider in providers(catalog)
        reason = f"the session's model_provider is {model_provider!r}"
        if not known:
            reason += "; Pi's catalog has no such provider, so its API is taken as OpenAI's Responses API, Codex's"
        return Route(model_provider, provider_api(model_provider if known else API_KEY, catalog), reason)
    if any(has_rate_limits(payload) for payload in token_counts):
        return Route(CHATGPT, provider_api(CHATGPT, catalog),
                     "its token counts record ChatGPT rate-limit windows (signed in with ChatGPT)")
    if token_counts:
        return Route(API_KEY, provider_api(API_KEY, catalog),
                     "its token counts record no ChatGPT rate limits (an API key)")
    return Route(API_KEY, provider_api(API_KEY, catalog),
                 "nothing in it says how Codex signed in (no token counts); taken as an API key")


def provider_api(provider: str, catalog: str) -> str:
    """The API a provider's catalog models speak: OpenAI's Responses API (what Codex speaks) when it is among
    them, else the first one."""
    responses = {str(model["api"]) for model in all_models(API_KEY, catalog)}
    apis = [str(model["api"]) for model in all_models(provider, catalog)]
    return next((api for api in apis if api in responses), apis[0])


@dataclass
class PricedModel:
    """The catalog entry a turn is priced with (None: no price anywhere in the catalog) and how it was found."""

    model: Model | None
    api: str
    note: str | None


def price_model(route_: Route, model_id: str, catalog: str) -> PricedModel:
    """The catalog entry of `model_id` under the route's provider, else the same id under `openai` for its
    price (the ChatGPT catalog lists fewer models than the API's, at the same prices)."""
    try:
        model = get_model(route_.provider, model_id, catalog)
        return PricedModel(model, str(model["api"]), None)
    except UnknownModelError:
        pass
    for fallback in ("openai", "openai-codex"):
        if fallback == route_.provider:
            continue
        try:
            model = get_model(fallback, model_id, catalog)
        except UnknownModelError:
            continue
        return PricedModel(model, route_.api, f"{route_.provider}/{model_id} is not in Pi's catalog; kept under "
                                              f"{route_.provider} and priced as {fallback}/{model_id}")
    return PricedModel(None, route_.api, f"{route_.provider}/{model_id} is not in Pi's catalog; kept as it is, "
                                         "cost 0")


def usage_of(tokens: dict[str, Any] | None, model: Model | None) -> dict[str, Any]:
    """Pi's `usage` of one request from Codex's token usage (OpenAI's counts: input includes cached input), in
    the key order Pi's Responses providers write, priced with the catalog's arithmetic."""
    if tokens is None:
        usage: dict[str, Any] = {"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0, "totalTokens": 0,
                                 "cost": {"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0, "total": 0}}
        return usage
    cached = _count(tokens.get("cached_input_tokens"))
    usage = {
        "input": max(0, _count(tokens.get("input_tokens")) - cached),
        "output": _count(tokens.get("output_tokens")),
        "cacheRead": cached,
        "cacheWrite": 0,
        "reasoning": _count(tokens.get("reasoning_output_tokens")),
        "totalTokens": _count(tokens.get("total_tokens")),
        "cost": {"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0, "total": 0},
    }
    if model is not None:
        calculate_cost(model, usage)
    return usage


def _count(value: Any) -> int:
    return value if isinstance(value, int) and not isinstance(value, bool) and value >= 0 else 0
