"""`repair --relink / --trim-failed / --drop-malformed-calls / --for-model`: on every fixture the option applies to
(bad, real-world, conformance, fuzz) and on a session made for each fix, the output is loaded by Pi 0.85 (the
reference oracle, run here in one batch; skipped without it) to the context pi-tools builds, audit (or preflight,
for --for-model) no longer reports what a change claims to clear, the input is never touched, the lines a fix
removes can be put back from OUT, OUT.rejected and the report, and a SIGKILL leaves no partial output.
"""

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

from pi_tools.audit.checks import audit_file
from pi_tools.messages import convert_to_llm
from pi_tools.pipe.documents import dumps_document
from pi_tools.rewrite.conversation import malformed_reason
from pi_tools.rewrite.repair import ConversationFixes, RepairError, RepairResult, repair_file
from pi_tools.session import build_session_context, load_session

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from support.golden import CASES, REALWORLD, ROOT, canonical_sha  # noqa: E402
from support.oracle_path import MISSING, ORACLE  # noqa: E402
from support.rewrite_sessions import MADE, big_session, dump  # noqa: E402

CLAUDE, GEMINI = "anthropic/claude-sonnet-4-5", "google/gemini-3-flash-preview"
OPTIONS: dict[str, ConversationFixes] = {
    "relink": ConversationFixes(relink=True),
    "trim-failed": ConversationFixes(trim_failed=True),
    "drop-malformed-calls": ConversationFixes(drop_malformed_calls=True),
    "for-claude": ConversationFixes(for_model=CLAUDE, reasoning="high"),
    "for-gemini": ConversationFixes(for_model=GEMINI),
}
AUDIT_RULES = {"relink": {"tool-result-interleaved", "tool-result-order"}, "trim-failed": {"errored-turn"},
               "drop-malformed-calls": {"required-fields"}}
UNREPAIRABLE = {"binary_garbage", "empty", "header_numeric_id", "missing_header"}
FIXTURES = ROOT / "fixtures"


def fixture_subjects() -> dict[str, Path]:
    subjects = {f"bad/{p.stem}": p for p in sorted((FIXTURES / "bad").glob("*.jsonl")) if p.stem not in UNREPAIRABLE}
    subjects.update({f"realworld/{p.stem}": p for p in sorted(REALWORLD.glob("*.jsonl"))})
    subjects.update({f"conformance/{p.stem}": p for p in sorted(CASES.glob("*.jsonl"))})
    subjects.update({f"fuzz/{p.stem}": p for p in sorted((FIXTURES / "fuzz" / "cases").glob("*.jsonl"))})
    return subjects


def stamp(path: Path) -> tuple[bytes, int]:
    return path.read_bytes(), os.stat(path).st_mtime_ns


class Run:
    """One repair of one subject with one option: the result (or the refusal), the output and its rejected file."""

    def __init__(self, name: str, source: Path, option: str, out: Path) -> None:
        self.name, self.source, self.option, self.out = name, source, option, out
        before = stamp(source)
        self.error: str | None = None
        self.result: RepairResult | None = None
        try:
            self.result = repair_file(str(source), str(out), fixes=OPTIONS[option])
            if self.result.unchanged:  # nothing to repair: nothing written, the input is the result
                assert not out.exists()
                self.out = source
        except RepairError as exc:
            self.error = str(exc)
        self.input_unchanged = stamp(source) == before
        plain = repair_file(str(source), None, dry_run=True) if self.result is not None else None
        self.changed = self.result is not None and plain is not None and self.result.data() != plain.data()
        self.plain_is_identity = plain is not None and plain.data() == source.read_bytes() and not plain.rejected

    @property
    def claimed(self) -> list[Any]:
        return [c for c in (self.result.changes if self.result else []) if c.rule]


@pytest.fixture(scope="module")
def made_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    directory = tmp_path_factory.mktemp("made")
    for name, entries in MADE.items():
        (directory / f"{name}.jsonl").write_bytes(dump(entries))
    return directory


@pytest.fixture(scope="module")
def runs(made_dir: Path, tmp_path_factory: pytest.TempPathFactory) -> dict[tuple[str, str], Run]:
    out_dir = tmp_path_factory.mktemp("out")
    subjects = {**fixture_subjects(), **{f"made/{p.stem}": p for p in sorted(made_dir.glob("*.jsonl"))}}
    done: dict[tuple[str, str], Run] = {}
    for option in OPTIONS:
        for name, source in subjects.items():
            out = out_dir / f"{option}__{name.replace('/', '__')}.jsonl"
            done[(option, name)] = Run(name, source, option, out)
    return done


