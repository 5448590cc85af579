"""`pi-tools decode`: what Pi 0.85 settles from a captured provider response, offline."""

from __future__ import annotations

from typing import Annotated, Any

import typer

from pi_tools.cli.common import checked_api_and_model, fail


def _parse_headers(values: list[str]) -> dict[str, str]:
    headers: dict[str, str] = {}
    for value in values:
        name, colon, text = value.partition(":")
        if not colon or not name.strip():
            fail(f"--header {value!r}: expected NAME: VALUE")
        headers[name.strip().lower()] = text.strip()
    return headers


def decode_documents(body: bytes, *, source: str, api: str, model_ref: str, status: int,
                     headers: dict[str, str], reasoning: str | None, events: bool,
                     now_ms: int) -> list[dict[str, Any]]:
    """The documents `pi-tools decode` prints for one body: event lines (when asked), then the message."""
    from pi_tools.providers.catalog import find_model
    from pi_tools.providers.decode import classify, decode_response

    model = find_model(model_ref)
    options: dict[str, Any] = {"apiKey": "<redacted>"}
    if reasoning and reasoning != "off":
        options["reasoning"] = reasoning
    found_events, message = decode_response(api, model, status=status, headers=headers,
                                            chunks=[body] if body else [], options=options, now_ms=now_ms)
    documents: list[dict[str, Any]] = []
    if events:
        documents.extend({"kind": "event", "source": source, "index": index, "event": event}
                         for index, event in enumerate(found_events))
    documents.append({"kind": "message", "source": source, "api": api, "model": model_ref, "message": message,
                      "classification": classify(message, model)})
    return documents


def decode_command(
    body_file: Annotated[str, typer.Argument(metavar="BODY_FILE", help="Captured response body: an SSE transcript, Bedrock's binary event stream, or an error body.")],
    api: Annotated[str, typer.Option("--api", help="anthropic-messages, openai-completions, openai-responses, google-generative-ai, mistral-conversations or bedrock-converse-stream.")] = ...,  # type: ignore[assignment]
    model: Annotated[str | None, typer.Option("--model", metavar="PROVIDER/ID", help="Catalog model the request was for (prices the usage; default: a typical model of the API).")] = None,
    status: Annotated[int, typer.Option("--status", metavar="N", help="HTTP status the body came with.")] = 200,
    reasoning: Annotated[str | None, typer.Option("--reasoning", metavar="LEVEL", help="Thinking level the request asked for.")] = None,
    header: Annotated[list[str] | None, typer.Option("--header", metavar="'NAME: VALUE'", help="A response header (repeatable), e.g. Bedrock's x-amzn-errortype.")] = None,
    events: Annotated[bool, typer.Option("--events", help="Also print every stream event Pi would push, before the message.")] = False,
) -> None:
    """Decode a captured provider response the way Pi 0.85 does: the AssistantMessage it would settle.

    Prints `{"kind":"message","source","api","model","message","classification"}`, preceded with --events by one
    `{"kind":"event",...}` line per stream event. Timestamps come from the clock; SOURCE_DATE_EPOCH (seconds)
    fixes them for reproducible output.

    Example: pi-tools decode --api anthropic-messages --events capture.sse | jq -c .event.type
    """
    from pi_tools.docs import DocumentWriter
    from pi_tools.loop import now_ms
    from pi_tools.providers.registry import REPRESENTATIVE_MODELS

    model_ref = model or REPRESENTATIVE_MODELS.get(api)
    checked_api_and_model(api, model_ref)
    if model_ref is None:
        fail(f"--model is required for --api {api}")
    try:
        with open(body_file, "rb") as handle:
            body = handle.read()
    except OSError as exc:
        fail(f"{body_file}: cannot read: {exc.strerror or exc}")
    writer = DocumentWriter()
    for document in decode_documents(body, source=body_file, api=api, model_ref=model_ref, status=status,
                                     headers=_parse_headers(header or []), reasoning=reasoning, events=events,
                                     now_ms=now_ms()):
        writer.write(document)
    writer.flush()
