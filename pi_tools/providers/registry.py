"""Maps pi-ai API names to the subpackages that build their payloads, HTTP requests and stream decoders.

API modules pull in sizeable code (schemas, SDK-shaped request builders); importing them only when an API is
actually used keeps tools that touch a single provider, and the CLI start-up, fast.
"""

from __future__ import annotations

import importlib
from types import ModuleType
from typing import Any

from pi_tools.js.errors import STACK_EXCEEDED
from pi_tools.js.json_stringify import too_deep_to_stringify
from pi_tools.providers.catalog import Model
from pi_tools.providers.errors import JS_FAILURES, PayloadError
from pi_tools.providers.junk_blocks import AS_STORED, js_failure, objects_for_junk_items

API_MODULES: dict[str, str] = {
    "anthropic-messages": "anthropic_messages",
    "openai-completions": "openai_completions",
    "openai-responses": "openai_responses",
    "google-generative-ai": "google_generative_ai",
    # Vertex speaks the same generateContent dialect; only the endpoint and auth differ.
    "google-vertex": "google_generative_ai",
    "mistral-conversations": "mistral_conversations",
    "bedrock-converse-stream": "bedrock_converse_stream",
}


VARIANT_APIS: dict[str, tuple[str, str]] = {
    # Azure's Responses adapter shares the item conversion; only the params, endpoint and auth differ.
    "azure-openai-responses": ("openai_responses", "azure"),
}
"""APIs built by a variant inside another API's package: (package, prefix of its ``build_<prefix>_*`` functions).

They have request builders but no stream decoder of their own, so ``stream_decoder`` does not accept them.
"""


REPRESENTATIVE_MODELS: dict[str, str] = {
    "anthropic-messages": "anthropic/claude-sonnet-4-5",
    "openai-completions": "groq/openai/gpt-oss-120b",
    "openai-responses": "openai/gpt-5.1",
    "google-generative-ai": "google/gemini-2.5-flash",
    "mistral-conversations": "mistral/mistral-medium-latest",
    "bedrock-converse-stream": "amazon-bedrock/anthropic.claude-sonnet-4-5-20250929-v1:0",
}
"""The model each API is shown or decoded with when neither --model nor the session names one: the catalog
entries the conformance goldens and stream recordings mostly use."""


def supported_apis() -> list[str]:
    """API names this toolchain can build requests for."""
    return [*API_MODULES, *VARIANT_APIS]


def _unsupported(api: str, known: list[str]) -> ValueError:
    return ValueError(f"unsupported API {api!r}; supported APIs: {', '.join(known)}")


def _api_module(api: str, part: str) -> ModuleType:
    package = API_MODULES.get(api)
    if package is None:
        raise _unsupported(api, list(API_MODULES))
    return importlib.import_module(f"pi_tools.providers.{package}.{part}")


def _builder(api: str, part: str) -> Any:
    """``build_<part>`` of the API's ``<part>.py`` module (``build_<variant>_<part>`` for a variant API)."""
    variant = VARIANT_APIS.get(api)
    if variant is None:
        if api not in API_MODULES:
            raise _unsupported(api, supported_apis())
        return getattr(_api_module(api, part), f"build_{part}")
    package, prefix = variant
    module = importlib.import_module(f"pi_tools.providers.{package}.{part}")
    return getattr(module, f"build_{prefix}_{part}")


def build_payload(api: str, model: Model, context: dict[str, Any], options: dict[str, Any]) -> dict[str, Any]:
    """The params object Pi hands to ``onPayload`` for this API.

    Raises :class:`PayloadError` with the text Pi reports, also where the failure is a JavaScript ``TypeError`` or
    ``SyntaxError`` met while reading malformed stored data.
    """
    messages = context.get("messages")
    cleaned = objects_for_junk_items(messages)
    if cleaned is not messages:
        context = {**context, "messages": cleaned, AS_STORED: messages}
    try:
        payload: dict[str, Any] = _builder(api, "payload")(model, context, options)
    except JS_FAILURES as error:
        raise PayloadError(str(error)) from None
    except PayloadError as error:
        # Builders guarded by malformed_input_guard report a Python TypeError as "TypeError: ...".
        failure = js_failure(cleaned, api) if str(error).startswith("TypeError: ") else None
        if failure is None:
            raise
        raise PayloadError(failure) from None
    except (AttributeError, TypeError, KeyError):
        failure = js_failure(cleaned, api)  # a Python error that JavaScript's would have preceded
        if failure is None:
            raise
        raise PayloadError(failure) from None
    failure = js_failure(cleaned, api)  # transformMessages and every encoder throw on these before anything else
    if failure is not None:
        raise PayloadError(failure)
    return payload