@pytest.fixture(scope="module")
def oracle(runs: dict[tuple[str, str], Run], tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """Pi 0.85's documents for every output a fix changed, from one batch run of the reference oracle."""
    if not ORACLE.exists():
        pytest.skip(MISSING)
    cases = tmp_path_factory.mktemp("oracle_in")
    documents = tmp_path_factory.mktemp("oracle_out")
    for run in runs.values():
        if run.changed:
            shutil.copy(run.out, cases / run.out.name)
    subprocess.run([str(ORACLE), "--batch", str(cases), str(documents), "--apis", "anthropic-messages",
                    "--no-branches"], capture_output=True, check=True, timeout=1800)
    return {p.stem: json.loads(p.read_text(encoding="utf-8")) for p in documents.glob("*.json")}


ALL = [(option, name) for option in OPTIONS for name in [*(f"made/{n}" for n in MADE), *fixture_subjects()]]


@pytest.mark.parametrize(("option", "name"), ALL, ids=[f"{o}:{n}" for o, n in ALL])
def test_output_fixes_what_it_claims_and_pi_agrees(runs: dict[tuple[str, str], Run], oracle: dict[str, Any],
                                                   option: str, name: str) -> None:
    run = runs[(option, name)]
    assert run.input_unchanged
    if run.result is None:
        # Refused: only for what the fix cannot work on (say so, never a traceback) and nothing is written.
        assert run.error is not None and re.search(
            r"needs a version 3 session file|cannot find the active path|nothing to check: Pi 0\.85 cannot build|"
            r"parentId cycle|no line holds a valid session header", run.error), run.error
        assert not run.out.exists()
        return
    result = audit_file(str(run.out))
    assert result.error is None
    noted = {(n.rule, n.entry_id) for n in run.result.notes}
    if option in AUDIT_RULES:
        claimed = {c.rule for c in run.claimed} & AUDIT_RULES[option]
        left = [f for f in result.findings if f["rule"] in claimed and (f["rule"], f["entryId"]) not in noted]
        if option == "trim-failed":
            leaf = (load_session(str(run.out)).path() or [{}])[-1]
            assert not (leaf.get("type") == "message" and (leaf.get("message") or {}).get("stopReason") in ("error", "aborted"))
            trimmed = {c.entry_id for c in run.claimed if "to the .rejected file" in c.message}
            left = [f for f in left if f["entryId"] in trimmed]
        if option == "drop-malformed-calls":
            left = [f for f in left if "(toolCall)" in f["message"]]
            for entry in load_session(str(run.out)).entries:
                message = entry.get("message") if isinstance(entry, dict) else None
                content = message.get("content") if isinstance(message, dict) else None
                if isinstance(message, dict) and message.get("role") == "assistant" and isinstance(content, list):
                    assert [b for b in content if malformed_reason(b)] == []
        assert left == []
    else:
        from pi_tools.preflight.check import PreflightRequest
        from pi_tools.preflight.session import preflight_path

        fixes = OPTIONS[option]
        after = preflight_path(str(run.out), PreflightRequest(model=fixes.for_model, reasoning=fixes.reasoning))
        assert after.error is None
        claimed = {c.rule for c in run.claimed}
        assert [f for f in after.findings if f["rule"] in claimed] == []
        # What is not fixed is said: every finding left has a note.
        assert {f["rule"] for f in after.findings} <= {n.rule for n in run.result.notes}
    if not run.changed:
        return
    reference = oracle[run.out.stem]
    if "error" in reference:
        pytest.fail(f"Pi 0.85 cannot load {run.out.name}: {reference['error']}")
    context = build_session_context(load_session(str(run.out)))
    document = {"messages": context.messages, "thinkingLevel": context.thinking_level, "model": context.model}
    assert canonical_sha(json.loads(dumps_document(document))) == canonical_sha(reference["context"])
    assert canonical_sha(json.loads(dumps_document(convert_to_llm(context.messages)))) == \
        canonical_sha(reference["llm"])


def test_each_fix_changes_its_made_session_and_a_fixture(runs: dict[tuple[str, str], Run]) -> None:
    """The corpus test above is not vacuous: each option changes the session made for it (and fixtures)."""
    expected = {"relink": ["made/interleaved", "made/out_of_order", "conformance/c001_tools",
                           "realworld/pinion05__agent-complex-task__03-raddit-dashboard-pr__session"],
                "trim-failed": ["made/failed_trail"],
                "drop-malformed-calls": ["made/malformed_calls", "fuzz/tool_call_id_a_number"],
                "for-claude": ["made/foreign_loop"], "for-gemini": ["made/gemini_loop", "conformance/c009_mixed"]}
    for option, names in expected.items():
        for name in names:
            assert runs[(option, name)].changed, (option, name)
    assert sum(run.changed for run in runs.values()) >= 40


# --- the made sessions, through the CLI: exact reports ------------------------------------------------------------


def test_relink_moves_deferred_messages_behind_the_last_result(made_dir: Path, tmp_path: Path, cli: Any) -> None:
    source = made_dir / "interleaved.jsonl"
    out = tmp_path / "out.jsonl"
    run = cli("repair", str(source), "-o", str(out), "--relink")
    assert run.code == 0, run.stderr
    rule = "[tool-result-interleaved]"
    assert run.stdout.splitlines() == [
        f"{source}:3: put the lines of assistant e2's batch in their new order in the file (the last line stays the "
        f"end of the same path) {rule}",
        f"{source}:4: moved bash execution e3, custom_message entry e5, user message e6 behind the last result of "
        f"assistant e2's tool calls (Pi defers them until a batch is done) {rule}",
        f"{source}:4: entry e3: parentId e2 -> e7 {rule}",
        f"{source}:5: entry e4: parentId e3 -> e2 {rule}",
        f"{source}:6: entry e5: parentId e4 -> e3 {rule}",
        f"{source}:8: entry e7: parentId e6 -> e4 {rule}",
        f"{source}:9: entry e8: parentId e7 -> e6 {rule}",
    ]
    tree = load_session(str(out))
    assert [e["id"] for e in tree.path()] == ["e1", "e2", "e4", "e7", "e3", "e5", "e6", "e8", "e9"]
    assert [e["id"] for e in tree.entries] == ["e1", "e2", "e4", "e7", "e3", "e5", "e6", "e8", "e9"]
    assert audit_file(str(out)).findings == []
    # Ids never change; only parentIds do, and every other byte of each line is kept.
    original = {json.loads(line)["id"]: line for line in source.read_bytes().splitlines()[1:]}
    for line in out.read_bytes().splitlines()[1:]:
        entry_id = json.loads(line)["id"]
        assert re.sub(rb'"parentId":"\w+"', b"", line) == re.sub(rb'"parentId":"\w+"', b"", original[entry_id])
    # Pi's context now gives the results right after their calls, then the deferred messages.
    roles = [m["role"] for m in build_session_context(tree).messages]
    assert roles == ["user", "assistant", "toolResult", "toolResult", "bashExecution", "custom", "user", "assistant",
                     "user"]


def test_relink_puts_results_in_call_order(made_dir: Path, tmp_path: Path, cli: Any) -> None:
    source = made_dir / "out_of_order.jsonl"
    out = tmp_path / "out.jsonl"
    run = cli("repair", str(source), "-o", str(out), "--relink", "--format", "json")
    assert run.code == 0, run.stderr
    documents = run.documents()
    assert documents[0] == {"kind": "change", "source": str(source), "line": 3, "entryId": "e2",
                            "rule": "tool-result-order",
                            "change": "put the results of assistant e2's tool calls in call order (call_1, call_2, "
                                      "call_3)"}
    assert {d["rule"] for d in documents[:-1]} == {"tool-result-order"}
    assert documents[-1] == {"kind": "rewrite", "source": str(source), "output": str(out), "rejected": None,
                             "rejectedLines": 0, "backup": None, "changes": 7, "dryRun": False, "notes": 0}
    tree = load_session(str(out))
    results = [m["toolCallId"] for m in build_session_context(tree).messages if m["role"] == "toolResult"]
    assert results == ["call_1", "call_2", "call_3"]
    assert [e["id"] for e in tree.path()] == ["e1", "e2", "e5", "e4", "e6", "e3", "e7"]  # the label stays in place
    assert audit_file(str(out)).findings == []


def test_trim_failed_rejects_the_failed_retries_and_the_good_entry_is_the_leaf(made_dir: Path, tmp_path: Path,
                                                                                cli: Any) -> None:
    source = made_dir / "failed_trail.jsonl"
    out = tmp_path / "out.jsonl"
    run = cli("repair", str(source), "-o", str(out), "--trim-failed")
    assert run.code == 0, run.stderr
    assert run.stdout.splitlines() == [
        f"{source}:4: moved the line of entry e3 to the end of the file, so that it is Pi's leaf (the last line) "
        "[errored-turn]",
        f"{source}:4: entry e3 is the leaf again [errored-turn]",
        f"{source}:5: moved the failed assistant turn e4 (stopReason error) at the end of the active path to the "
        ".rejected file [errored-turn]",
        f"{source}:8: moved the failed assistant turn e7 (stopReason aborted) at the end of the active path to the "
        ".rejected file [errored-turn]",
        f"{source}: 2 line(s) set aside in {out}.rejected",
    ]
    lines = source.read_bytes().splitlines()
    assert (tmp_path / "out.jsonl.rejected").read_bytes() == b"5\t" + lines[4] + b"\n8\t" + lines[7] + b"\n"
    assert out.read_bytes().splitlines() == [lines[0], lines[1], lines[2], lines[5], lines[6], lines[3]]
    tree = load_session(str(out))
    assert tree.leaf_id == "e3" and [e["id"] for e in tree.path()] == ["e1", "e2", "e3"]
    assert [f["rule"] for f in audit_file(str(source)).findings] == ["errored-turn", "errored-turn"]
    assert audit_file(str(out)).findings == []


def test_drop_malformed_calls_removes_them_with_their_results(made_dir: Path, tmp_path: Path, cli: Any) -> None:
    source = made_dir / "malformed_calls.jsonl"
    out = tmp_path / "out.jsonl"
    run = cli("repair", str(source), "-o", str(out), "--drop-malformed-calls", "--format", "json")
    assert run.code == 0, run.stderr
    changes = [(d["line"], d["entryId"], d["rule"], d["change"]) for d in run.documents()[:-1]]
    tail = "; the original line is in the .rejected file"
    assert changes == [
        (3, "e2", "required-fields", "removed tool call content[1] (call call_1, bash) of assistant e2: its arguments "
                                     f"are null, not an object (Pi's /tree fails on it){tail}"),
        (3, "e2", "anthropic-tool-id", f"removed tool call content[2] (call '', read) of assistant e2: its id is "
                                       f"empty{tail}"),
        (3, "e2", None, f"removed tool call content[3] (call call_3, '') of assistant e2: its name is empty{tail}"),
        (3, "e2", "required-fields", f"removed tool call content[5] (call 7, bash) of assistant e2: its id is not a "
                                     f"string{tail}"),
        (4, "e3", "required-fields", "moved tool result e3 (it answers a removed call of assistant e2) to the "
                                     ".rejected file"),
        (5, "e4", "anthropic-tool-id", "moved tool result e4 (it answers a removed call of assistant e2) to the "
                                       ".rejected file"),
        (6, "e5", None, "moved tool result e5 (it answers a removed call of assistant e2) to the .rejected file"),
        (7, "e6", "required-fields", "entry e6: parentId e5 -> e2"),
        (8, "e7", "required-fields", "moved tool result e7 (it answers a removed call of assistant e2) to the "
                                     ".rejected file"),
        (9, "e8", "required-fields", "entry e8: parentId e7 -> e6"),
    ]
    tree = load_session(str(out))
    assert [e["id"] for e in tree.path()] == ["e1", "e2", "e6", "e8"]
    assert tree.path()[1]["message"]["content"] == [{"type": "text", "text": "calling"},
                                                    {"type": "toolCall", "id": "call_4", "name": "bash",
                                                     "arguments": {"command": "ls"}}]
    assert [f["rule"] for f in audit_file(str(out)).findings] == []
    assert "required-fields" in {f["rule"] for f in audit_file(str(source)).findings}


@pytest.mark.parametrize(("session", "model", "rule", "extra"), [
    ("foreign_loop", CLAUDE, "anthropic-thinking-tool-loop", []),
    ("gemini_loop", GEMINI, "google-thought-signature", []),
])
def test_for_model_starts_a_new_turn_and_preflight_passes(made_dir: Path, tmp_path: Path, cli: Any, session: str,
                                                          model: str, rule: str, extra: list[str]) -> None:
    source = made_dir / f"{session}.jsonl"
    before = cli("preflight", "--format", "json", "--model", model, str(source))
    assert before.code == 1 and [f["rule"] for f in before.documents()] == [rule]
    out = tmp_path / "out.jsonl"
    run = cli("repair", str(source), "-o", str(out), "--for-model", model, *extra, "--format", "json")
    assert run.code == 0, run.stderr
    change, summary = run.documents()
    added = json.loads(out.read_bytes().splitlines()[-1])
    assert change["rule"] == rule and change["entryId"] == "e2"
    assert change["change"] == (f"{rule} for {model}: {before.documents()[0]['message']} Started a new turn after "
                                f"the leaf e3: added custom message {added['id']} (pi-tools-repair, sent as a user "
                                "message), so no step of the current turn is another model's")
    assert list(added) == ["type", "customType", "content", "display", "id", "parentId", "timestamp"]
    assert added["parentId"] == "e3" and re.fullmatch(r"[0-9a-f]{8}", added["id"])
    assert added["content"] == (f"(The conversation continues on {model}. The tool results above are complete; "
                                "carry on from them.)")
    assert out.read_bytes().splitlines()[:-1] == source.read_bytes().splitlines()
    after = cli("preflight", "--format", "json", "--model", model, str(out))
    assert (after.code, after.documents()) == (0, [])
    assert summary["notes"] == 0


def test_for_model_says_what_it_cannot_fix(tmp_path: Path, cli: Any) -> None:
    source = FIXTURES / "conformance" / "cases" / "edge_images_mimes.jsonl"
    run = cli("repair", str(source), "--dry-run", "--for-model", CLAUDE)
    assert (run.code, run.stderr) == (3, f"pi-tools: {source}: nothing to repair; wrote nothing\n")
    notes = [line for line in run.stdout.splitlines() if ": note: " in line]
    assert len(notes) == 1
    assert re.fullmatch(rf"{re.escape(str(source))}:\d+: note: not fixed for {CLAUDE}: anthropic-image-media-type "
                        r"\(error\): .* \(an image of another type would have to be converted; not done by a "
                        r"rewrite\) \[anthropic-image-media-type\]", notes[0]), notes[0]
    bad = cli("repair", str(source), "--dry-run", "--for-model", "nope/model")
    assert bad.code == 2 and bad.stderr.startswith("pi-tools: --for-model nope/model: ")
    lonely = cli("repair", str(source), "--dry-run", "--reasoning", "high")
    assert (lonely.code, lonely.stderr) == (2, "pi-tools: --reasoning only goes with --fix or --for-model\n")
    legacy = cli("repair", "fixtures/conformance/cases/c025_v1.jsonl", "--dry-run", "--relink")
    assert legacy.code == 2 and "--relink needs a version 3 session file (this one is version 1" in legacy.stderr


# --- nothing lost ---------------------------------------------------------------------------------------------


def reassemble(out: Path, rejected: Path, report: list[dict[str, Any]]) -> bytes:
    """FILE from OUT, OUT.rejected and the JSON report: reported parentId changes undone, OUT lines whose original
    is in OUT.rejected dropped, moved lines put back at their reported line, the rejected lines at theirs."""
    held = {}
    if rejected.exists():
        for line in rejected.read_bytes().splitlines():
            number, _, data = line.partition(b"\t")
            held[int(number)] = data
    held_ids = {json.loads(data).get("id") for data in held.values()}
    undo = {}
    moved = {}
    for document in report:
        change = document.get("change", "")
        parent = re.fullmatch(r"entry (\w+): parentId (\w+) -> (\w+|None)", change)
        if parent:
            undo[parent.group(1)] = (parent.group(3), parent.group(2))
        line_move = re.fullmatch(r"moved the line of entry (\w+) to the end of the file.*", change)
        if line_move:
            moved[line_move.group(1)] = document["line"]
    rest = []
    for line in out.read_bytes().splitlines():
        entry = json.loads(line)
        entry_id = entry.get("id")
        if entry.get("type") != "session" and entry_id in held_ids:
            continue
        if entry_id in undo:
            new, old = undo[entry_id]
            line = line.replace(b'"parentId":"' + new.encode() + b'"', b'"parentId":"' + old.encode() + b'"', 1)
        if entry_id in moved:
            held[moved[entry_id]] = line
            continue
        rest.append(line)
    total = len(rest) + len(held)
    queue = iter(rest)
    return b"".join((held[n] if n in held else next(queue)) + b"\n" for n in range(1, total + 1))


REMOVING = ["trim-failed", "drop-malformed-calls"]


@pytest.mark.parametrize("option", REMOVING)
def test_file_is_reassembled_from_out_rejected_and_report(runs: dict[tuple[str, str], Run], option: str) -> None:
    checked = 0
    for (run_option, name), run in runs.items():
        if run_option != option or not run.changed or not run.plain_is_identity or run.result is None:
            continue
        report = [c.document(str(run.source)) for c in run.result.changes]
        rejected = Path(f"{run.out}.rejected")
        assert reassemble(run.out, rejected, report) == run.source.read_bytes(), name
        checked += 1
    assert checked >= 1


# --- in place, dry run, SIGKILL ---------------------------------------------------------------------------------


def test_in_place_and_dry_run(made_dir: Path, tmp_path: Path, cli: Any) -> None:
    source = tmp_path / "s.jsonl"
    source.write_bytes((made_dir / "malformed_calls.jsonl").read_bytes())
    before = stamp(source)
    dry = cli("repair", str(source), "--dry-run", "--drop-malformed-calls", "--relink", "--trim-failed")
    assert dry.code == 0 and stamp(source) == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["s.jsonl"]
    real = cli("repair", str(source), "--in-place", "--drop-malformed-calls")
    assert real.code == 0, real.stderr
    assert real.stdout.splitlines()[-2:] == [f"{source}: 5 line(s) set aside in {source}.bak.rejected",
                                             f"{source}: the original is kept as {source}.bak"]
    assert (tmp_path / "s.jsonl.bak").read_bytes() == before[0]
    assert audit_file(str(source)).findings == []


KILLED = {"fixes": (["--relink", "--trim-failed", "--drop-malformed-calls"], ["malformed_calls", "interleaved"]),
          "for-model": (["--for-model", GEMINI], ["interleaved", "gemini_loop"])}


def same_but_added(data: bytes, complete: bytes) -> bool:
    """Equal, except the entry --for-model adds (its id and timestamp are new in every run)."""
    ours, theirs = data.splitlines(), complete.splitlines()
    if len(ours) != len(theirs) or ours[:-1] != theirs[:-1]:
        return False
    return ours[-1] == theirs[-1] or json.loads(ours[-1]).get("customType") == json.loads(theirs[-1]).get("customType")


@pytest.mark.parametrize("kind", sorted(KILLED))
@pytest.mark.parametrize("in_place", [False, True], ids=["out", "in-place"])
def test_sigkill_at_any_moment_leaves_file_intact_and_no_partial_out(tmp_path: Path, in_place: bool,
                                                                     kind: str) -> None:
    source = tmp_path / "big.jsonl"
    options, damage = KILLED[kind]
    big_session(source, damage, with_trail=kind == "fixes")
    original = source.read_bytes()
    whole = tmp_path / "whole.jsonl"
    finished = subprocess.run([sys.executable, "-m", "pi_tools", "repair", str(source), "-o", str(whole), *options],
                              capture_output=True, cwd=ROOT, timeout=600)
    assert finished.returncode == 0, finished.stderr
    complete = whole.read_bytes()
    assert complete != original
    whole.unlink()
    Path(f"{whole}.rejected").unlink(missing_ok=True)
    out = tmp_path / "out.jsonl"
    target = ["--in-place"] if in_place else ["-o", str(out)]
    outcomes = set()
    for delay in (0.05, 0.3, 0.6, 1.0, 1.5, 2.0, 3.0, 4.5):
        process = subprocess.Popen([sys.executable, "-m", "pi_tools", "repair", str(source), *target, *options],
                                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, cwd=ROOT)
        time.sleep(delay)
        process.send_signal(signal.SIGKILL)
        process.wait(30)
        if in_place:
            assert source.read_bytes() == original or same_but_added(source.read_bytes(), complete)
            done = source.read_bytes() != original
            outcomes.add(done)
            if done:
                assert (tmp_path / "big.jsonl.bak").read_bytes() == original
            for leftover in tmp_path.glob("big.jsonl.bak*"):
                leftover.unlink()
            source.write_bytes(original)
        else:
            assert source.read_bytes() == original
            outcomes.add(out.exists())
            if out.exists():
                assert same_but_added(out.read_bytes(), complete)
                out.unlink()
            Path(f"{out}.rejected").unlink(missing_ok=True)
        visible = sorted(p.name for p in tmp_path.iterdir() if not p.name.startswith("."))
        assert visible == ["big.jsonl"]
    assert False in outcomes
