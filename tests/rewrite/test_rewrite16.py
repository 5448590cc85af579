"""The rewrites under `--pi 1.6`: repair, slim, scrub and transform --to-session on files Pi 1.6 writes.

Subjects: the sessions of support.rewrite16_sessions (one damage each, made here), the Pi 1.6 edge cases
(tests/data/pi16/cases) and sessions Pi 1.6's own SessionManager wrote (scripts/gen16, a fixed seed; skipped
without the generator). Each rewrite's output is pinned (tests/data/rewrite16/outputs.json: the digests of OUT
and OUT.rejected and the report; `python tests/rewrite/test_rewrite16.py --regen` writes it), Pi 1.6 itself (the
1.6 oracle, one batch; skipped without it) loads every output to the context pi-tools --pi 1.6 builds, and audit
(as 1.6 reads) no longer finds what a repair says it fixed. The made sessions also check what each rewrite must
do with 1.x constructs: system messages held and kept intact, usage entries and edits silent in a batch, edits
that follow their targets, replacements slimmed and scrubbed as content, prompt sections and tool schemas scrubbed.
Under 0.85 the same commands answer as before (tests/rewrite's other modules pin that).
"""

from __future__ import annotations

import hashlib
import json
import re
import shutil
import subprocess
import sys
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

import pytest

from pi_tools.audit.checks import audit_bytes
from pi_tools.js.json_line import loads_line
from pi_tools.pi import resolve
from pi_tools.pipe.documents import dumps_document
from pi_tools.rewrite.repair import ConversationFixes, RepairError, repair_bytes
from pi_tools.rewrite.scrub import scrub_bytes
from pi_tools.rewrite.slim import SlimOptions, slim_bytes
from pi_tools.rewrite.transformed import Step, TransformSessionError, transform_session
from pi_tools.secrets.detectors import Scanner
from pi_tools.session import ContextError, SessionReadError, build_session_context, load_session
from pi_tools.transforms import available_transforms, checked

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from support.oracle_path import GEN16, MISSING16, MISSING_GEN16, ORACLE16  # noqa: E402
from support.rewrite16_sessions import MADE16, SECRET, dump  # noqa: E402

PI16 = resolve("1.6")
PI085 = resolve("0.85")
ROOT = Path(__file__).resolve().parents[2]
EDGE = ROOT / "tests" / "data" / "pi16" / "cases"
GOLDEN = ROOT / "tests" / "data" / "rewrite16" / "outputs.json"
REDACT = "sk-ant-[A-Za-z0-9-]+"
SEED, COUNT = 16, 10

# Each rewrite as it is run on every subject: (name, what it runs). close-orphans adds entries with random ids, so
# it is checked on its made session below, not pinned here.
RUNS = ("repair", "slim", "slim-branches", "scrub", "transform-content", "transform-keep-last")


@dataclass
class Output:
    """One rewrite of one subject: OUT (None when refused), OUT.rejected, the report lines, or why it was refused."""

    out: bytes | None
    rejected: bytes
    report: list[str]
    refused: str | None = None


def _steps(*specs: tuple[str, str, Any]) -> list[Step]:
    registry = available_transforms()
    return [Step(name, label, checked(label, registry[name].factory(value))) for name, label, value in specs]


def rewrite(run: str, path: Path, tmp: Path, version: Any = PI16) -> Output:
    """`run` on the file at `path` through the library the CLI calls (OUT written under `tmp` where it must be)."""
    data = path.read_bytes()
    source = path.name
    try:
        if run == "repair":
            fixes = ConversationFixes(relink=True, trim_failed=True, drop_malformed_calls=True)
            repaired = repair_bytes(data, source, fixes=fixes, version=version)
            report = [f"{c.line}: {c.message} [{c.rule}]" for c in sorted(repaired.changes, key=lambda c: c.line)]
            report += [f"{c.line}: note: {c.message} [{c.rule}]" for c in sorted(repaired.notes, key=lambda c: c.line)]
            return Output(repaired.data(), repaired.rejected_data(), report)
        if run in ("slim", "slim-branches"):
            options = SlimOptions(10, 4, run == "slim-branches")
            slimmed = slim_bytes(data, source, options, version)
            from pi_tools.rewrite.writer import rejected_bytes

            return Output(slimmed.data(), rejected_bytes(slimmed.rejected),
                          [f"{c.line}: {c.message}" for c in slimmed.changes])
        if run == "scrub":
            scrubbed = scrub_bytes(data, Scanner(()))
            return Output(scrubbed.data(), b"", [f"{f.line}: {f.kind} at {f.path}" for f in scrubbed.found])
        steps = _steps(("redact", "redact", REDACT), ("block-images", "block-images", True)) \
            if run == "transform-content" else _steps(("keep-last", "keep-last=1", 1))
        out = tmp / f"{path.stem}.{run}.jsonl"
        done = transform_session(str(path), str(out), steps, force=True, version=version)
        return Output(out.read_bytes(), done.rejected_data(), [f"{c.line}: {c.message}" for c in done.changes])
    except (RepairError, TransformSessionError, Exception) as exc:  # noqa: BLE001 - a refusal is an answer too
        if not isinstance(exc, (RepairError, TransformSessionError)) and type(exc).__name__ != "SlimError":
            raise
        return Output(None, b"", [], str(exc).replace(str(path.parent) + "/", ""))


