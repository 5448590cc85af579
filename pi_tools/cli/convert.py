"""`pi-tools convert`: context documents (or session files) -> llm documents."""

from __future__ import annotations

from typing import Annotated

from pi_tools.cli.common import run_documents, run_file_tasks, stdin_or_files
from pi_tools.cli.engine_options import EngineKind, Jobs, Scheduler, chosen_engine
from pi_tools.cli.options import PATHS_HELP, Pi, chosen_pi, leaf_option, paths_argument


def convert_command(
    files: Annotated[list[str] | None, paths_argument(f"Session {PATHS_HELP}; stdin (context documents or a session) when omitted or -.")] = None,
    leaf: Annotated[str | None, leaf_option("For session files: the entry id to build the context from.")] = None,
    engine: EngineKind = "local",
    scheduler: Scheduler = None,
    jobs: Jobs = None,
    pi: Pi = None,
) -> None:
    """Apply Pi's convertToLlm: custom roles become user text or are dropped; one `llm` document per session.

    A context document is converted as the Pi version it names (`pi`); --pi, if given, must be that version.

    Example: pi-tools context s.jsonl | pi-tools convert | jq '.messages | length'
    """
    version = chosen_pi(pi)
    files = stdin_or_files(files)
    chosen = chosen_engine(engine, scheduler, jobs, progress="convert")
    if files and (len(files) > 1 or chosen.kind == "dask"):
        from pi_tools.pi import DEFAULT
        from pi_tools.pipeline.tasks import convert_file

        run_file_tasks(convert_file, files or [], (leaf, pi or DEFAULT), chosen)
    from pi_tools.engine.early import read_ahead

    read_ahead(files)
    from pi_tools.pipeline.stages import as_llm

    run_documents(files or [], lambda item: as_llm(item, leaf, version), pi=version)
