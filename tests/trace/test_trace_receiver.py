"""`pi-tools trace --endpoint` against a real OTLP back end: Arize Phoenix, started on 127.0.0.1 for the run.

Real sessions (fixtures/realworld) and generated ones (the reference generator's, Pi 0.85 shapes with branches,
and Pi 1.6's own generator's, with usage and context-edit entries) are sent over OTLP HTTP/protobuf, exactly as a
user would, then read back through Phoenix's REST API and checked against what the session files hold, counted
here by a walk of their own (not the trace room's): one trace per session, one chat span per assistant message
on the exported branches, one tool span per tool call (by tool name), the token and cost sums `pi-tools usage`
gives for the same files, a tree of spans under each session's `invoke_agent` span, and nothing added by a
second send (the ids are derived, and Phoenix drops a span id it already holds). Last, Phoenix's own UI shows a
session's trace in headless Chromium (the screenshot in docs/trace-receiver.md).
"""

from __future__ import annotations

import json
import re
import shutil
import struct
import subprocess
import sys
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from conftest import run_cli

from support import phoenix as receiver
from support.oracle_path import CONFORMANCE16, GEN_CORPUS

ROOT = Path(__file__).resolve().parents[2]
REALWORLD = ROOT / "fixtures" / "realworld"
REAL = ["badlogic__pi-mono__session.jsonl", "castai__kimchi-dev__session.jsonl", "castai__kimchi-dev__statsuline.jsonl",
        "kir-gadjello__pi-session-manager__873fc059_crew-planner_0.jsonl", "lamurian__paradocs__session.jsonl"]
"""Five of the real sessions (about 700 spans; one is only a header): Phoenix stores a few dozen spans a second
on a loaded machine, so all ten (5,200 spans, twice) would take minutes."""
CASES = ROOT / "fixtures" / "conformance" / "cases"
SHOTS = ROOT / ".pytest_cache" / "trace-screenshots"
CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
WIDTH, HEIGHT = 1600, 1000

phoenix = receiver.phoenix
project = receiver.project


# What the files hold, by a walk of their own -----------------------------------------------------------------


@dataclass
class Expected:
    """One session file's counts on the exported branches."""

    session_id: str
    assistants: int
    tools: Counter[str]
    abandoned: int


def read_entries(path: Path) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """The header and the entries of a session file (unparsable lines left out, as Pi leaves them)."""
    header: dict[str, Any] | None = None
    entries: list[dict[str, Any]] = []
    for line in path.read_text("utf-8").splitlines():
        try:
            value = json.loads(line)
        except ValueError:
            continue
        if not isinstance(value, dict):
            continue
        if header is None and value.get("type") == "session":
            header = value
        else:
            entries.append(value)
    assert header is not None, path
    return header, entries


