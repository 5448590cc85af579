"""preflight through payload's parts path (audit/preflight/parts.py) gives exactly the findings of the whole build:
same rules, messages, payload paths, entries and lines, for every API that builds in parts, on real sessions and
on sessions with findings in early parts, late parts and the last part. The parts here are tiny (a cut before
every user message where possible), so each session is many parts."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from pi_tools.preflight import parts as parts_module
from pi_tools.preflight import session as session_module
from pi_tools.preflight.check import PreflightRequest
from pi_tools.preflight.parts import preflight_in_parts
from pi_tools.preflight.session import preflight_tree
from pi_tools.session.load import load_context_source

REALWORLD = Path(__file__).resolve().parents[2] / "fixtures" / "realworld"
TARGETS = ["anthropic/claude-sonnet-4-5", "openai/gpt-5.1", "groq/openai/gpt-oss-120b",
           "google/gemini-3-flash-preview", "mistral/mistral-medium-latest",
           "amazon-bedrock/anthropic.claude-sonnet-4-5-20250929-v1:0"]
USAGE = {"input": 10, "output": 5, "cacheRead": 0, "cacheWrite": 0, "totalTokens": 15,
         "cost": {"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0, "total": 0}}


def _session(tmp: Path, messages: list[dict[str, Any]], name: str) -> str:
    lines: list[dict[str, Any]] = [{"type": "session", "version": 3, "id": "s1",
                                    "timestamp": "2026-01-01T00:00:00.000Z", "cwd": "/w"}]
    parent = None
    for index, message in enumerate(messages, 1):
        entry = {"type": "message", "id": f"e{index}", "parentId": parent,
                 "timestamp": "2026-01-01T00:00:00.000Z", "message": {**message, "timestamp": index}}
        parent = entry["id"]
        lines.append(entry)
    path = tmp / name
    path.write_text("".join(json.dumps(line) + "\n" for line in lines))
    return str(path)


def _assistant(content: list[Any], stop: str = "stop", model: str = "claude-sonnet-4-5") -> dict[str, Any]:
    return {"role": "assistant", "content": content, "provider": "anthropic", "model": model,
            "api": "anthropic-messages", "stopReason": stop, "usage": USAGE}


def _damaged(tmp: Path, mime: str = "image/bmp", rounds: int = 12) -> str:
    """Findings in every part: a stray tool result, a BMP image (Bedrock: Pi cannot encode one, so PNG) and a
    long text in each round; a foreign model's tool loop in the last part."""
    messages: list[dict[str, Any]] = []
    for round_ in range(rounds):
        messages += [
            {"role": "user", "content": [{"type": "text", "text": f"round {round_} " + "words " * 200},
                                         {"type": "image", "data": "Qk0" + "A" * 900, "mimeType": mime}]},
            _assistant([{"type": "text", "text": "ok " * 150}]),
            {"role": "toolResult", "toolCallId": f"stray_{round_}", "toolName": "bash",
             "content": [{"type": "text", "text": "out " * 100}], "isError": False},
        ]
    messages += [{"role": "user", "content": [{"type": "text", "text": "last"}]},
                 {**_assistant([{"type": "thinking", "thinking": "plan",
                                 "thinkingSignature": json.dumps({"type": "reasoning", "id": "rs_1", "summary": []})},
                                {"type": "toolCall", "id": "call_1", "name": "bash", "arguments": {"c": "ls"}}],
                               "toolUse", "gpt-5.1"), "provider": "openai", "api": "openai-responses"},
                 {"role": "toolResult", "toolCallId": "call_1", "toolName": "bash",
                  "content": [{"type": "text", "text": "done"}], "isError": False}]
    return _session(tmp, messages, "damaged.jsonl")


def _whole(path: str, request: PreflightRequest) -> list[dict[str, Any]]:
    result = preflight_tree(load_context_source(path, False), path, request)
    assert result.error is None, result.error
    return result.findings


