"""`pi-tools decode`: what Pi (--pi) settles from a captured provider response, offline."""

from __future__ import annotations

from typing import Annotated, Any

import typer

from pi_tools.cli.common import EXIT_BAD_INPUT, checked_api_and_model, fail, report
from pi_tools.cli.options import Pi, api_option, model_option, reasoning_option


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
                     now_ms: int, entry: dict[str, Any] | None = None, edition: Any = None) -> list[dict[str, Any]]:
    """The documents `pi-tools decode` prints for one body: event lines (when asked), then the message.

    `entry` ({"index", "url"}) says which response of a HAR file the body is; every document then carries it.
    `edition`: the Pi version's request side (providers.edition.Edition; None: the base edition), whose catalog
    and decoder are used.
    """
    from pi_tools.providers.catalog import find_model
    from pi_tools.providers.decode import classify, decode_response
    from pi_tools.providers.edition import BASE

    edition = edition or BASE
    model = find_model(model_ref, edition.catalog)
    options: dict[str, Any] = {"apiKey": "<redacted>"}
    if reasoning and reasoning != "off":
        options["reasoning"] = reasoning
    found_events, message = decode_response(api, model, status=status, headers=headers,
                                            chunks=[body] if body else [], options=options, now_ms=now_ms,
                                            edition=edition)
    where: dict[str, Any] = {} if entry is None else {"entry": entry}
    documents: list[dict[str, Any]] = []
    if events:
        documents.extend({"kind": "event", "source": source, **where, "index": index, "event": event}
                         for index, event in enumerate(found_events))
    documents.append({"kind": "message", "source": source, **where, "api": api, "model": model_ref,
                      "message": message, "classification": classify(message, model)})
    return documents


def decode_command(
    capture_file: Annotated[str, typer.Argument(metavar="FILE", help="A captured response: the bare body (an SSE transcript, Bedrock's binary event stream, an error body), a raw HTTP response as curl -i or curl -D - write it, or a HAR file.")],
    api: Annotated[str, api_option("The provider API the response came from.", streaming=True)] = ...,  # type: ignore[assignment]
    model: Annotated[str | None, model_option("Catalog model the request was for (prices the usage; default: a typical model of the API).")] = None,
    status: Annotated[int | None, typer.Option("--status", metavar="N", help="HTTP status a bare body came with (default 200).")] = None,
    reasoning: Annotated[str | None, reasoning_option("Thinking level the request asked for.")] = None,
    header: Annotated[list[str] | None, typer.Option("--header", metavar="'NAME: VALUE'", help="A response header of a bare body (repeatable), e.g. Bedrock's x-amzn-errortype.")] = None,
    events: Annotated[bool, typer.Option("--events", help="Also print every stream event Pi would push, before the message.")] = False,
    pi: Pi = None,
) -> None:
    """Decode a captured provider response the way Pi (--pi) does: the AssistantMessage it would settle.

    FILE is told apart by its content: a raw HTTP response (`curl -i`, `curl -D -`; interim 100 Continue blocks
    skipped, chunked framing and gzip undone where the bytes still have them) gives its own status and headers;
    a HAR file (browser devtools, mitmproxy) gives one message per response, in file order, each with
    `"entry": {"index", "url"}` (credentials in the URL redacted), all decoded as --api; anything else is the
    body, sent with --status and --header.

    Prints `{"kind":"message","source","api","model","message","classification"}`, preceded with --events by one
    `{"kind":"event",...}` line per stream event. Timestamps come from the clock; SOURCE_DATE_EPOCH (seconds)
    fixes them for reproducible output. A HAR entry that cannot be decoded becomes an `error` document (exit 2).

    Example: pi-tools decode --api anthropic-messages --events capture.sse | jq -c .event.type
    """
    from pi_tools.loop import now_ms
    from pi_tools.pipe.documents import DocumentWriter
    from pi_tools.providers.capture import CapturedResponse, CaptureError, read_capture
    from pi_tools.providers.table import find_row

    row = find_row(api)
    model_ref = model or (row.representative_model if row is not None else None)
    from pi_tools.pi import resolve
    from pi_tools.providers.registry import NotBuiltForEdition, stream_decoder

    version = resolve(pi)
    checked_api_and_model(api, model_ref, version)
    if model_ref is None:
        fail(f"--model is required for --api {api}")
    try:
        stream_decoder(api, version.requests)
    except NotBuiltForEdition as exc:
        fail(f"--api {api}: {exc}")
    try:
        with open(capture_file, "rb") as handle:
            data = handle.read()
    except OSError as exc:
        fail(f"{capture_file}: cannot read: {exc.strerror or exc}")
    try:
        capture = read_capture(data)
    except CaptureError as exc:
        fail(f"{capture_file}: {exc}")
    if capture.kind == "body":
        capture.items.append(CapturedResponse(200 if status is None else status, _parse_headers(header or []), data))
    elif status is not None or header:
        shape = "a raw HTTP response" if capture.kind == "http" else "a HAR file"
        fail(f"{capture_file}: --status and --header are for a bare body; this is {shape}, which carries its own")
    if not capture.items:
        fail(f"{capture_file}: a HAR file with no entries: nothing to decode")
    writer = DocumentWriter()
    clock = now_ms()
    exit_status = 0
    for item in capture.items:
        if not isinstance(item, CapturedResponse):
            report(f"{capture_file}: {item.problem}")
            writer.write({"kind": "error", "source": capture_file, "entry": item.entry, "error": item.problem})
            exit_status = EXIT_BAD_INPUT
            continue
        for document in decode_documents(item.body, source=capture_file, api=api, model_ref=model_ref,
                                         status=item.status, headers=item.headers, reasoning=reasoning,
                                         events=events, now_ms=clock, entry=item.entry,
                                         edition=version.requests):
            writer.write(document)
    writer.flush()
    raise SystemExit(exit_status)
