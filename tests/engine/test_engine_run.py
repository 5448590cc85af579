"""The engine's inside: the progress bar, Ctrl-C on a real batch, and the rule that only the engine runs work."""

from __future__ import annotations

import io
import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from pi_tools.engine import Engine, map_ordered
from pi_tools.engine.progress import with_progress

from support.golden import ROOT


def _square(value: int) -> int:
    return value * value


class _Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_the_bar_is_drawn_on_a_terminal_only() -> None:
    terminal, plain = _Terminal(), io.StringIO()
    assert list(with_progress(iter(range(3)), "audit", 3, terminal)) == [0, 1, 2]
    results = iter(range(3))
    assert with_progress(results, "audit", 3, plain) is results  # not even wrapped
    assert plain.getvalue() == ""
    drawn = terminal.getvalue()
    assert "audit" in drawn and "3/3" in drawn


def test_rich_is_imported_only_for_a_bar() -> None:
    """stderr is a pipe here: map_ordered with a progress label must not pay for rich."""
    probe = ("import sys; from pi_tools.engine import Engine, map_ordered; "
             "assert list(map_ordered(abs, [-1, 2, -3], Engine(jobs=2, progress='audit'))) == [1, 2, 3]; "
             "print('rich' in sys.modules)")
    run = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, cwd=ROOT, check=True)
    assert run.stdout == "False\n"


@pytest.mark.parametrize("jobs", [1, 2])
def test_a_reader_that_stops_early_ends_the_pool(jobs: int) -> None:
    results = map_ordered(_square, list(range(200)), Engine(jobs=jobs))
    assert [next(results) for _ in range(3)] == [0, 1, 4]
    results.close()  # type: ignore[attr-defined]


def test_chunks_follow_the_weights() -> None:
    from pi_tools.engine.run import CHUNK_MAX_WEIGHT, chunked

    items = list(range(6))
    assert chunked(items, None, 2) == [[0], [1], [2], [3], [4], [5]]
    assert chunked(list(range(40)), None, 2) == [[index, index + 1] for index in range(0, 40, 2)]
    big = CHUNK_MAX_WEIGHT * 4
    # small files share a chunk; a large one travels alone; input order is kept
    assert chunked(items, [1, 1, big, 1, 1, 1], 2) == [[0, 1, 2], [3, 4, 5]]
    assert chunked(items, [big, 1, 1, big, 1, 1], 1) == [[0], [1, 2, 3], [4, 5]]


# --- Ctrl-C -----------------------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def large_batch(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Thousands of sessions of about 1.6 MB (links to one): far more than the command can read before the
    signal (`usage` reads 600 of them in 2.1 s on a quiet 2-core machine, less than the test waits)."""
    folder = tmp_path_factory.mktemp("batch")
    source = ROOT / "fixtures" / "realworld" / "badlogic__pi-mono__compact.jsonl"
    for index in range(4000):
        (folder / f"s{index:04d}.jsonl").symlink_to(source)
    return folder


def _still_running(session: int) -> list[str]:
    listed = subprocess.run(["ps", "-o", "pid=", "-s", str(session)], capture_output=True, text=True)
    return listed.stdout.split()


@pytest.mark.parametrize("whole_group", [True, False], ids=["terminal", "main-process-only"])
@pytest.mark.parametrize("args", [("audit", "--format", "json", "--jobs", "2"), ("usage", "--scope", "active", "--jobs", "2"),
                                  ("audit", "--format", "json", "--jobs", "1")])
def test_ctrl_c_cancels_cleanly(large_batch: Path, args: tuple[str, ...], whole_group: bool) -> None:
    """A real SIGINT (to the process group, as a terminal sends it, or to the main process alone): pending work
    cancelled, every worker gone, one line on stderr, exit 130."""
    process = subprocess.Popen([sys.executable, "-m", "pi_tools", *args, str(large_batch)], cwd=ROOT,
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, start_new_session=True)
    time.sleep(2.5)  # started: modules imported, the pool at work
    assert process.poll() is None, "the batch finished before the signal: make it larger"
    (os.killpg if whole_group else os.kill)(process.pid, signal.SIGINT)
    try:
        _, stderr = process.communicate(timeout=30)
    except subprocess.TimeoutExpired:
        os.killpg(process.pid, signal.SIGKILL)
        raise
    assert process.returncode == 130
    assert stderr.decode() == "pi-tools: interrupted: pending work cancelled\n"
    deadline = time.monotonic() + 5
    while _still_running(process.pid) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert _still_running(process.pid) == []


# --- the layout ---------------------------------------------------------------------------------------------------


def test_only_the_engine_runs_work() -> None:
    """`grep -rnE 'fork|Pool|Process|Thread' pi_tools/cli` finds nothing: the CLI says what to run, never how."""
    words = re.compile(r"fork|Pool|Process|Thread")
    found = [f"{path.relative_to(ROOT)}:{number}: {line.strip()}"
             for path in sorted((ROOT / "pi_tools" / "cli").rglob("*.py"))
             for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1)
             if words.search(line)]
    assert found == []
