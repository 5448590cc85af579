"""Real providers over HTTP: the request `pi-tools payload --wire` describes, sent with httpx and decoded
while it streams.

The body is built by the payload stage itself (``stages.payload_document``), so what goes over the wire is,
byte for byte, what `pi-tools payload` prints for the same context. The API key is read from the provider's
usual environment variable and put into the request only here, at send time, in place of the redaction
placeholder; it never enters a payload document, an event, an error text or the session.
"""

from __future__ import annotations

import os
import platform
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any
from urllib.parse import urlsplit, urlunsplit

from pi_tools.loop import now_ms
from pi_tools.loop.agent import EventSink, StreamFunction, StreamSetupError
from pi_tools.loop.signals import ABORT_MESSAGE, AbortInterrupt, AbortSignal, interruptible
from pi_tools.providers.streaming import EventEmitter, TransportError, fail_output, new_output


def http_apis() -> list[str]:
    """The APIs `pi-tools run` can reach over HTTP: the table's rows marked `http`, in table order."""
    from pi_tools.providers.table import api_rows

    return [row.name for row in api_rows() if row.http]


# pi-ai's provider → environment variable map (env-api-keys.ts) for the providers these APIs serve.
_KEY_VARIABLES: dict[str, tuple[str, ...]] = {
    "anthropic": ("ANTHROPIC_API_KEY",),
    "openai": ("OPENAI_API_KEY",),
    "google": ("GEMINI_API_KEY",),
    "groq": ("GROQ_API_KEY",),
    "cerebras": ("CEREBRAS_API_KEY",),
    "xai": ("XAI_API_KEY",),
    "openrouter": ("OPENROUTER_API_KEY",),
    "deepseek": ("DEEPSEEK_API_KEY",),
    "mistral": ("MISTRAL_API_KEY",),
    "zai": ("ZAI_API_KEY",),
    "nvidia": ("NVIDIA_API_KEY",),
    "together": ("TOGETHER_API_KEY",),
    "fireworks": ("FIREWORKS_API_KEY",),
    "huggingface": ("HF_TOKEN",),
    "moonshotai": ("MOONSHOT_API_KEY",),
    "minimax": ("MINIMAX_API_KEY",),
    "vercel-ai-gateway": ("AI_GATEWAY_API_KEY",),
    "opencode": ("OPENCODE_API_KEY",),
    "kimi-coding": ("KIMI_API_KEY",),
    "xiaomi": ("XIAOMI_API_KEY",),
    "baseten": ("BASETEN_API_KEY",),
}

_REDACTED = "<redacted>"


def api_key_variables(provider: str) -> tuple[str, ...]:
    """The environment variables a provider's key is read from (``<PROVIDER>_API_KEY`` when unknown)."""
    fallback = provider.upper().replace("-", "_") + "_API_KEY"
    return _KEY_VARIABLES.get(provider, (fallback,))


def find_api_key(provider: str) -> str | None:
    for name in api_key_variables(provider):
        value = os.environ.get(name)
        if value:
            return value
    return None


def _platform_values() -> dict[str, str]:
    return {
        "<platform>": sys.platform,
        "<os-release>": platform.release(),
        "<arch>": {"x86_64": "x64", "aarch64": "arm64"}.get(platform.machine(), platform.machine()),
        "<node-version>": "0.0.0",
    }


def sendable_headers(headers: dict[str, str], api_key: str) -> dict[str, str]:
    """The wire headers with the key and the platform placeholders filled in (only ever used to send)."""
    values = _platform_values()
    result: dict[str, str] = {}
    for name, value in headers.items():
        if name.lower() == "content-length":
            continue
        text = str(value).replace(_REDACTED, api_key)
        for placeholder, actual in values.items():
            text = text.replace(placeholder, actual)
        result[name] = text
    return result


def redirect(url: str, catalog_base: str, base_url: str | None) -> str:
    """The request URL with the catalog base swapped for ``--base-url`` (path after the base kept)."""
    if not base_url:
        return url
    base = base_url.rstrip("/")
    catalog = catalog_base.rstrip("/")
    if catalog and url.startswith(catalog):
        return base + url[len(catalog):]
    target = urlsplit(base)
    parts = urlsplit(url)
    return urlunsplit((target.scheme, target.netloc, parts.path, parts.query, parts.fragment))


def scrub_secret(value: Any, secret: str) -> None:
    """Replace ``secret`` in every string of a JSON value, in place (a server may echo the key in an error)."""
    if not secret:
        return
    stack = [value]
    while stack:
        node = stack.pop()
        items = list(node.items()) if isinstance(node, dict) else list(enumerate(node)) if isinstance(node, list) else []
        for key, item in items:
            if isinstance(item, str):
                if secret in item:
                    node[key] = item.replace(secret, _REDACTED)
            elif isinstance(item, (dict, list)):
                stack.append(item)


class _LiveEmitter(EventEmitter):
    """Hands every decoder event to the loop as it is pushed (with its live ``partial``), keeping no copies."""

    def __init__(self, push: EventSink) -> None:
        super().__init__()
        self._push = push

    def _deliver(self, event: dict[str, Any]) -> None:
        self._push(event)