def active_path(entries: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The entries from the root to the leaf (the last entry with an id); every entry when none has one."""
    with_ids = [entry for entry in entries if isinstance(entry.get("id"), str)]
    if not with_ids:
        return entries
    by_id = {entry["id"]: entry for entry in with_ids}
    path: list[dict[str, Any]] = []
    current: dict[str, Any] | None = with_ids[-1]
    while current is not None and len(path) <= len(entries):
        path.append(current)
        parent = current.get("parentId")
        current = by_id.get(parent) if isinstance(parent, str) else None
    return path[::-1]


def expected(path: Path, branches: str) -> Expected:
    header, entries = read_entries(path)
    on_path = active_path(entries)
    exported = on_path if branches == "active" else entries
    active_ids = {id(entry) for entry in on_path}
    assistants = [entry for entry in exported if entry.get("type") == "message"
                  and isinstance(entry.get("message"), dict) and entry["message"].get("role") == "assistant"]
    tools: Counter[str] = Counter()
    for entry in assistants:
        content = entry["message"].get("content")
        for block in content if isinstance(content, list) else []:
            if isinstance(block, dict) and block.get("type") == "toolCall":
                tools[str(block.get("name") or "")] += 1
    abandoned = sum(1 for entry in assistants if id(entry) not in active_ids)
    return Expected(header["id"], len(assistants), tools, abandoned)


# What Phoenix holds ------------------------------------------------------------------------------------------


def by_trace(spans: list[dict[str, Any]]) -> dict[str, list[dict[str, Any]]]:
    traces: dict[str, list[dict[str, Any]]] = {}
    for span in spans:
        traces.setdefault(span["context"]["trace_id"], []).append(span)
    return traces


def operation(span: dict[str, Any]) -> str:
    return str(span["attributes"].get("gen_ai.operation.name"))


def root_of(spans: list[dict[str, Any]]) -> dict[str, Any]:
    roots = [span for span in spans if span["parent_id"] is None]
    assert len(roots) == 1, [span["name"] for span in roots]
    return roots[0]


SENT = re.compile(r"pi-tools: (\d+) sessions?, (\d+) spans? to the receiver\n")


def send(project: receiver.Project, *args: str) -> int:
    """`pi-tools trace ARGS --endpoint PHOENIX --header x-project-name=PROJECT`, asserted successful; the
    number of spans it says it sent."""
    result = run_cli("trace", *args, "--endpoint", project.server.url, "--header", project.header, timeout=600)
    assert result.code == 0, result.stderr
    assert result.stdout == ""
    said = SENT.fullmatch(result.stderr)
    assert said is not None, result.stderr
    return int(said.group(2))


def written(tmp_path: Path, *args: str) -> list[dict[str, Any]]:
    """The spans `pi-tools trace ARGS -o FILE` writes as OTLP JSON."""
    out = tmp_path / "trace.json"
    result = run_cli("trace", *args, "-o", str(out), timeout=600)
    assert result.code == 0, result.stderr
    document = json.loads(out.read_text("utf-8"))
    return [span for resource in document["resourceSpans"] for scope in resource["scopeSpans"]
            for span in scope["spans"]]


def usage_totals(paths: list[Path], scope: str, *extra: str) -> dict[str, Any]:
    result = run_cli("usage", *map(str, paths), "--scope", scope, "--format", "json", *extra)
    assert result.code == 0, result.stderr
    return dict(json.loads(result.stdout)["totals"])


def span_totals(spans: list[dict[str, Any]]) -> dict[str, Any]:
    """The token and cost sums a back end's user would take over the spans that carry usage (Pi's own buckets,
    and the GenAI ones: input including the cache)."""
    sums: Counter[str] = Counter()
    cost = 0.0
    for span in spans:
        attributes = span["attributes"]
        if "pi.usage.input" not in attributes or attributes.get("pi.usage.counted") is False:
            continue
        for key in ("input", "output", "cache_read", "cache_write"):
            sums[key] += attributes[f"pi.usage.{key}"]
        sums["gen_ai_input"] += attributes["gen_ai.usage.input_tokens"]
        sums["gen_ai_output"] += attributes["gen_ai.usage.output_tokens"]
        cost += attributes["pi.cost.usd"]
    return {**sums, "cost": cost}


def assert_matches_files(spans: list[dict[str, Any]], files: list[Path], branches: str) -> None:
    """One trace per session file, its chat and tool spans the walk's counts, abandoned ones marked."""
    traces = by_trace(spans)
    wanted = {item.session_id: item for item in (expected(path, branches) for path in files)}
    assert len(wanted) == len(files)  # no two files of one session here (Pi 1.6 resuming a 0.85 file keeps its id)
    assert len(traces) == len(files)
    found: dict[str, Expected] = {}
    for trace_spans in traces.values():
        root = root_of(trace_spans)
        session_id = root["attributes"]["gen_ai.conversation.id"]
        chats = [span for span in trace_spans if operation(span) == "chat"]
        tools = Counter(str(span["attributes"]["gen_ai.tool.name"]) for span in trace_spans
                        if operation(span) == "execute_tool")
        abandoned = sum(1 for span in chats if span["attributes"].get("pi.branch.abandoned") is True)
        found[session_id] = Expected(session_id, len(chats), tools, abandoned)
    assert found == wanted


