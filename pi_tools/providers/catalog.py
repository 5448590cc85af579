"""The pi-ai model catalog (ids, limits, prices, compat flags) bundled as JSON, plus pi-ai's cost arithmetic.

Payload details such as ``max_tokens``, thinking budgets and image downgrades depend on catalog facts, so the data
is a verbatim copy of the reference package's catalog (see ``scripts/regen_catalog.py``) rather than a hand-kept
table. It is parsed once, on first use, so importing this module stays cheap.
"""

from __future__ import annotations

from functools import cache
from importlib import resources
from typing import Any

import orjson

from pi_tools.providers.errors import UnknownModelError

Model = dict[str, Any]
"""A pi-ai catalog entry: id, name, api, provider, baseUrl, reasoning, input, cost, contextWindow, maxTokens,
and optionally compat, thinkingLevelMap, headers."""

_PER_MILLION = 1000000


DEFAULT_CATALOG = "models.json"
"""The catalog of the base edition (providers.edition.BASE); a Pi version names its own (PiVersion.requests)."""


@cache
def _catalog(name: str = DEFAULT_CATALOG) -> dict[str, Any]:
    raw = resources.files("pi_tools.providers").joinpath("data", name).read_bytes()
    data: dict[str, Any] = orjson.loads(raw)
    return data


def _providers(catalog: str = DEFAULT_CATALOG) -> dict[str, dict[str, Model]]:
    providers: dict[str, dict[str, Model]] = _catalog(catalog)["providers"]
    return providers


def _fresh(model: Model) -> Model:
    """A private deep copy, so a caller mutating its model cannot corrupt the shared catalog."""
    copied: Model = orjson.loads(orjson.dumps(model))
    return copied


def catalog_source(catalog: str = DEFAULT_CATALOG) -> dict[str, Any]:
    """Which pi-ai package (name, version, data timestamp) the bundled catalog was generated from."""
    return dict(_catalog(catalog)["source"])


def providers(catalog: str = DEFAULT_CATALOG) -> list[str]:
    """Provider ids present in the catalog, sorted."""
    return list(_providers(catalog))


def get_model(provider: str, model_id: str, catalog: str = DEFAULT_CATALOG) -> Model:
    """The catalog entry for ``provider``/``model_id`` (a fresh copy); `catalog` names a Pi version's catalog
    (providers.edition.Edition.catalog)."""
    models = _providers(catalog).get(provider)
    if models is None:
        raise UnknownModelError(f"unknown provider {provider!r} (known: {', '.join(_providers(catalog))})")
    model = models.get(model_id)
    if model is None:
        raise UnknownModelError(f"unknown model {model_id!r} for provider {provider!r}")
    return _fresh(model)


def session_model_names(current: Any) -> tuple[str, str] | None:
    """(provider, id) of a session's current model (a context document's `model`), or None when it names none
    the catalog could hold: missing, empty, or not strings (damaged sessions store lists and objects there, which
    Pi's registry lookup never matches)."""
    if not isinstance(current, dict):
        return None
    provider, model_id = current.get("provider"), current.get("modelId")
    if type(provider) is not str or type(model_id) is not str or not provider or not model_id:
        return None
    return provider, model_id


def find_model(reference: str, catalog: str = DEFAULT_CATALOG) -> Model:
    """Resolve ``"provider/id"``; the id keeps any further slashes (``openrouter/anthropic/claude-sonnet-4.5``)."""
    provider, sep, model_id = reference.partition("/")
    if not sep or not provider or not model_id:
        raise UnknownModelError(f"model reference {reference!r} is not of the form 'provider/model-id'")
    return get_model(provider, model_id, catalog)


def all_models(provider: str | None = None, catalog: str = DEFAULT_CATALOG) -> list[Model]:
    """Every catalog entry (or one provider's), in catalog order, as fresh copies."""
    if provider is None:
        return [_fresh(model) for models in _providers(catalog).values() for model in models.values()]
    models = _providers(catalog).get(provider)
    if models is None:
        raise UnknownModelError(f"unknown provider {provider!r}")
    return [_fresh(model) for model in models.values()]


def _rates_for(cost: dict[str, Any], input_tokens: float) -> dict[str, Any]:
    """The highest pricing tier whose threshold the request's total input exceeds, else the base rates."""
    rates = cost
    matched_threshold: float = -1
    for tier in cost.get("tiers") or []:
        threshold = tier["inputTokensAbove"]
        if input_tokens > threshold and threshold > matched_threshold:
            rates = tier
            matched_threshold = threshold
    return rates


def calculate_cost(model: Model, usage: dict[str, Any]) -> dict[str, Any]:
    """Price ``usage`` like pi-ai: sets ``usage["cost"]`` in place and returns it.

    The operation order mirrors the reference (rate / 1e6, then times tokens) so the floats match to the last bit;
    1-hour cache writes are charged at twice the input rate.
    """
    input_tokens = usage.get("input", 0)
    output_tokens = usage.get("output", 0)
    cache_read = usage.get("cacheRead", 0)
    cache_write = usage.get("cacheWrite", 0)
    rates = _rates_for(model["cost"], input_tokens + cache_read + cache_write)
    long_write = usage.get("cacheWrite1h") or 0
    short_write = cache_write - long_write
    cost = usage.get("cost")
    if not isinstance(cost, dict):
        cost = {}
        usage["cost"] = cost
    cost["input"] = (rates["input"] / _PER_MILLION) * input_tokens
    cost["output"] = (rates["output"] / _PER_MILLION) * output_tokens
    cost["cacheRead"] = (rates["cacheRead"] / _PER_MILLION) * cache_read
    cost["cacheWrite"] = (rates["cacheWrite"] * short_write + rates["input"] * 2 * long_write) / _PER_MILLION
    cost["total"] = cost["input"] + cost["output"] + cost["cacheRead"] + cost["cacheWrite"]
    return cost
