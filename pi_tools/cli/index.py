"""`pi-tools index`: session files as Parquet tables (sessions, entries, messages, tool_calls, usage)."""

from __future__ import annotations

from typing import Annotated

from pi_tools.cli.common import (
    EXIT_BAD_INPUT,
    EXIT_OK,
    check_session_folders,
    default_session_folder,
    fail,
    report,
)
from pi_tools.cli.engine_options import EngineKind, Jobs, Scheduler, chosen_engine, engine_failed
from pi_tools.cli.options import PATHS_HELP, Pi, chosen_pi, output_option, paths_argument
from pi_tools.output.words import counted


def index_command(
    paths: Annotated[list[str] | None, paths_argument(f"Session {PATHS_HELP} (default: Pi's session folder).")] = None,
    out: Annotated[str | None, output_option("The index folder (created, or brought up to date).")] = None,
    engine: EngineKind = "local",
    scheduler: Scheduler = None,
    jobs: Jobs = None,
    pi: Pi = None,
) -> None:
    """Write the sessions as Parquet tables a database reads: OUT/<table>/*.parquet for sessions, entries,
    messages, tool_calls and usage, and under --pi 1.6 usage_entries, context_edits, system_sections and
    system_tools (columns in docs/index.md). Read as the Pi version reads them (--pi, else PI_TOOLS_PI, else the
    default); an index written for another version is rebuilt.

    Incremental: OUT/manifest.json records each file's size, mtime and content hash, so a second run reads only
    files that changed, indexes new ones and drops the rows of files no longer among the inputs; the tables are
    then what a fresh index would hold. Readers never see a half-written table. Exit 2 when an input could not
    be indexed (each is named on stderr with its line and problem; the others are indexed).

    Example: pi-tools index ~/.pi/agent/sessions -o idx && duckdb -c "select name, count(*) from 'idx/tool_calls/*.parquet' group by 1"
    """
    version = chosen_pi(pi)
    if out is None:
        fail("-o OUT: name the index folder")
    chosen = chosen_engine(engine, scheduler, jobs, progress="index")
    from pi_tools.corpus.index import StoreError, index_corpus
    from pi_tools.engine import EngineError

    if not paths:
        paths = [default_session_folder()]
    check_session_folders(paths)
    try:
        result = index_corpus(paths, out, chosen, version)
    except StoreError as exc:
        fail(str(exc))
    except EngineError as exc:
        engine_failed(exc)
    except OSError as exc:
        fail(f"{exc.filename or out}: {exc.strerror or exc}")
    for message in result.errors:
        report(message)
    rows = ", ".join(f"{table} {count}" for table, count in result.rows.items())
    report(f"{out}: {counted(result.files, 'session')} ({result.parsed} indexed, {result.unchanged} unchanged, "
           f"{result.removed} removed); rows: {rows}")
    raise SystemExit(EXIT_BAD_INPUT if result.errors else EXIT_OK)
