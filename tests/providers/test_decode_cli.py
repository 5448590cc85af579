"""`pi-tools decode` against the stream goldens (fixtures/streams): Pi's events and settled message.

Every case goes through the function the command runs (`decode_documents`, in process, fast); a representative
subset also goes through the real CLI. Cases whose connection is cut cannot be expressed as a body file: they
are served by a loopback server (127.0.0.1) that drops the connection, and read through the run transport.
"""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path
from typing import Any

import pytest

from pi_tools.cli.decode import decode_documents
from pi_tools.loop.signals import AbortSignal
from pi_tools.loop.transport import open_stream
from pi_tools.providers.catalog import find_model
from pi_tools.providers.decode import classify, decode_response

from support.clihelp import run_cli
from support.replay_server import ReplayServer, Reply, sse_writes


@pytest.fixture
def cli() -> Any:
    """The real CLI in a subprocess (see tests/support/pi_tools_shim.py)."""
    return run_cli


STREAMS = Path(__file__).resolve().parents[2] / "fixtures" / "streams"
NOW_MS = 1767225600000
EPOCH = {"SOURCE_DATE_EPOCH": "1767225600"}


def _cases() -> list[tuple[str, str]]:
    found = []
    for sidecar in sorted((STREAMS / "cases").glob("*/*.json")):
        if (STREAMS / "expected" / sidecar.parent.name / sidecar.name).exists():
            found.append((sidecar.parent.name, sidecar.stem))
    return found


CASES = _cases()


@cache
def _load(api: str, name: str) -> tuple[dict[str, Any], Path, dict[str, Any]]:
    sidecar = json.loads((STREAMS / "cases" / api / f"{name}.json").read_text(encoding="utf-8"))
    with open(STREAMS / "expected" / api / f"{name}.json", encoding="utf-8") as handle:
        expected = json.load(handle)
    return sidecar, STREAMS / "cases" / api / sidecar["body"], expected


def _is_cut(sidecar: dict[str, Any]) -> bool:
    return (sidecar.get("transport") or {}).get("cut") == "reset"


def _plain(value: Any) -> Any:
    return json.loads(json.dumps(value, ensure_ascii=False))


def _reasoning(sidecar: dict[str, Any]) -> str | None:
    return (sidecar.get("options") or {}).get("reasoning")


def test_corpus_is_present() -> None:
    assert len(CASES) >= 140
    assert sum(_is_cut(_load(api, name)[0]) for api, name in CASES) >= 6


@pytest.mark.parametrize(("api", "name"), [c for c in CASES if not _is_cut(_load(*c)[0])],
                         ids=[f"{a}/{n}" for a, n in CASES if not _is_cut(_load(a, n)[0])])
def test_decode_documents_match_pi(api: str, name: str) -> None:
    sidecar, body_path, expected = _load(api, name)
    documents = decode_documents(body_path.read_bytes(), source=str(body_path), api=api, model_ref=sidecar["model"],
                                 status=sidecar["status"], headers=sidecar.get("headers") or {},
                                 reasoning=_reasoning(sidecar), events=True, now_ms=NOW_MS)
    events = [doc["event"] for doc in documents if doc["kind"] == "event"]
    message_doc = documents[-1]
    assert message_doc["kind"] == "message"
    assert _plain(events) == _plain(expected["events"])
    assert _plain(message_doc["message"]) == _plain(expected["message"])
    assert message_doc["classification"] == expected["classification"]


@pytest.mark.parametrize(("api", "name"), [c for c in CASES if _is_cut(_load(*c)[0])],
                         ids=[f"{a}/{n}" for a, n in CASES if _is_cut(_load(a, n)[0])])
