"""The `pi-tools` command: one typer app, one module per stage.

Stage modules import only typer at load time; library code is imported inside each command so that
`pi-tools --help` does not pay for polars, jinja2 or httpx.
"""

from __future__ import annotations

from typing import Annotated

import typer

from pi_tools.cli.audit import audit_command
from pi_tools.cli.context import context_command
from pi_tools.cli.convert import convert_command
from pi_tools.cli.decode import decode_command
from pi_tools.cli.export import export_command
from pi_tools.cli.import_cmd import import_command
from pi_tools.cli.index import index_command
from pi_tools.cli.ls import ls_command
from pi_tools.cli.models import models_command
from pi_tools.cli.payload import payload_command
from pi_tools.cli.preflight import preflight_command
from pi_tools.cli.render import render_command
from pi_tools.cli.repair import repair_command
from pi_tools.cli.run import run_command
from pi_tools.cli.scrub import scrub_command
from pi_tools.cli.search import search_command
from pi_tools.cli.slim import slim_command
from pi_tools.cli.trace_cmd import trace_command
from pi_tools.cli.transform import transform_command
from pi_tools.cli.tree import tree_command
from pi_tools.cli.usage import usage_command
from pi_tools.cli.visibility import visibility_command

app = typer.Typer(
    name="pi-tools",
    help=(
        "Audit, transform and replay Pi coding-agent sessions: rebuild the context Pi builds (1.6, or 0.85 with "
        "--pi 0.85), convert it, and see exactly what each provider would receive.\n\n"
        "Stages read session files or the JSON Lines documents of the stage before them:\n\n"
        "  pi-tools context s.jsonl | pi-tools convert | pi-tools payload --api anthropic-messages\n\n"
        "Exit codes: 0 success, 1 findings or failed checks, 2 bad usage or unreadable input."
    ),
    no_args_is_help=True,
    add_completion=True,  # typer's --install-completion / --show-completion
    pretty_exceptions_enable=False,
    rich_markup_mode=None,
)

def _print_version(value: bool) -> None:
    """The installed distribution's version (package metadata is the one place it is written down), and the Pi
    versions it reproduces (pi_tools.pi)."""
    if not value:
        return
    from importlib.metadata import PackageNotFoundError, version

    try:
        typer.echo(f"pi-tools {version('pi-tools')}")
    except PackageNotFoundError:
        typer.echo("pi-tools: no package metadata (run from a source tree that is not installed)", err=True)
        raise typer.Exit(2) from None
    from pi_tools.pi import described

    typer.echo(described())
    raise typer.Exit()


@app.callback()
def _options(
    show_version: Annotated[bool, typer.Option("--version", is_eager=True, callback=_print_version,
                                               help="Print the installed version and exit.")] = False,
) -> None:
    """Options that come before the command name."""


# The pipeline, in order, then the reports, then the live loop.
app.command("context")(context_command)
app.command("convert")(convert_command)
app.command("transform")(transform_command)
app.command("payload")(payload_command)
app.command("render")(render_command)
app.command("export")(export_command)
app.command("audit")(audit_command)
app.command("preflight")(preflight_command)
app.command("visibility")(visibility_command)
app.command("usage")(usage_command)
app.command("index")(index_command)
app.command("trace")(trace_command)
app.command("repair")(repair_command)
app.command("scrub")(scrub_command)
app.command("slim")(slim_command)
app.command("search")(search_command)
app.command("tree")(tree_command)
app.command("ls")(ls_command)
app.command("models")(models_command)
app.command("run")(run_command)
app.command("decode")(decode_command)
app.command("import")(import_command)


def _for_arguments(args: list[str]) -> typer.Typer:
    """The app as `args` need it: for `pi-tools COMMAND ...`, with that command alone registered.

    Typer builds the click command of every registered command on each run (their signatures, type hints and
    defaults), about a tenth of a second for twenty commands, most of it for commands that will not run; a large
    `payload` waits for it before it reads its file. The group, its callback and the command are unchanged, so
    the command's help, usage lines and errors read exactly the same. Anything else (no command, an option
    first, an unknown name, shell completion, which lists every command) gets the whole app.
    """
    import copy
    import os

    if not args or os.environ.get("_PI_TOOLS_COMPLETE"):
        return app
    chosen = [command for command in app.registered_commands if command.name == args[0]]
    if len(chosen) != 1:
        return app
    narrow = copy.copy(app)
    narrow.registered_commands = chosen
    return narrow


def main() -> None:
    # A pi-tools process is short-lived and its data (parsed JSON) holds no reference cycles: the cyclic
    # collector would only rescan millions of live objects again and again (3x slower on a 100 MB session).
    import gc
    import sys

    gc.disable()
    from pi_tools.engine.depth import allow_deep_values

    allow_deep_values()
    # Session text can hold lone UTF-16 surrogates (JSON "\ud83d" escapes); tables, trees and messages show
    # them as \ud83d instead of failing on them.
    for stream in (sys.stdout, sys.stderr):
        reconfigure = getattr(stream, "reconfigure", None)
        if reconfigure is not None:
            reconfigure(errors="backslashreplace")
    _for_arguments(sys.argv[1:])()
