"""`pi-tools trace --endpoint`: OTLP HTTP/protobuf to a receiver (a stub that decodes what it gets with OTLP's
protobuf schema), headers, the OTEL_EXPORTER_OTLP_* environment, the incremental manifest, and a receiver that is
not there. The real back end's tests (spans read back through its API) are tests/trace/test_trace_receiver.py."""

from __future__ import annotations

import http.server
import json
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from conftest import run_cli
from test_trace_mapping import ENTRIES, _write

service = pytest.importorskip("opentelemetry.proto.collector.trace.v1.trace_service_pb2")
pytest.importorskip("opentelemetry.exporter.otlp.proto.http.trace_exporter")


class _Receiver(http.server.BaseHTTPRequestHandler):
    """Takes OTLP/HTTP protobuf exports and keeps each request's path, headers and spans."""

    received: list[dict[str, Any]]

    def do_POST(self) -> None:  # noqa: N802 - http.server's name
        body = self.rfile.read(int(self.headers["Content-Length"]))
        request = service.ExportTraceServiceRequest()
        request.ParseFromString(body)
        spans = [span for resource in request.resource_spans for scope in resource.scope_spans
                 for span in scope.spans]
        self.received.append({"path": self.path, "headers": {k.lower(): v for k, v in self.headers.items()},
                              "spans": spans, "resources": list(request.resource_spans)})
        answer = service.ExportTraceServiceResponse().SerializeToString()
        self.send_response(200)
        self.send_header("Content-Type", "application/x-protobuf")
        self.send_header("Content-Length", str(len(answer)))
        self.end_headers()
        self.wfile.write(answer)

    def log_message(self, *args: Any) -> None:
        pass


@pytest.fixture
def receiver() -> Iterator[tuple[str, list[dict[str, Any]]]]:
    received: list[dict[str, Any]] = []
    handler = type("Handler", (_Receiver,), {"received": received})
    server = http.server.HTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}", received
    finally:
        server.shutdown()
        server.server_close()
        thread.join()


def _names(received: list[dict[str, Any]]) -> list[str]:
    return [span.name for request in received for span in request["spans"]]


def test_spans_go_to_the_endpoint_with_the_headers(tmp_path: Path, receiver: Any) -> None:
    url, received = receiver
    session = _write(tmp_path / "s.jsonl", ENTRIES)
    result = run_cli("trace", str(session), "--endpoint", url, "--header", "X-Key=secret-value",
                     env={"OTEL_EXPORTER_OTLP_HEADERS": "x-team=pi,x-key=from-env"})
    assert (result.code, result.stderr) == (0, "pi-tools: 1 session, 4 spans to the receiver\n")
    (request,) = received
    assert request["path"] == "/v1/traces"
    assert (request["headers"]["x-key"], request["headers"]["x-team"]) == ("secret-value", "pi")
    assert request["headers"]["content-type"] == "application/x-protobuf"
    assert _names(received) == ["invoke_agent pi", "chat claude-sonnet-4-5", "execute_tool bash",
                                "chat claude-sonnet-4-5"]
    root, chat = request["spans"][:2]
    assert chat.parent_span_id == root.span_id and chat.trace_id == root.trace_id
    attributes = {item.key: item.value for item in chat.attributes}
    assert attributes["gen_ai.usage.input_tokens"].int_value == 160
    resource = {item.key: item.value.string_value for item in request["resources"][0].resource.attributes}
    assert resource["service.name"] == "pi"
    # The -o file holds the same spans: ids, times and attributes are the mapping's, whichever way they leave.
    out = tmp_path / "t.json"
    assert run_cli("trace", str(session), "-o", str(out)).code == 0
    written = json.loads(out.read_text())["resourceSpans"][0]["scopeSpans"][0]["spans"]
    assert [span["spanId"] for span in written] == [span.span_id.hex() for span in request["spans"]]
    assert [int(span["startTimeUnixNano"]) for span in written] == [
        span.start_time_unix_nano for span in request["spans"]]


