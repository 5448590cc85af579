"""`pi-tools transform FILE ... --to-session OUT`: for --redact, --block-images, --drop-role and --keep-last on every
conformance case, every real-world session and the made sessions, the context of OUT is the transformed context of
FILE, Pi 0.85 loads OUT to the context pi-tools builds (the reference oracle, one batch; skipped without it), FILE
is never touched, what the selecting transforms take out can be put back from OUT, OUT.rejected and the report,
and what cannot be written as a session is refused with a clear message."""

from __future__ import annotations

import json
import os
import re
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from pi_tools.pipe.documents import dumps_document
from pi_tools.rewrite.transformed import Step, TransformSessionError, transform_session
from pi_tools.rewrite.writer import Rewrite, entry_line
from pi_tools.session import build_session_context, load_session
from pi_tools.transforms import available_transforms, checked

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from support.golden import CASES, REALWORLD, ROOT, canonical_sha  # noqa: E402
from support.oracle_path import MISSING, ORACLE  # noqa: E402
from support.rewrite_sessions import MADE, big_session, dump  # noqa: E402

SPECS: dict[str, list[tuple[str, str, Any]]] = {
    "redact": [("redact", "redact", r"[Tt]he|error|ls")],
    "block-images": [("block-images", "block-images", True)],
    "drop-role": [("drop-role", "drop-role=bashExecution", "bashExecution"), ("drop-role", "drop-role=custom", "custom")],
    "keep-last": [("keep-last", "keep-last=2", 2)],
}


def steps(option: str) -> list[Step]:
    registry = available_transforms()
    return [Step(name, label, checked(label, registry[name].factory(value))) for name, label, value in SPECS[option]]


def as_json(value: Any) -> Any:
    return json.loads(dumps_document(value))


class Run:
    def __init__(self, source: Path, option: str, out: Path) -> None:
        self.source, self.option, self.out = source, option, out
        before = (source.read_bytes(), os.stat(source).st_mtime_ns)
        self.result: Rewrite | None = None
        self.error: str | None = None
        try:
            self.result = transform_session(str(source), str(out), steps(option))
        except TransformSessionError as exc:
            self.error = str(exc)
        self.input_unchanged = (source.read_bytes(), os.stat(source).st_mtime_ns) == before


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> dict[tuple[str, str], Run]:
    made = tmp_path_factory.mktemp("made")
    for name, entries in MADE.items():
        (made / f"{name}.jsonl").write_bytes(dump(entries))
    subjects = {**{f"conformance/{p.stem}": p for p in sorted(CASES.glob("*.jsonl"))},
                **{f"realworld/{p.stem}": p for p in sorted(REALWORLD.glob("*.jsonl"))},
                **{f"made/{p.stem}": p for p in sorted(made.glob("*.jsonl"))}}
    out = tmp_path_factory.mktemp("out")
    return {(option, name): Run(source, option, out / f"{option}__{name.replace('/', '__')}.jsonl")
            for option in SPECS for name, source in subjects.items()}


