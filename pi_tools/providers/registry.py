"""The APIs' functions, reached through the API table and each folder's adapter (`contract.ApiAdapter`).

A thin reader: `adapter(api, edition)` imports the folder the table names for `api` (on first use, so tools that touch
one provider, and the CLI start-up, stay fast) and the functions below add what is the same for every API: the
JavaScript failures of malformed stored data reported with V8's words, the wire body's stringify depth, and the
defaults of the part hooks.
"""

from __future__ import annotations

import importlib
from types import ModuleType
from typing import Any

from pi_tools.js.errors import STACK_EXCEEDED
from pi_tools.js.json_stringify import too_deep_to_stringify
from pi_tools.providers.catalog import Model
from pi_tools.providers.contract import ApiAdapter
from pi_tools.providers.edition import BASE, Edition
from pi_tools.providers.errors import JS_FAILURES, PayloadError
from pi_tools.providers.junk_blocks import AS_STORED, js_failure, objects_for_junk_items
from pi_tools.providers.table import api_names, api_rows, find_row

_ADAPTERS: dict[tuple[str, str], ApiAdapter] = {}


def supported_apis() -> list[str]:
    """API names this toolchain can build requests for (the table's, in its order)."""
    return api_names()


def _unsupported(api: str, known: list[str]) -> ValueError:
    return ValueError(f"unsupported API {api!r}; supported APIs: {', '.join(known)}")


class NotBuiltForEdition(PayloadError):
    """The API's folder has no adapter for the chosen Pi version (pi-tools does not build its requests yet)."""


def speaks_edition(api: str, edition: Edition) -> bool:
    """Whether `api` is one of `edition`'s Pi's APIs: its catalog has a model of it (or the API borrows catalog
    models, as a plug-in does). An API that came with a later Pi is not, whatever pi-tools builds."""
    from pi_tools.providers.catalog import all_models

    row = find_row(api)
    if row is not None and row.borrows_models:
        return True
    return any(model.get("api") == api for model in all_models(catalog=edition.catalog))


def absent_api_refusal(api: str, edition: Edition, version: str = "this Pi version") -> str | None:
    """Why `api` cannot be asked of `edition` at all (`version`: how to name that Pi, e.g. ``Pi <name>``): it is
    not an API of that Pi (speaks_edition). None for an API the table does not know (--api's own error) or one the
    version has, even if pi-tools does not build it for that version yet (NotBuiltForEdition says so then)."""
    if find_row(api) is None or speaks_edition(api, edition):
        return None
    return (f"{version} has no {api} API (its model catalog has no {api} model); pass --pi with a Pi version "
            f"that has it (pi-tools --version lists them)")


def _not_built(api: str, edition: Edition) -> str:
    """Why `api`'s folder has no adapter for `edition`: not one of that Pi's APIs, or not ported to it yet."""
    absent = absent_api_refusal(api, edition)
    if absent is not None:
        return absent[:1].upper() + absent[1:]
    return f"pi-tools does not build {api} requests for this Pi version yet"


def adapter(api: str, edition: Edition = BASE) -> ApiAdapter:
    """The adapter of API `api` for `edition` (its folder's ``<edition.adapter_module>.ADAPTER``), imported on
    first use; ValueError for an API the table does not have, NotBuiltForEdition for a folder without the
    edition's adapter module."""
    key = (api, edition.adapter_module)
    found = _ADAPTERS.get(key)
    if found is None:
        row = find_row(api)
        if row is None:
            raise _unsupported(api, supported_apis())
        name = f"{row.folder}.{edition.adapter_module}"
        try:
            module = importlib.import_module(name)
        except ModuleNotFoundError as exc:
            if exc.name != name:
                raise
            raise NotBuiltForEdition(_not_built(api, edition)) from None
        found = module.ADAPTER
        if not isinstance(found, ApiAdapter):
            raise TypeError(f"{name}.ADAPTER is not an ApiAdapter")
        _ADAPTERS[key] = found
    return found


def builds(api: str, edition: Edition = BASE) -> bool:
    """Whether `api` is built for `edition` (the table has it and its folder has the edition's adapter)."""
    try:
        adapter(api, edition)
    except (NotBuiltForEdition, ValueError):
        return False
    return True