def test_the_environment_names_the_endpoint(tmp_path: Path, receiver: Any) -> None:
    url, received = receiver
    session = _write(tmp_path / "s.jsonl", ENTRIES)
    result = run_cli("trace", str(session), env={"OTEL_EXPORTER_OTLP_ENDPOINT": url,
                                                  "OTEL_SERVICE_NAME": "my-agents"})
    assert result.code == 0, result.stderr
    resource = {item.key: item.value.string_value for item in received[0]["resources"][0].resource.attributes}
    assert resource["service.name"] == "my-agents"
    assert len(_names(received)) == 4


def test_the_manifest_sends_only_what_is_new(tmp_path: Path, receiver: Any) -> None:
    url, received = receiver
    session = _write(tmp_path / "s.jsonl", ENTRIES[:6])  # up to a1: its tool call has no result yet
    manifest = tmp_path / "sent.json"
    first = run_cli("trace", str(session), "--endpoint", url, "--manifest", str(manifest))
    assert (first.code, first.stderr) == (0, "pi-tools: 1 session, 3 spans to the receiver, 0 unchanged\n")
    again = run_cli("trace", str(session), "--endpoint", url, "--manifest", str(manifest))
    assert (again.code, again.stderr) == (0, "pi-tools: 0 sessions, 0 spans to the receiver, 1 unchanged\n")
    assert len(received) == 1
    _write(session, ENTRIES)  # the session went on: a tool result, a compaction, an answer
    grown = run_cli("trace", str(session), "--endpoint", url, "--manifest", str(manifest))
    assert (grown.code, grown.stderr) == (0, "pi-tools: 1 session, 2 spans to the receiver, 0 unchanged\n")
    # The tool call that waited for its result is sent again, finished; the new answer joins the same trace.
    assert [span.name for span in received[1]["spans"]] == ["execute_tool bash", "chat claude-sonnet-4-5"]
    waiting, finished = received[0]["spans"][2], received[1]["spans"][0]
    assert finished.span_id == waiting.span_id
    assert {item.key: item.value.string_value for item in waiting.attributes}["pi.tool.result"] == "missing"
    assert {item.key: item.value.string_value for item in finished.attributes}["pi.tool.result.entry_id"] == "r1"
    assert finished.end_time_unix_nano > waiting.end_time_unix_nano
    assert all(span.parent_span_id == received[0]["spans"][0].span_id for span in received[1]["spans"])
    recorded = json.loads(manifest.read_text())
    assert recorded["format"] == 1
    assert len(recorded["files"][str(session)]["spans"]) == 4
    # Other settings are another trace of the file: sent whole.
    other = run_cli("trace", str(session), "--endpoint", url, "--manifest", str(manifest), "--content", "full")
    assert (other.code, other.stderr) == (0, "pi-tools: 1 session, 4 spans to the receiver, 0 unchanged\n")


def test_a_bad_manifest_is_exit_2(tmp_path: Path) -> None:
    session = _write(tmp_path / "s.jsonl", ENTRIES)
    manifest = tmp_path / "m.json"
    manifest.write_text('{"files": []}')
    result = run_cli("trace", str(session), "-o", "-", "--manifest", str(manifest))
    assert (result.code, result.stderr) == (
        2, f'pi-tools: --manifest {manifest}: not a trace manifest (no "format": 1 and "files")\n')


def test_a_receiver_that_is_not_there_is_exit_2(tmp_path: Path) -> None:
    import socket

    with socket.socket() as probe:  # a port nobody listens on
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    session = _write(tmp_path / "s.jsonl", ENTRIES)
    manifest = tmp_path / "m.json"
    result = run_cli("trace", str(session), "--endpoint", f"http://127.0.0.1:{port}", "--manifest", str(manifest),
                     env={"OTEL_EXPORTER_OTLP_TIMEOUT": "1"})
    assert result.code == 2
    assert result.stderr.splitlines()[-1] == (
        f"pi-tools: http://127.0.0.1:{port}/v1/traces: the OTLP receiver did not accept 4 spans (unreachable, or "
        "it answered with an error; see the warning above)")
    assert not manifest.exists()  # nothing delivered, nothing recorded: the next run sends it all