@pytest.fixture(scope="module")
def oracle(runs: dict[tuple[str, str], Run], tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    if not ORACLE.exists():
        pytest.skip(MISSING)
    cases, documents = tmp_path_factory.mktemp("oracle_in"), tmp_path_factory.mktemp("oracle_out")
    for run in runs.values():
        if run.result is not None and run.result.changes:
            shutil.copy(run.out, cases / run.out.name)
    subprocess.run([str(ORACLE), "--batch", str(cases), str(documents), "--apis", "anthropic-messages",
                    "--no-branches"], capture_output=True, check=True, timeout=1800)
    return {p.stem: json.loads(p.read_text(encoding="utf-8")) for p in documents.glob("*.json")}


NAMES = [*(f"conformance/{p.stem}" for p in sorted(CASES.glob("*.jsonl"))),
         *(f"realworld/{p.stem}" for p in sorted(REALWORLD.glob("*.jsonl"))), *(f"made/{n}" for n in MADE)]
ALL = [(option, name) for option in SPECS for name in NAMES]


@pytest.mark.parametrize(("option", "name"), ALL, ids=[f"{o}:{n}" for o, n in ALL])
def test_context_of_out_is_the_transformed_context(runs: dict[tuple[str, str], Run], oracle: dict[str, Any],
                                                   option: str, name: str) -> None:
    run = runs[(option, name)]
    assert run.input_unchanged
    if run.result is None:
        assert run.error is not None and re.search(r"needs a version 3 session file|the path has a compaction|is not a valid pi session",
                                                   run.error), run.error
        assert not run.out.exists()
        return
    expected = build_session_context(load_session(str(run.source))).messages
    for step in steps(option):
        expected = step.apply(expected)
    context = build_session_context(load_session(str(run.out)))
    assert as_json(context.messages) == as_json(expected)
    if not run.result.changes:
        data = run.source.read_bytes()
        assert run.out.read_bytes() == (data if data.endswith(b"\n") else data + b"\n")  # Pi adds it too
        return
    reference = oracle[run.out.stem]
    assert "error" not in reference, reference.get("error")
    document = {"messages": context.messages, "thinkingLevel": context.thinking_level, "model": context.model}
    assert canonical_sha(as_json(document)) == canonical_sha(reference["context"])


def test_the_transforms_do_change_sessions(runs: dict[tuple[str, str], Run]) -> None:
    changed = {option: sum(1 for (o, _), run in runs.items() if o == option and run.result and run.result.changes)
               for option in SPECS}
    assert all(count >= 3 for count in changed.values()), changed


@pytest.mark.parametrize("option", ["drop-role", "keep-last"])
def test_file_is_reassembled_from_out_and_rejected(runs: dict[tuple[str, str], Run], option: str) -> None:
    checked_files = 0
    for (run_option, _), run in runs.items():
        if run_option != option or run.result is None or not run.result.rejected:
            continue
        undo = {}
        moved = {}
        for change in run.result.changes:
            if change.message.startswith("moved the line of entry"):
                moved[change.entry_id] = change.line
            match = re.fullmatch(r"entry (\w+): parentId (\w+|None) -> (\w+|None)", change.message)
            if match:
                undo[match.group(1)] = (match.group(3), match.group(2))
        held = {}
        for line in Path(f"{run.out}.rejected").read_bytes().splitlines():
            number, _, data = line.partition(b"\t")
            held[int(number)] = data
        rest = []
        for line in run.out.read_bytes().splitlines():
            entry_id = json.loads(line).get("id")
            if entry_id in undo:
                new, old = undo[entry_id]
                if "None" in (new, old):  # written again as Pi writes entries: undo the same way
                    value = json.loads(line)
                    value["parentId"] = None if old == "None" else old
                    line = entry_line(value)
                else:
                    line = line.replace(f'"parentId":"{new}"'.encode(), f'"parentId":"{old}"'.encode(), 1)
            if entry_id in moved:
                held[moved[entry_id]] = line
                continue
            rest.append(line)
        queue = iter(rest)
        total = len(rest) + len(held)
        rebuilt = b"".join((held[n] if n in held else next(queue)) + b"\n" for n in range(1, total + 1))
        data = run.source.read_bytes()
        assert rebuilt == (data if data.endswith(b"\n") else data + b"\n"), run.source
        checked_files += 1
    assert checked_files >= 3


def test_cli_report_refusals_and_targets(tmp_path: Path, cli: Any) -> None:
    source = tmp_path / "s.jsonl"
    source.write_bytes(dump(MADE["interleaved"]))
    out = tmp_path / "out.jsonl"
    run = cli("transform", str(source), "--redact", "fix|docs", "--to-session", str(out))
    assert run.code == 0, run.stderr
    assert run.stdout.splitlines() == [f"{source}:2: entry e1: redact changed its message",
                                       f"{source}:7: entry e6: redact changed its message", f"{source}: wrote {out}"]
    lines, new = source.read_bytes().splitlines(), out.read_bytes().splitlines()
    assert [i for i, (a, b) in enumerate(zip(lines, new, strict=True)) if a != b] == [1, 6]
    assert json.loads(new[1])["message"]["content"] == [{"type": "text", "text": "[REDACTED] the build"}]
    again = cli("transform", str(source), "--redact", "x", "--to-session", str(out))
    assert (again.code, again.stderr) == (2, f"pi-tools: {out}: already exists; pass --force to overwrite it\n")
    for args, message in [
        (["--plugin", "m:f"], "--to-session: --plugin cannot be written to a session (its messages have no entries to "
                              "store them in); only --redact, --block-images, --drop-role and --keep-last can"),
        (["--use", "x"], "--to-session: --use cannot be written to a session (its messages have no entries to store "
                         "them in); only --redact, --block-images, --drop-role and --keep-last can"),
        ([], "--to-session: nothing to do: give --redact, --block-images, --drop-role or --keep-last"),
        (["--redact", "x", "--leaf", "e3"], "--leaf with --to-session needs --keep-last or --drop-role (the other "
                                            "transforms rewrite every entry of the file)"),
        (["--redact", "x", str(source)], "--to-session takes exactly one session FILE"),
        (["--keep-last", "1", "--leaf", "nope"], f"{source}: --leaf nope: no entry has this id"),
    ]:
        refused = cli("transform", str(source), *args, "--to-session", str(tmp_path / "o2.jsonl"))
        assert (refused.code, refused.stderr) == (2, f"pi-tools: {message}\n"), args
    assert not (tmp_path / "o2.jsonl").exists()
    compacted = cli("transform", "fixtures/conformance/cases/c003_compaction.jsonl", "--keep-last", "1",
                    "--to-session", str(tmp_path / "o3.jsonl"))
    assert compacted.code == 2 and "the path has a compaction" in compacted.stderr
    assert cli("transform", str(source), "--force", "--redact", "x").stderr == \
        "pi-tools: --force only goes with --to-session\n"
    leafed = cli("transform", str(source), "--keep-last", "1", "--leaf", "e6", "--to-session", str(tmp_path / "o4.jsonl"))
    assert leafed.code == 0, leafed.stderr
    assert [e["id"] for e in load_session(str(tmp_path / "o4.jsonl")).path()] == ["e6"]


@pytest.mark.parametrize("args", [["--redact", "x{10}"], ["--drop-role", "bashExecution"]], ids=["redact", "drop-role"])
def test_sigkill_at_any_moment_leaves_file_intact_and_no_partial_out(tmp_path: Path, args: list[str]) -> None:
    source = tmp_path / "big.jsonl"
    big_session(source, ["interleaved"], with_trail=False)
    original = source.read_bytes()
    out = tmp_path / "out.jsonl"
    command = [sys.executable, "-m", "pi_tools", "transform", str(source), *args, "--to-session", str(out)]
    finished = subprocess.run(command, capture_output=True, cwd=ROOT, timeout=600)
    assert finished.returncode == 0, finished.stderr
    complete = out.read_bytes()
    assert complete != original
    out.unlink()
    Path(f"{out}.rejected").unlink(missing_ok=True)
    outcomes = set()
    for delay in (0.05, 0.3, 0.6, 1.0, 1.5, 2.0, 3.0, 4.5):
        process = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, cwd=ROOT)
        time.sleep(delay)
        process.send_signal(signal.SIGKILL)
        process.wait(30)
        assert source.read_bytes() == original
        outcomes.add(out.exists())
        if out.exists():
            assert out.read_bytes() == complete
            out.unlink()
        Path(f"{out}.rejected").unlink(missing_ok=True)
        assert sorted(p.name for p in tmp_path.iterdir() if not p.name.startswith(".")) == ["big.jsonl"]
    assert False in outcomes