def _in_parts(path: str, request: PreflightRequest, monkeypatch: pytest.MonkeyPatch,
              applies: bool = True, part_bytes: int = 1) -> list[dict[str, Any]] | None:
    """The findings through the parts path, or None where the request was built whole after all (a model never
    built in parts, parts that do not join) or, unless `applies`, where the parts path does not apply (an API not
    built in parts)."""
    whole_builds: list[bool] = []
    check_whole = session_module.check_whole

    def counted(*args: Any, **kwargs: Any) -> Any:
        whole_builds.append(True)
        return check_whole(*args, **kwargs)

    monkeypatch.setattr(session_module, "check_whole", counted)
    result = preflight_in_parts(load_context_source(path, False), path, request, min_text_bytes=0,
                                part_bytes=part_bytes)
    monkeypatch.undo()
    if result is None and not applies:
        return None
    assert result is not None and result.error is None, result
    return None if whole_builds else result.findings


@pytest.mark.parametrize("target", TARGETS)
def test_parts_findings_equal_the_whole_build_with_findings_in_every_part(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, target: str) -> None:
    path = _damaged(tmp_path, "image/png" if target.startswith("amazon-bedrock") else "image/bmp")
    for reasoning in (None, "high"):
        request = PreflightRequest(model=target, reasoning=reasoning, system_prompt="be brief")
        whole = _whole(path, request)
        assert whole, target  # the session is one the provider refuses: there is something to trace
        found = _in_parts(path, request, monkeypatch)
        assert found is not None and found == whole, (target, reasoning)


@pytest.mark.parametrize("name", ["marcpadz__dexter-v3__pi-session.jsonl", "lamurian__paradocs__session.jsonl",
                                  "castai__kimchi-dev__session.jsonl"])
def test_parts_findings_equal_the_whole_build_on_real_sessions(monkeypatch: pytest.MonkeyPatch, name: str) -> None:
    path = str(REALWORLD / name)
    checked = traced = 0
    for target in [None, *TARGETS]:
        request = PreflightRequest(model=target)
        if target is None and not name.startswith("marcpadz"):
            continue  # the others' own models are not in the catalog
        found = _in_parts(path, request, monkeypatch)
        if found is not None:
            whole = _whole(path, request)
            assert found == whole, target
            # the traced fields themselves, finding by finding (the comparison above holds them too)
            assert [(f["payloadPath"], f["entryId"], f["line"]) for f in found] == [
                (f["payloadPath"], f["entryId"], f["line"]) for f in whole], target
            traced += sum(f["entryId"] is not None for f in found)
            checked += 1
    assert checked >= 5
    assert traced > 0  # at least one finding on these sessions is traced to an entry, not only request-wide ones


CONFORMANCE = Path(__file__).resolve().parents[2] / "fixtures" / "conformance"


def _conformance_requests() -> list[tuple[str, str, PreflightRequest]]:
    """Every conformance case with each model variant of its golden and its inputs, without and with reasoning
    (as scripts/record_preflight_conformance.py checks them)."""
    from pi_tools.providers.table import representative_models

    requests = []
    for case in sorted((CONFORMANCE / "cases").glob("*.jsonl")):
        golden = json.loads((CONFORMANCE / "expected" / f"{case.stem}.json").read_text())
        if "error" in golden:
            continue
        inputs = golden["inputs"]
        for key in sorted(golden.get("payloads") or {}):
            model = key.split("@", 1)[1] if "@" in key else representative_models()[key]
            for reasoning in ("off", inputs.get("reasoningRequested")):
                requests.append((str(case), key, PreflightRequest(
                    model=model, system_prompt=inputs.get("systemPrompt"), tools=inputs.get("tools"),
                    reasoning=reasoning, session_id=(inputs.get("streamOptions") or {}).get("sessionId"))))
    return requests


def test_parts_findings_equal_the_whole_build_on_the_conformance_set(monkeypatch: pytest.MonkeyPatch) -> None:
    """Each conformance case, cut into tiny parts, for the 11 model variants: the parts path's findings, their
    payload paths, entry ids and lines, are the whole build's wherever the parts path builds in parts."""
    compared = traced = 0
    variants: set[str] = set()
    for path, key, request in _conformance_requests():
        whole = preflight_tree(load_context_source(path, False), path, request)
        if whole.error is not None:
            continue
        found = _in_parts(path, request, monkeypatch, applies=False)
        if found is None:
            continue  # not built in parts, or built whole after all: nothing of the parts path to compare
        assert found == whole.findings, (Path(path).name, key, request.reasoning)
        compared += 1
        traced += sum(f["entryId"] is not None for f in found)
        variants.add(key)
    # 592 requests compared, 170 findings traced to an entry, all 11 variants (when this test was written)
    assert compared > 500 and traced > 100 and len(variants) == 11, (compared, traced, sorted(variants))