def assert_span_trees(spans: list[dict[str, Any]]) -> None:
    """Each trace one tree: an `invoke_agent` root (an AGENT in Phoenix's terms) whose children are the chat
    and tool spans (LLM and TOOL), every span inside its parent's time."""
    for trace_spans in by_trace(spans).values():
        root = root_of(trace_spans)
        assert root["name"] == "invoke_agent pi"
        assert operation(root) == "invoke_agent" and root["span_kind"] == "AGENT"
        ids = {span["context"]["span_id"]: span for span in trace_spans}
        assert len(ids) == len(trace_spans)
        for span in trace_spans:
            if span is root:
                continue
            parent = ids[span["parent_id"]]
            assert parent is root, (span["name"], parent["name"])
            assert root["start_time"] <= span["start_time"] <= span["end_time"] <= root["end_time"], span["name"]
            kind = {"chat": "LLM", "execute_tool": "TOOL"}.get(operation(span))
            if kind is not None:
                assert span["span_kind"] == kind, span["name"]


# Sessions --------------------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def realworld() -> list[Path]:
    if not REALWORLD.is_dir():
        pytest.skip("fixtures/realworld is not in this checkout")
    return [REALWORLD / name for name in REAL]


@pytest.fixture(scope="module")
def generated(tmp_path_factory: pytest.TempPathFactory) -> list[Path]:
    """The reference generator's sessions (linear, tools, branches, compactions, errors, a v2 file) and Pi 1.6's
    generator's (system messages, usage and context-edit entries, a resumed 0.85 session)."""
    if not GEN_CORPUS.exists():
        pytest.skip(f"{GEN_CORPUS} is not available")
    folder = tmp_path_factory.mktemp("generated")
    subprocess.run([sys.executable, str(GEN_CORPUS), "--seed", "11", "--count", "12", "--out", str(folder)],
                   check=True, capture_output=True)
    for path in sorted((CONFORMANCE16 / "cases").glob("gen16_*.jsonl")):
        shutil.copy(path, folder / path.name)
    return sorted(folder.glob("*.jsonl"))


@dataclass
class Sent:
    """A project the real sessions were sent to, and how many spans `trace` said it sent."""

    project: receiver.Project
    spans: int


@pytest.fixture(scope="module")
def real(phoenix: receiver.Phoenix, realworld: list[Path]) -> Iterator[Sent]:
    """The real sessions sent once, their active branches (the default), for the checks that only read."""
    project = phoenix.project()
    try:
        yield Sent(project, send(project, *map(str, realworld)))
    finally:
        project.delete()


# Tests -----------------------------------------------------------------------------------------------------


def test_real_sessions_one_trace_each_with_their_chat_and_tool_spans(real: Sent, realworld: list[Path]) -> None:
    spans = real.project.settled(real.spans)
    assert len(spans) == real.spans
    assert_matches_files(spans, realworld, "active")


def test_real_sessions_token_and_cost_totals_equal_usage(real: Sent, realworld: list[Path]) -> None:
    totals = span_totals(real.project.settled(real.spans))
    usage = usage_totals(realworld, "active")
    assert (totals["input"], totals["output"], totals["cache_read"], totals["cache_write"]) == (
        usage["input"], usage["output"], usage["cacheRead"], usage["cacheWrite"])
    assert totals["gen_ai_input"] == usage["input"] + usage["cacheRead"] + usage["cacheWrite"]
    assert totals["gen_ai_output"] == usage["output"]
    assert totals["cost"] == pytest.approx(usage["cost"], abs=1e-6)


def test_real_sessions_each_a_tree_under_its_agent_span(real: Sent) -> None:
    assert_span_trees(real.project.settled(real.spans))


def test_a_second_send_adds_nothing(real: Sent, realworld: list[Path]) -> None:
    before = real.project.settled(real.spans)
    assert send(real.project, *map(str, realworld)) == real.spans
    after = real.project.settled()
    assert sorted(span["context"]["span_id"] for span in after) == sorted(
        span["context"]["span_id"] for span in before)


