"""The direct path (trace/direct.py: `-o` without content, written straight from the bytes) writes byte for byte
what the general path writes (the session loader's reading, mapping.py, otlp_json.py) on every file it takes: the
fixtures, the Pi 1.6 cases and a generated session, under both Pi versions and both branch modes, with the ids a
manifest records and the spans it leaves out; and it hands every other file to the general path."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import orjson
import pytest
from conftest import ROOT

from pi_tools.engine import Engine
from pi_tools.pi import resolve
from pi_tools.session.reader import SessionReadError
from pi_tools.session.tree import PathCycleError
from pi_tools.trace.direct import direct_resource_spans
from pi_tools.trace.mapping import TraceOptions, session_trace
from pi_tools.trace.otlp_json import encode_resource_spans
from pi_tools.trace.run import TraceRun, run_trace
from pi_tools.trace.spans import SessionTrace
from pi_tools.trace.task import TraceJob, load_tree, trace_file

FILES = sorted([*(ROOT / "fixtures").rglob("*.jsonl"), *(ROOT / "tests/data/pi16/cases").glob("*.jsonl")])
HEADER = (b'{"type":"session","version":3,"id":"s-1","timestamp":"2026-01-01T00:00:00.000Z","cwd":"/w"}\n')
ASSISTANT = (b'{"type":"message","id":"a1","parentId":null,"timestamp":"2026-01-01T00:00:02.000Z","message":'
             b'{"role":"assistant","content":[{"type":"toolCall","id":"c1","name":"read","arguments":{}}],'
             b'"api":"anthropic-messages","provider":"anthropic","model":"claude-x","usage":{"input":3,"output":4,'
             b'"cacheRead":0,"cacheWrite":0,"totalTokens":7,"cost":{"input":0,"output":0,"cacheRead":0,'
             b'"cacheWrite":0,"total":0.5}},"stopReason":"toolUse","timestamp":1767225601000}}\n')


def _general(path: str, pi: str, options: TraceOptions) -> SessionTrace:
    return session_trace(load_tree(path, pi), options)


def _ids(trace: SessionTrace) -> tuple[str, ...]:
    return tuple(span.span_id for span in trace.spans if span.attributes.get("pi.tool.result") != "missing")


@pytest.mark.parametrize("pi", ["0.85", "1.6"])
@pytest.mark.parametrize("branches", ["active", "all"])
def test_both_paths_write_the_same_bytes(pi: str, branches: str) -> None:
    options = TraceOptions(branches=branches, spending=resolve(pi).spending)
    taken = 0
    for path in FILES:
        direct = direct_resource_spans(path.read_bytes(), options, "9.9.9", "svc")
        if direct is None:
            continue
        taken += 1
        trace = _general(str(path), pi, options)
        assert direct == (encode_resource_spans(trace, "9.9.9", "svc"), _ids(trace), len(trace.spans)), path
    assert taken >= 90  # of 156: the damaged, the older and the odd ones go to the general path


def test_both_paths_leave_out_the_same_delivered_spans() -> None:
    options = TraceOptions(branches="all", spending=resolve("1.6").spending)
    checked = 0
    for path in FILES:
        data = path.read_bytes()
        whole = direct_resource_spans(data, options, "9.9.9", "svc")
        if whole is None or len(whole[1]) < 3:
            continue
        sent = frozenset(whole[1][::2])  # every other span delivered already, the session's own among them
        job = TraceJob(str(path), options, "1.6", True, "9.9.9", "svc", sent)
        general = trace_file(job)  # the direct path, through the task
        trace = _general(str(path), "1.6", options)
        trace.spans = [span for span in trace.spans if span.span_id not in sent]
        assert direct_resource_spans(data, options, "9.9.9", "svc", sent) == (
            encode_resource_spans(trace, "9.9.9", "svc"), _ids(_general(str(path), "1.6", options)),
            len(trace.spans)), path
        assert (general.encoded, general.span_ids, general.spans) == (
            encode_resource_spans(trace, "9.9.9", "svc"), whole[1], len(trace.spans))
        checked += 1
    assert checked >= 60


def test_a_generated_session(tmp_path: Path) -> None:
    generator = ROOT.parent / "shared" / "oracle" / "gen_corpus.py"
    if not generator.exists():
        pytest.skip(f"session generator not found: {generator}")
    target = tmp_path / "s.jsonl"
    subprocess.run([sys.executable, str(generator), "--big", "--seed", "5", "--out", str(target),
                    "--target-mb", "1"], check=True, stdout=subprocess.DEVNULL)
    for pi in ("0.85", "1.6"):
        options = TraceOptions(spending=resolve(pi).spending)
        trace = _general(str(target), pi, options)
        assert len(trace.spans) > 1000
        direct = direct_resource_spans(target.read_bytes(), options, "9.9.9", "svc")
        assert direct == (encode_resource_spans(trace, "9.9.9", "svc"), _ids(trace), len(trace.spans))


@pytest.mark.parametrize(("line", "why"), [
    (b'{"type":"message","id":"u1","parentId":"a1","timestamp":"2026-01-01T00:00:03.000Z",'
     b'"message":{"role":"developer","content":"x"}}\n', "a role of no known kind"),
    (b'{"type":"plugin_state","id":"u1","parentId":"a1","timestamp":"2026-01-01T00:00:03.000Z"}\n',
     "an entry of no known kind"),
    (b'{"id":"u1","parentId":"a1","timestamp":"2026-01-01T00:00:03.000Z","message":{"role":"user"}}\n',
     "an entry without a type (Pi reads it as a message)"),
    (b'{"type":"message","id":"a1","parentId":null,"timestamp":"2026-01-01T00:00:03.000Z",'
     b'"message":{"role":"user","content":"x"}}\n', "an id twice"),
    (b'{"type":"message","id":"u1","parentId":"a1","timestamp":"2026-01-01T00:00:03.000Z",'
     b'"message":{"role":"assistant","content":["text"]}}\n', "a content block that is no object"),
])
def test_odd_files_go_to_the_general_path(tmp_path: Path, line: bytes, why: str) -> None:
    data = HEADER + ASSISTANT + line
    options = TraceOptions(spending=resolve("1.6").spending)
    assert direct_resource_spans(data, options, "9.9.9", "svc") is None, why
    path = tmp_path / "s.jsonl"
    path.write_bytes(data)
    answer = trace_file(TraceJob(str(path), options, "1.6", True, "9.9.9", "svc"))
    try:
        trace = _general(str(path), "1.6", options)
    except (SessionReadError, PathCycleError) as exc:
        assert answer.error is not None and str(exc) in answer.error
        return
    assert answer.encoded == encode_resource_spans(trace, "9.9.9", "svc"), why


def test_a_key_twice_is_read_as_pi_reads_it() -> None:
    """JSON.parse keeps the last value of a key written twice, and so do msgspec and the session loader: the
    direct path may take the file (the result below is no answer to the call, which stays open)."""
    data = HEADER + ASSISTANT + (
        b'{"type":"message","id":"u1","parentId":"a1","timestamp":"2026-01-01T00:00:03.000Z",'
        b'"message":{"role":"toolResult","toolCallId":"c1","content":[],"isError":false},'
        b'"message":{"role":"user","content":"last key wins"}}\n')
    options = TraceOptions(spending=resolve("1.6").spending)
    direct = direct_resource_spans(data, options, "9.9.9", "svc")
    assert direct is not None and b'"pi.tool.result","value":{"stringValue":"missing"}' in direct[0]
    tree = load_tree("s.jsonl", "1.6", data=data)
    trace = session_trace(tree, options)
    assert direct == (encode_resource_spans(trace, "9.9.9", "svc"), _ids(trace), len(trace.spans))


def test_a_lone_surrogate_goes_to_the_general_path(tmp_path: Path) -> None:
    """UTF-8 cannot hold it: the general path writes it as U+FFFD (spans.well_formed), so this one gives up."""
    data = HEADER + ASSISTANT.replace(b'"id":"c1"', b'"id":"c\\ud800"')
    options = TraceOptions(spending=resolve("1.6").spending)
    assert direct_resource_spans(data, options, "9.9.9", "svc") is None
    path = tmp_path / "s.jsonl"
    path.write_bytes(data)
    answer = trace_file(TraceJob(str(path), options, "1.6", True, "9.9.9", "svc"))
    assert answer.encoded is not None and "c\ufffd".encode() in answer.encoded


def test_workers_hand_their_pieces_over_as_files(tmp_path: Path) -> None:
    """A pool's run (each piece left in a folder beside the output and copied in) writes what one process
    writes, and leaves nothing behind but the output."""
    folder = tmp_path / "sessions"
    folder.mkdir()
    files = [path for path in FILES if "pi16" not in str(path)][:40]
    for number, path in enumerate(files):
        (folder / f"{number:03d}.jsonl").write_bytes(path.read_bytes())
    paths = sorted(str(path) for path in folder.iterdir())
    options = TraceOptions(spending=resolve("1.6").spending)
    out = tmp_path / "out"
    out.mkdir()
    one = run_trace(TraceRun(paths, options, "1.6", out=str(out / "one.json")), Engine(jobs=1))
    pooled = run_trace(TraceRun(paths, options, "1.6", out=str(out / "two.json")), Engine(jobs=2))
    assert (one.sessions, one.spans, one.errors) == (pooled.sessions, pooled.spans, pooled.errors)
    assert one.sessions > 30
    assert (out / "one.json").read_bytes() == (out / "two.json").read_bytes()
    assert sorted(path.name for path in out.iterdir()) == ["one.json", "two.json"]
    document = orjson.loads((out / "two.json").read_bytes())
    assert len(document["resourceSpans"]) == one.sessions


def test_numbers_past_a_double_are_traced(tmp_path: Path) -> None:
    """A compaction's `tokensBefore` of 1e400 and a cost of 400 digits (JSON.parse reads both as Infinity): the
    first is left out, the second is the double "Infinity" as protobuf's JSON mapping spells it; no traceback."""
    data = HEADER + ASSISTANT.replace(b'"total":0.5', b'"total":1' + b"0" * 400) + (
        b'{"type":"compaction","id":"c1","parentId":"a1","timestamp":"2026-01-01T00:00:03.000Z","summary":"s",'
        b'"firstKeptEntryId":"a1","tokensBefore":1e400}\n')
    path = tmp_path / "s.jsonl"
    path.write_bytes(data)
    options = TraceOptions(spending=resolve("1.6").spending)
    answer = trace_file(TraceJob(str(path), options, "1.6", True, "9.9.9", "svc"))
    assert answer.error is None and answer.encoded is not None
    spans = orjson.loads(answer.encoded)["scopeSpans"][0]["spans"]
    (compaction,) = spans[0]["events"]
    assert [item["key"] for item in compaction["attributes"]] == ["pi.compaction.first_kept_entry_id", "pi.entry.id"]
    cost = next(item for item in spans[1]["attributes"] if item["key"] == "pi.cost.usd")
    assert cost == {"key": "pi.cost.usd", "value": {"doubleValue": "Infinity"}}


@pytest.mark.parametrize("content", ["none", "full"])
def test_a_result_whose_call_id_is_an_object_answers_no_call(tmp_path: Path, content: str) -> None:
    data = HEADER + ASSISTANT + (
        b'{"type":"message","id":"r1","parentId":"a1","timestamp":"2026-01-01T00:00:03.000Z","message":'
        b'{"role":"toolResult","toolCallId":{"id":"c1"},"toolName":"read","content":[],"isError":false}}\n')
    path = tmp_path / "s.jsonl"
    path.write_bytes(data)
    options = TraceOptions(content=content, spending=resolve("1.6").spending)
    answer = trace_file(TraceJob(str(path), options, "1.6", True, "9.9.9", "svc"))
    assert answer.error is None and answer.encoded is not None
    (tool,) = [span for span in orjson.loads(answer.encoded)["scopeSpans"][0]["spans"]
               if span["name"] == "execute_tool read"]
    assert {"key": "pi.tool.result", "value": {"stringValue": "missing"}} in tool["attributes"]
