"""The options every batch stage takes to say how its work runs: --engine, --scheduler, --jobs.

One definition, so that every stage spells and checks them alike; the checking is the engine's own
(engine.options.Engine), and a bad value is a usage error (exit 2) with its message.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated, NoReturn

import typer

from pi_tools.cli.common import fail

if TYPE_CHECKING:
    from pi_tools.engine import Engine

EngineKind = Annotated[str, typer.Option(
    "--engine", metavar="local|dask",
    help="Where the work runs: local (this machine: one process per core when the input is large) or dask "
         "(a Dask cluster; needs pip install 'pi-tools[dask]').")]
Scheduler = Annotated[str | None, typer.Option(
    "--scheduler", metavar="ADDRESS",
    help="With --engine dask: the scheduler's address, e.g. tcp://10.0.0.5:8786 (default: a LocalCluster "
         "started for the run).")]
Jobs = Annotated[int | None, typer.Option(
    "--jobs", metavar="N",
    help="With --engine local: worker processes (default: one per core when the input is large enough to pay "
         "for them; 1: all in this process).")]


def chosen_engine(kind: str, scheduler: str | None, jobs: int | None, progress: str | None = None) -> Engine:
    """The Engine the options ask for; a bad combination ends the command with the engine's message (exit 2)."""
    from pi_tools.engine import Engine, EngineError

    try:
        return Engine(kind=kind, jobs=jobs, scheduler=scheduler, progress=progress)
    except EngineError as exc:
        fail(str(exc))


def engine_failed(exc: Exception) -> NoReturn:
    """An EngineError met while running (no scheduler there, the dask extra missing): exit 2 with its message."""
    fail(str(exc))