def _part_hook(api: str, name: str) -> Any:
    """The payload module's function `name` that building in parts calls (see providers.split), or None.

    A variant API has its own ``build_<prefix>_history``/``build_<prefix>_tail`` and shares its package's other
    hooks (encode_part, join_parts, starts_by_continuing) unless it defines ``<prefix>_<name>``."""
    variant = VARIANT_APIS.get(api)
    if variant is None:
        if api not in API_MODULES:
            return None
        return getattr(_api_module(api, "payload"), name, None)
    package, prefix = variant
    module = importlib.import_module(f"pi_tools.providers.{package}.payload")
    if name.startswith("build_"):
        return getattr(module, f"build_{prefix}_{name[len('build_'):]}", None)
    return getattr(module, f"{prefix}_{name}", None) or getattr(module, name, None)


def build_history(api: str, model: Model, context: dict[str, Any], options: dict[str, Any],
                  trace: Any = None) -> Any:
    """The payload messages of a conversation's first part (see pi_tools.providers.split), or None where this
    API or model cannot build them apart from the rest of the conversation. With `trace` (a split.ContentTrace),
    an API that can record where each message went (``build_history_traced``) records it there."""
    if trace is not None:
        traced = _part_hook(api, "build_history_traced")
        if traced is not None:
            return traced(model, context, options, trace)
    history = _part_hook(api, "build_history")
    return None if history is None else history(model, context, options)


def starts_by_continuing(api: str, converted: list[Any]) -> bool:
    """Whether a part's converted messages may belong with the previous part's last one (see providers.split)."""
    check = _part_hook(api, "starts_by_continuing")
    return bool(check(converted)) if check is not None else False


def build_tail(api: str, model: Model, context: dict[str, Any], options: dict[str, Any]) -> tuple[dict[str, Any], Any, int]:
    """The payload of a conversation's last part (see providers.split), what its conversion carried across the
    cut, and how many items its message list opens with that belong to no part (a system message)."""
    tail = _part_hook(api, "build_tail")
    if tail is None:
        return build_payload(api, model, context, options), None, 0
    built: tuple[dict[str, Any], Any, int] = tail(model, context, options)
    return built


def encode_part(api: str, converted: list[Any], carry: Any) -> tuple[Any, Any]:
    """A part's converted messages as EncodedItems, and its carry (the API may note where in the text it must
    change once the parts before it are known: ``encode_part`` in its payload module)."""
    encode = _part_hook(api, "encode_part")
    if encode is not None:
        return encode(converted, carry)  # type: ignore[no-any-return]
    from pi_tools.pipe.documents import EncodedItems, dump_items

    return EncodedItems(dump_items(converted), len(converted)), carry


def join_parts(api: str, parts: list[Any], tail: Any) -> list[Any] | None:
    """The joined message list of split Parts and their Tail (the API's ``join_parts`` checks their carries), or
    None where the whole conversation would convert differently."""
    join = _part_hook(api, "join_parts")
    if join is None:
        return [*(part.messages for part in parts), tail.messages]
    return join(parts, tail)  # type: ignore[no-any-return]


def build_wire(api: str, model: Model, payload: dict[str, Any], options: dict[str, Any]) -> dict[str, Any]:
    """The HTTP request (method, url, headers, body) the vendor SDK would send for ``payload``."""
    try:
        wire: dict[str, Any] = _builder(api, "wire")(model, payload, options)
    except JS_FAILURES as error:
        raise PayloadError(str(error)) from None
    if too_deep_to_stringify(wire.get("body")):
        raise PayloadError(STACK_EXCEEDED)  # the SDK's JSON.stringify of the body overflows V8's stack
    return wire


def stream_decoder(api: str) -> ModuleType:
    """The module that turns this API's streamed response into pi-ai events and a settled message."""
    return _api_module(api, "stream")


def normalize_tool_call_id_for(api: str) -> Any:
    """The API's cross-model tool-call id normaliser, or ``None`` when it keeps ids as they are."""
    variant = VARIANT_APIS.get(api)
    if variant is not None:
        package, prefix = variant
        module = importlib.import_module(f"pi_tools.providers.{package}.payload")
        return getattr(module, f"normalize_{prefix}_tool_call_id", None)
    return getattr(_api_module(api, "payload"), "normalize_tool_call_id", None)