def test_cut_connections_through_loopback_transport(api: str, name: str) -> None:
    sidecar, body_path, expected = _load(api, name)
    body = body_path.read_bytes()
    writes = sse_writes(body) if body_path.suffix == ".sse" else [body]
    reply = Reply(sidecar["status"], dict(sidecar.get("headers") or {}), writes, cut=True)
    model = find_model(sidecar["model"])
    options: dict[str, Any] = {"apiKey": "<redacted>"}
    if _reasoning(sidecar):
        options["reasoning"] = _reasoning(sidecar)
    with ReplayServer([reply], lifetime=20) as server:
        with open_stream("POST", server.url + "/stream", {"content-type": "application/json"}, b"{}",
                         AbortSignal(), options, timeout=10) as (status, headers, chunks):
            events, message = decode_response(api, model, status=status, headers=headers, chunks=chunks,
                                              options=options, now_ms=NOW_MS)
    assert status == sidecar["status"]
    assert message["stopReason"] == expected["message"]["stopReason"]
    # undici's and httpx's wording of a dropped connection differ only where the README allows it.
    assert _plain({**message, "errorMessage": None}) == _plain({**expected["message"], "errorMessage": None})
    assert bool(message.get("errorMessage")) == bool(expected["message"].get("errorMessage"))
    assert [e["type"] for e in events] == [e["type"] for e in expected["events"]]
    assert classify(message, model)["contextOverflow"] == expected["classification"]["contextOverflow"]


def _subset() -> list[tuple[str, str]]:
    """Up to four cases per API, preferring variety (recorded, fixture, synthetic, error status)."""
    chosen: list[tuple[str, str]] = []
    for api in sorted({api for api, _ in CASES}):
        names = [name for a, name in CASES if a == api and not _is_cut(_load(a, name)[0])]
        picks: list[str] = []
        for prefix in ("rec_", "fix_", "syn_"):
            picks.extend([name for name in names if name.startswith(prefix)][:1])
        errors = [name for name in names if _load(api, name)[0]["status"] != 200]
        picks.extend(errors[:1])
        chosen.extend((api, name) for name in dict.fromkeys(picks))
    return chosen


@pytest.mark.parametrize(("api", "name"), _subset(), ids=[f"{a}/{n}" for a, n in _subset()])
def test_decode_cli_matches_pi(cli: Any, api: str, name: str) -> None:
    sidecar, body_path, expected = _load(api, name)
    args = ["decode", "--api", api, "--model", sidecar["model"], "--status", str(sidecar["status"]), "--events"]
    for header, value in (sidecar.get("headers") or {}).items():
        args += ["--header", f"{header}: {value}"]
    if _reasoning(sidecar):
        args += ["--reasoning", str(_reasoning(sidecar))]
    result = cli(*args, str(body_path), env=EPOCH)
    assert result.code == 0, result.stderr
    documents = result.documents()
    assert [d["kind"] for d in documents] == ["event"] * len(expected["events"]) + ["message"]
    assert [d["event"] for d in documents[:-1]] == _plain(expected["events"])
    assert documents[-1]["message"] == _plain(expected["message"])
    assert documents[-1]["source"] == str(body_path)
    assert documents[-1]["classification"] == expected["classification"]


def test_decode_cli_without_events_prints_only_the_message(cli: Any) -> None:
    body = STREAMS / "cases" / "anthropic-messages" / "rec_vercel_text.sse"
    result = cli("decode", "--api", "anthropic-messages", str(body), env=EPOCH)
    assert result.code == 0, result.stderr
    (document,) = result.documents()
    assert document["kind"] == "message"
    assert document["model"] == "anthropic/claude-sonnet-4-5"
    assert document["message"]["timestamp"] == NOW_MS


def test_decode_cli_reports_bad_usage(cli: Any, tmp_path: Path) -> None:
    body = tmp_path / "x.sse"
    body.write_bytes(b"")
    assert cli("decode", "--api", "nope", str(body)).code == 2
    wrong = cli("decode", "--api", "anthropic-messages", "--model", "openai/gpt-5.1", str(body))
    assert wrong.code == 2 and "speaks openai-responses" in wrong.stderr
    missing = cli("decode", "--api", "anthropic-messages", str(tmp_path / "absent.sse"))
    assert missing.code == 2 and "cannot read" in missing.stderr
    assert "Traceback" not in missing.stderr
