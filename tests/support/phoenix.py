"""Arize Phoenix, a real OTLP back end, started by the trace tests on 127.0.0.1 and stopped by them.

Phoenix takes OTLP HTTP/protobuf at /v1/traces, stores spans in SQLite (in the test's own folder), and answers
`GET /v1/projects/{project}/spans` with what it stored, so a test sends with `pi-tools trace --endpoint` and reads
back what a user's back end would hold. Three of its behaviours shape the helpers here:

- it files spans under the project named by the `x-project-name` request header (`--header
  x-project-name=...`), so each test sends to a project of its own in one shared server (starting one takes
  20 to 60 seconds);
- a span id is unique in the whole database (a span sent again is dropped, whatever its project), so a project
  is deleted when its test ends, for the next test to send the same sessions afresh;
- spans are stored after the HTTP answer (each request's decoded in a background task, concurrently with the
  next request's, then written by an inserter in batches): a test that has sent waits in `Project.settled`
  for the count it expects, for a marker span sent after its own, and for the count to hold still, so that
  "nothing was added" is a count taken after the second send was stored, not before.

The server runs as `python -m phoenix.server.main serve` in its own process group, with every port chosen free,
its telemetry off and its working folder (database included) under the test's temporary folder; stopping it
ends the group, so nothing is left running or written elsewhere.
"""

from __future__ import annotations

import importlib.metadata
import os
import secrets
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
import pytest

DISTRIBUTION = "arize-phoenix"
MISSING = ("Arize Phoenix is not installed (the trace-test extra: pip install -e '.[trace-test]'; "
           ".ci/run installs it)")
READY_SECONDS = 240.0
"""How long a start may take: about 20 s on an idle 2-core machine, over 60 s when the test suite loads it."""
STORE_SECONDS = 300.0
"""How long sent spans may take to be stored (a few hundred a second on an idle machine, far fewer under load)."""
QUIET_SECONDS = 3.0
"""How long the count must hold still before a test counts: Phoenix decodes each request's spans after answering
it, concurrently with later requests, so a marker sent later may be stored before them."""
MARKER_NAME = "pi-tools test marker"
"""The name of the marker span `Project.settled` sends after a test's own spans (left out of `spans()`)."""


def installed() -> bool:
    """Whether Phoenix's server can be started from this environment."""
    try:
        importlib.metadata.version(DISTRIBUTION)
    except importlib.metadata.PackageNotFoundError:
        return False
    return True


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


@dataclass
class Phoenix:
    """A running Phoenix server: its base URL (the OTLP endpoint and the REST API's), process and log."""

    url: str
    process: subprocess.Popen[bytes]
    folder: Path
    log: Path
    client: httpx.Client = field(init=False)

    def __post_init__(self) -> None:
        self.client = httpx.Client(base_url=self.url, timeout=30.0)

    def log_tail(self, chars: int = 3000) -> str:
        """The end of the server's output, for a failure's message."""
        try:
            return self.log.read_text("utf-8", "replace")[-chars:]
        except OSError:
            return "(no log)"

    def project(self, name: str | None = None) -> Project:
        """A project of this test's own (a fresh name unless given), where `headers()` files the spans."""
        return Project(self, name or f"pi-tools-{secrets.token_hex(6)}")


@dataclass
class Project:
    """One Phoenix project: where a test's spans go and where it reads them back."""

    server: Phoenix
    name: str

    @property
    def header(self) -> str:
        """The `--header` value that files spans sent by `pi-tools trace` under this project."""
        return f"x-project-name={self.name}"

    def settled(self, expected: int | None = None) -> list[dict[str, Any]]:
        """The project's spans once what was sent to it is stored: `expected` spans when given (an error when
        they do not all arrive), and in any case after a marker span sent now has been stored and the count has
        then held still for `QUIET_SECONDS` (a second send of the same spans shows as nothing arriving)."""
        marker = _marker_request(self.name)
        answer = self.server.client.post("/v1/traces", content=marker.SerializeToString(),
                                         headers={"content-type": "application/x-protobuf",
                                                  "x-project-name": self.name})
        assert answer.status_code == 200, answer.text
        marker_id = marker.resource_spans[0].scope_spans[0].spans[0].span_id.hex()
        deadline = time.monotonic() + STORE_SECONDS
        marked = False
        count, since = -1, time.monotonic()
        while time.monotonic() < deadline:
            assert self.server.process.poll() is None, f"Phoenix stopped:\n{self.server.log_tail()}"
            spans = self._stored()
            marked = marked or any(span["context"]["span_id"] == marker_id for span in spans)
            ours = [span for span in spans if span["name"] != MARKER_NAME]
            if len(ours) != count:
                count, since = len(ours), time.monotonic()
            enough = expected is None or count >= expected
            if marked and enough and time.monotonic() - since >= QUIET_SECONDS:
                return ours
            time.sleep(0.5)
        raise AssertionError(f"Phoenix holds {count} spans of {self.name} (expected {expected}; the marker "
                             f"{'was' if marked else 'was not'} stored) after {STORE_SECONDS:.0f} s:\n"
                             f"{self.server.log_tail()}")

    def spans(self) -> list[dict[str, Any]]:
        """Every span Phoenix holds in the project now (markers left out), as its REST API gives them: `name`,
        `context` (`trace_id`, `span_id`), `parent_id`, `span_kind`, times, `status_code`, `attributes` (flat,
        with the OpenInference attributes Phoenix derives from `gen_ai.*` beside them) and `events`."""
        return [span for span in self._stored() if span["name"] != MARKER_NAME]

    def _stored(self) -> list[dict[str, Any]]:
        spans: list[dict[str, Any]] = []
        cursor: str | None = None
        while True:
            params: dict[str, Any] = {"limit": 1000}
            if cursor:
                params["cursor"] = cursor
            answer = self.server.client.get(f"/v1/projects/{self.name}/spans", params=params)
            if answer.status_code == 404:
                return []
            answer.raise_for_status()
            page = answer.json()
            spans.extend(page["data"])
            cursor = page.get("next_cursor")
            if not cursor:
                return spans

    def delete(self) -> None:
        """Delete the project and its spans (their ids become free for the next test)."""
        answer = self.server.client.delete(f"/v1/projects/{self.name}")
        assert answer.status_code in (204, 404), answer.text