def _body_chunks(response: Any, abort: AbortSignal, options: dict[str, Any]) -> Iterator[bytes]:
    """The response body as it arrives; a cut connection or an abort ends it with a TransportError."""
    import httpx

    iterator = response.iter_bytes()
    while not abort.aborted:
        try:
            with interruptible():
                if abort.aborted:
                    break
                data = next(iterator, None)
        except AbortInterrupt:
            break
        except (httpx.HTTPError, OSError, ValueError) as exc:
            if abort.aborted:
                break
            raise TransportError("terminated") from exc
        if data is None:
            return
        if data:
            yield data
    if abort.aborted:
        options["aborted"] = True
        raise TransportError(ABORT_MESSAGE)


class ConnectFailed(Exception):
    """No response at all (refused, unreachable, aborted before the headers): the SDKs' ``Connection error.``"""


@contextmanager
def open_stream(method: str, url: str, headers: dict[str, str], body: bytes, abort: AbortSignal,
                options: dict[str, Any], *, timeout: float = 600.0) -> Iterator[tuple[int, dict[str, str], Iterator[bytes]]]:
    """Send one request and give (status, lower-cased headers, body chunks as they arrive).

    The chunks raise :class:`TransportError` when the connection is cut (``terminated``, as undici says) or
    the run is aborted (then ``options["aborted"]`` is set, which decoders read like Pi's ``signal.aborted``).
    """
    import httpx

    client = httpx.Client(timeout=httpx.Timeout(timeout, connect=30.0), follow_redirects=False)
    try:
        try:
            request_context = client.stream(method, url, headers=headers, content=body)
            with interruptible():
                response = request_context.__enter__()
        except (httpx.HTTPError, OSError, RuntimeError, AbortInterrupt) as exc:
            raise ConnectFailed(type(exc).__name__) from None
        try:
            yield (response.status_code, {key.lower(): value for key, value in response.headers.items()},
                   _body_chunks(response, abort, options))
        finally:
            try:
                request_context.__exit__(None, None, None)
            except Exception:  # noqa: BLE001 - closing a dead connection may fail; nothing to report
                pass
    finally:
        client.close()


def http_stream_function(api: str, *, session_id: str, thinking_level: str, base_url: str | None,
                         source: str, timeout: float = 600.0, preflight: Any = None,
                         pi: str | None = None) -> StreamFunction:
    """A provider that POSTs Pi's request for each model call and decodes the streamed answer; `preflight`
    (model, messages, payload, system prompt, tools) -> reason, when given, may refuse a request before it is sent.
    `pi`: the Pi version whose request is built (the payload stage's `pi`; None: its default)."""

    from pi_tools.pi import resolve

    edition = resolve(pi).requests  # the version's decoders, as its requests

    def stream(model: dict[str, Any], llm_context: dict[str, Any], options: dict[str, Any], abort: AbortSignal,
               push: EventSink) -> dict[str, Any]:
        from pi_tools.pipe.documents import DocumentError
        from pi_tools.pipeline.stages import PayloadRequest, payload_document
        from pi_tools.providers.registry import stream_decoder

        api_key = find_api_key(str(model["provider"]))
        if not api_key:
            raise StreamSetupError(f"No API key for provider: {model['provider']}")
        llm_doc = {"kind": "llm", "source": source, "header": {"id": session_id}, "thinkingLevel": thinking_level,
                   "model": None, "messages": llm_context["messages"]}
        if pi is not None:
            llm_doc["pi"] = pi
        request = PayloadRequest(api=api, model=f"{model['provider']}/{model['id']}",
                                 system_prompt=llm_context.get("systemPrompt"), tools=llm_context.get("tools"),
                                 reasoning=thinking_level, session_id=session_id, wire=True)
        try:
            document = payload_document(llm_doc, request)
        except DocumentError as exc:
            raise StreamSetupError(str(exc)) from None
        emitter = _LiveEmitter(push)
        started_at = now_ms()
        if document.get("kind") == "error":
            return fail_output(new_output(model, started_at), emitter, str(document.get("error")))
        wire = document["wire"]
        if "error" in wire:
            return fail_output(new_output(model, started_at), emitter, str(wire["error"]))
        if preflight is not None:
            refused = preflight(model, llm_context["messages"], document["payload"], llm_context.get("systemPrompt"),
                                llm_context.get("tools"))
            if refused:
                return fail_output(new_output(model, started_at), emitter, refused)
        if abort.aborted:
            return fail_output(new_output(model, started_at), emitter, ABORT_MESSAGE, aborted=True)
        from pi_tools.js.json_stringify import js_stringify

        body = js_stringify(wire["body"]).encode("utf-8", "surrogatepass")
        url = redirect(wire["url"], str(model.get("baseUrl") or ""), base_url)
        decoder_options = {**options, "apiKey": "<redacted>", "sessionId": session_id}
        if thinking_level and thinking_level != "off":
            decoder_options["reasoning"] = thinking_level
        try:
            with open_stream(wire["method"], url, sendable_headers(wire["headers"], api_key), body, abort,
                             decoder_options, timeout=timeout) as (status, headers, chunks):
                settled: dict[str, Any] = stream_decoder(api, edition).decode(
                    model, status=status, headers=headers, chunks=chunks, options=decoder_options,
                    now_ms=started_at, emitter=emitter)
        except ConnectFailed:
            message = ABORT_MESSAGE if abort.aborted else "Connection error."
            return fail_output(new_output(model, started_at), emitter, message, aborted=abort.aborted)
        if abort.aborted and settled.get("stopReason") == "error":
            settled["stopReason"] = "aborted"
        scrub_secret(settled, api_key)
        return settled

    return stream
