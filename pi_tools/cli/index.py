"""`pi-tools index`: session files as Parquet tables (sessions, entries, messages, tool_calls, usage)."""

from __future__ import annotations

from typing import Annotated

import typer

from pi_tools.cli.common import EXIT_BAD_INPUT, EXIT_OK, default_session_folder, fail, report


def index_command(
    paths: Annotated[list[str] | None, typer.Argument(help="Session files or folders (searched recursively for *.jsonl; default: Pi's session folder).")] = None,
    out: Annotated[str | None, typer.Option("-o", "--output", metavar="OUT", help="The index folder (created, or brought up to date).")] = None,
    jobs: Annotated[int | None, typer.Option("--jobs", metavar="N", help="Worker processes (default: one per core when it helps).")] = None,
) -> None:
    """Write the sessions as Parquet tables a database reads: OUT/<table>/*.parquet for sessions, entries,
    messages, tool_calls and usage (columns in docs/index.md).

    Incremental: OUT/manifest.json records each file's size, mtime and content hash, so a second run reads only
    files that changed, indexes new ones and drops the rows of files no longer among the inputs; the tables are
    then what a fresh index would hold. Readers never see a half-written table. Exit 2 when an input could not
    be indexed (each is named on stderr with its line and problem; the others are indexed).

    Example: pi-tools index ~/.pi/agent/sessions -o idx && duckdb -c "select name, count(*) from 'idx/tool_calls/*.parquet' group by 1"
    """
    from pi_tools.corpus.index import StoreError, index_corpus
    from pi_tools.engine import Engine, EngineError

    if out is None:
        fail("-o OUT: name the index folder")
    if not paths:
        paths = [default_session_folder()]
    try:
        engine = Engine(jobs=jobs, progress="index")
        result = index_corpus(paths, out, engine)
    except (StoreError, EngineError) as exc:
        fail(str(exc))
    except OSError as exc:
        fail(f"{exc.filename or out}: {exc.strerror or exc}")
    for message in result.errors:
        report(message)
    rows = ", ".join(f"{count} {table}" for table, count in result.rows.items())
    report(f"{out}: {result.files} sessions ({result.parsed} indexed, {result.unchanged} unchanged, "
           f"{result.removed} removed): {rows}")
    raise SystemExit(EXIT_BAD_INPUT if result.errors else EXIT_OK)
