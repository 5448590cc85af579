"""Pi 1.6 payloads built in parts (providers/split.py with the 1.6 edition, stages.payload_document_in_parts, the
helper process) must be byte for byte the payloads built whole, or be built whole.

The conformance16 cases (every clean one cut before every user message: PI_TOOLS_SPLIT_BYTES=0's smallest parts)
are built for every payload key of the 1.6 goldens, with and without reasoning,
a system prompt and tools, here and (through pickle, as the helper does) elsewhere. A transcript with system
messages of its own (a session Pi 1.6 wrote) is never cut; a part holding one is refused.
"""

from __future__ import annotations

import pickle
from pathlib import Path
from typing import Any

import orjson
import pytest

from pi_tools.engine.helper import SPLIT_BYTES_VARIABLE, PayloadWorker
from pi_tools.pi import resolve
from pi_tools.pipe.documents import EncodedItems, iter_document_bytes
from pi_tools.pipeline.stages import (
    LocalClaims,
    PayloadRequest,
    build_claimed_parts,
    context_document,
    llm_document,
    payload_document,
    payload_document_in_parts,
)
from pi_tools.providers.credentials import OFFLINE_API_KEY
from pi_tools.session.bulk import BulkSession
from pi_tools.session.load import load_context_source

from support.golden import ROOT
from support.oracle_path import CONFORMANCE16

PI16 = resolve("1.6")
GOLDEN = CONFORMANCE16 / "expected" / "c000_linear.json"
if not GOLDEN.exists():
    pytest.skip(f"the conformance16 goldens are not at {CONFORMANCE16}", allow_module_level=True)

VARIANTS = [(key.split("@")[0], entry["model"]) for key, entry in orjson.loads(GOLDEN.read_bytes())["payloads"].items()]
VARIANTS.append(("azure-openai-responses", "azure/gpt-5.1"))  # no golden: Azure's endpoint comes from the environment
AZURE_RESOURCE = "AZURE_OPENAI_RESOURCE_NAME"
INPUTS = orjson.loads(GOLDEN.read_bytes())["inputs"]
IN_PARTS = {"anthropic-messages", "openai-completions", "openai-responses", "google-generative-ai",
            "bedrock-converse-stream", "mistral-conversations", "openai-codex-responses", "azure-openai-responses",
            "pi-messages"}
"""The APIs whose 1.6 adapters build a history apart (the others build every 1.6 payload whole)."""
MESSAGE_LISTS = {"anthropic-messages": "messages", "bedrock-converse-stream": "messages",
                 "google-generative-ai": "contents", "openai-responses": "input", "openai-completions": "messages",
                 "mistral-conversations": "messages", "openai-codex-responses": "input",
                 "azure-openai-responses": "input", "pi-messages": "context.messages"}


def _sources(paths: list[Path]) -> list[tuple[Path, Any]]:
    found = []
    for path in paths:
        try:
            found.append((path, load_context_source(str(path), False, PI16.context)))
        except Exception:  # noqa: BLE001 - unreadable files are other tests' business
            continue
    return found


SESSIONS = _sources(sorted((CONFORMANCE16 / "cases").glob("*.jsonl")))
CUT = [(path, source) for path, source in SESSIONS if isinstance(source, BulkSession)
       and len(context_document(source, pi=PI16)["messages"].planned.parts(1)) >= 2]
RECORDED = _sources(sorted((ROOT / "tests" / "data" / "requests16").glob("*.jsonl"))
                    + sorted((CONFORMANCE16 / "cases").glob("gen16_*.jsonl")))


def written(document: Any) -> bytes:
    return b"".join(iter_document_bytes(document))


def listed_items(document: Any, api: str) -> Any:
    """The payload's conversation (at MESSAGE_LISTS' path, ``[None]`` where there is none)."""
    value = document.get("payload", {})
    for key in MESSAGE_LISTS.get(api, "").split("."):
        value = value.get(key) if isinstance(value, dict) else None
    return value if value is not None else [None]


def llm(source: Any) -> dict[str, Any]:
    return llm_document(context_document(source, pi=PI16))


