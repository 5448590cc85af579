"""`pi-tools search`: find text across sessions, on active paths and on abandoned branches."""

from __future__ import annotations

import sys
from typing import Annotated

import typer

from pi_tools.cli.common import (
    EXIT_BAD_INPUT,
    EXIT_FINDINGS,
    EXIT_OK,
    default_session_folder,
    exit_without_teardown,
    fail,
    report,
)
from pi_tools.cli.engine_options import EngineKind, Jobs, Scheduler, chosen_engine, engine_failed
from pi_tools.cli.options import (
    PATHS_HELP,
    REFUSAL_EXPECTED_ONE_OF,
    Pi,
    SearchBranch,
    TableOrJson,
    choice_option,
    chosen_pi,
    format_option,
    paths_argument,
)


def search_command(
    pattern: Annotated[str, typer.Argument(metavar="PATTERN", help="The text to find (literal; a Python regular expression with --regex).")],
    paths: Annotated[list[str] | None, paths_argument(f"Session {PATHS_HELP} (default: Pi's session folder; with --index: only these files of the index).")] = None,
    regex: Annotated[bool, typer.Option("--regex", "-E", help="PATTERN is a regular expression (Python's re syntax).")] = False,
    ignore_case: Annotated[bool, typer.Option("--ignore-case", "-i", help="Match regardless of case.")] = False,
    role: Annotated[str | None, typer.Option("--role", metavar="ROLE,...", help="Only messages of these roles: user, assistant, toolResult, bashExecution, custom, compactionSummary, branchSummary (and system, which Pi 1.6 stores).")] = None,
    tool: Annotated[str | None, typer.Option("--tool", metavar="NAME", help="Only calls of this tool (their arguments) and its results.")] = None,
    branch: Annotated[SearchBranch, choice_option("--branch", SearchBranch, "all: every entry of every file; active: only the active path (from the leaf Pi resumes back to the root).", REFUSAL_EXPECTED_ONE_OF)] = "all",
    index: Annotated[str | None, typer.Option("--index", metavar="OUT", help="Search the Parquet tables `pi-tools index -o OUT` wrote instead of the files (written for the same Pi version: under 1.6 system messages are searched by their sections and tools, which a 0.85 index does not hold).")] = None,
    output_format: Annotated[TableOrJson | None, format_option(TableOrJson, "table (default on a terminal) or json (one hit document per line; the default otherwise).", REFUSAL_EXPECTED_ONE_OF)] = None,
    engine: EngineKind = "local",
    scheduler: Scheduler = None,
    jobs: Jobs = None,
    pi: Pi = None,
) -> None:
    """Search message text (user, assistant text and thinking, tool results, bash commands and output, custom
    messages, compaction and branch summaries) and tool-call arguments.

    Each hit names the file, line, entry id and role, and says whether the entry is on the active path or on an
    abandoned branch. Exit status: 0 with hits, 1 with none, 2 when the pattern is bad or an input cannot be
    read (named on stderr; the other inputs are still searched).

    Example: pi-tools search 'rm -rf' ~/.pi/agent/sessions --tool bash --format json
    """
    version = chosen_pi(pi)
    chosen = chosen_engine(engine, scheduler, jobs, progress="search")
    from pi_tools.corpus.match import Matcher, PatternError
    from pi_tools.corpus.search import SearchSpec, search_paths
    from pi_tools.corpus.search_format import write_results

    if output_format is None:
        output_format = "table" if sys.stdout.isatty() else "json"
    roles = frozenset(part.strip() for part in role.split(",") if part.strip()) if role is not None else None
    if roles is not None and not roles:
        fail("--role: name at least one role")
    try:
        spec = SearchSpec(Matcher(pattern, regex, ignore_case), roles, tool, branch,
                          version.name if version is not None else None)
    except PatternError as exc:
        fail(str(exc))
    if index is not None:
        from pi_tools.corpus.search_index import IndexError_, search_index

        try:
            results = search_index(index, paths or [], spec)
        except IndexError_ as exc:
            fail(str(exc))
    else:
        results = search_paths(paths or [default_session_folder()], spec, chosen)
    from pi_tools.engine import EngineError

    try:
        written = write_results(results, output_format, sys.stdout.buffer, report)
    except BrokenPipeError:
        raise SystemExit(EXIT_OK) from None
    except EngineError as exc:
        engine_failed(exc)
    if written.errors:
        exit_without_teardown(EXIT_BAD_INPUT)
    exit_without_teardown(EXIT_OK if written.hits else EXIT_FINDINGS)
