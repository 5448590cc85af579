"""The model that answered a stored assistant message, as a catalog model a request can be built for.

Replaying a request (preflight --replay) and rebuilding the one behind an answer (payload --at) both need it: the
message records provider, model id and API, which the catalog may lack or know under another API.
"""

from __future__ import annotations

from typing import Any


def request_model(message: dict[str, Any], catalog: str | None = None) -> tuple[dict[str, Any] | None, bool]:
    """(the catalog model that answered, whether the catalog has it with that API); where it does not, a stand-in:
    the recorded API's representative model renamed, with the catalog's limits where the model is known (None
    when the message names no model or an API pi-tools does not build). `catalog`: the Pi version's (default:
    the base edition's)."""
    from pi_tools.providers.catalog import DEFAULT_CATALOG, find_model, get_model
    from pi_tools.providers.errors import UnknownModelError
    from pi_tools.providers.table import find_row

    catalog = catalog or DEFAULT_CATALOG
    provider, model_id, api = message.get("provider"), message.get("model"), message.get("api")
    if not isinstance(provider, str) or not isinstance(model_id, str):
        return None, False
    known: dict[str, Any] | None
    try:
        known = get_model(provider, model_id, catalog)
    except UnknownModelError:
        known = None
    if known is not None and (api is None or known.get("api") == api):
        return known, True
    # Not in the catalog, or recorded with another API than the catalog's: that API's representative model,
    # renamed, carries the request (with the catalog's limits where the model is known).
    row = find_row(str(api))
    reference = row.replay_model if row is not None else None
    if reference is None:
        return None, False
    try:
        stand_in = find_model(reference, catalog)
    except UnknownModelError:  # a version whose catalog dropped it (Pi 1.6's has no openai-codex/gpt-5.5)
        from pi_tools.providers.catalog import all_models
        from pi_tools.providers.table import model_speaking

        speaking = (model_speaking(str(api), model) for model in all_models(catalog=catalog))
        found = next((model for model in speaking if model is not None), None)
        if found is None:
            return None, False
        stand_in = found
    # The stand-in's own context window says nothing about this model: unknown (0) unless the catalog knows it.
    stand_in.update({"id": model_id, "name": model_id, "provider": provider, "api": api, "contextWindow": 0})
    if known is not None:
        stand_in.update({k: known[k] for k in ("contextWindow", "maxTokens", "reasoning", "input") if k in known})
    return stand_in, False