def digest(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def pinned(output: Output) -> dict[str, Any]:
    if output.out is None:
        return {"refused": output.refused}
    return {"out": digest(output.out), "rejected": digest(output.rejected) if output.rejected else None,
            "report": output.report}


# ------------------------------------------------------------------------------------------------------------
# The subjects and their outputs


def made_files(folder: Path) -> dict[str, Path]:
    folder.mkdir(parents=True, exist_ok=True)
    files = {}
    for name, entries in MADE16.items():
        path = folder / f"{name}.jsonl"
        path.write_bytes(dump(entries))
        files[f"made/{name}"] = path
    return files


def edge_files() -> dict[str, Path]:
    return {f"edge/{p.stem}": p for p in sorted(EDGE.glob("*.jsonl"))}


def generated_files(folder: Path) -> dict[str, Path]:
    """Sessions Pi 1.6 wrote (scripts/gen16 with the installed generator); none without it."""
    if not GEN16.exists() or not (GEN16.parent / "node_modules").is_dir():
        return {}
    work = folder / "bin"
    work.mkdir(parents=True, exist_ok=True)
    source = ROOT / "scripts" / "gen16"
    for name in ("gen16", "gen_corpus16.mjs", "package.json"):
        shutil.copy2(source / name, work / name)
    (work / "node_modules").symlink_to(GEN16.parent / "node_modules", target_is_directory=True)
    out = folder / "sessions"
    run = subprocess.run([str(work / "gen16"), "--seed", str(SEED), "--count", str(COUNT), "--out", str(out)],
                         capture_output=True, timeout=600)
    if run.returncode != 0:
        return {}
    return {f"gen16/{p.stem}": p for p in sorted(out.glob("*.jsonl"))}


@dataclass
class Corpus:
    subjects: dict[str, Path]
    outputs: dict[str, Output]  # "subject|run"
    written: dict[str, Path]  # "subject|run" -> OUT on disk, for the oracle
    generated: bool


@pytest.fixture(scope="module")
def corpus(tmp_path_factory: pytest.TempPathFactory) -> Corpus:
    base = tmp_path_factory.mktemp("rewrite16")
    generated = generated_files(base / "gen16")
    subjects = {**made_files(base / "made"), **edge_files(), **generated}
    outputs: dict[str, Output] = {}
    written: dict[str, Path] = {}
    outs = base / "outs"
    outs.mkdir()
    for subject, path in subjects.items():
        for run in RUNS:
            key = f"{subject}|{run}"
            output = rewrite(run, path, base)
            outputs[key] = output
            if output.out is not None:
                file = outs / (re.sub(r"[^A-Za-z0-9_.-]", "_", key) + ".jsonl")
                file.write_bytes(output.out)
                written[key] = file
    return Corpus(subjects, outputs, written, bool(generated))


@cache
def golden() -> dict[str, Any]:
    result: dict[str, Any] = json.loads(GOLDEN.read_text(encoding="utf-8"))
    return result


def test_every_subject_and_run_is_pinned(corpus: Corpus) -> None:
    expected = golden()
    keys = [key for key in corpus.outputs if corpus.generated or not key.startswith("gen16/")]
    assert [key for key in keys if key not in expected] == []
    changed = [key for key in keys if pinned(corpus.outputs[key]) != expected[key]]
    assert changed == []
    if not corpus.generated:
        pytest.skip(f"the generated sessions' outputs are not checked: {MISSING_GEN16}")


def test_the_rewrites_do_change_1x_files(corpus: Corpus) -> None:
    """Not vacuous: every run changes some subject, and each made damage is repaired."""
    for run in RUNS:
        assert any(o.report for key, o in corpus.outputs.items() if key.endswith(f"|{run}")), run
    for name in ("interleaved16", "out_of_order16", "malformed16", "failed16"):
        assert corpus.outputs[f"made/{name}|repair"].report, name


# ------------------------------------------------------------------------------------------------------------
# Pi 1.6 loads every output to the context pi-tools builds; audit agrees with the repair report


def ours(path: Path) -> dict[str, Any]:
    try:
        context = build_session_context(load_session(str(path), False, PI16.context), rules=PI16.context)
    except (SessionReadError, ContextError) as exc:
        return {"error": str(exc)}
    return json.loads(dumps_document({"messages": context.messages, "thinkingLevel": context.thinking_level,
                                      "model": context.model}))


@pytest.fixture(scope="module")
def oracle16(corpus: Corpus, tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    if not ORACLE16.exists():
        pytest.skip(MISSING16)
    outs = next(iter(corpus.written.values())).parent
    documents = tmp_path_factory.mktemp("oracle16_out")
    run = subprocess.run([str(ORACLE16), "--batch", str(outs), str(documents), "--apis", "", "--no-reasoning"],
                         capture_output=True, timeout=1800)
    assert run.returncode == 0, run.stderr.decode("utf-8", "replace")
    return {p.stem: json.loads(p.read_text(encoding="utf-8")) for p in documents.glob("*.json")}


def test_pi16_loads_every_output_as_pi_tools_does(corpus: Corpus, oracle16: dict[str, Any]) -> None:
    from support.differential import first_difference, short

    differences = []
    for key, path in corpus.written.items():
        pi, mine = oracle16[path.stem], ours(path)
        if "error" in pi or "error" in mine:
            if ("error" in pi) != ("error" in mine):
                differences.append(f"{key}: Pi {pi.get('error')!r}, pi-tools {mine.get('error')!r}")
            continue
        theirs = {"messages": pi["context"]["messages"], "thinkingLevel": pi["context"]["thinkingLevel"],
                  "model": pi["context"]["model"]}
        found = first_difference(mine, theirs, order=True)
        if found is not None:
            differences.append(f"{key}: {found[0]}: ours {short(found[1])}, Pi {short(found[2])}")
    assert differences == []
    assert len(corpus.written) >= len(corpus.subjects) * 4


def test_pi16_fails_only_where_it_failed_on_the_input(corpus: Corpus, oracle16: dict[str, Any]) -> None:
    """A rewrite never makes a file Pi 1.6 cannot open: its errors are the inputs' own (e12: an edit without a
    replacement, which Pi throws on)."""
    failing = {key.split("|")[0] for key, path in corpus.written.items() if "error" in oracle16[path.stem]}
    assert failing <= {"edge/e12_repl_missing"}


def test_repaired_files_no_longer_have_what_the_repair_fixed(corpus: Corpus) -> None:
    for key, output in corpus.outputs.items():
        if not key.endswith("|repair") or output.out is None:
            continue
        fixed = {rule for line in output.report if "note:" not in line
                 for rule in re.findall(r"\[([a-z-]+)\]$", line) if rule != "None"}
        left = [f for f in audit_bytes(output.out, key, frozenset(fixed), PI16.context)]
        notes = [line for line in output.report if "note:" in line]
        assert not left or notes, (key, left)


# ------------------------------------------------------------------------------------------------------------
# What each rewrite does with 1.x constructs (the made sessions)


def lines_of(data: bytes) -> list[Any]:
    return [loads_line(line) for line in data.split(b"\n") if line]


def by_id(data: bytes) -> dict[str, Any]:
    return {e["id"]: e for e in lines_of(data) if "id" in e and e.get("type") != "session"}


def test_relink_holds_system_messages_and_lets_usage_and_edits_pass(corpus: Corpus, tmp_path: Path) -> None:
    out = corpus.outputs["made/interleaved16|repair"]
    assert out.out is not None
    entries = by_id(out.out)
    # the user message interrupted the batch: it now follows the last result; the chain is unbroken
    assert entries["e8"]["parentId"] == "e3" and entries["e7"]["parentId"] == "e6"
    assert entries["e9"]["parentId"] == "e7"
    # results in call order, held and silent entries where they were: no message interrupts (as Pi 1.6 sends it)
    order = corpus.outputs["made/out_of_order16|repair"]
    assert order.out is not None and [e["parentId"] for e in by_id(order.out).values()][1:4] == ["e0", "e1", "e2"]
    assert not [line for line in order.report if "note:" in line]
    # read as 0.85 reads it, the system message interrupts: nothing to relink, and it says so
    as085 = rewrite("repair", corpus.subjects["made/out_of_order16"], tmp_path, PI085)
    assert as085.out == corpus.subjects["made/out_of_order16"].read_bytes()
    assert any("note:" in line and "tool-result-interleaved" in line for line in as085.report)


def test_edits_follow_the_entries_a_repair_sets_aside(corpus: Corpus) -> None:
    for name, gone in (("malformed16", {"e2", "e3", "e5", "e8"}), ("failed16", {"e4", "e5"})):
        output = corpus.outputs[f"made/{name}|repair"]
        assert output.out is not None
        kept = by_id(output.out)
        rejected = {loads_line(line.split(b"\t", 1)[1])["id"] for line in output.rejected.split(b"\n") if line}
        assert rejected == gone
        assert [e["id"] for e in kept.values() if e["type"] == "context_edit" and e["targetId"] not in kept] == []
        assert any("moved context edit" in line for line in output.report)
    # the leaf stays on the path: failed16's user message e3, malformed16's assistant e7
    assert lines_of(corpus.outputs["made/failed16|repair"].out or b"")[-1]["id"] == "e3"
    assert lines_of(corpus.outputs["made/malformed16|repair"].out or b"")[-1]["id"] == "e7"


def test_close_orphans_answers_calls_whose_results_an_edit_omits(tmp_path: Path) -> None:
    path = tmp_path / "orphans16.jsonl"
    path.write_bytes(dump(MADE16["orphans16"]))
    repaired = repair_bytes(path.read_bytes(), path.name, close_orphaned_calls=True, version=PI16)
    out = tmp_path / "out.jsonl"
    out.write_bytes(repaired.data())
    context = ours(out)
    results = [m for m in context["messages"] if m["role"] == "toolResult"]
    assert [(m["toolCallId"], m["content"][0]["text"]) for m in results] == [
        ("call_1", "No result provided"), ("call_2", "No result provided")]
    assert audit_bytes(repaired.data(), "out", frozenset({"orphaned-tool-call"}), PI16.context) == []
    assert any("entry e3 now follows the added results" in c.message for c in repaired.changes)


def test_slim_keeps_system_messages_and_slims_replacements(corpus: Corpus) -> None:
    source = corpus.subjects["made/big16"].read_bytes().split(b"\n")
    output = corpus.outputs["made/big16|slim"]
    assert output.out is not None
    out = output.out.split(b"\n")
    assert out[1] == source[1]  # the system message: prompt sections and tool schemas untouched, byte for byte
    entries = by_id(output.out)
    assert "removed by pi-tools slim" in entries["e7"]["replacement"]["content"]  # a tool result's replacement
    assert entries["e8"]["replacement"]["content"][1]["type"] == "text"  # an image in a user message's replacement
    assert entries["e9"]["replacement"]["content"][0]["text"] == "y" * 12000  # a user's text is no tool output
    assert entries["e6"] == by_id(corpus.subjects["made/big16"].read_bytes())["e6"]
    as085 = slim_bytes(corpus.subjects["made/big16"].read_bytes(), "big16", SlimOptions(10, 4), PI085)
    assert by_id(as085.data())["e7"]["replacement"]["content"] == "x" * 12000  # 0.85: edits are no content


def test_slim_never_shortens_a_system_message(tmp_path: Path) -> None:
    from support.rewrite16_sessions import image, system

    entries = [system("e0", None, {"preamble": "p"}) | {"message": {"role": "system", "content": [image(40)],
                                                                    "timestamp": 1}}]
    data = dump(entries)
    assert slim_bytes(data, "s", SlimOptions(10, 4), PI16).data() == data
    assert slim_bytes(data, "s", SlimOptions(10, 4), PI085).data() != data


def test_scrub_reaches_prompt_sections_tool_schemas_edits_and_usage(corpus: Corpus) -> None:
    output = corpus.outputs["made/secrets16|scrub"]
    assert output.out is not None and SECRET.encode() not in output.out
    where = {line.split(" at ")[1] for line in output.report}
    assert {"$.message.sections.env", "$.message.toolsAdded[0].description",
            "$.message.toolsAdded[0].parameters.properties.token.default", "$.replacement.content",
            "$.replacement.content[0].text", "$.note", "$.message.toolsRemoved[0]", "$.systemMessage.sections.env",
            "$.summary"} <= where
    before, after = by_id(corpus.subjects["made/secrets16"].read_bytes()), by_id(output.out)
    assert [(e["id"], e.get("targetId")) for e in after.values()] == [(e["id"], e.get("targetId"))
                                                                      for e in before.values()]


def test_transform_content_reaches_edits_and_compaction_system_messages(corpus: Corpus, tmp_path: Path) -> None:
    output = corpus.outputs["made/secrets16|transform-content"]
    assert output.out is not None
    entries = by_id(output.out)
    assert SECRET not in entries["e4"]["replacement"]["content"]
    assert SECRET not in json.dumps(entries["e5"]["replacement"]) and SECRET not in entries["e8"]["summary"]
    # the context of OUT is the transformed context of FILE, as Pi 1.6 builds it
    out = tmp_path / "out.jsonl"
    out.write_bytes(output.out)
    context = build_session_context(load_session(str(corpus.subjects["made/secrets16"]), False, PI16.context),
                                    rules=PI16.context)
    messages = context.messages
    for step in _steps(("redact", "redact", REDACT), ("block-images", "block-images", True)):
        messages = step.apply(messages)
    assert ours(out)["messages"] == json.loads(dumps_document(messages))


def test_keep_last_drops_the_edits_of_the_entries_it_drops(corpus: Corpus) -> None:
    output = corpus.outputs["made/interleaved16|transform-keep-last"]
    assert output.out is not None
    kept = by_id(output.out)
    assert [e["id"] for e in kept.values() if e["type"] == "context_edit" and e["targetId"] not in kept] == []
    assert "e6" not in kept  # it edited the user message e1, which the last turn does not keep


def test_every_rewriting_command_takes_pi_16(tmp_path: Path, cli: Any) -> None:
    session = tmp_path / "s.jsonl"
    session.write_bytes(dump(MADE16["malformed16"]))
    commands = [["repair", str(session), "-o", str(tmp_path / "r.jsonl"), "--drop-malformed-calls"],
                ["slim", str(session), "-o", str(tmp_path / "s2.jsonl"), "--max-image-kb", "1"],
                ["scrub", str(session), "-o", str(tmp_path / "c.jsonl")],
                ["transform", str(session), "--to-session", str(tmp_path / "t.jsonl"), "--keep-last", "1"]]
    for command in commands:
        run = cli(*command, "--pi", "1.6")
        assert run.code == 0, (command, run.stderr)
    assert "moved context edit e5" in cli(*commands[0][:-1], "--force", "--drop-malformed-calls", "--pi",
                                          "1.6").stdout
    checked = cli("repair", str(session), "--dry-run", "--for-model", "anthropic/claude-sonnet-4-5", "--pi", "1.6")
    assert checked.code == 3 and checked.stdout  # only notes: what the model refuses and a rewrite cannot clear
    assert all(f"{session}:4: note: not fixed for anthropic/claude-sonnet-4-5: anthropic-tool-id (error): " in line
               for line in checked.stdout.splitlines()), checked.stdout
    assert checked.stderr == f"pi-tools: {session}: nothing to repair; wrote nothing\n"


# ------------------------------------------------------------------------------------------------------------


def regenerate() -> None:
    """Write tests/data/rewrite16/outputs.json from this checkout (development only; needs the generator)."""
    import tempfile

    base = Path(tempfile.mkdtemp())
    subjects = {**made_files(base / "made"), **edge_files(), **generated_files(base / "gen16")}
    if not any(key.startswith("gen16/") for key in subjects):
        raise SystemExit(MISSING_GEN16)
    pins = {f"{subject}|{run}": pinned(rewrite(run, path, base)) for subject, path in subjects.items() for run in RUNS}
    GOLDEN.parent.mkdir(parents=True, exist_ok=True)
    GOLDEN.write_text(json.dumps(pins, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    print(f"wrote {len(pins)} outputs to {GOLDEN}")


if __name__ == "__main__" and "--regen" in sys.argv:
    regenerate()