def test_parts_path_reads_a_finding_s_part_again_from_the_file(tmp_path: Path) -> None:
    """The file's text is dropped once the payload is built (the compact view is made without it); tracing a
    finding reads its part's lines again."""
    path = _damaged(tmp_path)
    result = preflight_in_parts(load_context_source(path, False), path,
                                PreflightRequest(model="anthropic/claude-sonnet-4-5", reasoning="high"), min_text_bytes=0,
                                part_bytes=1)
    assert result is not None
    lines = Path(path).read_text().splitlines()
    for found in result.findings:
        if found["entryId"] is not None:
            assert f'"id": "{found["entryId"]}"' in lines[found["line"] - 1]
    assert {f["rule"] for f in result.findings} == {"anthropic-tool-result-without-use",
                                                    "anthropic-image-media-type", "anthropic-thinking-tool-loop"}


def test_small_sessions_are_not_built_in_parts(tmp_path: Path) -> None:
    path = _damaged(tmp_path)
    assert preflight_in_parts(load_context_source(path, False), path, PreflightRequest(
        model="anthropic/claude-sonnet-4-5")) is None  # under PARTS_FROM of message text
    assert parts_module.PARTS_FROM == 8 << 20


def _payload_helper() -> Any:
    """The payload helper's class, where it lives now (pi_tools.worker; the engine branch moves it into
    pi_tools.engine)."""
    import importlib

    for name in ("pi_tools.engine.helper", "pi_tools.engine.worker", "pi_tools.worker"):
        try:
            return importlib.import_module(name).PayloadWorker
        except (ImportError, AttributeError):
            continue
    pytest.skip("no payload helper in this tree")


