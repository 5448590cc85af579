"""The sessions listed in the golden's input list, and seeded damaged variants of them, give exactly the recorded
findings.

The golden (tests/data/audit_golden/findings.golden) is `pi-tools audit --format json` output, byte for byte, for
the session files named in tests/data/audit_golden/inputs.txt (the bad, real-world and conformance sessions, the
per-rule audit sessions, the fuzz cases and sessions from the reference's generator in
tests/data/audit_golden/corpus/) followed by damaged variants of each. The list is explicit and each file's
variants come from its own seed, so a fixture added later changes nothing recorded. The golden was first
recorded before audit got its fast path, so that "identical findings" holds by test on both sides of that change;
every recording is also checked against the line-by-line audit below. Regenerate only for an intended change of
findings or of the list: `python tests/audit/test_audit_findings_golden.py --write` (it lists the current
files again).
"""

from __future__ import annotations

import random
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import orjson
import pytest

from pi_tools.audit.checks import AuditResult, audit_bytes, audit_bytes_line_by_line
from pi_tools.audit.clean import LineCollector, audit_clean_bytes
from pi_tools.audit.findings import FindingSink
from pi_tools.audit.formats import json_lines
from pi_tools.audit.rules import BASE_RULES, RULES, RULES_BY_ID
from pi_tools.session.bulk import index_clean_session
from pi_tools.session.reader import strictly_utf8

ROOT = Path(__file__).resolve().parents[2]
EVERY_RULE = frozenset(RULES_BY_ID)  # the opt-in rules too
GOLDEN_DIR = ROOT / "tests" / "data" / "audit_golden"
GOLDEN = GOLDEN_DIR / "findings.golden"  # JSON Lines, named so that no test takes it for a session file
INPUTS = GOLDEN_DIR / "inputs.txt"  # the files the golden was recorded for, one repository-relative path a line
CORPUS = GOLDEN_DIR / "corpus"
MUTANTS_PER_FILE = 8  # of files up to SMALL_BYTES; 2 of each larger one
SMALL_BYTES = 200_000
SEED = 104


def repository_session_files() -> list[Path]:
    """Every session-shaped file of the repository now (expected outputs excluded), in a fixed order."""
    return sorted(
        path for pattern in ("fixtures/**/*.jsonl", "tests/data/**/*.jsonl") for path in ROOT.glob(pattern)
        if "expected" not in path.relative_to(ROOT).parts
    )


def session_files() -> list[Path]:
    """The files the golden was recorded for (tests/data/audit_golden/inputs.txt), in its order."""
    return [ROOT / name for name in INPUTS.read_text().splitlines() if name]


def _lines_with(lines: list[bytes], needle: bytes) -> list[int]:
    return [index for index, line in enumerate(lines) if needle in line and index > 0]


def _replace_in_some(needle: bytes, choices: list[bytes]) -> Callable[[list[bytes], random.Random], None]:
    """A damage that rewrites `needle` (its first occurrence) on one line that has it."""
    def damage(lines: list[bytes], rng: random.Random) -> None:
        found = _lines_with(lines, needle)
        if found:
            index = rng.choice(found)
            lines[index] = lines[index].replace(needle, rng.choice(choices), 1)
    return damage


def _duplicate(lines: list[bytes], rng: random.Random) -> None:
    lines.insert(rng.randrange(1, len(lines) + 1), lines[rng.randrange(len(lines))])


def _delete(lines: list[bytes], rng: random.Random) -> None:
    if len(lines) > 1:
        del lines[rng.randrange(1, len(lines))]


def _swap_neighbours(lines: list[bytes], rng: random.Random) -> None:
    if len(lines) > 2:
        index = rng.randrange(1, len(lines) - 1)
        lines[index], lines[index + 1] = lines[index + 1], lines[index]


def _swap_any(lines: list[bytes], rng: random.Random) -> None:
    if len(lines) > 2:
        i, j = rng.randrange(1, len(lines)), rng.randrange(1, len(lines))
        lines[i], lines[j] = lines[j], lines[i]


