"""A source's model names as Pi's catalog names them, and usage priced as Pi prices it.

Pi records each assistant message's `api`, `provider` and `model` and prices its usage from the catalog of the
version that wrote it; an imported message gets the same from the chosen version's catalog. A model the catalog
does not know keeps its id under the source's own provider (Claude Code: anthropic; Codex: openai), unpriced, and
the report says so: nothing is guessed.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from typing import TYPE_CHECKING, Any

from pi_tools.providers.catalog import Model, UnknownModelError, all_models, calculate_cost, get_model
from pi_tools.providers.stream_message import zero_usage

if TYPE_CHECKING:
    from pi_tools.pi import PiVersion


@dataclass(frozen=True)
class ModelRef:
    """Where a source's model lands: Pi's provider, model id and API, and its catalog entry (None: unknown)."""

    provider: str
    model_id: str
    api: str
    entry: Model | None


def resolve_model(pi: PiVersion, provider: str, model_id: str, api: str | None = None) -> ModelRef:
    """`model_id` under `provider` in the version's catalog; else under the one provider that lists that exact
    id (a Bedrock or Vertex id); else unknown, under `provider` with `api` (default: the API the catalog gives
    that provider's models, as Pi would call it)."""
    return _resolve(pi.requests.catalog, provider, model_id, api)


@lru_cache(maxsize=256)
def _resolve(catalog: str, provider: str, model_id: str, api: str | None) -> ModelRef:
    """resolve_model for one catalog (cached: a session names the same few models on every message)."""
    try:
        entry = get_model(provider, model_id, catalog)
        return ModelRef(entry["provider"], entry["id"], entry["api"], entry)
    except UnknownModelError:
        pass
    elsewhere = [entry for entry in all_models(None, catalog) if entry["id"] == model_id]
    if len({entry["provider"] for entry in elsewhere}) == 1:
        entry = elsewhere[0]
        return ModelRef(entry["provider"], entry["id"], entry["api"], entry)
    if api is None:
        try:
            siblings = all_models(provider, catalog)
        except UnknownModelError:
            siblings = []
        api = siblings[0]["api"] if siblings else "unknown"
    return ModelRef(provider, model_id, api, None)


def pi_usage(model: ModelRef, *, input_tokens: int, output_tokens: int, cache_read: int, cache_write: int,
             cache_write_1h: int | None = None) -> dict[str, Any]:
    """Pi's Usage for these token counts, in the key order Pi's providers leave it, priced from the catalog
    (zero cost for a model the catalog does not know)."""
    usage = zero_usage()
    usage["input"] = input_tokens
    usage["output"] = output_tokens
    usage["cacheRead"] = cache_read
    usage["cacheWrite"] = cache_write
    usage["totalTokens"] = input_tokens + output_tokens + cache_read + cache_write
    if cache_write_1h is not None:
        usage["cacheWrite1h"] = cache_write_1h
    if model.entry is not None:
        calculate_cost(model.entry, usage)
    return usage