def _marker_request(project: str) -> Any:
    """An OTLP export request of one span in a trace of its own (random ids)."""
    from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceRequest
    from opentelemetry.proto.common.v1.common_pb2 import AnyValue, KeyValue
    from opentelemetry.proto.trace.v1.trace_pb2 import ResourceSpans, ScopeSpans, Span

    now = time.time_ns()
    span = Span(trace_id=secrets.token_bytes(16), span_id=secrets.token_bytes(8), name=MARKER_NAME,
                start_time_unix_nano=now, end_time_unix_nano=now)
    resource_spans = ResourceSpans(scope_spans=[ScopeSpans(spans=[span])])
    resource_spans.resource.attributes.append(
        KeyValue(key="openinference.project.name", value=AnyValue(string_value=project)))
    return ExportTraceServiceRequest(resource_spans=[resource_spans])


def start(folder: Path) -> Phoenix:
    """Start Phoenix on free ports of 127.0.0.1 with everything it writes under `folder`; returns once its
    health check answers (AssertionError with its log when it exits or does not answer in time)."""
    folder.mkdir(parents=True, exist_ok=True)
    port, grpc_port = free_port(), free_port()
    env = {
        **os.environ,
        "PHOENIX_HOST": "127.0.0.1",
        "PHOENIX_PORT": str(port),
        "PHOENIX_GRPC_PORT": str(grpc_port),
        "PHOENIX_WORKING_DIR": str(folder),
        "PHOENIX_TELEMETRY_ENABLED": "false",
        "PHOENIX_DISABLE_AGENT_ASSISTANT": "true",
        "PHOENIX_ALLOW_EXTERNAL_RESOURCES": "false",
        "HOME": str(folder),
    }
    for name in list(env):
        if name.startswith(("OTEL_", "PHOENIX_SQL", "PHOENIX_POSTGRES")):
            del env[name]
    log = folder / "phoenix.log"
    with log.open("wb") as out:
        process = subprocess.Popen([sys.executable, "-m", "phoenix.server.main", "serve"], stdout=out,
                                   stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL, env=env, cwd=folder,
                                   start_new_session=True)
    server = Phoenix(f"http://127.0.0.1:{port}", process, folder, log)
    deadline = time.monotonic() + READY_SECONDS
    while time.monotonic() < deadline:
        if process.poll() is not None:
            stop(server)
            raise AssertionError(f"Phoenix exited with {process.returncode} while starting:\n{server.log_tail()}")
        try:
            if server.client.get("/healthz", timeout=2.0).status_code == 200:
                return server
        except httpx.TransportError:
            pass
        time.sleep(0.5)
    stop(server)
    raise AssertionError(f"Phoenix did not answer within {READY_SECONDS:.0f} s:\n{server.log_tail()}")


def stop(server: Phoenix) -> None:
    """End the server's process group (politely, then by force) and close the client."""
    server.client.close()
    try:
        os.killpg(server.process.pid, signal.SIGTERM)
    except ProcessLookupError:
        pass
    try:
        server.process.wait(timeout=30)
    except subprocess.TimeoutExpired:
        os.killpg(server.process.pid, signal.SIGKILL)
        server.process.wait(timeout=30)
    try:  # anything the server started in its group goes with it
        os.killpg(server.process.pid, signal.SIGKILL)
    except ProcessLookupError:
        pass


@pytest.fixture(scope="session")
def phoenix(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Phoenix]:
    """One Phoenix server for the test run (skipped, saying why, when Phoenix is not installed)."""
    if not installed():
        pytest.skip(MISSING)
    server = start(tmp_path_factory.mktemp("phoenix"))
    try:
        yield server
    finally:
        stop(server)


@pytest.fixture
def project(phoenix: Phoenix) -> Iterator[Project]:
    """A fresh project in the shared server, deleted (spans and all) when the test ends."""
    fresh = phoenix.project()
    try:
        yield fresh
    finally:
        fresh.delete()