def _reparent(lines: list[bytes], rng: random.Random) -> None:
    ids = [line.split(b'"id":"', 1)[1].split(b'"', 1)[0] for line in lines[1:] if b'"id":"' in line]
    found = _lines_with(lines, b'"parentId":"')
    if ids and found:
        index = rng.choice(found)
        head, tail = lines[index].split(b'"parentId":"', 1)
        lines[index] = head + b'"parentId":"' + rng.choice(ids) + tail[tail.find(b'"'):]


def _byte_edit(lines: list[bytes], rng: random.Random) -> None:
    index = rng.randrange(len(lines))
    line = lines[index]
    cut = rng.randrange(len(line) + 1)
    lines[index] = line[:cut] + rng.choice([b"", b"\n", b"}", b'"', b"\\", b"\x00", b" ", b"\xff", b"\xc3"]) \
        + line[cut + 1:]


def _junk_line(lines: list[bytes], rng: random.Random) -> None:
    junk = rng.choice([b"42", b"null", b"[]", b"{}", b'"x"', b"0", b"", b"   ", b'{"type":"session","id":"h2"}',
                       b'{"type":"note","id":"n1","parentId":null}', b"\xef\xbb\xbf{}"])
    lines.insert(rng.randrange(1, len(lines) + 1), junk)


def _crlf(lines: list[bytes], rng: random.Random) -> None:
    index = rng.randrange(len(lines))
    lines[index] += b"\r"


def _concatenate(lines: list[bytes], rng: random.Random) -> None:
    if len(lines) > 2:
        index = rng.randrange(1, len(lines) - 1)
        lines[index:index + 2] = [lines[index] + rng.choice([b"", b" ", b","]) + lines[index + 1]]


def _header(lines: list[bytes], rng: random.Random) -> None:
    lines[0] = rng.choice([
        lines[0].replace(b'"version":3', b'"version":2'), lines[0].replace(b'"id":"', b'"id":1,"x":"', 1),
        lines[0].replace(b'"type":"session"', b'"type":"message"'), b"\xef\xbb\xbf" + lines[0],
    ])


DAMAGES: tuple[Callable[[list[bytes], random.Random], None], ...] = (
    _duplicate, _delete, _swap_neighbours, _swap_any, _reparent, _byte_edit, _junk_line, _crlf, _concatenate,
    _header,
    _replace_in_some(b'"parentId":"', [b'"parentId":"x', b'"parentId":7,"_":"', b'"parentId":null,"_":"']),
    _replace_in_some(b'"timestamp":"', [b'"timestamp":"x', b'"timestamp":"2025-13-45', b'"timestamp":1,"_":"']),
    _replace_in_some(b'"toolCallId":"', [b'"toolCallId":"z', b'"toolCallId":null,"_":"', b'"_":"']),
    _replace_in_some(b'"toolName":"', [b'"toolName":"other', b'"toolName":3,"_":"', b'"_":"']),
    _replace_in_some(b'"stopReason":"', [b'"stopReason":"pending","_":"', b'"stopReason":"error","_":"',
                                         b'"stopReason":"aborted","_":"', b'"stopReason":"bogus","_":"',
                                         b'"stopReason":5,"_":"']),
    _replace_in_some(b'"role":"', [b'"role":"usr","_":"', b'"role":"custom","_":"', b'"role":7,"_":"',
                                   b'"role":"bashExecution","_":"']),
    _replace_in_some(b'"type":"toolCall"', [b'"type":"tool_use"', b'"type":"text"', b'"type":"thinking"']),
    _replace_in_some(b'"type":"text"', [b'"type":"txt"', b'"type":"image"', b'"type":"toolCall"']),
    _replace_in_some(b'"arguments":', [b'"args":', b'"arguments":"s","_":']),
    _replace_in_some(b'"provider":"', [b'"provider":"x', b'"provider":null,"_":"']),
    _replace_in_some(b'"model":"', [b'"model":"y', b'"model":1,"_":"']),
    _replace_in_some(b'"content":[', [b'"content":[1,', b'"content":[{},', b'"content":7,"_":[', b'"_":[']),
    _replace_in_some(b'"message":{', [b'"message":null,"_":{', b'"_":{', b'"message":[],"_":{']),
    _replace_in_some(b'"display":true', [b'"display":false', b'"display":0']),
    _replace_in_some(b'"isError":false', [b'"isError":"no"', b'"isError":false,"excludeFromContext":true']),
    _replace_in_some(b'"firstKeptEntryId":"', [b'"firstKeptEntryId":"q', b'"firstKeptEntryId":null,"_":"']),
    _replace_in_some(b'"type":"message"', [b'"type":"custom_message","display":false,"customType":"c"',
                                           b'"type":"branch_summary","fromId":"nowhere","summary":"s"',
                                           b'"type":"compaction","firstKeptEntryId":"x","summary":"s"',
                                           b'"type":"label"']),
    _replace_in_some(b'Signature":"', [b'Signature":"', b'Signature":5,"_":"']),
    _replace_in_some(b'"id":"', [b'"id":"', b'"id":null,"_":"', b'"id":"","_":"']),
)