def build_payload(api: str, model: Model, context: dict[str, Any], options: dict[str, Any],
                  edition: Edition = BASE) -> dict[str, Any]:
    """The params object Pi hands to ``onPayload`` for this API.

    Raises :class:`PayloadError` with the text Pi reports, also where the failure is a JavaScript ``TypeError`` or
    ``SyntaxError`` met while reading malformed stored data.
    """
    api_adapter = adapter(api, edition)
    if api_adapter.sends_messages_as_stored:
        try:
            return api_adapter.build_payload(model, context, options)
        except JS_FAILURES as error:
            raise PayloadError(str(error)) from None
    messages = context.get("messages")
    cleaned = objects_for_junk_items(messages)
    if cleaned is not messages:
        if edition.estimates_stored_messages and (model.get("contextWindow") or 0) > 0:
            try:  # the builder's own estimate sees the items made objects: Pi's sees them as stored, first
                edition.estimate({**context, "messages": messages})
            except JS_FAILURES as error:
                raise PayloadError(str(error)) from None
        context = {**context, "messages": cleaned, AS_STORED: messages}
    user_failure = api_adapter.user_content_failure
    by_length = api_adapter.user_text_by_length
    try:
        payload: dict[str, Any] = api_adapter.build_payload(model, context, options)
    except JS_FAILURES as error:
        raise PayloadError(str(error)) from None
    except PayloadError as error:
        # Builders guarded by malformed_input_guard report a Python TypeError as "TypeError: ...".
        failure = js_failure(cleaned, user_failure, by_length) if str(error).startswith("TypeError: ") else None
        if failure is None:
            raise
        raise PayloadError(failure) from None
    except (AttributeError, TypeError, KeyError):
        failure = js_failure(cleaned, user_failure, by_length)  # a Python error JavaScript's would have preceded
        if failure is None:
            raise
        raise PayloadError(failure) from None
    failure = js_failure(cleaned, user_failure, by_length)  # transformMessages and every encoder throw on these first
    if failure is not None:
        raise PayloadError(failure)
    return payload


def build_history(api: str, model: Model, context: dict[str, Any], options: dict[str, Any],
                  trace: Any = None, edition: Edition = BASE) -> Any:
    """The payload messages of a conversation's first part (see pi_tools.providers.split), or None where this
    API or model cannot build them apart from the rest of the conversation. With `trace` (a split.ContentTrace),
    an API that can record where each message went records it there."""
    if trace is not None:
        return adapter(api, edition).build_history_traced(model, context, options, trace)
    return adapter(api, edition).build_history(model, context, options)


def starts_by_continuing(api: str, converted: list[Any], edition: Edition = BASE) -> bool:
    """Whether a part's converted messages may belong with the previous part's last one (see providers.split)."""
    return bool(adapter(api, edition).starts_by_continuing(converted))


def build_tail(api: str, model: Model, context: dict[str, Any], options: dict[str, Any],
               edition: Edition = BASE) -> tuple[dict[str, Any], Any, int]:
    """The payload of a conversation's last part (see providers.split), what its conversion carried across the
    cut, and how many items its message list opens with that belong to no part (a system message)."""
    built = adapter(api, edition).build_tail(model, context, options)
    if built is None:
        return build_payload(api, model, context, options, edition), None, 0
    return built


def encode_part(api: str, converted: list[Any], carry: Any, edition: Edition = BASE) -> tuple[Any, Any]:
    """A part's converted messages as EncodedItems, and its carry (the API may note where in the text it must
    change once the parts before it are known)."""
    return adapter(api, edition).encode_part(converted, carry)


def join_parts(api: str, parts: list[Any], tail: Any, edition: Edition = BASE) -> list[Any] | None:
    """The joined message list of split Parts and their Tail (the API checks their carries), or None where the
    whole conversation would convert differently."""
    return adapter(api, edition).join_parts(parts, tail)


def build_wire(api: str, model: Model, payload: dict[str, Any], options: dict[str, Any],
               edition: Edition = BASE) -> dict[str, Any]:
    """The HTTP request (method, url, headers, body) the vendor SDK would send for ``payload``."""
    api_adapter = adapter(api, edition)
    try:
        wire: dict[str, Any] = api_adapter.build_wire(model, payload, options)
    except JS_FAILURES as error:
        raise PayloadError(str(error)) from None
    if too_deep_to_stringify(wire.get("body")):
        raise PayloadError(STACK_EXCEEDED)  # the SDK's JSON.stringify of the body overflows V8's stack
    return wire


def stream_decoder(api: str, edition: Edition = BASE) -> ModuleType:
    """The module that turns this API's streamed response into pi-ai events and a settled message."""
    row = find_row(api)
    decoder = adapter(api, edition).stream_decoder() if row is not None and row.streams else None
    if decoder is None:
        raise _unsupported(api, [row.name for row in api_rows() if row.streams])
    return decoder


def normalize_tool_call_id_for(api: str, edition: Edition = BASE) -> Any:
    """The API's cross-model tool-call id normaliser, or ``None`` when it keeps ids as they are."""
    return adapter(api, edition).tool_call_id_normalizer()


def request_tool_call_id_normalizer(api: str, edition: Edition = BASE) -> Any:
    """The normaliser as one request of this API runs it (fresh where it is stateful), or None."""
    return adapter(api, edition).request_tool_call_id_normalizer()


def warm_up(api: str, edition: Edition = BASE) -> None:
    """Import what building a payload of this API will need (the engine's helper, while it waits for work)."""
    adapter(api, edition).preload()