def test_generated_sessions_all_branches(project: receiver.Project, generated: list[Path]) -> None:
    """Every branch, the abandoned ones marked; the sums are `usage --scope all`'s (Pi 1.6's cache-warming
    usage entries included, as spans of their own)."""
    spans = project.settled(send(project, *map(str, generated), "--branches", "all"))
    assert_matches_files(spans, generated, "all")
    assert sum(expected(path, "all").abandoned for path in generated) > 0  # the corpus does branch
    assert_span_trees(spans)
    totals = span_totals(spans)
    usage = usage_totals(generated, "all")
    assert (totals["input"], totals["output"], totals["cache_read"], totals["cache_write"]) == (
        usage["input"], usage["output"], usage["cacheRead"], usage["cacheWrite"])
    assert totals["cost"] == pytest.approx(usage["cost"], abs=1e-6)


def test_generated_sessions_active_branches(project: receiver.Project, generated: list[Path]) -> None:
    spans = project.settled(send(project, *map(str, generated)))
    assert_matches_files(spans, generated, "active")
    assert not any(span["attributes"].get("pi.branch.abandoned") for span in spans)
    totals = span_totals(spans)
    usage = usage_totals(generated, "active")
    assert (totals["input"], totals["output"], totals["cache_read"], totals["cache_write"]) == (
        usage["input"], usage["output"], usage["cacheRead"], usage["cacheWrite"])


