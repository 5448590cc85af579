"""`pi-tools run --demo`: a faux run anyone can start with no script, no key and no network.

The bundled script (demo.json, package data) answers a fixed prompt by reading a note in a fresh workspace, so the
run shows every part of the loop (streamed text, a tool call, its result, the session file) and touches nothing of
the user's: the workspace and the session both live in a new temporary folder.
"""

from __future__ import annotations

import tempfile
from dataclasses import dataclass
from importlib import resources
from pathlib import Path

DEMO_PROMPT = "What does notes.txt say?"
DEMO_FILES = {"notes.txt": "bread\nmilk\ncoffee\n"}


@dataclass(frozen=True)
class Demo:
    """Where the demo runs: its faux script, its workspace (holding DEMO_FILES) and the folder for its session."""

    script: str
    workspace: str
    session_dir: str
    prompt: str = DEMO_PROMPT


def demo_script() -> str:
    """The bundled faux script's path (a real file: the wheel installs package data unpacked)."""
    return str(resources.files(__name__).joinpath("demo.json"))


def prepare_demo() -> Demo:
    """A new temporary folder holding the demo's workspace and, beside it, where its session will be written."""
    root = Path(tempfile.mkdtemp(prefix="pi-tools-demo-"))
    workspace = root / "workspace"
    workspace.mkdir()
    for name, text in DEMO_FILES.items():
        (workspace / name).write_text(text, encoding="utf-8")
    sessions = root / "sessions"
    sessions.mkdir()
    return Demo(demo_script(), str(workspace), str(sessions))


def scratch_session_dir() -> str:
    """A new temporary folder for a faux run's session: faux runs stay out of Pi's folder unless asked."""
    return tempfile.mkdtemp(prefix="pi-tools-run-")
