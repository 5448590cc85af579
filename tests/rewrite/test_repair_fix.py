"""`repair --fix`: the repairs that clear what `preflight` finds for the session's own model (or --for-model)."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path
from typing import Any

DATA = Path(__file__).resolve().parents[1] / "data" / "repair"
SOURCE = DATA / "dangling_results.jsonl"  # recorded on anthropic/claude-sonnet-4-5; r1, r2 cut off from a1


def test_fix_clears_what_preflight_finds_for_the_sessions_model(cli: Any, tmp_path: Path) -> None:
    session = tmp_path / "s.jsonl"
    shutil.copy(SOURCE, session)
    before = cli("preflight", "--format", "json", str(session))
    assert before.code == 1
    assert [(d["rule"], d["entryId"], d["model"]) for d in before.documents()] == [
        ("anthropic-tool-result-without-use", "r1", "anthropic/claude-sonnet-4-5"),
        ("anthropic-tool-result-without-use", "r2", "anthropic/claude-sonnet-4-5")]
    out = tmp_path / "out.jsonl"
    run = cli("repair", str(session), "--fix", "-o", str(out))
    assert (run.code, run.stderr) == (0, "")
    assert run.stdout == (f"{session}:4: entry r1: parentId lost0001 (no such entry) -> a1: it holds results of "
                          "assistant a1's tool calls, whose branch ended there [dangling-parent]\n")
    after = cli("preflight", "--format", "json", str(out))
    assert (after.code, after.stdout) == (0, "")


def test_for_model_names_the_model_fix_checks(cli: Any, tmp_path: Path) -> None:
    out = tmp_path / "out.jsonl"
    model = "google/gemini-3-flash-preview"
    run = cli("repair", str(SOURCE), "--fix", "--for-model", model, "-o", str(out))
    assert run.code == 0, run.stderr
    lines = run.stdout.splitlines()
    assert len(lines) == 2
    assert re.fullmatch(rf"{re.escape(str(SOURCE))}:3: google-thought-signature for {model}: .* Started a new turn "
                        r"after the leaf a2: added custom message [0-9a-f]{8} \(pi-tools-repair, sent as a user "
                        r"message\), so no step of the current turn is another model's \[google-thought-signature\]",
                        lines[0]), lines[0]
    assert lines[1].startswith(f"{SOURCE}:4: entry r1: parentId lost0001 (no such entry) -> a1:")
    after = cli("preflight", "--format", "json", "--model", model, str(out))
    assert (after.code, after.stdout) == (0, "")
    assert json.loads(out.read_text().splitlines()[-1])["customType"] == "pi-tools-repair"


def test_fix_needs_a_model(cli: Any, tmp_path: Path) -> None:
    session = tmp_path / "s.jsonl"
    session.write_text("".join(SOURCE.read_text().splitlines(keepends=True)[:2]))
    run = cli("repair", str(session), "--fix", "--dry-run")
    assert (run.code, run.stdout) == (2, "")
    assert run.stderr == (f"pi-tools: {session}: --fix: the session has no model; pass --for-model PROVIDER/ID\n")


def test_fix_that_can_fix_nothing_notes_why_and_writes_nothing(cli: Any, tmp_path: Path) -> None:
    source = Path("fixtures/conformance/cases/edge_images_mimes.jsonl")
    out = tmp_path / "out.jsonl"
    run = cli("repair", str(source), "--fix", "-o", str(out))
    assert run.code == 3
    assert run.stderr == f"pi-tools: {source}: nothing to repair; wrote nothing\n"
    [note] = run.stdout.splitlines()
    assert re.fullmatch(rf"{re.escape(str(source))}:\d+: note: not fixed for anthropic/claude-sonnet-4-5: "
                        r"anthropic-image-media-type \(error\): .* \(an image of another type would have to be "
                        r"converted; not done by a rewrite\) \[anthropic-image-media-type\]", note), note
    assert not out.exists()