def test_a_grown_session_adds_only_its_new_spans(project: receiver.Project, tmp_path: Path) -> None:
    """A session sent, then sent again after Pi appended to it: the first spans stay, the new turns join the
    same trace, and the back end holds exactly what one send of the whole file gives."""
    # A real session under an id of its own (span ids are unique across Phoenix, and the real sessions' are
    # taken by the module's other project).
    lines = (REALWORLD / "castai__kimchi-dev__session.jsonl").read_text("utf-8").splitlines(keepends=True)
    header = json.loads(lines[0])
    lines[0] = json.dumps({**header, "id": "0199aaaa-0000-7000-8000-00000000000a"}) + "\n"
    whole = tmp_path / "whole.jsonl"
    whole.write_text("".join(lines), "utf-8")
    session = tmp_path / "grown.jsonl"
    session.write_text("".join(lines[: len(lines) // 2]), "utf-8")
    first = project.settled(send(project, str(session)))
    session.write_text("".join(lines), "utf-8")
    second = project.settled(send(project, str(session)))
    first_ids = {span["context"]["span_id"] for span in first}
    second_ids = {span["context"]["span_id"] for span in second}
    assert first_ids < second_ids
    assert len(by_trace(second)) == 1
    assert_matches_files(second, [whole], "active")


def test_conformance_cases_every_branch(project: receiver.Project, tmp_path: Path) -> None:
    """The generator's 40 conformance cases (v1 files without ids, v2, compactions, branch summaries, errors,
    bash and custom messages): every branch, the abandoned chat spans marked as such, and what Phoenix holds
    the very spans `-o` writes (ids, parents, names, times)."""
    cases = sorted(CASES.glob("c0*.jsonl"))
    assert len(cases) == 40
    args = [*map(str, cases), "--branches", "all"]
    spans = project.settled(send(project, *args))
    assert sorted((span["context"]["trace_id"], span["context"]["span_id"], span["parent_id"] or "", span["name"])
                  for span in spans) == sorted(
        (span["traceId"], span["spanId"], span.get("parentSpanId", ""), span["name"])
        for span in written(tmp_path, *args))
    assert_matches_files(spans, cases, "all")
    assert_span_trees(spans)
    assert [expected(CASES / name, "all").abandoned for name in ("c002_branching.jsonl", "c008_branching.jsonl")] \
        == [5, 5]


def test_pi16_sessions_with_their_cache_warming_and_events(project: receiver.Project, tmp_path: Path) -> None:
    """Pi 1.6's generator's sessions read as Pi 1.6: its cache-warming usage entry a span of its own, whose
    tokens and cost join the sums `usage` gives (1.6 counts them), and the session's moments events on the
    agent span (model and thinking changes, system prompts, context edits, a compaction)."""
    if not (CONFORMANCE16 / "cases").is_dir():
        pytest.skip(f"{CONFORMANCE16} is not available")
    files = sorted((CONFORMANCE16 / "cases").glob("gen16_*.jsonl"))
    version = ["--pi", "1.6"]
    spans = project.settled(send(project, *map(str, files), *version))
    assert_matches_files(spans, files, "active")
    assert_span_trees(spans)
    warming = [span for span in spans if operation(span) == "cache_warm"]
    assert [(span["name"], span["attributes"]["pi.usage.input"], span["attributes"]["pi.usage.output"])
            for span in warming] == [("cache_warm claude-sonnet-4-5", 10, 5)]
    totals = span_totals(spans)
    usage = usage_totals(files, "active", *version)
    assert usage["usageEntries"] == 1
    assert (totals["input"], totals["output"], totals["cache_read"], totals["cache_write"]) == (
        usage["input"], usage["output"], usage["cacheRead"], usage["cacheWrite"])
    assert totals["cost"] == pytest.approx(usage["cost"], abs=1e-9)
    events = sorted(event["name"] for span in spans if span["parent_id"] is None for event in span["events"])
    assert Counter(events) == Counter({"pi.model_change": 3, "pi.system_prompt": 4, "pi.thinking_level_change": 3,
                                       "pi.context_edit": 2, "pi.compaction": 1})


# In the receiver's UI, in a real browser ------------------------------------------------------------------


def _chromium(tmp_path: Path, url: str, *extra: str) -> str:
    profile = tmp_path / "profile"
    profile.mkdir(exist_ok=True)
    command = [str(CHROMIUM), "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run",
               "--disable-background-networking", "--disable-component-update", "--disable-sync",
               f"--user-data-dir={profile}", "--virtual-time-budget=20000", f"--window-size={WIDTH},{HEIGHT}",
               *extra, url]
    result = subprocess.run(command, capture_output=True, timeout=240, check=False)
    assert result.returncode == 0, result.stderr.decode("utf-8", "replace")[-2000:]
    return result.stdout.decode("utf-8", "replace")


@pytest.mark.skipif(CHROMIUM is None, reason="chromium is not installed (Debian package `chromium`; CI installs it)")
def test_a_session_in_phoenixs_trace_view(real: Sent, tmp_path: Path) -> None:
    """Phoenix's page for a real session's trace, its first chat span selected, run by headless Chromium (the
    page is a React application fed by Phoenix's GraphQL API, so the DOM Chromium dumps after running it is what
    a person sees): the span tree shows the agent span and its chat and tool spans by name. The screenshot is
    kept under .pytest_cache/trace-screenshots; docs/images/trace-phoenix.png is one of them."""
    session_id = read_entries(REALWORLD / REAL[0])[0]["id"]
    spans = [span for span in real.project.settled(real.spans)
             if span["attributes"].get("gen_ai.conversation.id") == session_id]
    chat = min((span for span in spans if operation(span) == "chat"), key=lambda span: span["start_time"])
    answer = real.project.server.client.get(f"/v1/projects/{real.project.name}")
    assert answer.status_code == 200, answer.text
    url = (f"{real.project.server.url}/projects/{answer.json()['data']['id']}/traces/"
           f"{chat['context']['trace_id']}?selectedSpanNodeId={chat['id']}")

    dom = _chromium(tmp_path, url, "--dump-dom")
    assert chat["context"]["trace_id"] in dom
    for name in ("invoke_agent pi", "chat claude-opus-4-5", "execute_tool read", "execute_tool bash"):
        assert f">{name}<" in dom, name

    SHOTS.mkdir(parents=True, exist_ok=True)
    png = SHOTS / "trace-phoenix.png"
    _chromium(tmp_path, url, f"--screenshot={png}")
    data = png.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    assert struct.unpack(">II", data[16:24]) == (WIDTH, HEIGHT)
    assert len(data) > 60_000  # a blank page or an error message compresses to a few kilobytes