def mutants(data: bytes, rng: random.Random, count: int) -> list[bytes]:
    """Seeded damaged variants of a session: one to three damages each, sometimes a cut or missing last newline."""
    lines = data.rstrip(b"\n").split(b"\n")
    out: list[bytes] = []
    for _ in range(count):
        edited = list(lines)
        for _ in range(rng.choice((1, 1, 2, 3))):
            rng.choice(DAMAGES)(edited, rng)
        text = b"\n".join(edited)
        ending = rng.random()
        if ending < 0.08:
            text = text[:rng.randrange(len(text) + 1)]  # a torn tail
        elif ending < 0.9:
            text += b"\n"
        out.append(text)
    return out


def cases() -> Iterator[tuple[str, bytes]]:
    """(source, bytes) of every audited input, in the golden's order: the files, then their damaged variants."""
    files = session_files()
    for path in files:
        yield str(path.relative_to(ROOT)), path.read_bytes()
    for path in files:
        data = path.read_bytes()
        if not data.strip():
            continue
        name = path.relative_to(ROOT)
        rng = random.Random(f"{SEED}:{name.as_posix()}")  # its own seed: other files never move its variants
        for number, mutant in enumerate(mutants(data, rng, MUTANTS_PER_FILE if len(data) <= SMALL_BYTES else 2)):
            yield f"mutant:{name}#{number}", mutant


def findings_output(source: str, data: bytes) -> bytes:
    """What `pi-tools audit --format json` writes for this input."""
    return json_lines([AuditResult(source, audit_bytes(data, source, EVERY_RULE))])


def record() -> bytes:
    return b"".join(findings_output(source, data) for source, data in cases())


def _by_source(text: bytes) -> dict[str, list[bytes]]:
    grouped: dict[str, list[bytes]] = {}
    for line in text.splitlines(keepends=True):
        grouped.setdefault(orjson.loads(line)["source"], []).append(line)
    return grouped


def test_every_input_gives_the_recorded_findings() -> None:
    golden = GOLDEN.read_bytes()
    got = record()
    if got != golden:
        want, have = _by_source(golden), _by_source(got)
        differing = [source for source in sorted(set(want) | set(have)) if want.get(source) != have.get(source)]
        first = differing[0]
        pytest.fail(f"{len(differing)} input(s) give other findings, first {first}:\n"
                    f"recorded: {b''.join(want.get(first, [])).decode()[:3000]}\n"
                    f"now:      {b''.join(have.get(first, [])).decode()[:3000]}")


def test_the_golden_covers_what_it_claims() -> None:
    """A guard for the golden itself: every file and many variants, most rules, and many findings."""
    golden = _by_source(GOLDEN.read_bytes())
    files = [str(path.relative_to(ROOT)) for path in session_files()]
    assert len(files) >= 140
    inputs = list(cases())
    assert len(inputs) >= 1000
    assert sum(1 for source, _ in inputs if source in golden) >= 0.7 * len(inputs)
    rules = {orjson.loads(line)["rule"] for lines in golden.values() for line in lines}
    assert rules >= {rule.id for rule in BASE_RULES} - {"pi-cannot-load"}  # the rules of every Pi version
    assert sum(map(len, golden.values())) >= 4_000


@pytest.mark.parametrize("folder", ["fixtures/bad", "fixtures/realworld", "fixtures/conformance/cases",
                                    "tests/data/audit", "tests/data/audit_golden/corpus"])
