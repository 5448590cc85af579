"""`pi-tools trace`: sessions as OpenTelemetry GenAI traces, sent over OTLP or written as OTLP JSON."""

from __future__ import annotations

from typing import Annotated

import typer

from pi_tools.cli.common import (
    EXIT_BAD_INPUT,
    EXIT_OK,
    check_session_folders,
    default_session_folder,
    fail,
    report,
    session_files,
)
from pi_tools.cli.engine_options import EngineKind, Jobs, Scheduler, chosen_engine, engine_failed
from pi_tools.cli.options import (
    PATHS_HELP,
    REFUSAL_VALUE_EXPECTED,
    ExportBranches,
    Pi,
    TraceContent,
    choice_option,
    chosen_pi,
    output_option,
    paths_argument,
)


def trace_command(
    paths: Annotated[list[str] | None, paths_argument(f"Session {PATHS_HELP} (default: Pi's session folder).")] = None,
    endpoint: Annotated[str | None, typer.Option(
        "--endpoint", metavar="URL",
        help="The OTLP HTTP receiver's base URL (/v1/traces is appended), e.g. http://127.0.0.1:6006 "
             "(default: $OTEL_EXPORTER_OTLP_TRACES_ENDPOINT, else $OTEL_EXPORTER_OTLP_ENDPOINT). Needs the otel "
             "extra: pip install 'pi-tools[otel]'.")] = None,
    header: Annotated[list[str] | None, typer.Option(
        "--header", metavar="K=V",
        help="An HTTP header for the receiver (repeatable; beside $OTEL_EXPORTER_OTLP_HEADERS'). Never printed.")]
        = None,
    content: Annotated[TraceContent, choice_option(
        "--content", TraceContent, "none: no message text, arguments or results leave the machine (ids, models, "
                                   "tokens, costs and times only); redacted: the content with secrets replaced "
                                   "by scrub's detectors; full: the content as stored.",
        REFUSAL_VALUE_EXPECTED)] = "none",
    branches: Annotated[ExportBranches, choice_option(
        "--branches", ExportBranches, "active: the path from the root to each session's leaf; all: every entry "
                                      "of the file, abandoned branches marked pi.branch.abandoned.",
        REFUSAL_VALUE_EXPECTED)] = "active",
    out: Annotated[str | None, output_option("Write OTLP JSON (an ExportTraceServiceRequest) to this file "
                                             "instead of sending (- for stdout).", metavar="FILE")] = None,
    since: Annotated[str | None, typer.Option(
        "--since", metavar="DAY",
        help="Only what happened from this day on (midnight, local time; the forms usage takes: YYYY-MM-DD, "
             "YYYY-MM, today, yesterday, Nd, Nw, this-month, last-month): spans that start then or later, under "
             "their session's span; sessions with nothing since are left out.")] = None,
    manifest: Annotated[str | None, typer.Option(
        "--manifest", metavar="FILE",
        help="Incremental runs: FILE records what was delivered; unchanged sessions are skipped and grown ones "
             "send only their new spans.")] = None,
    engine: EngineKind = "local",
    scheduler: Scheduler = None,
    jobs: Jobs = None,
    pi: Pi = None,
) -> None:
    """Turn sessions into OpenTelemetry traces with the GenAI semantic conventions: each session one trace (an
    invoke_agent span), each assistant message a chat span (provider, models, tokens with cache reads and
    writes, finish reason, response id, cost), each tool call an execute_tool span (call to result), and
    compactions, branch summaries, model and thinking changes, system prompts and context edits events.
    Trace and span ids derive from the session and entry ids, so sending twice duplicates nothing in a back end
    that deduplicates by id. Mapping: docs/trace.md.

    Sends over OTLP HTTP/protobuf to --endpoint (or the OTEL_EXPORTER_OTLP_* environment), or writes OTLP JSON
    with -o. Exit 2 when a file could not be traced (each named on stderr; the others are) or the receiver
    refused the spans.

    Example: pi-tools trace ~/.pi/agent/sessions --endpoint http://127.0.0.1:6006 --manifest trace.json
    """
    version = chosen_pi(pi)
    from pi_tools.pi import resolve
    from pi_tools.trace.mapping import TraceOptions
    from pi_tools.trace.send import has_endpoint, parse_headers

    if out is not None and (endpoint is not None or header):
        fail("-o FILE writes OTLP JSON; --endpoint and --header send: give one or the other")
    if out is None and not has_endpoint(endpoint):
        fail("nowhere to put the traces: give -o FILE (OTLP JSON) or --endpoint URL (or set "
             "OTEL_EXPORTER_OTLP_ENDPOINT)")
    try:
        headers = parse_headers(header or [])
    except ValueError as exc:
        fail(str(exc))
    from pi_tools.trace.since import SinceError, since_moment

    try:
        moment = since_moment(since) if since is not None else None
    except SinceError as exc:
        fail(str(exc))
    chosen = chosen_engine(engine, scheduler, jobs, progress="trace")
    paths = paths or [default_session_folder()]
    check_session_folders(paths)
    files = session_files(paths)
    resolved = version or resolve()
    options = TraceOptions(content=content, branches=branches, spending=resolved.spending, since=moment)
    from pi_tools.engine import EngineError
    from pi_tools.trace.manifest import ManifestError
    from pi_tools.trace.run import TraceError, TraceRun, run_trace
    from pi_tools.trace.send import SendError

    run = TraceRun(files, options, resolved.name, out=out, endpoint=endpoint, headers=headers, manifest=manifest)
    try:
        summary = run_trace(run, chosen)
    except (TraceError, ManifestError, SendError) as exc:
        fail(str(exc))
    except EngineError as exc:
        engine_failed(exc)
    for message in summary.errors:
        report(message)
    from pi_tools.output.words import counted

    where = out if out is not None else "the receiver"
    unchanged = f", {summary.unchanged} unchanged" if manifest is not None else ""
    if since is not None:
        unchanged += f", {counted(summary.quiet, 'session')} with nothing since {since}"
    report(f"{counted(summary.sessions, 'session')}, {counted(summary.spans, 'span')} to {where}{unchanged}")
    raise SystemExit(EXIT_BAD_INPUT if summary.errors else EXIT_OK)