def test_dry_run_and_json_report(tmp_path: Path, cli: Any) -> None:
    source = tmp_path / "s.jsonl"
    source.write_bytes(dump(MADE["interleaved"]))
    before = (source.read_bytes(), os.stat(source).st_mtime_ns)
    out = tmp_path / "out.jsonl"
    dry = cli("transform", str(source), "--keep-last", "1", "--to-session", str(out), "--dry-run", "--format", "json")
    assert dry.code == 0, dry.stderr
    documents = dry.documents()
    assert documents[0] == {"kind": "change", "source": str(source), "line": 2, "entryId": None, "rule": None,
                            "change": "entry e1 is not kept by keep-last=1; moved to the .rejected file"}
    assert documents[-1] == {"kind": "rewrite", "source": str(source), "output": str(out),
                             "rejected": f"{out}.rejected", "rejectedLines": 8, "backup": None, "changes": 9,
                             "dryRun": True}
    assert sorted(p.name for p in tmp_path.iterdir()) == ["s.jsonl"]
    assert (source.read_bytes(), os.stat(source).st_mtime_ns) == before
    text = cli("transform", str(source), "--keep-last", "1", "--to-session", str(out), "--dry-run")
    assert text.stdout.splitlines()[-2:] == [f"{source}: 8 line(s) would be set aside in {out}.rejected",
                                             f"{source}: would write {out}"]
    assert cli("transform", str(source), "--dry-run").stderr == "pi-tools: --dry-run only goes with --to-session\n"