def test_the_command_writes_the_recorded_findings(cli: Any, folder: str) -> None:
    """The real command over whole folders (the process pool where the folder is large) writes the same lines."""
    run = cli("audit", "--format", "json", "--rules", "all", folder)
    assert run.code in (0, 1), run.stderr
    listed = {str(path.relative_to(ROOT)) for path in session_files()}
    want = b"".join(line for line in GOLDEN.read_bytes().splitlines(keepends=True)
                    if orjson.loads(line)["source"].startswith(folder + "/"))
    assert want
    # files added to the folder after the recording are audited too; the recorded ones must not move
    lines = [line for line in run.stdout.encode().splitlines(keepends=True) if orjson.loads(line)["source"] in listed]
    assert b"".join(_without_fix(line) for line in lines) == want


def _without_fix(line: bytes) -> bytes:
    """A finding line as recorded in the golden: the command adds `fix` and `noFix` last (audit.fixes, checked in
    tests/audit/test_audit_fixes.py), exactly one of them a string."""
    document = orjson.loads(line)
    if document["kind"] != "finding":
        return line
    assert (document["fix"] is None) != (document["noFix"] is None), line
    head, _, tail = line.rpartition(b',"fix":')
    assert orjson.loads(b'{"fix":' + tail) == {"fix": document["fix"], "noFix": document["noFix"]}
    return head + b"}\n"


def test_rules_option_keeps_exactly_the_selected_findings() -> None:
    """A rule subset gives the full findings filtered to it, whatever the checks skip for unselected rules."""
    rng = random.Random(7)
    ids = [rule.id for rule in RULES]
    checked = 0
    for source, data in cases():
        if rng.random() > 0.15:
            continue
        full = audit_bytes(data, source, EVERY_RULE)
        for _ in range(2):
            subset = frozenset(rng.sample(ids, rng.randrange(1, 6)))
            assert audit_bytes(data, source, subset) == [f for f in full if f["rule"] in subset], (source, subset)
        checked += 1
    assert checked > 100


TIMESTAMPS = [
    b"2025-01-01T00:00:00Z", b"2025-01-01T00:00:00.1234567890Z", b"2025-01-01t00:00:00z", b"2025-01-01 00:00:00Z",
    b"2025-01-01T00:00:00+0530", b"2025-01-01T00:00:00", b"2025-01-01T24:00:00Z", b"2025-02-30T00:00:00Z",
    b"2025-13-01T00:00:00Z", b"2025-01-01T00:00:00-00:00", b"2025-01-01T00:00:00+24:00", b"0000-01-01T00:00:00Z",
    b"2025-01-01T00:00:60Z", b"+002025-01-01T00:00:00Z", b"\\u0032025-01-01T00:00:00Z", b"",
]


def _entry_timestamp(lines: list[bytes], rng: random.Random) -> None:
    found = _lines_with(lines, b'"timestamp":"')
    if found:
        index = rng.choice(found)
        head, tail = lines[index].split(b'"timestamp":"', 1)
        lines[index] = head + b'"timestamp":"' + rng.choice(TIMESTAMPS) + tail[tail.find(b'"'):]


def _other_tool_call_id(lines: list[bytes], rng: random.Random) -> None:
    ids = [line.split(b'"toolCallId":"', 1)[1].split(b'"', 1)[0] for line in lines if b'"toolCallId":"' in line]
    found = _lines_with(lines, b'"toolCallId":"')
    if ids and found:
        index = rng.choice(found)
        head, tail = lines[index].split(b'"toolCallId":"', 1)
        lines[index] = head + b'"toolCallId":"' + rng.choice(ids) + tail[tail.find(b'"'):]