def test_parts_built_by_the_payload_helper_give_the_same_findings(tmp_path: Path,
                                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    """preflight can use payload's helper process as payload does (stages.PartsBuilder): the helper builds parts
    from the back, this process from the front, and the findings are exactly the whole build's."""
    import os

    if len(os.sched_getaffinity(0)) < 2:
        pytest.skip("the helper needs two usable cores")
    monkeypatch.setenv("PI_TOOLS_SPLIT_BYTES", "0")  # the helper starts for any file; parts of one user turn
    path = _damaged(tmp_path, rounds=400)  # enough parts for both processes to take some
    request = PreflightRequest(model="anthropic/claude-sonnet-4-5", reasoning="high")
    whole = _whole(path, request)
    worker = _payload_helper().start([path])
    assert worker is not None
    try:
        from pi_tools.session.bulk import index_elsewhere

        index_elsewhere(worker)
        from pi_tools.providers import split

        built_here: list[int] = []  # parts this process built (the helper, forked before, is not counted)
        build_part = split.build_part
        monkeypatch.setattr(split, "build_part", lambda *args: built_here.append(1) or build_part(*args))
        result = preflight_in_parts(load_context_source(path, False), path, request, min_text_bytes=0, part_bytes=1,
                                    build_elsewhere=worker.build_parts)
    finally:
        worker.close()
    assert result is not None and result.error is None
    assert result.findings == whole and len(whole) == 2 * 400 + 2  # and the loop, and 400 images > 100
    # 401 parts (one per user turn): the helper took some of them from the back (the first build_part call here
    # is payload_document_in_parts' probe with no messages).
    assert 1 < len(built_here) < 401


def test_early_reading_of_preflight_arguments_agrees_with_the_command() -> None:
    """The entry point starts payload's helper for `preflight FILE` from a light reading of the arguments
    (engine.early): it must know every option of the command that takes a value, and step aside for the flags
    that leave the helper out (--replay builds many small payloads, --list-rules none)."""
    import typer

    from pi_tools.cli.app import app
    from pi_tools.engine.early import (
        ENGINE_OPTIONS,
        PREFLIGHT_VALUE_OPTIONS,
        VERSION_OPTIONS,
        payload_arguments,
    )

    command = typer.main.get_command(app).commands["preflight"]  # type: ignore[attr-defined]
    options = [param for param in command.params if param.param_type_name == "option"]
    assert {name for param in options if not param.is_flag for name in param.opts} == (
        PREFLIGHT_VALUE_OPTIONS | ENGINE_OPTIONS | VERSION_OPTIONS)
    assert {name for param in options if param.is_flag for name in param.opts} == {
        "--replay", "--all-branches", "--list-rules"}

    def read(args: list[str]) -> Any:
        return payload_arguments(args, PREFLIGHT_VALUE_OPTIONS, ("--help",))

    assert read(["--format", "json", "--model=google/x", "s.jsonl"]) == (["s.jsonl"], {"--format", "--model"})
    assert read(["--replay", "s.jsonl"]) is None
    assert read(["--list-rules"]) is None
    assert read(["--jobs", "2", "s.jsonl"]) is None


def test_the_preflight_command_gives_the_same_findings_with_payload_s_helper(tmp_path: Path, cli: Any) -> None:
    """`pi-tools preflight FILE` on a session large enough for the parts path starts payload's helper as
    `payload` does; the report is byte for byte the one made without it (PI_TOOLS_SPLIT_BYTES=off)."""
    import os

    if len(os.sched_getaffinity(0)) < 2:
        pytest.skip("the helper needs two usable cores")
    path = _damaged(tmp_path, rounds=2600)  # about 9 MB of message text: over PARTS_FROM
    assert Path(path).stat().st_size > parts_module.PARTS_FROM
    args = ["preflight", "--format", "json", "--model", "google/gemini-3-flash-preview", path]
    helped = cli(*args, timeout=600)
    alone = cli(*args, env={"PI_TOOLS_SPLIT_BYTES": "off"}, timeout=600)
    assert helped.code == alone.code == 1 and helped.stderr == alone.stderr == ""
    assert helped.stdout == alone.stdout
    findings = [json.loads(line) for line in helped.stdout.splitlines()]
    rules = {found["rule"] for found in findings if found.get("kind") == "finding"}
    assert "google-image-media-type" in rules
    traced = [found for found in findings if found.get("kind") == "finding" and found["entryId"] is not None]
    assert len(traced) >= 2600  # a BMP image in every round, each traced to its user entry


@pytest.mark.parametrize("target", ["anthropic/claude-sonnet-4-5", "openai/gpt-5.1", "google/gemini-3-flash-preview"])
def test_part_scans_merged_equal_the_scan_of_the_joined_items(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                              target: str) -> None:
    """The rules of a payload built in parts read item scans made part by part (scans.py) and shifted by each
    part's first index; they must be exactly the scan of the whole item list, and the items must stay JSON text
    until a rule or a trace reads one (the rules themselves decode a chunk or two at most here). A scan with a
    `prune` keeps, part by part, rows of the whole scan only, and at least those that pruning the whole scan
    keeps (a pair across a cut is not pruned in either part)."""
    from pi_tools.providers.rulebook import scans

    path = _damaged(tmp_path, rounds=30)
    views: list[Any] = []
    decoded: list[int] = []
    real_view, real_decode = parts_module.RequestView, parts_module._decode

    def view(*args: Any, **kwargs: Any) -> Any:
        views.append(real_view(*args, **kwargs))
        return views[-1]

    def decode(encoded: Any) -> list[Any]:
        decoded.append(encoded.count)
        return real_decode(encoded)

    by_rules: list[int] = []
    real_hits = parts_module.iter_hits

    def hits(*args: Any) -> Any:
        found = list(real_hits(*args))
        by_rules.append(len(decoded))  # chunks decoded once the rules ran (tracing decodes its parts after)
        return iter(found)

    monkeypatch.setattr(parts_module, "RequestView", view)
    monkeypatch.setattr(parts_module, "_decode", decode)
    monkeypatch.setattr(parts_module, "iter_hits", hits)
    result = preflight_in_parts(load_context_source(path, False), path, PreflightRequest(model=target),
                                min_text_bytes=0, part_bytes=1)
    assert result is not None and result.error is None and result.findings
    (checked,) = [seen for seen in views if seen.given_items is not None]  # the others only name the item key
    api = checked.api
    chunks = len(checked.items._chunks)
    assert chunks > 30 and checked.scans is not None
    assert by_rules and by_rules[0] <= 2, (by_rules, chunks)  # the rules read one item or two, not the parts
    items = list(checked.items)
    assert len(items) == len(checked.items) == sum(c.encoded.count for c in checked.items._chunks)
    names = scans.scan_names(api)
    assert set(checked.scans) == set(names) and names
    for name in names:
        whole = scans._SCANS[name][1](items)
        merged = checked.scans[name]
        assert set(merged) == set(whole), name
        prune = scans._PRUNES.get(name)
        least = prune(whole, len(items)) if prune is not None else None
        for kind, rows in whole.items():
            kept = merged[kind]
            if (name, kind) == ("responses", "heads"):
                # a part records its first item's type and role too (it may follow a reasoning item of the part
                # before it): more rows than the whole scan's, each one true of its item
                assert set(rows) <= set(kept)
                assert all(row == (row[0], items[row[0]].get("type"), items[row[0]].get("role")) for row in kept)
            elif (name, kind) == ("responses", "paired"):
                # one row per part with calls answered within it: (its first such call's item, their call_ids);
                # the call_ids occur once each here, so the merged rows are the whole scan's but those of the
                # pairs' call_ids, and the rules read them
                calls = {(row[0], row[2]) for row in whole["ids"] if row[1]}
                pairs = [call_id for _, call_ids in kept for call_id in call_ids]
                pruned = set(pairs)
                assert kept and len(kept) <= chunks and len(pruned) == len(pairs) >= len(kept)
                assert all((item, call_ids[0]) in calls for item, call_ids in kept)
                assert pruned <= {call_id for _, call_id in calls}
                assert merged["ids"] == [row for row in whole["ids"] if row[2] not in pruned]
                from pi_tools.providers.openai_responses import preflight_rules as responses_module

                assert responses_module._ids(checked) is merged["ids"]
            elif least is not None:
                kept_set = set(kept)
                assert [row for row in rows if row in kept_set] == kept, (name, kind)  # in order, none made up
                assert set(least[kind]) <= set(kept), (name, kind)
            else:
                assert kept == rows, (name, kind)


def _tool_loops(tmp: Path, rounds: int = 40) -> str:
    """Tool loops in every round, most answered call for call (what pruning leaves out of a part's rows), some
    not: a result with another id, two calls with one result, a call of the model being switched to (Gemini 3:
    an unsigned call), and the last round's loop still open."""
    messages: list[dict[str, Any]] = []
    for round_ in range(rounds):
        calls = [{"type": "toolCall", "id": f"c{round_}_{k}", "name": "bash", "arguments": {"c": "ls"}}
                 for k in range(1 + round_ % 3)]
        messages += [{"role": "user", "content": [{"type": "text", "text": f"round {round_} " + "words " * 50}]},
                     _assistant([{"type": "thinking", "thinking": "plan", "thinkingSignature": "sig"}, *calls],
                                "toolUse")]
        answered = calls[:-1] if round_ % 7 == 3 else calls
        for call in answered:
            call_id = f"other_{round_}" if round_ % 11 == 5 else call["id"]
            messages.append({"role": "toolResult", "toolCallId": call_id, "toolName": "bash",
                             "content": [{"type": "text", "text": "out " * 40}], "isError": False})
        messages.append(_assistant([{"type": "text", "text": "done " * 30}]))
    messages += [{"role": "user", "content": [{"type": "text", "text": "last"}]},
                 {**_assistant([{"type": "toolCall", "id": "g1", "name": "bash", "arguments": {}}], "toolUse",
                               "gemini-3-pro-preview"), "provider": "google", "api": "google-generative-ai"},
                 {"role": "toolResult", "toolCallId": "g1", "toolName": "bash",
                  "content": [{"type": "text", "text": "done"}], "isError": False}]
    return _session(tmp, messages, "loops.jsonl")


@pytest.mark.parametrize("target", ["anthropic/claude-sonnet-4-5", "google/gemini-3-flash-preview"])
def test_pruned_part_rows_give_the_findings_of_the_whole_build(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                              target: str) -> None:
    """A part's scan rows are pruned where it is built (scans.item_scan's `prune`): answered tool loops leave
    nothing for the rules to relate. The findings stay those of the whole build, with thinking on and off, and
    the rows the main process merges are far fewer than the whole scan's."""
    from pi_tools.providers.rulebook import scans

    path = _tool_loops(tmp_path)
    merged_rows: list[int] = []
    real_merge = parts_module.merge

    def counted(pieces: Any) -> Any:
        merged = real_merge(pieces)
        merged_rows.append(sum(len(rows) for summary in merged.values() for rows in summary.values()))
        return merged

    for reasoning in (None, "high"):
        request = PreflightRequest(model=target, reasoning=reasoning)
        whole = _whole(path, request)
        assert whole, target
        for part_bytes in (1, 20_000):  # a round per part, or about ten
            monkeypatch.setattr(parts_module, "merge", counted)
            found = _in_parts(path, request, monkeypatch, part_bytes=part_bytes)
            assert found is not None and found == whole, (target, reasoning, part_bytes)
    items = json.loads(json.dumps(_whole_payload_items(path, target)))
    name = "anthropic" if target.startswith("anthropic") else "google"
    whole_rows = sum(len(rows) for rows in scans._SCANS[name][1](items).values())
    assert merged_rows and min(merged_rows) * 3 < whole_rows, (merged_rows, whole_rows)


def _whole_payload_items(path: str, target: str) -> list[Any]:
    from pi_tools.pipeline.stages import PayloadRequest, StageInput, as_llm, payload_document

    api = "anthropic-messages" if target.startswith("anthropic") else "google-generative-ai"
    llm = as_llm(StageInput(path, tree=load_context_source(path, True)))
    document = payload_document(llm, PayloadRequest(api=api, model=target))
    return document["payload"]["messages" if api == "anthropic-messages" else "contents"]


def _repeated_call_ids(tmp: Path, stray: bool) -> str:
    """Tool loops whose call ids repeat in later rounds: each answered within its round (a pair every part
    prunes), and with `stray` also a lone result with a pair's id in the last round."""
    messages: list[dict[str, Any]] = []
    for round_ in range(8):
        call_id = f"dup{round_ % 3}"
        messages += [{"role": "user", "content": [{"type": "text", "text": f"round {round_} " + "words " * 50}]},
                     _assistant([{"type": "toolCall", "id": call_id, "name": "bash", "arguments": {}}], "toolUse"),
                     {"role": "toolResult", "toolCallId": call_id, "toolName": "bash",
                      "content": [{"type": "text", "text": "out"}], "isError": False},
                     _assistant([{"type": "text", "text": "done"}])]
    if stray:
        messages += [{"role": "user", "content": [{"type": "text", "text": "again"}]},
                     {"role": "toolResult", "toolCallId": "dup0", "toolName": "bash",
                      "content": [{"type": "text", "text": "late"}], "isError": False}]
    messages += [{"role": "user", "content": [{"type": "text", "text": "last"}]}]
    return _session(tmp, messages, f"repeated-{stray}.jsonl")


@pytest.mark.parametrize("stray", [False, True])
def test_responses_pairs_pruned_in_parts_are_scanned_again_when_their_call_ids_repeat(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, stray: bool) -> None:
    """A part prunes a call answered within it (responses._prune); where the call_id occurs in another part too
    (Pi replays an id a provider reused), the rules read every row of the items again (responses._ids), and the
    findings stay exactly the whole build's."""
    from pi_tools.providers.openai_responses import preflight_rules as responses_module

    path = _repeated_call_ids(tmp_path, stray)
    rescans: list[int] = []
    real_scan = responses_module._scan_items

    def counted(items: Any) -> Any:
        rescans.append(len(items))
        return real_scan(items)

    request = PreflightRequest(model="openai/gpt-5.1")
    whole = _whole(path, request)
    monkeypatch.setattr(responses_module, "_scan_items", counted)
    found = _in_parts(path, request, monkeypatch)
    assert found is not None and found == whole
    assert rescans, "the merged rows were read although pruned call ids repeat"
    # a reused id's later calls: the id's first output came before them (what the pruned rows alone would hide)
    assert [(f["rule"], f["payloadPath"], f["entryId"]) for f in found] == [
        ("responses-call-without-output", f"input[{item}]", f"e{item + 1}") for item in (13, 17, 21, 25, 29)]
