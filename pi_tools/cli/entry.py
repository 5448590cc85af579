"""The `pi-tools` entry point: lets the engine start what a command can start before its modules are imported
(pi_tools.engine.early: the payload helper, the first read, Ctrl-C handling), then runs the command. Imports
nothing heavy: `pi-tools --help` pays for nothing here.
"""

from __future__ import annotations

import sys


def _run() -> None:
    from pi_tools.cli.app import main

    main()


def main() -> None:
    from pi_tools.engine.early import launch

    launch(sys.argv[1:], _run)
