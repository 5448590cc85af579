"""Issue 25: export, ls, index and usage give one session the same message count and cost, to the last bit.

They take them from the same code (session/counts.py, usage/totals.py); this checks the commands' outputs on
every session among the fixtures and /work/shared/realworld. Files are copied under unique names first: `usage`
counts a message once per ccusage session identity (the name after `_`), and two fixtures named `..._session`
would otherwise share one.
"""

from __future__ import annotations

import re
import shutil
from pathlib import Path
from typing import Any

import polars as pl
import pytest

from conftest import ROOT

REALWORLD = Path("/work/shared/realworld")


def _sessions() -> list[Path]:
    found = sorted((ROOT / "fixtures").rglob("*.jsonl"))
    if REALWORLD.is_dir():
        found += sorted(REALWORLD.glob("*.jsonl"))
    return found


@pytest.fixture(scope="module")
def copies(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("sessions")
    for number, path in enumerate(_sessions()):
        shutil.copyfile(path, folder / f"s{number:04d}_{number:04d}.jsonl")
    return folder


def test_export_ls_index_and_usage_agree_on_count_and_cost(cli: Any, copies: Path, tmp_path: Path) -> None:
    listing = cli("ls", str(copies), "--format", "json", timeout=600)
    assert listing.code == 0, listing.stderr
    ls = {Path(info["path"]).name: (info["messageCount"], info["cost"]) for info in listing.documents()}
    assert len(ls) > 100  # (the fixtures' sessions: ls skips files that are not sessions)
    names = sorted(ls)

    index = cli("index", *(str(copies / name) for name in names), "-o", str(tmp_path / "idx"), timeout=600)
    assert index.code in (0, 2), index.stderr
    sessions = pl.read_parquet(tmp_path / "idx" / "sessions" / "*.parquet")
    indexed = {Path(row["file"]).name: (row["messages"], row["cost"]) for row in sessions.iter_rows(named=True)}

    usage = cli("usage", *(str(copies / name) for name in names), "--by", "session", "--timezone", "UTC",
                "--format", "json", timeout=600)
    assert usage.code in (0, 2), usage.stderr
    priced = {Path(row["session"]).name: row["cost"] for row in usage.documents()[0]["rows"]}

    pages = tmp_path / "pages"
    export = cli("export", *(str(copies / name) for name in names), "-o", str(pages), "--format", "html",
                 timeout=900)
    assert export.code in (0, 2), export.stderr
    exported = {}
    for page in pages.glob("*.html"):
        text = page.read_text(encoding="utf-8")
        count = re.search(r'data-session-messages="(\d+)"', text)
        cost = re.search(r'data-session-cost="([^"]+)"', text)
        assert count and cost, page
        exported[page.stem + ".jsonl"] = (int(count[1]), float(cost[1]))

    compared = 0
    for name in names:
        if name not in indexed or name not in exported:
            # Files Pi's list shows that the index or the export refuse (each says why on stderr).
            assert name in index.stderr + export.stderr, name
            continue
        # usage has no row for a session with nothing it counts: its cost is 0.
        assert ls[name] == indexed[name] == exported[name], name
        assert ls[name][1] == priced.get(name, 0.0), name
        compared += 1
    assert compared >= len(names) - 10


def test_the_session_from_the_issue(cli: Any, tmp_path: Path) -> None:
    """The real session where export said $3.70 and usage $24.42, and ls 1,342 messages where index said 1,345."""
    path = REALWORLD / "marcpadz__dexter-v3__pi-session.jsonl"
    if not path.exists():
        path = ROOT / "fixtures" / "realworld" / path.name
    page = tmp_path / "s.md"
    run = cli("export", str(path), "-o", str(page))
    assert run.code == 0, run.stderr
    lines = page.read_text(encoding="utf-8").splitlines()
    assert lines[0] == "# Can you continue where we ended form the conversation: pi --session 019ea8fd-2c…"
    assert "- messages: 1345 in the session; on the path shown: 58 user, 655 assistant, 629 tool results, " \
           "3 compactions" in lines
    assert "- cost: $24.42 for the session, as `pi-tools usage` counts it; stored on the path shown: $3.696" in lines
    listing = cli("ls", str(path.parent), "--format", "json")
    info = next(info for info in listing.documents() if Path(info["path"]).name == path.name)
    assert (info["messageCount"], info["cost"]) == (1345, 24.421707509999994)
