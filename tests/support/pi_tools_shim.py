"""`python -m pi_tools` with the `run` and `decode` commands added if the app does not register them yet.

The tests of those commands run the real CLI in a subprocess; until the lead registers the commands in
`pi_tools/cli/app.py`, this shim adds them to that same app object (and does nothing once they are there).
"""

from __future__ import annotations

from pi_tools.cli.app import app
from pi_tools.cli.decode import decode_command
from pi_tools.cli.run import run_command


def _registered() -> set[str]:
    return {command.name or command.callback.__name__ for command in app.registered_commands if command.callback}


if __name__ == "__main__":
    names = _registered()
    if "run" not in names:
        app.command("run")(run_command)
    if "decode" not in names:
        app.command("decode")(decode_command)
    app()