KEEP_LINES: tuple[Callable[[list[bytes], random.Random], None], ...] = (
    _swap_neighbours, _entry_timestamp, _other_tool_call_id, *DAMAGES[10:],
    _replace_in_some(b'{"type":"text",', [b'{"type":"text","thinkingSignature":"s",', b'{"type":"text","textSignature":"",',
                                          b'{"type":"text","thoughtSignature":0,', b'{"type":"text","textSignature":[],',
                                          b'{"type":"text","thoughtSignature":[],']),
    _replace_in_some(b'{"type":"thinking",', [b'{"type":"thinking","redacted":true,', b'{"type":"thinking","redacted":1,',
                                              b'{"type":"thinking","thinkingSignature":"",',
                                              b'{"type":"thinking","textSignature":"t",']),
    _replace_in_some(b'{"type":"toolCall",', [b'{"type":"toolCall","thoughtSignature":"t",',
                                              b'{"type":"toolCall","thinkingSignature":{},',
                                              b'{"type":"toolCall","namespace":1,', b'{"type":"toolCall","arguments":[],']),
    _replace_in_some(b'"role":"bashExecution",', [b'"role":"bashExecution","excludeFromContext":true,',
                                                  b'"role":"bashExecution","excludeFromContext":0,']),
    _replace_in_some(b'"role":"custom",', [b'"role":"custom","display":false,', b'"role":"custom","display":"",']),
    _replace_in_some(b'"stopReason":"', [b'"stopReason":"length","_":"', b'"stopReason":"deferred","_":"',
                                         b'"stopReason":"toolUse","_":"']),
    _replace_in_some(b'"type":"model_change",', [b'"type":"model_change","provider":"p","modelId":"m",']),
    _replace_in_some(b'"text":"', [b'"text":"\xc3x\xa9', b'"text":"\xc3\xa9']),  # bytes that are not UTF-8
)


def clean_mutants(data: bytes, rng: random.Random, count: int) -> list[bytes]:
    """Variants that mostly stay clean (lines, ids and parents kept): damage the fast path must read as is."""
    lines = data.rstrip(b"\n").split(b"\n")
    out = []
    for _ in range(count):
        edited = list(lines)
        for _ in range(rng.choice((1, 2, 3))):
            rng.choice(KEEP_LINES)(edited, rng)
        out.append(b"\n".join(edited) + (b"\n" if rng.random() < 0.9 else b""))
    return out


def test_clean_files_audited_from_the_index_agree_with_the_line_by_line_audit() -> None:
    """The bulk-index audit (audit/clean.py) gives exactly the line-by-line audit's findings on every file it
    takes: all inputs of the golden, and variants of the clean files that keep them clean but change what the
    lines hold (blocks, signatures, stop reasons, timestamps, tool ids, visibility fields)."""
    rng = random.Random(11)
    every_rule = frozenset(RULES_BY_ID)
    inputs = list(cases())
    for source, data in list(inputs):
        if len(data) <= SMALL_BYTES and audit_clean_bytes(FindingSink(source, every_rule), data, source):
            inputs += [(f"clean:{source}#{number}", mutant) for number, mutant in enumerate(clean_mutants(data, rng, 12))]
    taken = findings = 0
    for source, data in inputs:
        sink = FindingSink(source, every_rule)
        if not audit_clean_bytes(sink, data, source):
            assert sink.findings == []
            # the shortcut that refuses some files before indexing them refuses none the index would take, but for
            # bytes that are not UTF-8 where the index does not look (fields it skips): the reader reports those
            assert not strictly_utf8(data) or index_clean_session(data, source, decoder=LineCollector()) is None, \
                source
            continue
        taken += 1
        got = sink.sorted()
        assert got == audit_bytes_line_by_line(data, source, every_rule), source
        findings += len(got)
    assert taken >= 800 and findings >= 2000, (taken, findings)


if __name__ == "__main__":
    if sys.argv[1:] != ["--write"]:
        raise SystemExit("usage: python tests/audit/test_audit_findings_golden.py --write")
    INPUTS.write_text("".join(f"{path.relative_to(ROOT).as_posix()}\n" for path in repository_session_files()))
    recorded = record()
    for source, data in cases():  # the recording must agree with the plain line-by-line audit of every input
        plain = json_lines([AuditResult(source, audit_bytes_line_by_line(data, source, EVERY_RULE))])
        if plain != findings_output(source, data):
            raise SystemExit(f"{source}: the audit's paths disagree; not recording")
    GOLDEN.write_bytes(recorded)
    print(f"wrote {GOLDEN.relative_to(ROOT)} and {INPUTS.relative_to(ROOT)}")
