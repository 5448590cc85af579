"""The session builder: Pi's bytes, tree links, and ids that depend only on the source."""

from __future__ import annotations

from pi_tools.importers.builder import SessionBuilder, stable_uuid
from pi_tools.importers.report import ImportReport
from pi_tools.pi import resolve

STAMP = "2026-01-02T03:04:05.678Z"


def _built() -> SessionBuilder:
    builder = SessionBuilder(pi=resolve("1.6"), cwd="/home/u/p", timestamp=STAMP, session_id="s-1")
    first = builder.message({"role": "user", "content": "hi", "timestamp": 1}, timestamp=STAMP, source_id="u1")
    builder.model_change("anthropic", "claude-sonnet-4-5", timestamp=STAMP, source_id="u1/model")
    builder.go_to(first)
    builder.custom("todos", {"todos": []}, timestamp=STAMP, source_id="t1")
    builder.compaction("summary", first_kept_entry_id=None, tokens_before=12, timestamp=STAMP, source_id="c1")
    return builder


def test_lines_are_pi_bytes_with_the_header_first_and_branches_from_go_to() -> None:
    builder = _built()
    sid = stable_uuid("pi-tools import session", "s-1")
    ids = [entry["id"] for entry in builder.entries]
    expected = [
        '{"type":"session","version":3,"id":"SID","timestamp":"STAMP","cwd":"/home/u/p"}',
        '{"type":"message","id":"I0","parentId":null,"timestamp":"STAMP","message":{"role":"user","content":"hi",'
        '"timestamp":1}}',
        '{"type":"model_change","id":"I1","parentId":"I0","timestamp":"STAMP","provider":"anthropic",'
        '"modelId":"claude-sonnet-4-5"}',
        '{"type":"custom","customType":"todos","data":{"todos":[]},"id":"I2","parentId":"I0","timestamp":"STAMP"}',
        '{"type":"compaction","id":"I3","parentId":"I2","timestamp":"STAMP","summary":"summary",'
        '"firstKeptEntryId":"I3","tokensBefore":12}',
    ]
    names = {"SID": sid, "STAMP": STAMP, **{f"I{at}": entry_id for at, entry_id in enumerate(ids)}}
    for name, value in names.items():
        expected = [line.replace(name, value) for line in expected]
    assert builder.lines() == [line.encode() for line in expected]
    assert builder.id_of("u1") == ids[0]
    assert builder.file_name() == f"2026-01-02T03-04-05-678Z_{sid}.jsonl"


def test_ids_are_the_same_on_every_import_and_unique_in_the_file() -> None:
    assert _built().data() == _built().data()
    builder = SessionBuilder(pi=resolve("1.6"), cwd="/", timestamp=STAMP, session_id="s")
    made = {builder.custom("x", None, timestamp=STAMP, source_id="same") for _ in range(50)}
    assert len(made) == 50 and all(len(entry_id) == 8 for entry_id in made)


def test_parent_session_is_written_when_given() -> None:
    builder = SessionBuilder(pi=resolve("0.85"), cwd="/", timestamp=STAMP, session_id="s",
                             parent_session="/o/p.jsonl")
    assert builder.header()["parentSession"] == "/o/p.jsonl"


def test_report_counts_and_notes() -> None:
    report = ImportReport("a.jsonl", "claude-code")
    report.imported["user"] += 2
    report.dropped["progress"] += 1
    report.note(7, "progress record dropped: Pi keeps no progress events")
    report.note(None, "no cwd; used /")
    assert report.text() == ("a.jsonl (claude-code)\n  imported: user 2\n  dropped: progress 1\n"
                             "  note: line 7: progress record dropped: Pi keeps no progress events\n"
                             "  note: no cwd; used /")
    assert report.document()["dropped"] == {"progress": 1}
