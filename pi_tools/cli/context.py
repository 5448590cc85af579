"""`pi-tools context`: session files -> context documents."""

from __future__ import annotations

from typing import Annotated

from pi_tools.cli.common import run_documents, run_file_tasks, stdin_or_files
from pi_tools.cli.engine_options import EngineKind, Jobs, Scheduler, chosen_engine
from pi_tools.cli.options import PATHS_HELP, Pi, chosen_pi, leaf_option, paths_argument


def context_command(
    files: Annotated[list[str] | None, paths_argument(f"Session {PATHS_HELP}; stdin (a session) when omitted or -.")] = None,
    leaf: Annotated[str | None, leaf_option("Build the context for this entry id instead of the session's own leaf.")] = None,
    engine: EngineKind = "local",
    scheduler: Scheduler = None,
    jobs: Jobs = None,
    pi: Pi = None,
) -> None:
    """Rebuild the context Pi (1.6, or --pi 0.85) would give its agent: one `context` document per session.

    The document holds the session header, leafId, thinkingLevel, model, the AgentMessage[] (after compaction,
    for the active branch) and diagnostics for everything Pi silently skipped or repairs.

    Example: pi-tools context ~/.pi/agent/sessions/--home-me-proj--/*.jsonl | jq .model
    """
    version = chosen_pi(pi)
    files = stdin_or_files(files)
    chosen = chosen_engine(engine, scheduler, jobs, progress="context")
    if files and (len(files) > 1 or chosen.kind == "dask"):
        from pi_tools.pi import DEFAULT
        from pi_tools.pipeline.tasks import context_file

        run_file_tasks(context_file, files or [], (leaf, pi or DEFAULT), chosen)
    from pi_tools.engine.early import read_ahead

    read_ahead(files)
    from pi_tools.pipeline.stages import as_context

    run_documents(files or [], lambda item: as_context(item, leaf, version), pi=version)