def elsewhere_taking(count: int) -> Any:
    """The helper's side, in this process: up to `count` parts from the back, through pickle both ways, with the
    task's keywords (the Pi version's name), failures as None."""

    def build(api: str, model: Any, options: dict[str, Any], context: dict[str, Any], parts: list[Any],
              source: str, **task: Any) -> Any:
        assert task == {"pi": "1.6"}
        claims = LocalClaims(len(parts))
        taken: list[int] = []

        def claim() -> int | None:
            index = claims.back() if len(taken) < count else None
            if index is not None:
                taken.append(index)
            return index

        copies = pickle.loads(pickle.dumps(parts, protocol=5))
        try:
            built = pickle.loads(pickle.dumps(
                build_claimed_parts(api, model, options, context, copies, claim, None, task["pi"]), protocol=5))
        except Exception:  # noqa: BLE001 - as the helper does
            built = None
        return claims, lambda: built

    return build


def test_enough_sessions_are_cut() -> None:
    assert len(CUT) >= 25


@pytest.mark.parametrize(("api", "model"), VARIANTS, ids=[f"{api}@{model}" for api, model in VARIANTS])
@pytest.mark.parametrize("inputs", ["bare", "reasoning", "prompt and tools"])
def test_parts_equal_the_whole_payload(api: str, model: str, inputs: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(AZURE_RESOURCE, "pi-tools-test")
    # a recorded transcript given a prompt gets an update stamped now (stages._as_recorded), which pi-messages sends
    monkeypatch.setattr("time.time_ns", lambda: 1_800_000_000_000_000_000)
    request = PayloadRequest(api=api, model=model, reasoning=None if inputs == "bare" else "high",
                             system_prompt=INPUTS["systemPrompt"] if inputs == "prompt and tools" else None,
                             tools=INPUTS["tools"] if inputs == "prompt and tools" else None)
    outcomes = {"joined": 0, "whole": 0, "not cut": 0}
    for path, source in CUT:
        whole = written(payload_document(llm(source), request))
        for taking in (None, 2):
            document = payload_document_in_parts(llm(source), request,
                                                 None if taking is None else elsewhere_taking(taking), part_bytes=1)
            if document is None:
                outcomes["not cut"] += 1
                continue
            assert written(document) == whole, (path.name, taking)
            listed = listed_items(document, api)
            outcomes["joined" if listed and isinstance(listed[-1], EncodedItems) else "whole"] += 1
    if api in IN_PARTS:
        assert outcomes["joined"] >= 2 * (len(CUT) - 3), outcomes
    else:
        assert outcomes == {"joined": 0, "whole": 0, "not cut": 2 * len(CUT)}


@pytest.mark.parametrize(("api", "model"), [variant for variant in VARIANTS if variant[0] in IN_PARTS][:6])
def test_a_recorded_transcript_is_never_joined_from_parts(api: str, model: str) -> None:
    """A session that records system messages is read through the bulk index under 1.6 too, but no part holding
    one is built apart (stages.build_claimed_parts): its payload is built whole, and is the whole payload."""
    assert RECORDED
    request = PayloadRequest(api=api, model=model, reasoning="high")
    for path, source in RECORDED:
        whole = written(payload_document(llm(source), request))
        document = payload_document_in_parts(llm(source), request, None, part_bytes=1)
        if document is None:
            continue
        assert written(document) == whole, path.name
        listed = listed_items(document, api)
        assert not (listed and isinstance(listed[-1], EncodedItems)), path.name


def _user(text: str, timestamp: int) -> dict[str, Any]:
    return {"role": "user", "content": [{"type": "text", "text": text}], "timestamp": timestamp}


def _assistant(text: str, timestamp: int) -> dict[str, Any]:
    return {"role": "assistant", "content": [{"type": "text", "text": text}], "api": "anthropic-messages",
            "provider": "anthropic", "model": "claude-sonnet-4-5", "stopReason": "stop", "timestamp": timestamp,
            "usage": {"input": 10, "output": 5, "cacheRead": 0, "cacheWrite": 0, "totalTokens": 15,
                      "cost": {"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0, "total": 0}}}


@pytest.mark.parametrize("api", sorted(IN_PARTS))
def test_a_part_holding_a_system_message_is_refused(api: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """Where a later system message lands, or what it collapses into, depends on the whole transcript."""
    monkeypatch.setenv(AZURE_RESOURCE, "pi-tools-test")
    from pi_tools.providers.catalog import find_model

    model = find_model(next(model for name, model in VARIANTS if name == api), PI16.requests.catalog)
    options = {"apiKey": OFFLINE_API_KEY if api == "openai-codex-responses" else "key"}  # Codex reads an account
    context = {"systemPrompt": "Be brief.", "tools": INPUTS["tools"]}
    system = {"role": "system", "content": "", "sections": {"preamble": "Be briefer."}, "timestamp": 3}
    parts = [[_user("a", 1), _assistant("b", 2)], [_user("c", 4), _assistant("d", 5)]]
    built = build_claimed_parts(api, model, options, context, parts, LocalClaims(2).front, None, "1.6")
    assert built is not None and len(built) == 2
    for held in ([[system, *parts[0]], parts[1]], [parts[0], [*parts[1], system]]):
        assert build_claimed_parts(api, model, options, context, held, LocalClaims(2).front, None, "1.6") is None


def test_a_real_helper_builds_pi16_parts(monkeypatch: pytest.MonkeyPatch) -> None:
    largest = max((path for path, _ in CUT), key=lambda path: path.stat().st_size)
    monkeypatch.setenv(SPLIT_BYTES_VARIABLE, "0")
    worker = PayloadWorker.start([str(largest)])
    if worker is None:
        pytest.skip("no fork or a single usable CPU")
    try:
        built = 0
        for api, model in [("anthropic-messages", "anthropic/claude-sonnet-4-5"),
                           ("openai-responses", "openai/gpt-5.1")]:
            request = PayloadRequest(api=api, model=model)
            for _, source in CUT:
                whole = written(payload_document(llm(source), request))
                document = payload_document_in_parts(llm(source), request, worker.build_parts, part_bytes=1)
                assert document is not None and written(document) == whole
                listed = listed_items(document, api)
                built += isinstance(listed[-1], EncodedItems)
        assert built >= 2 * (len(CUT) - 3)
    finally:
        worker.close()


def test_cli_with_a_helper_writes_what_it_writes_whole(cli: Any) -> None:
    sessions = [str(path) for path, _ in CUT][:8]
    for api, model in [("openai-completions", "groq/openai/gpt-oss-120b"),
                       ("google-generative-ai", "google/gemini-2.5-flash")]:
        args = ["payload", "--pi", "1.6", "--api", api, "--model", model, "--reasoning", "high", *sessions]
        split_run = cli(*args, env={SPLIT_BYTES_VARIABLE: "0"})
        whole_run = cli(*args, env={SPLIT_BYTES_VARIABLE: "off"})
        assert split_run.code == 0 and split_run.stderr == whole_run.stderr
        assert split_run.stdout == whole_run.stdout
        assert len(whole_run.documents()) == len(sessions)


@pytest.fixture(scope="module")
def generated_session(tmp_path_factory: pytest.TempPathFactory) -> Any:
    """A 3 MiB session of the 0.85 generator (no system messages of its own: cut into parts under 1.6 too)."""
    import subprocess
    import sys

    from support.oracle_path import GEN_CORPUS

    if not GEN_CORPUS.exists():
        pytest.skip(f"{GEN_CORPUS} is not available")
    path = tmp_path_factory.mktemp("generated") / "big.jsonl"
    subprocess.run([sys.executable, str(GEN_CORPUS), "--big", "--seed", "7", "--out", str(path), "--target-mb", "3"],
                   check=True, capture_output=True)
    source = load_context_source(str(path), False, PI16.context)
    assert isinstance(source, BulkSession)
    return source


@pytest.mark.parametrize(("api", "model"), [("mistral-conversations", "mistral/magistral-medium-latest"),
                                            ("openai-codex-responses", "openai-codex/gpt-5.6-sol"),
                                            ("azure-openai-responses", "azure/gpt-5.1"),
                                            ("pi-messages", "radius/balanced")])
@pytest.mark.parametrize("inputs", ["bare", "prompt and tools"])
def test_a_large_generated_session_joins_from_default_parts(api: str, model: str, inputs: str, generated_session: Any,
                                                            monkeypatch: pytest.MonkeyPatch) -> None:
    """The four APIs whose 1.6 adapters were the last to build in parts, on a large session cut into parts of the
    default size (split.PART_BYTES), here and with a helper taking parts from the back: joined, and the bytes of
    the whole payload."""
    monkeypatch.setenv(AZURE_RESOURCE, "pi-tools-test")
    request = PayloadRequest(api=api, model=model, reasoning="high",
                             system_prompt=INPUTS["systemPrompt"] if inputs != "bare" else None,
                             tools=INPUTS["tools"] if inputs != "bare" else None)
    whole = written(payload_document(llm(generated_session), request))
    assert b'"kind":"payload"' in whole
    for taking in (None, 3):
        document = payload_document_in_parts(llm(generated_session), request,
                                             None if taking is None else elsewhere_taking(taking))
        assert document is not None
        listed = listed_items(document, api)
        assert sum(isinstance(item, EncodedItems) for item in listed) >= 10, taking
        assert written(document) == whole, taking