def test_without_the_otel_extra_the_command_says_how_to_install_it(tmp_path: Path) -> None:
    """The SDK hidden from the process (as where the extra is not installed)."""
    blocker = tmp_path / "sitecustomize.py"
    blocker.write_text("import sys\nsys.modules['opentelemetry.exporter.otlp.proto.http.trace_exporter'] = None\n")
    session = _write(tmp_path / "s.jsonl", ENTRIES)
    import os

    result = run_cli("trace", str(session), "--endpoint", "http://127.0.0.1:9",
                     env={"PYTHONPATH": f"{tmp_path}{os.pathsep}{os.environ.get('PYTHONPATH', '')}"})
    assert (result.code, result.stderr) == (2, "pi-tools: sending needs the otel extra: pip install "
                                               "'pi-tools[otel]' (or write OTLP JSON with -o FILE)\n")


def _sessions(folder: Path, count: int) -> Path:
    """`count` sessions of ENTRIES under their own ids (their own traces)."""
    folder.mkdir()
    for number in range(count):
        _write(folder / f"s{number:02}.jsonl", [{**ENTRIES[0], "id": f"sess-{number}"}, *ENTRIES[1:]])
    return folder


def _spans_by_id(received: list[dict[str, Any]]) -> dict[bytes, bytes]:
    return {span.span_id: span.SerializeToString(deterministic=True)
            for request in received for span in request["spans"]}


def test_a_pool_sends_from_its_workers_what_one_process_sends(tmp_path: Path, receiver: Any) -> None:
    """With a local pool, each worker sends the sessions it traced (one request per session here), so that the
    SDK's encoding runs on every core: the receiver gets the very spans one process sends."""
    url, received = receiver
    folder = _sessions(tmp_path / "corpus", 12)
    pooled = run_cli("trace", str(folder), "--endpoint", url, "--jobs", "2")
    assert (pooled.code, pooled.stderr) == (0, "pi-tools: 12 sessions, 48 spans to the receiver\n")
    assert len(received) == 12
    by_workers = _spans_by_id(received)
    received.clear()
    alone = run_cli("trace", str(folder), "--endpoint", url, "--jobs", "1")
    assert (alone.code, alone.stderr) == (0, "pi-tools: 12 sessions, 48 spans to the receiver\n")
    assert len(received) == 12 and _spans_by_id(received) == by_workers
    assert len({span.trace_id for request in received for span in request["spans"]}) == 12


class _Refusing(http.server.BaseHTTPRequestHandler):
    """Answers every export with 400 (which the exporter does not retry), counting them."""

    received: list[int]

    def do_POST(self) -> None:  # noqa: N802 - http.server's name
        self.rfile.read(int(self.headers["Content-Length"]))
        self.received.append(1)
        self.send_response(400)
        self.send_header("Content-Length", "0")
        self.end_headers()

    def log_message(self, *args: Any) -> None:
        pass


def test_a_refusing_receiver_stops_a_pool_after_a_request_per_worker(tmp_path: Path) -> None:
    received: list[int] = []
    server = http.server.HTTPServer(("127.0.0.1", 0), type("Handler", (_Refusing,), {"received": received}))
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        folder = _sessions(tmp_path / "corpus", 12)
        manifest = tmp_path / "m.json"
        url = f"http://127.0.0.1:{server.server_address[1]}"
        result = run_cli("trace", str(folder), "--endpoint", url, "--jobs", "2", "--manifest", str(manifest))
    finally:
        server.shutdown()
        server.server_close()
        thread.join()
    assert result.code == 2
    assert result.stderr.splitlines()[-1] == (
        f"pi-tools: {url}/v1/traces: the OTLP receiver did not accept 4 spans (unreachable, or it answered with an "
        "error; see the warning above)")
    assert 1 <= len(received) <= 2  # a worker that met the refusal sends nothing more
    assert not manifest.exists()
