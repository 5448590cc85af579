"""`pi-tools usage`: tokens and cost over many sessions, by session, period, model, provider or API."""

from __future__ import annotations

import sys
from typing import Annotated, Any

import typer

from pi_tools.cli.common import EXIT_BAD_INPUT, check_session_folders, default_session_folder, fail, report
from pi_tools.cli.engine_options import EngineKind, Jobs, Scheduler, chosen_engine
from pi_tools.cli.options import (
    PATHS_HELP,
    REFUSAL_VALUE_EXPECTED,
    REFUSAL_VALUE_EXPECTED_ONE_OF,
    CostSource,
    Pi,
    UsageFormat,
    UsageGrouping,
    UsageScope,
    choice_option,
    choices_option,
    chosen_pi,
    format_option,
    output_option,
    paths_argument,
)


def usage_command(
    paths: Annotated[list[str] | None, paths_argument(f"Session {PATHS_HELP} (default: Pi's session folder).")] = None,
    by: Annotated[str, choices_option(
        "--by", UsageGrouping, "Group rows by one key or several, comma-separated (--by model,day): session, day, "
               "week (ISO), month, model, provider, api or kind (message, or a usage entry's kind, e.g. "
               "cache_warm: Pi 1.6).",
        REFUSAL_VALUE_EXPECTED_ONE_OF)] = "day",
    scope: Annotated[UsageScope, choice_option(
        "--scope", UsageScope, "all: every assistant message in the files (as ccusage counts); "
                               "active: only the path from the root to each session's leaf.",
        REFUSAL_VALUE_EXPECTED)] = "all",
    since: Annotated[str | None, typer.Option(
        "--since", metavar="DAY", help="First day to include, in the report's time zone: YYYY-MM-DD, YYYYMMDD, "
                                       "YYYY-MM (its first day), today, yesterday, Nd or Nw (N days or weeks "
                                       "ago: 30d, 2w), this-month or last-month.")] = None,
    until: Annotated[str | None, typer.Option(
        "--until", metavar="DAY", help="Last day to include (inclusive; the same forms, a month to its last "
                                       "day).")] = None,
    month: Annotated[str | None, typer.Option(
        "--month", metavar="YYYY-MM|this|last", help="One calendar month (instead of --since/--until).")] = None,
    fmt: Annotated[UsageFormat, format_option(UsageFormat, "table, json, csv or parquet (parquet needs -o).",
                                              REFUSAL_VALUE_EXPECTED)] = "table",
    out: Annotated[str | None, output_option("Write the rows to this file.", metavar=None)] = None,
    chart: Annotated[str | None, typer.Option(
        "--chart", metavar="OUT.html|OUT.svg|OUT.png",
        help="Also draw cost and tokens over time, coloured by the --by key (Vega-Lite): an offline HTML page "
             "(hover values, width of the page), or an SVG or PNG image, by the file's extension. Needs the "
             "charts extra: pip install 'pi-tools[charts]'.")] = None,
    timezone: Annotated[str | None, typer.Option(
        "--timezone", help="IANA zone that decides which day a message belongs to (default: local, TZ).")] = None,
    dedupe_copies: Annotated[bool, typer.Option(
        "--dedupe-copies", help="Count an entry copied into several files (copies of a session) once: same "
                                "entry id, timestamp and total tokens.")] = False,
    cost: Annotated[CostSource, choice_option(
        "--cost", CostSource, "auto: the stored cost where it is not 0, else recomputed; stored: as stored; "
                              "recomputed: from the pi-ai catalog, else LiteLLM's price table.",
        REFUSAL_VALUE_EXPECTED)] = "auto",
    engine: EngineKind = "local",
    scheduler: Scheduler = None,
    jobs: Jobs = None,
    pi: Pi = None,
) -> None:
    """Report token usage and cost: input, output, cache read/write, total tokens, cost, cache-hit ratio.

    By default a message costs what its session stored, unless that is 0 or missing: then its tokens are priced
    from the pi-ai catalog Pi prices with, else from a bundled snapshot of LiteLLM's price table (the one
    ccusage uses); costSources counts the messages per source (stored, catalog, priceTable, unpriced), and
    the table marks such rows with * (priced here) or ! (no price found, counted as $0). A message's day is its entry
    timestamp in the local time zone (or --timezone), as ccusage decides it. With --scope all, totals match
    `ccusage pi daily`; a copy of a session (a new file Pi starts from an earlier session) repeats its parent's
    entries, so the copied messages count in both files unless --dedupe-copies is given.

    --format json prints one object {"rows": [...], "totals": {...}}; csv and parquet write the rows.

    Under --pi 1.6, usage entries (Pi 1.6's cache warming, kind cache_warm) count as spending, not as messages,
    shown apart (usageEntries, costUsageEntries, --by kind), and a provider-billed cost (cost.totalFromProvider)
    is taken as stored in every --cost mode (costFromProvider).

    Without PATH, reads Pi's session folder ($PI_CODING_AGENT_DIR/sessions, else ~/.pi/agent/sessions).

    When the range holds no usage, stderr says which days the sessions read do cover.

    Examples: pi-tools usage --month last --by model; pi-tools usage --since 30d --by model,day --chart usage.html
    """
    version = chosen_pi(pi, command="usage")
    from pi_tools.output.templates import MissingTemplateError
    from pi_tools.usage.report import UsageError, UsageOptions, collect_usage, empty_range_note, usage_rows

    chosen = chosen_engine(engine, scheduler, jobs, progress="usage")
    if not paths:
        paths = [default_session_folder()]
    check_session_folders(paths)
    options = UsageOptions(by=by, scope=scope, since=since, until=until, month=month, timezone=timezone,
                           dedupe_copies=dedupe_copies, engine=chosen, cost=cost, pi=version)
    from pi_tools.engine import EngineError

    try:
        if fmt == "parquet" and out is None:
            raise UsageError("--format parquet writes a binary file: name it with -o OUT.parquet")
        if chart is not None:
            from pi_tools.usage.chart import check_chart

            check_chart(chart)
        data = collect_usage(paths, options)
        for message in data.errors.values():
            report(message)
        if data.errors and len(data.errors) == data.files:
            raise SystemExit(EXIT_BAD_INPUT)  # nothing was read: no table of zeros
        rows = usage_rows(data, by)
        note = empty_range_note(data)
        if note is not None:
            report(note)
        if chart is not None:
            from pi_tools.usage.chart import write_chart

            write_chart(data, by, chart)
        payload = None if note is not None and fmt == "table" else _render(rows, by, fmt, out, data.shape)
    except (UsageError, MissingTemplateError, EngineError) as exc:
        fail(str(exc))
    except OSError as exc:
        fail(f"{exc.filename or ''}: {exc.strerror or exc}")
    if payload:
        try:
            sys.stdout.buffer.write(payload)
            sys.stdout.flush()
        except BrokenPipeError:
            raise SystemExit(0) from None
    raise SystemExit(EXIT_BAD_INPUT if data.errors else 0)


def _render(rows: Any, by: str, fmt: str, out: str | None, shape: Any) -> bytes | None:
    """The bytes for stdout (None when everything went to -o)."""
    from pi_tools.usage import jsnumbers
    from pi_tools.usage.report import render_table, usage_document, write_rows

    if fmt in ("csv", "parquet"):
        return write_rows(rows, by, fmt, out, shape)
    if fmt == "json":
        text = jsnumbers.dumps(usage_document(rows, shape)) + b"\n"
    else:
        text = render_table(rows, by, shape).encode("utf-8")
    if out is not None:
        from pi_tools.output.atomic import write_atomic

        write_atomic(out, text)
        return None
    return text
