"""The house's shape holds: every room is in the layering contract, rooms keep to their jobs, and the README's
counts are the registries' own (they had drifted: 31 and 30 rules where there were 32 and 38)."""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PACKAGE = ROOT / "pi_tools"


def _layers() -> list[list[str]]:
    config = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    contracts = config["tool"]["importlinter"]["contracts"]
    layered = next(contract for contract in contracts if contract["type"] == "layers")
    assert layered["containers"] == ["pi_tools"]
    return [[room.strip() for room in re.split(r"[|:]", layer)] for layer in layered["layers"]]


def test_every_room_is_in_exactly_one_layer() -> None:
    rooms = sorted(path.name for path in PACKAGE.iterdir()
                   if path.is_dir() and (path / "__init__.py").exists())
    placed = [room for layer in _layers() for room in layer]
    assert sorted(placed) == rooms, "a room outside the contract is unchecked; add it to pyproject.toml's layers"


def test_only_the_entry_modules_sit_at_the_top_of_the_package() -> None:
    modules = sorted(path.name for path in PACKAGE.glob("*.py"))
    assert modules == ["__init__.py", "__main__.py"]


def test_audit_keeps_to_session_file_invariants() -> None:
    names = {path.stem for path in (PACKAGE / "audit").rglob("*.py")}
    assert not {name for name in names if re.search(r"usage|pric|chart|preflight|visibility", name)}
    assert not (PACKAGE / "audit" / "preflight").exists()


def test_readme_counts_are_the_registries() -> None:
    from pi_tools.audit.rules import RULES
    from pi_tools.preflight.rules import all_rules
    from pi_tools.secrets.detectors import KINDS

    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert f"`finding` documents for {len(RULES)} rules" in readme
    assert f"the entry behind it, for {len(all_rules())} rules" in readme
    assert f"redact secrets ({len(KINDS)} kinds" in readme


def test_only_api_folders_know_api_names() -> None:
    """Adding an API is its folder and a row of the table: no code outside providers/ branches on an API's name."""
    from pi_tools.providers.table import BUILTIN_APIS

    names = "|".join(re.escape(row.name) for row in BUILTIN_APIS)
    branching = re.compile(rf"\bapi\b\s*(==|!=|in|not in)\s*[(\[{{]?\s*[\"']({names})[\"']")
    named = re.compile(rf"[\"']({names})[\"']")
    offenders = []
    for path in sorted(PACKAGE.rglob("*.py")):
        relative = path.relative_to(PACKAGE).as_posix()
        if relative.startswith("providers/"):
            continue
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            if branching.search(line) or named.search(line):
                offenders.append(f"{relative}:{number}: {line.strip()}")
    assert offenders == []


def test_no_private_name_crosses_rooms() -> None:
    """A room's private names are its own: another room that needs one gets a public name instead."""
    import ast

    crossings = []
    for path in sorted(PACKAGE.rglob("*.py")):
        parts = path.relative_to(PACKAGE).parts
        room = parts[0] if len(parts) > 1 else ""
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("pi_tools."):
                target_room = node.module.split(".")[1]
                private = [alias.name for alias in node.names
                           if alias.name.startswith("_") and not alias.name.startswith("__")]
                if private and target_room != room:
                    crossings.append(f"{'/'.join(parts)}: {node.module} {private}")
    assert crossings == []


def test_only_the_pi_room_knows_pi_versions() -> None:
    """A Pi version is one place (pi_tools/pi/): no code elsewhere names one, so nothing branches on it; the
    behaviours a version selects live beside the code they change. The --pi option's choices are the one copy
    (cli/options.py: PiName, kept equal to pi.NAMES by tests/cli/test_pi_option.py)."""
    from pi_tools.pi import NAMES

    named = re.compile("[\"'](" + "|".join(re.escape(name) for name in NAMES) + ")[\"']")
    offenders = []
    for path in sorted(PACKAGE.rglob("*.py")):
        relative = path.relative_to(PACKAGE).as_posix()
        if relative.startswith("pi/"):
            continue
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            if named.search(line) and not line.startswith("PiName = Literal["):
                offenders.append(f"{relative}:{number}: {line.strip()}")
    assert offenders == []
